package advisor

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/numfmt"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
)

// fixes proposes and re-simulates the remedies for what candidate as
// costs: whales (isolate with a directory override), hot writes (salting,
// K from the capacity), hot reads (cache, replicas), scatter-gather
// operations (shard-encoded ids, a global index, a read model, a replica).
func (a *analysis) fixes(as *Assessment, w *shardkey.Workload, o sim.Options) {
	if !as.Viable {
		return
	}
	c := as.Score
	d, err := shardkey.ParseDesign(as.Key)
	if err != nil {
		return
	}
	a.whaleFix(as, d, w, o)
	a.jumboFix(as, d, w, o)
	a.hotRowFix(as, w, o)
	a.spreadFix(as, d, w, o)
	wn, _ := a.whaleUnits(o.Shards)
	a.whaleNote(as, wn)
	lk := map[string]*sim.Candidate{} // lookup designs scored, by key
	for _, op := range as.Expensive {
		if f, ok := a.scatterFix(op, as, w, o, lk); ok {
			as.Fixes = append(as.Fixes, f)
		}
	}
	_ = c
}

// whaleNote names the design's largest partition when the evidence
// shows it a whale (PartitionValue.verdict: the lower end of its share's
// 95% interval over the threshold) and no fix above isolates, salts or
// caches it: the advice must not show a whale in its figures and leave
// it out of its headline and fixes. It says what the whale is on, how
// sure that is, why no isolation was worked out (the busiest shard is
// within what a perfect hash of this many keys gives, or the whale is
// every value seen), and what to do as it grows.
func (a *analysis) whaleNote(as *Assessment, n int) {
	if n < 2 {
		return
	}
	for _, f := range as.Fixes {
		switch f.Kind {
		case "isolate", "salt", "cache", "bucket":
			return
		}
	}
	p := as.Criteria.LargestOf
	if p != nil && p.verdict(n) == aWhale && !hotRowCovers(as, p.Tables) {
		as.Fixes = append(as.Fixes, Fix{Kind: "whale", Target: p.Name(),
			Text: fmt.Sprintf("Whale: %s holds %s %s (%s): under this key one shard holds all of it, whatever the shard count. %s; %s.",
				p.Name(), pct(p.Share), p.Of(), whaleSure(p, n), upperFirst(whaleWhy(as.Score)), a.whaleGrowText())})
	}
	a.otherWhales(as, p, n)
}

// otherWhales names the whales of the design's other sharded tables,
// besides its largest partition p (which may be a hot row's table, or a
// lookup table's): each table's own key's heaviest value the evidence
// shows a whale, the tables sharing one value (invoices.tenant_id = 7,
// tenants.id = 7) in one note, so that the busy tables' whale is not
// hidden behind a smaller table's 100%.
func (a *analysis) otherWhales(as *Assessment, p *PartitionValue, n int) {
	if as.Score == nil || a.w == nil {
		return
	}
	var order []string
	by := map[string][]*PartitionValue{}
	for _, tk := range as.Score.Tables {
		if len(tk.TopValues) == 0 || p != nil && slices.Contains(p.Tables, tk.Table) || hotRowCovers(as, []string{tk.Table}) {
			continue
		}
		q := tablePartition(a.w, tk)
		if q.verdict(n) != aWhale {
			continue
		}
		if by[q.Value] == nil {
			order = append(order, q.Value)
		}
		by[q.Value] = append(by[q.Value], q)
	}
	for _, v := range order {
		qs := by[v]
		slices.SortStableFunc(qs, func(x, y *PartitionValue) int {
			switch {
			case x.Share > y.Share:
				return -1
			case x.Share < y.Share:
				return 1
			}
			return 0
		})
		var names, holds []string
		for _, q := range qs {
			names = append(names, q.Name())
			holds = append(holds, fmt.Sprintf("%s %s (%s)", pct(q.Share), q.Of(), whaleSure(q, n)))
		}
		verb, one := "holds", "one shard holds all of it"
		if len(qs) > 1 {
			verb, one = "hold", "one shard holds all of each"
		}
		as.Fixes = append(as.Fixes, Fix{Kind: "whale", Target: strings.Join(names, ", "),
			Text: fmt.Sprintf("Whale: %s %s %s: under this key %s, whatever the shard count. %s; %s.",
				strings.Join(names, " and "), verb, strings.Join(holds, "; "), one, upperFirst(whaleWhy(as.Score)), a.whaleGrowText())})
	}
}

// whaleSure says how sure p's whale verdict is.
func whaleSure(p *PartitionValue, n int) string {
	if p.Observations == 0 {
		return fmt.Sprintf("above the whale threshold of %.3g%%", 100*whaleShares/float64(n))
	}
	return fmt.Sprintf("on %d %s; 95%% interval %s to %s, above the whale threshold of %.3g%%", p.Observations, evidenceUnit(p), pct(p.ShareLow), pct(p.ShareHigh), 100*whaleShares/float64(n))
}

// whaleWhy says why no isolation of a whale was worked out under c.
func whaleWhy(c *sim.Candidate) string {
	if c.ExpectedWorkRatio() <= 0 || c.WorkRatio > c.ExpectedWorkRatio() {
		return "isolating it was not worked out here (no other value seen to keep off its shard, or no row sample to re-simulate with)"
	}
	return fmt.Sprintf("its shard is not yet the problem: the busiest shard does %.2fx the mean, within the %.2fx a perfect hash of this many equal keys gives, so isolating it would not lighten the busiest shard", c.WorkRatio, c.ExpectedWorkRatio())
}

// hotRowCovers reports whether a hot-row fix of as is on one of tables
// (and a single table): the hot-row fix says what its one value is and
// how to remove it.
func hotRowCovers(as *Assessment, tables []string) bool {
	if len(tables) != 1 {
		return false
	}
	for _, f := range as.Fixes {
		if f.Kind == "hot-row" && strings.HasPrefix(f.Target, tables[0]+" where ") {
			return true
		}
	}
	return false
}

