#!/usr/bin/env bash
# bench-logs.sh builds big query logs of a TPC-C client and times shardkey
# reading them side by side with the usual log analysers: pgBadger on a
# PostgreSQL stderr log, pt-query-digest on a MariaDB general log. It
# reports wall time, MB/s and peak RSS of each.
#
# usage: scripts/bench-logs.sh [--pg-size SIZE] [--my-size SIZE] [--keep]
#
# Defaults: a 10G PostgreSQL stderr log and a 2G MariaDB general log (SIZE
# in bytes or with K, M, G). The logs are written by internal/loggen
# (go-tpc's TPC-C statements replayed with fresh values, sessions that
# come and go, advancing times) into a temporary directory, deleted on exit
# unless --keep. shardkey runs `advise --log FILE --format json` (reading
# and advising, as a user runs it); pgBadger `-j 1` (one job, its default)
# with the log's prefix; pt-query-digest `--type genlog`. A tool that is
# not installed is skipped (Debian: apt-get install pgbadger
# percona-toolkit). Peak RSS is GNU time's maximum resident set size.
set -euo pipefail

pgsize=10G mysize=2G keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --pg-size) pgsize=$2; shift 2 ;;
    --my-size) mysize=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-logs.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
  esac
done

top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-logs.XXXXXX")
if [ "$keep" = 1 ]; then echo "keeping $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
[ -x /usr/bin/time ] || { echo "bench-logs.sh: needs GNU time (/usr/bin/time)" >&2; exit 1; }

(cd "$top" && go build -o "$tmp/shardkey" ./cmd/shardkey && go build -o "$tmp/loggen" ./internal/loggen/loggen)

# timed NAME FILE CMD...: runs CMD, prints wall, MB/s over FILE's size and
# peak RSS.
timed() {
  local name=$1 file=$2
  shift 2
  local size
  size=$(stat -c %s "$file")
  if /usr/bin/time -f '%e %M' -o "$tmp/time" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
    read -r wall rss <"$tmp/time"
    awk -v n="$name" -v w="$wall" -v r="$rss" -v s="$size" \
      'BEGIN { printf "  %-16s wall %8.2f s  %8.1f MB/s  peak RSS %7.0f MB\n", n, w, s / 1e6 / (w > 0 ? w : 1), r / 1024 }'
  else
    echo "  $name: failed (exit $?):"
    tail -n 3 "$tmp/$name.err" | sed 's/^/    /'
  fi
}

echo "writing a $pgsize PostgreSQL stderr log and a $mysize MariaDB general log (TPC-C, go-tpc's statements)"
"$tmp/loggen" -format stderr -size "$pgsize" -seed 1 >"$tmp/pg.log"
"$tmp/loggen" -format mysql-general -size "$mysize" -seed 2 >"$tmp/my.log"
ls -l "$tmp/pg.log" "$tmp/my.log" | awk '{ printf "  %s %.0f MB\n", $NF, $5 / 1e6 }'

echo "PostgreSQL stderr log ($pgsize)"
timed shardkey "$tmp/pg.log" "$tmp/shardkey" advise --log "$tmp/pg.log" --format json
if command -v pgbadger >/dev/null; then
  timed pgbadger "$tmp/pg.log" pgbadger -j 1 -q -f stderr --prefix '%m [%p] %u@%d ' -o "$tmp/pgbadger.html" "$tmp/pg.log"
else
  echo "  pgbadger: not installed, skipped"
fi

echo "MariaDB general log ($mysize)"
timed shardkey-mysql "$tmp/my.log" "$tmp/shardkey" advise --log "$tmp/my.log" --format json
if command -v pt-query-digest >/dev/null; then
  timed pt-query-digest "$tmp/my.log" pt-query-digest --type genlog "$tmp/my.log"
else
  echo "  pt-query-digest: not installed, skipped"
fi
