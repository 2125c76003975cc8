#!/usr/bin/env bash
# Tries tools/postgres/schema.sql on a throw-away PostgreSQL cluster and measures it with generated data:
#   (a) rows and bytes per device-hour of raw readings (accelerometer + gyroscope + magnetometer, 100 Hz)
#       in the schema's chunks and, for comparison, float8 chunks, packed bytea chunks and one row per sample;
#   (b) one-second pushes (3 sensors x 100 readings and the dedup row, one transaction each) from
#       concurrent pgbench clients, and that a duplicated push stores nothing, sequential and concurrent;
#   (c) one device-day of steps among 1,000 device-days, a device's samples between two times and
#       `history devices`, with EXPLAIN ANALYZE.
# The cluster lives in a temporary directory (unix socket only, no TCP) and is stopped and removed at the
# end. Prints plain lines; exits non-zero when a check fails.
#
# Usage: nice -n 10 tools/postgres/try-schema.sh     (env: CLIENTS=4 PUSH_SECONDS=30)
# Needs PostgreSQL's initdb, pg_ctl, postgres, psql and pgbench (Debian: postgresql, postgresql-contrib).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
schema="$here/schema.sql"
clients=${CLIENTS:-4}
push_seconds=${PUSH_SECONDS:-30}
phones=200   # devices 1..200 are the pushing phones

find_bin() {
    local name=$1 dir
    for dir in /usr/lib/postgresql/15/bin /usr/local/bin /usr/bin; do
        if [ -x "$dir/$name" ]; then echo "$dir/$name"; return; fi
    done
    command -v "$name" || { echo "FAIL: $name not found" >&2; exit 2; }
}
initdb=$(find_bin initdb); pg_ctl=$(find_bin pg_ctl); psql=$(find_bin psql); pgbench=$(find_bin pgbench)

work=$(mktemp -d /tmp/coremotion-pg.XXXXXX)
# initdb refuses to run as root: the server then runs as the `postgres` (or `nobody`) user.
as_owner=()
owner=$(id -un)
if [ "$(id -u)" = 0 ]; then
    if id postgres >/dev/null 2>&1; then owner=postgres; else owner=nobody; fi
    chown "$owner" "$work"
    as_owner=(runuser -u "$owner" --)
fi

