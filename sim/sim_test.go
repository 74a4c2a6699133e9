package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

func TestExpectedMaxLoadRatio(t *testing.T) {
	check := func(k, n int, want, tol float64, why string) {
		t.Helper()
		if got := ExpectedMaxLoadRatio(k, n); math.Abs(got-want) > tol {
			t.Errorf("ExpectedMaxLoadRatio(%d, %d) = %.5f; want %.5f ± %g (%s)", k, n, got, want, tol, why)
		}
	}
	// Closed forms: 3 keys on 2 shards: max is 3 w.p. 1/4, else 2:
	// E[max] = 2.25, mean 1.5. 2 keys on 2 shards: max 2 w.p. 1/2, else 1.
	check(3, 2, 1.5, 1e-9, "closed form")
	check(2, 2, 1.5, 1e-9, "closed form")
	check(1, 8, 8, 1e-9, "one key: the only busy shard is n times the mean")
	check(5, 1, 1, 0, "one shard")
	check(0, 8, 0, 0, "no keys")
	// Seed 000's balls-into-bins numbers.
	check(6400, 64, 1.2420, 0.0015, "seed 000: 6,400 keys on 64 shards")
	check(640000, 64, 1.0234, 0.0005, "seed 000: 640,000 keys on 64 shards")
}

// TestExpectedMaxSimulated hashes equal-weight keys with the generic engine
// over many seeds: the mean of max/mean agrees with seed 000's values and
// with ExpectedMaxLoadRatio within sampling error.
func TestExpectedMaxSimulated(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	for _, c := range []struct {
		k, trials int
		seed      float64
	}{{6400, 400, 1.2420}, {640000, 40, 1.0234}} {
		const n = 64
		rng := rand.New(rand.NewPCG(7, uint64(c.k)))
		var sum, sumsq float64
		load := make([]float64, n)
		for tr := 0; tr < c.trials; tr++ {
			for i := range load {
				load[i] = 0
			}
			base := rng.Int64()
			for i := 0; i < c.k; i++ {
				load[partition.Generic{}.PointInt64(base+int64(i)*7919)%n]++
			}
			r, _, _ := ratio(load)
			sum += r
			sumsq += r * r
		}
		mean := sum / float64(c.trials)
		se := math.Sqrt((sumsq/float64(c.trials) - mean*mean) / float64(c.trials))
		if math.Abs(mean-c.seed) > 4*se+1e-4 {
			t.Errorf("%d keys: simulated mean max/mean %.4f ± %.4f; seed 000 says %.4f", c.k, mean, se, c.seed)
		}
		if e := ExpectedMaxLoadRatio(c.k, n); math.Abs(mean-e) > 4*se+1e-4 {
			t.Errorf("%d keys: simulated %.4f ± %.4f; ExpectedMaxLoadRatio %.4f", c.k, mean, se, e)
		}
	}
}

func TestFanoutStats(t *testing.T) {
	// Seed 000: p99 is the sorted fan-out at index floor(0.99 x (n-1)).
	// 100 equal instances: index 98. 98 of fan-out 1 and 2 of 64: the
	// element at 98 is 64. 99 of fan-out 1 and 1 of 64: it is 1.
	check := func(ones, alls int, wantP99, wantMean float64) {
		t.Helper()
		h := make([]float64, 65)
		h[1], h[64] = float64(ones), float64(alls)
		mean, p99 := fanoutStats(h, int64(ones+alls))
		if p99 != wantP99 || math.Abs(mean-wantMean) > 1e-12 {
			t.Errorf("%d x 1 + %d x 64: mean %v p99 %v; want %v %v", ones, alls, mean, p99, wantMean, wantP99)
		}
	}
	check(98, 2, 64, (98+128)/100.0)
	check(99, 1, 1, (99+64)/100.0)
	check(0, 5, 64, 64)
	// Fewer than 100 instances (a spec's queries with rates): the seed's
	// index floor(0.99(n-1)) would be a p80 of 5 queries or the smaller of
	// 2, so the p99 is the smallest fan-out whose cumulative rate share
	// reaches 0.99. Of 10 instances, 5% of the rate at fan-out 8: above
	// the 99% line, p99 8; 0.5% at 8: below it, p99 1. Two statements of
	// equal rate with fan-outs 1 and 4: p99 4 (half the requests ask 4).
	h := make([]float64, 9)
	for _, c := range []struct {
		one, eight, want float64
		n                int64
	}{{0.85, 0.15, 8, 10}, {0.95, 0.05, 8, 10}, {0.995, 0.005, 1, 10}} {
		h[1], h[8] = c.one, c.eight
		if _, p := fanoutStats(h, c.n); p != c.want {
			t.Errorf("%v at 1, %v at 8 (%d instances): p99 = %v; want %v", c.one, c.eight, c.n, p, c.want)
		}
	}
	h = make([]float64, 5)
	h[1], h[4] = 50, 50
	if _, p := fanoutStats(h, 2); p != 4 {
		t.Errorf("two statements, fan-outs 1 and 4 at equal rates: p99 = %v; want 4", p)
	}
}

