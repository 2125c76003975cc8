#!/usr/bin/env bash
# Runs the shared compatibility clients on a live phone simulated over the network: the Sensor Logger
# recording is pushed in real time (250 ms batches, messages out of order and duplicated, malformed and
# oversized bodies in between) by tools/network/push-sensorlogger.py, looped, while each client runs as its
# own process with COREMOTION_DEVICE=sensorlogger:127.0.0.1:PORT (each starts the receiver, waits for the
# first push, and takes its data from the pushes that follow).
#
# usage: tools/network/compat-through-sensorlogger.sh --project DIR --compat RUN_SH --recording FOLDER [--port N] [CLIENT ...]
# Clients by default: every raw-sensor, device-motion, pedometer/activity/altimeter, recorder and batched
# client (types-and-errors and unavailable expect no device). Exit status: 0 when every client passed and
# the receiver answered the faults as it should (400 and 413 seen, most pushes 200).
set -u
here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
compat=/work/shared/compat/run.sh
recording=/work/shared/data/iphone13-walk-sensorlogger
port=""
clients=()
while [ $# -gt 0 ]; do
    case "$1" in
        --project) project=$(cd "$2" && pwd); shift 2 ;;
        --compat) compat=$2; shift 2 ;;
        --recording) recording=$2; shift 2 ;;
        --port) port=$2; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        -*) echo "unknown argument $1"; exit 2 ;;
        *) clients+=("$1"); shift ;;
    esac
done
[ ${#clients[@]} -gt 0 ] || clients=(pull-accelerometer push-accelerometer main-queue-accelerometer interval-clamp
    push-gyro-magnetometer device-motion-pull device-motion-north attitude-relative
    pedometer activity altimeter sensor-recorder batched-accelerometer)
[ -d "$recording" ] || { echo "FAIL: no recording folder at $recording"; exit 1; }
# A free port on loopback, unless given.
[ -n "$port" ] || port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')

work=$(mktemp -d "${TMPDIR:-/tmp}/coremotion-sensorlogger.XXXXXX")
sender=""
cleanup() {
    [ -n "$sender" ] && kill -TERM "$sender" 2>/dev/null && wait "$sender" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

start=$(date +%s)
python3 "$here/push-sensorlogger.py" --url "http://127.0.0.1:$port/sensorlogger" --folder "$recording" --loop \
    >"$work/sender.log" 2>&1 &
sender=$!
echo "pushing $recording to 127.0.0.1:$port (sender pid $sender); clients: ${clients[*]}"

status=0
COMPAT_DEVICE="sensorlogger:127.0.0.1:$port" "$compat" "$project" "${clients[@]}" || status=1

kill -TERM "$sender" 2>/dev/null
wait "$sender" 2>/dev/null
sender=""
summary=$(tail -n 1 "$work/sender.log")
echo "$summary"
# The faults were sent and answered: 400 for the malformed bodies, 413 for the oversized ones.
case "$summary" in
    *"400: "*"413: "*) ;;
    *) echo "FAIL: the receiver's answers to the faults are missing (expected 400 and 413 among: $summary)"; status=1 ;;
esac
echo "compat through sensorlogger: $(( $(date +%s) - start )) s"
exit $status
