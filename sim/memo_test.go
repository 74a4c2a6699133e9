package sim

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// TestMemoEngine: the memo's point of every key equals the engine's own,
// for keys the rows hold (looked up, also from several goroutines at
// once) and keys they do not (a value outside the rows, a value of
// another type), over one integer column and over (integer, text).
func TestMemoEngine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 5000
	tab := &shardkey.Table{Name: "t", Rows: n}
	id := &shardkey.Column{Name: "id", Type: shardkey.Int64, Ints: make([]int64, n)}
	m := &shardkey.Column{Name: "m", Type: shardkey.Text, Strs: make([]string, n)}
	for i := range n {
		id.Ints[i] = int64(rng.IntN(3000)) - 1000
		m.Strs[i] = []string{"2024-01", "2024-02", "x"}[rng.IntN(3)]
	}
	tab.Columns = []*shardkey.Column{id, m}
	eng, err := partition.Lookup("blake2b")
	if err != nil {
		t.Fatal(err)
	}
	for _, cols := range [][]int{{0}, {0, 1}} {
		me, ok := memoize(eng, tab, cols).(*memoEngine)
		if !ok {
			t.Fatalf("cols %v: no memo", cols)
		}
		keys := [][]shardkey.Value{}
		for i := range 20000 {
			var k []shardkey.Value
			r := rng.IntN(n)
			switch i % 4 {
			case 0, 1: // a row's key
				k = []shardkey.Value{shardkey.IntValue(id.Ints[r]), shardkey.TextValue(m.Strs[r])}
			case 2: // values the rows lack
				k = []shardkey.Value{shardkey.IntValue(int64(rng.IntN(10000)) - 5000), shardkey.TextValue("2025-01")}
			case 3: // another type
				k = []shardkey.Value{{Type: shardkey.Int32, Int: id.Ints[r]}, {Type: shardkey.Bytes, Str: m.Strs[r]}}
			}
			keys = append(keys, k[:len(cols)])
		}
		me.withShards(7)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for _, k := range keys {
					want, err2 := eng.Point(k)
					if g%2 == 1 { // the shard table, under modulo 7
						sh, ok, err1 := me.shard(k)
						if ok && (sh != int(want%7) || err1 != nil) {
							t.Errorf("cols %v, key %v: memo shard %d (%v), engine %d mod 7 (%v)", cols, k, sh, err1, want%7, err2)
							return
						}
					}
					got, err1 := me.Point(k)
					if got != want || (err1 == nil) != (err2 == nil) {
						t.Errorf("cols %v, key %v: memo %d (%v), engine %d (%v)", cols, k, got, err1, want, err2)
						return
					}
				}
			})
		}
		wg.Wait()
		// Rows routed by their codes land where the engine puts them.
		ids := make([]int32, n)
		if err := me.rows(tab, cols, 0, n, 7, ids, make([]shardkey.Value, len(cols))); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			k := []shardkey.Value{shardkey.IntValue(id.Ints[i]), shardkey.TextValue(m.Strs[i])}[:len(cols)]
			if p, _ := eng.Point(k); ids[i] != int32(p%7) {
				t.Fatalf("cols %v, row %d: shard %d, engine's point mod 7 is %d", cols, i, ids[i], p%7)
			}
		}
	}
	// Cheap engines are not memoised: their hash costs less than a lookup.
	g, _ := partition.Lookup("generic")
	if _, ok := memoize(g, tab, []int{0}).(*memoEngine); ok {
		t.Error("generic memoised")
	}
}
