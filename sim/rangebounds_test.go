package sim

import (
	"slices"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestRangeBoundsStated: a range design's score states the boundaries it
// placed by, and the design with them written in places every row and
// request the same way. Keys 0..799 of equal weight on 8 shards: the
// equal-weight quantiles are 100, 200, ..., 700 (shard i holds
// [100i, 100i+100)), by hand.
func TestRangeBoundsStated(t *testing.T) {
	w := workload(800, func(int) float64 { return 1 })
	c, err := Score(w, "range(id)", Options{Shards: 8})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"100", "200", "300", "400", "500", "600", "700"}
	if len(c.RangeBounds) != 1 || c.RangeBounds[0].Table != "t" || !slices.Equal(c.RangeBounds[0].Columns, []string{"id"}) || !slices.Equal(c.RangeBounds[0].Bounds, want) {
		t.Fatalf("range bounds %+v; want t.id split at %v", c.RangeBounds, want)
	}
	if k := "range(id, bounds=[100, 200, 300, 400, 500, 600, 700])"; c.KeyWithBounds != k || c.RangeBounds[0].Key != k {
		t.Errorf("key with bounds %q (table key %q); want %q", c.KeyWithBounds, c.RangeBounds[0].Key, k)
	}
	for i, x := range c.ShardLoad {
		if x != 100 {
			t.Errorf("shard %d load %v; want 100 (100 keys of weight 1)", i, x)
		}
	}
	again, err := Score(w, c.KeyWithBounds, Options{Shards: 8})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.ShardWork, c.ShardWork) || !slices.Equal(again.ShardLoad, c.ShardLoad) {
		t.Errorf("rescored with its bounds: work %v load %v; scored %v %v", again.ShardWork, again.ShardLoad, c.ShardWork, c.ShardLoad)
	}
	if again.KeyWithBounds != c.KeyWithBounds {
		t.Errorf("rescored: key with bounds %q; want %q", again.KeyWithBounds, c.KeyWithBounds)
	}
}

// TestRangeBoundsDesignWide: co-located range keys of two tables (and a
// hash key of a third) share one set of bounds, each table's key written
// with them; isolate keeps its wrapper and its shard, and the bounded
// design places rows as the scored one.
func TestRangeBoundsDesignWide(t *testing.T) {
	w := workload(800, func(i int) float64 { return 1 + float64(i%5) })
	// A second table keyed by the same values (a child), and a third.
	child := &shardkey.Table{Name: "child", Rows: 400}
	pid := &shardkey.Column{Name: "pid", Type: shardkey.Int32}
	for i := 0; i < 400; i++ {
		pid.Ints = append(pid.Ints, int64(2*i))
		child.Weights = append(child.Weights, 1)
	}
	child.Columns = []*shardkey.Column{pid}
	w.Tables = append(w.Tables, child)
	for _, design := range []string{
		"t:range(id); child:range(pid)",
		"t:isolate(range(id), top=1); child:range(pid)",
		"range(id); child:hash(pid)",
	} {
		c, err := Score(w, design, Options{Shards: 8})
		if err != nil {
			t.Fatal(err)
		}
		if c.KeyWithBounds == "" || len(c.RangeBounds) == 0 {
			t.Fatalf("%s: no bounds stated (%q)", design, c.RangeBoundsNote)
		}
		for _, rb := range c.RangeBounds[1:] {
			if !slices.Equal(rb.Bounds, c.RangeBounds[0].Bounds) {
				t.Errorf("%s: %s bounds %v differ from %s's %v", design, rb.Table, rb.Bounds, c.RangeBounds[0].Table, c.RangeBounds[0].Bounds)
			}
		}
		if strings.Contains(design, "isolate") && !strings.HasPrefix(c.KeyWithBounds, "t:isolate(range(id, bounds=[") {
			t.Errorf("%s: key with bounds %q lost the isolate", design, c.KeyWithBounds)
		}
		if strings.Contains(design, "hash(pid)") && (len(c.RangeBounds) != 1 || !strings.Contains(c.KeyWithBounds, "child:hash(pid)")) {
			t.Errorf("%s: bounds %+v, key %q: the hash table has no bounds and keeps its key", design, c.RangeBounds, c.KeyWithBounds)
		}
		again, err := Score(w, c.KeyWithBounds, Options{Shards: 8})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(again.ShardWork, c.ShardWork) || !slices.Equal(again.ShardLoad, c.ShardLoad) {
			t.Errorf("%s rescored as %s: work %v load %v; scored %v %v", design, c.KeyWithBounds, again.ShardWork, again.ShardLoad, c.ShardWork, c.ShardLoad)
		}
	}
}

// TestRangeBoundsText: text boundaries that hold the list's own
// characters are quoted, also inside a composite key's tuples.
func TestRangeBoundsText(t *testing.T) {
	tb := &shardkey.Table{Name: "t", Rows: 4}
	name := &shardkey.Column{Name: "name", Type: shardkey.Text}
	n2 := &shardkey.Column{Name: "n2", Type: shardkey.Int64}
	for i, s := range []string{"a", "b, c", "d]", "e"} {
		name.Strs = append(name.Strs, s)
		n2.Ints = append(n2.Ints, int64(i))
		tb.Weights = append(tb.Weights, 1)
	}
	tb.Columns = []*shardkey.Column{name, n2}
	w := &shardkey.Workload{Tables: []*shardkey.Table{tb}, Shards: 4}
	c, err := Score(w, "range(name)", Options{Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	if want := `range(name, bounds=["b, c", "d]", e])`; c.KeyWithBounds != want {
		t.Fatalf("key with bounds %q; want %q", c.KeyWithBounds, want)
	}
	again, err := Score(w, c.KeyWithBounds, Options{Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.ShardLoad, c.ShardLoad) || !slices.Equal(c.ShardLoad, []float64{1, 1, 1, 1}) {
		t.Errorf("load %v, rescored %v; want one row a shard", c.ShardLoad, again.ShardLoad)
	}
	c, err = Score(w, "range(name, n2)", Options{Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	// One row a shard: the split points are rows 1, 2 and 3's (name, n2)
	// tuples, the texts quoted as above.
	if want := `range(name, n2, bounds=[("b, c", 1), ("d]", 2), (e, 3)])`; c.KeyWithBounds != want {
		t.Fatalf("composite: key %q (note %q); want %q", c.KeyWithBounds, c.RangeBoundsNote, want)
	}
	again, err = Score(w, c.KeyWithBounds, Options{Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.ShardLoad, []float64{1, 1, 1, 1}) {
		t.Errorf("composite rescored: load %v; want one row a shard", again.ShardLoad)
	}
}
