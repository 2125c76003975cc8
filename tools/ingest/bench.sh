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
# usage: tools/ingest/bench.sh [--daemon .build/release/coremotiond]   (env: PHONES=200 RUN_SECONDS=60 OUTAGE=60)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
daemon="$root/.build/release/coremotiond"
[ "${1:-}" = --daemon ] && daemon=$2
phones=${PHONES:-200}; seconds=${RUN_SECONDS:-60}; outage=${OUTAGE:-60}
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
        --ingest "sensorlogger:127.0.0.1:${ports[$i]}?token=$token" --spool "$w/spool$i" --node "n$i" >"$w/n$i.log" 2>&1 &
    pids+=($!)
done
sleep 2
nodes="http://127.0.0.1:${ports[0]},http://127.0.0.1:${ports[1]}"
cpu() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
pg_cpu() { local t=0; for p in $( (pgrep -f "postgres.*$w/pg"; pgrep -u postgres postgres) | sort -u); do t=$((t + $(cpu "$p"))); done; echo "$t"; }
hz=$(getconf CLK_TCK)

echo "== phase 1: $phones phones, 2 nodes, ${seconds} s"
c0=$(( $(cpu "${pids[0]}") + $(cpu "${pids[1]}") )); p0=$(pg_cpu); t0=$(date +%s.%N)
python3 "$root/tools/ingest/load.py" --nodes "$nodes" --phones "$phones" --seconds "$seconds" --token "$token" --json \
    --max-behind 1000 > "$w/load1.json" 2> "$w/load1.log"
t1=$(date +%s.%N); c1=$(( $(cpu "${pids[0]}") + $(cpu "${pids[1]}") )); p1=$(pg_cpu)
tail -n 2 "$w/load1.log"
echo "load: $(cat "$w/load1.json")"
python3 -c 'import sys
d, c1, c0, p1, p0, hz = map(float, sys.argv[1:])
print("nodes CPU %.0f %% of a core, PostgreSQL %.0f %% (over %.0f s)" % (100 * (c1 - c0) / hz / d, 100 * (p1 - p0) / hz / d, d))' \
    "$(python3 -c "print($t1 - $t0)")" "$c1" "$c0" "$p1" "$p0" "$hz"
grep -h "could not be kept\|spooling" "$w"/n*.log | head -n 3

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
