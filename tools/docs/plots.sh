#!/usr/bin/env bash
# Regenerates the figures of the CoreMotion documentation ("How accurate is it") from the shared data
# sets, with the coremotion tool's own SVG plots, into Sources/CoreMotion/CoreMotion.docc/Resources.
# Usage: tools/docs/plots.sh      (data: $COREMOTION_DATA, else ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/../.."
data="${COREMOTION_DATA:-../shared/data}"
out=Sources/CoreMotion/CoreMotion.docc/Resources
for set in broad oxford-step-counter; do
    [ -d "$data/$set" ] || { echo "missing data set $data/$set (set COREMOTION_DATA)" >&2; exit 1; }
done
swift build --product coremotion
bin="$(swift build --show-bin-path)/coremotion"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Device motion: 9D error against optical truth in BROAD trial 28 (a magnet beside the device).
"$bin" evaluate --data "$data" --suites broad --trials 28_ --plots "$tmp/broad" > /dev/null
cp "$tmp/broad/broad-28_disturbed_stationary_magnet_A.svg" "$out/accuracy-broad-28.svg"

# Nothing is plotted from the iPhone 13 walk: that recording is GPL-3.0, and nothing derived from it
# enters the repository (`coremotion evaluate --suites apple --plots DIR` draws its plots locally).

# Steps: an Oxford step counter walk in hand (CC BY 4.0), detected steps against the foot switches.
"$bin" steps "$data/oxford-step-counter/optimisation_data.zip#Pixel_Jamie_Hard_InHand_1" \
    --plot "$out/accuracy-steps-oxford.svg" > /dev/null

ls -l "$out"
