#!/usr/bin/env bash
# npm start: install what is missing, build the WebAssembly modules, serve web/ on localhost.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/bootstrap.sh
bash tools/build.sh web
exec node tools/serve.mjs "$@"
