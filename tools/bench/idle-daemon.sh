#!/usr/bin/env bash
# Measures what coremotiond costs while it records with no client connected (pedometer, activity and
# accelerometer recorder all running) on emulated Linux IIO hardware.
#
# For each capture mode it starts `coremotion iio-emulate` (mpu6050 accelerometer+gyroscope limited to
# 100 Hz, lis3mdl magnetometer, bmp280 barometer; FIFO buffer nodes) and
# `COREMOTION_IIO_CAPTURE=<mode> coremotiond --device iio:TREE --socket … --history … --no-authorization`,
# waits until the daemon records, asks it to record the accelerometer as CMSensorRecorder does
# (`coremotion service record-accelerometer`; the client then disconnects), then samples over the window:
#   * CPU: utime + stime of the whole process (/proc/PID/stat, every thread, dead ones included),
#     as a percentage of one core;
#   * wake-ups: context switches per second, summed over /proc/PID/task/*/status
#     (voluntary_ctxt_switches + nonvoluntary_ctxt_switches); a thread that exits during the window
#     takes its count with it (the thread census is printed).
# The same figures for the emulator are printed for reference (they are not part of the target).
#
# usage: tools/bench/idle-daemon.sh [SECONDS] [--modes "buffered polled"] [--bin-dir DIR] [--debug]
#                                   [--settle S] [--threads] [--check] [--project DIR]
#   SECONDS      length of the measuring window (default 60)
#   --modes      capture modes to measure, in order (default "buffered polled"; also: auto)
#   --bin-dir    use coremotion and coremotiond from DIR instead of building them
#   --debug      build the debug configuration (default: release, as the daemon ships)
#   --settle     seconds between "recording" and the window (default 5)
#   --threads    also print each thread's wake-ups per second
#   --no-recorder  leave the accelerometer recorder off (pedometer and activity only)
#   --check      exit 1 when the daemon misses the target (≤ 0.5 % of a core, ≤ 10 wake-ups/s) in
#                buffered or auto mode (polled capture cannot batch: it is measured for comparison)
# Leaves no process behind (both are stopped on exit, on error and on SIGINT/SIGTERM).
set -u
here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
seconds=60
modes="buffered polled"
bindir=""
configuration=release
settle=5
threads=0
check=0
recorder=1
while [ $# -gt 0 ]; do
    case "$1" in
        --modes) modes=$2; shift 2 ;;
        --bin-dir) bindir=$(cd "$2" && pwd); shift 2 ;;
        --debug) configuration=debug; shift ;;
        --settle) settle=$2; shift 2 ;;
        --threads) threads=1; shift ;;
        --check) check=1; shift ;;
        --no-recorder) recorder=0; shift ;;
        --project) project=$(cd "$2" && pwd); shift 2 ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        [0-9]*) seconds=$1; shift ;;
        *) echo "unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
for m in $modes; do
    case "$m" in auto|polled|buffered) ;; *) echo "unknown mode $m (auto, polled, buffered)" >&2; exit 2 ;; esac
done

if [ -z "$bindir" ]; then
    echo "building coremotion and coremotiond ($configuration) in $project"
    log=$(mktemp "${TMPDIR:-/tmp}/coremotion-idle-build.XXXXXX")
    for product in coremotiond coremotion; do
        swift build --package-path "$project" -c "$configuration" --product "$product" >"$log" 2>&1 \
            || { tail -20 "$log"; echo "FAIL: $product does not build"; rm -f "$log"; exit 1; }
    done
    rm -f "$log"
    bindir=$(swift build --package-path "$project" -c "$configuration" --show-bin-path)
