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

// whaleZ is the standard normal quantile of a two-sided 95% confidence
// interval, 1.959964 (Phi(z) = 0.975).
const whaleZ = 1.959964

// shareInterval returns the 95% confidence interval [lo, hi] of a
// value's share (0..1) of a population, observed as share of n
// observations (sampled rows, or statements naming the key; weights
// aside, so k = share*n need not be whole): Wilson's score interval (E.
// B. Wilson, "Probable inference, the law of succession, and statistical
// inference", JASA 22 (1927) 209-212) with a continuity correction
// (R. G. Newcombe, "Two-sided confidence intervals for the single
// proportion", Statistics in Medicine 17 (1998) 857-872, method 4):
//
//	lo = (2np + z^2 - 1 - z sqrt(z^2 - 2 - 1/n + 4p(n(1-p) + 1))) / 2(n + z^2)
//	hi = (2np + z^2 + 1 + z sqrt(z^2 + 2 - 1/n + 4p(n(1-p) - 1))) / 2(n + z^2)
//
// Unlike the normal approximation p -+ z sqrt(p(1-p)/n) it stays in 0..1
// and is not degenerate at p = 0 or 1; the correction keeps it from
// claiming too much of a handful of observations, where the plain
// score interval covers badly (2 of 3 would bound the share below at
// 0.21, a whale on 8 shards; corrected, 0.13). At p = 1 (every
// observation names the value, as one statement always does) the exact
// (Clopper-Pearson) bound has a closed form, (0.025)^(1/n), lower than
// either (0.025 for n = 1, 0.16 for 2, 0.29 for 3), and is taken; likewise
// 1 - (0.025)^(1/n) above at p = 0. n <= 0: [share, share] (nothing
// counts the observations: the point figure).
func shareInterval(share float64, n int) (lo, hi float64) {
	if n <= 0 {
		return share, share
	}
	nf := float64(n)
	switch {
	case share >= 1:
		return math.Pow(0.025, 1/nf), 1
	case share <= 0:
		return 0, 1 - math.Pow(0.025, 1/nf)
	}
	z, z2 := whaleZ, whaleZ*whaleZ
	d := 2 * (nf + z2)
	lo = (2*nf*share + z2 - 1 - z*math.Sqrt(max(0, z2-2-1/nf+4*share*(nf*(1-share)+1)))) / d
	hi = (2*nf*share + z2 + 1 + z*math.Sqrt(max(0, z2+2-1/nf+4*share*(nf*(1-share)-1)))) / d
	return max(0, lo), min(1, hi)
}

// Whale verdicts: what the evidence shows of a value's share against
// the whale threshold (whaleShares fair shares).
const (
	noWhale  = iota // bounded: the interval's upper end is at most the threshold
	aWhale          // the interval's lower end is over the threshold
	unproven        // the interval straddles it: too few observations to tell
)

// whaleVerdict says whether a value observed as share of n observations
// is a whale on shards shards: only when the lower end of the share's
// 95% interval (shareInterval) is over the threshold (isWhale), no whale
// when its upper end is not, and unproven in between. A row sample of
// 100,000 rows moves the ends by at most 0.3 points; one or two
// statements cannot show a value a whale on 8 shards, nor a handful show
// a key bounded. n <= 0 (nothing counts the observations): the point
// figure decides, as isWhale.
func whaleVerdict(share float64, n, shards int) int {
	lo, hi := shareInterval(share, n)
	return intervalVerdict(lo, hi, shards)
}

// intervalVerdict is the whale verdict of a share known to lie in
// [lo, hi] on shards shards: a whale when lo is over the threshold, none
// when hi is not, unproven in between.
func intervalVerdict(lo, hi float64, shards int) int {
	switch {
	case isWhale(lo, shards):
		return aWhale
	case !isWhale(hi, shards):
		return noWhale
	}
	return unproven
}

