#!/bin/sh
# tools/web/test.sh - `make web-test`: build/web served by python3 -m
# http.server on loopback and driven in a headless Chromium (the npm package
# @sparticuz/chromium, which carries the browser binary, and puppeteer-core,
# both installed under build/web-node on first use), checked against the
# native build/stepformer (tools/web/test.js says what is checked).
# Screenshots land in build/web-test/.
set -eu
[ -f build/web/index.html ] || { echo "web-test: no build/web (run make web)" >&2; exit 1; }
[ -x build/stepformer ] || { echo "web-test: no build/stepformer (run make)" >&2; exit 1; }
N=build/web-node
if ! command -v npm >/dev/null 2>&1; then # Debian's nodejs comes without it
    if [ "$(id -u)" = 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends npm >/dev/null
    else
        echo "web-test: npm is missing (sudo apt-get install npm)" >&2; exit 1
    fi
fi
if [ ! -d "$N/node_modules/puppeteer-core" ] || [ ! -d "$N/node_modules/@sparticuz/chromium" ]; then
    mkdir -p "$N"
    [ -f "$N/package.json" ] || echo '{"name": "stepformer-web-test", "private": true}' >"$N/package.json"
    (cd "$N" && npm install --no-audit --no-fund --loglevel=error @sparticuz/chromium puppeteer-core)
fi
mkdir -p build/web-test
PORT=${WEB_TEST_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory build/web >build/web-test/http.log 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null' EXIT INT TERM
i=0
until python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/index.html')" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 50 ] || { echo "web-test: the server did not start" >&2; exit 1; }
    sleep 0.1
done
NODE_PATH="$N/node_modules" node tools/web/test.js "http://127.0.0.1:$PORT/index.html" build/stepformer build/web-test
