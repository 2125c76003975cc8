#!/usr/bin/env bash
# Two ingest nodes, one PostgreSQL, phones that move between the nodes; one node killed with kill -9 and the
# database restarted mid-run; at the end every acknowledged reading must be in the database exactly once.
#
#   1. a throw-away PostgreSQL cluster (tools/postgres/test-server.sh) unless COREMOTION_TEST_POSTGRES names one;
#   2. two coremotiond nodes (--device none --ingest sensorlogger:127.0.0.1:PORT --history URL --spool DIR);
#   3. tools/ingest/load.py: PHONES phones pushing accelerometer, gyroscope and magnetometer at 100 Hz in 1 s
#      batches for RUN_SECONDS, each moving to the other node every 5 pushes, resending until answered 200, a
#      ledger of what was acknowledged;
#   4. at 1/4 of the run: kill -9 of node A, restarted 3 s later on the same spool; at 1/2: PostgreSQL
#      stopped for OUTAGE seconds and started again (the nodes spool meanwhile);
#   5. after the run: the nodes drain their spools; then, from the ledger and the database, every
#      acknowledged push has its receipt and its readings, once: per device and sensor, the stored readings
#      equal the acknowledged ones, and no push is stored twice.
#
# usage: tools/ingest/two-node-test.sh [--daemon .build/debug/coremotiond]   (env: PHONES=20 RUN_SECONDS=60 OUTAGE=15)
# Prints PASS/FAIL lines and figures; exits 0 only when every check passed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
daemon="$root/.build/debug/coremotiond"
while [ $# -gt 0 ]; do
    case "$1" in
        --daemon) daemon=$2; shift 2 ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        *) echo "unknown argument $1"; exit 2 ;;
    esac
done
phones=${PHONES:-20}; seconds=${RUN_SECONDS:-60}; outage=${OUTAGE:-15}
[ -x "$daemon" ] || { echo "FAIL: no coremotiond at $daemon (swift build)"; exit 2; }
w=$(mktemp -d /tmp/coremotion-ingest.XXXXXX)
chmod 755 "$w"
failed=0
pass() { echo "PASS $1: $2"; }
fail() { echo "FAIL $1: $2"; failed=1; }
pids=()
own_pg=0
cleanup() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    wait 2>/dev/null
    [ "$own_pg" = 1 ] && "$root/tools/postgres/test-server.sh" stop "$w/pg" >/dev/null 2>&1
    [ -n "${KEEP:-}" ] || rm -rf "$w"
}
trap cleanup EXIT

if [ -n "${COREMOTION_TEST_POSTGRES:-}" ]; then
    url=$COREMOTION_TEST_POSTGRES
else
    mkdir -p "$w/pg"
    url=$("$root/tools/postgres/test-server.sh" start "$w/pg") || { echo "FAIL: PostgreSQL did not start"; exit 2; }
    own_pg=1
