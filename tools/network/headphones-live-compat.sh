#!/usr/bin/env bash
# Runs this project's headphone client (compat/ `headphone-motion-live`) on a live Sensor Logger push: the
# committed AirPods excerpt (Tests/Fixtures/headphones/airpods-head-shake-excerpt.jsonl) is turned into a
# Sensor Logger export folder with Headphone.csv (gravity in m/s², devicelocation left, as the app writes
# it) and pushed in real time, looped, by tools/network/push-sensorlogger.py (--clean: in order, once each),
# while the client runs with COREMOTION_HEADPHONE_DEVICE=sensorlogger:127.0.0.1:PORT (the receiver starts in
# the client's process).
#
# usage: tools/network/headphones-live-compat.sh [--swift5|--swift6] [--port N]
# Uses compat/run.sh (and its COMPAT_WORK / CLIENT_SCRATCH build folder). Exit status 0 when the client passed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
mode=--swift6
port=""
while [ $# -gt 0 ]; do
    case "$1" in
        --swift5|--swift6) mode=$1; shift ;;
        --port) port=$2; shift 2 ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "unknown argument $1"; exit 2 ;;
    esac
done
[ -n "$port" ] || port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
work=$(mktemp -d "${TMPDIR:-/tmp}/coremotion-headphones-live.XXXXXX")
sender=""
cleanup() {
    [ -n "$sender" ] && kill -TERM "$sender" 2>/dev/null && wait "$sender" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

# The excerpt as Sensor Logger's Headphone.csv (UTC ns from the capture's wall clock, its 50 Hz `t` spacing).
python3 - "$project/Tests/Fixtures/headphones/airpods-head-shake-excerpt.jsonl" "$work/export" <<'PY'
import json, os, sys
source, folder = sys.argv[1], sys.argv[2]
os.makedirs(folder, exist_ok=True)
rows = [json.loads(line) for line in open(source) if line.strip()]
samples = [r for r in rows if r.get("type") == "sample"]
t0, wall0 = samples[0]["t"], samples[0]["wall"]
with open(os.path.join(folder, "Headphone.csv"), "w") as out:
    out.write("time,seconds_elapsed,quaternionW,quaternionX,quaternionY,quaternionZ,rotationRateX,rotationRateY,rotationRateZ,"
              "accelerationX,accelerationY,accelerationZ,gravityX,gravityY,gravityZ,devicelocation\n")
    for s in samples:
        elapsed = s["t"] - t0
        ns = int(round((wall0 + elapsed) * 1e9))
        values = s["q"] + s["rot"] + s["acc"] + [g * 9.80665 for g in s["grav"]]
        out.write(f"{ns},{elapsed!r}," + ",".join(repr(v) for v in values) + ",left\n")
with open(os.path.join(folder, "Metadata.csv"), "w") as out:
    out.write("version,device name,platform,standardisation\n1,AirPods excerpt,ios,false\n")
PY

python3 "$here/push-sensorlogger.py" --url "http://127.0.0.1:$port/sensorlogger" --folder "$work/export" --loop --clean \
    >"$work/sender.log" 2>&1 &
sender=$!
echo "pushing the AirPods excerpt as Sensor Logger headphone readings to 127.0.0.1:$port (sender pid $sender)"
status=0
COMPAT_HEADPHONE_DEVICE="sensorlogger:127.0.0.1:$port" "$project/compat/run.sh" "$mode" headphone-motion-live || status=1
kill -TERM "$sender" 2>/dev/null
wait "$sender" 2>/dev/null
sender=""
echo "sender: $(tail -n 1 "$work/sender.log")"
exit $status
