#!/usr/bin/env bash
# The README's test command, and what .ci/run calls. In order:
#   1. installs the dependencies, checks the formatting (.clang-format) and that every include
#      follows the layers of the folders' READMEs (tools/check-layers.sh);
#   2. builds everything optimised (gcc, no debug information: CI only runs it; libraries as
#      unity builds, CMakeLists.txt says why);
#   3. builds and tests the web UI (npm ci, the Vite build, Vitest) and runs its browser test
#      against a real `gantry serve` (tools/web-e2e.sh); then installs the program, its
#      scenarios and the web app into a temporary prefix, builds the .deb, and runs both from
#      another folder (tools/install-check.sh);
#   4. builds everything once more with clang under ASan + UBSan and libFuzzer's coverage
#      (tools/sanitized-build.sh), runs each fuzz target briefly in it (tools/fuzz-smoke.sh)
#      and the test suite under the sanitizers (tools/sanitize.sh);
#   5. runs the whole test suite on the optimised build with CTest (last, so its summary
#      closes the output).
# Each stage's wall time is printed as it ends, and all of them in a table at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/stage-timer.sh
source tools/stage-timer.sh

stage "install dependencies" tools/install-deps.sh
stage "check formatting" tools/check-format.sh
stage "check layers" tools/check-layers.sh
stage "configure" tools/cmake-configure.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGANTRY_UNITY_BUILD=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG"
stage "build (gcc -O2)" cmake --build build -j"$(nproc)"
stage "web UI: npm ci, build, Vitest" \
  bash -c 'cd web/ui && npm ci --no-audit --no-fund && npm run build && npm test'
stage "web UI: browser test" tools/web-e2e.sh --no-npm-ci
stage "install and .deb, run elsewhere" tools/install-check.sh build
stage "fuzz targets (build and run)" tools/fuzz-smoke.sh "${GANTRY_FUZZ_SECONDS:-20}"
stage "sanitized build and tests" tools/sanitize.sh
stage "tests (gcc -O2)" ctest --test-dir build --output-on-failure -j"$(nproc)"
stage_summary
