#!/usr/bin/env bash
# The browser test of the web UI against a real `gantry serve` (issue 10):
#   1. builds the UI (npm ci, npm run build in web/ui) and, when missing, build/gantry;
#   2. starts build/gantry serve on 127.0.0.1:0 (a free port) with a fresh database in a
#      temporary folder, --ui web/ui/dist and the demo pipelines of web/ui/e2e/pipelines, and
#      reads its URL and admin token file from its first two lines of output;
#   3. runs web/ui/e2e/run.mjs in Debian's Chromium (playwright-core, headless): draws a
#      pipeline of three templates, connects them, sets a cron, saves, triggers, waits for the
#      run to succeed in the runs grid, opens every page (the Access page: revokes an editor
#      token made here and checks that the server then refuses it), saves screenshots (into
#      build/web-e2e/screenshots), and fails on any console error;
#   4. with --docs, first takes web/README.md's screenshots into web/ui/docs/screenshots
#      (e2e/screenshots.mjs, on the demo pipelines);
#   5. stops the server by its process id (SIGTERM, then waits for it). The browser test stops
#      the first server itself halfway (its outage step, e2e/outage.mjs) and starts another on
#      the same port and database: that one's process id comes back in a file, and this script
#      stops it.
# Exits non-zero when anything fails. Nothing waits by sleeping: the script blocks on the
# server's output, the browser test on the page's state.
#
# Usage: tools/web-e2e.sh [--docs] [--no-npm-ci]
# Environment: GANTRY_E2E_SPEED (default 600: ten simulated minutes a second, so the demo
# pipelines' hourly runs and the quickstart cluster's jobs move while the test watches),
# CHROMIUM (default /usr/bin/chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

docs=0
npm_ci=1
for arg in "$@"; do
  case "$arg" in
    --docs) docs=1 ;;
    --no-npm-ci) npm_ci=0 ;;
    *) echo "usage: tools/web-e2e.sh [--docs] [--no-npm-ci]" >&2; exit 2 ;;
  esac
done

tools/check-node.sh
chromium="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  echo "web-e2e: $chromium not found: run tools/install-deps.sh (Debian package chromium)" >&2
  exit 1
fi

echo "web-e2e: building the web UI (web/ui)"
(
  cd web/ui
  if [ "$npm_ci" = 1 ] || [ ! -d node_modules ]; then npm ci --no-audit --no-fund; fi
  npm run build
)
if [ ! -x build/gantry ]; then
  echo "web-e2e: building build/gantry"
  tools/cmake-configure.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo
  cmake --build build -j"$(nproc)" --target gantry
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gantry-web-e2e.XXXXXX")
shots="$root/build/web-e2e/screenshots"
mkdir -p "$shots"
server_pid=""
restarted_pid_file="$work/restarted.pid"
cleanup() {
  local status=$?
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ -s "$restarted_pid_file" ]; then
    local restarted
    restarted=$(cat "$restarted_pid_file")
    kill -TERM "$restarted" 2>/dev/null || true
    tail --pid="$restarted" -f /dev/null 2>/dev/null || true
  fi
  if [ "$status" -ne 0 ] && [ -s "$work/serve.err" ]; then
    echo "web-e2e: the server's stderr:" >&2
    tail -n 40 "$work/serve.err" >&2
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

# The server's standard output goes through a FIFO: the script blocks reading its first two
# lines (URL, token file), then a background cat keeps draining it.
mkfifo "$work/serve.out"
serve_args=(serve --db "$work/g.db" --listen 127.0.0.1:0 --speed "${GANTRY_E2E_SPEED:-600}"
  --ui "$root/web/ui/dist" --pipelines "$root/web/ui/e2e/pipelines"
  --cluster "$root/scenarios/quickstart.yaml" --scenarios "$root/scenarios")
build/gantry "${serve_args[@]}" > "$work/serve.out" 2> "$work/serve.err" < /dev/null &
server_pid=$!
exec 3< "$work/serve.out"
url_line=""
token_line=""
if ! IFS= read -r -t 120 url_line <&3 || ! IFS= read -r -t 30 token_line <&3; then
  echo "web-e2e: gantry serve did not start (first lines: '$url_line' '$token_line')" >&2
  exit 1
fi
cat <&3 > "$work/serve.rest" &
echo "web-e2e: $url_line"
echo "web-e2e: $token_line"
url=$(printf '%s\n' "$url_line" | sed -n 's/^gantry serve: \(http[^ ]*\).*/\1/p')
token_file=$(printf '%s\n' "$token_line" | awk '{print $NF}')
if [ -z "$url" ] || [ ! -r "$token_file" ]; then
  echo "web-e2e: could not read the URL or the token file from the server's output" >&2
  exit 1
fi
token=$(head -n 1 "$token_file")
# A read-only token too, for the test's last step (the pages grey out what it cannot do).
viewer_token=$(build/gantry token create --read-only --db "$work/g.db" | head -n 1)
# And an editor's, which the test revokes on the Access page (then refused: 401).
editor_token=$(build/gantry token create --role editor --name e2e-editor --db "$work/g.db" | head -n 1)

# web/README.md's screenshots first, so they show the demo pipelines only (not the test's own).
if [ "$docs" = 1 ]; then
  echo "web-e2e: README screenshots (web/ui/e2e/screenshots.mjs) into web/ui/docs/screenshots"
  (cd web/ui && GANTRY_URL="$url" GANTRY_TOKEN="$token" CHROMIUM="$chromium" \
    GANTRY_VIEWER_TOKEN="$viewer_token" GANTRY_EDITOR_TOKEN="$editor_token" GANTRY_BIN="$root/build/gantry" node e2e/screenshots.mjs docs/screenshots)
fi

echo "web-e2e: browser test (web/ui/e2e/run.mjs), screenshots in $shots"
# How the server was started, for the test's outage step (it starts it again the same way).
serve_args_json=$(node -e 'console.log(JSON.stringify(process.argv.slice(1)))' -- "${serve_args[@]}")
(cd web/ui && GANTRY_URL="$url" GANTRY_TOKEN="$token" GANTRY_VIEWER_TOKEN="$viewer_token" \
  GANTRY_EDITOR_TOKEN="$editor_token" CHROMIUM="$chromium" \
  GANTRY_SERVER_PID="$server_pid" GANTRY_BIN="$root/build/gantry" GANTRY_SERVE_ARGS="$serve_args_json" \
  GANTRY_RESTARTED_PID_FILE="$restarted_pid_file" node e2e/run.mjs "$shots")

if [ -s "$restarted_pid_file" ]; then
  # The test stopped the first server (SIGTERM): it must have ended cleanly.
  if ! wait "$server_pid"; then
    echo "web-e2e: gantry serve did not stop cleanly when the test stopped it" >&2
    exit 1
  fi
  server_pid=$(cat "$restarted_pid_file")
  rm -f "$restarted_pid_file"
  kill -TERM "$server_pid"
  # Not this shell's child: block until it has exited.
  tail --pid="$server_pid" -f /dev/null
else
  kill -TERM "$server_pid"
  if ! wait "$server_pid"; then
    echo "web-e2e: gantry serve did not stop cleanly" >&2
    exit 1
  fi
fi
server_pid=""
echo "web-e2e: passed"
