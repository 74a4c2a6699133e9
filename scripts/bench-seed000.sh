#!/usr/bin/env bash
# bench-seed000.sh times seed 000's own Python simulator (score_seed.py) and
# `shardkey score --engine blake2b` on one big generated workload, checks that
# both print the same numbers, and reports the speed-up.
#
# usage: scripts/bench-seed000.sh [--rows N] [--queries N] [--txns N]
#                                 [--customers N] [--seed N] [--runs N] [--keep]
#
# Defaults: 2,000,000 rows, 1,000,000 queries, 500,000 txns, 100,000
# customers, seed 7, 64 shards. Python runs once (about 40 s); each
# shardkey command runs --runs times (default 5) and its median wall time
# is the one compared, since one run of under a second varies by several
# percent on a shared machine. The workload goes to a temporary directory
# that is deleted on exit (kept with --keep); it is never written into the
# repository. Python needs a few GB of memory at the default size.
#
# If cmd/shardkey does not build or has no `score` command yet, the script
# says so and still prints the Python timings (exit 0). It exits 1 when both
# ran and their numbers differ.
set -euo pipefail

rows=2000000 queries=1000000 txns=500000 customers=100000 seed=7 shards=64 keep=0 runs=5
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows=$2; shift 2 ;;
    --queries) queries=$2; shift 2 ;;
    --txns) txns=$2; shift 2 ;;
    --customers) customers=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-seed000.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
  esac
done

top=$(cd "$(dirname "$0")/.." && pwd)
seeddir=$top/cmd/shardkey/testdata/seed000
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-seed000.XXXXXX")
if [ "$keep" = 1 ]; then
  echo "keeping $tmp"
else
  trap 'rm -rf "$tmp"' EXIT
fi

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

echo "generating $rows rows, $queries queries, $txns txns ($customers customers, seed $seed) in $tmp/w"
t0=$(now)
python3 "$seeddir/gen.py" --seed "$seed" --customers "$customers" --rows "$rows" \
  --queries "$queries" --txns "$txns" --out "$tmp/w"
t1=$(now)
echo "  generated in $(secs "$t0" "$t1") s ($(du -sh "$tmp/w" | cut -f1))"

echo "python3 score_seed.py --shards $shards --time ..."
t0=$(now)
python3 "$seeddir/score_seed.py" --shards "$shards" --time "$tmp/w" >"$tmp/python.json" 2>"$tmp/python.time"
t1=$(now)
py_wall=$(secs "$t0" "$t1")
sed 's/^/  /' "$tmp/python.time"
echo "  wall (process): $py_wall s"

# median_wall OUT ARGS...: runs shardkey ARGS $runs times (output to OUT,
# errors to OUT.err), prints each wall time, and sets $median; it returns 1
# when a run fails.
median_wall() {
  local out=$1 times=() i t0 t1
  shift
  median=""
  for i in $(seq "$runs"); do
    t0=$(now)
    "$tmp/shardkey" "$@" >"$out" 2>"$out.err" || return 1
    t1=$(now)
    times+=("$(secs "$t0" "$t1")")
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "  wall (process), $runs runs: ${times[*]} s; median $median s"
}

go_wall=""
generic_wall=""
status=0
if ! (cd "$top" && go build -o "$tmp/shardkey" ./cmd/shardkey) >"$tmp/build.log" 2>&1; then
  echo "shardkey: cannot build ./cmd/shardkey (it may not exist yet); Go side skipped:"
  head -n 5 "$tmp/build.log" | sed 's/^/  /'
else
  echo "shardkey score --engine blake2b --shards $shards -k ... --format json"
  if median_wall "$tmp/go.json" score --rows "$tmp/w/rows.csv" --queries "$tmp/w/queries.jsonl" \
      --txns "$tmp/w/txns.jsonl" --engine blake2b --shards "$shards" \
      -k 'hash(customer_id)' -k 'hash(order_id)' -k 'hash(customer_id, order_month)' \
      --format json; then
    go_wall=$median
    # Compare the four numbers of each candidate, exactly. Candidates may be
    # an object keyed by expression or a list of objects with "key".
    if python3 - "$tmp/python.json" "$tmp/go.json" <<'PY'
import json, sys
want = json.load(open(sys.argv[1]))["candidates"]
got = json.load(open(sys.argv[2]))
cands = got.get("candidates", got) if isinstance(got, dict) else got
if isinstance(cands, list):
    cands = {c.get("key", ""): c for c in cands}
norm = lambda k: "".join(str(k).split())
cands = {norm(k): v for k, v in cands.items()}
bad = 0
for name, fields in want.items():
    c = cands.get(norm(name))
    if c is None:
        print("  %s: missing from shardkey output" % name); bad += 1; continue
    for f, w in fields.items():
        g = c.get(f)
        if g != w:
            print("  %s %s: shardkey %r, seed %r" % (name, f, g, w)); bad += 1
print("  numbers: %s" % ("identical to the seed's" if not bad else "%d MISMATCHES" % bad))
sys.exit(1 if bad else 0)
PY
    then :; else status=1; fi
  else
    rc=$?
    echo "shardkey score failed (exit $rc; the score command may not exist yet); Go side skipped:"
    head -n 5 "$tmp/go.json.err" | sed 's/^/  /'
  fi
  # The same score with shardkey's default engine (xxhash64): different
  # hash, so different numbers; timed for the side-by-side figure.
  echo "shardkey score --engine generic --shards $shards -k ... --format json"
  if median_wall "$tmp/go-generic.json" score --rows "$tmp/w/rows.csv" --queries "$tmp/w/queries.jsonl" \
      --txns "$tmp/w/txns.jsonl" --engine generic --shards "$shards" \
      -k 'hash(customer_id)' -k 'hash(order_id)' -k 'hash(customer_id, order_month)' \
      --format json; then
    generic_wall=$median
  fi
fi

echo
echo "summary ($rows rows, $queries queries, $txns txns, M=$shards)"
grep -E '^(load|score total):' "$tmp/python.time" | sed 's/^/  python /'
echo "  python wall: $py_wall s"
if [ -n "$go_wall" ]; then
  echo "  shardkey wall (blake2b, the seed's hash), median of $runs: $go_wall s"
  awk -v p="$py_wall" -v g="$go_wall" 'BEGIN { if (g > 0) printf "  speed-up: %.1fx\n", p / g }'
  if [ -n "$generic_wall" ]; then
    echo "  shardkey wall (generic, the default engine), median of $runs: $generic_wall s"
    awk -v p="$py_wall" -v g="$generic_wall" 'BEGIN { if (g > 0) printf "  speed-up: %.1fx\n", p / g }'
  fi
else
  echo "  shardkey: not run (see above)"
fi
exit $status
