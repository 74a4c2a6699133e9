package sqllog

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/kmv"
	"github.com/shardkey/shardkey/sim"
)

// trafficLog returns a PostgreSQL stderr log of the given statements,
// one a millisecond, in sessions of their own (autocommit reads).
func trafficLog(stmts []string) string {
	var b strings.Builder
	for i, s := range stmts {
		fmt.Fprintf(&b, "2024-03-01 00:%02d:%02d.%03d UTC [%d] app@db LOG:  statement: %s\n", i/60000, i/1000%60, i%1000, 1000+i%7, s)
	}
	return b.String()
}

// trafficStats returns the traffic key statistics of table.col.
func trafficStats(t *testing.T, w *shardkey.Workload, table, col string) sim.KeyStats {
	t.Helper()
	ti := w.TableIndex(table)
	if ti < 0 {
		t.Fatalf("no table %s", table)
	}
	ci := w.Tables[ti].ColumnIndex(col)
	if ci < 0 {
		t.Fatalf("no column %s.%s", table, col)
	}
	return sim.TrafficKeyStats(w, ti, []int{ci})
}

// withoutCounts returns the statistics from the sampled instances alone,
// as before the reader counted every statement.
func withoutCounts(t *testing.T, w *shardkey.Workload, table, col string) sim.KeyStats {
	t.Helper()
	tb := w.Tables[w.TableIndex(table)]
	saved := tb.Traffic
	tb.Traffic = nil
	defer func() { tb.Traffic = saved }()
	return trafficStats(t, w, table, col)
}

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b)) }

// TestTrafficCountsEveryStatement: a log names 50 customers, customer i
// in i statements "customer_id = i", and customers 49 and 50 besides in
// 10 statements "customer_id IN (49, 50)" (each value half a statement):
// weights i for i <= 48, 54 and 55, 1,285 in all. With a reservoir of 4
// instances a shape (8 in all) the key statistics still count every
// statement: cardinality 50, shares w/1285 (50 first: 55/1285), entropy
// -sum p log2 p; the same figures as a read that keeps every statement,
// and, within float rounding, as the sampled instances give when the
// sample is every statement.
func TestTrafficCountsEveryStatement(t *testing.T) {
	var stmts []string
	for i := 1; i <= 50; i++ {
		for range i {
			stmts = append(stmts, fmt.Sprintf("SELECT * FROM orders WHERE customer_id = %d", i))
		}
	}
	for range 10 {
		stmts = append(stmts, "SELECT * FROM orders WHERE customer_id IN (49, 50)")
	}
	// A fixed interleaving (37 is prime to 1285): not value by value.
	n := len(stmts)
	mixed := make([]string, n)
	for i := range stmts {
		mixed[i*37%n] = stmts[i]
	}
	log := trafficLog(mixed)
	weight := func(v int) float64 {
		switch v {
		case 49:
			return 54
		case 50:
			return 55
		}
		return float64(v)
	}
	const total = 1285.0
	wantEntropy := 0.0
	for v := 1; v <= 50; v++ {
		p := weight(v) / total
		wantEntropy -= p * math.Log2(p)
	}
	wantTop := []int{50, 49, 48, 47, 46, 45, 44, 43, 42, 41}

	small := readText(t, log, Options{Sample: 4, MaxInstances: 8})
	ks := trafficStats(t, small, "orders", "customer_id")
	if ks.Cardinality != 50 || ks.Estimated {
		t.Errorf("cardinality %d (estimated %v), want 50 exactly", ks.Cardinality, ks.Estimated)
	}
	if len(ks.TopValues) != len(wantTop) {
		t.Fatalf("top values %v, want %v", ks.TopValues, wantTop)
	}
	for i, v := range wantTop {
		tv := ks.TopValues[i]
		if tv.Value != strconv.Itoa(v) || !near(tv.Share, weight(v)/total, 1e-12) {
			t.Errorf("top value %d: %s at %v, want %d at %v", i, tv.Value, tv.Share, v, weight(v)/total)
		}
	}
	if !near(ks.Entropy, wantEntropy, 1e-12) || ks.EntropyEstimated {
		t.Errorf("entropy %v (estimated %v), want %v exactly", ks.Entropy, ks.EntropyEstimated, wantEntropy)
	}
	// The statements the shares rest on (the whale test's n): 1+...+50
	// = 1,275 naming one customer and the 10 IN lists, each once.
	if ks.Named != 1285 {
		t.Errorf("statements naming customer_id %d, want 1,285", ks.Named)
	}
	if old := withoutCounts(t, small, "orders", "customer_id"); old.Cardinality >= 50 {
		t.Errorf("the 8 sampled instances alone give cardinality %d: the test does not tell counts from the sample", old.Cardinality)
	}

	all := readText(t, log, Options{Sample: 1 << 20, MaxInstances: math.MaxInt32, MaxTxnStatements: math.MaxInt32})
	ka := trafficStats(t, all, "orders", "customer_id")
	if ka.Cardinality != ks.Cardinality || ka.Entropy != ks.Entropy || fmt.Sprint(ka.TopValues) != fmt.Sprint(ks.TopValues) {
		t.Errorf("keeping every statement: %d %v %v; with the small reservoir: %d %v %v", ka.Cardinality, ka.Entropy, ka.TopValues, ks.Cardinality, ks.Entropy, ks.TopValues)
	}
	ko := withoutCounts(t, all, "orders", "customer_id")
	if ka.Named != 1285 || ko.Named != 1285 {
		t.Errorf("statements naming customer_id: %d from the counts, %d from the instances of every statement; want 1,285", ka.Named, ko.Named)
	}
	if ko.Cardinality != 50 || !near(ko.Entropy, ks.Entropy, 1e-12) || len(ko.TopValues) != len(ks.TopValues) {
		t.Fatalf("the instances of a sample of every statement: %d %v %v; the counts: %d %v %v", ko.Cardinality, ko.Entropy, ko.TopValues, ks.Cardinality, ks.Entropy, ks.TopValues)
	}
	for i := range ko.TopValues {
		if ko.TopValues[i].Value != ks.TopValues[i].Value || !near(ko.TopValues[i].Share, ks.TopValues[i].Share, 1e-12) {
			t.Errorf("top value %d: instances %v, counts %v", i, ko.TopValues[i], ks.TopValues[i])
		}
	}
}

