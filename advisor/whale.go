package advisor

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sim"
)

// whaleShares is the margin of the whale test: a key value is a whale
// when its share of its table's (or entity group's) rows, or of the
// requests naming the key when there is no row sample, is more than 1.5
// times one shard's fair share (1/shards). A value at its fair share is
// what a perfectly even key with as many values as shards gives (TPC-C's
// 8 warehouses on 8 shards: 1/8 each), and sampling moves a share by a
// few percent of itself; 1.5 fair shares is the point past which the
// value's shard holds half a shard more than the mean, the threshold the
// whale fix (isolation) has always used.
const whaleShares = 1.5

// isWhale reports whether share (0..1) is a whale's on n shards: more
// than whaleShares times one shard's fair share, 1/n.
func isWhale(share float64, n int) bool {
	return n > 0 && share > whaleShares/float64(n)+1e-12
}

// fairShareText is one shard's fair share and the whale threshold, in
// words: "one shard's fair share is 1/8 = 12.5%; a whale holds more than
// 1.5 times it, 18.8%". Three significant digits, so that 1/8 does not
// print as 12% beside a value of 13%.
func fairShareText(n int) string {
	f := 100 / float64(n)
	return fmt.Sprintf("one shard's fair share is 1/%d = %.3g%%; a whale holds more than %.1f times it, %.3g%%", n, f, whaleShares, whaleShares*f)
}

// PartitionValue is the largest partition of a design: the key value
// with the largest share over every table the design shards, measured
// on the table's (or, for a root entity, the entity group's) rows, or on
// the requests naming the key when there is no row sample.
type PartitionValue struct {
	// Tables are the table the share is of, or the entity group's tables.
	Tables  []string `json:"tables"`
	Columns []string `json:"columns"`
	Value   string   `json:"value"`
	// Share is the value's share (0..1) of what Measure counts.
	Share float64 `json:"share"`
	// Measure says what Share is a share of: "rows" (the row sample),
	// "row weight" (rows weighted by their share of requests),
	// "group rows" (the entity group's rows across its tables),
	// "requests" (no row sample: the requests naming a value of the key).
	Measure string `json:"measure"`
	// Group reports that Tables are a root entity's group (their rows
	// move together).
	Group bool `json:"entity_group,omitempty"`

	top []sim.TopValue // the table's (group's) heaviest values, heaviest first
}

// Name is the value with its table: "orders.account_id = 7", or for an
// entity group "account_id = 7".
func (p *PartitionValue) Name() string {
	if p.Group || len(p.Tables) != 1 {
		return valueText(p.Columns, p.Value)
	}
	cols := make([]string, len(p.Columns))
	for i, c := range p.Columns {
		cols[i] = p.Tables[0] + "." + c
	}
	return valueText(cols, p.Value)
}

// Of says what Share is a share of, after "holds 40% ": "of the rows of
// orders", "of the requests naming account_id on orders" (no row sample).
func (p *PartitionValue) Of() string {
	return measureText(p.Measure, p.Tables, p.Columns)
}

func measureText(measure string, tables, cols []string) string {
	t := strings.Join(tables, ", ")
	switch measure {
	case "group rows":
		return "of the entity group's rows (across " + t + ")"
	case "row weight":
		return "of the row weight of " + t + " (rows weighted by their share of requests)"
	case "requests":
		return fmt.Sprintf("of the requests naming %s on %s", strings.Join(cols, ", "), t)
	}
	return "of the rows of " + t
}

// keyMeasure is what a table key's shares count (sim.KeyStats.TopValues).
func keyMeasure(w *shardkey.Workload, ks sim.KeyStats) string {
	if ks.Basis == "traffic" {
		return "requests"
	}
	if ti := w.TableIndex(ks.Table); ti >= 0 && ks.Database == nil {
		if t := w.Tables[ti]; t.Weights != nil && slices.ContainsFunc(t.Weights[:t.Rows], func(x float64) bool { return x > 0 }) {
			return "row weight"
		}
	}
	return "rows"
}

// largestPartition returns the largest partition over every table c's
// design shards: the root entity's group (its figure is what a shard
// must hold for the tables keyed by the root), and each other sharded
// table's own key. Ties keep the root's, then the main table's (the
// figure before every table was weighed). nil when nothing measures one.
func largestPartition(w *shardkey.Workload, c *sim.Candidate, rs *RootStats) *PartitionValue {
	var best *PartitionValue
	consider := func(p *PartitionValue) {
		if best == nil || p.Share > best.Share {
			best = p
		}
	}
	root := rs != nil && len(rs.TopValues) > 0
	if root {
		m := "group rows"
		if rs.Basis == "traffic" {
			m = "requests"
		}
		consider(&PartitionValue{Tables: rs.Tables, Columns: []string{rs.Column}, Value: rs.TopValues[0].Value,
			Share: rs.TopValues[0].Share, Measure: m, Group: true, top: rs.TopValues})
	}
	tks := slices.Clone(c.Tables)
	// The main table first: c.TopValues are its.
	slices.SortStableFunc(tks, func(a, b sim.TableKey) int {
		am, bm := isMain(c, a), isMain(c, b)
		switch {
		case am && !bm:
			return -1
		case bm && !am:
			return 1
		}
		return 0
	})
	for _, tk := range tks {
		if root && slices.Contains(rs.Tables, tk.Table) || len(tk.TopValues) == 0 {
			continue
		}
		consider(&PartitionValue{Tables: []string{tk.Table}, Columns: tk.Columns, Value: tk.TopValues[0].Value,
			Share: tk.TopValues[0].Share, Measure: keyMeasure(w, tk.KeyStats), top: tk.TopValues})
	}
	return best
}

