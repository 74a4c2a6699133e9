package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/shardkey/shardkey"
)

// wantGroups groups keys with a map: distinct values in order of first
// appearance, each with its first row and weight summed in row order.
func wantGroups(keys []uint64, ws []float64) []group {
	seen := map[uint64]int{}
	var gs []group
	for i, k := range keys {
		g, ok := seen[k]
		if !ok {
			g = len(gs)
			seen[k] = g
			gs = append(gs, group{row: int32(i)})
		}
		gs[g].w += rowWeight(ws, i)
	}
	return gs
}

// randomWeights returns n weights of mixed magnitudes, so sums added in
// another order would differ in their last bits.
func randomWeights(r *rand.Rand, n int) []float64 {
	ws := make([]float64, n)
	for i := range ws {
		ws[i] = r.Float64() * math.Pow(10, float64(r.IntN(12)-6))
	}
	return ws
}

// TestGroupKeys checks groupKeys against grouping by a map, on keys that
// differ in low bytes only, high bytes only, and everywhere, with and
// without weights: the same groups in the same order with bit-identical
// sums.
func TestGroupKeys(t *testing.T) {
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
		{"32 bits", func() uint64 { return uint64(r.Uint32()) }},
		{"32 bits, few values", func() uint64 { return uint64(r.IntN(20)) * 0x0F0F0F0F % (1 << 32) }},
		{"two far bits", func() uint64 { return uint64(r.IntN(2))<<31 | uint64(r.IntN(2))<<3 }},
		{"25 bits", func() uint64 { return uint64(r.IntN(1 << 25)) }},
	} {
		keys := make([]uint64, 5000)
		for i := range keys {
			keys[i] = spread.f()
		}
		cases[spread.name] = keys
	}
	for name, keys := range cases {
		for _, ws := range [][]float64{nil, randomWeights(r, len(keys))} {
			got, want := groupKeys(keys, ws), wantGroups(keys, ws)
			if !slices.Equal(got, want) {
				t.Fatalf("%s (weights %v): %d groups %v...; want %d %v...", name, ws != nil, len(got), got[:min(len(got), 5)], len(want), want[:min(len(want), 5)])
			}
		}
	}
}

// TestGroupInts checks groupInts, on dense and sparse values, against
// grouping by a map.
func TestGroupInts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	up, flat := int64(-50), int64(0)
	for name, f := range map[string]func() int64{
		"rising":        func() int64 { up += 1 + int64(r.IntN(3)); return up },
		"nondecreasing": func() int64 { flat += int64(r.IntN(2)); return flat },
		"dense":         func() int64 { return int64(r.IntN(1000)) + 1e6 },
		"negative":      func() int64 { return int64(r.IntN(1000)) - 500 },
		"sparse":        func() int64 { return int64(r.Uint64()) },
		"extremes":      func() int64 { return []int64{math.MinInt64, math.MaxInt64, 0}[r.IntN(3)] },
	} {
		vals := make([]int64, 3000)
		keys := make([]uint64, len(vals))
		for i := range vals {
			vals[i] = f()
			keys[i] = uint64(vals[i])
		}
		for _, ws := range [][]float64{nil, randomWeights(r, len(vals))} {
			if got, want := groupInts(vals, ws), wantGroups(keys, ws); !slices.Equal(got, want) {
				t.Fatalf("%s (weights %v): groupInts differs from a map's grouping", name, ws != nil)
			}
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
		packed, ok := packKeys(tb, cols, allRows(n))
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
		if _, ok := packKeys(tb, cols, allRows(n)); ok {
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

// TestSpearmanFastPaths checks the rank correlation that packed and
// integer keys get from a radix sort against ranking the key tuples by
// cmpTuple (ties take their mean rank), on signed integers with
// negatives, unsigned ones above 2^63, and a compound of an integer and a
// text column, with many ties.
func TestSpearmanFastPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n = 3000
	tb := &shardkey.Table{Name: "t", Rows: n}
	s := &shardkey.Column{Name: "s", Type: shardkey.Int64}
	u := &shardkey.Column{Name: "u", Type: shardkey.Uint64}
	x := &shardkey.Column{Name: "x", Type: shardkey.Text}
	for i := 0; i < n; i++ {
		s.Ints = append(s.Ints, int64(r.IntN(200)-100)+int64(i/30)) // rising, with ties
		u.Ints = append(u.Ints, int64(uint64(1)<<63+uint64(r.IntN(50))*uint64(n-i)))
		x.Strs = append(x.Strs, []string{"b", "a", "c"}[r.IntN(3)])
	}
	tb.Columns = []*shardkey.Column{s, u, x}
	want := func(cols []int) float64 {
		key := func(i int) []shardkey.Value {
			var k []shardkey.Value
			for _, c := range cols {
				k = append(k, tb.Columns[c].Value(i).Canonical())
			}
			return k
		}
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmpTuple(key(a), key(b)) })
		rank := make([]float64, n)
		assignRanks(rank, order, func(a, b int) bool { return cmpTuple(key(a), key(b)) == 0 })
		return pearsonRank(rank)
	}
	for _, cols := range [][]int{{0}, {1}, {0, 2}, {2, 0}} {
		got := ComputeKeyStats(tb, cols).Monotonicity
		if w := want(cols); math.Abs(got-w) > 1e-12 {
			t.Errorf("columns %v: monotonicity %v; want %v", cols, got, w)
		}
	}
	if m := ComputeKeyStats(tb, []int{1}).Monotonicity; m > -0.5 {
		t.Errorf("unsigned falling values: monotonicity %v; want strongly negative", m)
	}
}

