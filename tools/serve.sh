#!/usr/bin/env bash
# Installs the dependencies, builds Gantry and its web UI, and starts `gantry serve` on its
# defaults: http://127.0.0.1:8080, database gantry.db here, the quickstart cluster simulated on
# the wall clock, the web UI of web/ui/dist. It prints the URL and the file that holds the admin
# token (written on the first start, mode 0600); open the URL and paste the token.
# Ctrl-C (SIGINT) or SIGTERM stops the server gracefully.
#
# Usage: tools/serve.sh [extra `gantry serve` flags, e.g. --speed 60 --pipelines DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
(cd web/ui && npm ci --no-audit --no-fund && npm run build)
tools/cmake-configure.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)" --target gantry
echo "serve: starting build/gantry serve $* (the first two lines say the URL and the token file)"
exec build/gantry serve "$@"