started=0
cleanup() {
    if [ "$started" = 1 ]; then "${as_owner[@]}" "$pg_ctl" -D "$work/data" -m fast -w stop >/dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A free port: with listen_addresses = '' it only names the socket, but one no one listens on is chosen.
port=""
for _ in $(seq 1 50); do
    candidate=$((20000 + RANDOM % 40000))
    if ! (ss -Hln 2>/dev/null || true) | grep -q ":$candidate\b"; then port=$candidate; break; fi
done
[ -n "$port" ] || { echo "FAIL: no free port"; exit 2; }

"${as_owner[@]}" "$initdb" -D "$work/data" -U "$owner" --auth=trust -E UTF8 --locale=C.UTF-8 >"$work/initdb.log" 2>&1 \
    || { cat "$work/initdb.log"; echo "FAIL: initdb"; exit 2; }
"${as_owner[@]}" "$pg_ctl" -D "$work/data" -w -l "$work/server.log" \
    -o "-c listen_addresses='' -k $work -p $port" start >/dev/null \
    || { cat "$work/server.log"; echo "FAIL: pg_ctl start"; exit 2; }
started=1

export PGHOST=$work PGPORT=$port PGUSER=$owner PGDATABASE=postgres
q() { "$psql" -X -q -At -v ON_ERROR_STOP=1 "$@"; }

status=0
fail() { echo "FAIL: $*"; status=1; }
check() { # check NAME ACTUAL EXPECTED
    if [ "$2" = "$3" ]; then echo "ok: $1 ($2)"; else fail "$1: $2, expected $3"; fi
}

echo "server: $(q -c 'SHOW server_version') on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg);" \
    "shared_buffers $(q -c 'SHOW shared_buffers'), fsync $(q -c 'SHOW fsync')," \
    "synchronous_commit $(q -c 'SHOW synchronous_commit'), wal_level $(q -c 'SHOW wal_level')"

q --single-transaction -f "$schema"
check "schema applied, version" "$(q -c 'SELECT max(version) FROM coremotion.schema_migrations')" 1
q --single-transaction -f "$schema" >/dev/null 2>&1 && fail "applying the schema twice succeeded" \
    || echo "ok: applying the schema twice fails and changes nothing"

q <<'SQL'
SET search_path = coremotion;
INSERT INTO sensor (name, fields) VALUES ('accelerometer', '{x,y,z}'), ('gyroscope', '{x,y,z}'),
    ('magnetometer', '{x,y,z}');
INSERT INTO device (name, kind, first_seen, last_seen)
SELECT 'phone-' || n, 'phone', now(), now() FROM generate_series(1, 200) n;   -- ids 1..200
INSERT INTO device (name, kind, first_seen, last_seen) VALUES ('hour-device', 'phone', now(), now()); -- 201
INSERT INTO device (name, kind, first_seen, last_seen)
SELECT 'walker-' || n, 'machine', now(), now() FROM generate_series(1, 50) n;   -- ids 202..251
SQL

# ---- (a) one device-hour of raw readings --------------------------------------------------------------
echo "-- (a) one device-hour: accelerometer + gyroscope + magnetometer at 100 Hz = 1,080,000 readings"
q <<'SQL'
CREATE SCHEMA bench;
SET search_path = bench, coremotion;
SET seed = 0.27;
-- Readings of one hour: times 10 ms apart with up to 0.3 ms jitter (the first of each second on the
-- second), noisy values as a phone reports them.
CREATE UNLOGGED TABLE raw AS
SELECT s AS sensor, sec, i,
       (i * 10000 + CASE WHEN i = 0 THEN 0 ELSE (random() * 300)::int END) AS offset_us,
       (CASE s WHEN 3 THEN 22.0 ELSE 0 END + random() * 0.8 - 0.4)::real AS x,
       (CASE s WHEN 3 THEN -5.0 ELSE 0 END + random() * 0.8 - 0.4)::real AS y,
       (CASE s WHEN 3 THEN -40.0 WHEN 1 THEN 0 ELSE 0 END + random() * 0.8 - 0.4)::real AS z
FROM generate_series(1, 3) s, generate_series(0, 3599) sec, generate_series(0, 99) i;

-- the schema's layout: int4 offsets and a 2-D float4 array per device, sensor and second
INSERT INTO coremotion.sample_chunk (device, sensor, start_time, end_time, sample_count, offsets, real_values)
SELECT 201, sensor, timestamptz '2026-01-01 00:00:00+00' + sec * interval '1 s',
       timestamptz '2026-01-01 00:00:00+00' + sec * interval '1 s' + max(offset_us) * interval '1 microsecond',
       count(*), array_agg(offset_us ORDER BY i), array_agg(ARRAY[x, y, z] ORDER BY i)
FROM raw GROUP BY sensor, sec;
INSERT INTO coremotion.device_sensor (device, sensor, first_time, last_time, sample_count)
SELECT device, sensor, min(start_time), max(end_time), sum(sample_count)
FROM coremotion.sample_chunk GROUP BY device, sensor;

CREATE TABLE chunk_double (LIKE coremotion.sample_chunk INCLUDING ALL);
INSERT INTO chunk_double (device, sensor, start_time, end_time, sample_count, offsets, double_values)
SELECT device, sensor, start_time, end_time, sample_count, offsets, real_values::double precision[]
FROM coremotion.sample_chunk;

-- packed like the SQLite recorder: 16 bytes a reading (uint32 microseconds, 3 x float32)
CREATE TABLE chunk_bytea (
    device bigint NOT NULL, sensor smallint NOT NULL, start_time timestamptz NOT NULL,
    end_time timestamptz NOT NULL, sample_count integer NOT NULL, samples bytea NOT NULL,
    PRIMARY KEY (device, sensor, start_time));
INSERT INTO chunk_bytea
SELECT 201, sensor, timestamptz '2026-01-01 00:00:00+00' + sec * interval '1 s',
       timestamptz '2026-01-01 00:00:00+00' + sec * interval '1 s' + max(offset_us) * interval '1 microsecond',
       count(*), string_agg(int4send(offset_us) || float4send(x) || float4send(y) || float4send(z), ''::bytea ORDER BY i)
FROM raw GROUP BY sensor, sec;

CREATE TABLE per_sample (
    device bigint NOT NULL, sensor smallint NOT NULL, time timestamptz NOT NULL,
    x real NOT NULL, y real NOT NULL, z real NOT NULL,
    PRIMARY KEY (device, sensor, time));
INSERT INTO per_sample
SELECT 201, sensor, timestamptz '2026-01-01 00:00:00+00' + sec * interval '1 s' + offset_us * interval '1 microsecond', x, y, z
FROM raw;
DROP TABLE raw;
VACUUM ANALYZE coremotion.sample_chunk, chunk_double, chunk_bytea, per_sample;
SQL
# name, table: rows, total bytes (heap + TOAST + indexes), bytes per reading
while read -r label table; do
    q -F ' ' -c "SELECT count(*), pg_total_relation_size('$table'), pg_relation_size('$table'),
                        pg_indexes_size('$table'), avg(pg_column_size(t.*))::int FROM $table t" | {
        read -r rows total heap indexes row
        printf '%s: %s rows/device-hour of %s bytes each, %s bytes/device-hour (%.1f MiB; heap %.1f, indexes %.1f, TOAST %.1f), %.2f bytes/reading\n' \
            "$label" "$rows" "$row" "$total" "$(echo "$total/1048576" | bc -l)" "$(echo "$heap/1048576" | bc -l)" \
            "$(echo "$indexes/1048576" | bc -l)" "$(echo "($total-$heap-$indexes)/1048576" | bc -l)" "$(echo "$total/1080000" | bc -l)"
    }