// TestSortPoints: the bucket sort of hash points orders them as a stable
// sort does (equal points keep row order, so their weights are summed in
// row order), on spread points, points in few buckets, and many equal ones.
func TestSortPoints(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for name, f := range map[string]func() uint64{
		"spread":  r.Uint64,
		"clumped": func() uint64 { return uint64(r.IntN(4))<<62 | uint64(r.IntN(1000)) },
		"equal":   func() uint64 { return uint64(r.IntN(3)) * 0x9E3779B97F4A7C15 },
	} {
		for _, n := range []int{0, 1, 2, 5, 1000, 20000} {
			pts := make([]pointWeight, n)
			for i := range pts {
				pts[i] = pointWeight{f(), float64(i)} // w records the row
			}
			want := slices.Clone(pts)
			slices.SortStableFunc(want, func(a, b pointWeight) int {
				if a.p < b.p {
					return -1
				} else if a.p > b.p {
					return 1
				}
				return 0
			})
			if got := sortPoints(pts); !slices.Equal(got, want) {
				t.Fatalf("%s, %d points: not a stable sort", name, n)
			}
		}
	}
}

// allRows returns 0, 1, ..., n-1.
func allRows(n int) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// TestIntCodes: dense integer columns are numbered by first appearance,
// and their groups (groupCodes) are a map's; sparse ones get no codes.
func TestIntCodes(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const n = 4000
	tb := &shardkey.Table{Name: "t", Rows: n}
	dense := &shardkey.Column{Name: "d", Type: shardkey.Int64}
	sparse := &shardkey.Column{Name: "s", Type: shardkey.Int64}
	keys := make([]uint64, n)
	for i := 0; i < n; i++ {
		dense.Ints = append(dense.Ints, int64(r.IntN(3000))-1000)
		sparse.Ints = append(sparse.Ints, r.Int64())
		keys[i] = uint64(dense.Ints[i])
	}
	tb.Columns = []*shardkey.Column{dense, sparse}
	d := intCodes(tb, 0)
	seen := map[int64]uint32{}
	for i, v := range dense.Ints {
		if _, ok := seen[v]; !ok {
			seen[v] = uint32(len(seen))
		}
		if d.codes[i] != seen[v] {
			t.Fatalf("row %d: code %d, want %d", i, d.codes[i], seen[v])
		}
	}
	if d.span != uint64(len(seen)) {
		t.Errorf("span %d; want %d distinct", d.span, len(seen))
	}
	ws := randomWeights(r, n)
	if got, want := groupCodes(d, ws), wantGroups(keys, ws); !slices.Equal(got, want) {
		t.Error("groupCodes differs from a map's grouping")
	}
	if s := intCodes(tb, 1); s.codes != nil {
		t.Error("sparse column got codes")
	}
}

