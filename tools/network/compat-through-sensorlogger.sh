#!/usr/bin/env bash
# Runs the shared compatibility clients on a live phone simulated over the network: the Sensor Logger
# recording is pushed in real time (250 ms batches, messages out of order and duplicated, malformed and
# oversized bodies in between) by tools/network/push-sensorlogger.py, looped, while each client runs as its
# own process with COREMOTION_DEVICE=sensorlogger:127.0.0.1:PORT (each starts the receiver, waits for the
# first push, and takes its data from the pushes that follow).
#
# usage: tools/network/compat-through-sensorlogger.sh --project DIR --compat RUN_SH --recording FOLDER [--port N] [--daemon] [CLIENT ...]
# Clients by default: every raw-sensor, device-motion, pedometer/activity/altimeter, recorder and batched
# client (types-and-errors and unavailable expect no device). With --daemon, coremotiond then owns the
# network device (coremotiond --device sensorlogger:127.0.0.1:PORT on a temporary socket, built in the
# project's debug folder) and a few clients run through it (COREMOTION_DEVICE=service:SOCKET). Exit status:
# 0 when every client passed and the receiver answered the faults as it should (400 and 413 seen).
set -u
here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
compat=/work/shared/compat/run.sh
recording=/work/shared/data/iphone13-walk-sensorlogger
port=""
daemon=0
clients=()
while [ $# -gt 0 ]; do
    case "$1" in
        --project) project=$(cd "$2" && pwd); shift 2 ;;
        --compat) compat=$2; shift 2 ;;
        --recording) recording=$2; shift 2 ;;
        --port) port=$2; shift 2 ;;
        --daemon) daemon=1; shift ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
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
service=""
cleanup() {
    [ -n "$service" ] && kill -TERM "$service" 2>/dev/null && wait "$service" 2>/dev/null
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

if [ "$daemon" = 1 ]; then
    # The daemon owns the phone: it holds the receiver, the clients connect to the daemon.
    bin=$(swift build --package-path "$project" --show-bin-path)
    if [ ! -x "$bin/coremotiond" ] || [ ! -x "$bin/coremotion" ]; then
        echo "FAIL: build coremotiond and coremotion first (swift build in $project)"; status=1
    else
        echo "== coremotiond --device sensorlogger:127.0.0.1:$port"
        "$bin/coremotiond" --socket "$work/d.sock" --device "sensorlogger:127.0.0.1:$port" --history "$work/d.sqlite" \
            --permissions "$work/permissions.json" --policy "$work/no-policy.json" --log-level info >"$work/daemon.log" 2>&1 &
        service=$!
        up=0
        for _ in $(seq 200); do
            "$bin/coremotion" service status --socket "$work/d.sock" >/dev/null 2>&1 && { up=1; break; }
            sleep 0.1
        done
        if [ "$up" = 1 ] && "$bin/coremotion" permissions grant CompatClients --socket "$work/d.sock" >/dev/null; then
            COMPAT_DEVICE="service:$work/d.sock" "$compat" "$project" pull-accelerometer push-gyro-magnetometer device-motion-pull altimeter || status=1
        else
            echo "FAIL: coremotiond did not start on the network device:"; tail -20 "$work/daemon.log"; status=1
        fi
        kill -TERM "$service" 2>/dev/null
        wait "$service" 2>/dev/null
        service=""
    fi
fi

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