fi
for b in coremotion coremotiond; do
    [ -x "$bindir/$b" ] || { echo "no $bindir/$b" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/coremotion-idle.XXXXXX")
emulator=""
daemon=""
sleeper=""

pause() {  # sleeps in the background so that SIGINT/SIGTERM stop the script at once (wait returns)
    sleep "$1" &
    sleeper=$!
    wait "$sleeper"
    sleeper=""
}

stop_pid() {  # stop_pid PID: SIGTERM, up to 10 s, then SIGKILL; reaps it
    local pid=$1
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
    for _ in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 0
}
cleanup() {
    [ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null && wait "$sleeper" 2>/dev/null
    stop_pid "$daemon"; daemon=""
    stop_pid "$emulator"; emulator=""
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ticks=$(getconf CLK_TCK)

cpu_ticks() {  # utime + stime of the whole process (fields 14 and 15, after the command name)
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
    stat=${stat##*) }
    # shellcheck disable=SC2086
    set -- $stat
    echo $(( ${12} + ${13} ))
}

switches() {  # "TID NAME VOLUNTARY NONVOLUNTARY" per thread
    local task name v n
    for task in /proc/"$1"/task/*; do
        name=$(cat "$task/comm" 2>/dev/null) || continue
        v=$(awk '/^voluntary_ctxt_switches/ {print $2}' "$task/status" 2>/dev/null)
        n=$(awk '/^nonvoluntary_ctxt_switches/ {print $2}' "$task/status" 2>/dev/null)
        [ -n "$v" ] && [ -n "$n" ] && echo "${task##*/} ${name// /_} $v $n"
    done
}

now() { awk '{print $1}' /proc/uptime; }

# report LABEL PID CPU0 CPU1 SW0FILE SW1FILE ELAPSED: prints the two figures (and the threads).
report() {
    local label=$1 pid=$2 c0=$3 c1=$4 f0=$5 f1=$6 elapsed=$7
    awk -v label="$label" -v c0="$c0" -v c1="$c1" -v hz="$ticks" -v t="$elapsed" -v threads="$threads" '
        FNR == NR { v0[$1] = $3; n0[$1] = $4; next }
        {
            name[$1] = $2
            if ($1 in v0) { dv = $3 - v0[$1]; dn = $4 - n0[$1]; kept++ } else { dv = $3; dn = $4; born++ }
            vol += dv; inv += dn; per[$1] = (dv + dn) / t
            seen[$1] = 1
        }
        END {
            for (tid in v0) if (!(tid in seen)) died++
            cpu = (c1 - c0) / hz / t * 100
            printf "%s: CPU %.3f %% of one core (%.2f s of CPU in %.1f s)\n", label, cpu, (c1 - c0) / hz, t
            printf "%s: wake-ups %.2f /s (context switches: %.2f voluntary + %.2f involuntary per s; %d threads, %d started and %d ended in the window)\n",
                label, (vol + inv) / t, vol / t, inv / t, kept + born, born + 0, died + 0
            if (threads) for (tid in per) if (per[tid] > 0) printf "    %-8s %-18s %8.2f /s\n", tid, name[tid], per[tid]
        }' "$f0" "$f1"
}

status=0
for mode in $modes; do
    tree="$work/$mode-tree"
    ready="$work/$mode.ready"
    "$bindir/coremotion" iio-emulate --root "$tree" --driver mpu6050 --driver lis3mdl --driver bmp280 --max-rate 100 \
        --ready-file "$ready" >"$work/$mode-emulator.log" 2>&1 &
    emulator=$!
    for _ in $(seq 100); do [ -f "$ready" ] && break; sleep 0.1; done
    [ -f "$ready" ] || { cat "$work/$mode-emulator.log"; echo "FAIL: the emulator did not start"; exit 1; }

    env -u NOTIFY_SOCKET -u LISTEN_FDS -u LISTEN_PID -u LISTEN_FDNAMES -u WATCHDOG_USEC -u COREMOTION_DEVICE \
        COREMOTION_IIO_CAPTURE="$mode" "$bindir/coremotiond" --device "iio:$tree" --socket "$work/$mode.sock" \
        --history "$work/$mode-history.sqlite" --permissions "$work/$mode-permissions.json" --no-authorization \
        --log-level info >"$work/$mode-daemon.log" 2>&1 &
    daemon=$!
    # Recording: the engines started and the accelerometer's capture runs.
    recording=0
    for _ in $(seq 300); do
        kill -0 "$daemon" 2>/dev/null || break
        if grep -q "recording on" "$work/$mode-daemon.log" \
            && grep -Eq "(buffered capture of|polling) [^,]*accelerometer" "$work/$mode-daemon.log"; then
            recording=1; break
        fi
        sleep 0.1
    done
    if [ $recording = 0 ]; then
        tail -20 "$work/$mode-daemon.log"; echo "FAIL: coremotiond ($mode) did not start recording"; exit 1
    fi
    if [ $recorder = 1 ]; then
        "$bindir/coremotion" service record-accelerometer $((seconds + settle + 600)) --socket "$work/$mode.sock" >/dev/null \
            || { tail -20 "$work/$mode-daemon.log"; echo "FAIL: coremotiond ($mode) refused to record the accelerometer"; exit 1; }
    fi
    pause "$settle"

    t0=$(now); dc0=$(cpu_ticks "$daemon"); ec0=$(cpu_ticks "$emulator")
    switches "$daemon" >"$work/d0"; switches "$emulator" >"$work/e0"
    pause "$seconds"
    t1=$(now); dc1=$(cpu_ticks "$daemon"); ec1=$(cpu_ticks "$emulator")
    switches "$daemon" >"$work/d1"; switches "$emulator" >"$work/e1"
    elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')

    kill -0 "$daemon" 2>/dev/null || { tail -20 "$work/$mode-daemon.log"; echo "FAIL: coremotiond ($mode) exited"; exit 1; }
    what="pedometer, activity"; [ $recorder = 1 ] && what="$what, accelerometer recorder"
    echo "== $mode capture (COREMOTION_IIO_CAPTURE=$mode), ${seconds} s window, no client; recording: $what"
    out=$(report "coremotiond $mode" "$daemon" "$dc0" "$dc1" "$work/d0" "$work/d1" "$elapsed")
    echo "$out"
    report "emulator ($mode run, reference, not counted)" "$emulator" "$ec0" "$ec1" "$work/e0" "$work/e1" "$elapsed"
    # What ran (asked after the window: the status request is a client).
    "$bindir/coremotion" service status --socket "$work/$mode.sock" 2>/dev/null \
        | grep -E "^(accelerometer|gyroscope|magnetometer|barometer) |^history" | sed 's/^/    /'
    captures=$(grep -Eo "(buffered capture of|polling) .*" "$work/$mode-daemon.log" | sort | uniq -c | sed 's/^ */    /')
    [ -n "$captures" ] && echo "$captures"

    if [ $check = 1 ] && [ "$mode" != polled ]; then
        cpu=$(echo "$out" | sed -n 's/.*CPU \([0-9.]*\) %.*/\1/p')
        wake=$(echo "$out" | sed -n 's/.*wake-ups \([0-9.]*\) \/s.*/\1/p')
        if awk -v c="$cpu" -v w="$wake" 'BEGIN { exit !(c <= 0.5 && w <= 10) }'; then
            echo "target met: $cpu % ≤ 0.5 %, $wake /s ≤ 10 /s"
        else
            echo "TARGET MISSED: $cpu % (≤ 0.5 %), $wake /s (≤ 10 /s)"; status=1
        fi
    fi
    stop_pid "$daemon"; daemon=""
    stop_pid "$emulator"; emulator=""
done
exit $status
