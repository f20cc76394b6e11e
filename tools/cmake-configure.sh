#!/usr/bin/env bash
# Configures a CMake build directory the same way for every script, with the fastest tools the
# machine has: Ninja (it keeps both cores busy to the last link), mold as the linker and ccache
# when they are installed (tools/install-deps.sh installs Ninja and mold; ccache is only used
# when a developer has it: CI starts from an empty cache, where it would only cost time).
#   tools/cmake-configure.sh BUILD_DIR [extra cmake arguments...]
# Prints nothing but errors; the build directory's CMakeCache.txt records what was chosen.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
shift
args=(-S . -B "$dir")
if command -v ninja > /dev/null; then args+=(-G Ninja); fi
if command -v ccache > /dev/null; then args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if command -v mold > /dev/null; then
  args+=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=mold -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=mold)
fi
# A directory configured earlier with another generator cannot switch; start it again.
if [ -f "$dir/CMakeCache.txt" ] && ! grep -q "CMAKE_GENERATOR:INTERNAL=$(command -v ninja > /dev/null && echo Ninja || echo 'Unix Makefiles')\$" "$dir/CMakeCache.txt"; then
  rm -rf "$dir"
fi
cmake "${args[@]}" "$@" > /dev/null
