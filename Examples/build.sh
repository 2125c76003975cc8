#!/usr/bin/env bash
# Builds every example (one package each, all sharing the scratch folder Examples/.build, so that
# swift-core-motion and its dependencies are compiled once) and runs each for a few seconds on a simulator
# scene: it must exit 0 and print what it should. DaemonOnly (built without the package's default trait) is
# built last, checked for what it must not link, and run through coremotiond. StepCounter also runs through the system service
# coremotiond (a temporary daemon on the simulator), before and after `coremotion permissions grant`, when
# the package's own coremotiond and coremotion are built (`swift build`; CI builds them first).
#
# usage: Examples/build.sh [--build-only] [--no-service]
# Exit status 0 when every example built without warnings and passed its smoke test.
set -u
examples=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$examples/.." && pwd)
# CLIENT_SCRATCH (CI): one scratch folder shared with the compatibility clients, so that the library and its
# dependencies are compiled once for every client package.
scratch="${CLIENT_SCRATCH:-$examples/.build}"
build_only=0
service=1
while [ $# -gt 0 ]; do
    case "$1" in
        --build-only) build_only=1; shift ;;
        --no-service) service=0; shift ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "unknown argument $1"; exit 2 ;;
    esac
done
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi

names=()
# DaemonOnly is built apart, after the others: it builds the library without the default trait, which
# recompiles `CoreMotion` in the shared scratch folder.
for manifest in "$examples"/*/Package.swift; do
    name=$(basename "$(dirname "$manifest")")
    [ "$name" = DaemonOnly ] || names+=("$name")
done
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

# --- build ------------------------------------------------------------------------------------------------
for name in "${names[@]}"; do
    t0=$(date +%s)
    log="$work/build-$name.log"
    # --disable-build-manifest-caching: SwiftPM keeps one build plan per scratch folder and decides whether
    # to plan again from the files of the package it last planned for, not the one asked for: switching
    # packages, it can rebuild the previous example, report success and make no executable (seen once in
    # two clean runs). Planning again costs a few seconds; what is already compiled stays compiled.
    if ! swift build --package-path "$examples/$name" --scratch-path "$scratch" --disable-build-manifest-caching >"$log" 2>&1; then
        grep -E "error:" "$log" | sort -u | head -30
        fail "build $name (log above)"
        continue
    fi
    if [ ! -x "$(swift build --package-path "$examples/$name" --scratch-path "$scratch" --show-bin-path)/$name" ]; then
        tail -n 20 "$log"
        fail "build $name: swift build succeeded but made no executable $name"
        continue
    fi
    # An app's code compiles without a diagnostic.
    if grep -E "^$examples/$name/Sources/.*warning:" "$log" | sort -u | grep .; then
        fail "build $name: warnings in the example's code"
    else
        echo "built $name ($(( $(date +%s) - t0 )) s)"
    fi
done
[ "$status" = 0 ] || exit 1

# --- DaemonOnly: the light client -------------------------------------------------------------------------
# `traits: []`: it resolves six packages and links the API and the daemon connection only. Its executable
# must contain nothing of the in-process devices, the HTTP server, SQLite, the recordings or the simulator.
t0=$(date +%s)
log="$work/build-DaemonOnly.log"
if ! swift build --package-path "$examples/DaemonOnly" --scratch-path "$scratch" --disable-build-manifest-caching >"$log" 2>&1; then
    grep -E "error:" "$log" | sort -u | head -30
    fail "build DaemonOnly (log above)"
    exit 1
fi
lean_bin=$(swift build --package-path "$examples/DaemonOnly" --scratch-path "$scratch" --show-bin-path)
if grep -E "^$examples/DaemonOnly/Sources/.*warning:" "$log" | sort -u | grep .; then fail "build DaemonOnly: warnings in the example's code"; fi
packages=$(grep -c '"identity"' "$examples/DaemonOnly/Package.resolved" 2>/dev/null || echo "?")
linked=$(nm "$lean_bin/DaemonOnly" 2>/dev/null | grep -oE '(Hummingbird|GRDB|sqlite3_open|ZIPFoundation|MotionNetwork|MotionIIO|MotionRecordings|MotionSimulator|MotionHistory|MotionService|MotionDevices|MotionEngine)' | sort -u | tr '\n' ' ')
if [ -x "$lean_bin/DaemonOnly" ] && [ -z "$linked" ] && [ "$packages" != "?" ] && [ "$packages" -le 6 ]; then
    pass "DaemonOnly built without the default trait ($(( $(date +%s) - t0 )) s): $packages packages resolved, $(( $(stat -c %s "$lean_bin/DaemonOnly") / 1024 / 1024 )) MB debug, no in-process device, HTTP server, SQLite, recording reader or simulator linked"
else
    fail "DaemonOnly: $packages packages resolved (want <= 6), linked: ${linked:-nothing it should not}"
fi
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
if swift build --package-path "$examples/DaemonOnly" --scratch-path "$scratch" --disable-build-manifest-caching --build-tests >"$log" 2>&1 \
    && swift test --package-path "$examples/DaemonOnly" --scratch-path "$scratch" --skip-build >>"$log" 2>&1; then
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
[ "$build_only" = 0 ] || exit $status
bin=$(swift build --package-path "$examples/${names[0]}" --scratch-path "$scratch" --show-bin-path)

# run NAME LOG SECONDS [ARGS...]: runs an example with the environment given, its output in LOG; returns
# its exit status (124 if it had to be killed).
run() {
    local name=$1 log=$2 seconds=$3; shift 3
    timeout -k 5 $(( seconds + 30 )) "$bin/$name" --seconds "$seconds" "$@" >"$log" 2>&1
}
show() { sed 's/^/    | /' "$1" | tail -n "${2:-25}"; }

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
