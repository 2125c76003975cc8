#!/usr/bin/env bash
# CI's browser tests of `coremotion view` and of the API reference site: installs Debian's chromium and
# chromium-driver and selenium (pip) when missing, then runs tools/view/browser-test.py on the debug build
# (.build/debug/coremotion, made by CI's build step) and tools/docs/site-browser-test.py on .build/docs-site.
# Screenshots go to $TMPDIR/coremotion-view-screenshots and coremotion-docs-screenshots (default /tmp).
#
#     tools/view/ci.sh            from the repository root, after `swift build`
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
if ! command -v chromium >/dev/null 2>&1 || ! { command -v chromedriver >/dev/null 2>&1 || [ -x /usr/lib/chromium/chromedriver ]; }; then
    echo "installing chromium chromium-driver"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi
if ! python3 -c "import selenium" >/dev/null 2>&1; then
    echo "installing selenium"
    python3 -m pip install -q selenium 2>/dev/null || python3 -m pip install -q --break-system-packages selenium
fi
if [ ! -x .build/debug/coremotion ]; then
    echo "FAIL: .build/debug/coremotion is missing (run swift build first)"; exit 1
fi
out="${TMPDIR:-/tmp}/coremotion-view-screenshots"
python3 tools/view/browser-test.py --binary .build/debug/coremotion --out "$out" --cpu-seconds 10
# The API reference site (made by tools/docs/build.sh in CI's documentation step) in the same browser: each
# module's overview and symbol pages draw their titles, with no console error and no failed request.
if [ -f .build/docs-site/index.html ]; then
    python3 tools/docs/site-browser-test.py --site .build/docs-site --out "${TMPDIR:-/tmp}/coremotion-docs-screenshots"
else
    echo "notice: no .build/docs-site (tools/docs/build.sh makes it); the site's browser check skipped"
fi

