#!/usr/bin/env bash
# Builds the DocC catalogs of CoreMotion, CoreMotionTesting and MotionEngine with swift-docc-plugin,
# warnings as errors (unresolved links, bad curation, undocumented parameters…), then checks that every
# public declaration of the three modules has a doc comment of its own (tools/docs/check-coverage.py).
# The archives land in .build/plugins/Swift-DocC/outputs/. Reuses the debug build of `swift build`.
# Usage: tools/docs/build.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
modules=(CoreMotion CoreMotionTesting MotionEngine)
targets=()
for m in "${modules[@]}"; do targets+=(--target "$m"); done
swift package --disable-sandbox generate-documentation "${targets[@]}" --warnings-as-errors
python3 tools/docs/check-coverage.py "${modules[@]}"
