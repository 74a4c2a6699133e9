package advisor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// warehouses is a table of rows warehouses, w_id 1..rows, each with a
// d_id column (1), read by w_id; unique says how w_id is declared unique:
// "pk" (the catalog's primary key), "uk" (a declared unique key), "gen"
// (a generator's, Table.Unique), "pk2" (a two-column primary key (w_id,
// d_id), which w_id alone does not hold), "" (not at all).
func warehouses(rows int, unique string) *shardkey.Workload {
	t := &shardkey.Table{Name: "warehouse", Rows: rows, Columns: []*shardkey.Column{{Name: "w_id", Type: shardkey.Int64}, {Name: "d_id", Type: shardkey.Int64}}}
	op := &shardkey.Operation{Name: "a warehouse", Table: 0, Kind: shardkey.Read, Rate: 10}
	for r := 1; r <= rows; r++ {
		t.Columns[0].Ints = append(t.Columns[0].Ints, int64(r))
		t.Columns[1].Ints = append(t.Columns[1].Ints, 1)
		op.Instances = append(op.Instances, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(int64(r))}}})
	}
	w := &shardkey.Workload{Tables: []*shardkey.Table{t}, Ops: []*shardkey.Operation{op}, Shards: 8}
	info := &shardkey.TableInfo{Name: "warehouse", SampleRows: rows}
	switch unique {
	case "pk":
		info.PrimaryKey = []string{"w_id"}
	case "uk":
		info.PrimaryKey = []string{"d_id", "w_id"}
		info.UniqueKeys = [][]string{{"w_id"}}
	case "pkdup":
		// Declared unique, but the sample holds w_id 1 twice (a stale
		// declaration): 2/rows is more than one row's share.
		info.PrimaryKey = []string{"w_id"}
		t.Columns[0].Ints[1] = 1
	case "pk2":
		info.PrimaryKey = []string{"w_id", "d_id"}
	case "gen":
		t.Unique = map[string]bool{"w_id": true}
	}
	if info.PrimaryKey != nil {
		w.Catalog = &shardkey.Catalog{Tables: []*shardkey.TableInfo{info}}
	}
	return w
}

// TestUniqueKeyBounded: a table keyed by its unique key holds each key
// value in exactly one row, so a value's share of its N rows is 1/N, and
// N is at least the n distinct values sampled: at most 1/n, with no
// sampling uncertainty. On 8 shards the whale threshold is 1.5/8 =
// 18.75%: 8 sampled warehouses bound the share at 1/8 = 12.5% and 6 at
// 1/6 = 16.7% (bounded, the figure the top value's 1/n); 5 only at 1/5 =
// 20% (over it: still unknown); 40 at 1/40, which the sample bounds by
// itself, so no reason argues it. Without the declaration, or with w_id
// only part of a two-column key, or with a sample that holds one w_id
// twice (2/8 = 25%, more than one row's share), 8 rows give the Wilson interval of 1/8
// of 8 rows, about 0.7% to 53%: unknown, as before.
func TestUniqueKeyBounded(t *testing.T) {
	for _, c := range []struct {
		rows    int
		unique  string
		bounded bool
		bound   string // 1/n as the reason prints it
	}{
		{8, "pk", true, "1/8 = 12.5%"},
		{8, "uk", true, "1/8 = 12.5%"},
		{8, "gen", true, "1/8 = 12.5%"},
		{6, "pk", true, "1/6 = 16.7%"},
		{5, "pk", false, "1/5 = 20%"},
		{40, "pk", true, ""},
		{8, "pk2", false, ""},
		{8, "pkdup", false, ""},
		{8, "", false, ""},
	} {
		w := warehouses(c.rows, c.unique)
		if err := w.Validate(); err != nil {
			t.Fatal(err)
		}
		adv, err := Recommend(w, Options{Shards: 8, Engine: partition.Generic{}, Keys: []string{"hash(w_id)"}})
		if err != nil {
			t.Fatal(err)
		}
		as := adv.Candidates[0]
		cr, p := as.Criteria, as.Criteria.LargestOf
		name := fmt.Sprintf("%s/%d", c.unique, c.rows)
		if p == nil {
			t.Fatalf("%s: no largest partition", name)
		}
		reasons := strings.Join(as.Reasons, "\n")
		switch {
		case c.bounded:
			if !cr.Bounded || cr.LargestUnknown || cr.LargestPartition != 1/float64(c.rows) || len(p.Unique) != 1 || p.Unique[0] != "w_id" ||
				p.Observations != c.rows || p.ShareHigh != 1/float64(c.rows) || p.ShareLow != 0 {
				t.Errorf("%s: bounded %v unknown %v share %v of %+v; want bounded at 1/%d by the unique w_id", name, cr.Bounded, cr.LargestUnknown, cr.LargestPartition, *p, c.rows)
			}
			want := "the largest partition of the design is warehouse.w_id = 1, " + pct(1/float64(c.rows)) + " of the rows of warehouse, bounded: w_id is unique in warehouse: each value is one row, so no value holds more than " + c.bound + " of its rows"
			if c.bound == "" {
				// 40 rows bound 1/40 by the sample alone (the corrected
				// Wilson upper end, (2 + 4.8415 + 1.96 sqrt(9.6165)) /
				// 87.683 = 14.7% <= 18.75%): no reason argues it.
				if strings.Contains(reasons, "is unique in") {
					t.Errorf("%s: reasons argue a bound the sample shows:\n%s", name, reasons)
				}
			} else if !containsPrefix(as.Reasons, want) {
				t.Errorf("%s: reasons lack %q:\n%s", name, want, reasons)
			}
		case c.bound != "":
			if cr.Bounded && !cr.LargestUnknown || !cr.LargestUnknown || len(p.Unique) != 1 {
				t.Errorf("%s: unknown %v of %+v; want unknown, 1/%d over the threshold", name, cr.LargestUnknown, *p, c.rows)
			}
			want := "the largest partition of the design is unknown: its heaviest value, warehouse.w_id = 1, holds 20% of the rows of warehouse; w_id is unique in warehouse: each value is one row, so no value holds more than " + c.bound + " of its rows (5 distinct values sampled; the table has at least as many rows), but that is over the whale threshold"
			if !containsPrefix(as.Reasons, want) {
				t.Errorf("%s: reasons lack %q:\n%s", name, want, reasons)
			}
		default:
			if !cr.LargestUnknown || p.Unique != nil || p.Observations != 8 || p.Share != float64(1+btoi(c.unique == "pkdup"))/8 {
				t.Errorf("%s: unknown %v of %+v; want unknown on the 8 rows' interval", name, cr.LargestUnknown, *p)
			}
			if strings.Contains(reasons, "is unique in") {
				t.Errorf("%s: reasons call w_id unique:\n%s", name, reasons)
			}
		}
	}
}

// TestUniqueKeyRowWeight: the unique-key bound is of rows; when rows
// carry weights (their share of requests) one row may weigh most of the
// table, and the 1/n bound does not hold: the interval decides, as
// before.
func TestUniqueKeyRowWeight(t *testing.T) {
	w := warehouses(8, "pk")
	w.Tables[0].Weights = []float64{10, 1, 1, 1, 1, 1, 1, 1}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	adv, err := Recommend(w, Options{Shards: 8, Engine: partition.Generic{}, Keys: []string{"hash(w_id)"}})
	if err != nil {
		t.Fatal(err)
	}
	p := adv.Candidates[0].Criteria.LargestOf
	if p == nil || p.Unique != nil || p.Measure != "row weight" {
		t.Errorf("largest partition %+v; want the row weight's, no unique-key bound", p)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
