#!/usr/bin/env python3
"""Generate an orders-like workload in seed 000's simulator input formats.

Writes three files into --out:

  rows.csv       header customer_id,order_id,order_month,weight; one row per
                 order; weight is the row's share of requests (they sum to ~1),
                 written with repr() so a float64 parser reads the exact value.
  queries.jsonl  {"where": {...}} with equality values only, mixed as
                   60% {customer_id}               a customer's recent orders
                   25% {order_id}                  fetch an order by id
                    5% {customer_id, order_month}  a customer's orders in a month
                   10% {order_month}               the nightly report
  txns.jsonl     {"writes": [{customer_id, order_id, order_month}, ...]}:
                   75% one new order + 1-5 line items (same customer/order/month)
                   10% two orders of one customer in the same month
                    5% two orders of one customer in two different months
                   10% orders of two different customers
                 so the cross-shard fraction differs between
                 hash(customer_id) (~10%), hash(customer_id, order_month) (~15%)
                 and hash(order_id) (~25%), each times (M-1)/M.

Customer activity is Zipf-like: rank r has weight 1/r^s with s chosen so the
busiest customer gets --top-share of the traffic (3% by default, as in the
seed's worked example); customer ids are random, so the busiest one is not 1.
Rows, queries and transactions draw customers from the same distribution, and
queries that name an order or (customer, month) take it from an existing row.

Everything comes from one random.Random(seed); the same arguments and Python
version give byte-identical files. Standard library only.
"""
import argparse
import bisect
import json
import os
import random


def zipf_exponent(n, top_share):
    """Exponent s such that 1 / sum_{r=1..n} r^-s == top_share (0 if impossible)."""
    if n <= 1 or top_share <= 1.0 / n:
        return 0.0

    def share(s):
        return 1.0 / sum(r ** -s for r in range(1, n + 1))

    lo, hi = 0.0, 8.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if share(mid) < top_share:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def months(first_year, count):
    return ["%04d-%02d" % (first_year + i // 12, i % 12 + 1) for i in range(count)]


class IDs:
    """Increasing order ids: small sequential ones, or 64-bit snowflake-style ones
    (milliseconds << 22 | 22 random bits, all above 2**53) to catch readers that
    turn JSON integers into float64."""

    def __init__(self, rng, big):
        self.rng, self.big = rng, big
        self.last = 1_700_000_000_000 if big else 100_000

    def next(self):
        self.last += self.rng.randint(1, 3)
        if self.big:
            return (self.last << 22) | self.rng.getrandbits(22)
        return self.last


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--customers", type=int, default=1000)
    ap.add_argument("--rows", type=int, default=3000)
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--txns", type=int, default=500)
    ap.add_argument("--months", type=int, default=24, help="months from 2023-01")
    ap.add_argument("--top-share", type=float, default=0.03,
                    help="traffic share of the busiest customer")
    ap.add_argument("--string-ids", action="store_true",
                    help='customer ids as strings like "c00042"')
    ap.add_argument("--big-ids", action="store_true",
                    help="64-bit snowflake-style order ids (> 2**53)")
    ap.add_argument("--out", required=True, help="output directory")
    a = ap.parse_args()
    if min(a.customers, a.rows, a.queries, a.txns, a.months) < 1:
        ap.error("counts must be positive")
    if a.customers < 2:
        ap.error("--customers must be at least 2 (some transactions touch two customers)")
    if a.months < 2:
        ap.error("--months must be at least 2")

    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)

    # Customers: random distinct ids, Zipf weights by rank.
    nums = rng.sample(range(1, 10 * a.customers + 1), a.customers)
    custs = ["c%05d" % n for n in nums] if a.string_ids else nums
    s = zipf_exponent(a.customers, a.top_share)
    cust_cum, t = [], 0.0
    for r in range(1, a.customers + 1):
        t += r ** -s
        cust_cum.append(t)
    cust_total = t

    def customer():
        return custs[bisect.bisect(cust_cum, rng.random() * cust_total, 0, a.customers - 1)]

    mon = months(2023, a.months)
    # Later months are busier (linear growth), rows come in order-id order.
    mon_cum, t = [], 0.0
    for i in range(a.months):
        t += 1.0 + i / a.months
        mon_cum.append(t)
    mon_total = t

    def month_index():
        return bisect.bisect(mon_cum, rng.random() * mon_total, 0, a.months - 1)

    ids = IDs(rng, a.big_ids)

    # Rows: one per order. Weight = customer's draw times per-order noise,
    # normalised to shares of all requests.
    drawn = [(month_index(), customer()) for _ in range(a.rows)]
    drawn.sort(key=lambda mc: mc[0])  # stable: order ids increase with the month
    raw = [rng.lognormvariate(0.0, 0.5) for _ in range(a.rows)]
    total = sum(raw)
    rows = [(c, ids.next(), mon[m], w / total) for (m, c), w in zip(drawn, raw)]
    with open(os.path.join(a.out, "rows.csv"), "w", newline="") as f:
        f.write("customer_id,order_id,order_month,weight\n")
        for c, o, m, w in rows:
            f.write("%s,%d,%s,%r\n" % (c, o, m, w))

    row_cum, t = [], 0.0
    for r in rows:
        t += r[3]
        row_cum.append(t)

    def row():
        return rows[bisect.bisect(row_cum, rng.random() * t, 0, a.rows - 1)]

    with open(os.path.join(a.out, "queries.jsonl"), "w") as f:
        for _ in range(a.queries):
            u = rng.random()
            if u < 0.60:
                where = {"customer_id": customer()}
            elif u < 0.85:
                where = {"order_id": row()[1]}
            elif u < 0.90:
                c, _, m, _ = row()
                where = {"customer_id": c, "order_month": m}
            else:
                where = {"order_month": mon[rng.randrange(a.months)]}
            f.write(json.dumps({"where": where}) + "\n")

    def order(c, m):
        o = ids.next()
        w = {"customer_id": c, "order_id": o, "order_month": m}
        return [w] + [dict(w) for _ in range(rng.randint(1, 5))]  # order + line items

    with open(os.path.join(a.out, "txns.jsonl"), "w") as f:
        for _ in range(a.txns):
            u = rng.random()
            c = customer()
            m = month_index()
            if u < 0.75:
                writes = order(c, mon[m])
            elif u < 0.85:
                writes = order(c, mon[m]) + order(c, mon[m])
            elif u < 0.90:
                m2 = (m + rng.randrange(1, a.months)) % a.months
                writes = order(c, mon[m]) + order(c, mon[m2])
            else:
                c2 = customer()
                while c2 == c:
                    c2 = customer()
                writes = order(c, mon[m]) + order(c2, mon[month_index()])
            f.write(json.dumps({"writes": writes}) + "\n")


if __name__ == "__main__":
    main()
