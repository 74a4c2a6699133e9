package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGroupRows checks groupRows against numbering by a map, on keys that
// differ in low bytes only, high bytes only, and everywhere.
func TestGroupRows(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := map[string][]uint64{"empty": nil, "one": {7}, "same": {5, 5, 5}}
	for _, spread := range []struct {
		name string
		f    func() uint64
	}{
		{"low", func() uint64 { return uint64(r.IntN(50)) }},
		{"high", func() uint64 { return uint64(r.IntN(50)) << 56 }},
		{"mixed", func() uint64 { return uint64(r.IntN(300)) * 0x9E3779B97F4A7C15 }},
		{"negative", func() uint64 { return uint64(int64(r.IntN(100) - 50)) }},
	} {
		keys := make([]uint64, 5000)
		for i := range keys {
			keys[i] = spread.f()
		}
		cases[spread.name] = keys
	}
	for name, keys := range cases {
		gid, first := groupRows(keys)
		seen := map[uint64]int32{}
		var wantFirst []int32
		for i, k := range keys {
			g, ok := seen[k]
			if !ok {
				g = int32(len(wantFirst))
				seen[k] = g
				wantFirst = append(wantFirst, int32(i))
			}
			if gid[i] != g {
				t.Fatalf("%s: row %d: group %d, want %d", name, i, gid[i], g)
			}
		}
		if len(first) != len(wantFirst) {
			t.Fatalf("%s: %d groups, want %d", name, len(first), len(wantFirst))
		}
		for g := range first {
			if first[g] != wantFirst[g] {
				t.Fatalf("%s: group %d first row %d, want %d", name, g, first[g], wantFirst[g])
			}
		}
	}
}

// TestGroupInts checks groupInts, on dense and sparse values, against
// groupRows.
func TestGroupInts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for name, f := range map[string]func() int64{
		"dense":    func() int64 { return int64(r.IntN(1000)) + 1e6 },
		"negative": func() int64 { return int64(r.IntN(1000)) - 500 },
		"sparse":   func() int64 { return int64(r.Uint64()) },
		"extremes": func() int64 { return []int64{math.MinInt64, math.MaxInt64, 0}[r.IntN(3)] },
	} {
		vals := make([]int64, 3000)
		keys := make([]uint64, len(vals))
		for i := range vals {
			vals[i] = f()
			keys[i] = uint64(vals[i])
		}
		gid, first := groupInts(vals)
		wgid, wfirst := groupRows(keys)
		if !slices.Equal(gid, wgid) || !slices.Equal(first, wfirst) {
			t.Fatalf("%s: groupInts differs from groupRows", name)
		}
	}
}
