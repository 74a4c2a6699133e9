package advisor

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sim"
)

// Ranges fitted value by value.
//
// A range key of few distinct values (TPC-C's 10 warehouses on 8 shards)
// has boundaries at the values themselves: sim takes them at the
// equal-weight quantiles of the sample, so each range holds whole values,
// as many as the sampled traffic makes fit. When the shard count does not
// divide the values, the ranges cannot hold equal numbers of them. If the
// busiest range holds no more values than the most even split of whole
// values puts on one shard, ceil(card/n) (10 values on 8 shards: 2, 1, 1,
// 1, 2, 1, 1, 1), the split is as even as whole values get, whatever the
// traffic: no placement of whole values, hash or directory, does better
// for values of equal traffic, and the design is ranked as any other. If
// some range holds more (3 quiet values on one shard), the split is a
// directory fitted to this sample: it balances only while every value
// keeps its sampled share of traffic, and a value added later goes to the
// last range; such a design's load edge over a design equal on
// everything the operations and transactions touch (its hash twin) is an
// artefact of the fit, so the ranking does not count it (orderBanded):
// the other design goes first. Either way the advice proposes the shard
// counts that do divide the values, with even ranges of whole values
// scored at those counts (evenShardsFix).

// RangeFit describes range boundaries set value by value on a key of few
// distinct values: at most 4 per shard (sim's fewRangeValues), split into
// ranges that do not all hold the same number of values (Fitted says
// whether more than an even split's).
type RangeFit struct {
	// Column is the range key's column (the first range-keyed table's;
	// co-located tables share the boundaries).
	Column string `json:"column"`
	// Cardinality is the number of distinct values the boundaries were
	// fitted to: the sample's, or the statements' without one (Basis
	// "traffic"), a lower bound of what the table holds.
	Cardinality int    `json:"cardinality"`
	Basis       string `json:"basis,omitempty"`
	// ValuesPerShard is how many of those values each shard's range
	// holds, shards 0..n-1.
	ValuesPerShard []int `json:"values_per_shard"`
	// EvenRatio is the busiest shard over the mean for the most even
	// split of whole values of equal traffic: ceil(card/n) x n / card
	// (10 values on 8 shards: 1.60).
	EvenRatio float64 `json:"even_ratio"`
	// EvenShards are the shard counts within n/2..2n that divide the
	// values evenly (10 values, 8 shards: 5 and 10); empty for none.
	EvenShards []int `json:"even_shards"`
	// Fitted is true when some shard's range holds more values than the
	// most even split of whole values puts on one, ceil(card/n): the
	// boundaries follow this sample's traffic (3 quiet values on one
	// shard), and the ranking does not weigh the design's load against a
	// design equal on access (orderBanded). False when the ranges are as
	// even as whole values get but unequal, because n does not divide the
	// values (10 on 8: 2, 1, 1, 1, 2, 1, 1, 1, the busiest 1.60x with
	// values of equal traffic, which no placement of whole values beats):
	// the design is weighed as any other, and the advice proposes the
	// shard counts that divide the values (evenShardsFix).
	Fitted bool `json:"fitted"`
}

// fitted reports whether as's ranges are fitted value by value to this
// sample's traffic (RangeFit.Fitted).
func (as *Assessment) fitted() bool { return as.RangeFit != nil && as.RangeFit.Fitted }

// fitCounts returns how many values each of n shards' ranges holds.
func fitCounts(split [][]string, n int) []int {
	out := make([]int, n)
	for i, vs := range split {
		if i < n {
			out[i] = len(vs)
		}
	}
	return out
}

// rangeFitOf returns the RangeFit of candidate c (design key on n
// shards), or nil when its ranges are not fitted value by value: no
// range key, boundaries given in the key, more than 4 values per shard,
// fewer values than shards (every value alone on its shard is as even as
// whole values get), ranges wrapped in isolate or salt, or ranges that
// hold equal numbers of values.
func rangeFitOf(c *sim.Candidate, key string, n int) *RangeFit {
	if c == nil || len(c.RangeValues) == 0 || n < 2 {
		return nil
	}
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return nil
	}
	exprs := []shardkey.Expr{d.Default}
	for _, e := range d.Tables {
		exprs = append(exprs, e)
	}
	for _, e := range exprs {
		switch m := e.(type) {
		case *shardkey.SaltExpr, *shardkey.IsolateExpr:
			if _, ok := baseExpr(m).(*shardkey.RangeExpr); ok {
				return nil
			}
		}
	}
	counts := fitCounts(c.RangeValues, n)
	card := 0
	for _, vs := range c.RangeValues {
		card += len(vs)
	}
	if card < n || slices.Min(counts) == slices.Max(counts) {
		return nil
	}
	f := &RangeFit{Cardinality: card, ValuesPerShard: counts, EvenShards: evenShards(card, n),
		EvenRatio: float64((card+n-1)/n) * float64(n) / float64(card), Fitted: slices.Max(counts) > (card+n-1)/n}
	if len(c.RangeBounds) > 0 && len(c.RangeBounds[0].Columns) > 0 {
		f.Column = c.RangeBounds[0].Columns[0]
		for _, tk := range c.Tables {
			if tk.Table == c.RangeBounds[0].Table && tk.Basis == "traffic" {
				f.Basis = "traffic"
			}
		}
	}
	if f.EvenShards == nil {
		f.EvenShards = []int{}
	}
	return f
}

