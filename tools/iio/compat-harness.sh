#!/usr/bin/env bash
# Runs the raw-sensor compatibility clients on emulated Linux IIO hardware.
#
# Builds `coremotion`, creates a fake IIO tree (mpu6050 accelerometer+gyroscope limited to
# 10/20/50/100 Hz, lis3mdl magnetometer, bmp280 barometer), feeds it with `coremotion iio-emulate`
# at the rates the capture code writes, and runs the clients with COREMOTION_DEVICE=iio:<tree>,
# once with polled capture and once with buffered capture (FIFO), unless --mode says otherwise.
#
# usage: tools/iio/compat-harness.sh [--mode polled|buffered|auto|both] [--project DIR] [--keep] [CLIENT ...]
#   default clients: pull-accelerometer push-accelerometer main-queue-accelerometer interval-clamp push-gyro-magnetometer
#   COMPAT_RUN (default /work/shared/compat/run.sh) is the clients' runner.
# Exit status: 0 when every client passed in every mode.
set -u
here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
mode=both
keep=0
clients=()
while [ $# -gt 0 ]; do
    case "$1" in
        --mode) mode=$2; shift 2 ;;
        --project) project=$(cd "$2" && pwd); shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        *) clients+=("$1"); shift ;;
    esac
done
[ ${#clients[@]} -gt 0 ] || clients=(pull-accelerometer push-accelerometer main-queue-accelerometer interval-clamp push-gyro-magnetometer)
runner=${COMPAT_RUN:-/work/shared/compat/run.sh}
case "$mode" in
    both) modes="polled buffered" ;;
    polled|buffered|auto) modes=$mode ;;
    *) echo "unknown --mode $mode (polled, buffered, auto, both)"; exit 2 ;;
esac

echo "building coremotion in $project"
swift build --package-path "$project" --product coremotion >/tmp/coremotion-iio-harness-build.log 2>&1 \
    || { tail -20 /tmp/coremotion-iio-harness-build.log; echo "FAIL: coremotion does not build"; exit 1; }
bin=$(swift build --package-path "$project" --show-bin-path)/coremotion

status=0
for m in $modes; do
    root=$(mktemp -d "${TMPDIR:-/tmp}/coremotion-iio-tree.XXXXXX")
    ready="$root.ready"
    "$bin" iio-emulate --root "$root" --reuse --driver mpu6050 --driver lis3mdl --driver bmp280 --max-rate 100 \
        --ready-file "$ready" >"$root.log" 2>&1 &
    emulator=$!
    for _ in $(seq 100); do [ -f "$ready" ] && break; sleep 0.1; done
    if [ ! -f "$ready" ]; then
        echo "FAIL: the emulator did not start (log: $root.log)"; kill "$emulator" 2>/dev/null; status=1; continue
    fi
    echo "== $m capture, tree $root"
    COREMOTION_IIO_CAPTURE=$m COMPAT_DEVICE="iio:$root" "$runner" "$project" "${clients[@]}" || status=1
    kill "$emulator" 2>/dev/null
    wait "$emulator" 2>/dev/null
    tail -1 "$root.log"
    [ "$keep" = 1 ] || rm -rf "$root" "$ready" "$root.log"
done
exit $status