func isMain(c *sim.Candidate, tk sim.TableKey) bool {
	return len(c.TopValues) > 0 && len(tk.TopValues) > 0 && tk.Cardinality == c.Cardinality && tk.TopValues[0] == c.TopValues[0]
}

// mainMeasure is what c.TopValues (the main table's key) count, with the
// table: "of the rows of orders".
func mainMeasure(w *shardkey.Workload, c *sim.Candidate) string {
	for _, tk := range c.Tables {
		if isMain(c, tk) {
			return measureText(keyMeasure(w, tk.KeyStats), []string{tk.Table}, tk.Columns)
		}
	}
	return "of its table"
}

// whaleReason says which value is the design's largest partition and
// why it is a whale.
func whaleReason(p *PartitionValue, n int) string {
	return fmt.Sprintf("the largest partition of the design is %s: it holds %s %s, a whale (%s); whatever the shard count, one shard holds all of it",
		p.Name(), pct(p.Share), p.Of(), fairShareText(n))
}

// replaceExpr returns design d's text with the key of the tables in
// tables (each keyed by its own entry) set to expr, or, when tables is
// empty, d's bare expression; false when a table has no entry of its
// own written as its key prints (a design written by hand).
func replaceExpr(d *shardkey.Design, tables []string, expr string) (string, bool) {
	parts := strings.Split(d.Text, ";")
	done := 0
	for i, p := range parts {
		s := strings.TrimSpace(p)
		if len(tables) == 0 {
			if d.Default != nil && strings.HasPrefix(s, d.Default.String()) && !strings.Contains(strings.SplitN(s, "(", 2)[0], ":") {
				parts[i] = strings.Replace(p, d.Default.String(), expr, 1)
				return strings.Join(parts, ";"), true
			}
			continue
		}
		for _, t := range tables {
			e, ok := d.Tables[t]
			head := shardkey.QuoteName(t) + ":"
			if !ok || !strings.HasPrefix(s, head) || !strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(s, head)), e.String()) {
				continue
			}
			parts[i] = strings.Replace(p, e.String(), expr, 1)
			done++
		}
	}
	if len(tables) == 0 || done != len(tables) {
		return "", false
	}
	return strings.Join(parts, ";"), true
}

// mustReplace is replaceExpr for a design replaceExpr has already
// rewritten once (the same tables): "" would fail to score.
func mustReplace(d *shardkey.Design, tables []string, expr string) string {
	s, _ := replaceExpr(d, tables, expr)
	return s
}