// TestTrafficTiesFirstSeen: values of equal weight are listed in the
// order a sample of every statement lists them: operation shape by
// shape (first seen in the log), then statement by statement. Here the
// IN shape comes first in the log and names 7 then 3; the = shape names
// 3, 5 and 7 once each: 3, 5 and 7 weigh 1.5, 1 and 1.5 -> 7 (first in
// the IN list) before 3, then 5.
func TestTrafficTiesFirstSeen(t *testing.T) {
	log := trafficLog([]string{
		"SELECT * FROM t WHERE k IN (7, 3)",
		"SELECT * FROM t WHERE k = 3",
		"SELECT * FROM t WHERE k = 5",
		"SELECT * FROM t WHERE k = 7",
	})
	for _, o := range []Options{{Sample: 1}, {Sample: 1 << 20}} {
		w := readText(t, log, o)
		ks := trafficStats(t, w, "t", "k")
		got := fmt.Sprint(ks.TopValues)
		if want := "[{7 0.375} {3 0.375} {5 0.25}]"; got != want {
			t.Errorf("sample %d: top values %s, want %s", o.Sample, got, want)
		}
		if o.Sample > 1 {
			if old := fmt.Sprint(withoutCounts(t, w, "t", "k").TopValues); old != got {
				t.Errorf("instances give %s, counts %s", old, got)
			}
		}
	}
}

// kmvTol returns the bits an entropy whose sketched values hold share r
// of the weight may be off by when the sketch's estimate of their number
// is off by 3 standard errors (1/sqrt(kmv.K-2) each, internal/kmv):
// the larger of |r log2(1 +- 3s)|.
func kmvTol(r float64) float64 {
	return -r * math.Log2(1-3/math.Sqrt(kmv.K-2))
}

// TestTrafficPastTheCap: 20,000 distinct values, once each, with a
// budget of 1,000 values counted exactly: the per-column cap halves to
// 512, the rest is a k-minimum-values estimate, within 3 standard errors
// (1/sqrt(1022): 9.4%) of 20,000, marked estimated, with a warning. The
// entropy is log2(20,000) = 14.29 bits (512 values' terms exact, the
// rest's share r = 19,488/20,000 spread evenly over the sketch's
// estimate of 19,488, as they are), within r log2(1 - 9.4%) = 0.14 bits,
// marked estimated; the counted values' terms alone were 0.37 bits.
func TestTrafficPastTheCap(t *testing.T) {
	var stmts []string
	for i := range 20000 {
		stmts = append(stmts, fmt.Sprintf("SELECT * FROM t WHERE k = %d", i*7919%1000003))
	}
	w := readText(t, trafficLog(stmts), Options{Sample: 16, MaxCountedValues: 1000})
	ks := trafficStats(t, w, "t", "k")
	if !ks.Estimated || math.Abs(float64(ks.Cardinality)-20000) > 0.094*20000 {
		t.Errorf("cardinality %d (estimated %v), want 20000 within 9.4%%, estimated", ks.Cardinality, ks.Estimated)
	}
	if vc := w.Tables[w.TableIndex("t")].Traffic["k"]; vc == nil || len(vc.Values) != 512 {
		t.Errorf("counts %v: want 512 values listed", vc)
	}
	if want, tol := math.Log2(20000), kmvTol(19488.0/20000); !ks.EntropyEstimated || math.Abs(ks.Entropy-want) > tol {
		t.Errorf("entropy %v (estimated %v), want log2(20000) = %v within %v, estimated", ks.Entropy, ks.EntropyEstimated, want, tol)
	}
	for _, tv := range ks.TopValues {
		if !near(tv.Share, 1.0/20000, 1e-9) {
			t.Errorf("top value %v: share want 1/20000", tv)
		}
	}
	found := false
	for _, e := range w.Warnings {
		found = found || strings.Contains(e.Error(), "value budget")
	}
	if !found {
		t.Errorf("no warning of the value budget in %v", w.Warnings)
	}
}

