#!/usr/bin/env bash
# Captures the PostgreSQL log behind watch's celebrity test
# (watch/testdata/pgbench-celebrity.log.gz):
#
#   scripts/watch/celebrity-log.sh OUT.log.gz   # needs PostgreSQL 15+ binaries, root or postgres
#
# 1. A throwaway PostgreSQL (initdb in a temp dir, loopback port) with
#    log_statement = 'all' and log_line_prefix = '%m [%p] %c '.
# 2. pgbench -i -s 1 (100,000 accounts), then pgbench's built-in TPC-B-like
#    script at a fixed rate (-R 30, two clients) for 50 s: the base load.
# 3. 23 s after the base load starts, a second pgbench client runs a custom
#    script that reads and updates one account, aid = 4242 (the celebrity),
#    at -R 20 for 25 s, so the key goes from 1 in 100,000 of the accounts
#    traffic to a sixth of all statements mid-way through the log.
# Nothing but the throwaway cluster is touched.
set -euo pipefail
OUTF=${1:?usage: celebrity-log.sh OUT.log.gz}
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
WORK=$(mktemp -d /tmp/celeb.XXXXXX); chmod 755 "$WORK"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
PORT=55491
mkdir -p "$WORK/pg" "$WORK/sock" "$WORK/log"
[ "$(id -u)" = 0 ] && chown postgres "$WORK/pg" "$WORK/sock" "$WORK/log"
cleanup() { as_pg "$PGBIN/pg_ctl" -D "$WORK/pg" -m fast -w stop >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT
as_pg "$PGBIN/initdb" -D "$WORK/pg" -U postgres -A trust --no-sync >/dev/null
cat >>"$WORK/pg/postgresql.conf" <<CONF
port = $PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$WORK/sock'
fsync = off
logging_collector = on
log_directory = '$WORK/log'
log_filename = 'setup.log'
log_line_prefix = '%m [%p] %c '
log_statement = 'none'
CONF
as_pg "$PGBIN/pg_ctl" -D "$WORK/pg" -w -l "$WORK/log/startup.log" start >/dev/null
PSQL=("$PGBIN/psql" -X -q -h 127.0.0.1 -p $PORT -U postgres)
"${PSQL[@]}" -d postgres -c "CREATE DATABASE pgbench"
"$PGBIN/pgbench" -h 127.0.0.1 -p $PORT -U postgres -i -q -s 1 pgbench 2>&1 | tail -1
"${PSQL[@]}" -d postgres -c "ALTER SYSTEM SET log_filename = 'run.log'" -c "ALTER SYSTEM SET log_statement = 'all'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.3; "${PSQL[@]}" -d postgres -c "SELECT pg_rotate_logfile()" >/dev/null; sleep 0.3
cat >"$WORK/celebrity.sql" <<'SQL'
\set delta random(-5000, 5000)
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = 4242;
SELECT abalance FROM pgbench_accounts WHERE aid = 4242;
SQL
"$PGBIN/pgbench" -h 127.0.0.1 -p $PORT -U postgres -n -c 2 -j 1 -R 30 -T 50 pgbench >"$WORK/base.out" 2>&1 &
BASE=$!
sleep 23
"$PGBIN/pgbench" -h 127.0.0.1 -p $PORT -U postgres -n -c 1 -R 20 -T 25 -f "$WORK/celebrity.sql" pgbench >"$WORK/celeb.out" 2>&1
wait $BASE
grep -h "number of transactions actually" "$WORK/base.out" "$WORK/celeb.out"
"${PSQL[@]}" -d postgres -c "ALTER SYSTEM SET log_statement = 'none'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.3
gzip -9 -c "$WORK/log/run.log" >"$OUTF"
