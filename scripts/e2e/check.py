#!/usr/bin/env python3
"""Analytic expectations and checks for scripts/e2e.sh.

Each subcommand reads `shardkey score --format json` output (or reports the
check as PENDING when the file is missing), prints measured next to
expected, and exits 1 when a check fails.
"""
import json
import math
import sys
from collections import Counter

FAILED = []
PENDING = []


def report(name, measured, expected, tol, unit="%"):
    if measured is None:
        PENDING.append(name)
        print(f"  PENDING {name}: expected {expected:.2f}{unit}; not measured")
        return
    ok = abs(measured - expected) <= tol
    if not ok:
        FAILED.append(name)
    print(f"  {'ok  ' if ok else 'FAIL'} {name}: measured {measured:.2f}{unit}, expected {expected:.2f}{unit} (tolerance {tol}{unit[:1] if unit == '%' else ''} points)")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def cand(doc, i=0):
    if doc is None:
        return None
    return doc["candidates"][i]


def pct(doc, i=0):
    c = cand(doc, i)
    if c is None or not c.get("transactions"):
        return None
    return 100 * c["cross_shard_txn_fraction"]


def binom_tol(doc, expected_pct, floor):
    """The tolerance of a measured share over the transactions scored: at
    least floor points, and four binomial standard errors of the expected
    share p over n transactions, 100 * 4 * sqrt(p (1 - p) / n), so that a
    short run of a random client (go-tpc draws its remote payments) fails
    only when the share is off, about 6 runs in 100,000 by chance."""
    c = cand(doc)
    if c is None or not c.get("transactions"):
        return floor
    p = expected_pct / 100
    return round(max(floor, 100 * 4 * math.sqrt(p * (1 - p) / c["transactions"])), 2)


def mean_over_k(f, lo=5, hi=15):
    ks = range(lo, hi + 1)
    return sum(f(k) for k in ks) / len(ks)


def tpcc(args):
    """tpcc W N design.json items.json"""
    W, N = int(args[0]), int(args[1])
    q = (W - W / N) / (W - 1) if W > 1 else 0.0
    # The TPC-C specification: each of NewOrder's k = 5..15 lines is supplied
    # by a remote warehouse with probability 1%, whose stock row is updated;
    # Payment pays a remote customer 15% of the time.
    spec_no = 1 - mean_over_k(lambda k: (1 - 0.01 * q) ** k)
    spec = 0.45 * spec_no + 0.43 * 0.15 * q
    # go-tpc v1.0.7 (tpcc/new_order.go): the remote supply warehouse is drawn
    # (1% per line, otherWarehouse), but only written into
    # order_line.ol_supply_w_id; the stock SELECT and UPDATE use the home
    # warehouse (s_w_id = d.wID). So its NewOrder never leaves the home
    # warehouse. Payment (payment.go) is as specified: 15% remote customer.
    # Mix (workload.go): new_order 45, payment 43, order_status 4,
    # delivery 4, stock_level 4. 1% of NewOrders roll back after reading
    # items, before touching stock.
    gotpc_no = 0.0
    gotpc = 0.45 * gotpc_no + 0.43 * 0.15 * q
    print(f"TPC-C, {W} warehouses on {N} shards (range on warehouse id; item replicated); q = (W - W/N)/(W - 1) = {q:.4f}")
    print(f"  TPC-C specification: NewOrder {100*spec_no:.2f}%, Payment {100*0.15*q:.2f}%, all {100*spec:.2f}%")
    print(f"  go-tpc v1.0.7 as written: its NewOrder updates the home warehouse's stock even for a remote supply line")
    print(f"    (new_order.go: 'UPDATE stock ... WHERE s_i_id = ? AND s_w_id = ?' with d.wID), so NewOrder 0%,")
    print(f"    Payment {100*0.15*q:.2f}%, all 0.43 x 0.15 q = {100*gotpc:.2f}%")
    wd = load(args[2])
    report("TPC-C cross-shard transactions, warehouse design (go-tpc)", pct(wd), 100 * gotpc, binom_tol(wd, 100 * gotpc, 1.5))
    # Stock and order_line by item id (hash): a NewOrder stays on one shard
    # only if all its k items hash to the home shard; Delivery, OrderStatus
    # and StockLevel read order_line by order, not item: scatter.
    item_no = 0.99 * (1 - mean_over_k(lambda k: (1 / N) ** k))
    item = 0.45 * item_no + 0.43 * 0.15 * q + 0.04 + 0.04 + 0.04
    print(f"  stock and order_line by hash(item id): NewOrder {100*item_no:.2f}% (99% that reach stock,"
          f" 1 - E[(1/N)^k]), Payment {100*0.15*q:.2f}%, Delivery, OrderStatus and StockLevel scatter: all {100*item:.2f}%")
    idoc = load(args[3])
    report("TPC-C cross-shard transactions, item design (go-tpc)", pct(idoc), 100 * item, binom_tol(idoc, 100 * item, 3.0))