// TestTrafficEntropySkewedPastCap: a Zipf head, values 1..8 named
// 840/i times each (840, 420, 280, 210, 168, 140, 120, 105: 2,283
// statements), then 16,000 other values once each, 18,283 statements,
// with a budget of 1,000 values counted exactly (cap 512: the head and
// the first 504 of the tail counted, 15,496 sketched). By hand the
// entropy is -sum over the head of p log2 p (p = 840/i/18,283) plus
// 16,000/18,283 log2 18,283; the 15,496 sketched values are evenly used,
// so the estimate is that, within the sketch's error on their number
// (kmvTol of their share 15,496/18,283: 0.12 bits).
func TestTrafficEntropySkewedPastCap(t *testing.T) {
	var stmts []string
	for i := 1; i <= 8; i++ {
		for range 840 / i {
			stmts = append(stmts, fmt.Sprintf("SELECT * FROM t WHERE k = %d", i))
		}
	}
	const tail = 16000
	for i := range tail {
		stmts = append(stmts, fmt.Sprintf("SELECT * FROM t WHERE k = %d", 1000+i*7919%1000003))
	}
	const total = 18283.0
	if len(stmts) != total {
		t.Fatalf("%d statements, want %v", len(stmts), total)
	}
	want := tail / total * math.Log2(total)
	for i := 1; i <= 8; i++ {
		p := float64(840/i) / total
		want -= p * math.Log2(p)
	}
	w := readText(t, trafficLog(stmts), Options{Sample: 16, MaxCountedValues: 1000})
	ks := trafficStats(t, w, "t", "k")
	if vc := w.Tables[w.TableIndex("t")].Traffic["k"]; vc == nil || len(vc.Values) != 512 {
		t.Fatalf("counts %v: want 512 values listed", vc)
	}
	if tol := kmvTol((tail - 504) / total); !ks.EntropyEstimated || math.Abs(ks.Entropy-want) > tol {
		t.Errorf("entropy %v (estimated %v), want %v within %v, estimated", ks.Entropy, ks.EntropyEstimated, want, tol)
	}
	if len(ks.TopValues) == 0 || ks.TopValues[0].Value != "1" || !near(ks.TopValues[0].Share, 840/total, 1e-12) {
		t.Errorf("top values %v: want 1 first at 840/18283", ks.TopValues)
	}
}

