package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/shardkey/shardkey/internal/numfmt"
	"github.com/shardkey/shardkey/sim"
)

// barWidth is the characters a bar of the busiest shard (or of capacity) takes.
const barWidth = 40

// WriteJSON writes r as the pinned JSON document, indented.
func (r *Score) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteTable writes r for a terminal: the ranked candidates, then each
// candidate's per-shard work as bars against capacity, its operations and
// its key's statistics.
func (r *Score) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s\n", r.Workload)
	if r.Description != "" {
		fmt.Fprintf(w, "%s\n", numfmt.Wrap(r.Description, 88, ""))
	}
	c0 := r.Candidates[0]
	capText := "capacity not given"
	if r.Capacity > 0 {
		capText = "capacity " + numfmt.Count(r.Capacity, "unit of work/s", "units of work/s") + " per shard"
		if c0.CapacityPer == "node" {
			capText = "capacity " + numfmt.Count(r.Capacity, "unit of work/s", "units of work/s") + " per node (its slots' work summed)"
		}
	}
	fmt.Fprintf(w, "%s on %s, %s, engine %s\n\n", numfmt.Count(c0.RequestsPerS, "request/s", "requests/s"), placedOn(r.Shards, c0), capText, r.Engine)
	if l := r.scatterCaveat(); l != "" {
		fmt.Fprintf(w, "%s\n\n", numfmt.Wrap(l, 88, ""))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "rank\tkey\t%s\tx mean\twork\t%s\tp99\t%s\t%s\tover capacity\n", busiestUnit(c0), fanoutHead(c0, "fan-out"), txnHead(c0), loadHead(c0))
	ranked := r.Ranked()
	for i, c := range ranked {
		txn := c.TxnCell()
		fan, p99, workRatio, load := orDash(c)
		fmt.Fprintf(tw, "%d\t%s\t%s/s\t%s\t%s/s\t%s\t%s\t%s\t%s\t%s\n", i+1, c.Key, numfmt.Num(c.MaxShardWork), workRatio,
			numfmt.Num(c.WorkPerS), fan, p99, txn, load, overText(r.Capacity, c))
	}
	tw.Flush()
	fmt.Fprintln(w, "\nWork is units of work per second: one operation on one shard is one unit.")
	for _, c := range ranked {
		fmt.Fprintf(w, "\n== %s ==\n", c.Key)
		bars(w, c, r.Capacity)
		writeRangesTable(w, c)
		ops(w, c)
		if t := c.NoShardNote(); t != "" {
			fmt.Fprintln(w, numfmt.Wrap(t, 88, ""))
		}
		if t := rolledBackLine(c, r.RolledBackTxns); t != "" {
			fmt.Fprintln(w, numfmt.Wrap(t, 88, ""))
		}
		for _, l := range LookupLines(c) {
			fmt.Fprintln(w, l)
		}
		keyLine(w, c)
		// Redis Cluster's 16384 slots are fixed: it grows by a node, the
		// slots migrating (the nodes report), never by a slot.
		if len(c.Rebalance) > 0 && !(c.Nodes != nil && c.Engine == "redis") {
			var parts []string
			for _, m := range c.Rebalance {
				p := fmt.Sprintf("%s %s of keys (%s of load)", m.Placement, numfmt.Pct(m.KeysMoved), numfmt.Pct(m.LoadMoved))
				if m.Note != "" {
					p = fmt.Sprintf("%s %s of keys (%s of load; %s)", m.Placement, numfmt.Pct(m.KeysMoved), numfmt.Pct(m.LoadMoved), m.Note)
				} else if m.To != c.Shards+1 {
					p = fmt.Sprintf("%s to %d shards %s of keys (%s of load)", m.Placement, m.To, numfmt.Pct(m.KeysMoved), numfmt.Pct(m.LoadMoved))
				}
				parts = append(parts, p)
			}
			what := "a shard"
			if c.Nodes != nil {
				// The placements compared here re-place keys over one
				// more slot; the nodes report gives growth by node.
				what = "a slot"
			}
			fmt.Fprintf(w, "adding %s (%d -> %d) moves: %s\n", what, c.Shards, c.Shards+1, strings.Join(parts, "; "))
		}
	}
	return nil
}