// workload builds a one-table workload with int64 keys 0..rows-1 (weights
// w(i)) and one read per key.
func workload(rows int, w func(int) float64) *shardkey.Workload {
	t := &shardkey.Table{Name: "t", Rows: rows}
	id := &shardkey.Column{Name: "id", Type: shardkey.Int64}
	other := &shardkey.Column{Name: "other", Type: shardkey.Int64}
	for i := 0; i < rows; i++ {
		id.Ints = append(id.Ints, int64(i))
		other.Ints = append(other.Ints, int64(i%7))
		t.Weights = append(t.Weights, w(i))
	}
	t.Columns = []*shardkey.Column{id, other}
	op := &shardkey.Operation{Name: "get", Table: 0, Kind: shardkey.Read, Rate: 100}
	for i := 0; i < rows; i++ {
		op.Instances = append(op.Instances, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(int64(i))}}})
	}
	scan := &shardkey.Operation{Name: "scan", Table: 0, Kind: shardkey.Read, Rate: 10,
		Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{{Col: 1, Op: shardkey.Eq, Val: shardkey.IntValue(3)}}}}}
	return &shardkey.Workload{Tables: []*shardkey.Table{t}, Ops: []*shardkey.Operation{op, scan}, Shards: 8}
}

// TestMergeEqualsWhole: partials of disjoint slices merge into the partial
// of the whole, whatever the split (here: 1 worker vs 2, and chunks).
func TestMergeEqualsWhole(t *testing.T) {
	w := workload(200000, func(i int) float64 { return 1 + float64(i%13) })
	d, _ := shardkey.ParseDesign("hash(id)")
	s, err := Compile(w, d, Options{Shards: 8})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Run(w, s, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(w, s, 2)
	if err != nil {
		t.Fatal(err)
	}
	ca, cb := s.Report(a), s.Report(b)
	for i := range ca.ShardLoad {
		if ca.ShardLoad[i] != cb.ShardLoad[i] || ca.ShardWork[i] != cb.ShardWork[i] {
			t.Fatalf("shard %d: 1 worker %v/%v, 2 workers %v/%v", i, ca.ShardLoad[i], ca.ShardWork[i], cb.ShardLoad[i], cb.ShardWork[i])
		}
	}
	// Closed forms: the point reads cost 100 units/s in all, the scan
	// asks all 8 shards: 10 x 8; total load is the sum of weights.
	if !close(ca.WorkPerS, 100+80) || !close(ca.RequestsPerS, 110) {
		t.Errorf("work %v requests %v; want 180 and 110", ca.WorkPerS, ca.RequestsPerS)
	}
	total := 0.0
	for i := 0; i < 200000; i++ {
		total += 1 + float64(i%13)
	}
	sum := 0.0
	for _, x := range ca.ShardLoad {
		sum += x
	}
	if !close(sum, total) {
		t.Errorf("load sums to %v; want %v", sum, total)
	}
	// Routing two halves separately and adding the weights in file order
	// gives the whole's loads bit for bit.
	h1, h2 := NewPartial(8, 2), NewPartial(8, 2)
	ids := make([]int32, 200000)
	r := newRouter(s)
	if err := r.rows(h1, w.Tables[0], 0, 100000, 200000, ids); err != nil {
		t.Fatal(err)
	}
	if err := r.rows(h2, w.Tables[0], 0, 0, 100000, ids); err != nil {
		t.Fatal(err)
	}
	h1.Merge(h2)
	for i, id := range ids {
		h1.Load[id] += w.Tables[0].Weight(i)
	}
	for i := range h1.Load {
		if h1.Load[i] != a.Load[i] {
			t.Errorf("halves shard %d load %v; whole %v", i, h1.Load[i], a.Load[i])
		}
	}
}

// TestExactMean: the mean is correctly rounded, like Python's
// statistics.mean: 0.1 + 0.2 + 0.3 summed left to right is
// 0.6000000000000001, but the exact mean of the three doubles rounds to
// 0.2.
func TestExactMean(t *testing.T) {
	if got := exactMean([]float64{0.1, 0.2, 0.3}); got != 0.2 {
		t.Errorf("exactMean = %.17g; want 0.2", got)
	}
	if got := exactMean([]float64{1e308, 1e308, -1e308, -1e308}); got != 0 {
		t.Errorf("exactMean of cancelling huge values = %v; want 0", got)
	}
}

// TestExactMeanPartials: the two-sum partials give the mean the
// 2,200-bit sum gives (bigMean over every value), for values of every
// magnitude and sign, many cancelling, and 16,384 slot-sized arrays.
func TestExactMeanPartials(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for trial := 0; trial < 400; trial++ {
		n := 1 + rng.IntN(64)
		if trial%100 == 1 {
			n = 16384
		}
		xs := make([]float64, n)
		for i := range xs {
			x := math.Ldexp(rng.Float64(), rng.IntN(2000)-1000)
			switch trial % 4 {
			case 1:
				x = math.Ldexp(rng.Float64(), rng.IntN(40)) // work rates
			case 2:
				x = math.Ldexp(1, rng.IntN(1000)+23) // huge, cancelling below
			}
			if rng.IntN(2) == 0 && trial%4 != 1 {
				x = -x
			}
			xs[i] = x
		}
		if trial%4 == 2 {
			xs = append(xs, 1e-300)
			for i := range n {
				xs = append(xs, -xs[i])
			}
		}
		if got, want := exactMean(xs), bigMean(xs); got != want {
			t.Fatalf("trial %d (%d values): exactMean %.17g, bigMean %.17g", trial, len(xs), got, want)
		}
	}
	// A two-sum that overflows falls back to the big sum.
	if got := exactMean([]float64{math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64}); got != math.MaxFloat64/3 {
		t.Errorf("overflowing partials: %v; want MaxFloat64/3", got)
	}
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestRebalanceClosedForm: from n to n+1 shards, modulo moves n/(n+1) of
// uniformly hashed keys and jump 1/(n+1).
func TestRebalanceClosedForm(t *testing.T) {
	w := workload(100000, func(int) float64 { return 1 })
	c, err := Score(w, "hash(id)", Options{Shards: 8})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"modulo": 8.0 / 9, "jump": 1.0 / 9}
	for _, m := range c.Rebalance {
		if x, ok := want[m.Placement]; ok {
			// Binomial sampling error with 100,000 keys: sd < 0.0016.
			if math.Abs(m.KeysMoved-x) > 0.007 {
				t.Errorf("%s moves %.4f of keys; want %.4f", m.Placement, m.KeysMoved, x)
			}
			delete(want, m.Placement)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing rebalance entries %v", want)
	}
}

// TestRangeRouting: equal-weight quantile boundaries split 800 equal keys
// into 8 ranges of 100; a range predicate touches exactly the ranges it
// overlaps.
func TestRangeRouting(t *testing.T) {
	w := workload(800, func(int) float64 { return 1 })
	w.Ops = []*shardkey.Operation{{Name: "range", Table: 0, Kind: shardkey.Read, Rate: 1, Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{{
		Col: 0, Op: shardkey.Range, Bounds: &shardkey.Bounds{Lo: shardkey.IntValue(150), HasLo: true, LoIncl: true, Hi: shardkey.IntValue(300), HasHi: true}}}}}}}
	c, err := Score(w, "range(id)", Options{Shards: 8})
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range c.ShardLoad {
		if x != 100 {
			t.Errorf("shard %d load %v; want 100", i, x)
		}
	}
	// [150, 300) overlaps ranges [100,200) and [200,300): shards 1 and 2.
	want := []float64{0, 1, 1, 0, 0, 0, 0, 0}
	for i := range want {
		if c.ShardWork[i] != want[i] {
			t.Errorf("shard %d work %v; want %v", i, c.ShardWork[i], want[i])
		}
	}
	// With the upper bound inclusive, 300 itself is in range [300,400).
	w.Ops[0].Instances[0].Conds[0].Bounds.HiIncl = true
	c, _ = Score(w, "range(id)", Options{Shards: 8})
	if c.ShardWork[3] != 1 {
		t.Errorf("<= 300 should touch shard 3; work %v", c.ShardWork)
	}
}

