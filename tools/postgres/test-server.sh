#!/usr/bin/env bash
# A throw-away PostgreSQL server for the history tests (Tests/HistoryBehaviourTests).
#
#   tools/postgres/test-server.sh start DIR   creates a cluster in DIR (Unix socket only, in DIR; no TCP;
#                                             trust authentication), starts it, creates the database
#                                             coremotion_test and prints the URL to export:
#                                             postgres://USER@localhost/coremotion_test?host=DIR&port=PORT
#   tools/postgres/test-server.sh stop DIR    stops it and removes DIR
#   tools/postgres/test-server.sh stop-server DIR / start-server DIR
#                                             stops the server (fast shutdown) and starts it again on the same
#                                             data and socket (a database restart in the ingest tests)
#
# DURABLE=1 keeps PostgreSQL's durability settings (fsync, synchronous_commit, full_page_writes: for
# measurements); otherwise they are off, as a test server need not survive a power cut.
#
# Example:
#   export COREMOTION_TEST_POSTGRES=$(tools/postgres/test-server.sh start /tmp/cm-pg)
#   swift test --filter HistoryBehaviour
#   tools/postgres/test-server.sh stop /tmp/cm-pg
#
# As root the server runs as the `postgres` user (else `nobody`): initdb refuses root. DIR's socket path
# (DIR/.s.PGSQL.PORT) must stay under 108 bytes, so keep DIR short. Needs initdb, pg_ctl and psql
# (Debian: postgresql; looked for in /usr/lib/postgresql/15/bin, /usr/local/bin, then PATH).
set -euo pipefail

usage() { echo "usage: $0 start|stop|stop-server|start-server DIR" >&2; exit 2; }
[ $# = 2 ] || usage
command=$1
dir=$2
marker=.coremotion-test-server

find_bin() {
    local name=$1 dir
    for dir in /usr/lib/postgresql/15/bin /usr/local/bin /usr/bin; do
        if [ -x "$dir/$name" ]; then echo "$dir/$name"; return; fi
    done
    command -v "$name" || { echo "FAIL: $name not found" >&2; exit 2; }
}

as_owner=()
owner=$(id -un)
if [ "$(id -u)" = 0 ]; then
    if id postgres >/dev/null 2>&1; then owner=postgres; else owner=nobody; fi
    as_owner=(runuser -u "$owner" --)
fi

case "$command" in
start)
    initdb=$(find_bin initdb); pg_ctl=$(find_bin pg_ctl); psql=$(find_bin psql)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd -P)
    if [ -n "$(ls -A "$dir")" ]; then echo "FAIL: $dir is not empty" >&2; exit 1; fi
    touch "$dir/$marker"
    [ "$(id -u)" = 0 ] && chown "$owner" "$dir"
    # A free port: with listen_addresses = '' it only names the socket, but one no one uses is chosen.
    port=""
    for _ in $(seq 1 50); do
        candidate=$((20000 + RANDOM % 40000))
        if ! (ss -Hlnx 2>/dev/null; ss -Hln 2>/dev/null || true) | grep -q "[.:]$candidate\b"; then port=$candidate; break; fi
    done
    [ -n "$port" ] || { echo "FAIL: no free port" >&2; exit 1; }
    socket="$dir/.s.PGSQL.$port"
    if [ "${#socket}" -gt 107 ]; then echo "FAIL: socket path $socket is longer than 107 bytes" >&2; exit 1; fi
    "${as_owner[@]}" "$initdb" -D "$dir/data" -U "$owner" --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; echo "FAIL: initdb" >&2; exit 1; }
    # fsync off: a test server need not survive a power cut, and the tests run faster.
    options="-c listen_addresses='' -k $dir -p $port -c max_connections=200"
    [ -n "${DURABLE:-}" ] || options="$options -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    echo "$options" > "$dir/options"
    "${as_owner[@]}" "$pg_ctl" -D "$dir/data" -w -l "$dir/server.log" -o "$options" start >/dev/null \
        || { cat "$dir/server.log" >&2; echo "FAIL: pg_ctl start" >&2; exit 1; }
    "$psql" -X -q -h "$dir" -p "$port" -U "$owner" -d postgres -v ON_ERROR_STOP=1 -c 'CREATE DATABASE coremotion_test' \
        || { echo "FAIL: CREATE DATABASE" >&2; exit 1; }
    echo "postgres://$owner@localhost/coremotion_test?host=$dir&port=$port"
    ;;
stop-server)
    [ -e "$dir/$marker" ] || { echo "FAIL: $dir was not made by $0 start; not touching it" >&2; exit 1; }
    "${as_owner[@]}" "$(find_bin pg_ctl)" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
start-server)
    [ -e "$dir/$marker" ] || { echo "FAIL: $dir was not made by $0 start; not touching it" >&2; exit 1; }
    "${as_owner[@]}" "$(find_bin pg_ctl)" -D "$dir/data" -w -l "$dir/server.log" -o "$(cat "$dir/options")" start >/dev/null
    ;;
stop)
    [ -d "$dir" ] || { echo "FAIL: no $dir" >&2; exit 1; }
    [ -e "$dir/$marker" ] || { echo "FAIL: $dir was not made by $0 start; not touching it" >&2; exit 1; }
    pg_ctl=$(find_bin pg_ctl)
    if [ -e "$dir/data/postmaster.pid" ]; then
        "${as_owner[@]}" "$pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    fi
    rm -rf "$dir"
    ;;
*)
    usage
    ;;
esac