// TestCountIndexes counts integers through every index of a column: the
// array for small non-negative ones (growing, and taking over the map's
// when it grows), the map for the rest (negative, too large), and the
// text map for numbers not written as strconv.FormatInt writes them
// ("007", "+5", "1.5"). Each value's weight must be the number of times
// it was given (counted here with a plain map of the texts), each value
// listed once, in first-seen order; then, with the budget cut so that
// the per-column cap halves, the values kept are the first seen and
// still counted in full.
func TestCountIndexes(t *testing.T) {
	var texts []string
	for i := range 30000 {
		texts = append(texts, strconv.Itoa(i*7919%70000)) // 0..69999: the array grows past denseMin
		if i%3 == 0 {
			texts = append(texts, strconv.Itoa(-i), strconv.Itoa(1_000_000_000+i%500))
		}
		if i%1000 == 0 {
			texts = append(texts, "007", "+5", "1.5", "0")
		}
	}
	run := func(maxCounted int) (*agg, *colCount, []string, map[string]float64) {
		a := newAgg(&shardkey.Workload{}, "x", Options{MaxCountedValues: maxCounted})
		c := &colCount{}
		want := map[string]float64{}
		var order []string
		for k, s := range texts {
			if want[s] == 0 {
				order = append(order, s)
			}
			want[s]++
			pos := int32(0)
			a.addCount(c, lit{s: s, kind: litNum}, 1, 0, int64(k), &pos)
		}
		return a, c, order, want
	}
	a, c, order, want := run(0)
	if len(c.dense) <= denseMin || len(c.dense) > denseRatio*len(c.vals) {
		t.Errorf("dense index of %d slots for %d values; want more than %d, at most %d a value", len(c.dense), len(c.vals), denseMin, denseRatio)
	}
	check := func(c *colCount, order []string, n int) {
		t.Helper()
		if len(c.vals) != n {
			t.Fatalf("%d values counted exactly, want %d", len(c.vals), n)
		}
		for j, v := range c.vals {
			if got := v.key.text(); got != order[j] {
				t.Fatalf("value %d is %s, want %s (first-seen order)", j, got, order[j])
			}
			if c.ws[j] != want[order[j]] {
				t.Errorf("value %s: weight %v, want %v", order[j], c.ws[j], want[order[j]])
			}
		}
	}
	if len(order) > exactValues {
		t.Fatalf("test needs at most %d distinct values, has %d", exactValues, len(order))
	}
	check(c, order, len(order))
	if a.lim.countCap != exactValues {
		t.Errorf("cap %d, want %d", a.lim.countCap, exactValues)
	}
	// A budget of 5,000 values: the cap halves from 65,536 to 4,096.
	a, c, order, _ = run(5000)
	if a.lim.countCap != 4096 {
		t.Fatalf("cap %d, want 4096", a.lim.countCap)
	}
	check(c, order, 4096)
	// The values past the cap, and only they, are in the sketch: the
	// k-minimum-values sketch of their texts' hashes, whatever order
	// they came in (once full, the column's filter, keyFilter, sends a
	// value it does not hold straight there; one it holds, counted
	// above, not).
	var sketch []uint64
	for _, s := range order[4096:] {
		sketch = kmv.Add(sketch, xxhash.Sum64String(s))
	}
	if !slices.Equal(c.sketch, sketch) {
		t.Errorf("sketch of %d hashes (estimate %d), want the %d of the %d values past the cap (estimate %d)", len(c.sketch), kmv.Estimate(c.sketch), len(sketch), len(order)-4096, kmv.Estimate(sketch))
	}
}

// TestTrafficMergesEqualValues: values written differently that convert
// to one value of the column's type are one value of the counts, in the
// place of the first seen, with the statements of all: k = 7 twice, then
// k = 07 and k = 8 (integers: 7 counts 3 statements, 8 one, in that
// order); x = 1.5 and x = 1.50 (floats: one value, 2 statements); and
// s = 'b', a text column, as written. Weights are statements over the
// span, so 7's is 3 times 8's, and the total of t.k is 4 times 8's.
func TestTrafficMergesEqualValues(t *testing.T) {
	log := trafficLog([]string{
		"SELECT * FROM t WHERE k = 7",
		"SELECT * FROM t WHERE k = 7",
		"SELECT * FROM t WHERE k = 07",
		"SELECT * FROM t WHERE k = 8",
		"SELECT * FROM f WHERE x = 1.5",
		"SELECT * FROM f WHERE x = 1.50",
		"SELECT * FROM g WHERE s = 'b'",
	})
	w := &shardkey.Workload{}
	if err := Read(t.Context(), w, strings.NewReader(log), "t.log", Options{}); err != nil {
		t.Fatal(err)
	}
	counts := func(table, col string) *shardkey.ValueCounts {
		t.Helper()
		vc := w.Tables[w.TableIndex(table)].Traffic[col]
		if vc == nil {
			t.Fatalf("%s.%s: no counts", table, col)
		}
		return vc
	}
	k := counts("t", "k")
	if len(k.Values) != 2 || k.Values[0] != shardkey.IntValue(7) || k.Values[1] != shardkey.IntValue(8) {
		t.Fatalf("t.k values %v, want [7 8]", k.Values)
	}
	if !near(k.Weights[0], 3*k.Weights[1], 1e-12) || !near(k.Total, 4*k.Weights[1], 1e-12) {
		t.Errorf("t.k weights %v total %v, want 3:1 and a total of 4 statements", k.Weights, k.Total)
	}
	x := counts("f", "x")
	if len(x.Values) != 1 || x.Values[0] != shardkey.FloatValue(1.5) || !near(x.Weights[0], 2*k.Weights[1], 1e-12) {
		t.Errorf("f.x values %v weights %v, want [1.5] of 2 statements", x.Values, x.Weights)
	}
	s := counts("g", "s")
	if len(s.Values) != 1 || s.Values[0] != shardkey.TextValue("b") || !near(s.Weights[0], k.Weights[1], 1e-12) {
		t.Errorf("g.s values %v weights %v, want [b] of 1 statement", s.Values, s.Weights)
	}
}