// evidenceUnit names what p's Observations count: sampled rows, or
// statements naming the key.
func evidenceUnit(p *PartitionValue) string {
	if p.Measure == "requests" {
		return plural(p.Observations, "statement", "statements") + " naming " + strings.Join(p.Columns, ", ")
	}
	return plural(p.Observations, "sampled row", "sampled rows")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// whaleFix isolates the fewest hot key values that bring the busiest
// shard under capacity (or, without a capacity, under 1.15 times the
// balls-into-bins ratio), then salts a value that is still too hot for
// one shard.
func (a *analysis) whaleFix(as *Assessment, d *shardkey.Design, w *shardkey.Workload, o sim.Options) {
	c := as.Score
	n := o.Shards
	if n < 4 {
		return
	}
	// A whale: one value holds more than 1.5 shards' fair share of the
	// key's weight. The target is the balls-into-bins band for the load
	// ratio, and the capacity for the busiest shard when the cluster as a
	// whole has the capacity (mean under it); otherwise scatter-gather
	// work, not the whale, is what overloads the shards.
	// (Over the units the ratio is of: the rows' load per shard, the
	// work per node when the work is the nodes'.)
	exp := c.ExpectedMaxLoadRatio
	if c.LoadRatio <= 0 {
		exp = c.ExpectedWorkRatio()
	}
	target := math.Max(1.5, 1.15*exp)
	// The mean is per node when the capacity is a node's.
	useCap := w.Capacity > 0 && c.MeanShardWork*float64(c.Shards)/float64(c.CapacityUnits()) < w.Capacity
	// The rows' load ratio, or, without rows (a log), the work's.
	ratio := func(x *sim.Candidate) float64 {
		if x.LoadRatio > 0 {
			return x.LoadRatio
		}
		return x.WorkRatio
	}
	over := func(x *sim.Candidate) bool {
		if useCap && len(x.OverCapacity) > 0 {
			return true
		}
		return ratio(x) > target
	}
	if d.Default == nil || len(d.Tables) > 0 && !onlyReplicas(d) {
		// Tables keyed by keys of their own: the design's largest
		// partition, on whichever table it is.
		a.tableWhaleFix(as, d, w, o, over)
		return
	}
	if _, ok := d.Default.(*shardkey.HashExpr); !ok {
		return
	}
	obs := mainObservations(c)
	wn, _ := a.whaleUnits(n) // the threshold is a node's share with slots on nodes
	if len(c.TopValues) == 0 || whaleVerdict(c.TopValues[0].Share, obs, wn) != aWhale || !over(c) {
		return
	}
	// Isolate every value above 1.5 fair shares: a dedicated shard takes
	// each, and the rest spread over the other shards. No function can
	// split one value, so its own shard keeps its share.
	rest := strings.TrimPrefix(d.Text, d.Default.String())
	bestK := 0
	for _, tv := range c.TopValues {
		if whaleVerdict(tv.Share, obs, wn) == aWhale && bestK < 8 && bestK < n/4 {
			bestK++
		}
	}
	if bestK == 0 {
		return
	}
	if cassandraTerms(a.engine) {
		// No directory in Cassandra: bucket the whales instead (their
		// reads then ask every bucket; no split or salt on top).
		vals := make([]string, 0, bestK)
		for _, tv := range c.TopValues[:bestK] {
			vals = append(vals, fmt.Sprintf("%s (%s %s)", valueText(mainColumns(c), tv.Value), pct(tv.Share), mainMeasure(w, c)))
		}
		var tables []string
		for _, tk := range c.Tables {
			if tk.Key == d.Default.String() {
				tables = append(tables, tk.Table)
			}
		}
		where := "in " + strings.Join(tables, ", ")
		if as.Root != nil {
			where = fmt.Sprintf("in every table of its entity group (%s)", strings.Join(as.Root.Tables, ", "))
		}
		a.bucketFix(as, w, o, bucketSpec{e: d.Default, vals: vals, share: c.TopValues[0].Share, of: mainMeasure(w, c), where: where, tables: tables,
			design: defaultDesign(tables, rest), top: slices.Concat(c.TopValues, c.MoreValues), name: func(tv sim.TopValue) string {
				return fmt.Sprintf("%s (%s %s)", valueText(mainColumns(c), tv.Value), pct(tv.Share), mainMeasure(w, c))
			}}, wn)
		return
	}
	key := fmt.Sprintf("isolate(%s, top=%d)%s", d.Default, bestK, rest)
	best, err := sim.Score(w, key, o)
	if err != nil {
		return
	}
	// Each dedicated shard is one fewer for the other values: isolating
	// more whales can leave more shards over capacity than isolating
	// fewer (workspace: the 5 largest left 14 over, 13 before). With a
	// capacity, take the largest count that leaves the fewest shards (or
	// nodes) over it.
	if useCap {
		for k := bestK - 1; k >= 1; k-- {
			kk := fmt.Sprintf("isolate(%s, top=%d)%s", d.Default, k, rest)
			x, err := sim.Score(w, kk, o)
			if err != nil {
				continue
			}
			if len(x.OverCapacity) < len(best.OverCapacity) {
				best, key, bestK = x, kk, k
			}
		}
	}
	cols := mainColumns(c)
	vals := make([]string, 0, bestK)
	for i := 0; i < bestK && i < len(c.TopValues); i++ {
		vals = append(vals, fmt.Sprintf("%s (%s %s)", valueText(cols, c.TopValues[i].Value), pct(c.TopValues[i].Share), mainMeasure(w, c)))
	}
	group := ""
	if as.Root != nil {
		group = fmt.Sprintf(" with its whole entity group (its rows in %s move together)", strings.Join(as.Root.Tables, ", "))
	}
	effect := "the others no longer share a shard with a whale"
	if best.MaxShardWork >= c.MaxShardWork*0.99 {
		effect = fmt.Sprintf("the busiest %s is the whale's own, which no function can make lighter; isolation keeps every other value off it", busiestUnit(c))
	}
	workRatios := "" // the work ratio beside the rows' load ratio
	if ratioName(c) == "load" {
		workRatios = fmt.Sprintf(" (work ratio %.2fx -> %.2fx)", c.WorkRatio, best.WorkRatio)
	}
	isoTable := ""
	if as.Root != nil && len(as.Root.Tables) > 0 {
		isoTable = as.Root.Tables[0]
	} else {
		for _, tk := range c.Tables {
			if tk.Key == d.Default.String() {
				isoTable = tk.Table
				break
			}
		}
	}
	how := a.isolateHow(isoTable, strings.Join(cols, ", "), c.TopValues[0].Value)
	f := Fix{Kind: "isolate", Target: strings.Join(vals, ", "), Key: key, Before: nums(c), After: nums(best),
		Text: fmt.Sprintf("Whales: isolate %s%s on %s with %s, re-simulated as %s: the %s goes from %.2fx to %.2fx the mean and the busiest %s's work from %s/s to %s/s%s; %s. A whale's own shard keeps its share: no function can split one key value.",
			plural(bestK, "the heaviest value", fmt.Sprintf("the %d heaviest values", bestK))+", "+strings.Join(vals, ", "), group, plural(bestK, "a dedicated shard", "dedicated shards"), how, key, ratioText(c, w), ratio(c), ratio(best), busiestUnit(c), fmtF(c.MaxShardWork), fmtF(best.MaxShardWork), workRatios, effect)}
	f.noteRaise(capacityUnit(c), isolationWhy(best, n, bestK))
	as.Fixes = append(as.Fixes, f)
	as.Criteria.AfterFixes = best.MaxShardWork
	if a.splitFix(as, d, w, o, rest) {
		iso := &as.Fixes[len(as.Fixes)-2]
		iso.Text = strings.Replace(iso.Text, "no function can split one key value.", "no function of the key alone can split one key value (a second key level can: below).", 1)
		// The split replaces the isolation in "after fixes"; the hot
		// value's salt or cache below would treat what it treats.
		as.Criteria.AfterFixes = as.Fixes[len(as.Fixes)-1].After.MaxShardWork
		return
	}
	// One value too hot for a shard of its own: split its writes by
	// salting, K from the capacity; its reads then ask K shards, so hot
	// reads are better served by a cache or replicas.
	hot := c.TopValues[0]
	writes, reads := a.hotRates(w, hot.Share)
	if w.Capacity <= 0 || writes+reads <= w.Capacity {
		return
	}
	// Salting spreads the value's writes: K buckets keep each under half
	// a shard's capacity. Each of its reads then asks K shards.
	k := int(math.Ceil(writes / (w.Capacity / 2)))
	if k < 2 {
		k = 2
	}
	if k > n {
		k = n
	}
	skey := fmt.Sprintf("salt(%s, %d, top=1)%s", d.Default, k, rest)
	x, err := sim.Score(w, skey, o)
	if err != nil {
		return
	}
	// Salting on top of the isolation, as "after fixes" applies it: only
	// when the numbers favour it (its reads then ask K shards, which can
	// cost more than the spread writes save).
	both := fmt.Sprintf("salt(%s, %d, top=1)%s", baseOf(key), k, rest)
	if y, err := sim.Score(w, both, o); err != nil || y.MaxShardWork >= best.MaxShardWork*0.98 {
		nrep, rep := a.replicasFor(reads, writes, w.Capacity)
		as.Fixes = append(as.Fixes, Fix{Kind: "cache", Target: valueText(cols, hot.Value), replicas: proposed(nrep),
			Text: fmt.Sprintf("Hot value: %s's ~%s requests/s (%s reads/s, %s writes/s) are more than one shard can serve, and salting it over %d buckets would not lower the busiest shard (its reads would then ask every bucket): cache its reads in front of the shard%s.", valueText(cols, hot.Value), fmtF(writes+reads), fmtF(reads), fmtF(writes), k, rep)})
		return
	}
	need := "its writes alone fit in one shard, so salt only if they grow"
	if writes > w.Capacity/2 {
		need = "its writes alone exceed half a shard"
	}
	hv := valueText(cols, hot.Value)
	as.Fixes = append(as.Fixes, Fix{Kind: "salt", Target: hv, Key: skey, Before: nums(c), After: nums(x),
		Text: fmt.Sprintf("Hot writes: salting %s over K = %d buckets (%s) spreads its ~%s writes/s; K is the number of buckets, the fewest that keep each bucket's writes under half a shard's capacity of %s units/s (%s); every one of its ~%s reads/s then asks %d shards (+%s units/s). Busiest shard: %s/s -> %s/s.",
			hv, k, skey, fmtF(writes), fmtF(w.Capacity), need, fmtF(reads), k, fmtF(reads*float64(k-1)), fmtF(c.MaxShardWork), fmtF(x.MaxShardWork))})
	// Salted, each of its K buckets' shards applies writes/K of its writes
	// and serves every one of its reads (each asks every bucket): the
	// replicas are per bucket.
	nrep, rep := a.replicasFor(reads, writes/float64(k), w.Capacity)
	as.Fixes = append(as.Fixes, Fix{Kind: "cache", Target: hv, replicas: proposed(nrep),
		Text: fmt.Sprintf("Hot reads: %s's ~%s reads/s are more than one shard should serve; cache its results in front of the shard%s (for each of the %d salt buckets, each applying 1/%d of its writes and serving every read). Salting does not help reads: it makes each read ask every bucket.", hv, fmtF(reads), rep, k, k)})
}

func onlyReplicas(d *shardkey.Design) bool {
	for _, e := range d.Tables {
		if _, ok := e.(*shardkey.ReplicateExpr); !ok {
			return false
		}
	}
	return true
}

// hotRates estimates the write and read requests/s of a key value with
// the given share of the key's weight.
func (a *analysis) hotRates(w *shardkey.Workload, share float64) (writes, reads float64) {
	for _, op := range w.Ops {
		if op.Kind.IsWrite() {
			writes += op.Rate * share
		} else if len(op.Instances) > 0 && len(op.Instances[0].Conds) > 0 {
			reads += op.Rate * share
		}
	}
	return
}

// scatterFix picks the remedy for an operation that asks many shards:
// batch work goes to a replica or warehouse; a lookup by the table's own
// new-id column gets shard-encoded ids; a query with no equality filter (a
// feed, a queue) gets a separate read model; a lookup by another column
// gets a lookup table (lookup(col): a global secondary index, Vitess's
// lookup vindex; named in the engine's terms, lookupKind), re-simulated with the design, its writes included;
// scored designs are kept in lk by key.
func (a *analysis) scatterFix(op OpCost, as *Assessment, w *shardkey.Workload, o sim.Options, lk map[string]*sim.Candidate) (Fix, bool) {
	if op.Scatter < 0.5 && op.FanoutMean < 3 {
		return Fix{}, false // a range over a shard or two is what range keys are for
	}
	ix := a.index(w)
	wop := ix.byName[op.Name]
	if wop == nil || len(wop.Instances) == 0 {
		return Fix{}, false
	}
	t := w.Tables[wop.Table]
	var eqCols []string
	for _, c := range wop.Instances[0].Conds {
		if c.Op == shardkey.Eq || c.Op == shardkey.In {
			eqCols = append(eqCols, t.Columns[c.Col].Name)
		}
	}
	cost := fmt.Sprintf("today it asks %.1f %s per request: %s extra units/s", op.FanoutMean, op.FanoutUnit(), fmtF(op.ExtraWork))
	if op.Latency != "batch" && (op.ExtraWork < 0.01 || op.ExtraWork < 0.005*as.Score.WorkPerS) {
		return Fix{}, false // a fix would save nothing worth its cost
	}
	switch {
	case op.Latency == "batch":
		if op.Rate < 0.01 {
			// A job that runs a few times a day: its cost is each run's
			// sweep of every shard, not a rate.
			runs := "about " + numfmt.Num(op.Rate*86400) + " times a day"
			if math.Round(op.Rate*86400) == 1 {
				runs = "about once a day"
			}
			cost = fmt.Sprintf("it runs %s, each run asking %.0f %s", runs, op.FanoutMean, op.FanoutUnit())
		}
		return Fix{Kind: "replica", Target: op.Name,
			Text: fmt.Sprintf("%s is batch work: let it scatter, better on a replica or a warehouse than on the serving shards (%s).", op.Name, cost)}, true
	case wop.Kind == shardkey.Insert && op.Unsized >= 0.5:
		// The statement computes its rows' key values (an INSERT ...
		// SELECT): each row goes to its own value's shard under any
		// key, which ones known only at run time; no key or index
		// changes that, and the application supplies the key already.
		return Fix{}, false
	case wop.Kind == shardkey.Insert:
		// The statements read give no value for the key: the router
		// cannot place the row, and no read-side fix changes that.
		return Fix{Kind: "key-on-insert", Target: op.Name,
			Text: fmt.Sprintf("%s gives no value for the key in the statements read, so it cannot be placed on one shard: the application must supply the key with every insert (%s).", op.Name, cost)}, true
	case wop.Kind.IsWrite() && len(eqCols) == 0:
		// An update or delete that binds no key reaches every shard that
		// may hold a matching row; a read model would not change that.
		return Fix{Kind: "write-by-key", Target: op.Name,
			Text: fmt.Sprintf("%s binds no key, so every shard runs it: find the keys first and write by key, or, if it is rare maintenance, run it shard by shard off the serving path (%s).", op.Name, cost)}, true
	case len(eqCols) == 0:
		for _, c := range wop.Instances[0].Conds {
			col := t.Columns[c.Col].Name
			if c.Op == shardkey.Range && a.keyed(as.Key, t.Name, col) && strings.Contains(as.Key, "range("+col) {
				// The design keys by the scanned column already: a scan
				// asks the shards its range spans, which is what a range
				// key is for (seed 000: ranges keep scans cheap).
				return Fix{}, false
			}
			if typ := t.Columns[c.Col].Type; c.Op == shardkey.Range && !t.Monotonic[col] && typ != shardkey.Timestamp && typ != shardkey.Date {
				// A scan of a range of values: ranges of that column keep
				// it on the shards the range spans. Not for a column that
				// grows with insert order, or a time (created_at), which
				// almost always does: its ranges would put every new row
				// and every "latest" read on the last range, so the read
				// model below serves it.
				return Fix{Kind: "range-key", Target: op.Name,
					Text: fmt.Sprintf("%s scans a range of %s, which this design spreads over every shard: partitioning %s by range(%s) keeps a scan on the one or two ranges it spans (compare that design), or serve the scan from a read model ordered by %s (%s).", op.Name, col, t.Name, col, col, cost)}, true
			}
		}
		return Fix{Kind: "read-model", Target: op.Name,
			Text: fmt.Sprintf("%s names no key: serve it from a separate read model fed asynchronously (a table or index keyed for it), not by asking every shard (%s). %s", op.Name, cost, feedCost(op, ix.writeRate[wop.Table], t.Name))}, true
	}
	for _, c := range eqCols {
		// An id the system assigns: unique and growing with insert order
		// (a month or a date grows too, but names many rows: no id).
		ci := t.ColumnIndex(c)
		if ci >= 0 && !idType(t.Columns[ci].Type) {
			continue // text a user supplies (an email, a name) carries no shard
		}
		if a.assignedID(wop.Table, c) || ci >= 0 && t.Monotonic[c] && a.identifies(colRef{wop.Table, ci}) {
			return Fix{Kind: "shard-encoded-id", Target: op.Name,
				Text: fmt.Sprintf("%s looks rows up by %s, an id the system assigns: encode the shard in the id so the lookup is single-shard without a directory (%s). %s", op.Name, c, cost, encodedIDCaveat(a.engine, c, keyColumnOf(as.Key, t)))}, true
		}
	}
	for _, c := range eqCols {
		if a.keyed(as.Key, t.Name, c) {
			// It binds the key already: its fan-out comes from IN lists
			// or NULLs, which a directory on the key would not change.
			return Fix{}, false
		}
	}
	card := a.columnCard(wop.Table, eqCols[0]) // one pass over the rows, for both checks below
	if wop.Kind.IsWrite() && !(card > 0 && t.Rows <= 2*card) {
		// An update or delete finds its rows by another column that many
		// rows share (or that no row sample shows to be near-unique): it
		// must reach every shard holding them, whatever index or read
		// model serves the reads; what helps is writing by key. (When the
		// column names about one row, as TATP's sub_nbr, a lookup
		// directory below gives the one key and the write is
		// single-shard.)
		return Fix{Kind: "write-by-key", Target: op.Name,
			Text: fmt.Sprintf("%s finds its rows by %s, not by the key, so it asks every shard that may hold them: look the keys up first (a lookup by %s) and write by key (%s).", op.Name, strings.Join(eqCols, ", "), eqCols[0], cost)}, true
	}
	// An index on a column of few values returns a large share of the
	// table per lookup: a read model (or accepting the scatter) serves it
	// better than a directory. Few next to the machines serving it (the
	// nodes, with slots on nodes: servers), not the slots.
	if card > 0 && card < 10*a.servers() {
		return Fix{Kind: "read-model", Target: op.Name,
			Text: fmt.Sprintf("%s looks up by %s, which has only %d distinct values: an index on it returns a large share of %s per lookup, so serve it from a separate read model fed asynchronously, or accept the scatter (%s).", op.Name, eqCols[0], card, t.Name, cost)}, true
	}
	return a.lookupFix(op, as, w, o, lk, wop, eqCols[0], card, cost)
}

// lookupFix proposes a lookup table for op, which looks rows of wop's
// table up by col (card distinct values in the row sample, 0 without
// rows): the design with lookup(col) on the table, re-simulated, so that
// the fix states what the lookup saves (the operation's fan-out and the
// design's work after) and what it costs (the lookup rows every insert
// and delete writes, how many land on another shard, the transactions
// they make cross shards). A lookup that costs more work than it saves is
// not proposed. The fan-out after is the re-simulation's: the shards of
// the rows a value names, one for a unique column, as many as hold its
// rows for one that names many.
func (a *analysis) lookupFix(op OpCost, as *Assessment, w *shardkey.Workload, o sim.Options, lk map[string]*sim.Candidate, wop *shardkey.Operation, col string, card int, cost string) (Fix, bool) {
	t := w.Tables[wop.Table]
	// Unique: declared unique alone (a primary or unique key of one
	// column), or every sampled row has its own value, or, without rows,
	// the inserts' values all differ (identifies).
	ci := t.ColumnIndex(col)
	l := shardkey.Lookup{Col: col, Unique: ci >= 0 && a.uniqueKey(colRef{wop.Table, ci}) || t.Rows > 0 && card == t.Rows ||
		t.Rows == 0 && ci >= 0 && a.identifies(colRef{wop.Table, ci})}
	key, ok := addLookup(w, as.Key, t.Name, l)
	if !ok {
		return Fix{}, false
	}
	after, shared := lk[key]
	if !shared {
		var err error
		if after, err = sim.Score(w, key, o); err != nil {
			after = nil
		}
		lk[key] = after
	}
	c := as.Score
	if after == nil {
		return Fix{}, false
	}
	var ls *sim.LookupScore
	for i := range after.Lookups {
		if after.Lookups[i].Table == t.Name && after.Lookups[i].Column == col {
			ls = &after.Lookups[i]
		}
	}
	var ao *sim.OpScore
	for i := range after.Operations {
		if after.Operations[i].Name == op.Name {
			ao = &after.Operations[i]
		}
	}
	if ls == nil || ao == nil {
		return Fix{}, false
	}
	if !l.Unique && ao.FanoutMean >= 2 {
		// The rows a value names are spread over the key's shards: a
		// lookup still asks several; a copy keyed by the column asks one.
		return a.projectionFix(op, as, w, o, wop, col, ao.FanoutMean, after, cost)
	}
	route := fmt.Sprintf("each request reads the lookup table's shard, then the shards of the rows it names: %.2f per request here", ao.FanoutMean)
	if l.Unique && ao.FanoutMean > 1+1e-9 {
		// An IN list: one lookup row and one row per value.
		route = fmt.Sprintf("each request reads the lookup table's shard of each value, then the shard of each value's row (a unique lookup names one row a value): %.2f %s per request here", ao.FanoutMean, after.FanoutUnit())
	} else if l.Unique {
		route = fmt.Sprintf("each request reads the lookup table's one shard, then the one shard of the row (%.2f per request here)", ao.FanoutMean)
	} else if ao.FanoutMean >= 1.5 {
		route += fmt.Sprintf(", since a %s names several rows, spread over the shards of the key", col)
	}
	if after.WorkPerS >= c.WorkPerS*(1-1e-9) {
		// The lookup's writes would cost at least what its reads save.
		return Fix{}, false
	}
	if shared {
		// The same lookup as an earlier fix: its numbers were given there.
		return Fix{Kind: "global-index", Target: op.Name, Key: key, Before: nums(c), After: nums(after),
			Text: fmt.Sprintf("%s looks up by %s too: the same lookup(%s) serves it: %s (today it asks %.1f %s per request).", op.Name, col, col, route, op.FanoutMean, c.FanoutUnit())}, true
	}
	writes := fmt.Sprintf("each of the %s inserts and deletes/s to %s also writes a lookup row (+%s units/s), %s of them on another shard than their row", fmtF(ls.WritesPerS), t.Name, fmtF(ls.WriteWorkPerS), pct(ls.CrossShardWriteFraction))
	if ls.WritesPerS == 0 {
		writes = fmt.Sprintf("each insert and delete of %s also writes a lookup row, usually on another shard (the workload gives no insert or delete rate for it)", t.Name)
		if !insertsOrDeletes(w, wop.Table) {
			writes = fmt.Sprintf("none here, as the workload inserts and deletes no %s rows; each insert or delete would write a lookup row too, usually on another shard (and an update that changes %s, two)", t.Name, col)
		}
	}
	txn := ""
	if after.LookupCrossShardTxnFraction != nil {
		txn = fmt.Sprintf(". Lookup reads and writes in a transaction join it (Vitess: CommitOrder_NORMAL): cross-shard transactions %s -> %s, where %s of all transactions cross only because the lookup table's shard is not their rows' (a consistent_lookup vindex commits its writes apart instead)",
			pct(c.CrossShardTxnFraction), pct(after.CrossShardTxnFraction), pct(*after.LookupCrossShardTxnFraction))
		if !vitessTerms(a.engine) {
			txn = fmt.Sprintf(". Lookup reads and writes in a transaction join it: cross-shard transactions %s -> %s, where %s of all transactions cross only because the lookup table's shard is not their rows' (%s)",
				pct(c.CrossShardTxnFraction), pct(after.CrossShardTxnFraction), pct(*after.LookupCrossShardTxnFraction), lookupApart)
		}
	}
	f := Fix{Kind: "global-index", Target: op.Name, Key: key, Before: nums(c), After: nums(after),
		Text: fmt.Sprintf("%s looks up by %s: a lookup table sharded by %s that maps each %s to the key (%s; design %q) routes it instead of asking every shard: %s. Work %s/s -> %s/s, busiest %s %s/s -> %s/s. Its cost: %s%s. A local index keeps writes local but lookups still scatter (%s).",
			op.Name, col, col, col, lookupKind(a.engine, col, l.VindexType()), key, route, fmtF(c.WorkPerS), fmtF(after.WorkPerS), busiestUnit(c), fmtF(c.MaxShardWork), fmtF(after.MaxShardWork), writes, txn, cost)}
	f.noteRaise(capacityUnit(c), concentrateWhy(col))
	return f, true
}

// projectionFix proposes a per-col projection for op, whose rows by col
// are spread over the key's shards (a lookup table, re-simulated as
// lookupAfter, would still ask fanout shards per request): a copy of the
// table's rows keyed by col, read instead and written with every write
// of the table, re-simulated as capacity's afterFixes applies it. It is
// not proposed when its writes cost at least what it saves.
func (a *analysis) projectionFix(op OpCost, as *Assessment, w *shardkey.Workload, o sim.Options, wop *shardkey.Operation, col string, fanout float64, lookupAfter *sim.Candidate, cost string) (Fix, bool) {
	c := as.Score
	i := slices.Index(w.Ops, wop)
	if i < 0 {
		return Fix{}, false
	}
	dw := *w
	dw.Ops = append([]*shardkey.Operation(nil), w.Ops...)
	dw.Tables = append([]*shardkey.Table(nil), w.Tables...)
	dw.Txns = append([]shardkey.Txn(nil), w.Txns...)
	entry, ok := addIndexTable(&dw, i)
	if !ok {
		return Fix{}, false
	}
	key := as.Key + "; " + entry
	after, err := sim.Score(&dw, key, o)
	if err != nil || after.WorkPerS >= c.WorkPerS*(1-1e-9) {
		return Fix{}, false
	}
	t := w.Tables[wop.Table]
	writes := a.index(w).writeRate[wop.Table]
	wc := fmt.Sprintf("each of the %s writes/s to %s also writes the copy (+%s units/s), usually on another shard: in the same transaction, or fed asynchronously if the list may lag", fmtF(writes), t.Name, fmtF(writes))
	if writes == 0 {
		wc = fmt.Sprintf("each write to %s also writes the copy, usually on another shard (the workload gives no write rate for it)", t.Name)
	}
	spread := fmt.Sprintf("one %s names many rows spread over the key's shards", col)
	if t.Rows == 0 {
		spread = fmt.Sprintf("without a row sample of %s how many shards one %s's rows are on is unknown (a non-unique lookup is scored as asking every shard)", t.Name, col)
	}
	f := Fix{Kind: "projection", Target: op.Name, Key: key, Before: nums(c), After: nums(after),
		Text: fmt.Sprintf("%s looks up by %s, and %s: a lookup table (lookup(%s, nonunique)) would still ask %.2f %s per request (re-simulated: work %s/s -> %s/s). Keep a per-%s projection instead: a copy of the %s rows it reads, sharded by %s (%s), so each request asks one shard: work %s/s -> %s/s, busiest %s %s/s -> %s/s. Its cost: %s (%s).",
			op.Name, col, spread, col, fanout, lookupAfter.FanoutUnit(), fmtF(c.WorkPerS), fmtF(lookupAfter.WorkPerS), col, t.Name, col, entry, fmtF(c.WorkPerS), fmtF(after.WorkPerS), busiestUnit(c), fmtF(c.MaxShardWork), fmtF(after.MaxShardWork), wc, cost)}
	f.noteRaise(capacityUnit(c), concentrateWhy(col))
	return f, true
}

// insertsOrDeletes reports whether the workload inserts or deletes rows of
// table ti (in an operation or a transaction).
func insertsOrDeletes(w *shardkey.Workload, ti int) bool {
	for _, op := range w.Ops {
		if op.Table == ti && (op.Kind == shardkey.Insert || op.Kind == shardkey.Delete) {
			return true
		}
	}
	for _, tx := range w.Txns {
		if !tx.Committed() {
			continue
		}
		for _, st := range tx.Stmts {
			if st.Table == ti && (st.Kind == shardkey.Insert || st.Kind == shardkey.Delete) {
				return true
			}
		}
	}
	return false
}

// addLookup returns design key with lookup l added to table's key, or
// false when the design does not shard the table, keys it by l's column
// already, or cannot be read. A table the bare expression places gets an
// entry of its own with the same expression (so co-location holds) and
// the bare expression's lookups it had.
func addLookup(w *shardkey.Workload, key, table string, l shardkey.Lookup) (string, bool) {
	d, err := shardkey.ParseDesign(key)
	t := w.Table(table)
	if err != nil || t == nil || t.Column(l.Col) == nil {
		return "", false
	}
	has := func(c string) bool { return t.Column(c) != nil }
	e := d.For(table, has)
	if e == nil || slices.Contains(e.Columns(), l.Col) {
		return "", false
	}
	if _, ok := e.(*shardkey.ReplicateExpr); ok {
		return "", false
	}
	ls := d.LookupsFor(table, has)
	for _, x := range ls {
		if x.Col == l.Col {
			return key, true
		}
	}
	ls = append(ls[:len(ls):len(ls)], l)
	entry := func(head string, ls []shardkey.Lookup) string {
		for _, x := range ls {
			head += ", " + x.String()
		}
		return head
	}
	if _, own := d.Tables[table]; !own {
		return d.Text + "; " + entry(shardkey.QuoteName(table)+":"+e.String(), ls), true
	}
	var parts []string
	if d.Default != nil {
		parts = append(parts, entry(d.Default.String(), d.Lookups[""]))
	}
	for _, tn := range d.Order {
		tl := d.Lookups[tn]
		if tn == table {
			tl = ls
		}
		parts = append(parts, entry(shardkey.QuoteName(tn)+":"+d.Tables[tn].String(), tl))
	}
	return strings.Join(parts, "; "), true
}

// evenCounts says how evenly card values of equal traffic can sit on n
// units (shards, or nodes with slots on nodes: unit names them): ranges
// put ceil(card/n) values on the busiest, that over card/n times the
// mean, and counts near n that divide card (within n/2..2n) put the same
// number on every one.
func evenCounts(card, n int, unit string) string {
	if card%n == 0 {
		return fmt.Sprintf("ranges of %d %s each place values of equal traffic evenly on %d %ss", card/n, plural(card/n, "value", "values"), n, unit)
	}
	busiest := (card + n - 1) / n
	s := fmt.Sprintf("even ranges put %d values on the busiest %s, %.2fx the mean if the values carry equal traffic", busiest, unit, float64(busiest)*float64(n)/float64(card))
	var div []string
	for _, d := range evenShards(card, n) {
		div = append(div, strconv.Itoa(d))
	}
	if len(div) > 0 {
		s += fmt.Sprintf("; %s %ss would divide the %d values evenly", joinOr(div), unit, card)
	}
	return s
}

// joinOr joins words as "a", "a or b", "a, b or c".
func joinOr(w []string) string {
	if len(w) < 2 {
		return strings.Join(w, "")
	}
	return strings.Join(w[:len(w)-1], ", ") + " or " + w[len(w)-1]
}

// flags notes properties of the chosen key worth knowing: low cardinality,
// ids whose low bits are patterned so that modulo placement of the raw id
// (rather than of its hash) would be skewed.
//
// With slots on nodes the low-cardinality flags count nodes, as the
// low-cardinality rejection does (a slot is logical: the work lands on
// the nodes), and say so; the modulo flag places the raw id on the n
// slots.
func (a *analysis) flags(best *Assessment, n int) []string {
	var out []string
	units, unit := a.whaleUnits(n)
	// Low-cardinality keys, one flag per (cardinality, basis): the tables
	// of an entity group carry the root key under their own column names
	// (TPC-C's w_id, c_w_id, d_w_id, ...), so the flag names each table's
	// column rather than repeating itself per table. A cardinality counted
	// from the statements' values (a log, no row sample) is what the log
	// names, a lower bound of what the table holds, and the text says so.
	// A key with a value per sampled row (an id) is unique: its count
	// grows with the table, and no cap on the shard count follows.
	type lowKey struct {
		card            int
		traffic, unique bool
	}
	low := map[lowKey][]string{} // tables
	cols := map[lowKey][]string{}
	var lowOrder []lowKey
	for _, tk := range best.Score.Tables {
		if tk.Cardinality > 0 && tk.Cardinality < 10*units {
			k := lowKey{tk.Cardinality, tk.Basis == "traffic" && tk.Database == nil, tk.Rows > 0 && tk.Cardinality == tk.Rows}
			if low[k] == nil {
				lowOrder = append(lowOrder, k)
			}
			low[k] = append(low[k], tk.Table)
			c := strings.Join(tk.Columns, ", ")
			if !slices.Contains(cols[k], c) {
				cols[k] = append(cols[k], c)
			}
		}
	}
	for _, k := range lowOrder {
		values := fmt.Sprintf("%d distinct %s", k.card, plural(k.card, "value", "values"))
		if k.traffic {
			values = "the statements name " + values
		}
		var head string
		if len(cols[k]) == 1 {
			if k.traffic {
				head = fmt.Sprintf("%s of %s for %d %ss (%s)", values, cols[k][0], units, unit, strings.Join(low[k], ", "))
			} else {
				head = fmt.Sprintf("%s has %s for %d %ss (%s)", cols[k][0], values, units, unit, strings.Join(low[k], ", "))
			}
		} else {
			var named []string
			for _, tn := range low[k] {
				for _, tk := range best.Score.Tables {
					if tk.Table == tn && tk.Cardinality == k.card {
						named = append(named, tn+"."+strings.Join(tk.Columns, ", "))
						break
					}
				}
			}
			head = fmt.Sprintf("%s for %d %ss in the key of %s", values, units, unit, strings.Join(named, "; "))
		}
		if_ := ""
		if k.traffic {
			if_ = "if the " + plural(len(low[k]), "table holds", "tables hold") + " no more, "
		}
		if k.unique {
			out = append(out, fmt.Sprintf("%s: fewer than 10 per %s leaves a hash placement lumpy; ranges with one value each, or more values, spread evenly (a value per row: the count grows with the table)", head, unit))
			continue
		}
		if k.card < units {
			out = append(out, fmt.Sprintf("%s: fewer values than %ss; %sat least %d of the %d %ss hold none of these rows, and no shard count spreads them further: one value's rows and traffic stay on one %s unless the key gains a column (a compound key, or salting)", head, unit, if_, units-k.card, units, unit, unit))
			continue
		}
		out = append(out, fmt.Sprintf("%s: fewer than 10 per %s leaves a hash placement lumpy; %s; %sno more than %d %ss can ever be used: past %d the busiest %s still carries one value's whole traffic", head, unit, evenCounts(k.card, units, unit), if_, k.card, unit, k.card, unit))
	}
	// Integer ids used as lookup keys whose low bits are patterned.
	for r, us := range a.use {
		if us.eqRate <= 0 {
			continue
		}
		t := a.w.Tables[r.table]
		c := t.Columns[r.col]
		if c.Type != shardkey.Int64 || c.Nulls != nil || t.Rows < 100*n {
			continue
		}
		if x := moduloSkew(t, r.col, n); x > 0 {
			out = append(out, fmt.Sprintf("%s.%s: its ids are patterned in the low bits; placing the raw id modulo %d shards would give a busiest shard %.2fx the mean (hash it first, as every hash engine here does; engines that place the raw id, such as vitess-numeric, would not)", t.Name, c.Name, n, x))
		}
	}
	sort.Strings(out[len(lowOrder):])
	return out
}

// idType reports whether a column of type typ can be an id the system
// assigns and so can carry an encoded shard: an integer (a sequence, a
// Snowflake-style id), a UUID, a MongoDB ObjectId or raw bytes; not text,
// which users supply (an email, a name: a lookup serves those), nor a
// float, time or boolean.
func idType(typ shardkey.Type) bool {
	switch typ {
	case shardkey.Int64, shardkey.UUID, shardkey.ObjectID, shardkey.Bytes:
		return true
	}
	return false
}

// assignedID reports whether column col of table ti looks like an id the
// system assigns: unique in a row sample of at least 20 rows and growing
// with insert order (monotonic, as MongoDB's analyzer judges it).
func (a *analysis) assignedID(ti int, col string) bool {
	t := a.w.Tables[ti]
	ci := t.ColumnIndex(col)
	if ci < 0 || t.Rows < 20 {
		return false
	}
	ks := sim.ComputeKeyStats(t, []int{ci})
	return ks.Cardinality == t.Rows && ks.Monotonic && ks.Monotonicity > 0
}

// columnCard returns the distinct values of column col of table ti in its
// row sample (counting stops past 1<<16), or 0 without rows.
func (a *analysis) columnCard(ti int, col string) int {
	t := a.w.Tables[ti]
	ci := t.ColumnIndex(col)
	if ci < 0 || t.Rows == 0 {
		return 0
	}
	seen := map[shardkey.Value]bool{}
	for i := 0; i < t.Rows && len(seen) <= 1<<16; i++ {
		seen[t.Columns[ci].Value(i).Canonical()] = true
	}
	return len(seen)
}

func (a *analysis) keyed(key, table, col string) bool {
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return false
	}
	t := a.w.Table(table)
	e := d.For(table, func(c string) bool { return t.Column(c) != nil })
	if e == nil {
		return false
	}
	for _, c := range e.Columns() {
		if c == col {
			return true
		}
	}
	return false
}

