#!/usr/bin/env bash
# Runs the compatibility clients through the system service, the way users start it: `coremotiond` on a
# temporary socket owning a replay device (and a second one with no device for the clients that check
# unavailability), the app authorized with `coremotion permissions grant`, every client with
# COREMOTION_DEVICE=service:SOCKET.
#
# usage: tools/service/compat-through-daemon.sh --project DIR --compat RUN_SH --recording PATH [--keep]
# Exit status: 0 when every client passed.
set -u
project=$(cd "$(dirname "$0")/../.." && pwd)
compat=/work/shared/compat/run.sh
recording=/work/shared/data/iphone13-walk-sensorlogger
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        --project) project=$(cd "$2" && pwd); shift 2 ;;
        --compat) compat=$2; shift 2 ;;
        --recording) recording=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "unknown argument $1"; exit 2 ;;
    esac
done

swift build --package-path "$project" --product coremotiond >/tmp/coremotion-daemon-build.log 2>&1 \
    && swift build --package-path "$project" --product coremotion >>/tmp/coremotion-daemon-build.log 2>&1 \
    || { tail -20 /tmp/coremotion-daemon-build.log; echo "FAIL: coremotiond does not build"; exit 1; }
bin=$(swift build --package-path "$project" --show-bin-path)
work=$(mktemp -d "${TMPDIR:-/tmp}/coremotiond-ci.XXXXXX")
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
    [ "$keep" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT

# start NAME DEVICE: a daemon with authorization on (decisions and policy in the work folder).
start() {
    local name=$1 device=$2
    "$bin/coremotiond" --socket "$work/$name.sock" --device "$device" --history "$work/$name.sqlite" \
        --permissions "$work/$name-permissions.json" --policy "$work/no-policy.json" --log-level info \
        >"$work/$name.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do
        "$bin/coremotion" service status --socket "$work/$name.sock" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "FAIL: coremotiond ($name) did not start:"; cat "$work/$name.log"; return 1
}

start replay "replay:$recording?loop=true" || exit 1
start nodevice none || exit 1
# The clients' executable is CompatClients: the user grants it history (pedometer, activity, recorder).
for name in replay nodevice; do
    "$bin/coremotion" permissions grant CompatClients --socket "$work/$name.sock" || exit 1
done
"$bin/coremotion" service status --socket "$work/replay.sock"

status=0
echo "== clients on the daemon's replay device"
COMPAT_DEVICE="service:$work/replay.sock" "$compat" "$project" \
    pull-accelerometer push-accelerometer main-queue-accelerometer interval-clamp push-gyro-magnetometer \
    device-motion-pull device-motion-north attitude-relative pedometer activity altimeter \
    sensor-recorder batched-accelerometer || status=1
echo "== clients on a daemon without a device"
COMPAT_DEVICE="service:$work/nodevice.sock" "$compat" "$project" types-and-errors unavailable || status=1
"$bin/coremotion" service status --socket "$work/replay.sock"
if [ "$status" != 0 ]; then echo "-- daemon log:"; tail -40 "$work/replay.log"; fi
exit $status
