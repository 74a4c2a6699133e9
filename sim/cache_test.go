package sim

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestCache: a Cache keeps the statements' figures per workload. Table t
// has no rows; its operation reads id = 1 (weight 3) and id = 2 (weight
// 1) at 4/s. Under range(id) on 2 shards the boundary is then 2 (two
// distinct values, one a range): shard work [3, 1], top values 1 (75%)
// and 2 (25%). A second workload reading id = 5 (weight 1) and 7 (weight
// 3), scored with the same Cache, gets its own boundary 7 (work [1, 3],
// not the [0, 4] the first's boundary would give) and top values; the
// first, scored again, its own again; and each report equals the one
// scored without a Cache, byte for byte.
func TestCache(t *testing.T) {
	mk := func(a, wa, b, wb int64) *shardkey.Workload {
		tb := &shardkey.Table{Name: "t", Columns: []*shardkey.Column{{Name: "id", Type: shardkey.Int64}}}
		eq := func(v int64) []shardkey.Cond {
			return []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(v)}}
		}
		op := &shardkey.Operation{Name: "get", Table: 0, Kind: shardkey.Read, Rate: 4, Instances: []shardkey.Instance{
			{Weight: float64(wa), Conds: eq(a)}, {Weight: float64(wb), Conds: eq(b)}}}
		return &shardkey.Workload{Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{op}, Shards: 2}
	}
	w1, w2 := mk(1, 3, 2, 1), mk(5, 1, 7, 3)
	cache := NewCache()
	for i, c := range []struct {
		w    *shardkey.Workload
		work []float64
		top  []TopValue
	}{
		{w1, []float64{3, 1}, []TopValue{{"1", 0.75}, {"2", 0.25}}},
		{w2, []float64{1, 3}, []TopValue{{"7", 0.75}, {"5", 0.25}}},
		{w1, []float64{3, 1}, []TopValue{{"1", 0.75}, {"2", 0.25}}},
	} {
		got, err := Score(c.w, "range(id)", Options{Shards: 2, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.ShardWork, c.work) || !slices.Equal(got.TopValues, c.top) {
			t.Errorf("score %d: work %v, top values %v; want %v, %v", i, got.ShardWork, got.TopValues, c.work, c.top)
		}
		plain, err := Score(c.w, "range(id)", Options{Shards: 2})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(plain)
		if string(a) != string(b) {
			t.Errorf("score %d: with a Cache\n%s\nwithout\n%s", i, a, b)
		}
	}
	if len(cache.m) != 6 {
		t.Errorf("%d entries; want 6 (key values, statistics and statements by table of each workload)", len(cache.m))
	}
}

// TestTrafficKeyStatsByTable: the statistics of a table's key from the
// transactions' statements are the same read through stmtsByTable (as
// Report does with a Cache) as by a pass over every transaction. Without
// operations: transactions of weight 2 (t.id = 1, and u.id = 9 on
// another table), 1 (an insert of t.id = 3) and 1 (t.id = 1) give t.id
// the values 1 (3/4 of the weight) and 3 (1/4). With an operation on t
// too, the operation weighs the values and the transactions' inserts
// only give the order.
func TestTrafficKeyStatsByTable(t *testing.T) {
	col := func(name string) *shardkey.Column { return &shardkey.Column{Name: name, Type: shardkey.Int64} }
	st := func(ti int, kind shardkey.Kind, v int64) shardkey.Stmt {
		return shardkey.Stmt{Table: ti, Kind: kind, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(v)}}}
	}
	w := &shardkey.Workload{
		Tables: []*shardkey.Table{{Name: "t", Columns: []*shardkey.Column{col("id")}}, {Name: "u", Columns: []*shardkey.Column{col("id")}}},
		Txns: []shardkey.Txn{
			{Name: "a", Weight: 2, Stmts: []shardkey.Stmt{st(0, shardkey.Read, 1), st(1, shardkey.Read, 9)}},
			{Name: "b", Weight: 1, Stmts: []shardkey.Stmt{st(0, shardkey.Insert, 3)}},
			{Name: "c", Weight: 1, Stmts: []shardkey.Stmt{st(0, shardkey.Read, 1)}},
		},
	}
	ks := trafficKeyStats(w, 0, []int{0}, stmtsByTable(w))
	if want := []TopValue{{"1", 0.75}, {"3", 0.25}}; ks.Cardinality != 2 || !slices.Equal(ks.TopValues, want) {
		t.Errorf("cardinality %d, top values %v; want 2, %v", ks.Cardinality, ks.TopValues, want)
	}
	for i := range 5 {
		w.Txns = append(w.Txns, shardkey.Txn{Name: "ins", Weight: 1, Stmts: []shardkey.Stmt{st(0, shardkey.Insert, int64(10+i))}})
	}
	for _, ops := range []bool{false, true} {
		if ops {
			w.Ops = []*shardkey.Operation{{Name: "get", Table: 0, Kind: shardkey.Read, Rate: 5, Instances: []shardkey.Instance{{Weight: 1, Conds: st(0, shardkey.Read, 7).Conds}}}}
		}
		for ti := range w.Tables {
			a, _ := json.Marshal(trafficKeyStats(w, ti, []int{0}, stmtsByTable(w)))
			b, _ := json.Marshal(TrafficKeyStats(w, ti, []int{0}))
			if string(a) != string(b) {
				t.Errorf("operations %v, table %d: by table %s, every transaction %s", ops, ti, a, b)
			}
		}
	}
}
