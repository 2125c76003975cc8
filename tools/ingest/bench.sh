#!/usr/bin/env bash
# The ingest figures of BENCHMARKS.md §11: PHONES phones (tools/ingest/load.py: accelerometer, gyroscope,
# magnetometer at 100 Hz in 1 s pushes, replaying a real Sensor Logger recording) against two coremotiond
# ingest nodes and one PostgreSQL with its durability settings on (DURABLE=1: fsync, synchronous commit).
#
#   phase 1 (RUN_SECONDS): steady load; pushes acknowledged against expected, push latency p50/p99, how far
#           the phones fell behind, the CPU of the nodes and of PostgreSQL;
#   phase 2: rows and bytes per device-hour in the database (sample_chunk, push_receipt, device_sensor);
#   phase 3 (with OUTAGE > 0): the same load again while PostgreSQL is stopped for OUTAGE seconds; the time
#           from its restart until both nodes' spools are empty (catch-up), and that nothing was lost.
#
#   the phones' engines (each node's PhoneEngineWorker; ENGINES=0 starts the nodes with --no-phone-engines):
#   every 5 s of phase 1, how far the phones' derived records are behind their newest readings (p50 and max;
#   a phone still pushing waits up to 10 s horizon + 6 s settling + 30 s batch + a 5 s pass), then how long
#   after the load until every phone is finished (2 minutes quiet, then derived to its last reading), the
#   nodes' CPU over that time, and the steps stored per phone
# usage: tools/ingest/bench.sh [--daemon .build/release/coremotiond]   (env: PHONES=200 RUN_SECONDS=60 OUTAGE=60 ENGINES=1)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
daemon="$root/.build/release/coremotiond"
[ "${1:-}" = --daemon ] && daemon=$2
phones=${PHONES:-200}; seconds=${RUN_SECONDS:-60}; outage=${OUTAGE:-60}
engine_flag=(); [ "${ENGINES:-1}" = 0 ] && engine_flag=(--no-phone-engines)
[ -x "$daemon" ] || { echo "no coremotiond at $daemon (swift build -c release --product coremotiond)"; exit 2; }
w=$(mktemp -d /tmp/cm-ib.XXXXXX); chmod 755 "$w"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done; wait 2>/dev/null
    "$root/tools/postgres/test-server.sh" stop "$w/pg" >/dev/null 2>&1
    [ -n "${KEEP:-}" ] || rm -rf "$w"
}
# PHASES=3 runs only the outage (after a short warm-up load).
trap cleanup EXIT
mkdir -p "$w/pg"
url=$(DURABLE=1 "$root/tools/postgres/test-server.sh" start "$w/pg") || exit 2
conninfo=$(python3 -c 'import sys, urllib.parse as u
p = u.urlsplit(sys.argv[1]); q = dict(u.parse_qsl(p.query))
print("host=%s port=%s user=%s dbname=%s" % (q["host"], q["port"], p.username, p.path.lstrip("/")))' "$url")
sql() { psql "$conninfo" -X -A -t -q -c "$1"; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
ports=("$(free_port)" "$(free_port)")
for i in 0 1; do
    "$daemon" --device none --socket "$w/n$i.sock" --history "$url" --permissions "$w/p$i.json" --no-authorization \
        --ingest "sensorlogger:127.0.0.1:${ports[$i]}?token=$token" --spool "$w/spool$i" --node "n$i" "${engine_flag[@]}" >"$w/n$i.log" 2>&1 &
    pids+=($!)
done
sleep 2
nodes="http://127.0.0.1:${ports[0]},http://127.0.0.1:${ports[1]}"
cpu() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
pg_cpu() { local t=0; for p in $( (pgrep -f "postgres.*$w/pg"; pgrep -u postgres postgres) | sort -u); do t=$((t + $(cpu "$p"))); done; echo "$t"; }
hz=$(getconf CLK_TCK)

echo "== phase 1: $phones phones, 2 nodes, ${seconds} s"
# Seconds from each phone's newest stored reading to its derived records (no row yet: from its first).
# Only the accelerometers count (a finished phone is derived to its last accelerometer reading).
lag_sql="SELECT extract(epoch FROM max(ds.last_time) - coalesce(e.derived_until, min(ds.first_time)))
         FROM coremotion.device d JOIN coremotion.device_sensor ds ON ds.device = d.id
         JOIN coremotion.sensor s ON s.id = ds.sensor AND s.name IN ('accelerometeruncalibrated', 'totalacceleration', 'accelerometer')
         LEFT JOIN coremotion.device_engine e ON e.device = d.id WHERE d.kind = 'phone' GROUP BY d.id, e.derived_until"
if [ "${ENGINES:-1}" != 0 ]; then
    ( sleep 5; while [ ! -e "$w/load1.done" ]; do
        sql "$lag_sql" | python3 -c 'import sys
v = sorted(float(x) for x in sys.stdin if x.strip())
print("p50 %.0f/max %.0f" % (v[len(v) // 2], v[-1]) if v else "-")' >> "$w/lags.txt"
        sleep 5
      done ) &
fi
c0=$(( $(cpu "${pids[0]}") + $(cpu "${pids[1]}") )); p0=$(pg_cpu); t0=$(date +%s.%N)
python3 "$root/tools/ingest/load.py" --nodes "$nodes" --phones "$phones" --seconds "$seconds" --token "$token" --json \
    --max-behind 1000 > "$w/load1.json" 2> "$w/load1.log"
touch "$w/load1.done"
t1=$(date +%s.%N); c1=$(( $(cpu "${pids[0]}") + $(cpu "${pids[1]}") )); p1=$(pg_cpu)
tail -n 2 "$w/load1.log"
echo "load: $(cat "$w/load1.json")"
python3 -c 'import sys
d, c1, c0, p1, p0, hz = map(float, sys.argv[1:])
print("nodes CPU %.0f %% of a core, PostgreSQL %.0f %% (over %.0f s)" % (100 * (c1 - c0) / hz / d, 100 * (p1 - p0) / hz / d, d))' \
    "$(python3 -c "print($t1 - $t0)")" "$c1" "$c0" "$p1" "$p0" "$hz"
grep -h "could not be kept\|spooling" "$w"/n*.log | head -n 3

if [ "${ENGINES:-1}" != 0 ]; then
    echo "== phase 1b: the phones' engines"
    echo "while pushing (every 5 s, seconds from each phone's newest reading to its derived records): $(cat "$w/lags.txt" 2>/dev/null | tr '\n' ' ')"
    c0=$(( $(cpu "${pids[0]}") + $(cpu "${pids[1]}") )); t0=$(date +%s.%N); caught=""
    # Quiet for 2 minutes, every phone is finished: derived to its newest reading.
    for _ in $(seq 1 300); do
        behind=$(sql "SELECT count(*) FROM ($lag_sql) AS l(s) WHERE s > 0")
        [ "$behind" = 0 ] && { caught=$(date +%s.%N); break; }
        sleep 1
    done
    t1=$(date +%s.%N); c1=$(( $(cpu "${pids[0]}") + $(cpu "${pids[1]}") ))
    if [ -n "$caught" ]; then
        python3 -c "print('every phone finished (derived to its last reading) %.1f s after the load ended (2 min of quiet first)' % ($caught - $t0))"
    else
        echo "phones not finished 300 s after the load ended: $behind"
    fi
    python3 -c 'import sys
d, c1, c0, hz = map(float, sys.argv[1:])
print("nodes CPU from the load end to finished: %.0f %% of a core (over %.0f s)" % (100 * (c1 - c0) / hz / d, d))' \
        "$(python3 -c "print($t1 - $t0)")" "$c1" "$c0" "$hz"
    sql "SELECT count(*), sum(s), min(s), max(s) FROM (SELECT device, sum(step_count) AS s FROM coremotion.step_minute GROUP BY device) t" |
        awk -F'|' '{ printf "steps stored: %s phones, %s steps (per phone %s to %s)\n", $1, $2, $3, $4 }'
    grep -h "phone engines" "$w"/n*.log | head -n 3
fi

echo "== phase 2: rows and bytes per device-hour"
sql "SELECT 'phones', count(*) FROM coremotion.device WHERE kind = 'phone'"
sql "SELECT 'readings', sum(sample_count), 'chunks', count(*), 'device-hours', round((sum(extract(epoch FROM end_time - start_time) + 0.01) / 3600)::numeric, 3) FROM coremotion.sample_chunk"
sql "SELECT 'receipts', count(*) FROM coremotion.push_receipt"
sql "SELECT 'bytes', relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'coremotion' AND relkind = 'r' AND relname IN ('sample_chunk', 'push_receipt', 'device_sensor') ORDER BY 2"
pushes=$(sql "SELECT count(*) FROM coremotion.push_receipt")
bytes=$(sql "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'coremotion' AND relkind = 'r' AND relname IN ('sample_chunk', 'push_receipt', 'device_sensor')")
rows=$(sql "SELECT (SELECT count(*) FROM coremotion.sample_chunk) + (SELECT count(*) FROM coremotion.push_receipt)")
python3 -c 'import sys
p, b, r = map(float, sys.argv[1:]); h = p / 3600
print("per device-hour (3,600 pushes of 1 s): %.0f rows, %.1f MiB" % (r / h, b / h / 1048576))' "$pushes" "$bytes" "$rows"

if [ "$outage" -gt 0 ]; then
    echo "== phase 3: the same load with PostgreSQL stopped for $outage s"
    python3 "$root/tools/ingest/load.py" --nodes "$nodes" --phones "$phones" --seconds $((outage + 30)) --token "$token" --json \
        --max-behind 1000 --seed 2 > "$w/load3.json" 2> "$w/load3.log" &
    load=$!
    sleep 10
    "$root/tools/postgres/test-server.sh" stop-server "$w/pg"
    sleep "$outage"
    "$root/tools/postgres/test-server.sh" start-server "$w/pg"
    back=$(date +%s.%N)
    empty=""
    for _ in $(seq 1 3000); do
        if [ "$(find "$w"/spool0 "$w"/spool1 -name '*.cmspool' -size +0 2>/dev/null | wc -l)" = 0 ]; then empty=$(date +%s.%N); break; fi
        sleep 0.1
    done
    wait "$load"
    echo "load: $(cat "$w/load3.json")"
    [ -n "$empty" ] && python3 -c "print('catch-up: spools empty %.1f s after PostgreSQL was back' % ($empty - $back))" \
        || echo "catch-up: spools not empty after 300 s"
    grep -h "takes pushes again" "$w"/n*.log | tail -n 2
fi
