#!/usr/bin/env bash
# Cross-validated accuracy of the fusion filter (leave-one-trial-out on BROAD, side by side with VQF)
# and of the step detector (leave-one-subject-out on IPOL gait and the Oxford step counter).
#
#   tools/accuracy/cross-validate.sh [OUT_DIR]
#
# Needs the shared data ($COREMOTION_DATA, default ../shared/data) and, for the VQF columns, Python 3
# with `vqf` and `numpy` (`python3 -m pip install vqf imufusion ahrs numpy`; broad_eval.py imports all
# three). Writes OUT_DIR (default .build/accuracy): anchors.json, fusion-cv.txt, steps-cv.txt (add --json to either command for the per-trial detail).
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${1:-.build/accuracy}"
mkdir -p "$out"
data="${COREMOTION_DATA:-$(cd .. && pwd)/shared/data}"
eval_dir="${COREMOTION_EVAL:-$(cd .. && pwd)/shared/eval}"
python="${PYTHON:-python3}"
export COREMOTION_DATA="$data"

echo "== building coremotion (release)" >&2
flock /tmp/swift-build.lock swift build -c release --product coremotion >&2
tool=.build/release/coremotion

anchors=()
if [ -f "$eval_dir/broad_eval.py" ] && "$python" -c 'import vqf, numpy, imufusion, ahrs' 2>/dev/null; then
    echo "== VQF on BROAD (broad_eval.py --runners vqf)" >&2
    nice -n 10 "$python" "$eval_dir/broad_eval.py" --data "$data/broad" --runners vqf --no-timing --out "$out/anchors.json" >&2
    anchors=(--anchors "$out/anchors.json")
else
    echo "== no VQF columns: broad_eval.py or its Python packages are missing" >&2
fi

echo "== fusion: leave-one-trial-out on BROAD" >&2
# The grid of the published figures: every BROAD-measurable constant except three gyro-bias
# uncertainties (initial, drift, motion), biasLimit and restMinimumTime, which the Apple-parity
# recordings rejected (docs/fusion.md); biasRestSigma is in it.
# FUSION_CV_ALL=1 cross-validates every constant with a grid instead.
if [ "${FUSION_CV_ALL:-0}" = 1 ]; then cv_settings=(); else cv_settings=(--cv-settings "$(cat tools/accuracy/fusion-cv-settings.txt)"); fi
# Objective: each trial's 9D and 6D totals relative to VQF's on the same trial (the targets' own
# measure); without VQF, 9D + 6D in degrees. A change must gain 2 standard errors (the default margin).
if [ ${#anchors[@]} -gt 0 ]; then objective=(--cv-objective vqf); else objective=(--cv-objective sum); fi
nice -n 10 "$tool" evaluate --cross-validate "${anchors[@]}" "${objective[@]}" "${cv_settings[@]}" | tee "$out/fusion-cv.txt"

echo "== steps: leave-one-subject-out on IPOL gait and the Oxford step counter" >&2
steps=(steps "$data/ipol-gait/GaitData_lowerback_and_footevents.zip"
       --also "$data/oxford-step-counter/optimisation_data.zip" --cross-validate)
nice -n 10 "$tool" "${steps[@]}" | tee "$out/steps-cv.txt"
