#!/usr/bin/env bash
# Installs every Debian package Gantry needs to build, test and benchmark (chromium for the web
# UI's browser test, tools/web-e2e.sh), and checks that Node.js 20 or later and npm are there
# for the web UI (tools/check-node.sh: Debian 12's nodejs is too old, so it is not installed
# from here). Idempotent and non-interactive: safe to run on every CI start.
#
# --bench-peers also installs the peers bench/ races Gantry against (libns3-dev for
# bench/event_rate_vs_ns3.sh: about 60 MB with libgsl). Optional, because nothing builds or
# tests against them and CI need not download them on every start.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git ninja-build mold  # tools/cmake-configure.sh
  dpkg-dev  # dpkg-shlibdeps: the .deb's declared libraries (cmake/GantryInstall.cmake)
  libboost-graph-dev libsqlite3-dev sqlite3 libyaml-cpp-dev nlohmann-json3-dev
  libcivetweb-dev libfmt-dev libcurl4-openssl-dev libspdlog-dev libcli11-dev
  libhowardhinnant-date-dev tzdata
  libjemalloc-dev  # tools/CMakeLists.txt: the gantry program's allocator
  libgtest-dev libgmock-dev libbenchmark-dev
  hyperfine time
  clang libclang-rt-14-dev clang-format
  libssl-dev chromium
  fonts-noto-cjk  # the web app's zh-CN locale in the browser test's screenshots (Chromium has no CJK glyphs without it)
  zlib1g-dev libbrotli-dev  # web/server/static_files.hpp: gzip and brotli for the web app
  python3 python3-jsonschema  # tests/adapters/kube/validate_bodies.py: request bodies vs the OpenAPI specs
)
if [ "${1:-}" = "--bench-peers" ]; then
  packages+=(libns3-dev wrk)  # wrk: bench/serve_rest.sh
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exec "$(dirname "$0")/check-node.sh"
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" < /dev/null
"$(dirname "$0")/check-node.sh"