// TestGroupKey: compound keys over integer and text columns are equal
// exactly when the tuples are.
func TestGroupKey(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	const n = 3000
	tb := &shardkey.Table{Name: "t", Rows: n}
	a := &shardkey.Column{Name: "a", Type: shardkey.Int64}
	b := &shardkey.Column{Name: "b", Type: shardkey.Text}
	for i := 0; i < n; i++ {
		a.Ints = append(a.Ints, int64(r.IntN(500))*7)
		b.Strs = append(b.Strs, []string{"x", "y", "zz", ""}[r.IntN(4)])
	}
	c := &shardkey.Column{Name: "c", Type: shardkey.Int32}
	for i := 0; i < n; i++ {
		c.Ints = append(c.Ints, int64(r.IntN(3)))
	}
	tb.Columns = []*shardkey.Column{a, b, c}
	for _, cols := range [][]int{{0, 1}, {1, 0, 2}} {
		checkGroupKey(t, tb, cols)
	}
}

// checkGroupKey fails when groupKey's keys for cols of tb are not equal
// exactly when the rows' tuples are.
func checkGroupKey(t *testing.T, tb *shardkey.Table, cols []int) {
	t.Helper()
	keys, ok := groupKey(tb, cols)
	if !ok {
		t.Fatalf("%v: not grouped", cols)
	}
	byTuple := map[[3]any]int64{}
	byKey := map[int64][3]any{}
	for i := 0; i < tb.Rows; i++ {
		var tu [3]any
		for j, c := range cols {
			tu[j] = tb.Columns[c].Value(i)
		}
		if k, ok := byTuple[tu]; ok && k != keys[i] {
			t.Fatalf("row %d: tuple %v has two keys", i, tu)
		}
		if u, ok := byKey[keys[i]]; ok && u != tu {
			t.Fatalf("row %d: key %d holds %v and %v", i, keys[i], u, tu)
		}
		byTuple[tu], byKey[keys[i]] = keys[i], tu
	}
}