// evenShards returns the shard counts within max(2, ceil(n/2))..2n that
// divide card values evenly, ascending (evenCounts' range).
func evenShards(card, n int) []int {
	var out []int
	for d := max(2, (n+1)/2); d <= 2*n; d++ {
		if card%d == 0 {
			out = append(out, d)
		}
	}
	return out
}

// perShard writes counts as "2, 1, 1, 1, 2, 1, 1, 1", or as "1 to 3"
// past 16 shards.
func perShard(counts []int) string {
	if len(counts) > 16 {
		return fmt.Sprintf("%d to %d", slices.Min(counts), slices.Max(counts))
	}
	s := make([]string, len(counts))
	for i, c := range counts {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ", ")
}

// values writes "the 10 values of w_id", or "the 10 values of w_id the
// statements name" for a log's.
func (f *RangeFit) values() string {
	s := fmt.Sprintf("the %d values of %s", f.Cardinality, f.Column)
	if f.Basis == "traffic" {
		s += " the statements name"
	}
	return s
}

// reason is the fitted design's reason: what its split is and why the
// ranking does not count its balance.
func (f *RangeFit) reason(c *sim.Candidate) string {
	n := len(f.ValuesPerShard)
	even := fmt.Sprintf("even ranges of values of equal traffic put %d on the busiest shard, %.2fx the mean", (f.Cardinality+n-1)/n, f.EvenRatio)
	if f.Cardinality%n == 0 {
		even = fmt.Sprintf("ranges of %d values each would place values of equal traffic evenly", f.Cardinality/n)
	}
	return fmt.Sprintf("its range boundaries are fitted value by value: %s fall %s per shard (%s); that balance (busiest shard %s units/s, %.2fx the mean) holds only while each value keeps this sample's share of the traffic, and a value added later goes to the last range, so the ranking weighs this design on what its operations and transactions touch, not on that balance",
		f.values(), perShard(f.ValuesPerShard), even, fmtF(c.MaxShardWork), c.WorkRatio)
}

// orderAccess is the first part of orderBanded: viability, then what the
// operations and transactions touch (local, single-shard, cross-shard
// transactions, work per request) and the isolation boundary; decided is
// false when x and y are within every band.
func orderAccess(x, y *Assessment) (xFirst, decided bool) {
	if x.Viable != y.Viable {
		return x.Viable, true
	}
	a, b := x.Criteria, y.Criteria
	if math.Abs(a.Local-b.Local) > 0.05 {
		return a.Local > b.Local, true
	}
	if math.Abs(a.SingleShard-b.SingleShard) > 0.05 {
		return a.SingleShard > b.SingleShard, true
	}
	if math.Abs(a.CrossShardTxn-b.CrossShardTxn) > 0.02 {
		return a.CrossShardTxn < b.CrossShardTxn, true
	}
	if !closeRel(a.WorkPerRequest, b.WorkPerRequest, 0.1) {
		return a.WorkPerRequest < b.WorkPerRequest, true
	}
	if a.Boundary != b.Boundary {
		return a.Boundary, true
	}
	return false, false
}

