#!/usr/bin/env bash
# Builds the DocC catalogs of CoreMotion, CoreMotionTesting and MotionEngine with swift-docc-plugin,
# warnings as errors (unresolved links, bad curation, undocumented parameters…), then checks that every
# public declaration of the three modules has a doc comment of its own (tools/docs/check-coverage.py).
# The archives land in .build/plugins/Swift-DocC/outputs/; each is then made a static site (docc's transform
# for static hosting) in .build/docs-site/<Module>/, with an index page, servable by any web server:
#   python3 -m http.server -d .build/docs-site 8000   →   http://127.0.0.1:8000/
# (a site hosted under a path: DOCS_BASE_PATH=/swift-core-motion tools/docs/build.sh). Reuses the debug build.
# Usage: tools/docs/build.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
modules=(CoreMotion CoreMotionTesting MotionEngine)
targets=()
for m in "${modules[@]}"; do targets+=(--target "$m"); done
swift package --disable-sandbox generate-documentation "${targets[@]}" --warnings-as-errors
python3 tools/docs/check-coverage.py "${modules[@]}"

site=.build/docs-site
base=${DOCS_BASE_PATH:-}
rm -rf "$site"
mkdir -p "$site"
links=""
for m in "${modules[@]}"; do
    lower=$(echo "$m" | tr '[:upper:]' '[:lower:]')
    docc process-archive transform-for-static-hosting ".build/plugins/Swift-DocC/outputs/$m.doccarchive" \
        --output-path "$site/$m" --hosting-base-path "$base/$m" >/dev/null
    # DocC's renderer asks for an optional theme-settings.json at the site's root; an empty one answers it
    # (no 404 in the console or the server's log).
    echo '{"meta":{},"theme":{},"features":{}}' > "$site/$m/theme-settings.json"
    page="$site/$m/documentation/$lower/index.html"
    [ -s "$page" ] || { echo "docs site: $page missing"; exit 1; }
    links+="<li><a href=\"$m/documentation/$lower/\">$m</a></li>"
done
cat > "$site/index.html" <<HTML
<!doctype html><meta charset="utf-8"><title>swift-core-motion documentation</title>
<h1>swift-core-motion</h1><ul>$links</ul>
<p>The guides to the service, devices, formats and engines are in the repository's docs/ folder.</p>
HTML
echo "docs site: $site ($(find "$site" -type f | wc -l) files; python3 -m http.server -d $site)"