// TestReplicateAndCrossShard: a reference table's reads stay local and
// its writes touch every shard; a transaction writing two keys on
// different shards is cross-shard.
func TestReplicateAndCrossShard(t *testing.T) {
	w := workload(16, func(int) float64 { return 1 })
	w.Ops = []*shardkey.Operation{
		{Name: "read", Table: 0, Kind: shardkey.Read, Rate: 10, Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(1)}}}}},
		{Name: "write", Table: 0, Kind: shardkey.Update, Rate: 1, Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(1)}}}}},
	}
	c, err := Score(w, "t:replicate", Options{Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	// Reads: 10/s spread over 4 shards (2.5 each); writes 1/s on all 4.
	for i, x := range c.ShardWork {
		if !close(x, 3.5) {
			t.Errorf("shard %d work %v; want 3.5", i, x)
		}
	}
	if c.Operations[0].FanoutMean != 1 || c.Operations[1].FanoutMean != 4 {
		t.Errorf("fan-out read %v write %v; want 1 and 4", c.Operations[0].FanoutMean, c.Operations[1].FanoutMean)
	}
	// Find two ids on different shards and one pair on the same shard.
	sh := func(v int64) uint64 { return partition.Generic{}.PointInt64(v) % 4 }
	var a, b, same int64 = 0, -1, -1
	for v := int64(1); v < 100 && (b < 0 || same < 0); v++ {
		if sh(v) != sh(a) && b < 0 {
			b = v
		}
		if sh(v) == sh(a) && same < 0 {
			same = v
		}
	}
	ins := func(v int64) shardkey.Stmt {
		return shardkey.Stmt{Table: 0, Kind: shardkey.Insert, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(v)}}}
	}
	w.Txns = []shardkey.Txn{{Weight: 1, Stmts: []shardkey.Stmt{ins(a), ins(b)}}, {Weight: 3, Stmts: []shardkey.Stmt{ins(a), ins(same)}}}
	c, _ = Score(w, "hash(id)", Options{Shards: 4})
	if !close(c.CrossShardTxnFraction, 0.25) {
		t.Errorf("cross-shard fraction %v; want 1/(1+3) = 0.25", c.CrossShardTxnFraction)
	}
	// Fresh ids: two inserts sharing one new id are never cross-shard;
	// two independent new ids collide with probability 1/4.
	fresh := func(v int32) shardkey.Stmt {
		return shardkey.Stmt{Table: 0, Kind: shardkey.Insert, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Fresh: shardkey.FreshNewest, FreshVar: v}}}
	}
	w.Txns = []shardkey.Txn{{Weight: 1, Stmts: []shardkey.Stmt{fresh(1), fresh(1)}}}
	c, _ = Score(w, "hash(id)", Options{Shards: 4})
	if c.CrossShardTxnFraction != 0 {
		t.Errorf("shared new id: cross %v; want 0", c.CrossShardTxnFraction)
	}
	w.Txns = []shardkey.Txn{{Weight: 1, Stmts: []shardkey.Stmt{fresh(1), fresh(2)}}}
	c, _ = Score(w, "hash(id)", Options{Shards: 4})
	if !close(c.CrossShardTxnFraction, 0.75) {
		t.Errorf("independent new ids: cross %v; want 3/4", c.CrossShardTxnFraction)
	}
}