// evenShardsFix proposes, for the recommended design best, the shard
// counts that divide a low-cardinality range key's values evenly, each
// scored with ranges of whole values in equal numbers. It applies when
// best's own ranges are fitted value by value, or when a viable design so
// fitted, equal to best on what the operations and transactions touch,
// ranked after it (the rule of orderBanded): the fitted design's tables
// and key are the ones re-split. Of the two counts nearest n (the larger
// first on a tie), those whose even ranges spread the work more evenly
// than best does (work ratio below 0.98 times best's) are proposed. Not
// with slots over nodes (the slot count is the user's, not a key's).
func (a *analysis) evenShardsFix(list []*Assessment, o sim.Options) {
	best := list[0]
	if !best.Viable || o.Nodes != nil {
		return
	}
	src := best
	if best.RangeFit == nil {
		src = nil
		for _, as := range list[1:] {
			if _, decided := orderAccess(best, as); as.Viable && as.fitted() && !decided {
				src = as
				break
			}
		}
	}
	if src == nil || len(src.RangeFit.EvenShards) == 0 {
		return
	}
	f, n := src.RangeFit, o.Shards
	var vals []string
	for _, vs := range src.Score.RangeValues {
		vals = append(vals, vs...)
	}
	d, err := shardkey.ParseDesign(src.Key)
	if err != nil || len(vals) != f.Cardinality {
		return
	}
	counts := slices.Clone(f.EvenShards)
	slices.SortStableFunc(counts, func(x, y int) int {
		dx, dy := abs(x-n), abs(y-n)
		if dx != dy {
			return dx - dy
		}
		return y - x
	})
	if len(counts) > 2 {
		counts = counts[:2]
	}
	type scored struct {
		m      int
		bounds []string
		key    string
		c      *sim.Candidate
	}
	var got []scored
	for _, m := range counts {
		per := f.Cardinality / m
		var bounds []string
		for k := 1; k < m; k++ {
			bounds = append(bounds, vals[k*per])
		}
		kd := d.WithBounds(bounds)
		om := o
		om.Shards = m
		c, err := sim.Score(src.w, kd.Text, om)
		// Only a count that spreads the work more evenly than the
		// recommendation does now (beyond the 2% band of the ranking):
		// one value's own traffic (a whale) no split of whole values
		// can lighten.
		if err != nil || c.WorkRatio >= 0.98*best.Score.WorkRatio {
			continue
		}
		got = append(got, scored{m, bounds, kd.Text, c})
	}
	if len(got) == 0 {
		return
	}
	head := fmt.Sprintf("%s has %d values for %d shards", f.Column, f.Cardinality, n)
	if f.Basis == "traffic" {
		head = fmt.Sprintf("The statements name %d values of %s for %d shards", f.Cardinality, f.Column, n)
	}
	if f.Cardinality%n != 0 {
		head += fmt.Sprintf(", and no split of whole values is even on %d", n)
	}
	fitted := fmt.Sprintf("ranges fitted to this sample (%s values per shard) do %s/s, %.2fx, only while each value keeps its share of the traffic", perShard(f.ValuesPerShard), fmtF(src.Score.MaxShardWork), src.Score.WorkRatio)
	now := []string{fmt.Sprintf("as recommended the busiest shard does %s/s, %.2fx the mean", fmtF(best.Score.MaxShardWork), best.Score.WorkRatio)}
	switch {
	case src != best:
		now = append(now, fitted)
	case f.Fitted:
		now[0] = "as recommended, " + fitted
	default:
		now[0] = fmt.Sprintf("as recommended, ranges of whole values as even as %d shards allow (%s values per shard) do %s/s, %.2fx the mean", n, perShard(f.ValuesPerShard), fmtF(best.Score.MaxShardWork), best.Score.WorkRatio)
	}
	var opts []string
	for i, g := range got {
		per := f.Cardinality / g.m
		what := fmt.Sprintf("%s each (range bounds=[%s])", plural(per, "1 value", fmt.Sprintf("%d values", per)), strings.Join(g.bounds, ", "))
		var o string
		if i == 0 {
			o = fmt.Sprintf("With %d shards, %s, re-simulated: busiest shard %s/s, %.2fx the mean", g.m, what, fmtF(g.c.MaxShardWork), g.c.WorkRatio)
		} else {
			o = fmt.Sprintf("with %d shards, %s: %s/s, %.2fx", g.m, what, fmtF(g.c.MaxShardWork), g.c.WorkRatio)
		}
		if g.c.MaxShardWork > best.Score.MaxShardWork {
			// Fewer shards: more even, but each does more.
			o += fmt.Sprintf(" (more even, but a busier shard than the %s/s recommended on %d)", fmtF(best.Score.MaxShardWork), n)
		}
		opts = append(opts, o)
	}
	text := head + ": " + strings.Join(now, "; ") + ". " + strings.Join(opts, "; ") +
		". Each shard then holds whole values in equal numbers, the tables co-located as before; a value added later needs a new split (the shard count is easy to change later, the key is not)."
	g := got[0]
	best.Fixes = append(best.Fixes, Fix{Kind: "shard-count", Target: f.Column, Key: g.key, Shards: g.m,
		Before: nums(best.Score), After: nums(g.c), Text: text})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// sweepCounts returns the shard counts to sweep the recommended design
// best at: counts, plus, when its key has few values (fewer than 10 per
// shard of n, and not a value per sampled row), the counts within n/2..2n
// that divide them evenly (10 warehouses on 8 shards: 5 and 10), which a
// sweep of powers of two never shows. With counts added the list is
// sorted ascending; nil or empty counts (no sweep asked) stay so.
func sweepCounts(counts []int, best *Assessment, n int) []int {
	if len(counts) == 0 {
		return counts
	}
	card := best.Score.Cardinality
	if f := best.RangeFit; f != nil {
		card = f.Cardinality
	}
	if card <= 0 || card >= 10*n {
		return counts
	}
	for _, tk := range best.Score.Tables {
		if tk.Cardinality == card && tk.Rows > 0 && tk.Rows == card {
			return counts // a value per row: the count grows with the table
		}
	}
	out := slices.Clone(counts)
	for _, m := range evenShards(card, n) {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	if len(out) > len(counts) {
		slices.Sort(out)
	}
	return out
}