// fairShareText is one shard's fair share and the whale threshold, in
// words: "one shard's fair share is 1/8 = 12.5%; a whale holds more than
// 1.5 times it, 18.8%". Three significant digits, so that 1/8 does not
// print as 12% beside a value of 13%.
// unit is what n counts: "shard", or "node" when slots are on nodes
// (the threshold is then against the machines, whaleUnits).
func fairShareText(n int, unit string) string {
	f := 100 / float64(n)
	return fmt.Sprintf("one %s's fair share is 1/%d = %.3g%%; a whale holds more than %.1f times it, %.3g%%", unit, n, f, whaleShares, whaleShares*f)
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
	// Observations is how many observations Share rests on: the sampled
	// rows (the group's), or the statements naming the key on the
	// requests basis, each once whatever its weight; ShareLow and
	// ShareHigh are Share's 95% confidence interval (shareInterval),
	// which the whale test reads. 0 and omitted when nothing counts them.
	Observations int     `json:"observations,omitempty"`
	ShareLow     float64 `json:"share_low,omitempty"`
	ShareHigh    float64 `json:"share_high,omitempty"`
	// Unique names the key columns when they hold a unique key of
	// Tables[0] (its primary key or a declared unique key, or a spec's
	// sequential or uuid column) and Measure is "rows": each key value is
	// then exactly one row, so a value's share of the table's rows is 1/N
	// of its N rows, and N is at least the Observations distinct values
	// sampled. The share then lies in [0, 1/Observations] with no
	// sampling uncertainty: ShareLow is 0 (omitted) and ShareHigh
	// 1/Observations, not a confidence interval.
	Unique []string `json:"unique_key,omitempty"`
	// PerValue, with Unique naming the key column, is the fixed number of
	// rows each of its values holds in Tables[0] (shardkey.Table.PerValue:
	// a spec's fixed per_parent under a parent the column is unique in):
	// every value then has the same share, 1/N of N values, N at least
	// the Observations distinct values sampled; bounded as Unique is.
	PerValue int `json:"rows_per_value,omitempty"`

	top []sim.TopValue // the table's (group's) heaviest values, heaviest first
	// distinct, when > 0, is how many distinct values the share is over
	// (a root group's cardinality), which top, cut at a few, need not
	// show; tableCols, for a root group whose tables name its column
	// differently (RootStats.Columns), is each table's, as Tables.
	distinct  int
	tableCols []string
}

// verdict is whaleVerdict of p's share on n shards.
// A unique key's value (Unique) is no whale when 1/Observations is
// within the threshold, and unproven otherwise (the table may have no
// more rows than were sampled, or many more).
//
// On the requests basis (no row sample), when the statements name only
// one value (oneValue) the spread is unknown: unproven, however many
// statements named it. A log of two transactions naming one warehouse
// shows that warehouse, not that the key has no other values.
func (p *PartitionValue) verdict(n int) int {
	if len(p.Unique) > 0 {
		return intervalVerdict(0, p.ShareHigh, n)
	}
	if p.fewValues(n) {
		return unproven
	}
	return whaleVerdict(p.Share, p.Observations, n)
}

// fewValues reports that p rests on statements (Measure "requests")
// that name too few distinct values of the key to tell a whale from an
// even spread: one value, or d values so few that an even spread over
// them alone (1/d each) would be over the whale threshold on n shards.
// Statements cluster in sessions and transactions (a TPC-C log of two
// transactions names one warehouse in all of them), so their count is
// no count of independent draws of the key. sim lists at most 10 top
// values, so d < 10 is the number of distinct values named.
func (p *PartitionValue) fewValues(n int) bool {
	if p.Measure != "requests" {
		return false
	}
	d := p.namedValues()
	return p.Share >= 1 || d == 1 || (d > 0 && d < 10 && isWhale(1/float64(d), n))
}

// namedValues is how many distinct values p's share is over: its
// distinct count when known, else its top values (sim lists at most 10).
func (p *PartitionValue) namedValues() int {
	if p.distinct > 0 {
		return p.distinct
	}
	return len(p.top)
}

// withUnique marks p, a share of distinct key values' rows of one table
// keyed by its unique key cols, as bounded by 1/distinct (Unique), and
// returns p; p unchanged when distinct is 0.
func (p *PartitionValue) withUnique(cols []string, distinct int) *PartitionValue {
	if distinct > 0 {
		p.Unique, p.Observations = cols, distinct
		p.ShareLow, p.ShareHigh = 0, 1/float64(distinct)
	}
	return p
}

// uniqueKeyOf returns the columns of a unique key of table that are
// among key columns cols, nil when none is: the table's declared primary
// or unique key (--schema, --from; every column of it among cols), or a
// column its generator makes unique (Table.Unique). A key holding a
// unique key names at most one row per value.
func uniqueKeyOf(w *shardkey.Workload, table string, cols []string) []string {
	if w.Catalog != nil {
		if info := w.Catalog.Table(table); info != nil {
			for _, k := range append([][]string{info.PrimaryKey}, info.UniqueKeys...) {
				if len(k) > 0 && !slices.ContainsFunc(k, func(c string) bool { return !slices.Contains(cols, c) }) {
					return k
				}
			}
		}
	}
	if ti := w.TableIndex(table); ti >= 0 {
		for _, c := range cols {
			if w.Tables[ti].Unique[c] {
				return []string{c}
			}
		}
	}
	return nil
}

