#!/usr/bin/env bash
# bench-memory.sh runs each input that once took unbounded memory (issue 17)
# under a 1 GiB cap and reports the peak resident set size of each run.
#
# usage: scripts/bench-memory.sh [--cap MiB] [--keep]
#
# The cap: a cgroup v1 memory controller group (memory.limit_in_bytes, the
# kernel kills the process past it) when /sys/fs/cgroup/memory is writable
# (root on this machine and in CI), else an address-space limit (prlimit
# --as, looser: Go reserves address space it never touches, so that cap is
# set to 4x). The peak: GNU time's "Maximum resident set size" (getrusage
# ru_maxrss of the command) for the command-line cases, and VmHWM of
# /proc/PID/status for `shardkey serve`. Every case must end with a clear
# error or a result, under the cap: a line "ok" or "FAIL" says which; the
# script exits 1 when one fails.
#
# Cases (files are generated in a temporary directory; the NUL-filled ones
# are sparse files that take no disk):
#   directory(col, /dev/zero) as -k, and from a spec's candidates:
#   --workload /dev/zero
#   --log-format csvlog, pg_stat_statements, stderr on a 2 GiB NUL file
#   --rows on a 3 GiB CSV (was read whole into memory up to 4 GiB)
#   --rows /dev/zero (a stream)
#   a PostgreSQL log with 3,000,000 statements after BEGIN, no COMMIT
#   serve: the issue's 2 KB specs (30 zipf columns of 50 M values; param_samples
#   4194304 x 200 operations; 20 steps x repeat 1000), then 4 concurrent
#   POSTs of specs at the playground's limits (2 M rows, 7 M cells)
set -euo pipefail

cap=1024 keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --cap) cap=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-memory.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
  esac
done

top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-memory.XXXXXX")
cg=""
cleanup() {
  [ -n "${srvpid:-}" ] && kill "$srvpid" 2>/dev/null || true
  [ -n "$cg" ] && rmdir "$cg" 2>/dev/null || true
  [ "$keep" = 1 ] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT

bin=$tmp/shardkey
(cd "$top" && go build -o "$bin" ./cmd/shardkey)

if [ -d /sys/fs/cgroup/memory ] && mkdir "/sys/fs/cgroup/memory/shardkey-bench-$$" 2>/dev/null; then
  cg=/sys/fs/cgroup/memory/shardkey-bench-$$
  echo $((cap << 20)) > "$cg/memory.limit_in_bytes"
  echo 0 > "$cg/memory.swappiness" 2>/dev/null || true
  how="cgroup v1 memory.limit_in_bytes = $cap MiB"
else
  how="prlimit --as = $((4 * cap)) MiB (no writable cgroup)"
fi
echo "cap: $how; peak RSS: GNU time (ru_maxrss), serve: VmHWM"
printf '%-58s %10s  %s\n' "case" "peak RSS" "outcome"

fails=0
# capped CMD...: runs CMD under the cap, in $tmp.
capped() {
  if [ -n "$cg" ]; then
    (echo $BASHPID > "$cg/cgroup.procs"; exec "$@")
  else
    prlimit --as=$((4 * cap << 20)) -- "$@"
  fi
}
# case NAME WANT CMD...: WANT is a regular expression the output (stdout
# and stderr) must match for "ok", besides a peak under the cap and no kill.
case_() {
  local name=$1 want=$2; shift 2
  local rc=0
  (cd "$tmp" && capped /usr/bin/time -f 'maxrss %M' timeout 300 "$@") >"$tmp/out" 2>"$tmp/err" || rc=$?
  local kb; kb=$(grep -o 'maxrss [0-9]*' "$tmp/err" | tail -1 | cut -d' ' -f2 || true)
  local msg; msg=$(grep -v '^maxrss\|^Command' "$tmp/err" | head -1 | cut -c1-110 || true)
  [ -z "$msg" ] && msg=$(grep -m1 'warning' "$tmp/out" | cut -c1-110 || true)
  local verdict=ok
  if [ "$rc" -ge 124 ] || [ -z "$kb" ] || [ "$kb" -ge $((cap * 1024)) ] || ! grep -Eq "$want" "$tmp/out" "$tmp/err"; then
    verdict=FAIL; fails=$((fails + 1))
  fi
  printf '%-58s %7s MiB  %s exit %s: %s\n' "$name" "$(( ${kb:-0} / 1024 ))" "$verdict" "$rc" "$msg"
}

"$bin" demo social --print > "$tmp/social.yaml"
sed 's|^candidates:.*|candidates: ["directory(user_id, /dev/zero)"]|' "$tmp/social.yaml" > "$tmp/dirspec.yaml"
truncate -s 2G "$tmp/nul.log"
truncate -s 3G "$tmp/big.csv"
awk 'BEGIN{print "2026-11-30 23:04:50.000 UTC [100] LOG:  statement: BEGIN";
  for (i = 0; i < 3000000; i++) printf "2026-11-30 23:%02d:%02d.000 UTC [100] LOG:  statement: UPDATE t SET v = 1 WHERE id = %d\n", int(i/60000)%60, int(i/1000)%60, i}' > "$tmp/opentxn.log"