// slotNodes returns the node count when c's shards are slots placed on
// nodes (--slots with --nodes), else 0.
func slotNodes(c *sim.Candidate) int {
	switch {
	case c.Nodes != nil:
		return c.Nodes.Nodes
	case c.CapacityPer == "node":
		return c.CapacityUnits()
	}
	return 0
}

// scatterCaveat is sim.ScatterCaveat for r: with slots on nodes and an
// operation of some candidate asking more than one slot, how a scatter's
// work is counted and what the engine does instead.
func (r *Score) scatterCaveat() string {
	n := slotNodes(r.Candidates[0])
	if n == 0 {
		return ""
	}
	scatter := false
	for _, c := range r.Candidates {
		for _, op := range c.Operations {
			scatter = scatter || op.SlotFanoutMean() > 1.001
		}
	}
	return sim.ScatterCaveat(r.Engine, r.Shards, n, scatter)
}

// placedOn says what a score's work is placed on: "64 shards", or with
// slots on nodes "32 slots over 4 nodes" (a slot is the placement unit,
// a node the machine; the advise summary says the same).
func placedOn(shards int, c *sim.Candidate) string {
	if n := slotNodes(c); n > 0 {
		return fmt.Sprintf("%d slots over %d nodes", shards, n)
	}
	if shards == 1 {
		return "1 shard"
	}
	return fmt.Sprintf("%d shards", shards)
}

// fanoutHead is a fan-out column's head: head, with "(nodes)" when c's
// fan-out counts nodes (sim.Candidate.FanoutPer).
func fanoutHead(c *sim.Candidate, head string) string {
	if c.FanoutPer == "node" {
		return head + " (nodes)"
	}
	return head
}

// loadHead is the load ratio column's head: "load ratio", with "(nodes)"
// when it is the nodes' (orDash: where work is counted per node, WorkPer
// "node"), "(slots)" when the shards are slots on nodes otherwise.
func loadHead(c *sim.Candidate) string {
	switch {
	case c.WorkPer == "node":
		return "load ratio (nodes)"
	case slotNodes(c) > 0:
		return "load ratio (slots)"
	}
	return "load ratio"
}

// txnHead is the cross-shard transactions column's head: with slots on
// nodes it counts slots, "cross-slot txns" (a transaction on two slots of
// one node still spans two; Redis Cluster refuses a MULTI/EXEC across
// slots with CROSSSLOT).
func txnHead(c *sim.Candidate) string {
	if slotNodes(c) > 0 {
		return "cross-slot txns"
	}
	return "cross-shard txns"
}

// busiestUnit is the score table's column of the busiest placement unit:
// "busiest shard", or "busiest slot" when the shards are slots on nodes.
func busiestUnit(c *sim.Candidate) string {
	if c.WorkPer == "node" {
		return "busiest node"
	}
	if slotNodes(c) > 0 {
		return "busiest slot"
	}
	return "busiest shard"
}

// overText is the over-capacity cell of c: "-" without a capacity, "K of
// N" shards, or "K of N nodes" when the capacity is a node's.
func overText(capacity float64, c *sim.Candidate) string {
	if capacity <= 0 {
		return "-"
	}
	if c.CapacityPer == "node" {
		return fmt.Sprintf("%d of %d nodes", len(c.OverCapacity), c.CapacityUnits())
	}
	return fmt.Sprintf("%d of %d", len(c.OverCapacity), c.Shards)
}

