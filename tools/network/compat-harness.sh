#!/usr/bin/env bash
# Runs the raw-sensor compatibility clients on each fake phone: phyphox (Android and iOS quirks) and
# SensorServer, each serving a recording in real time on 127.0.0.1 (coremotion phone-emulate), with
# COMPAT_DEVICE=phyphox:http://127.0.0.1:PORT and sensorserver:ws://127.0.0.1:PORT.
#
# usage: tools/network/compat-harness.sh --recording PATH [--project DIR] [--fakes "phyphox-android phyphox-ios sensorserver"] [CLIENT ...]
#   default clients: pull-accelerometer push-accelerometer main-queue-accelerometer interval-clamp push-gyro-magnetometer
#   COMPAT_RUN (default /work/shared/compat/run.sh) is the clients' runner.
# Exit status: 0 when every client passed on every fake.
set -u
here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
recording=""
fakes="phyphox-android phyphox-ios sensorserver"
clients=()
while [ $# -gt 0 ]; do
    case "$1" in
        --recording) recording=$2; shift 2 ;;
        --project) project=$(cd "$2" && pwd); shift 2 ;;
        --fakes) fakes=$2; shift 2 ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) clients+=("$1"); shift ;;
    esac
done
[ -n "$recording" ] || { echo "usage: $0 --recording PATH [...]"; exit 2; }
[ ${#clients[@]} -gt 0 ] || clients=(pull-accelerometer push-accelerometer main-queue-accelerometer interval-clamp push-gyro-magnetometer)
runner=${COMPAT_RUN:-/work/shared/compat/run.sh}

swift build --package-path "$project" --product coremotion >/tmp/coremotion-network-harness-build.log 2>&1 \
    || { tail -20 /tmp/coremotion-network-harness-build.log; echo "FAIL: coremotion does not build"; exit 1; }
bin=$(swift build --package-path "$project" --show-bin-path)/coremotion

status=0
for fake in $fakes; do
    ready=$(mktemp "${TMPDIR:-/tmp}/coremotion-fake-phone.XXXXXX")
    rm -f "$ready"
    case "$fake" in
        phyphox-android) args=(phyphox --platform android); scheme=phyphox:http ;;
        phyphox-ios) args=(phyphox --platform ios); scheme=phyphox:http ;;
        sensorserver) args=(sensorserver); scheme=sensorserver:ws ;;
        *) echo "unknown fake $fake (phyphox-android, phyphox-ios, sensorserver)"; status=1; continue ;;
    esac
    "$bin" phone-emulate "${args[@]}" --recording "$recording" --ready-file "$ready" --duration 900 >"$ready.log" 2>&1 &
    emulator=$!
    for _ in $(seq 300); do [ -s "$ready" ] && break; sleep 0.1; done
    if [ ! -s "$ready" ]; then
        echo "FAIL: the $fake emulator did not start (log: $ready.log)"; kill "$emulator" 2>/dev/null; status=1; continue
    fi
    port=$(head -n 1 "$ready")
    echo "== $fake on port $port"
    COMPAT_DEVICE="$scheme://127.0.0.1:$port" "$runner" "$project" "${clients[@]}" || status=1
    kill "$emulator" 2>/dev/null
    wait "$emulator" 2>/dev/null
    rm -f "$ready" "$ready.log"
done
exit $status
