package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shardkey/shardkey"
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

// TestPackKeys checks that packed keys order and equate rows exactly as
// cmpTuple orders their key tuples, and that packing is refused where it
// cannot be exact.
func TestPackKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 2000
	tb := &shardkey.Table{Name: "t", Rows: n}
	a := &shardkey.Column{Name: "a", Type: shardkey.Int64}
	b := &shardkey.Column{Name: "b", Type: shardkey.Text}
	c := &shardkey.Column{Name: "c", Type: shardkey.Int32}
	for i := 0; i < n; i++ {
		a.Ints = append(a.Ints, int64(r.IntN(40))-20)
		b.Strs = append(b.Strs, []string{"", "b", "a", "ab", "B", "é"}[r.IntN(6)])
		c.Ints = append(c.Ints, int64(r.IntN(3)))
	}
	tb.Columns = []*shardkey.Column{a, b, c}
	for _, cols := range [][]int{{0, 1}, {1, 0, 2}, {1}, {2, 0}} {
		packed, ok := packKeys(tb, cols)
		if !ok {
			t.Fatalf("%v: not packed", cols)
		}
		tuple := func(i int) []shardkey.Value {
			var k []shardkey.Value
			for _, c := range cols {
				k = append(k, tb.Columns[c].Value(i).Canonical())
			}
			return k
		}
		for x := 0; x < 3000; x++ {
			i, j := r.IntN(n), r.IntN(n)
			want := cmpTuple(tuple(i), tuple(j))
			got := 0
			if packed[i] < packed[j] {
				got = -1
			} else if packed[i] > packed[j] {
				got = 1
			}
			if got != want {
				t.Fatalf("%v: rows %d %d: packed order %d, tuple order %d", cols, i, j, got, want)
			}
		}
	}
	// Refused: NULLs, floats, and digits beyond 63 bits.
	wide := &shardkey.Column{Name: "w", Type: shardkey.Int64}
	for i := 0; i < n; i++ {
		wide.Ints = append(wide.Ints, int64(r.Uint64()))
	}
	f := &shardkey.Column{Name: "f", Type: shardkey.Float64, Floats: make([]float64, n)}
	nul := &shardkey.Column{Name: "z", Type: shardkey.Int64, Ints: make([]int64, n), Nulls: make([]bool, n)}
	tb.Columns = append(tb.Columns, wide, f, nul)
	for _, cols := range [][]int{{3, 2}, {4}, {5, 0}} {
		if _, ok := packKeys(tb, cols); ok {
			t.Errorf("%v: packed, want refused", cols)
		}
	}
}

// TestInSpan: an isolated tuple is in a range statement's span when it
// starts with the span's prefix and its next value meets the bounds.
func TestInSpan(t *testing.T) {
	v := shardkey.IntValue
	k := []shardkey.Value{v(7), v(50)}
	rng := func(lo, hi int64, loIncl, hiIncl bool) *shardkey.Cond {
		return &shardkey.Cond{Op: shardkey.Range, Bounds: &shardkey.Bounds{Lo: v(lo), Hi: v(hi), HasLo: true, HasHi: true, LoIncl: loIncl, HiIncl: hiIncl}}
	}
	for _, c := range []struct {
		p    []shardkey.Value
		next *shardkey.Cond
		want bool
	}{
		{[]shardkey.Value{v(7)}, nil, true},
		{[]shardkey.Value{v(8)}, nil, false},
		{nil, rng(1, 10, true, false), true},
		{nil, rng(7, 10, false, false), false},
		{nil, rng(1, 7, true, true), true},
		{nil, rng(1, 7, true, false), false},
		{[]shardkey.Value{v(7)}, rng(50, 60, true, false), true},
		{[]shardkey.Value{v(7)}, rng(10, 50, true, false), false},
	} {
		if got := inSpan(k, c.p, c.next); got != c.want {
			t.Errorf("inSpan(%v, %v, %+v) = %v; want %v", k, c.p, c.next, got, c.want)
		}
	}
}