done <<'EOF'
chunks,float4-arrays(schema) coremotion.sample_chunk
chunks,float8-arrays bench.chunk_double
chunks,packed-bytea bench.chunk_bytea
one-row-per-reading bench.per_sample
EOF
check "device-hour readings in the schema's chunks" \
    "$(q -c 'SELECT sum(sample_count) FROM coremotion.sample_chunk')" 1080000
check "a chunk's reading 57 read back (unnest) equals the row-per-reading table" "$(q -c "
    SELECT count(*) FROM coremotion.sample_chunk c
    CROSS JOIN LATERAL (SELECT c.start_time + c.offsets[57] * interval '1 microsecond' AS t,
                               c.real_values[57][1] AS x, c.real_values[57][3] AS z) r
    JOIN bench.per_sample p ON p.device = c.device AND p.sensor = c.sensor AND p.time = r.t
                            AND p.x = r.x AND p.z = r.z")" 10800
q -c 'SET client_min_messages = warning; DROP SCHEMA bench CASCADE'

# ---- a device's samples between two times ---------------------------------------------------------
span_ms=$(q -c "EXPLAIN (ANALYZE, FORMAT JSON)
    SELECT c.start_time + o.off * interval '1 microsecond' AS time,
           c.real_values[o.i][1] AS x, c.real_values[o.i][2] AS y, c.real_values[o.i][3] AS z
    FROM coremotion.sample_chunk c
    CROSS JOIN LATERAL unnest(c.offsets) WITH ORDINALITY AS o(off, i)
    WHERE c.device = 201 AND c.sensor = 1
      AND c.start_time >  timestamptz '2026-01-01 00:30:00+00' - interval '60 s'
      AND c.start_time <= timestamptz '2026-01-01 00:40:00+00'
      AND c.start_time + o.off * interval '1 microsecond' >  timestamptz '2026-01-01 00:30:00+00'
      AND c.start_time + o.off * interval '1 microsecond' <= timestamptz '2026-01-01 00:40:00+00'" |
    python3 -c 'import json,sys; p=json.load(sys.stdin)[0]; print("%.2f %d" % (p["Execution Time"], p["Plan"]["Actual Rows"]))')
echo "samples of one device and sensor between two times, 10 min (60,000 readings, as rows): ${span_ms% *} ms, ${span_ms#* } rows"
check "readings in (00:30, 00:40]" "${span_ms#* }" 60000

