#!/usr/bin/env bash
# Checks that Node.js 20 or later and npm are on the PATH (the web UI's build, tests and browser
# test need them; web/ui/package.json "engines"). Debian 12's own nodejs package is 18, too old,
# so this script does not install Node: it says what is missing and fails.
set -euo pipefail
if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
  echo "error: Node.js 20 or later with npm is required for the web UI (web/ui), and" \
    "'node' or 'npm' is not on the PATH. Install Node.js 20 or later (with npm), then" \
    "run this again." >&2
  exit 1
fi
version=$(node --version)
major=${version#v}
major=${major%%.*}
if ! [[ "$major" =~ ^[0-9]+$ ]] || [ "$major" -lt 20 ]; then
  echo "error: Node.js $version is too old for the web UI (web/ui needs 20 or later)." \
    "Install Node.js 20+ and run this again." >&2
  exit 1
fi