// moduloSkew returns max/mean of the row weight per (id mod n) when it is
// well above (1.5x) what hashing the same ids gives, else 0: the ids'
// low bits are patterned (TPC-C's NURand ids), so placing the raw id
// modulo n would be skewed where a hash would not.
func moduloSkew(t *shardkey.Table, ci, n int) float64 {
	mod := make([]float64, n)
	hashed := make([]float64, n)
	for i, v := range t.Columns[ci].Ints {
		m := v % int64(n)
		if m < 0 {
			m += int64(n)
		}
		mod[m] += t.Weight(i)
		hashed[partition.Generic{}.PointInt64(v)%uint64(n)] += t.Weight(i)
	}
	if r, h := maxMeanRatio(mod), maxMeanRatio(hashed); r > 1.5*h {
		return r
	}
	return 0
}

// baseOf returns the default expression of design key, as text.
func baseOf(key string) string {
	d, err := shardkey.ParseDesign(key)
	if err != nil || d.Default == nil {
		return key
	}
	return d.Default.String()
}

// ratioName names the ratio whaleFix weighs: the rows' load, or the
// work's without rows.
func ratioName(c *sim.Candidate) string {
	if c.LoadRatio > 0 {
		return "load"
	}
	return "work"
}

// ratioText names what the whale fix's ratio measures, beside the work
// ratio the summary gives (sim.Candidate: WorkRatio is the busiest
// shard's work, units/s, over the mean shard's; LoadRatio the busiest
// shard's sum of row weights over the mean, each sampled row weighing its
// share of requests, or 1 when the rows carry no weight: then it is the
// rows a shard holds).
func ratioText(c *sim.Candidate, w *shardkey.Workload) string {
	if ratioName(c) == "work" {
		return "work ratio (the busiest shard's units of work/s over the mean shard's)"
	}
	for _, t := range w.Tables {
		if t.Weights != nil {
			return "row load ratio (the busiest shard's sampled rows, each weighted by its share of requests, over the mean shard's)"
		}
	}
	return "row load ratio (the sampled rows the busiest shard holds over the mean shard's: data, not traffic)"
}