// bars draws per-shard work against capacity (a shard's; a node's
// capacity is drawn in the nodes report, not against one slot).
//
// With work counted per node (sim.Candidate.WorkPer "node": Redis Cluster's
// slots on masters) the bars are the nodes' work against a node's
// capacity, one bar per node, not 16384 slot bars.
func bars(w io.Writer, c *sim.Candidate, capacity float64) {
	work := c.ShardWork
	perNode := c.WorkPer == "node"
	if perNode {
		work = c.CapacityWork()
	} else if c.CapacityPer == "node" {
		capacity = 0
	}
	scale := c.MaxShardWork
	if capacity > scale {
		scale = capacity
	}
	if scale <= 0 {
		fmt.Fprintln(w, "no work on any shard")
		return
	}
	unit := "shard" // with slots over nodes, the bars are slots'
	if perNode {
		unit = "node"
	} else if c.Nodes != nil {
		unit = "slot"
	}
	capCol := -1
	if capacity > 0 {
		capCol = int(math.Round(capacity / scale * barWidth))
		fmt.Fprintf(w, "per-%s work, units/s (| marks capacity %s/s, ! a %s over it):\n", unit, numfmt.Num(capacity), unit)
	} else {
		fmt.Fprintf(w, "per-%s work, units/s:\n", unit)
	}
	idx := make([]int, len(work))
	for i := range idx {
		idx[i] = i
	}
	shown := idx
	if len(idx) > 16 {
		sort.SliceStable(idx, func(a, b int) bool { return work[idx[a]] > work[idx[b]] })
		shown = idx[:10]
	}
	for _, s := range shown {
		x := work[s]
		n := int(math.Round(x / scale * barWidth))
		row := []rune(strings.Repeat("█", n) + strings.Repeat(" ", barWidth-n+1))
		if capCol >= 0 && capCol < len(row) {
			if row[capCol] == ' ' {
				row[capCol] = '|'
			} else {
				row[capCol] = '┃'
			}
		}
		flag := " "
		if capacity > 0 && x > capacity*(1+1e-12) {
			flag = "!"
		}
		fmt.Fprintf(w, " %s%4d %s %8s\n", flag, s, string(row), numfmt.Num(x))
	}
	if len(idx) > 16 {
		rest := make([]float64, 0, len(idx)-10)
		for _, s := range idx[10:] {
			rest = append(rest, work[s])
		}
		fmt.Fprintf(w, "  ... %d more %ss from %s down to %s (the 10 busiest are shown)\n", len(rest), unit, numfmt.Num(rest[0]), numfmt.Num(rest[len(rest)-1]))
	}
	fmt.Fprintf(w, "busiest %s/s, mean %s/s: %s the mean\n", numfmt.Num(c.MaxShardWork), numfmt.Num(c.MeanShardWork), numfmt.Ratio(c.WorkRatio))
}

// scatterCell is an operation's scatter-gather share, or "broadcast
// write" for a write to a replicated table, which writes every copy
// rather than asking every shard for an answer.
func scatterCell(o sim.OpScore) string {
	if o.Broadcast {
		return "broadcast write"
	}
	return numfmt.Pct(o.ScatterFraction)
}

func ops(w io.Writer, c *sim.Candidate) {
	if len(c.Operations) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "operation\trequests/s\twork/s\t%s\tp99\tscatter-gather\n", fanoutHead(c, "fan-out mean"))
	for _, o := range c.Operations {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", o.Name, numfmt.Num(o.RequestsPerS), numfmt.Num(o.WorkPerS),
			strconv.FormatFloat(o.FanoutMean, 'f', 2, 64), numfmt.Num(o.FanoutP99), scatterCell(o))
	}
	tw.Flush()
	for _, o := range c.Operations {
		if o.MergedPerS > 0 {
			fmt.Fprintln(w, mergedNote(o))
		}
	}
}

// mergedNote says why operation o counts fewer requests than it runs:
// its merged reads (OpScore.MergedPerS) are one route with another
// table's read.
func mergedNote(o sim.OpScore) string {
	if o.Kind == "insert" {
		return fmt.Sprintf("%s: %s/s of its inserts are rows of multi-row INSERTs after their first, each statement counted as one request at its first row (whose statement asks the union of its rows' shards: the design's fan-out and single-shard figures): no requests here; their work (a unit a row) and own fan-out here", o.Name, numfmt.Num(o.MergedPerS))
	}
	return fmt.Sprintf("%s: %s/s of its reads are parts of statements that read other tables too (a join), each counted as one request at another table's read (whose statement asks the union of its tables' shards: the design's fan-out and single-shard figures): no requests here; their work and own fan-out here", o.Name, numfmt.Num(o.MergedPerS))
}

