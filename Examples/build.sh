#!/usr/bin/env bash
# Builds every example (one package each) and runs each for a few seconds on a simulator scene or a recording:
# it must exit 0 and print what it should; the examples with a test target (WalkTracker, DaemonOnly) run
# their tests. DaemonOnly (built without the package's default trait) is built last, checked for what it must
# not link, and run through coremotiond. StepCounter also runs through the system service coremotiond (a
# temporary daemon on the simulator), before and after `coremotion permissions grant`, when the package's own
# coremotiond and coremotion are built (`swift build`; CI builds them first).
#
# In the repository (the default) each example depends on this package by path ("../.."), all sharing the
# scratch folder Examples/.build. With --outside, each is built as a user who copied it out builds it: a
# clone of this repository at HEAD tagged with the package's version (.build/examples-outside-release),
# each example copied from it into a temporary folder outside the repository, its manifest's
# `.package(name: "swift-core-motion", path: "../..")` changed to `.package(url: "file://<clone>", from:
# "<version>")`, built there (scratch .build/examples-outside; DaemonOnly, without the default trait, in
# .build/examples-outside-light) and smoke-tested the same way. CI runs --outside.
#
# usage: Examples/build.sh [--outside] [--build-only] [--no-service]
# Exit status 0 when every example built without warnings and passed its smoke test.
set -u
examples=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$examples/.." && pwd)
# The release the examples' manifests name ("In your own app: .package(url: …, from: "0.5.0")"): the
# package's own (CoreMotionVersion, with the CHANGELOG). --outside tags the release clone with it; every
# manifest's comment must say it.
release_version=$(sed -n 's/.*static let string = "\([0-9.]*\)".*/\1/p' "$root/Sources/MotionSamples/Version/CoreMotionVersion.swift")
[ -n "$release_version" ] || { echo "Examples/build.sh: no version in Sources/MotionSamples/Version/CoreMotionVersion.swift" >&2; exit 1; }
build_only=0
service=1
outside=0
while [ $# -gt 0 ]; do
    case "$1" in
        --outside) outside=1; shift ;;
        --build-only) build_only=1; shift ;;
        --no-service) service=0; shift ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        *) echo "unknown argument $1"; exit 2 ;;
    esac