case_ "-k 'directory(user_id, /dev/zero)'" "line longer than" "$bin" score --workload social.yaml -k 'directory(user_id, /dev/zero)'
case_ "spec candidates: [directory(user_id, /dev/zero)]" "line longer than" "$bin" advise --workload dirspec.yaml
case_ "--workload /dev/zero" "larger than 16 MiB" "$bin" score --workload /dev/zero -k 'hash(id)'
case_ "--log-format csvlog, 2 GiB NUL file" "longer than 64 MiB" "$bin" score --log nul.log --log-format csvlog -k 'hash(id)'
case_ "--log-format pg_stat_statements, 2 GiB NUL file" "longer than 64 MiB" "$bin" score --log nul.log --log-format pg_stat_statements -k 'hash(id)'
case_ "--log-format stderr, 2 GiB NUL file" "longer than 64 MiB" "$bin" score --log nul.log --log-format stderr -k 'hash(id)'
case_ "--rows on a 3 GiB CSV" "longer than" "$bin" score --rows t=big.csv -k 'hash(id)'
case_ "--rows /dev/zero" "longer than" "$bin" score --rows t=/dev/zero -k 'hash(id)'
case_ "3,000,000 statements after BEGIN, no COMMIT" "without COMMIT" "$bin" score --log opentxn.log -k 'hash(id)'

# serve: the issue's specs and 4 concurrent specs at the limits.
python3 - "$tmp" <<'EOF'
import sys
d = sys.argv[1]
def w(name, s):
    open(f"{d}/{name}", "w").write(s)
w("zipf.yaml", "tables:\n  - name: t\n    rows: 1000\n    columns:\n" + "".join(f"      - {{name: c{i}, gen: zipf, distinct: 50000000, s: 1}}\n" for i in range(30)))
w("ops.yaml", "param_samples: 4194304\ntables:\n  - name: t\n    rows: 1000\n    columns: [{name: id, gen: sequential}, {name: at, gen: time}]\noperations:\n" + "".join(f"  - {{name: op{i}, table: t, rate: 1, where: {{id: \"?\", at: \"?\"}}}}\n" for i in range(200)))
w("txn.yaml", "tables:\n  - name: t\n    rows: 1000\n    columns: [{name: id, gen: sequential}, {name: u, gen: uniform, distinct: 10}]\ntransactions:\n  - name: long\n    rate: 1\n    steps:\n" + "      - {table: t, kind: read, where: {u: \"?\"}, repeat: 1000}\n" * 20)
for k in range(4):
    w(f"big{k}.yaml", f"seed: {k}\nparam_samples: 50000\ntables:\n  - name: users\n    rows: 500000\n    columns: [{{name: id, gen: sequential}}, {{name: region, gen: uniform, distinct: 200000}}]\n  - name: posts\n    parent: users\n    per_parent: 1-3\n    columns: [{{name: post_id, gen: sequential}}, {{name: at, gen: time}}]\noperations:\n  - {{name: by user, table: posts, rate: 100, where: {{id: \"?\"}}}}\n  - {{name: by region, table: users, rate: 10, where: {{region: \"?\"}}}}\n  - {{name: post, table: posts, kind: insert, rate: 10}}\ntransactions:\n  - {{name: t, rate: 1, steps: [{{table: posts, kind: insert, repeat: 1-3}}, {{table: users, kind: update, where: {{id: \"?\"}}}}]}}\ncandidates: [hash(id)]\n")
EOF
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# Started so that $! is the server itself (the subshell execs it).
if [ -n "$cg" ]; then
  (echo $BASHPID > "$cg/cgroup.procs"; exec "$bin" serve --addr 127.0.0.1:$port) >"$tmp/serve.out" 2>&1 &
else
  prlimit --as=$((4 * cap << 20)) -- "$bin" serve --addr 127.0.0.1:$port >"$tmp/serve.out" 2>&1 &
fi
srvpid=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
post() { curl -s -o "$tmp/$2.resp" -w '%{http_code}' -H 'Content-Type: text/yaml' --data-binary "@$tmp/$1" "http://127.0.0.1:$port/api/report?k=hash(id)&file=$1"; }
codes=""
for f in zipf ops txn; do codes="$codes $f:$(post $f.yaml $f)"; done
pids=()
for k in 0 1 2 3; do (post big$k.yaml big$k > "$tmp/code$k") & pids+=($!); done
for p in "${pids[@]}"; do wait "$p" || true; done
for k in 0 1 2 3; do codes="$codes big$k:$(cat "$tmp/code$k")"; done
hwm=$(awk '/VmHWM/ {print int($2/1024)}' /proc/$srvpid/status 2>/dev/null || echo 0)
alive=yes; kill -0 "$srvpid" 2>/dev/null || alive=no
verdict=ok
if [ "$alive" = no ] || [ "$hwm" -ge "$cap" ] || ! echo "$codes" | grep -q 'zipf:400 ops:400 txn:400'; then verdict=FAIL; fails=$((fails + 1)); fi
printf '%-58s %7s MiB  %s %s\n' "serve: issue specs, then 4 concurrent 2 M-row specs" "$hwm" "$verdict" "HTTP$codes"
kill "$srvpid" 2>/dev/null || true; wait "$srvpid" 2>/dev/null || true; srvpid=""

[ "$fails" = 0 ] || { echo "$fails case(s) failed"; exit 1; }
