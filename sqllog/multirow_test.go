package sqllog

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestMultiRowInsertOneRequest: INSERT ... VALUES with several rows is
// one statement, one request: its first row counts it, with the other
// rows as its parts (Kind Insert) and riders (shardkey.Instance.Parts,
// Rider), as a join's other reads ride in its first read's request. The
// operation's rate stays its rows' (each row's value counted), and the
// sampled first rows weigh exactly the statements' rate, the riders the
// other rows' (not the sample's mix): 1,000 statements of 1, 2, 3, 4
// rows in turn over 9.991 s, sampled 64 a shape, are 1000/9.991
// requests/s and 1500/9.991 rider rows/s.
func TestMultiRowInsertOneRequest(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		var rows []string
		for r := range 1 + i%4 {
			rows = append(rows, fmt.Sprintf("(%d, %d)", 10*i+r, i%7))
		}
		fmt.Fprintf(&b, "2024-03-01 10:00:%02d.%03d UTC [%d] app@db LOG:  statement: INSERT INTO t (id, grp) VALUES %s\n", i/100, i%100*10, 100+i%5, strings.Join(rows, ", "))
	}
	w := &shardkey.Workload{}
	if err := Read(context.Background(), w, strings.NewReader(b.String()), "x.log", Options{Format: "stderr", Sample: 64}); err != nil {
		t.Fatal(err)
	}
	if len(w.Ops) != 1 {
		t.Fatalf("%d operations, want 1", len(w.Ops))
	}
	op := w.Ops[0]
	span := 9.991
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s = %.9f; want %.9f", what, got, want)
		}
	}
	near("rows/s (the operation's rate)", op.Rate, 2500/span)
	var lead, rider float64
	for _, in := range op.Instances {
		if in.Rider {
			rider += in.Weight
			if len(in.Parts) > 0 {
				t.Errorf("a rider has parts: %+v", in)
			}
			continue
		}
		lead += in.Weight
		for _, p := range in.Parts {
			if p.Kind != shardkey.Insert || p.Table != op.Table || len(p.Conds) != 2 {
				t.Errorf("a part is not another row of t: %+v", p)
			}
		}
	}
	near("statements/s (the first rows' weight)", lead, 1000/span)
	near("rows after the first/s (the riders' weight)", rider, 1500/span)
	// An autocommit INSERT is a transaction of its own, of all its rows.
	var txns float64
	for _, tx := range w.Txns {
		txns += tx.Weight
	}
	near("transactions/s", txns, 1000/span)
}

// TestMultiRowInsertFewStatements: 20 INSERTs of 2,000 rows offer 20
// first rows among 40,000 instances; one reservoir of 64 kept none of
// them in most seeds, and the statements' requests were 0 (the
// fresh-clone review: 20 INSERTs of 10,000 rows, "insert t 0
// requests/s", fan-out 1.00). The riders are sampled apart, so the
// first rows weigh the 20 statements, whatever the seed.
func TestMultiRowInsertFewStatements(t *testing.T) {
	var b strings.Builder
	for i := range 20 {
		var rows []string
		for r := range 2000 {
			rows = append(rows, fmt.Sprintf("(%d, %d)", 2000*i+r, r%7))
		}
		fmt.Fprintf(&b, "2024-03-01 10:00:%02d.000 UTC [%d] app@db LOG:  statement: INSERT INTO t (id, grp) VALUES %s\n", i, 100+i%5, strings.Join(rows, ", "))
	}
	for seed := int64(1); seed <= 5; seed++ {
		w := &shardkey.Workload{}
		if err := Read(context.Background(), w, strings.NewReader(b.String()), "x.log", Options{Format: "stderr", Sample: 64, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		var lead, rider float64
		parts := 0
		for _, in := range w.Ops[0].Instances {
			if in.Rider {
				rider += in.Weight
				continue
			}
			lead += in.Weight
			parts = max(parts, len(in.Parts))
		}
		span := 19.001
		if math.Abs(lead-20/span) > 1e-9 || math.Abs(rider-39980/span) > 1e-6 {
			t.Errorf("seed %d: first rows %.6f/s, riders %.6f/s; want %.6f and %.6f", seed, lead, rider, 20/span, 39980/span)
		}
		if parts != 1999 {
			t.Errorf("seed %d: a first row kept with %d parts, want 1999", seed, parts)
		}
	}
}

// TestMultiRowInsertInTransaction: BEGIN; INSERT ... VALUES of 1,000
// rows; SELECT; COMMIT is one transaction of two requests. Its rows
// counted one statement each passed the 1,000 statements an open
// transaction holds (maxTxnStmts), and each transaction was cut in two,
// halving its cross-shard share (the fresh-clone review: 3 transactions
// read as 6, x = 0.5). Its transaction keeps 17 rows, the first and 16
// spaced to the last, so a bulk load sorted by its key still spans its
// range from first row to last.
func TestMultiRowInsertInTransaction(t *testing.T) {
	var b strings.Builder
	for i := range 3 {
		pid := 100 + i
		line := func(ms int, sql string) {
			fmt.Fprintf(&b, "2024-03-01 10:00:0%d.%03d UTC [%d] app@db LOG:  statement: %s\n", i, ms, pid, sql)
		}
		line(0, "BEGIN")
		var rows []string
		for r := range 1000 {
			rows = append(rows, fmt.Sprintf("(%d, 1)", 1000*i+r))
		}
		line(1, "INSERT INTO t (id, v) VALUES "+strings.Join(rows, ", "))
		line(2, "SELECT v FROM t WHERE id = 1")
		line(3, "COMMIT")
	}
	w := &shardkey.Workload{}
	if err := Read(context.Background(), w, strings.NewReader(b.String()), "x.log", Options{Format: "stderr"}); err != nil {
		t.Fatal(err)
	}
	for _, wn := range w.Warnings {
		if strings.Contains(wn.Error(), "without COMMIT") {
			t.Errorf("warned: %v", wn)
		}
	}
	if len(w.Txns) != 3 {
		t.Fatalf("%d transactions, want 3", len(w.Txns))
	}
	for _, tx := range w.Txns {
		var ids []int64
		for _, st := range tx.Stmts {
			if st.Kind == shardkey.Insert {
				ids = append(ids, st.Conds[0].Val.Int)
			}
		}
		if len(ids) != 17 || ids[16]-ids[0] != 999 {
			t.Errorf("transaction %s: its INSERT's rows %v; want 17, the first and the last among them", tx.Name, ids)
		}
	}
}