// TestKeyStatsRisingKey: a strictly increasing key (each row its own
// value) gets its cardinality, top values and entropy from the rows
// directly: the figures a hand computation over the weights gives, and
// no per-row group built (16 bytes a row; the allocation bound fails
// when they are).
func TestKeyStatsRisingKey(t *testing.T) {
	n := 1 << 21 // the rank correlation's 100,000-row sample takes about 10 MB
	rng := rand.New(rand.NewPCG(5, 6))
	id := &shardkey.Column{Name: "id", Type: shardkey.Int64, Ints: make([]int64, n)}
	ws := make([]float64, n)
	for i := range n {
		id.Ints[i] = int64(3 * i)
		ws[i] = float64(1 + rng.IntN(1000))
	}
	ws[777] = 5000 // the heaviest
	total := 0.0
	for _, w := range ws {
		total += w
	}
	want := 0.0
	for _, w := range ws {
		p := w / total
		want -= p * math.Log2(p)
	}
	tab := &shardkey.Table{Name: "t", Rows: n, Columns: []*shardkey.Column{id}, Weights: ws}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ks := ComputeKeyStats(tab, []int{0})
	runtime.ReadMemStats(&after)
	if ks.Cardinality != n {
		t.Errorf("cardinality %d, want %d", ks.Cardinality, n)
	}
	if math.Abs(ks.Entropy-want) > 1e-9*want {
		t.Errorf("entropy %v, want %v", ks.Entropy, want)
	}
	if len(ks.TopValues) != 10 || ks.TopValues[0].Value != "2331" /* 3 * 777 */ || ks.TopValues[0].Share != 5000/total {
		t.Errorf("top values %v, want 2331 first with share %v", ks.TopValues, 5000/total)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(n*16)/2 {
		t.Errorf("%d bytes allocated for %d rows: per-row groups built", got, n)
	}
}

// TestGroupTuples: grouping a two-column key directly on its columns'
// codes gives a map's grouping of the tuples (the same groups in order of
// first row, bit-identical sums of mixed-magnitude weights), whether the
// product of distinct counts is small (direct addressing: 40 x 4 tuples
// for 3,000 rows) or not (2,400 x 8 > 4 x 3,000: the key array's path),
// with weights and without, and for three columns.
func TestGroupTuples(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	const n = 3000
	for _, ids := range []int{40, 2400} {
		nt := 4 // distinct texts: 40 x 4 tuples, or 2,400 x 8
		if ids > 40 {
			nt = 8
		}
		tb := &shardkey.Table{Name: "t", Rows: n}
		a := &shardkey.Column{Name: "a", Type: shardkey.Int64}
		b := &shardkey.Column{Name: "b", Type: shardkey.Text}
		c := &shardkey.Column{Name: "c", Type: shardkey.Int32}
		seenA := map[int64]bool{}
		for i := 0; i < n; i++ {
			v := int64(r.IntN(ids)) * 3
			if i < ids {
				v = int64(i) * 3 // every id present: ids distinct values
			}
			seenA[v] = true
			a.Ints = append(a.Ints, v)
			b.Strs = append(b.Strs, []string{"2024-01", "2024-02", "x", "", "y", "z", "2024-03", "w"}[r.IntN(nt)])
			c.Ints = append(c.Ints, int64(r.IntN(3)))
		}
		tb.Columns = []*shardkey.Column{a, b, c}
		if len(seenA) != ids {
			t.Fatalf("%d distinct ids; want %d", len(seenA), ids)
		}
		if ds, _ := tupleCodes(tb, []int{0, 1}); (ds[0].span*ds[1].span <= 4*n) != (ids == 40) {
			t.Fatalf("ids %d: %d x %d tuples; want direct addressing only for 40 ids", ids, ds[0].span, ds[1].span)
		}
		for _, cols := range [][]int{{0, 1}, {1, 0}, {0, 1, 2}} {
			// The tuples as keys for the map: a's value, b's text, c's.
			keys := make([]uint64, n)
			texts := map[string]uint64{}
			for i := range n {
				tx, ok := texts[b.Strs[i]]
				if !ok {
					tx = uint64(len(texts))
					texts[b.Strs[i]] = tx
				}
				digit := map[int]uint64{0: uint64(a.Ints[i]), 1: tx, 2: uint64(c.Ints[i])}
				for _, col := range cols {
					keys[i] = keys[i]*1e5 + digit[col]
				}
			}
			for _, ws := range [][]float64{nil, randomWeights(r, n)} {
				got, ok := groupTuples(tb, cols, ws)
				if !ok {
					t.Fatalf("ids %d, cols %v: not grouped", ids, cols)
				}
				if want := wantGroups(keys, ws); !slices.Equal(got, want) {
					t.Errorf("ids %d, cols %v, weights %v: %d groups, want %d (or their rows or sums differ)", ids, cols, ws != nil, len(got), len(want))
				}
			}
		}
	}
}

// monthOrdered returns a table of n rows in months' order (seed 000's
// orders: each month's rows together, customer ids at random among ids
// ids spread over 10*ids values), and each row's (customer, month) tuple
// as a key for wantGroups.
func monthOrdered(r *rand.Rand, n, ids, months int) (*shardkey.Table, []uint64) {
	tb := &shardkey.Table{Name: "orders", Rows: n}
	cust := &shardkey.Column{Name: "customer_id", Type: shardkey.Int64}
	month := &shardkey.Column{Name: "order_month", Type: shardkey.Text}
	keys := make([]uint64, n)
	for i := range n {
		c := int64(r.IntN(ids)) * 10
		m := i * months / n
		cust.Ints = append(cust.Ints, c)
		month.Strs = append(month.Strs, fmt.Sprintf("%04d-%02d", 2023+m/12, 1+m%12))
		keys[i] = uint64(c)<<8 | uint64(m)
	}
	tb.Columns = []*shardkey.Column{cust, month}
	return tb, keys
}

// TestGroupTuplesMonthOrder: rows in months' order are grouped with the
// month as the slot's major digit (the month changes 23 times in 4,000
// rows, the customer almost every row), and the groups are a map's
// grouping of the (customer, month) tuples: the same groups in order of
// first row, bit-identical sums. Rows in customers' order keep the
// customer as the major digit.
func TestGroupTuplesMonthOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 4000
	tb, keys := monthOrdered(r, n, 300, 24)
	for _, ws := range [][]float64{nil, randomWeights(r, n)} {
		before := secondMajor.Load()
		got, ok := groupTuples(tb, []int{0, 1}, ws)
		if !ok {
			t.Fatal("not grouped")
		}
		if secondMajor.Load() != before+1 {
			t.Errorf("weights %v: month not the major digit", ws != nil)
		}
		if want := wantGroups(keys, ws); !slices.Equal(got, want) {
			t.Errorf("weights %v: %d groups, want %d (or their rows or sums differ)", ws != nil, len(got), len(want))
		}
	}
	// Rows in customers' order: the customer stays the major digit.
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	c := tb.Columns
	slices.SortStableFunc(idx, func(i, j int) int { return int(c[0].Ints[i] - c[0].Ints[j]) })
	byCust := &shardkey.Table{Name: "by customer", Rows: n, Columns: []*shardkey.Column{
		{Name: "customer_id", Type: shardkey.Int64}, {Name: "order_month", Type: shardkey.Text}}}
	for _, i := range idx {
		byCust.Columns[0].Ints = append(byCust.Columns[0].Ints, c[0].Ints[i])
		byCust.Columns[1].Strs = append(byCust.Columns[1].Strs, c[1].Strs[i])
	}
	before := secondMajor.Load()
	if _, ok := groupTuples(byCust, []int{0, 1}, nil); !ok || secondMajor.Load() != before {
		t.Errorf("rows by customer: grouped %v, month the major digit %v; want grouped with the customer major", ok, secondMajor.Load() != before)
	}
}