// withEvidence sets p's Observations to n and its interval, and returns p.
func (p *PartitionValue) withEvidence(n int) *PartitionValue {
	if n > 0 {
		p.Observations = n
		p.ShareLow, p.ShareHigh = shareInterval(p.Share, n)
	}
	return p
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
	if p.Measure == "requests" && len(p.tableCols) == len(p.Tables) && len(p.Tables) > 0 {
		// A root group's tables name its column each their own way.
		named := make([]string, len(p.Tables))
		for i, t := range p.Tables {
			named[i] = t + "." + p.tableCols[i]
		}
		return "of the requests naming " + strings.Join(named, ", ")
	}
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

// keyObservations is how many observations a table key's shares rest
// on: the statements naming it on the traffic basis, else the sampled
// rows (weights aside).
func keyObservations(ks sim.KeyStats) int {
	if ks.Basis == "traffic" {
		return ks.Named
	}
	return ks.Rows
}

// largestPartition returns the largest partition over every table c's
// design shards (n shards): the root entity's group (its figure is what
// a shard must hold for the tables keyed by the root), and each other
// sharded table's own key. A value the evidence shows a whale
// (whaleVerdict) comes before one it cannot tell from a whale, which
// comes before the bounded ones, so that a whale on a table with rows is
// not hidden behind one statement's 100%; within a verdict the largest
// share. Ties keep the root's, then the main table's (the figure before
// every table was weighed). nil when nothing measures one.
func largestPartition(w *shardkey.Workload, c *sim.Candidate, rs *RootStats, n int) *PartitionValue {
	var best *PartitionValue
	rank := func(p *PartitionValue) int {
		switch p.verdict(n) {
		case aWhale:
			return 2
		case unproven:
			return 1
		}
		return 0
	}
	consider := func(p *PartitionValue) {
		if best == nil || rank(p) > rank(best) || rank(p) == rank(best) && p.Share > best.Share {
			best = p
		}
	}
	root := rs != nil && len(rs.TopValues) > 0
	if root {
		m := "group rows"
		if rs.Basis == "traffic" {
			m = "requests"
		}
		consider((&PartitionValue{Tables: rs.Tables, Columns: []string{rs.Column}, Value: rs.TopValues[0].Value,
			Share: rs.TopValues[0].Share, Measure: m, Group: true, top: rs.TopValues, distinct: rs.Cardinality, tableCols: rs.Columns}).withEvidence(rs.observed))
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
		consider(tablePartition(w, tk))
	}
	return best
}

// tablePartition is the largest partition of one sharded table's own
// key tk (its heaviest value), with its evidence, bounded when the key is
// unique (withUnique). tk has TopValues.
func tablePartition(w *shardkey.Workload, tk sim.TableKey) *PartitionValue {
	p := &PartitionValue{Tables: []string{tk.Table}, Columns: tk.Columns, Value: tk.TopValues[0].Value,
		Share: tk.TopValues[0].Share, Measure: keyMeasure(w, tk.KeyStats), top: slices.Concat(tk.TopValues, tk.MoreValues)}
	if ti := w.TableIndex(tk.Table); ti >= 0 && len(tk.Columns) == 1 && w.Tables[ti].PerValue[tk.Columns[0]] > 0 && p.Measure == "rows" && tk.Cardinality > 0 && p.Share <= 1/float64(tk.Cardinality)+1e-12 {
		// Each value holds the same number of rows: its share is
		// 1/N of N values, N at least the distinct values sampled.
		p.PerValue = w.Tables[ti].PerValue[tk.Columns[0]]
		return p.withUnique(tk.Columns, tk.Cardinality)
	}
	if u := uniqueKeyOf(w, tk.Table, tk.Columns); u != nil && p.Measure == "rows" && tk.Cardinality > 0 && p.Share <= 1/float64(tk.Cardinality)+1e-12 {
		// Each value is one row: its share is 1/N of the table's N
		// rows, N at least the distinct values sampled. (A sample
		// whose top value holds more than one row's share
		// contradicts the declaration: the interval decides.)
		return p.withUnique(u, tk.Cardinality)
	}
	return p.withEvidence(keyObservations(tk.KeyStats))
}

func isMain(c *sim.Candidate, tk sim.TableKey) bool {
	return len(c.TopValues) > 0 && len(tk.TopValues) > 0 && tk.Cardinality == c.Cardinality && tk.TopValues[0] == c.TopValues[0]
}

// mainObservations is how many observations c.TopValues (the main
// table's key) rest on (keyObservations); 0 when no table key is the
// main one.
func mainObservations(c *sim.Candidate) int {
	for _, tk := range c.Tables {
		if isMain(c, tk) {
			return keyObservations(tk.KeyStats)
		}
	}
	return 0
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
func whaleReason(p *PartitionValue, n int, unit string) string {
	return fmt.Sprintf("the largest partition of the design is %s: it holds %s %s, a whale (%s); whatever the shard count, one shard holds all of it",
		p.Name(), pct(p.Share), p.Of(), fairShareText(n, unit))
}

// uniqueReason says that the design's largest partition, a value of a
// unique key (PartitionValue.Unique), is bounded because each value is
// one row.
func uniqueReason(p *PartitionValue, n int, unit string) string {
	return fmt.Sprintf("the largest partition of the design is %s, %s %s, bounded: %s, so no value holds more than 1/%d = %.3g%% of its rows (%d distinct values sampled; the table has at least as many %s), within the whale threshold (%s)",
		p.Name(), pct(p.Share), p.Of(), uniqueText(p), p.Observations, 100*p.ShareHigh, p.Observations, atLeast(p), fairShareText(n, unit))
}

// atLeast is what the table has at least as many of as the distinct
// values sampled: rows for a unique key, values for fixed rows per value.
func atLeast(p *PartitionValue) string {
	if p.PerValue > 0 {
		return "values"
	}
	return "rows"
}

// uniqueText says that p's unique key makes each value one row: "w_id
// is unique in warehouse: each value is one row".
func uniqueText(p *PartitionValue) string {
	if p.PerValue > 0 {
		return fmt.Sprintf("each %s value is exactly %d rows of %s (the workload's fixed rows per parent), so every value has the same share", p.Unique[0], p.PerValue, p.Tables[0])
	}
	k := p.Unique[0]
	if len(p.Unique) > 1 {
		k = "(" + strings.Join(p.Unique, ", ") + ")"
	}
	return fmt.Sprintf("%s is unique in %s: each value is one row", k, p.Tables[0])
}

// unprovenReason says that the design's largest partition is unknown:
// its heaviest value's share rests on too few observations to show it a
// whale or bounded (whaleVerdict).
func unprovenReason(p *PartitionValue, n int, unit string) string {
	if len(p.Unique) > 0 {
		return fmt.Sprintf("the largest partition of the design is unknown: its heaviest value, %s, holds %s %s; %s, so no value holds more than 1/%d = %.3g%% of its rows (%d distinct values sampled; the table has at least as many %s), but that is over the whale threshold (%s): too few rows to call a value a whale or the key bounded",
			p.Name(), pct(p.Share), p.Of(), uniqueText(p), p.Observations, 100*p.ShareHigh, p.Observations, atLeast(p), fairShareText(n, unit))
	}
	if p.fewValues(n) {
		if d := p.namedValues(); d > 1 && p.Share < 1 {
			return fmt.Sprintf("the largest partition of the design is unknown: its heaviest value, %s, holds %s %s, but the statements name only %d values of %s: an even spread over them alone would give each 1/%d, over the whale threshold (%s), so spread unknown; a whale is not shown",
				p.Name(), pct(p.Share), p.Of(), d, strings.Join(p.Columns, ", "), d, fairShareText(n, unit))
		}
		return fmt.Sprintf("the largest partition of the design is unknown: only one value seen: spread unknown (%s, named by %s naming %s; how the key's values spread is unknown, so no whale is shown)",
			p.Name(), plural(p.Observations, "the one statement", fmt.Sprintf("all %d statements", p.Observations)), strings.Join(p.Columns, ", "))
	}
	what := plural(p.Observations, "sampled row", "sampled rows")
	if p.Measure == "requests" {
		what = plural(p.Observations, "statement", "statements") + " naming " + strings.Join(p.Columns, ", ")
	}
	return fmt.Sprintf("the largest partition of the design is unknown: its heaviest value, %s, holds %s %s, but that rests on %d %s; the share's 95%% interval, %s to %s, straddles the whale threshold (%s): too few to call it a whale or the key bounded",
		p.Name(), pct(p.Share), p.Of(), p.Observations, what, pct(p.ShareLow), pct(p.ShareHigh), fairShareText(n, unit))
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
	wn, _ := a.whaleUnits(n) // the threshold is a node's share with slots on nodes
	if p == nil || p.verdict(wn) != aWhale || !over(c) {
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
		if whaleVerdict(tv.Share, p.Observations, wn) == aWhale && k < 8 && k < n/4 {
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
	if cassandraTerms(a.engine) && !rowless && ok {
		// No directory in Cassandra: bucket the whales instead.
		data := slices.Clone(p.Tables)
		for _, t := range tables {
			if !slices.Contains(data, t) {
				data = append(data, t)
			}
		}
		if len(tables) > 1 {
			where = fmt.Sprintf("in every table keyed by %s (%s)", e, strings.Join(tables, ", "))
		}
		a.bucketFix(as, w, o, bucketSpec{e: e, vals: vals, share: p.top[0].Share, of: p.Of(), where: where, tables: data,
			design: tablesDesign(d, tables), top: p.top, name: func(tv sim.TopValue) string {
				return fmt.Sprintf("%s (%s %s)", valueText(p.Columns, tv.Value), pct(tv.Share), p.Of())
			}}, wn)
		return
	}
	if (rowless || !ok) && cassandraTerms(a.engine) {
		// Cassandra has no directory: bucketing, in words (no rows to
		// re-simulate it with): not in "after fixes".
		as.Fixes = append(as.Fixes, Fix{Kind: "bucket", Target: strings.Join(vals, ", "),
			Text: fmt.Sprintf("Whales: bucket %s %s: Cassandra places a partition by the Murmur3 token of its whole partition key and has no directory, so no node can be given to one value; add a bucket column to the partition key, PRIMARY KEY ((%s, bucket), ...), and write a whale's rows over K buckets, K at least its share times the %d nodes and enough to keep each partition under Cassandra's large-partition warning of 100 MiB (cassandra.yaml compaction_large_partition_warning_threshold_mb); every read of it then queries all K partitions. Not re-simulated: the bucketing needs a row sample of %s (give --rows) to say which values are hottest.",
				what, where, strings.Join(e.Columns(), ", "), wn, strings.Join(p.Tables, ", "))})
		a.hotValueFix(as, p, w, "")
		return
	}
	if rowless || !ok {
		// Proposed, not re-simulated: not in "after fixes".
		as.Fixes = append(as.Fixes, Fix{Kind: "isolate", Target: strings.Join(vals, ", "),
			Text: fmt.Sprintf("Whales: isolate %s %s on %s with %s, in shardkey's notation %s in place of %s; not re-simulated: the isolation needs a row sample of %s (give --rows) to say which values are hottest. A whale's own shard keeps its share: no function can split one key value.",
				what, where, plural(k, "a dedicated shard", "dedicated shards"), a.isolateHow(p.Tables[0], strings.Join(e.Columns(), ", "), p.top[0].Value), iso, e, strings.Join(p.Tables, ", "))})
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
	f := Fix{Kind: "isolate", Target: strings.Join(vals, ", "), Key: key, Before: nums(c), After: nums(best),
		Text: fmt.Sprintf("Whales: isolate %s %s on %s with %s, re-simulated as %s: the work ratio goes from %.2fx to %.2fx the mean and the busiest %s's work from %s/s to %s/s; %s. A whale's own shard keeps its share: no function can split one key value.",
			what, where, plural(k, "a dedicated shard", "dedicated shards"), a.isolateHow(p.Tables[0], strings.Join(e.Columns(), ", "), p.top[0].Value), key, c.WorkRatio, best.WorkRatio, busiestUnit(c), fmtF(c.MaxShardWork), fmtF(best.MaxShardWork), effect)}
	f.noteRaise(capacityUnit(c), isolationWhy(best, n, k))
	as.Fixes = append(as.Fixes, f)
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
	nrep, rep := a.replicasFor(reads, writes, w.Capacity)
	as.Fixes = append(as.Fixes, Fix{Kind: "cache", Target: valueText(p.Columns, p.Value), replicas: proposed(nrep),
		Text: fmt.Sprintf("Hot value: %s's ~%s requests/s (%s reads/s, %s writes/s: its %s share of the operations on %s) are more than the %s units/s one shard can do: cache its reads in front of the shard%s; salting its writes over K buckets would spread them, but each of its reads would then ask K shards.",
			hv, fmtF(writes+reads), fmtF(reads), fmtF(writes), pct(p.Share), strings.Join(p.Tables, ", "), fmtF(w.Capacity), rep)})
}