// tableWhaleFix is whaleFix for a design that keys tables by keys of
// their own (not only a bare expression and reference tables): the
// whale is the design's largest partition, on whichever table it is, and
// the fix isolates it on that table (and on every table keyed by the
// same expression, so that the rows they share a value with stay
// together) with a directory override. Without a row sample of the
// whale's table the isolation cannot be re-simulated (the sample's rows
// say which values are hottest), so the fix is proposed in words only.
func (a *analysis) tableWhaleFix(as *Assessment, d *shardkey.Design, w *shardkey.Workload, o sim.Options, over func(*sim.Candidate) bool) {
	c := as.Score
	n := o.Shards
	p := as.Criteria.LargestOf
	if p == nil || !isWhale(p.Share, n) || !over(c) {
		return
	}
	// The expression the whale's table is keyed by, and the tables keyed
	// by it too.
	var e shardkey.Expr
	var tables []string // nil: the bare expression
	first := p.Tables[0]
	if x, ok := d.Tables[first]; ok {
		e = x
		for _, t := range d.Order {
			if y, ok := d.Tables[t]; ok && y.String() == x.String() {
				tables = append(tables, t)
			}
		}
	} else {
		e = d.Default
	}
	if _, ok := e.(*shardkey.HashExpr); !ok {
		return
	}
	for _, t := range p.Tables[1:] {
		if x, ok := d.Tables[t]; ok && x.String() != e.String() || !ok && len(tables) > 0 {
			return // the group's tables are keyed by different entries
		}
	}
	k := 0
	var vals []string
	for _, tv := range p.top {
		if isWhale(tv.Share, n) && k < 8 && k < n/4 {
			k++
			vals = append(vals, fmt.Sprintf("%s (%s %s)", valueText(p.Columns, tv.Value), pct(tv.Share), p.Of()))
		}
	}
	if k == 0 || k >= len(p.top) {
		// Every value seen is a whale (a log naming one value of the
		// key): no other value to keep off its shard.
		return
	}
	where := "of " + strings.Join(p.Tables, ", ")
	if p.Group {
		where = fmt.Sprintf("with its whole entity group (its rows in %s move together)", strings.Join(p.Tables, ", "))
	} else if len(tables) > 1 {
		where = fmt.Sprintf("in every table keyed by %s (%s, so that its rows stay together)", e, strings.Join(tables, ", "))
	}
	what := plural(k, "the heaviest value", fmt.Sprintf("the %d heaviest values", k)) + ", " + strings.Join(vals, ", ")
	rowless := false
	for _, t := range append(slices.Clone(p.Tables), tables...) {
		if ti := w.TableIndex(t); ti < 0 || w.Tables[ti].Rows == 0 {
			rowless = true
		}
	}
	iso := fmt.Sprintf("isolate(%s, top=%d)", e, k)
	key, ok := replaceExpr(d, tables, iso)
	if rowless || !ok {
		// Proposed, not re-simulated: not in "after fixes".
		as.Fixes = append(as.Fixes, Fix{Kind: "isolate", Target: strings.Join(vals, ", "),
			Text: fmt.Sprintf("Whales: isolate %s %s on %s with a directory override (%s in place of %s); not re-simulated: the isolation needs a row sample of %s (give --rows) to say which values are hottest. A whale's own shard keeps its share: no function can split one key value.",
				what, where, plural(k, "a dedicated shard", "dedicated shards"), iso, e, strings.Join(p.Tables, ", "))})
		a.hotValueFix(as, p, w, "")
		return
	}
	best, err := sim.Score(w, key, o)
	if err != nil {
		return
	}
	// As whaleFix: each dedicated shard is one fewer for the other
	// values; with a capacity, the largest count that leaves the fewest
	// shards over it.
	if w.Capacity > 0 && c.MeanShardWork*float64(c.Shards)/float64(c.CapacityUnits()) < w.Capacity {
		for kk := k - 1; kk >= 1; kk-- {
			x, err := sim.Score(w, mustReplace(d, tables, fmt.Sprintf("isolate(%s, top=%d)", e, kk)), o)
			if err != nil {
				continue
			}
			if len(x.OverCapacity) < len(best.OverCapacity) {
				best, k = x, kk
			}
		}
		iso = fmt.Sprintf("isolate(%s, top=%d)", e, k)
		key = mustReplace(d, tables, iso)
		vals = vals[:k]
		what = plural(k, "the heaviest value", fmt.Sprintf("the %d heaviest values", k)) + ", " + strings.Join(vals, ", ")
	}
	effect := "the others no longer share a shard with a whale"
	if best.MaxShardWork >= c.MaxShardWork*0.99 {
		effect = fmt.Sprintf("the busiest %s is the whale's own, which no function can make lighter; isolation keeps every other value off it", busiestUnit(c))
	}
	as.Fixes = append(as.Fixes, Fix{Kind: "isolate", Target: strings.Join(vals, ", "), Key: key, Before: nums(c), After: nums(best),
		Text: fmt.Sprintf("Whales: isolate %s %s on %s with a directory override (%s): the work ratio goes from %.2fx to %.2fx the mean and the busiest %s's work from %s/s to %s/s; %s. A whale's own shard keeps its share: no function can split one key value.",
			what, where, plural(k, "a dedicated shard", "dedicated shards"), key, c.WorkRatio, best.WorkRatio, busiestUnit(c), fmtF(c.MaxShardWork), fmtF(best.MaxShardWork), effect)})
	as.Criteria.AfterFixes = best.MaxShardWork
	a.hotValueFix(as, p, w, key)
}

// hotValueFix proposes, for whale p of a design with keys per table, a
// cache or read replicas when the requests on its tables that name it
// are more than one shard can serve: its reads cannot be spread by any
// key; its writes could be salted, which makes each of its reads ask
// every bucket, so salting is named as the option, not re-simulated.
func (a *analysis) hotValueFix(as *Assessment, p *PartitionValue, w *shardkey.Workload, _ string) {
	if w.Capacity <= 0 {
		return
	}
	var writes, reads float64
	for _, op := range w.Ops {
		if op.Table < 0 || op.Table >= len(w.Tables) || !slices.Contains(p.Tables, w.Tables[op.Table].Name) {
			continue
		}
		if op.Kind.IsWrite() {
			writes += op.Rate * p.Share
		} else if len(op.Instances) > 0 && len(op.Instances[0].Conds) > 0 {
			reads += op.Rate * p.Share
		}
	}
	if writes+reads <= w.Capacity {
		return
	}
	hv := p.Name()
	replicas := int(math.Ceil(reads / (w.Capacity / 2)))
	as.Fixes = append(as.Fixes, Fix{Kind: "cache", Target: valueText(p.Columns, p.Value),
		Text: fmt.Sprintf("Hot value: %s's ~%s requests/s (%s reads/s, %s writes/s: its %s share of the operations on %s) are more than the %s units/s one shard can do: cache its reads in front of the shard, or serve them from %d read replicas; salting its writes over K buckets would spread them, but each of its reads would then ask K shards.",
			hv, fmtF(writes+reads), fmtF(reads), fmtF(writes), pct(p.Share), strings.Join(p.Tables, ", "), fmtF(w.Capacity), replicas)})
}
