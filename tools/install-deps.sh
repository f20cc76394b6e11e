#!/usr/bin/env bash
# Installs every Debian package Gantry needs to build, test and benchmark.
# Idempotent and non-interactive: safe to run on every CI start.
#
# --bench-peers also installs the peers bench/ races Gantry against (libns3-dev for
# bench/event_rate_vs_ns3.sh: about 60 MB with libgsl). Optional, because nothing builds or
# tests against them and CI need not download them on every start.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libboost-graph-dev libsqlite3-dev sqlite3 libyaml-cpp-dev nlohmann-json3-dev
  libcivetweb-dev libfmt-dev libcurl4-openssl-dev libspdlog-dev libcli11-dev
  libhowardhinnant-date-dev tzdata
  libgtest-dev libgmock-dev libbenchmark-dev
  hyperfine time
  clang libclang-rt-14-dev clang-format
  libssl-dev chromium
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
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" < /dev/null
