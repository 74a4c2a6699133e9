package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// pairs returns a workload of one table t(a, b) holding the given (a, b)
// rows, each of weight 1, and no operations.
func pairs(rows [][2]int64) *shardkey.Workload {
	t := &shardkey.Table{Name: "t", Rows: len(rows)}
	a := &shardkey.Column{Name: "a", Type: shardkey.Int64}
	b := &shardkey.Column{Name: "b", Type: shardkey.Int64}
	for _, r := range rows {
		a.Ints = append(a.Ints, r[0])
		b.Ints = append(b.Ints, r[1])
		t.Weights = append(t.Weights, 1)
	}
	t.Columns = []*shardkey.Column{a, b}
	return &shardkey.Workload{Tables: []*shardkey.Table{t}}
}

// TestTupleBoundsPlace: composite split points place a row by its key
// tuple compared column by column, as MongoDB compares a compound shard key
// against chunk bounds: with (1, 5) and (2, 0), shard 0 holds keys below
// (1, 5), shard 1 [(1, 5), (2, 0)), shard 2 from (2, 0). By hand:
// (0, 9) and (1, 4) on 0; (1, 5), (1, 6), (1, 9) on 1; (2, 0), (3, 1) on 2.
func TestTupleBoundsPlace(t *testing.T) {
	w := pairs([][2]int64{{0, 9}, {1, 4}, {1, 5}, {1, 6}, {1, 9}, {2, 0}, {3, 1}})
	c, err := Score(w, "range(a, b, bounds=[(1, 5), (2, 0)])", Options{Shards: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{2, 3, 2}; !slices.Equal(c.ShardLoad, want) {
		t.Errorf("shard rows %v; want %v", c.ShardLoad, want)
	}
	for _, wn := range c.Warnings {
		if strings.Contains(wn, "ranges on") {
			t.Errorf("3 ranges on 3 shards: warning %q", wn)
		}
	}
	// The same 2 split points on 5 shards cut 3 ranges: 2 shards hold
	// none, said.
	c5, err := Score(w, "range(a, b, bounds=[(1, 5), (2, 0)])", Options{Shards: 5})
	if err != nil {
		t.Fatal(err)
	}
	said := false
	for _, wn := range c5.Warnings {
		said = said || strings.Contains(wn, "2 split points make 3 ranges on 5 shards: 2 shards hold no range")
	}
	if !said {
		t.Errorf("3 ranges on 5 shards: warnings %q; want the 2 empty shards said", c5.Warnings)
	}
	for _, bad := range []string{
		"range(a, b, bounds=[(2, 0), (1, 5)])", // not increasing
		"range(a, b, bounds=[(1, x)])",         // b is an integer
	} {
		if _, err := Score(w, bad, Options{Shards: 3}); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestTupleBoundsWritten: a two-column range key's boundaries, computed
// from the rows, are tuples and are written into the key (they were "not
// writable" as bounds=[...] of the first column), and the key with them
// places every row as scored. Rows (1, 0..5) and (2, 0..5), 12 of weight
// 1, on 3 shards: the split points are at cumulative weight 4 and 8, the
// keys (1, 4) and (2, 2), by hand.
func TestTupleBoundsWritten(t *testing.T) {
	var rows [][2]int64
	for a := int64(1); a <= 2; a++ {
		for b := int64(0); b <= 5; b++ {
			rows = append(rows, [2]int64{a, b})
		}
	}
	w := pairs(rows)
	c, err := Score(w, "range(a, b)", Options{Shards: 3})
	if err != nil {
		t.Fatal(err)
	}
	if k := "range(a, b, bounds=[(1, 4), (2, 2)])"; c.KeyWithBounds != k {
		t.Fatalf("key with bounds %q (note %q); want %q", c.KeyWithBounds, c.RangeBoundsNote, k)
	}
	if len(c.RangeBounds) != 1 || !c.RangeBounds[0].Tuple || !slices.Equal(c.RangeBounds[0].Bounds, []string{"(1, 4)", "(2, 2)"}) {
		t.Errorf("range bounds %+v; want tuples (1, 4), (2, 2)", c.RangeBounds)
	}
	if want := []float64{4, 4, 4}; !slices.Equal(c.ShardLoad, want) {
		t.Errorf("shard rows %v; want %v", c.ShardLoad, want)
	}
	again, err := Score(w, c.KeyWithBounds, Options{Shards: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.ShardLoad, c.ShardLoad) || again.KeyWithBounds != c.KeyWithBounds {
		t.Errorf("rescored with its bounds: load %v key %q; scored %v %q", again.ShardLoad, again.KeyWithBounds, c.ShardLoad, c.KeyWithBounds)
	}
}

// TestTupleBoundsMongoHashed: a MongoDB pattern {a: 1, b: "hashed"}
// orders its chunks by a, then by MongoDB's hashed value of b; its
// computed split points are written as (a, hashed b) tuples and place
// every row as scored. Rows (1, 0..5) on 3 shards: the split points are
// the 3rd and 5th of the six hashed values of b sorted (cumulative weight
// 2 and 4), each hash from partition.MongoDB (checked against MongoDB's
// own vectors in partition).
func TestTupleBoundsMongoHashed(t *testing.T) {
	var rows [][2]int64
	var hs []int64
	for b := int64(0); b <= 5; b++ {
		rows = append(rows, [2]int64{1, b})
		h, err := partition.MongoDB{}.Hash([]shardkey.Value{shardkey.IntValue(b)})
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h.Int)
	}
	slices.Sort(hs)
	w := pairs(rows)
	o := Options{Shards: 3, Engine: partition.MongoDB{}}
	c, err := Score(w, `{a: 1, b: "hashed"}`, o)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`range({a: 1, b: "hashed"}, bounds=[(1, %d), (1, %d)])`, hs[2], hs[4])
	if c.KeyWithBounds != want {
		t.Fatalf("key with bounds %q (note %q); want %q", c.KeyWithBounds, c.RangeBoundsNote, want)
	}
	again, err := Score(w, c.KeyWithBounds, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.ShardLoad, []float64{2, 2, 2}) || !slices.Equal(c.ShardLoad, again.ShardLoad) {
		t.Errorf("rows per shard: scored %v, rescored with its bounds %v; want 2 each", c.ShardLoad, again.ShardLoad)
	}
}