# ---- (b) one-second pushes from concurrent clients -------------------------------------------------------
echo "-- (b) one-second pushes: 3 sensors x 100 readings + receipt + per-sensor counters, one transaction each"
# One push, as a node sends it: the arrays as literals (a node would bind them as parameters).
gen_push() { # gen_push DEVICE-EXPR MESSAGE-EXPR SESSION BASE
    python3 - "$@" <<'PY'
import random, sys
dev, msg, session, base = sys.argv[1:]
random.seed(7)
offsets = "{" + ",".join(str(0 if i == 0 else i * 10000 + random.randint(0, 300)) for i in range(100)) + "}"
def values(centre):
    return "{" + ",".join("{%s}" % ",".join("%.7g" % (c + random.uniform(-0.4, 0.4)) for c in centre) for _ in range(100)) + "}"
rows = ",\n    ".join("(%d::smallint, '%s')" % (s, values(c)) for s, c in ((1, (0, 0, 0)), (2, (0, 0, 0)), (3, (22, -5, -40))))
print(f"""\\set dev {dev}
\\set msg {msg}
WITH receipt AS (
  INSERT INTO coremotion.push_receipt (device, session_id, message_id, received_at, node, sample_count)
  VALUES (:dev, '{session}', :msg, now(), 'bench', 300)
  ON CONFLICT DO NOTHING
  RETURNING device),
chunk AS (
  INSERT INTO coremotion.sample_chunk (device, sensor, start_time, end_time, sample_count, offsets, real_values)
  SELECT receipt.device, v.sensor, t.t0, t.t0 + interval '990 ms' + interval '120 microseconds', 100,
         '{offsets}'::integer[], v.vals::real[]
  FROM receipt,
       (SELECT timestamptz '{base}' + :msg * interval '1 s' AS t0) t,
       (VALUES
    {rows}) AS v(sensor, vals)
  ON CONFLICT DO NOTHING
  RETURNING device, sensor, start_time, end_time, sample_count)
INSERT INTO coremotion.device_sensor AS d (device, sensor, first_time, last_time, sample_count)
SELECT device, sensor, start_time, end_time, sample_count FROM chunk ORDER BY sensor
ON CONFLICT (device, sensor) DO UPDATE
  SET first_time = least(d.first_time, excluded.first_time),
      last_time = greatest(d.last_time, excluded.last_time),
      sample_count = d.sample_count + excluded.sample_count;""")
PY
}
gen_push "random(1, $phones)" "random(1, 9000000000)" s1 "2030-01-01 00:00:00+00" >"$work/push.sql"
gen_push "random(1, 5)" "random(1, 60)" dup "1990-01-01 00:00:00+00" >"$work/dup.sql"

