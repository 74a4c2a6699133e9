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

// TestKeyGroups: keyGroups, fed tuples in order, returns sort.SliceStable's
// order by cmpTuple of those tuples (each tuple's weight its position, so
// the order of equal tuples is checked too, and each tuple's values by
// type and bits): on integer, text, date and boolean keys (grouped), keys
// where distinct tuples tie (an Int64 and a Uint64 of one value, text and
// bytes of one string: every tuple sorted), keys with floats from a random
// point on (NaN and -0 among them: grouping given up midway), and tuples
// wider than maxGroupWidth.
func TestKeyGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	value := func(kind int) shardkey.Value {
		switch k := r.IntN(8); {
		case k == 0:
			return shardkey.Value{Type: shardkey.Null}
		case k == 1:
			return shardkey.TextValue(string(rune('a' + r.IntN(4))))
		case k == 2:
			return shardkey.Value{Type: shardkey.Bool, Int: int64(r.IntN(2))}
		case k == 3:
			return shardkey.Value{Type: shardkey.Date, Int: int64(r.IntN(3))}
		case k == 4 && kind == 1:
			if r.IntN(2) == 0 {
				return shardkey.Value{Type: shardkey.Uint64, Int: int64(r.IntN(3))}
			}
			return shardkey.Value{Type: shardkey.Bytes, Str: string(rune('a' + r.IntN(4)))}
		case k == 5 && kind == 2:
			switch r.IntN(4) {
			case 0:
				return shardkey.FloatValue(math.NaN())
			case 1:
				return shardkey.FloatValue(math.Copysign(0, -1))
			}
			return shardkey.FloatValue(float64(r.IntN(5)) / 2)
		case k == 6:
			return shardkey.Value{Type: shardkey.Uint64, Int: int64(uint64(math.MaxUint64) - uint64(r.IntN(2)))}
		}
		return shardkey.IntValue(int64(r.IntN(6) - 2))
	}
	grouped := 0
	for round := range 80 {
		kind := round % 4 // 0 grouped, 1 ties, 2 floats, 3 wide
		width := 1 + r.IntN(3)
		if kind == 3 {
			width = maxGroupWidth + 1
		}
		n := r.IntN(3000)
		floatsFrom := r.IntN(n + 1)
		var in []keyWeight
		g := newKeyGroups(width)
		key := make([]shardkey.Value, width)
		for i := range n {
			vk := kind
			if kind == 2 && i < floatsFrom {
				vk = 0
			}
			for j := range key {
				key[j] = value(vk)
			}
			g.add(key, float64(i))
			in = append(in, keyWeight{k: append([]shardkey.Value(nil), key...), w: float64(i)})
		}
		if !g.whole {
			grouped++
		}
		got := g.sorted()
		sort.SliceStable(in, func(i, j int) bool { return cmpTuple(in[i].k, in[j].k) < 0 })
		if len(got) != len(in) {
			t.Fatalf("round %d: %d tuples, want %d", round, len(got), len(in))
		}
		for i := range got {
			same := got[i].w == in[i].w && len(got[i].k) == len(in[i].k)
			for j := 0; same && j < len(in[i].k); j++ {
				a, b := got[i].k[j], in[i].k[j]
				same = a.Type == b.Type && a.Int == b.Int && a.Str == b.Str && math.Float64bits(a.Float) == math.Float64bits(b.Float)
			}
			if !same {
				t.Fatalf("round %d (kind %d, width %d, %d tuples): position %d holds %v (added at %v), sort.SliceStable puts %v (added at %v) there",
					round, kind, width, n, i, got[i].k, got[i].w, in[i].k, in[i].w)
			}
		}
	}
	if grouped < 20 {
		t.Errorf("only %d of 80 rounds kept their groups: the grouped path is barely tested", grouped)
	}
}

// TestSpearmanInserted: inserted values are ranked in Seq order (not
// the order given) and by shardkey.Compare (text too), ties at mean
// ranks; the figures are Spearman's rho worked by hand.
func TestSpearmanInserted(t *testing.T) {
	i64 := func(seq int64, x int64) seqValue { return seqValue{seq, shardkey.Value{Type: shardkey.Int64, Int: x}} }
	txt := func(seq int64, x string) seqValue { return seqValue{seq, shardkey.Value{Type: shardkey.Text, Str: x}} }
	check := func(name string, xs []seqValue, want float64) {
		t.Helper()
		if got := spearmanInserted(xs); math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: rho = %v, want %v", name, got, want)
		}
	}
	// Increasing in Seq, given out of order (a reservoir's slots).
	check("increasing by seq", []seqValue{i64(3, 30), i64(1, 10), i64(4, 40), i64(2, 20)}, 1)
	check("decreasing by seq", []seqValue{i64(3, 20), i64(1, 40), i64(4, 10), i64(2, 30)}, -1)
	// 1, 3, 2, 4 in Seq order: d = 0, 1, -1, 0, rho = 1 - 6*2/(4*15) = 0.8.
	check("one swap", []seqValue{i64(1, 1), i64(2, 3), i64(3, 2), i64(4, 4)}, 0.8)
	// 1, 1, 2: ranks 0.5, 0.5, 2 against 0, 1, 2: cov 1.5, var 2 and
	// 1.5, r = 1.5/sqrt(3).
	check("ties", []seqValue{i64(1, 1), i64(2, 1), i64(3, 2)}, 1.5/math.Sqrt(3))
	// Text by bytes: "b10" < "b9" (as a range key on text splits them).
	check("text", []seqValue{txt(2, "b10"), txt(1, "a"), txt(3, "b9")}, 1)
	check("text reversed", []seqValue{txt(1, "c"), txt(2, "b"), txt(3, "a")}, -1)
}