func TestCompileErrors(t *testing.T) {
	w := workload(10, func(int) float64 { return 1 })
	for _, c := range []struct{ key, want string }{
		{"hash(nope)", `no table has column(s) nope`},
		{"t:hash(nope)", `no column "nope"`},
		{"x:hash(id)", `no table "x"`},
		{"salt(hash(id), 9, top=1)", "needs at least 9 shards"},
		{"isolate(hash(id), top=8)", "more than 8 shards"},
	} {
		_, err := Score(w, c.key, Options{Shards: 8})
		if err == nil || !contains(err.Error(), c.want) {
			t.Errorf("Score(%q) error %v; want it to mention %q", c.key, err, c.want)
		}
	}
	if _, err := Score(w, "hash(id)", Options{Shards: 0}); err == nil {
		t.Error("0 shards accepted")
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestKeyStats: closed forms for cardinality, top values, entropy and
// monotonicity.
func TestKeyStats(t *testing.T) {
	tb := &shardkey.Table{Name: "t", Rows: 4, Weights: []float64{1, 1, 1, 1}}
	c := &shardkey.Column{Name: "v", Type: shardkey.Int64, Ints: []int64{7, 7, 7, 9}}
	tb.Columns = []*shardkey.Column{c}
	ks := ComputeKeyStats(tb, []int{0})
	if ks.Cardinality != 2 || ks.TopValues[0].Value != "7" || ks.TopValues[0].Share != 0.75 || ks.TopValues[1].Share != 0.25 {
		t.Errorf("stats %+v", ks)
	}
	want := -(0.75*math.Log2(0.75) + 0.25*math.Log2(0.25))
	if math.Abs(ks.Entropy-want) > 1e-12 {
		t.Errorf("entropy %v; want %v", ks.Entropy, want)
	}
	// A weight that vanishes beside another (p rounds to 0) adds 0, not
	// NaN (0 * log2 0): here the entropy is 0 to within 1e-398.
	tiny := &shardkey.Table{Name: "w", Rows: 2, Weights: []float64{1e-200, 1e200}, Columns: []*shardkey.Column{
		{Name: "v", Type: shardkey.Int64, Ints: []int64{1, 2}}}}
	if ks := ComputeKeyStats(tiny, []int{0}); ks.Entropy != 0 || ks.Cardinality != 2 {
		t.Errorf("entropy of weights 1e-200 and 1e200: %v; want 0", ks.Entropy)
	}
	// Increasing ids are monotonic (r = 1); reversed, r = -1.
	inc := &shardkey.Table{Name: "u", Rows: 1000}
	ci := &shardkey.Column{Name: "id", Type: shardkey.Int64}
	ct := &shardkey.Column{Name: "s", Type: shardkey.Text}
	for i := 0; i < 1000; i++ {
		ci.Ints = append(ci.Ints, int64(i*3))
		ct.Strs = append(ct.Strs, fmt.Sprintf("k%04d", 1000-i))
	}
	inc.Columns = []*shardkey.Column{ci, ct}
	if ks := ComputeKeyStats(inc, []int{0}); math.Abs(ks.Monotonicity-1) > 1e-12 || !ks.Monotonic || ks.Cardinality != 1000 {
		t.Errorf("increasing ids: %+v", ks)
	}
	if ks := ComputeKeyStats(inc, []int{1}); math.Abs(ks.Monotonicity+1) > 1e-12 || !ks.Monotonic {
		t.Errorf("decreasing text: r = %v", ks.Monotonicity)
	}
}

// TestReplicatedReadInTxnIsLocal: a read of a reference table inside a
// transaction is answered on the transaction's shard (PRODUCT.md), so a
// transaction of one keyed insert and reference reads never crosses.
func TestReplicatedReadInTxnIsLocal(t *testing.T) {
	w := workload(16, func(int) float64 { return 1 })
	item := &shardkey.Table{Name: "item", Rows: 2, Columns: []*shardkey.Column{{Name: "i_id", Type: shardkey.Int64, Ints: []int64{1, 2}}}}
	w.Tables = append(w.Tables, item)
	read := shardkey.Stmt{Table: 1, Kind: shardkey.Read, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(1)}}}
	ins := shardkey.Stmt{Table: 0, Kind: shardkey.Insert, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(3)}}}
	w.Txns = []shardkey.Txn{{Weight: 1, Stmts: []shardkey.Stmt{ins, read, read}}}
	c, err := Score(w, "t:hash(id); item:replicate", Options{Shards: 8})
	if err != nil {
		t.Fatal(err)
	}
	if c.CrossShardTxnFraction != 0 {
		t.Errorf("cross-shard fraction %v; want 0", c.CrossShardTxnFraction)
	}
}

