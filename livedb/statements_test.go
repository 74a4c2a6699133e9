package livedb

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

func TestParseShape(t *testing.T) {
	check := func(q, want string) {
		t.Helper()
		sh, err := parseShape(q)
		var got string
		switch {
		case errors.Is(err, errNotData):
			got = "skip"
		case errors.Is(err, errTooHairy):
			got = "hairy"
		case err != nil:
			got = "error: " + err.Error()
		default:
			var parts []string
			for _, c := range sh.conds {
				var vs []string
				for _, v := range c.vals {
					if v.param {
						vs = append(vs, "?")
					} else {
						vs = append(vs, v.lit)
					}
				}
				switch c.op {
				case shardkey.Eq:
					parts = append(parts, c.col+"="+vs[0])
				case shardkey.In:
					parts = append(parts, c.col+" in "+strings.Join(vs, ","))
				case shardkey.Range:
					lo, hi := "", ""
					if c.lo != nil {
						lo = c.lo.lit
					}
					if c.hi != nil {
						hi = c.hi.lit
					}
					parts = append(parts, fmt.Sprintf("%s in [%s,%s]", c.col, lo, hi))
				}
			}
			got = fmt.Sprintf("%s %s: %s", sh.kind, sh.table, strings.Join(parts, " & "))
		}
		if got != want {
			t.Errorf("parseShape(%q) = %q; want %q", q, got, want)
		}
	}
	// pgbench's TPC-B-like script, as pg_stat_statements normalises it.
	check("UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2", "update pgbench_accounts: aid=?")
	check("SELECT abalance FROM pgbench_accounts WHERE aid = $1", "read pgbench_accounts: aid=?")
	check("INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)",
		"insert pgbench_history: tid=? & bid=? & aid=? & delta=?")
	// sysbench oltp_read_write, as MySQL digests print it.
	check("SELECT `c` FROM `sbtest1` WHERE `id` = ?", "read sbtest1: id=?")
	check("SELECT `c` FROM `sbtest1` WHERE `id` BETWEEN ? AND ? ORDER BY `c`", "read sbtest1: ")
	check("SELECT SUM ( `k` ) FROM `sbtest1` WHERE `id` BETWEEN ? AND ?", "read sbtest1: ")
	check("DELETE FROM `sbtest1` WHERE `id` = ?", "delete sbtest1: id=?")
	check("UPDATE sbtest1 SET k=k+1 WHERE id=$1", "update sbtest1: id=?")
	// TPC-C shapes.
	check("SELECT c_discount, c_last FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3 FOR UPDATE",
		"read customer: c_w_id=? & c_d_id=? & c_id=?")
	check("SELECT i_price FROM item WHERE i_id IN ($1, $2, $3)", "read item: i_id in ?,?,?")
	check("SELECT * FROM t WHERE a = 1 AND b BETWEEN 2 AND 5", "read t: a=1 & b in [2,5]")
	check("SELECT * FROM t WHERE a = $1 OR b = $2", "read t: ")
	check("SELECT * FROM t WHERE a = $1 + 1 AND b = $2", "read t: b=?")
	check("SELECT * FROM t x WHERE x.a = $1::int8", "read t: a=?")
	check("SELECT * FROM a JOIN b ON a.id = b.id WHERE a.id = $1", "hairy")
	check("SELECT * FROM a, b WHERE a.id = b.id", "hairy")
	check("SELECT * FROM a WHERE id IN (SELECT id FROM b)", "hairy")
	check("BEGIN", "skip")
	check("SELECT now()", "skip")
	check(`SELECT "Name" FROM public."Users" WHERE "Id" = $1`, "read Users: Id=?")
}

func TestAddStatement(t *testing.T) {
	w := &shardkey.Workload{}
	tab := &shardkey.Table{Name: "accounts"}
	id := &shardkey.Column{Name: "aid", Type: shardkey.Int32}
	for i := 0; i < 10; i++ {
		if err := id.Append(shardkey.Value{Type: shardkey.Int32, Int: int64(100 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	tab.Columns, tab.Rows = []*shardkey.Column{id}, 10
	w.Tables = []*shardkey.Table{tab}
	rng := newRand(1)
	if err := addStatement(w, statement{Text: "SELECT abalance FROM accounts WHERE aid = $1", Calls: 600}, 60, rng); err != nil {
		t.Fatal(err)
	}
	if err := addStatement(w, statement{Text: "SELECT * FROM pg_class WHERE oid = $1", Calls: 5}, 60, rng); err != nil {
		t.Fatal(err)
	}
	if len(w.Ops) != 1 {
		t.Fatalf("%d operations; want 1 (pg_class is not in the sample)", len(w.Ops))
	}
	op := w.Ops[0]
	if op.Rate != 10 || op.Kind != shardkey.Read || len(op.Instances) != instancesPerStatement {
		t.Errorf("op = rate %v kind %v %d instances; want rate 10, read, %d", op.Rate, op.Kind, len(op.Instances), instancesPerStatement)
	}
	for _, in := range op.Instances {
		if v := in.Conds[0].Val; v.Int < 100 || v.Int >= 110 {
			t.Fatalf("instance binds aid = %v; want a sampled value", v)
		}
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
}
