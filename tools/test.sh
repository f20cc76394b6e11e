#!/usr/bin/env bash
# Installs the dependencies, checks the formatting (.clang-format), builds everything, builds
# and tests the web UI (npm ci, the Vite build, Vitest) and runs its browser test against a real
# `gantry serve` (tools/web-e2e.sh), runs each fuzz target briefly, runs the tests under
# ASan + UBSan, and then the whole test suite with CTest (last, so its summary closes the
# output).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/check-format.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
(cd web/ui && npm ci --no-audit --no-fund && npm run build && npm test)
tools/web-e2e.sh --no-npm-ci
tools/fuzz-smoke.sh "${GANTRY_FUZZ_SECONDS:-20}"
tools/sanitize.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
