#!/usr/bin/env bash
# Checks that every #include follows the layers each folder's README allows ("May depend on"):
#   engine/   nothing of the project's other folders
#   sim/      engine/
#   workflow/ engine/
#   report/   engine/, sim/
#   adapters/ engine/, sim/, workflow/
#   web/      everything but tools/
# A lower layer that needs a higher one's reader takes it from its caller (CONTRIBUTING.md,
# "Layout and dependencies"). Prints each include that crosses a layer; exits 1 if any does.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A allowed=(
  [engine]="engine"
  [sim]="engine sim"
  [workflow]="engine workflow"
  [report]="engine sim report"
  [adapters]="engine sim workflow adapters"
  [web]="engine sim workflow report adapters web"
)
status=0
for folder in "${!allowed[@]}"; do
  while IFS= read -r line; do
    included=${line#*#include \"}
    top=${included%%/*}
    case " ${allowed[$folder]} " in
      *" $top "*) ;;
      *)
        # Only the project's folders count: <system> and other libraries' headers do not.
        if [ -d "$top" ] && [ "$top" != "$included" ]; then
          echo "check-layers: $line: $folder/ may not include $top/" >&2
          status=1
        fi
        ;;
    esac
  done < <(grep -rn --include='*.hpp' --include='*.cpp' '^#include "' "$folder" || true)
done
if [ "$status" -eq 0 ]; then echo "check-layers: every include follows the layers"; fi
exit "$status"