run_pgbench() { # run_pgbench SCRIPT ARGS...: prints pgbench's output; per-transaction log in $work/log
    local script=$1; shift
    rm -f "$work"/log/pgbench_log.*; mkdir -p "$work/log"
    (cd "$work/log" && "$pgbench" -n -l -f "$script" "$@" 2>&1)
}
lsn0=$(q -c 'SELECT pg_current_wal_lsn()')
out=$(run_pgbench "$work/push.sql" -c "$clients" -j "$clients" -T "$push_seconds") || { echo "$out"; fail "pgbench"; }
wal=$(q -c "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn0')")
pushes=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
failed=$(echo "$out" | sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p')
tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p')
lat=$(echo "$out" | sed -n 's/^latency average = \([0-9.]*\) ms/\1/p')
p99=$(cat "$work"/log/pgbench_log.* | awk '{print $3}' | sort -n | awk '{a[NR]=$1} END {print a[int(NR*0.99)]/1000}')
p50=$(cat "$work"/log/pgbench_log.* | awk '{print $3}' | sort -n | awk '{a[NR]=$1} END {print a[int(NR*0.5)]/1000}')
printf 'pushes: %s clients, %s s, %s pushes (%s failed): %.0f pushes/s = %.0f readings/s; latency mean %s ms, p50 %s ms, p99 %s ms\n' \
    "$clients" "$push_seconds" "$pushes" "${failed:-0}" "$tps" "$(echo "$tps*300" | bc -l)" "$lat" "$p50" "$p99"
receipts=$(q -c "SELECT count(*) FROM coremotion.push_receipt WHERE session_id = 's1'")
chunks=$(q -c "SELECT count(*) FROM coremotion.sample_chunk WHERE device <= $phones")
printf 'WAL: %.0f bytes a push (%.1f MiB per device-hour of 1 s pushes)\n' "$(echo "$wal/$pushes" | bc -l)" "$(echo "$wal/$pushes*3600/1048576" | bc -l)"
check "failed pushes" "${failed:-0}" 0
check "receipts = pushes processed" "$receipts" "$pushes"
check "chunks = 3 x receipts" "$chunks" "$((3 * receipts))"
check "device_sensor counts = readings in chunks" \
    "$(q -c 'SELECT sum(sample_count) FROM coremotion.device_sensor')" \
    "$(q -c 'SELECT sum(sample_count) FROM coremotion.sample_chunk')"
q -F ' ' -c "SELECT pg_total_relation_size('coremotion.push_receipt'), count(*) FROM coremotion.push_receipt" | {
    read -r bytes n; printf 'receipts: %.0f bytes a push (table + primary key) = %.2f MB per device-hour of 1 s pushes\n' \
        "$(echo "$bytes/$n" | bc -l)" "$(echo "$bytes/$n*3600/1048576" | bc -l)"; }

# A retried push: same device, session and messageId, its readings now at another time.
read -r dup_dev dup_msg < <(q -F ' ' -c "SELECT device, message_id FROM coremotion.push_receipt WHERE session_id = 's1' LIMIT 1")
before=$(q -c "SELECT (SELECT count(*) FROM coremotion.push_receipt) || '/' || (SELECT count(*) FROM coremotion.sample_chunk) || '/' || (SELECT sum(sample_count) FROM coremotion.device_sensor)")
sed -e "s/^\\\\set dev .*/\\\\set dev $dup_dev/" -e "s/^\\\\set msg .*/\\\\set msg $dup_msg/" \
    -e "s/+ :msg \* interval '1 s'/+ :msg * interval '1 s' + interval '17 s'/" "$work/push.sql" >"$work/retry.sql"
run_pgbench "$work/retry.sql" -c 1 -t 3 >/dev/null || fail "pgbench retry"
after=$(q -c "SELECT (SELECT count(*) FROM coremotion.push_receipt) || '/' || (SELECT count(*) FROM coremotion.sample_chunk) || '/' || (SELECT sum(sample_count) FROM coremotion.device_sensor)")
check "a retried push (3 times) changes receipts/chunks/counted readings" "$after" "$before"

# Duplicates racing: 4 clients push 5 devices x 60 messageIds 250 times each (most are duplicates).
out=$(run_pgbench "$work/dup.sql" -c 4 -j 4 -t 250) || { echo "$out"; fail "pgbench duplicates"; }
dup_receipts=$(q -c "SELECT count(*) FROM coremotion.push_receipt WHERE session_id = 'dup'")
dup_chunks=$(q -c "SELECT count(*) FROM coremotion.sample_chunk WHERE start_time < '2000-01-01'")
dup_counted=$(q -c "SELECT sum(sample_count) FROM coremotion.device_sensor WHERE device <= 5")
dup_stored=$(q -c "SELECT sum(sample_count) FROM coremotion.sample_chunk WHERE device <= 5")
echo "duplicates racing: 1000 pushes of at most 300 distinct (device, messageId) stored $dup_receipts receipts, $dup_chunks chunks"
check "racing duplicates: chunks = 3 x receipts" "$dup_chunks" "$((3 * dup_receipts))"
check "racing duplicates: counted readings = stored readings (devices 1-5)" "$dup_counted" "$dup_stored"

# ---- (c) one device-day of steps among 1,000 device-days ---------------------------------------------
echo "-- (c) steps: 50 devices x 20 days = 1,000 device-days, about 1 minute in 10 with steps"
q <<'SQL'
SET search_path = coremotion;
SET seed = 0.5;
INSERT INTO step_minute (device, minute, step_count, distance_millimetres, active_milliseconds,
                         link_milliseconds, first_offset_milliseconds, last_offset_milliseconds, steps)
SELECT device, minute, n, n * 740, least(60000, n * 540), 0, 300, 300 + (n - 1) * 540 / 1,
       substring(decode(repeat(md5(random()::text), 30), 'hex') FROM 1 FOR 4 * n)
FROM (SELECT d AS device, timestamptz '2026-02-01 00:00:00+00' + m * interval '1 minute' AS minute,
             1 + (random() * 109)::int AS n, random() AS r
      FROM generate_series(202, 251) d, generate_series(0, 20 * 1440 - 1) m) g
WHERE r < 0.1;
VACUUM ANALYZE step_minute;
SQL
q -F ' ' -c "SELECT count(*), pg_total_relation_size('coremotion.step_minute') FROM coremotion.step_minute" | {
    read -r rows bytes; echo "step_minute: $rows rows, $(echo "$bytes/1048576" | bc -l | xargs printf '%.1f') MB"; }
: >"$work/steps.times"
plans_ok=1
for k in $(seq 1 21); do
    dev=$((202 + (k * 17) % 50)); day=$(((k * 7) % 20))
    plan=$(q -c "EXPLAIN (ANALYZE, BUFFERS)
        SELECT sum(step_count), sum(distance_millimetres), sum(active_milliseconds), min(minute), max(minute)
        FROM coremotion.step_minute
        WHERE device = $dev AND minute >= timestamptz '2026-02-01 00:00:00+00' + $day * interval '1 day'
                          AND minute <  timestamptz '2026-02-01 00:00:00+00' + ($day + 1) * interval '1 day'")
    echo "$plan" | grep -q 'Index Only Scan using step_minute_pkey' || plans_ok=0
    echo "$plan" | sed -n 's/.*Execution Time: \([0-9.]*\) ms.*/\1/p' >>"$work/steps.times"
    [ "$k" = 1 ] && echo "$plan" | sed 's/^/  plan: /'
done
sort -n "$work/steps.times" -o "$work/steps.times"
echo "one device-day of steps (21 runs, warm cache): median $(sed -n 11p "$work/steps.times") ms, min $(head -1 "$work/steps.times") ms, max $(tail -1 "$work/steps.times") ms"
check "the device-day query reads only the primary key (index-only scan)" "$plans_ok" 1

# ---- history devices ---------------------------------------------------------------------------------
devices_sql="SELECT d.name,
       least(s.first_time, m.first_minute) AS first_time,
       greatest(s.last_time, m.last_minute + interval '1 minute') AS last_time,
       coalesce(s.samples, '{}') AS samples, coalesce(m.steps, 0) AS steps
FROM coremotion.device d
LEFT JOIN LATERAL (SELECT min(ds.first_time) AS first_time, max(ds.last_time) AS last_time,
                          jsonb_object_agg(se.name, ds.sample_count) AS samples
                   FROM coremotion.device_sensor ds JOIN coremotion.sensor se ON se.id = ds.sensor
                   WHERE ds.device = d.id) s ON true
LEFT JOIN LATERAL (SELECT min(minute) AS first_minute, max(minute) AS last_minute, sum(step_count) AS steps
                   FROM coremotion.step_minute sm WHERE sm.device = d.id) m ON true
ORDER BY d.name"
dev_ms=$(q -c "EXPLAIN (ANALYZE, FORMAT JSON) $devices_sql" |
    python3 -c 'import json,sys; print("%.1f" % json.load(sys.stdin)[0]["Execution Time"])')
echo "history devices over $(q -c 'SELECT count(*) FROM coremotion.device') devices: $dev_ms ms; e.g. $(q -F ' | ' -c "SELECT * FROM ($devices_sql) x WHERE name IN ('hour-device', 'phone-1', 'walker-1')" | tr '\n' ';')"

echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$status" = 0 ]; then echo "all checks passed"; else echo "some checks FAILED"; fi
exit "$status"
