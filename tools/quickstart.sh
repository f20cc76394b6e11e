#!/usr/bin/env bash
# Installs the dependencies, builds Gantry and simulates the quickstart scenario.
# Usage: tools/quickstart.sh [extra `gantry simulate` flags]
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/cmake-configure.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)" --target gantry
build/gantry simulate scenarios/quickstart.yaml "$@"