// BenchmarkGroupPairs groups 2 M rows in months' order (seed 000's
// orders: 24 months, 100,000 customers) by (customer, month), with the
// slot numbered customer-major (the former order) and month-major
// (groupTuples' choice for these rows), side by side.
func BenchmarkGroupPairs(b *testing.B) {
	tb, _ := monthOrdered(rand.New(rand.NewPCG(7, 8)), 2_000_000, 100_000, 24)
	ws := randomWeights(rand.New(rand.NewPCG(9, 10)), tb.Rows)
	ds, _ := tupleCodes(tb, []int{0, 1})
	c, m := ds[0], ds[1]
	b.Run("customer-major", func(b *testing.B) {
		for b.Loop() {
			groupPairs(c.codes, m.codes, c.span, m.span, ws)
		}
	})
	b.Run("month-major", func(b *testing.B) {
		for b.Loop() {
			groupPairs(m.codes, c.codes, m.span, c.span, ws)
		}
	})
}

// TestSpearmanReuse: spearman's arrays, reused between calls, give each
// table the correlation it gets with fresh ones, whichever table (of
// 5,000 rows, of 40, of 2,000, integer and text keys) came before.
func TestSpearmanReuse(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var tables []*shardkey.Table
	for _, n := range []int{5000, 40, 2000} {
		tb := &shardkey.Table{Name: "t", Rows: n}
		a := &shardkey.Column{Name: "a", Type: shardkey.Int64}
		x := &shardkey.Column{Name: "x", Type: shardkey.Text}
		for i := 0; i < n; i++ {
			a.Ints = append(a.Ints, int64(r.IntN(n)+i))
			x.Strs = append(x.Strs, fmt.Sprint(r.IntN(7)))
		}
		tb.Columns = []*shardkey.Column{a, x}
		tables = append(tables, tb)
	}
	for _, cols := range [][]int{{0}, {1}, {1, 0}} {
		for _, tb := range tables {
			got := spearman(tb, cols) // after the previous table's call
			for _, ok := spearmanPool.get(); ok; _, ok = spearmanPool.get() {
			}
			spearmanPool.put(new(spearmanScratch)) // the only one: want's
			want := spearman(tb, cols)
			if got != want {
				t.Errorf("%d rows, columns %v: %v after another table, %v fresh", tb.Rows, cols, got, want)
			}
		}
	}
}