func keyLine(w io.Writer, c *sim.Candidate) {
	for _, t := range c.Tables {
		if t.Database == nil && (t.Rows == 0 && t.Basis == "" || t.Basis == "traffic" && t.Cardinality == 0) {
			fmt.Fprintf(w, "key %s on %s: no row sample and no statement binding it to a value: rows, distinct values, skew and monotonicity unknown\n", strings.Join(t.Columns, ", "), t.Table)
			continue
		}
		if t.Basis == "traffic" && t.Database == nil {
			top := ""
			if len(t.TopValues) > 0 {
				top = fmt.Sprintf(", hottest %s = %s at %s of the requests naming it", strings.Join(t.Columns, ", "), t.TopValues[0].Value, numfmt.Pct(t.TopValues[0].Share))
			}
			about := ""
			if t.Estimated {
				about = "about "
			}
			mono := fmt.Sprintf("inserted values not monotonic (r = %.2f)", t.Monotonicity)
			switch {
			case t.MonotonicityUnknown:
				mono = "monotonicity unknown (fewer than 3 inserted values)"
			case t.Monotonic:
				mono = fmt.Sprintf("inserted values MONOTONIC (r = %.2f)", t.Monotonicity)
			}
			eabout := ""
			if t.EntropyEstimated {
				eabout = "about "
			}
			// The figure is a hash's (TableKey.ExpectedMaxLoadRatio): for
			// a range key, whose boundaries place the values, a yardstick.
			values, give, yard, after := "values", "give", "", ""
			if t.Cardinality == 1 {
				values, give = "value", "gives"
			}
			if strings.HasPrefix(t.Key, "range(") {
				give, yard, after = "would give", "as a yardstick, ", " (this key's range boundaries, not a hash, place them)"
			}
			busy := fmt.Sprintf("hashed to %d shards %s a busiest shard %s the mean", c.Shards, give, numfmt.Ratio(t.ExpectedMaxLoadRatio))
			if n := slotNodes(c); n > 0 && c.WorkPer == "node" {
				busy = fmt.Sprintf("hashed to %d slots over %d nodes %s a busiest node %s the mean node (a busiest slot %s the mean slot)", c.Shards, n, give, numfmt.Ratio(sim.ExpectedMaxLoadRatio(t.Cardinality, n)), numfmt.Ratio(t.ExpectedMaxLoadRatio))
			} else if n > 0 {
				busy = fmt.Sprintf("hashed to %d slots %s a busiest slot %s the mean slot", c.Shards, give, numfmt.Ratio(t.ExpectedMaxLoadRatio))
			}
			yard += fmt.Sprintf("%s equally busy %s %s", numfmt.Commas(int64(t.Cardinality)), values, busy) + after
			fmt.Fprintf(w, "key %s on %s, traffic-based (no row sample: rows unknown): %s%s distinct values in the statements%s, entropy %s%.1f bits, %s; %s\n",
				strings.Join(t.Columns, ", "), t.Table, about, numfmt.Commas(int64(t.Cardinality)), top, eabout, t.Entropy, mono, yard)
			continue
		}
		top := ""
		if len(t.TopValues) > 0 {
			top = fmt.Sprintf(", hottest %s at %s of rows' weight", t.TopValues[0].Value, numfmt.Pct(t.TopValues[0].Share))
		}
		mono := "not monotonic"
		if t.Monotonic {
			mono = "MONOTONIC"
		}
		about, entropy := "", fmt.Sprintf("entropy %.1f bits", t.Entropy)
		if t.EntropyEstimated {
			entropy = fmt.Sprintf("entropy about %.1f bits", t.Entropy)
		}
		if d := t.Database; d != nil {
			if d.Sample != "" {
				about = "about "
			}
			switch {
			case t.Basis == "traffic":
				entropy += " (of the statements' values)"
			case t.Rows == 0:
				entropy = "entropy unknown (no row sampled)"
			}
		}
		fmt.Fprintf(w, "key %s on %s: %s%s distinct values%s, %s, %s (r = %.2f); %s\n",
			strings.Join(t.Columns, ", "), t.Table, about, numfmt.Commas(int64(t.Cardinality)), top, entropy, mono, t.Monotonicity, perfectHashText(c, t))
		if d := t.Database; d != nil {
			databaseLine(w, t)
		}
	}
}