// TestSaltedRangeKey: salting a range key spreads the hot value's rows
// over K buckets, so, as under a salted hash key, a read of the value asks
// all K (fan-out K), a range read spanning it asks them too, and two
// inserts of it land on the same bucket with probability 1/K (cross-shard
// 1 - 1/K). (Reads and inserts of it were routed to its home shard only.)
func TestSaltedRangeKey(t *testing.T) {
	const k = 3
	tb := &shardkey.Table{Name: "t", Rows: 900}
	cid := &shardkey.Column{Name: "cid", Type: shardkey.Int64}
	for i := 0; i < tb.Rows; i++ {
		v := int64(i)
		if i%3 == 0 {
			v = 1 // the hot value: a third of the rows
		}
		cid.Ints = append(cid.Ints, v)
	}
	tb.Columns = []*shardkey.Column{cid}
	eq := func(v int64) []shardkey.Cond {
		return []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(v)}}
	}
	read := &shardkey.Operation{Name: "read hot", Kind: shardkey.Read, Rate: 1, Instances: []shardkey.Instance{{Weight: 1, Conds: eq(1)}}}
	w := &shardkey.Workload{Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{read}, Shards: 8,
		Txns: []shardkey.Txn{{Weight: 1, Stmts: []shardkey.Stmt{{Kind: shardkey.Insert, Conds: eq(1)}, {Kind: shardkey.Insert, Conds: eq(1)}}}}}
	c, err := Score(w, "salt(range(cid), 3, top=1)", Options{Shards: 8})
	if err != nil {
		t.Fatal(err)
	}
	if c.FanoutMean != k || math.Abs(c.CrossShardTxnFraction-(1-1.0/k)) > 1e-12 {
		t.Errorf("fan-out %v, cross-shard %v; want %d and %v", c.FanoutMean, c.CrossShardTxnFraction, k, 1-1.0/k)
	}
	d, _ := shardkey.ParseDesign("salt(range(cid), 3, top=1)")
	s, err := Compile(w, d, Options{Shards: 8})
	if err != nil {
		t.Fatal(err)
	}
	hot, err := s.Explain(0, shardkey.Read, eq(1))
	if err != nil || len(hot.Shards) != k || !strings.Contains(hot.Reason, "a salted hot value is read from all 3 of its buckets") {
		t.Fatalf("read of the hot value: %+v, %v; want its %d buckets, said", hot, err, k)
	}
	// Cold values say nothing of buckets.
	cold, err := s.Explain(0, shardkey.Read, []shardkey.Cond{{Col: 0, Op: shardkey.In, List: []shardkey.Value{shardkey.IntValue(2), shardkey.IntValue(899)}}})
	if err != nil || strings.Contains(cold.Reason, "salted") {
		t.Errorf("read of cold values: %+v, %v; want no word of salting", cold, err)
	}
	span, err := s.Explain(0, shardkey.Read, []shardkey.Cond{{Col: 0, Op: shardkey.Range, Bounds: &shardkey.Bounds{Lo: shardkey.IntValue(0), HasLo: true, Hi: shardkey.IntValue(2), HasHi: true}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range hot.Shards {
		if !slices.Contains(span.Shards, b) {
			t.Errorf("range read over the hot value asks %v; want every bucket of %v", span.Shards, hot.Shards)
		}
	}
}

// TestRangeBoundsFromTraffic: without rows, a range key's boundaries come
// from the values the statements bind. 100 reads, one per customer_id
// 1..100, all equally weighted, on 4 shards: boundaries at the quartiles
// (26, 51, 76), so each shard gets 25 of the reads.
func TestRangeBoundsFromTraffic(t *testing.T) {
	w := &shardkey.Workload{Shards: 4}
	tb := &shardkey.Table{Name: "orders"}
	tb.AddColumn("customer_id", shardkey.Int64)
	w.Tables = append(w.Tables, tb)
	op := &shardkey.Operation{Name: "by customer", Rate: 100}
	for i := 1; i <= 100; i++ {
		op.Instances = append(op.Instances, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(int64(i))}}})
	}
	w.Ops = append(w.Ops, op)
	c, err := Score(w, "range(customer_id)", Options{Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	for s, x := range c.ShardWork {
		if math.Abs(x-25) > 1e-9 {
			t.Errorf("shard %d does %v units/s; want 25 (%v)", s, x, c.ShardWork)
		}
	}
}

// TestIsolateWholeGroup: isolate's hot values are the design's, over every
// table it keys, so a whale's rows in all of them share its dedicated
// shard. customers holds customers 1..10 once each (each table alone
// would pick customer 1, the first of equals); orders holds 50 orders of
// customer 7 and 5 of each other. On 4 shards, isolate(hash(customer_id),
// top=1) gives customer 7 shard 3: its customer row and its 50 orders,
// load 51, and nothing else.
func TestIsolateWholeGroup(t *testing.T) {
	w := &shardkey.Workload{Shards: 4}
	cust := &shardkey.Table{Name: "customers"}
	cust.AddColumn("customer_id", shardkey.Int64)
	for i := 1; i <= 10; i++ {
		cust.Columns[0].Append(shardkey.IntValue(int64(i)))
	}
	cust.Rows = 10
	ord := &shardkey.Table{Name: "orders"}
	ord.AddColumn("customer_id", shardkey.Int64)
	for i := 1; i <= 10; i++ {
		n := 5
		if i == 7 {
			n = 50
		}
		for j := 0; j < n; j++ {
			ord.Columns[0].Append(shardkey.IntValue(int64(i)))
			ord.Rows++
		}
	}
	w.Tables = []*shardkey.Table{cust, ord}
	// Customer 7's profile and its orders, read once a second each: both
	// on the dedicated shard.
	for ti := range w.Tables {
		w.Ops = append(w.Ops, &shardkey.Operation{Name: fmt.Sprint("read ", ti), Table: ti, Rate: 1,
			Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(7)}}}}})
	}
	c, err := Score(w, "isolate(hash(customer_id), top=1)", Options{Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	if c.ShardLoad[3] != 51 || c.ShardWork[3] != 2 {
		t.Errorf("dedicated shard holds %v rows and does %v units/s; want 51 (customer 7's row and its 50 orders) and 2 (both reads of customer 7): load %v", c.ShardLoad[3], c.ShardWork[3], c.ShardLoad)
	}
}

// TestRangeFewKeys: four warehouses of 249, 251, 250 and 250 rows on four
// shards under range(w_id). Equal-weight quantiles put the first split
// (250 rows) inside warehouse 2 and the second (500) at its end, so a
// greedy placement gave warehouses 1 and 2 one shard and left one empty;
// with no more distinct keys than shards, each key gets a range of its
// own: loads 249, 251, 250, 250.
func TestRangeFewKeys(t *testing.T) {
	sizes := []int{249, 251, 250, 250}
	tb := &shardkey.Table{Name: "warehouse_rows"}
	c := &shardkey.Column{Name: "w_id", Type: shardkey.Int64}
	for k, n := range sizes {
		for range n {
			c.Ints = append(c.Ints, int64(k+1))
			tb.Weights = append(tb.Weights, 1)
			tb.Rows++
		}
	}
	tb.Columns = []*shardkey.Column{c}
	w := &shardkey.Workload{Tables: []*shardkey.Table{tb}, Shards: 4}
	cand, err := Score(w, "range(w_id)", Options{Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range sizes {
		if cand.ShardLoad[i] != float64(n) {
			t.Fatalf("shard loads %v; want %v (one warehouse a shard)", cand.ShardLoad, sizes)
		}
	}
}

// TestRebalanceCitusFixedShards: Citus keeps its shards' hash intervals
// when workers are added and moves whole shards (by_shard_count). With
// shard_count=32 on 4 nodes (8 each), 5 nodes hold 7,7,6,6,6: 6 of the 32
// shards move, 6/32 of uniformly hashed keys. With the default shard
// count equal to the node count (4 shards, 4 nodes), a fifth node gets no
// shard: 0 keys move, and the note says why rather than leaving a 0 that
// reads as free growth.
func TestRebalanceCitusFixedShards(t *testing.T) {
	w := workload(100000, func(int) float64 { return 1 })
	for _, c := range []struct {
		engine string
		want   float64
		note   string
	}{
		{"citus:shard_count=32", 6.0 / 32, "whole shards move"},
		{"citus", 0, "a new node gets no shard"},
	} {
		eng, err := partition.Lookup(c.engine)
		if err != nil {
			t.Fatal(err)
		}
		cand, err := Score(w, "hash(id)", Options{Shards: 4, Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, m := range cand.Rebalance {
			if !strings.HasSuffix(m.Placement, " growth") || m.To != 5 {
				continue
			}
			found = true
			// Binomial sampling error with 100,000 keys: sd < 0.0013.
			if math.Abs(m.KeysMoved-c.want) > 0.006 || !strings.Contains(m.Note, c.note) {
				t.Errorf("%s: 4 -> 5 nodes moves %.4f of keys, note %q; want %.4f and a note saying %q", c.engine, m.KeysMoved, m.Note, c.want, c.note)
			}
		}
		if !found {
			t.Errorf("%s: no growth to 5 nodes in %+v", c.engine, cand.Rebalance)
		}
	}
}

// TestBroadcastWriteIsCrossShardTxn: with no transaction recorded, each
// write is an autocommit transaction (README). A write to a replicated
// table writes every copy, a broadcast write (not scatter-gather) that
// commits on every shard: t:replicate on 4 shards, 10 reads/s and 1
// update/s of t, is 1 transaction/s, all cross-shard (1/1 = 100%); the
// update's fan-out is 4, its scatter_fraction 0 and broadcast true. Under
// hash(id) the same update binds id = 1: one shard, 0% of 1. Two tables,
// t keyed by hash(id) written 3/s on one shard and u replicated written
// 1/s: 1 of 4 transactions/s crosses, 25%. A workload that records its
// transactions (a log, where each autocommit write is among them) is
// scored on those alone: one single-shard transaction of weight 1, 0%.
func TestBroadcastWriteIsCrossShardTxn(t *testing.T) {
	eq := []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(1)}}
	w := workload(16, func(int) float64 { return 1 })
	w.Ops = []*shardkey.Operation{
		{Name: "read", Table: 0, Kind: shardkey.Read, Rate: 10, Instances: []shardkey.Instance{{Weight: 1, Conds: eq}}},
		{Name: "write", Table: 0, Kind: shardkey.Update, Rate: 1, Instances: []shardkey.Instance{{Weight: 1, Conds: eq}}},
	}
	c, err := Score(w, "t:replicate", Options{Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	if c.Transactions != 1 || c.CrossShardTxnFraction != 1 {
		t.Errorf("t:replicate: %d transactions, %v cross-shard; want 1, 1", c.Transactions, c.CrossShardTxnFraction)
	}
	if o := c.Operations[1]; o.FanoutMean != 4 || o.ScatterFraction != 0 || !o.Broadcast {
		t.Errorf("t:replicate write: fan-out %v, scatter %v, broadcast %v; want 4, 0, true", o.FanoutMean, o.ScatterFraction, o.Broadcast)
	}
	if o := c.Operations[0]; o.Broadcast || o.FanoutMean != 1 {
		t.Errorf("t:replicate read: broadcast %v, fan-out %v; want false, 1", o.Broadcast, o.FanoutMean)
	}
	if c, _ = Score(w, "hash(id)", Options{Shards: 4}); c.Transactions != 1 || c.CrossShardTxnFraction != 0 || c.Operations[1].Broadcast {
		t.Errorf("hash(id): %d transactions, %v cross-shard, broadcast %v; want 1, 0, false", c.Transactions, c.CrossShardTxnFraction, c.Operations[1].Broadcast)
	}
	// A second table, u, replicated and written 1/s; t written 3/s by id.
	u := &shardkey.Table{Name: "u", Rows: 4, Columns: []*shardkey.Column{{Name: "code", Type: shardkey.Int64, Ints: []int64{1, 2, 3, 4}}}}
	w2 := &shardkey.Workload{Tables: []*shardkey.Table{w.Tables[0], u}, Ops: []*shardkey.Operation{
		{Name: "write t", Table: 0, Kind: shardkey.Update, Rate: 3, Instances: []shardkey.Instance{{Weight: 1, Conds: eq}}},
		{Name: "write u", Table: 1, Kind: shardkey.Update, Rate: 1, Instances: []shardkey.Instance{{Weight: 1, Conds: eq}}},
	}}
	if c, err = Score(w2, "t:hash(id); u:replicate", Options{Shards: 4}); err != nil || !close(c.CrossShardTxnFraction, 0.25) || c.Transactions != 2 {
		t.Errorf("t 3/s keyed, u 1/s replicated: %v, %v cross-shard of %d transaction instances; want 0.25 of 2", err, c.CrossShardTxnFraction, c.Transactions)
	}
	// Transactions recorded: they alone count.
	w.Txns = []shardkey.Txn{{Weight: 1, Stmts: []shardkey.Stmt{{Table: 0, Kind: shardkey.Read, Conds: eq}}}}
	if c, _ = Score(w, "t:replicate", Options{Shards: 4}); c.Transactions != 1 || c.CrossShardTxnFraction != 0 {
		t.Errorf("t:replicate with a recorded read-only transaction: %d, %v; want 1, 0", c.Transactions, c.CrossShardTxnFraction)
	}
}