done
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/coremotion-examples.XXXXXX")
daemon_pid=""
cleanup() {
    if [ -n "$daemon_pid" ]; then kill -TERM "$daemon_pid" 2>/dev/null; wait "$daemon_pid" 2>/dev/null; fi
    [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
status=0
started=$(date +%s)
fail() { echo "FAIL $1"; status=1; }
pass() { echo "PASS $1"; }
show() { sed 's/^/    | /' "$1" | tail -n "${2:-25}"; }

# Every manifest tells an app which release to depend on, and the same one.
for manifest in "$examples"/*/Package.swift; do
    if ! grep -q "In your own app: .package(url: \"https://github.com/<owner>/swift-core-motion\", from: \"$release_version\"" "$manifest"; then
        fail "${manifest#$root/}: its 'In your own app' comment does not name from: \"$release_version\""
    fi
done

if [ "$outside" = 1 ]; then
    # A release as a user gets it: a clone at HEAD (committed files only) tagged $release_version. SwiftPM takes
    # a package's identity from the URL's last component, so the clone's folder is called swift-core-motion.
    release="$root/.build/examples-outside-release/swift-core-motion"
    rm -rf "$root/.build/examples-outside-release"
    mkdir -p "$root/.build/examples-outside-release"
    head=$(git -C "$root" rev-parse HEAD)
    if ! git clone -q "$root" "$release" || ! git -C "$release" checkout -q --detach "$head" \
        || ! git -C "$release" tag -f "$release_version" >/dev/null; then
        echo "FAIL: could not make the release clone $release"
        exit 1
    fi
    # One scratch folder for the examples with the default traits, one for DaemonOnly (traits: []): in a shared
    # one, every switch between the two recompiles the whole library (and a background --build-only would
    # leave it compiled for the wrong one).
    scratch="$root/.build/examples-outside"
    light_scratch="$root/.build/examples-outside-light"
    # The tag moves when HEAD does, which a real release never does, and SwiftPM keeps what it resolved: its
    # copy of the repository in the scratch folder is not fetched while it has a $release_version, and a checkout
    # at $release_version counts as resolved whatever its revision. So a copy whose tag is not HEAD is removed
    # (SwiftPM clones the release again), and a checkout elsewhere is moved to HEAD in place (settle, below),
    # so that only what changed is compiled again.
    for cached in "$scratch"/repositories/swift-core-motion-* "$light_scratch"/repositories/swift-core-motion-*; do
        [ -d "$cached" ] || continue
        if [ "$(git -C "$cached" rev-parse -q --verify "refs/tags/$release_version^{commit}" 2>/dev/null)" != "$head" ]; then
            rm -rf "$cached"
        fi
    done
    apps="$work/apps"
    mkdir -p "$apps"
    # Copy each example out of the release and make the change a user makes to its manifest.
    for manifest in "$release"/Examples/*/Package.swift; do
        name=$(basename "$(dirname "$manifest")")
        cp -R "$release/Examples/$name" "$apps/$name"
        sed -i -E "s|\.package\(name: \"swift-core-motion\", path: \"\.\./\.\.\"|.package(url: \"file://$release\", from: \"$release_version\"|" \
            "$apps/$name/Package.swift"
        if grep -q 'path: "\.\./\.\."' "$apps/$name/Package.swift" || ! grep -q "url: \"file://$release\"" "$apps/$name/Package.swift"; then
            fail "$name: its manifest has no .package(name: \"swift-core-motion\", path: \"../..\") line to change"
        fi
    done
    echo "release $release_version: $head (${release#$root/}); examples copied to $apps"
else
    # CLIENT_SCRATCH: one scratch folder shared with the compatibility clients, so that the library and its
    # dependencies are compiled once for every client package.
    scratch="${CLIENT_SCRATCH:-$examples/.build}"
    light_scratch="$scratch"
    apps="$examples"
fi
[ "$status" = 0 ] || exit 1

names=()
# DaemonOnly is built apart, after the others: it builds the library without the default trait.
for manifest in "$apps"/*/Package.swift; do
    name=$(basename "$(dirname "$manifest")")
    [ "$name" = DaemonOnly ] || names+=("$name")
done

# settle SCRATCH APP: when SwiftPM's checkout of the release in SCRATCH is not at HEAD, moves it there (a
# resolve pinned to HEAD's revision, then APP's Package.resolved dropped: the build resolves $release_version
# again, now HEAD, and the checkout stays where it is).
settle() {
    local at
    at=$(grep -A12 '"identity" : "swift-core-motion"' "$1/workspace-state.json" 2>/dev/null | sed -nE 's/.*"revision" : "([0-9a-f]+)".*/\1/p' | head -n 1)
    [ -n "$at" ] && [ "$at" != "$head" ] || return 0
    if ! swift package --package-path "$2" --scratch-path "$1" resolve swift-core-motion --revision "$head" >"$work/settle.log" 2>&1; then
        show "$work/settle.log" 10
        fail "could not move ${1#$root/}'s checkout of swift-core-motion to $head"
    fi
    rm -f "$2/Package.resolved"
}
if [ "$outside" = 1 ]; then
    settle "$scratch" "$apps/${names[0]}"
    settle "$light_scratch" "$apps/DaemonOnly"
fi

# --- build ------------------------------------------------------------------------------------------------
for name in "${names[@]}"; do
    t0=$(date +%s)
    log="$work/build-$name.log"
    dir="$apps/$name"
    # An example with a test target builds its tests too (they run below).
    tests=()
    [ -d "$dir/Tests" ] && tests=(--build-tests)
    # --disable-build-manifest-caching: SwiftPM keeps one build plan per scratch folder and decides whether
    # to plan again from the files of the package it last planned for, not the one asked for: switching
    # packages, it can rebuild the previous example, report success and make no executable (seen once in
    # two clean runs). Planning again costs a few seconds; what is already compiled stays compiled.
    if ! swift build --package-path "$dir" --scratch-path "$scratch" --disable-build-manifest-caching ${tests[@]+"${tests[@]}"} >"$log" 2>&1; then
        grep -E "error:" "$log" | sort -u | head -30
        fail "build $name (log above)"
        continue
    fi
    if [ ! -x "$(swift build --package-path "$dir" --scratch-path "$scratch" --show-bin-path)/$name" ]; then
        tail -n 20 "$log"
        fail "build $name: swift build succeeded but made no executable $name"
        continue
    fi
    # An app's code (and its tests) compiles without a diagnostic.
    if grep -E "^$dir/(Sources|Tests)/.*warning:" "$log" | sort -u | grep .; then
        fail "build $name: warnings in the example's code"
    else
        echo "built $name ($(( $(date +%s) - t0 )) s)"
    fi
done
[ "$status" = 0 ] || exit 1
bin=$(swift build --package-path "$apps/${names[0]}" --scratch-path "$scratch" --show-bin-path)
# Outside the repository, the release the examples resolved is the clone's HEAD, tagged $release_version.
resolved_release() {
    [ "$outside" = 0 ] && return 0
    grep -q "\"revision\" : \"$head\"" "$apps/$1/Package.resolved" 2>/dev/null \
        && grep -q "\"version\" : \"$release_version\"" "$apps/$1/Package.resolved"
}
for name in "${names[@]}"; do
    resolved_release "$name" || fail "$name resolved swift-core-motion, but not $release_version at $head (its Package.resolved)"
done

# --- DaemonOnly: the light client -------------------------------------------------------------------------
# `traits: []`: it resolves six packages and links the API and the daemon connection only. Its executable
# must contain nothing of the in-process devices, the HTTP server, SQLite, the recordings or the simulator.
t0=$(date +%s)
log="$work/build-DaemonOnly.log"
lean="$apps/DaemonOnly"
if ! swift build --package-path "$lean" --scratch-path "$light_scratch" --disable-build-manifest-caching --build-tests >"$log" 2>&1; then
    grep -E "error:" "$log" | sort -u | head -30
    fail "build DaemonOnly (log above)"
    exit 1
fi
lean_bin=$(swift build --package-path "$lean" --scratch-path "$light_scratch" --show-bin-path)
if grep -E "^$lean/(Sources|Tests)/.*warning:" "$log" | sort -u | grep .; then fail "build DaemonOnly: warnings in the example's code"; fi
resolved_release DaemonOnly || fail "DaemonOnly resolved swift-core-motion, but not $release_version at $head (its Package.resolved)"
# Its dependencies, swift-core-motion aside (pinned in Package.resolved when it comes by URL, not by path).
packages=$(grep '"identity"' "$lean/Package.resolved" 2>/dev/null | grep -vc '"swift-core-motion"' || true)
[ -f "$lean/Package.resolved" ] || packages="?"
linked=$(nm "$lean_bin/DaemonOnly" 2>/dev/null | grep -oE '(Hummingbird|GRDB|sqlite3_open|ZIPFoundation|MotionNetwork|MotionIIO|MotionRecordings|MotionSimulator|MotionHistory|MotionService|MotionDevices|MotionEngine)' | sort -u | tr '\n' ' ')
if [ -x "$lean_bin/DaemonOnly" ] && [ -z "$linked" ] && [ "$packages" != "?" ] && [ "$packages" -le 6 ]; then
    pass "DaemonOnly built without the default trait ($(( $(date +%s) - t0 )) s): $packages packages resolved besides swift-core-motion, $(( $(stat -c %s "$lean_bin/DaemonOnly") / 1024 / 1024 )) MB debug, no in-process device, HTTP server, SQLite, recording reader or simulator linked"
else
    fail "DaemonOnly: $packages packages resolved (want <= 6), linked: ${linked:-nothing it should not}"
fi
if [ "$build_only" = 1 ]; then
    echo "examples: $([ "$status" = 0 ] && echo "all built" || echo "FAILED") ($(( $(date +%s) - started )) s)"
    exit $status
fi

# run NAME LOG SECONDS [ARGS...]: runs an example with the environment given, its output in LOG; returns
# its exit status (124 if it had to be killed).
run() {
    local name=$1 log=$2 seconds=$3; shift 3
    timeout -k 5 $(( seconds + 30 )) "$bin/$name" --seconds "$seconds" "$@" >"$log" 2>&1
}

# --- DaemonOnly, run ----------------------------------------------------------------------------------------
# Asked for a device in process, it says which trait it was built without.
COREMOTION_DEVICE=sim:walking-in-hand timeout -k 5 30 "$lean_bin/DaemonOnly" --seconds 1 >"$work/lean-sim.log" 2>&1; rc=$?
if [ "$rc" = 1 ] && grep -q "InProcessDevices" "$work/lean-sim.log"; then
    pass "DaemonOnly asked for sim: in process: exit 1, names the InProcessDevices trait"
else
    fail "DaemonOnly with COREMOTION_DEVICE=sim:walking-in-hand: exit $rc (want 1), trait named: $(grep -c InProcessDevices "$work/lean-sim.log")"
    show "$work/lean-sim.log"
fi
# Its tests: the same code on the simulator and a recording through CoreMotionTesting, in the same light build
# (the service and engines compiled for the tests; still no HTTP server, no SQLite, no IIO or phone).
log="$work/test-DaemonOnly.log"
t0=$(date +%s)
if swift test --package-path "$lean" --scratch-path "$light_scratch" --skip-build >"$log" 2>&1; then
    tests=$(sed -nE 's/.*Test run with ([0-9]+) tests? .*passed.*/\1/p' "$log" | tail -n 1)
    linked=$(nm "$lean_bin/DaemonOnlyPackageTests.xctest" 2>/dev/null | grep -oE '(Hummingbird|GRDB|sqlite3_open|MotionNetwork|MotionIIO|MotionDevices)' | sort -u | tr '\n' ' ')
    if [ -z "$linked" ] && [ -n "$tests" ]; then
        pass "DaemonOnly's tests with CoreMotionTesting, without the default traits ($(( $(date +%s) - t0 )) s): $tests passed; no HTTP server, SQLite, IIO or phone linked"
    else
        fail "DaemonOnly's tests: ${tests:-no} tests counted, linked: ${linked:-nothing it should not}"
    fi
else
    grep -E "error:|✘" "$log" | sort -u | head -30
    fail "DaemonOnly's tests (log above)"
fi
# --- BubbleLevel ------------------------------------------------------------------------------------------
# sim:rotate-x: face up and level for 2 s, then turning about the x axis (pitch rising at up to 30°/s).
log="$work/bubble.log"
COREMOTION_DEVICE=sim:rotate-x run BubbleLevel "$log" 4; rc=$?
lines=$(grep -cE '^pitch +[+-][0-9]+\.[0-9]°  roll +[+-][0-9]+\.[0-9]°' "$log")
first=$(head -n 1 "$log")
top=$(sed -nE 's/^pitch +([+-][0-9]+)\..*/\1/p' "$log" | sort -n | tail -n 1)
if [ "$rc" = 0 ] && [ "$lines" -ge 3 ] && [[ "$first" == *LEVEL* ]] && [ "${top:-0}" -ge 5 ]; then
    pass "BubbleLevel (sim:rotate-x, 4 s, not a terminal): $lines lines, level first, pitch up to ${top}°"
else
    fail "BubbleLevel (sim:rotate-x): exit $rc, $lines lines (want >= 3, one a second), first '$first' (want LEVEL), highest pitch ${top:-none} (want >= 5°)"
    show "$log"
fi
# A recording (an iPhone held while walking): not level.
log="$work/bubble-replay.log"
COREMOTION_DEVICE="replay:$root/Tests/Fixtures/recordings/sensorlogger/ios-walk.zip" run BubbleLevel "$log" 2; rc=$?
lines=$(grep -cE '^pitch +[+-][0-9]+\.[0-9]°  roll' "$log")
if [ "$rc" = 0 ] && [ "$lines" -ge 1 ]; then
    pass "BubbleLevel (a Sensor Logger recording, 2 s): $(head -n 1 "$log")"
else
    fail "BubbleLevel (replay): exit $rc, $lines lines"
    show "$log"
fi
# On a terminal (script(1) gives it one): ANSI frames about 30 times a second, the cursor restored at the end.
if command -v script >/dev/null 2>&1; then
    log="$work/bubble-tty.log"
    COREMOTION_DEVICE=sim:rotate-x script -qec "$bin/BubbleLevel --seconds 2" "$log" >/dev/null 2>&1; rc=$?
    frames=$(grep -o $'\e\\[H' "$log" | wc -l)
    if [ "$rc" = 0 ] && [ "$frames" -ge 30 ] && grep -q $'\e\\[?25h' "$log" && grep -q "pitch" "$log"; then
        pass "BubbleLevel (sim:rotate-x, 2 s, on a terminal): $frames frames"
    else
        fail "BubbleLevel on a terminal: exit $rc, $frames frames in 2 s (want >= 30), cursor restored: $(grep -c $'\e\\[?25h' "$log")"
    fi
else
    echo "notice: script(1) not found; BubbleLevel's terminal drawing not run"
fi

# --- HeadTracker ------------------------------------------------------------------------------------------
# sim:bud-out-and-in at 2×: looking around (left 70°, right 70°, up, down, a tilt); both buds out from 4.5 s to
# 6 s (disconnected after 0.5 s of it), then back: connected, disconnected, connected.
log="$work/head.log"
COREMOTION_DEVICE=none COREMOTION_HEADPHONE_DEVICE="sim:bud-out-and-in?speed=2" run HeadTracker "$log" 8; rc=$?
lines=$(grep -cE '^yaw +[+-][0-9]+\.[0-9]°  pitch +[+-][0-9]+\.[0-9]°  roll +[+-][0-9]+\.[0-9]°' "$log")
events=$(sed -nE 's/^\[headphones (connected|disconnected)\]$/\1/p' "$log" | tr '\n' ' ')
top=$(sed -nE 's/^yaw +([+-][0-9]+)\..*/\1/p' "$log" | sort -n | tail -n 1)
if [ "$rc" = 0 ] && [ "$lines" -ge 8 ] && [ "$events" = "connected disconnected connected " ] && [ "${top:-0}" -ge 50 ]; then
    pass "HeadTracker (sim:bud-out-and-in at 2×, 8 s): $lines lines, connection $events, yaw up to ${top}°"
else
    fail "HeadTracker (sim:bud-out-and-in): exit $rc, $lines lines (want >= 8), events '$events' (want connected disconnected connected), highest yaw ${top:-none} (want >= 50°)"
    show "$log"
fi
# A recording of real AirPods (head shakes): lines, one connection.
log="$work/head-replay.log"
COREMOTION_DEVICE=none COREMOTION_HEADPHONE_DEVICE="replay:$root/Tests/Fixtures/headphones/airpods-head-shake-excerpt.jsonl" run HeadTracker "$log" 2; rc=$?
lines=$(grep -cE '^yaw +[+-][0-9]+\.[0-9]°' "$log")
if [ "$rc" = 0 ] && [ "$lines" -ge 2 ] && grep -q '^\[headphones connected\]' "$log"; then
    pass "HeadTracker (an AirPods capture, 2 s): $(grep -m1 '^yaw' "$log")"
else
    fail "HeadTracker (replay): exit $rc, $lines lines"
    show "$log"
fi
log="$work/head-none.log"
COREMOTION_DEVICE=none COREMOTION_HEADPHONE_DEVICE=none run HeadTracker "$log" 1; rc=$?
if [ "$rc" = 1 ] && grep -q "COREMOTION_HEADPHONE_DEVICE" "$log"; then
    pass "HeadTracker without headphones: says how to choose them, exit 1"
else
    fail "HeadTracker without headphones: exit $rc (want 1)"
    show "$log"
fi

# --- StepCounter in process -------------------------------------------------------------------------------
# sim:walking-in-hand stands 3 s, then walks at 1.9 steps/s. The first run counts live steps into a fresh
# history file; the second finds them in today's history (hourly chart, activity).
history="$work/history.sqlite"
log="$work/steps-1.log"
COREMOTION_DEVICE=sim:walking-in-hand COREMOTION_HISTORY=$history run StepCounter "$log" 10; rc=$?
steps=$(sed -nE 's/^Stopped: ([0-9,]+) steps? today\./\1/p' "$log" | tr -d ,)
if [ "$rc" = 0 ] && grep -q "^Steps per hour (history):" "$log" && grep -q "^Activity today (history):" "$log" \
    && grep -qE '^  [0-9:]{8}  [0-9,]+ steps?' "$log" && [ "${steps:-0}" -ge 5 ]; then
    pass "StepCounter (sim:walking-in-hand, 10 s): $steps live steps"
else
    fail "StepCounter (sim:walking-in-hand, 10 s): exit $rc, live steps ${steps:-none} (want >= 5)"
    show "$log"
fi
log="$work/steps-2.log"
COREMOTION_DEVICE=sim:walking-in-hand COREMOTION_HISTORY=$history run StepCounter "$log" 2; rc=$?
total=$(sed -nE 's/^  total ([0-9,]+) steps?.*/\1/p' "$log" | tr -d ,)
if [ "$rc" = 0 ] && [ "${total:-0}" -ge 5 ] && grep -q "█" "$log" && grep -qE '^  walking +[0-9]' "$log"; then
    pass "StepCounter again on the same history: $total steps in today's hourly chart, walking in today's activity"
else
    fail "StepCounter history: exit $rc, hourly total ${total:-none} (want >= 5), walking listed: $(grep -cE '^  walking' "$log")"
    show "$log"
fi
log="$work/steps-denied.log"
COREMOTION_DEVICE=sim:walking-in-hand COREMOTION_HISTORY=$history COREMOTION_AUTHORIZATION=denied run StepCounter "$log" 2; rc=$?
if [ "$rc" = 1 ] && grep -q "coremotion permissions grant StepCounter" "$log"; then
    pass "StepCounter when Motion & Fitness is denied: says how to allow it, exit 1"
else
    fail "StepCounter denied: exit $rc (want 1), hint shown: $(grep -c 'permissions grant' "$log")"
    show "$log"
fi

# --- RawSensorLogger --------------------------------------------------------------------------------------
# CSV on standard output (a header, then time,sensor,x,y,z), notes on standard error. sim:walking-in-hand has
# all three sensors: 3 s at 20 Hz is about 60 lines of each.
log="$work/raw.csv"
COREMOTION_DEVICE=sim:walking-in-hand timeout -k 5 40 "$bin/RawSensorLogger" --seconds 3 --hz 20 >"$log" 2>"$work/raw.err"; rc=$?
number='-?[0-9]+\.[0-9]{6}'
counts=""
for sensor in accelerometer gyro magnetometer; do
    counts+="$(grep -cE "^[0-9]+\.[0-9]{6},$sensor,$number,$number,$number\$" "$log") "
done
read -r acc gyro mag <<<"$counts"
other=$(tail -n +2 "$log" | grep -cvE "^[0-9]+\.[0-9]{6},(accelerometer|gyro|magnetometer),$number,$number,$number\$")
if [ "$rc" = 0 ] && [ "$(head -n 1 "$log")" = "time,sensor,x,y,z" ] && [ "$other" = 0 ] \
    && [ "$acc" -ge 45 ] && [ "$acc" -le 65 ] && [ "$gyro" -ge 45 ] && [ "$gyro" -le 65 ] && [ "$mag" -ge 45 ] && [ "$mag" -le 65 ]; then
    pass "RawSensorLogger (sim:walking-in-hand, 3 s at 20 Hz): CSV with $acc accelerometer, $gyro gyro, $mag magnetometer lines"
else
    fail "RawSensorLogger (sim:walking-in-hand, 3 s at 20 Hz): exit $rc, $acc/$gyro/$mag lines (want 45-65 each), $other lines not time,sensor,x,y,z"
    show "$log" 5
    show "$work/raw.err"
fi
# A recording with an accelerometer only (QROWD, 25 Hz): a note for each missing sensor, accelerometer lines.
log="$work/raw-qrowd.csv"
COREMOTION_DEVICE="replay:$root/Tests/Fixtures/recordings/qrowd/walk/user1.txt" timeout -k 5 40 "$bin/RawSensorLogger" --seconds 2 >"$log" 2>"$work/raw-qrowd.err"; rc=$?
acc=$(grep -c ',accelerometer,' "$log")
if [ "$rc" = 0 ] && [ "$acc" -ge 20 ] && ! grep -qE ',(gyro|magnetometer),' "$log" \
    && grep -q "no gyro on this device" "$work/raw-qrowd.err" && grep -q "no magnetometer on this device" "$work/raw-qrowd.err"; then
    pass "RawSensorLogger (an accelerometer-only recording, 2 s): $acc accelerometer lines, a note for the gyro and the magnetometer"
else
    fail "RawSensorLogger (accelerometer-only recording): exit $rc, $acc accelerometer lines (want >= 20), notes: $(grep -c 'on this device' "$work/raw-qrowd.err") (want 2)"
    show "$work/raw-qrowd.err"
fi
COREMOTION_DEVICE=none timeout -k 5 30 "$bin/RawSensorLogger" --seconds 1 >"$work/raw-none.csv" 2>"$work/raw-none.err"; rc=$?
if [ "$rc" = 1 ] && grep -q "none of the three sensors" "$work/raw-none.err"; then
    pass "RawSensorLogger without sensors: says so, exit 1"
else
    fail "RawSensorLogger without sensors: exit $rc (want 1)"
    show "$work/raw-none.err"
fi

# --- Altimeter --------------------------------------------------------------------------------------------
# sim:elevator at 2×: standing 3 s, then a lift up 12 m in 15 s. No reference for absolute altitude.
log="$work/altimeter.log"
COREMOTION_DEVICE="sim:elevator?speed=2" run Altimeter "$log" 8; rc=$?
lines=$(grep -cE '^t +[0-9]+\.[0-9] s  pressure [0-9]+\.[0-9]{4} kPa  relative altitude +[+-][0-9]+\.[0-9]{2} m$' "$log")
top=$(sed -nE 's/.*relative altitude +\+([0-9]+)\.[0-9]+ m$/\1/p' "$log" | sort -n | tail -n 1)
kpa=$(sed -nE 's/.*pressure ([0-9]+)\.[0-9]+ kPa.*/\1/p' "$log" | head -n 1)
if [ "$rc" = 0 ] && [ "$lines" -ge 5 ] && [ "${top:-0}" -ge 5 ] && [ "${kpa:-0}" -ge 100 ] && [ "${kpa:-0}" -le 102 ] \
    && grep -q "^Absolute altitude is not available" "$log" && grep -q "^Stopped: " "$log"; then
    pass "Altimeter (sim:elevator at 2×, 8 s): $lines updates, ${kpa}.x kPa, up to +${top} m; absolute altitude said unavailable"
else
    fail "Altimeter (sim:elevator): exit $rc, $lines updates (want >= 5), highest +${top:-none} m (want >= 5), pressure ${kpa:-none} kPa"
    show "$log"
fi
# A recording of an iPhone 13 (absolute altitude: barometer fused with its GNSS fixes) climbing 9 m in 90 s, at 10×.
log="$work/altimeter-climb.log"
COREMOTION_DEVICE="replay:$root/Tests/Fixtures/recordings/sensorlogger/ios-climb?speed=10" run Altimeter "$log" 6; rc=$?
absolute=$(sed -nE 's/^t +[0-9.]+ s  absolute altitude ([0-9]+)\.[0-9] m  \(±[0-9.]+ m\)$/\1/p' "$log")
first=$(head -n 1 <<<"$absolute")
top=$(sed -nE 's/.*relative altitude +\+([0-9]+)\.[0-9]+ m$/\1/p' "$log" | sort -n | tail -n 1)
if [ "$rc" = 0 ] && [ -n "$first" ] && [ "$first" -ge 110 ] && [ "$first" -le 135 ] && [ "${top:-0}" -ge 3 ]; then
    pass "Altimeter (an iPhone 13 climbing, at 10×, 6 s): absolute altitude $(wc -l <<<"$absolute") updates from ${first} m, relative up to +${top} m"
else
    fail "Altimeter (ios-climb): exit $rc, absolute altitude ${first:-none} m (want 110-135), highest relative +${top:-none} m (want >= 3)"
    show "$log"
fi
log="$work/altimeter-denied.log"
COREMOTION_AUTHORIZATION=denied COREMOTION_DEVICE=sim:elevator run Altimeter "$log" 2; rc=$?
if [ "$rc" = 1 ] && grep -q "denied" "$log"; then
    pass "Altimeter when Motion & Fitness is denied: says so, exit 1"
else
    fail "Altimeter denied: exit $rc (want 1)"
    show "$log"
fi

# --- WalkTracker ------------------------------------------------------------------------------------------
# The program on sim:walking-in-hand (3 s standing, then 1.9 steps/s), then its tests: the model on the
# bundled MotionSense walk through CoreMotionTesting.
log="$work/walk.log"
COREMOTION_DEVICE=sim:walking-in-hand run WalkTracker "$log" 10; rc=$?
steps=$(sed -nE 's/^Walk: ([0-9]+) steps? .*/\1/p' "$log")
if [ "$rc" = 0 ] && [ "${steps:-0}" -ge 5 ] && grep -qE '^  [0-9]+ steps? · [0-9]+ m' "$log"; then
    pass "WalkTracker (sim:walking-in-hand, 10 s): $(grep '^Walk:' "$log")"
else
    fail "WalkTracker (sim:walking-in-hand, 10 s): exit $rc, ${steps:-no} steps (want >= 5)"
    show "$log"
fi
log="$work/test-WalkTracker.log"
t0=$(date +%s)
if swift test --package-path "$apps/WalkTracker" --scratch-path "$scratch" --skip-build >"$log" 2>&1; then
    tests=$(sed -nE 's/.*Test run with ([0-9]+) tests? .*passed.*/\1/p' "$log" | tail -n 1)
    if [ -n "$tests" ]; then
        pass "WalkTracker's tests with CoreMotionTesting on the bundled walk ($(( $(date +%s) - t0 )) s): $tests passed"
    else
        fail "WalkTracker's tests: no test counted"
        show "$log"
    fi
else
    grep -E "error:|✘" "$log" | sort -u | head -30
    fail "WalkTracker's tests (log above)"
fi

# --- StepCounter through coremotiond ----------------------------------------------------------------------
root_bin=$(swift build --package-path "$root" --show-bin-path 2>/dev/null)
if [ "$service" = 0 ]; then
    echo "notice: --no-service: StepCounter through coremotiond not run"
elif [ ! -x "$root_bin/coremotiond" ] || [ ! -x "$root_bin/coremotion" ]; then
    echo "notice: $root_bin has no coremotiond or coremotion (run swift build first); StepCounter through coremotiond not run"
else
    socket="$work/cm.sock"
    "$root_bin/coremotiond" --socket "$socket" --device sim:walking-in-hand --history "$work/daemon.sqlite" \
        --permissions "$work/permissions.json" --policy "$work/no-policy.json" >"$work/daemon.log" 2>&1 &
    daemon_pid=$!
    up=0
    for _ in $(seq 100); do
        if "$root_bin/coremotion" service status --socket "$socket" >/dev/null 2>&1; then up=1; break; fi
        sleep 0.1
    done
    if [ "$up" = 0 ]; then
        fail "coremotiond did not start"
        show "$work/daemon.log"
    else
        # The daemon records whether or not an app runs: let it count some steps first.
        sleep 8
        log="$work/steps-service-1.log"
        COREMOTION_DEVICE=service:$socket run StepCounter "$log" 2; rc=$?
        if [ "$rc" = 0 ] && grep -q "not determined" "$log" && grep -q "Allow it with:  coremotion permissions grant StepCounter" "$log"; then
            pass "StepCounter through coremotiond, not yet allowed: live steps only, prints the permissions hint"
        else
            fail "StepCounter through coremotiond before the grant: exit $rc, hint shown: $(grep -c 'permissions grant' "$log")"
            show "$log"
        fi
        "$root_bin/coremotion" permissions grant StepCounter --socket "$socket" >"$work/grant.log" 2>&1 \
            || { fail "coremotion permissions grant StepCounter"; show "$work/grant.log"; }
        log="$work/steps-service-2.log"
        COREMOTION_DEVICE=service:$socket run StepCounter "$log" 3; rc=$?
        total=$(sed -nE 's/^  total ([0-9,]+) steps?.*/\1/p' "$log" | tr -d ,)
        if [ "$rc" = 0 ] && grep -q "Motion & Fitness: authorized" "$log" && [ "${total:-0}" -ge 5 ] \
            && grep -qE '^  walking +[0-9]' "$log" && ! grep -q "permissions grant" "$log"; then
            pass "StepCounter through coremotiond after the grant: $total steps the daemon recorded before the app ran, walking in today's activity"
        else
            fail "StepCounter through coremotiond after the grant: exit $rc, hourly total ${total:-none} (want >= 5)"
            show "$log"
            show "$work/daemon.log" 10
        fi
        # The light client, unchanged code, through the same daemon (unset COREMOTION_DEVICE: `auto` finds it).
        log="$work/lean-service.log"
        env -u COREMOTION_DEVICE COREMOTION_SOCKET="$socket" timeout -k 5 40 "$lean_bin/DaemonOnly" --seconds 3 >"$log" 2>&1; rc=$?
        updates=$(sed -nE 's/^([0-9]+) accelerometer updates$/\1/p' "$log")
        if [ "$rc" = 0 ] && [ "${updates:-0}" -ge 20 ] && grep -qE '^x [+-][0-9]\.[0-9]{3}  y ' "$log"; then
            pass "DaemonOnly through coremotiond (COREMOTION_DEVICE unset, 3 s at 10 Hz): $updates accelerometer updates"
        else
            fail "DaemonOnly through coremotiond: exit $rc, ${updates:-no} updates (want >= 20)"
            show "$log"
        fi
    fi
fi

echo "examples: $([ "$status" = 0 ] && echo "all passed" || echo "FAILED") ($(( $(date +%s) - started )) s)"
exit $status
