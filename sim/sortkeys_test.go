package sim

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestSortKeyWeights: sortKeyWeights gives sort.SliceStable's order by
// cmpTuple (the standard library's stable sort, which it replaced) on
// tuples with many ties: integers (negative, and unsigned beyond int64),
// strings, nulls, booleans, dates, tuples of one and two values and of
// unequal lengths; and with floats (NaN among them), where Compare is not
// a total order and only the same algorithm gives the same order (an
// unstable sort by tuple and position fails those rounds). Each tuple's
// weight is its first position, so the order of equal tuples is checked
// too.
func TestSortKeyWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	value := func(floats bool) shardkey.Value {
		switch k := r.IntN(9); {
		case k == 0:
			return shardkey.Value{Type: shardkey.Null}
		case k == 1:
			return shardkey.Value{Type: shardkey.Uint64, Int: int64(uint64(math.MaxUint64) - uint64(r.IntN(3)))}
		case k == 2:
			return shardkey.TextValue(string(rune('a' + r.IntN(4))))
		case k == 3:
			return shardkey.Value{Type: shardkey.Bool, Int: int64(r.IntN(2))}
		case k == 4:
			return shardkey.Value{Type: shardkey.Date, Int: int64(r.IntN(3))}
		case k == 5 && floats:
			if r.IntN(4) == 0 {
				return shardkey.FloatValue(math.NaN())
			}
			return shardkey.FloatValue(float64(r.IntN(5)) / 2)
		case k == 6:
			return shardkey.Value{Type: shardkey.Int32, Int: int64(r.IntN(5) - 2)}
		}
		return shardkey.IntValue(int64(r.IntN(6) - 2))
	}
	for round := 0; round < 60; round++ {
		floats := round%3 == 2
		n := 1 + r.IntN(3000)
		all := make([]keyWeight, n)
		for i := range all {
			k := make([]shardkey.Value, 1+r.IntN(2))
			for j := range k {
				k[j] = value(floats)
			}
			all[i] = keyWeight{k: k, w: float64(i)}
		}
		want := append([]keyWeight(nil), all...)
		sort.SliceStable(want, func(i, j int) bool { return cmpTuple(want[i].k, want[j].k) < 0 })
		sortKeyWeights(all)
		for i := range all {
			if all[i].w != want[i].w {
				t.Fatalf("round %d (floats %v, %d tuples): position %d holds tuple %v (first at %v), sort.SliceStable puts %v (first at %v) there",
					round, floats, n, i, all[i].k, all[i].w, want[i].k, want[i].w)
			}
		}
	}
}