// perfectHashText is the key line's yardstick: the max/mean a perfect
// hash of t's distinct values, as equal keys, leaves (balls into bins,
// sim.ExpectedMaxLoadRatio), over the units c's headline counts. With
// slots on nodes and work counted per node (WorkPer "node": redis) that
// is the nodes, with the slots' figure beside it, labelled: 8 keys over
// 16384 slots give a busiest slot about 2,051 times the mean slot, which
// says nothing of the 8 nodes (2.60x). With slots on nodes otherwise the
// headline is the slots', and the figure says so.
func perfectHashText(c *sim.Candidate, t sim.TableKey) string {
	n := slotNodes(c)
	switch {
	case n > 0 && c.WorkPer == "node":
		return fmt.Sprintf("a perfect hash of this many equal keys over %d nodes gives %s (over the %d slots: %s)", n, numfmt.Ratio(sim.ExpectedMaxLoadRatio(t.Cardinality, n)), c.Shards, numfmt.Ratio(t.ExpectedMaxLoadRatio))
	case n > 0:
		return fmt.Sprintf("a perfect hash of this many equal keys over %d slots gives %s", c.Shards, numfmt.Ratio(t.ExpectedMaxLoadRatio))
	}
	return "a perfect hash of this many equal keys gives " + numfmt.Ratio(t.ExpectedMaxLoadRatio)
}

// databaseLine says which of a key's figures were computed inside the
// live database and which come from the row sample.
func databaseLine(w io.Writer, t sim.TableKey) {
	table, d := t.Table, t.Database
	if d.Sample != "" {
		fmt.Fprintf(w, "  %s: estimated inside the database from its own sample (%s, ~%s rows; %s): %s; NULL keys %s",
			table, d.Method, numfmt.Commas(d.Rows), d.Sample, strings.Join(d.Figures, ", "), numfmt.Pct(d.NullShare))
	} else {
		fmt.Fprintf(w, "  %s: computed inside the database (%s, %s rows): %s; NULL keys %s",
			table, d.Method, numfmt.Commas(d.Rows), strings.Join(d.Figures, ", "), numfmt.Pct(d.NullShare))
	}
	if d.Correlation != "" {
		fmt.Fprintf(w, "; monotonicity is %s", d.Correlation)
	}
	switch {
	case t.Basis == "traffic":
		fmt.Fprintf(w, "; from the statements' values (no row sampled): %s\n", strings.Join(d.FromSample, ", "))
	case t.Rows == 0:
		fmt.Fprintf(w, "; unknown (no row sampled): %s\n", strings.Join(d.FromSample, ", "))
	default:
		fmt.Fprintf(w, "; from the row sample: %s\n", strings.Join(d.FromSample, ", "))
	}
	if len(d.ShardRows) > 0 {
		rows := make([]string, len(d.ShardRows))
		for i, r := range d.ShardRows {
			rows[i] = numfmt.Commas(r)
		}
		fmt.Fprintf(w, "  %s rows per shard (database): %s, busiest %s the mean", table, strings.Join(rows, " "), numfmt.Ratio(d.ShardRowsRatio))
		if len(d.ShardBytes) > 0 {
			b := make([]string, len(d.ShardBytes))
			for i, x := range d.ShardBytes {
				b[i] = numfmt.Bytes(float64(x))
			}
			fmt.Fprintf(w, "; bytes %s", strings.Join(b, " "))
		}
		fmt.Fprintf(w, " (%s)\n", d.ShardMethod)
	}
}

