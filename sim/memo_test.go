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
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for _, k := range keys {
					got, err1 := me.Point(k)
					want, err2 := eng.Point(k)
					if got != want || (err1 == nil) != (err2 == nil) {
						t.Errorf("cols %v, key %v: memo %d (%v), engine %d (%v)", cols, k, got, err1, want, err2)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	// Cheap engines are not memoised: their hash costs less than a lookup.
	g, _ := partition.Lookup("generic")
	if _, ok := memoize(g, tab, []int{0}).(*memoEngine); ok {
		t.Error("generic memoised")
	}
}