// mainColumns returns the columns of c's main table key (the one its
// TopValues describe).
func mainColumns(c *sim.Candidate) []string {
	for _, tk := range c.Tables {
		if tk.Cardinality == c.Cardinality && len(tk.TopValues) > 0 && len(c.TopValues) > 0 && tk.TopValues[0] == c.TopValues[0] {
			return tk.Columns
		}
	}
	if len(c.Tables) > 0 {
		return c.Tables[0].Columns
	}
	return nil
}

// valueText names a key value with its column: "customer_id = 1001",
// "(customer_id, order_month) = (1, 3)".
func valueText(cols []string, v string) string {
	switch len(cols) {
	case 0:
		return v
	case 1:
		return cols[0] + " = " + v
	}
	return "(" + strings.Join(cols, ", ") + ") = " + v
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// feedCost says what a read model costs that the re-simulation leaves out:
// it serves the operation's requests on its own store, and every write
// of the table it mirrors feeds it.
func feedCost(op OpCost, writes float64, table string) string {
	if writes <= 0 {
		return fmt.Sprintf("The read model then serves its %s requests/s itself, off the serving shards (not counted in \"after fixes\").", fmtF(op.Rate))
	}
	return fmt.Sprintf("The read model then serves its %s requests/s itself and takes the %s writes/s to %s as an asynchronous feed, off the serving shards (neither counted in \"after fixes\").", fmtF(op.Rate), fmtF(writes), table)
}

// keyColumnOf names the column design key places table t by ("" when
// none, or several).
func keyColumnOf(key string, t *shardkey.Table) string {
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return ""
	}
	e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
	if e == nil || len(e.Columns()) != 1 {
		return ""
	}
	return e.Columns()[0]
}