// WriteMarkdown writes r as a Markdown document, warnings included.
func (r *Score) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "# %s\n\n", MarkdownText(r.Workload))
	if r.Description != "" {
		fmt.Fprintf(w, "%s\n\n", MarkdownText(r.Description))
	}
	fmt.Fprintf(w, "%s on %s, engine `%s`", numfmt.Count(r.Candidates[0].RequestsPerS, "request/s", "requests/s"), placedOn(r.Shards, r.Candidates[0]), r.Engine)
	if r.Capacity > 0 {
		per := "shard"
		if r.Candidates[0].CapacityPer == "node" {
			per = "node (its slots' work summed)"
		}
		fmt.Fprintf(w, ", capacity %s per %s", numfmt.Count(r.Capacity, "unit of work/s", "units of work/s"), per)
	}
	fmt.Fprint(w, ".\n\n")
	if l := r.scatterCaveat(); l != "" {
		fmt.Fprintf(w, "%s\n\n", MarkdownText(l))
	}
	fmt.Fprintf(w, "| rank | key | %s (units/s) | x mean | work/s | %s | p99 | %s | %s | over capacity |\n", busiestUnit(r.Candidates[0]), fanoutHead(r.Candidates[0], "fan-out mean"), txnHead(r.Candidates[0]), loadHead(r.Candidates[0]))
	fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	ranked := r.Ranked()
	for i, c := range ranked {
		txn := c.TxnCell()
		fan, p99, workRatio, load := orDash(c)
		fmt.Fprintf(w, "| %d | `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n", i+1, MarkdownCell(c.Key), numfmt.Num(c.MaxShardWork), workRatio,
			numfmt.Num(c.WorkPerS), fan, p99, txn, load, overText(r.Capacity, c))
	}
	for _, c := range ranked {
		fmt.Fprintf(w, "\n## `%s`\n\n", c.Key)
		fmt.Fprintf(w, "| operation | requests/s | work/s | %s | p99 | scatter-gather |\n", fanoutHead(c, "fan-out mean"))
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
		for _, o := range c.Operations {
			fmt.Fprintf(w, "| %s | %s | %s | %.2f | %s | %s |\n", MarkdownCell(MarkdownText(o.Name)), numfmt.Num(o.RequestsPerS), numfmt.Num(o.WorkPerS), o.FanoutMean, numfmt.Num(o.FanoutP99), scatterCell(o))
		}
		for _, o := range c.Operations {
			if o.MergedPerS > 0 {
				fmt.Fprintf(w, "\n%s\n", MarkdownText(mergedNote(o)))
			}
		}
		if c.WorkPer == "node" {
			// Work counted on the nodes (redis on nodes): one figure a
			// node, not one a slot.
			fmt.Fprintf(w, "\nPer-node work (units/s): %s.\n", joinNums(c.CapacityWork()))
		} else {
			fmt.Fprintf(w, "\nPer-shard work (units/s): %s.\n", joinNums(c.ShardWork))
		}
		writeRangesMarkdown(w, c)
		if t := rolledBackLine(c, r.RolledBackTxns); t != "" {
			fmt.Fprintf(w, "\n%s\n", MarkdownText(t))
		}
		if ls := LookupLines(c); len(ls) > 0 {
			fmt.Fprintln(w)
			for _, l := range ls {
				fmt.Fprintf(w, "- %s\n", MarkdownText(l))
			}
		}
		for _, t := range c.Tables {
			if t.Database != nil {
				var b strings.Builder
				databaseLine(&b, t)
				fmt.Fprintf(w, "\n%s", MarkdownText(strings.ReplaceAll(strings.TrimPrefix(b.String(), "  "), "\n  ", "\n\n")))
			}
		}
		if len(c.Warnings) > 0 {
			fmt.Fprintln(w, "\nWarnings:")
			for _, wn := range c.Warnings {
				fmt.Fprintf(w, "- %s\n", MarkdownText(wn))
			}
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprint(w, "\n## Warnings\n\n")
		for _, wn := range r.Warnings {
			fmt.Fprintf(w, "- %s\n", MarkdownText(wn))
		}
	}
	return nil
}

