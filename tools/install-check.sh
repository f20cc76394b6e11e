#!/usr/bin/env bash
# Checks what a user gets from `cmake --install` and from the Debian package (issue 27), away
# from the source tree:
#   1. installs BUILD_DIR (default build) into a temporary prefix;
#   2. from another folder, simulates an installed scenario that reads installed data files, and
#      checks its fingerprint is the build tree's for the same scenario (same program, same data);
#   3. from that folder, starts the installed `gantry serve` with no --cluster, --ui or
#      --scenarios: it must find the installed quickstart, web app and what-if scenarios beside
#      itself, answer for each, and stop cleanly on SIGTERM;
#   4. builds the .deb with CPack, checks its declared dependencies, unpacks it and simulates
#      the unpacked scenario with the unpacked program.
# It needs the web app built (web/ui/dist), as the install does. Usage: tools/install-check.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
scenario=pai-2020-cluster.yaml  # reads scenarios/data/: the data must be installed with it

work=$(mktemp -d "${TMPDIR:-/tmp}/gantry-install-check.XXXXXX")
server_pid=""
cleanup() {
  local status=$?
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ "$status" -ne 0 ] && [ -s "$work/serve.err" ]; then
    echo "install-check: the server's stderr:" >&2
    tail -n 20 "$work/serve.err" >&2
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
fail() {
  echo "install-check: FAILED: $*" >&2
  exit 1
}
fingerprint() { sed -n 's/^ *fingerprint *\([0-9a-f]*\).*/\1/p'; }

prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in bin/gantry share/gantry/scenarios/quickstart.yaml share/gantry/scenarios/$scenario \
  share/gantry/web/index.html; do
  [ -e "$prefix/$f" ] || fail "cmake --install did not install $f"
done
echo "install-check: installed into a temporary prefix ($(du -sh "$prefix" | cut -f1))"

elsewhere="$work/elsewhere"
mkdir -p "$elsewhere"
expected=$("$build/gantry" simulate "scenarios/$scenario" --out "$work/from-build" | fingerprint)
got=$(cd "$elsewhere" &&
  "$prefix/bin/gantry" simulate "$prefix/share/gantry/scenarios/$scenario" --out out | fingerprint)
[ -n "$expected" ] || fail "the build tree's gantry simulate printed no fingerprint"
[ "$got" = "$expected" ] ||
  fail "installed $scenario: fingerprint '$got', the build tree's is '$expected'"
[ -s "$elsewhere/out/results.db" ] || fail "installed simulate wrote no out/results.db"
echo "install-check: installed simulate of $scenario from another folder: fingerprint $got, as built"

# The server's first two lines (URL, token file) through a FIFO, as tools/web-e2e.sh reads them.
mkfifo "$work/serve.out"
(cd "$elsewhere" && exec "$prefix/bin/gantry" serve --db g.db --listen 127.0.0.1:0 \
  > "$work/serve.out" 2> "$work/serve.err" < /dev/null) &
server_pid=$!
exec 3< "$work/serve.out"
url_line=""
token_line=""
if ! IFS= read -r -t 60 url_line <&3 || ! IFS= read -r -t 30 token_line <&3; then
  fail "installed gantry serve did not start (first lines: '$url_line' '$token_line')"
fi
cat <&3 > /dev/null &
url=$(printf '%s\n' "$url_line" | sed -n 's/^gantry serve: \(http[^ ]*\).*/\1/p')
case "$url_line" in
  *"$prefix/share/gantry/scenarios/quickstart.yaml"*) ;;
  *) fail "installed gantry serve did not take the installed quickstart: '$url_line'" ;;
esac
token=$(head -n 1 "$elsewhere/g.db.token")
curl -fsS "$url/" | grep -q '<div id="root">' ||
  fail "installed gantry serve did not serve the installed web app at $url/"
curl -fsS -H "Authorization: Bearer $token" "$url/api/v1/scenarios" | grep -q '"name":"quickstart"' ||
  fail "installed gantry serve did not list the installed scenarios (GET /api/v1/scenarios)"
kill -TERM "$server_pid"
serve_status=0
wait "$server_pid" || serve_status=$?
server_pid=""
[ "$serve_status" -eq 0 ] || fail "installed gantry serve exited $serve_status on SIGTERM"
echo "install-check: installed serve from another folder: quickstart, web app and scenarios found"

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/package" > "$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log" >&2; fail "cpack -G DEB"; }
deb=$(ls "$work"/package/gantry_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
for needed in tzdata libjemalloc2 libsqlite3-0 libyaml-cpp0.7 libcivetweb1 libcurl4 libfmt9; do
  grep -q "\\b$needed\\b" <<< "$depends" || fail "$(basename "$deb") does not declare $needed: $depends"
done
dpkg-deb -x "$deb" "$work/unpacked"
got=$(cd "$elsewhere" && "$work/unpacked/usr/bin/gantry" simulate \
  "$work/unpacked/usr/share/gantry/scenarios/$scenario" --out from-deb | fingerprint)
[ "$got" = "$expected" ] || fail "the .deb's $scenario: fingerprint '$got', the build tree's is '$expected'"
echo "install-check: $(basename "$deb") ($(du -h "$deb" | cut -f1)) declares its libraries;" \
  "unpacked, it simulates $scenario as built"
echo "install-check: passed"