// encodedIDCaveat is what a shard-encoded id leaves to do: ids encode
// the key's placement only from the change on, so the rows already
// written need their ids rewritten (with every reference to them) or a
// lookup from id to key (Vitess's lookup vindex, a mapping table) until
// none is read by its old id; and the id should carry the key's logical
// slot (its hash, or a slot among many more than there are shards), not
// a physical shard number, which a reshard would make wrong. engine
// names the lookup as that engine has it.
func encodedIDCaveat(engine, idCol, keyCol string) string {
	by := "the key"
	if keyCol != "" {
		by = keyCol
	}
	lookup := fmt.Sprintf("a lookup from %s to %s (a mapping table)", idCol, by)
	switch {
	case strings.HasPrefix(engine, "vitess"):
		lookup = fmt.Sprintf("a lookup vindex on %s (consistent_lookup_unique, a table from %s to the keyspace id)", idCol, idCol)
	case engine == "mongodb":
		lookup = fmt.Sprintf("a lookup from %s to %s (a mapping collection)", idCol, by)
	}
	rewrite := "rewrite each id and every reference to it"
	if engine == "mongodb" && idCol == "_id" {
		rewrite = "_id is immutable: re-insert each document under its new _id and rewrite every reference to it"
	}
	return fmt.Sprintf("Ids already written do not carry it: backfill them (%s) or route them through %s until none is read by an old id; only new ids route by the encoding. Encode %s's logical slot (its hash, or a slot among many more slots than shards), not a physical shard number, which a reshard would make wrong.", rewrite, lookup, by)
}