// LookupLines says, one line per lookup of c (a secondary routing table,
// lookup(col)), what it saves and what it costs: the requests it routes
// and the hop's work, the lookup-row writes and how many land on another
// shard than their row, and the part of the cross-shard transactions it
// causes.
func LookupLines(c *sim.Candidate) []string {
	var out []string
	for _, l := range c.Lookups {
		placed := fmt.Sprintf("lookup table sharded by %s with %s", l.Column, l.Engine)
		switch {
		case l.Engine == "unknown" && l.LookupTable != "":
			placed = fmt.Sprintf("lookup table %s not defined in the VSchema: where its rows are is unknown, each scored on one shard at random", l.LookupTable)
		case l.Engine == "unknown":
			placed = "no lookup table given in the VSchema: where its rows are is unknown, each scored on one shard at random"
		case l.EngineAssumed:
			placed = fmt.Sprintf("lookup table %s sharded by %s with %s, assumed: the VSchema shards it by no vindex shardkey places", l.LookupTable, l.Column, l.Engine)
		}
		line := fmt.Sprintf("%s on %s (Vitess %s, %s): routes %s requests/s to the shards of their rows (+%s units/s of lookup reads); writes %s lookup rows/s on inserts and deletes (+%s units/s), %s of them on another shard than their row",
			l.Lookup, l.Table, l.Vindex, placed, numfmt.Num(l.ReadsPerS), numfmt.Num(l.ReadWorkPerS), numfmt.Num(l.WritesPerS), numfmt.Num(l.WriteWorkPerS), numfmt.Pct(l.CrossShardWriteFraction))
		if l.UpdateWritesPerS > 0 {
			line = strings.Replace(line, " on inserts and deletes (+", fmt.Sprintf(" on inserts, deletes and updates of %s (%s/s by updates, each the old value's row deleted and the new one's inserted; +", l.Column, numfmt.Num(l.UpdateWritesPerS)), 1)
		}
		if l.WritesPerS == 0 {
			writes := "the workload writes no lookup rows"
			if c.Transactions > 0 {
				writes = "no operation with a rate writes lookup rows (the transactions' inserts and deletes do: they count in cross-shard transactions)"
			}
			line = fmt.Sprintf("%s on %s (Vitess %s, %s): routes %s requests/s to the shards of their rows (+%s units/s of lookup reads); %s",
				l.Lookup, l.Table, l.Vindex, placed, numfmt.Num(l.ReadsPerS), numfmt.Num(l.ReadWorkPerS), writes)
		}
		out = append(out, line)
	}
	if len(out) > 0 && c.LookupCrossShardTxnFraction != nil {
		out = append(out, fmt.Sprintf("the lookup tables' shards alone make %s of the transactions cross shards (of the %s that do)", numfmt.Pct(*c.LookupCrossShardTxnFraction), numfmt.Pct(c.CrossShardTxnFraction)))
	}
	return out
}

// orDash returns a candidate's fan-out mean and p99, work ratio and load
// ratio as text, or "-" where the workload has nothing to measure them on
// (no operations; no rows or no row weight), rather than a 0 that reads as
// a result.
func orDash(c *sim.Candidate) (fan, p99, workRatio, load string) {
	fan, p99, workRatio, load = "-", "-", "-", "-"
	if c.RequestsPerS > 0 {
		fan, p99 = strconv.FormatFloat(c.FanoutMean, 'f', 2, 64), numfmt.Num(c.FanoutP99)
	}
	if c.WorkPerS > 0 {
		workRatio = numfmt.Ratio(c.WorkRatio)
	}
	if c.LoadRatio > 0 {
		load = numfmt.Ratio(c.LoadRatio)
	}
	// Where the busiest and x mean columns are the nodes' (WorkPer node):
	// so is the load ratio (a slot's, beside them, reads as a hot node).
	if n := c.Nodes; c.WorkPer == "node" && n != nil && n.LoadKnown && n.NodeLoadRatio > 0 {
		load = numfmt.Ratio(n.NodeLoadRatio)
	}
	return
}

// mdText escapes what Markdown would read as HTML in text from the
// workload (names, descriptions).
// MarkdownText escapes s for Markdown text.
func MarkdownText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// mdCell escapes a table cell's pipes, which would end the cell.
// MarkdownCell escapes s for a Markdown table cell.
func MarkdownCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func joinNums(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = numfmt.Num(x)
	}
	return strings.Join(parts, ", ")
}

// rolledBackLine is the sentence on c's transactions that rolled back
// (sim.Candidate.RolledBackText), of n in the log; "" when none did.
func rolledBackLine(c *sim.Candidate, n float64) string {
	t := c.RolledBackText(n)
	if t == "" {
		return ""
	}
	committed := "no committed transaction was seen"
	if c.Transactions > 0 {
		committed = numfmt.Pct(c.CrossShardTxnFraction) + " of committed transactions cross shards"
	}
	return "cross-shard transactions: " + committed + "; " + t + "."
}