def pgbench(args):
    """pgbench N scale aid.json tid.json bid.json score.json"""
    N, scale = int(args[0]), int(args[1])
    dist = []
    for paths in args[2:5]:
        c = Counter()
        for path in paths.split(","):
            c.update(p["shard"] for p in load(path))
        total = sum(c.values())
        dist.append([c[s] / total for s in range(N)])
    pa, pt, pb = dist
    single = sum(pa[s] * pt[s] * pb[s] for s in range(N))
    print(f"pgbench TPC-B-like, scale {scale}, {N} shards, design accounts:hash(aid) tellers:hash(tid) branches:hash(bid) history:hash(aid)")
    print(f"  its script draws aid in 1..{100000*scale}, tid in 1..{10*scale}, bid in 1..{scale} independently, so a")
    print(f"  transaction is single-shard iff the three land together: P = sum_s pa(s) pt(s) pb(s)")
    print("  pa = " + " ".join(f"{x:.4f}" for x in pa) + ";  pt = " + " ".join(f"{x:.3f}" for x in pt) + ";  pb = " + " ".join(f"{x:.2f}" for x in pb))
    print(f"  expected cross-shard = 1 - {single:.4f} = {100*(1-single):.2f}% (uniform hashing would give 1 - 1/N^2 = {100*(1-1/N**2):.2f}%)")
    report("pgbench cross-shard transactions", pct(load(args[5])), 100 * (1 - single), 2.0)


def ops(args):
    """ops NAME N score.json: point statements on id single-shard, BETWEEN ranges scatter"""
    name, N, doc = args[0], int(args[1]), load(args[2])
    c = cand(doc)
    if c is None:
        PENDING.append(name)
        print(f"  PENDING {name}: no score")
        return
    print(f"{name}: per statement under {c['key']} on {N} shards (fan-out mean; expected)")
    seen = 0
    for op in sorted(c["operations"], key=lambda o: o["name"]):
        text = op["name"].lower()
        if "sbtest" not in text and "pgbench" not in text:
            continue
        if " between " in text or " in range" in text:
            want, why = N, "range on id: scatter under hash"
        elif "where" in text and (" = " in text or "=$" in text) or text.startswith("insert"):
            want, why = 1, "equality on the key: one shard"
        else:
            continue
        seen += 1
        got = op["fanout_mean"]
        ok = abs(got - want) < 1e-9
        if not ok:
            FAILED.append(f"{name}: {op['name']}")
        print(f"  {'ok  ' if ok else 'FAIL'} {got:5.2f} (want {want}, {why})  {op['name'][:90]}")
    if seen == 0:
        FAILED.append(f"{name}: no statements")
        print(f"  FAIL no statements found")
    if c.get("transactions"):
        print(f"  cross-shard transactions: {100*c['cross_shard_txn_fraction']:.2f}% (10 point reads on random ids plus 4 scattering ranges per transaction: expected ~100%)")


def advise(args):
    """advise on the TPC-C log finds the warehouse design untold: every
    warehouse-rooted table keyed by its warehouse-id column, item a
    reference table."""
    doc = load(args[0])
    rec = doc["recommended"]
    parts = {}
    for p in rec.split(";"):
        if ":" in p:
            t, e = p.split(":", 1)
            parts[t.strip()] = e.strip()
    want = {"warehouse": "w_id", "district": "d_w_id", "customer": "c_w_id", "orders": "o_w_id",
            "new_order": "no_w_id", "order_line": "ol_w_id", "stock": "s_w_id"}
    print(f"advise on the TPC-C log (no key given): {rec}")
    ok = parts.get("item") == "replicate"
    for t, col in want.items():
        e = parts.get(t, "")
        ok = ok and e in (f"hash({col})", f"range({col})")
    print(f"  {'ok  ' if ok else 'FAIL'} the warehouse design, item replicated")
    if not ok:
        FAILED.append("advise: warehouse design")


def main():
    i = 1
    while i < len(sys.argv):
        cmd = sys.argv[i]
        j = i + 1
        while j < len(sys.argv) and sys.argv[j] != "--":
            j += 1
        {"tpcc": tpcc, "pgbench": pgbench, "ops": ops, "advise": advise}[cmd](sys.argv[i + 1:j])
        i = j + 1
    if FAILED:
        print(f"FAILED: {len(FAILED)} check(s): " + "; ".join(FAILED))
        sys.exit(1)
    if PENDING:
        print(f"PENDING: {len(PENDING)} check(s) not measured: " + "; ".join(PENDING))
        sys.exit(3)


if __name__ == "__main__":
    main()
