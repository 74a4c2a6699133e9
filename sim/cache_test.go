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
	if len(cache.m) != 4 {
		t.Errorf("%d entries; want 4 (key values and statistics of each workload)", len(cache.m))
	}
}
