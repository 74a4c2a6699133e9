#!/usr/bin/env python3
"""Score seed 000's candidate keys on a workload with the seed's own code.

usage: score_seed.py [--shards M] [--time] DIR

Reads DIR/rows.csv, DIR/queries.jsonl and DIR/txns.jsonl (see gen.py) and
prints {"M": M, "candidates": {name: {"load_ratio", "fanout_mean",
"fanout_p99", "cross_shard_txn_fraction"}}} as JSON; floats are printed by
json.dumps, i.e. as repr(), full precision. --time prints the seconds spent
loading and scoring each candidate to stderr.

The block between the BEGIN/END markers is copied VERBATIM from seed document
000 (shared/seeds/000_e015e366a4844650.txt, "Scoring candidate keys with a
simulator"); do not edit it. The only adaptation is outside it: M is made a
parameter by assigning the module global M before scoring, which h() and
shards_for() read at call time. The seed's "cross_shard_txn" is reported as
"cross_shard_txn_fraction", the name shardkey's JSON uses (PRODUCT.md).
"""
# ---- BEGIN verbatim from seed 000 ----
import hashlib, statistics
from collections import Counter

M = 64                                   # logical shards

def h(*parts):
    d = hashlib.blake2b("|".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(d, "big") % M

def shards_for(query, key_fields, route):
    """Shards a query must visit: one if it binds every key field, else all."""
    if all(f in query["where"] for f in key_fields):
        return {route(*[query["where"][f] for f in key_fields])}
    return set(range(M))

def score(candidate, rows, queries, txns):
    fields, route = candidate["fields"], candidate["route"]
    load = Counter()
    for r in rows:                       # row weight = expected request share
        load[route(*[r[f] for f in fields])] += r["weight"]
    loads = [load[s] for s in range(M)]
    fanout = sorted(len(shards_for(q, fields, route)) for q in queries)
    cross = sum(1 for t in txns
                if len({route(*[w[f] for f in fields]) for w in t["writes"]}) > 1)
    return {
        "load_ratio": max(loads) / statistics.mean(loads),
        "fanout_mean": statistics.mean(fanout),
        "fanout_p99": fanout[int(0.99 * (len(fanout) - 1))],
        "cross_shard_txn": cross / len(txns),
    }

CANDIDATES = {
    "hash(customer_id)": {"fields": ["customer_id"], "route": lambda c: h(c)},
    "hash(order_id)":    {"fields": ["order_id"],    "route": lambda o: h(o)},
    "hash(customer_id, order_month)": {"fields": ["customer_id", "order_month"],
                                       "route": lambda c, m: h(c, m)},
}
# ---- END verbatim from seed 000 ----

import argparse
import csv
import json
import os
import re
import sys
import time

_INT = re.compile(r"-?[0-9]+")


def _id(v):
    """An id column: int if it is a plain decimal integer, else the string."""
    return int(v) if _INT.fullmatch(v) else v


def load(d):
    rows = []
    with open(os.path.join(d, "rows.csv"), newline="") as f:
        for r in csv.DictReader(f):
            rows.append({"customer_id": _id(r["customer_id"]),
                         "order_id": _id(r["order_id"]),
                         "order_month": r["order_month"],
                         "weight": float(r["weight"])})
    with open(os.path.join(d, "queries.jsonl")) as f:
        queries = [json.loads(line) for line in f if line.strip()]
    with open(os.path.join(d, "txns.jsonl")) as f:
        txns = [json.loads(line) for line in f if line.strip()]
    return rows, queries, txns


def main():
    global M
    ap = argparse.ArgumentParser(description="Score seed 000's candidates with the seed's code.")
    ap.add_argument("--shards", "-M", type=int, default=64, help="number of shards M")
    ap.add_argument("--time", action="store_true", help="print timings to stderr")
    ap.add_argument("dir", help="directory with rows.csv, queries.jsonl, txns.jsonl")
    a = ap.parse_args()
    if a.shards < 1:
        ap.error("--shards must be positive")
    M = a.shards

    t0 = time.perf_counter()
    rows, queries, txns = load(a.dir)
    t1 = time.perf_counter()
    if a.time:
        print("load: %.3f s (%d rows, %d queries, %d txns)"
              % (t1 - t0, len(rows), len(queries), len(txns)), file=sys.stderr)

    out = {}
    for name, cand in CANDIDATES.items():
        s0 = time.perf_counter()
        r = score(cand, rows, queries, txns)
        s1 = time.perf_counter()
        if a.time:
            print("score %s: %.3f s" % (name, s1 - s0), file=sys.stderr)
        out[name] = {"load_ratio": r["load_ratio"],
                     "fanout_mean": r["fanout_mean"],
                     "fanout_p99": r["fanout_p99"],
                     "cross_shard_txn_fraction": r["cross_shard_txn"]}
    t2 = time.perf_counter()
    if a.time:
        print("score total: %.3f s" % (t2 - t1), file=sys.stderr)
    print(json.dumps({"M": M, "candidates": out}, indent=2))


if __name__ == "__main__":
    main()