fi
echo "INFO database: $url"
psql_url() { python3 -c 'import sys, urllib.parse as u
p = u.urlsplit(sys.argv[1]); q = dict(u.parse_qsl(p.query))
print("host=%s port=%s user=%s dbname=%s" % (q.get("host", p.hostname or "localhost"), q.get("port", p.port or 5432), p.username or "postgres", p.path.lstrip("/")))' "$1"; }
conninfo=$(psql_url "$url")
sql() { psql "$conninfo" -X -A -t -q -v ON_ERROR_STOP=1 -c "$1"; }

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
port_a=$(free_port); port_b=$(free_port)
start_node() {  # name port
    local name=$1 port=$2
    "$daemon" --device none --socket "$w/$name.sock" --history "$url" --permissions "$w/$name-permissions.json" \
        --no-authorization --ingest "sensorlogger:127.0.0.1:$port?token=$token" --spool "$w/spool-$name" --node "$name" \
        --log-level info >>"$w/$name.log" 2>&1 &
    echo $!
}
wait_port() { for _ in $(seq 1 100); do (echo > /dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
pid_a=$(start_node a "$port_a"); pids+=("$pid_a")
pid_b=$(start_node b "$port_b"); pids+=("$pid_b")
wait_port "$port_a" && wait_port "$port_b" || { fail start "the nodes did not listen"; tail -5 "$w"/a.log "$w"/b.log; exit 1; }
pass start "two nodes on 127.0.0.1:$port_a and :$port_b, one database"

python3 "$root/tools/ingest/load.py" --nodes "http://127.0.0.1:$port_a,http://127.0.0.1:$port_b" --phones "$phones" \
    --seconds "$seconds" --token "$token" --move-every 5 --ledger "$w/ledger.jsonl" --json --max-behind 1000 \
    >"$w/load.json" 2>"$w/load.log" &
load_pid=$!

sleep "$(python3 -c "print($seconds / 4)")"
kill -9 "$pid_a"
echo "INFO kill -9 of node a at $(python3 -c "print(round($seconds / 4))") s; restarted 3 s later"
sleep 3
pid_a=$(start_node a "$port_a"); pids+=("$pid_a")
sleep "$(python3 -c "print(max(0, $seconds / 4 - 3))")"
if [ "$own_pg" = 1 ]; then
    "$root/tools/postgres/test-server.sh" stop-server "$w/pg" >/dev/null 2>&1
    echo "INFO PostgreSQL stopped at $(python3 -c "print(round($seconds / 2))") s for $outage s"
    sleep "$outage"
    "$root/tools/postgres/test-server.sh" start-server "$w/pg" >/dev/null 2>&1 || fail database "PostgreSQL did not start again"
    outage_end=$(date +%s)
else
    echo "INFO SKIP the database restart (COREMOTION_TEST_POSTGRES names a server this script does not own)"
fi
wait "$load_pid"; load_status=$?
sed 's/^/INFO   load: /' "$w/load.log" | tail -n 4
summary=$(cat "$w/load.json")
echo "INFO load summary: $summary"

# The spools drain into the database once it answers again.
drained=0
for _ in $(seq 1 600); do
    left=$(find "$w"/spool-a "$w"/spool-b -name '*.cmspool' -size +0 2>/dev/null | wc -l)
    [ "$left" = 0 ] && { drained=1; break; }
    sleep 0.2
done
[ -n "${outage_end:-}" ] && echo "INFO spools empty $(( $(date +%s) - outage_end )) s after the database came back"
[ "$drained" = 1 ] && pass drain "both spools are empty" || fail drain "spool files left: $(find "$w"/spool-* -name '*.cmspool' | tr '\n' ' ')"

acked=$(wc -l < "$w/ledger.jsonl")
[ "$load_status" = 0 ] && [ "$acked" -gt 0 ] && pass load "$acked pushes acknowledged, none given up" \
    || fail load "load generator exit $load_status, $acked pushes acknowledged"

# Every acknowledged push has its receipt, once; per device and sensor the stored readings equal the
# acknowledged ones.
python3 - "$w/ledger.jsonl" > "$w/expected.csv" <<'EOF'
import json, sys, collections
totals = collections.Counter()
receipts = set()
for line in open(sys.argv[1]):
    r = json.loads(line)
    receipts.add((r["device"], r["session"], r["message"]))
    for sensor, n in r["sensors"].items():
        totals[(r["device"], sensor)] += n
for (device, sensor), n in sorted(totals.items()):
    print(f"{device},{sensor},{n}")
EOF
sql "COPY (SELECT d.name, s.name, sum(c.sample_count) FROM coremotion.sample_chunk c JOIN coremotion.device d ON d.id = c.device
      JOIN coremotion.sensor s ON s.id = c.sensor GROUP BY 1, 2 ORDER BY 1, 2) TO STDOUT WITH (FORMAT csv)" > "$w/stored.csv"
receipts=$(sql "SELECT count(*) FROM coremotion.push_receipt")
duplicate_chunks=$(sql "SELECT count(*) FROM (SELECT device, sensor, start_time FROM coremotion.sample_chunk GROUP BY 1, 2, 3 HAVING count(*) > 1) x")
missing=$(python3 - "$w/expected.csv" "$w/stored.csv" <<'EOF'
import sys
def read(p):
    return {(a, b): int(float(c)) for a, b, c in (l.strip().split(",") for l in open(p) if l.strip())}
e, s = read(sys.argv[1]), read(sys.argv[2])
bad = [(k, e.get(k, 0), s.get(k, 0)) for k in sorted(set(e) | set(s)) if e.get(k, 0) != s.get(k, 0)]
print(len(bad), sum(e.values()), sum(s.values()), bad[:3])
EOF
)
read -r nbad expected_total stored_total rest <<<"$missing"
if [ "$nbad" = 0 ] && [ "$receipts" -ge "$acked" ] && [ "$duplicate_chunks" = 0 ]; then
    pass exactly-once "$expected_total acknowledged readings of $acked pushes, $stored_total stored ($receipts receipts: pushes stored, some answered before a 200 was lost); no device and sensor differs, no chunk twice"
else
    fail exactly-once "$nbad device/sensor totals differ (acknowledged $expected_total, stored $stored_total; first: $rest); receipts $receipts for $acked acknowledged; duplicate chunks $duplicate_chunks"
fi
grep -h "spooling\|takes pushes again\|could not be kept" "$w"/a.log "$w"/b.log | head -n 6 | sed 's/^/INFO   node log: /'
[ "$failed" = 0 ] && echo "all checks passed" || echo "some checks failed (KEEP=1 keeps $w)"
exit "$failed"
