package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/internal/numfmt"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
)

// WriteAdviceTable writes adv for a terminal: the summary, the ranked
// candidates, the three best explained with their costs and fixes, how
// sure the numbers are, how they move with the shard count, and what
// could still change later.
// keyColumnMax is the longest design the rank table shows in a column of
// its own (characters); past it the designs are listed under the table.
const keyColumnMax = 100

func WriteAdviceTable(w io.Writer, adv *advisor.Advice) error {
	fmt.Fprintf(w, "%s: advice for %s, engine %s\n\n", adv.Workload, placesText(adv), adv.Engine)
	for _, s := range adv.Summary {
		fmt.Fprintln(w, numfmt.Wrap(s, 88, ""))
	}
	fmt.Fprintln(w)
	// A design of many tables (TPC-C's nine, each its own key column)
	// is a key too long for a column: the table then leaves it out and
	// the designs follow it, numbered by rank, wrapped.
	long := false
	for _, as := range adv.Candidates {
		long = long || len(as.Display()) > keyColumnMax
	}
	keyHead, keyCell := "key\t", func(as *advisor.Assessment) string { return as.Display() + "\t" }
	if long {
		keyHead, keyCell = "", func(*advisor.Assessment) string { return "" }
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "rank\t%slocal\t%s\t%s\tboundary\tlargest partition\t%s\t%s\tverdict\n", keyHead, slotHeader(adv, "single-shard"), slotHeader(adv, "cross-shard txns"), busiestHeader(adv, "busiest"), busiestHeader(adv, "after fixes"))
	for _, as := range adv.Candidates {
		cr := as.Criteria
		after := afterCell(cr)
		if after != "-" {
			after += "/s"
		}
		fmt.Fprintf(tw, "%d\t%s%s\t%s\t%s\t%s\t%s\t%s/s\t%s\t%s\n", as.Rank, keyCell(as), singlePct(cr, cr.Local), singlePct(cr, cr.SingleShard), txnPct(as), yesNo(cr.Boundary),
			largest(as), numfmt.Num(cr.MaxShardWork), after, as.Verdict)
	}
	tw.Flush()
	if long {
		fmt.Fprintln(w, "\nThe designs ranked:")
		for _, as := range adv.Candidates {
			text := numfmt.Wrap(as.Display(), 88, "    ")
			fmt.Fprintf(w, "%-4s%s\n", strconv.Itoa(as.Rank)+".", text[4:])
		}
	}
	fmt.Fprintln(w, "\nRanked by what matters most for a shard key, in order: the dominant operations single-shard and transactions on")
	fmt.Fprintln(w, "one shard; the key matches an isolation boundary; partitions bounded; load acceptable after fixes.")
	if adv.CapacityFirst {
		fmt.Fprintln(w, "First of all, a design that fits the capacity after its fixes goes before one that no shard count brings under it.")
	}
	fmt.Fprintln(w, "Work is units/s: one operation on one shard is one unit.")
	if l := notSimulatedNote(adv); l != "" {
		fmt.Fprintln(w, numfmt.Wrap(l, 88, ""))
	}
	if head, lines := skippedText(adv); head != "" {
		fmt.Fprintln(w, numfmt.Wrap(head, 88, ""))
		for _, l := range lines {
			fmt.Fprintln(w, numfmt.Wrap("- "+l, 88, "  "))
		}
	}
	for i, as := range adv.Candidates {
		if i >= 3 {
			break
		}
		fmt.Fprintf(w, "\n== %d. %s: %s ==\n", as.Rank, as.Display(), as.Verdict)
		fmt.Fprintf(w, "why considered: %s\n", as.Origin)
		for _, r := range as.Reasons {
			fmt.Fprintln(w, numfmt.Wrap("- "+r, 88, "  "))
		}
		if len(as.Expensive) > 0 {
			fmt.Fprintln(w, "expensive under this key:")
			for _, op := range as.Expensive {
				if op.Broadcast {
					fmt.Fprintf(w, "  %s: %s req/s each write all %.0f copies (broadcast write, a cross-shard commit), +%s\n", op.Name, numfmt.Num(op.Rate), op.FanoutMean, numfmt.Count(op.ExtraWork, "unit/s", "units/s"))
					continue
				}
				fmt.Fprintf(w, "  %s: %s req/s ask %.1f %s each (%s), +%s\n", op.Name, numfmt.Num(op.Rate), op.FanoutMean, op.FanoutUnit(), op.RouteNote(), numfmt.Count(op.ExtraWork, "unit/s", "units/s"))
			}
		} else if as.Score.RequestsPerS > 0 && as.Criteria.SingleShard < 0.9995 && !isRedis(adv.Engine) {
			// No access costs more than a unit a request on its own, but
			// statements whose accesses land apart (a multi-row INSERT's
			// rows, a join's tables) ask several shards: "every operation
			// asks one shard" would be false.
			txns := ""
			if as.Score.Transactions > 0 && as.Criteria.CrossShardTxn > 0 {
				txns = fmt.Sprintf(", and %s of transactions cross shards (each commits on several)", numfmt.Pct(as.Criteria.CrossShardTxn))
			}
			fmt.Fprintln(w, numfmt.Wrap(fmt.Sprintf("expensive under this key: no access asks more than one shard on its own, but %s of requests are statements whose accesses land on several (a multi-row INSERT's rows, a join's tables)%s", numfmt.Pct(1-as.Criteria.SingleShard), txns), 88, ""))
		} else if as.Score.RequestsPerS > 0 && as.Score.Transactions > 0 && as.Criteria.CrossShardTxn > 0 && isRedis(adv.Engine) {
			fmt.Fprintf(w, "expensive under this key: every operation asks one slot, but %s of transactions span several slots (Redis Cluster refuses such a MULTI/EXEC: CROSSSLOT)\n", numfmt.Pct(as.Criteria.CrossShardTxn))
		} else if as.Score.RequestsPerS > 0 && as.Score.Transactions > 0 && as.Criteria.CrossShardTxn > 0 {
			fmt.Fprintf(w, "expensive under this key: every operation asks one shard, but %s of transactions cross shards (each commits on several)\n", numfmt.Pct(as.Criteria.CrossShardTxn))
		} else if as.Score.RequestsPerS > 0 && as.Score.NoShardPerS > 0 {
			fmt.Fprintf(w, "expensive under this key: nothing; no operation asks more than one shard (%s none)\n", numfmt.Count(as.Score.NoShardPerS, "request/s asks", "requests/s ask"))
		} else if as.Score.RequestsPerS > 0 {
			fmt.Fprintln(w, "expensive under this key: nothing; every operation asks one shard")
		}
		for _, f := range as.Fixes {
			fmt.Fprintln(w, numfmt.Wrap("fix ("+f.Kind+"): "+f.Text, 88, "  "))
		}
		if t := rangeBoundsText(as.Score); t != "" {
			fmt.Fprintln(w, numfmt.Wrap(t, 88, "  "))
		}
		writeRangesTable(w, as.Score)
		for _, wn := range as.OwnWarnings() {
			fmt.Fprintln(w, numfmt.Wrap("warning: "+wn, 88, "  "))
		}
	}
	if conf := adv.Confidence; conf != nil {
		fmt.Fprintf(w, "\nHow sure: 95%% bootstrap intervals over %d resamples of the sample: ", conf.Replicates)
		if adv.Candidates[0].Score.RequestsPerS > 0 {
			unit := "shard"
			switch {
			case adv.Candidates[0].Score.WorkPer == "node":
				unit = "node"
			case adv.Nodes > 0:
				unit = "slot" // slots over nodes, work counted per slot
			}
			fmt.Fprintf(w, "work ratio %.2f-%.2fx, busiest %s %s-%s units/s, ", conf.WorkRatio.Lo, conf.WorkRatio.Hi, unit, numfmt.Num(conf.MaxShardWork.Lo), numfmt.Num(conf.MaxShardWork.Hi))
		}
		if conf.LoadRatio.Hi > 0 {
			fmt.Fprintf(w, "load ratio %.2f-%.2fx", conf.LoadRatio.Lo, conf.LoadRatio.Hi)
		} else if sampledRows(adv.Candidates[0].Score) {
			// Rows were sampled, but their weights are all 0: no share
			// of requests to compare shards by.
			fmt.Fprint(w, "load ratio unknown (the sampled rows' weights are all 0)")
		} else {
			fmt.Fprint(w, "load ratio unknown (no row sample)")
		}
		if adv.Candidates[0].Score.Transactions > 0 {
			fmt.Fprintf(w, ", cross-shard transactions %s-%s", numfmt.Pct(conf.CrossShardTxn.Lo), numfmt.Pct(conf.CrossShardTxn.Hi))
		}
		fmt.Fprintln(w, ".")
	}
	if len(adv.Sweep) > 0 {
		unit := "shard"
		perNode := adv.Sweep[0].Per == "node" || adv.Nodes == 0 && partition.CitusShards(adv.Engine) > 0
		if perNode {
			// Slots over nodes: the node count varies; under
			// citus(shard_count=S) the count swept is the nodes' too,
			// the S Citus shards placed on them.
			unit = "node"
		}
		fmt.Fprintf(w, "\n%s as the %s count grows:\n", adv.Recommended, unit)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, unit+"s\tbusiest\twork ratio\tload ratio\tperfect-hash ratio\tfan-out\t"+slotHeader(adv, "cross-shard txns")+"\tover capacity")
		for _, r := range adv.Sweep {
			load := "-"
			if r.LoadRatio > 0 {
				load = numfmt.Ratio(r.LoadRatio)
			}
			exp := "-"
			if r.Expected > 0 {
				exp = fmt.Sprintf("%.2fx", r.Expected)
			}
			txn := numfmt.Pct(r.CrossShardTxn)
			if r.TxnsUnknown {
				txn = "-"
			}
			// No requests (no operation) or no work: no ratio or
			// fan-out to show, not 0.
			ratio, fan := "-", "-"
			if !r.NoWork {
				ratio = fmt.Sprintf("%.2fx", r.WorkRatio)
			}
			if !r.NoRequests {
				fan = fmt.Sprintf("%.2f", r.FanoutMean)
			}
			over := "-" // no capacity to be over (null in JSON)
			if r.CapacityKnown {
				over = strconv.Itoa(r.OverCapacity)
			}
			fmt.Fprintf(tw, "%d\t%s/s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Shards, numfmt.Num(r.MaxShardWork), ratio, load, exp, fan, txn, over)
		}
		tw.Flush()
		legend := ratiosLegend
		if perNode {
			// Every figure of a row per node count is the nodes'
			// (advisor.Sweep, partition.Citus).
			legend = strings.NewReplacer("shard's", "node's", "a shard holds", "a node holds").Replace(legend)
		}
		fmt.Fprintln(w, numfmt.Wrap(legend, 88, ""))
	}
	fmt.Fprintln(w, "\nWhich choice could still change in two years:")
	for _, s := range adv.Durable {
		fmt.Fprintln(w, numfmt.Wrap("- "+s, 88, "  "))
	}
	for _, f := range adv.Flags {
		fmt.Fprintln(w, numfmt.Wrap("flag: "+f, 88, "  "))
	}
	return nil
}

// ratiosLegend says what the two ratios of the sweep and the bootstrap
// measure (sim.Candidate's WorkRatio and LoadRatio), which differ: a
// shard can hold many rows that are rarely asked for.
const ratiosLegend = "Work ratio: the busiest shard's work (units/s) over the mean shard's. Load ratio: the busiest shard's sampled rows, each weighing its share of requests (1 when the rows carry no weight: the data a shard holds), over the mean shard's. Perfect-hash ratio: the work ratio a perfect hash of this many equal keys gives."

// largest is the largest partition's share, or "unknown" when nothing
// measures it.
func largest(as *advisor.Assessment) string {
	if as.Criteria.LargestUnknown {
		return "unknown"
	}
	return numfmt.Pct(as.Criteria.LargestPartition)
}

// placesText is where the advice places the data: "N shards", or "S slots
// over N nodes" with slots over nodes.
func placesText(adv *advisor.Advice) string {
	if adv.Nodes > 0 {
		n := strconv.Itoa(adv.Nodes) + " nodes"
		if adv.Nodes == 1 {
			n = "1 node"
		}
		return strconv.Itoa(adv.Shards) + " slots over " + n
	}
	if s := partition.CitusShards(adv.Engine); s > 0 {
		// citus(shard_count=S): S shards placed round-robin on the
		// --shards nodes, the figures per node.
		return fmt.Sprintf("%s over %d nodes", shardsText(s), adv.Shards)
	}
	return shardsText(adv.Shards)
}

// shardsText is "1 shard" or "N shards".
func shardsText(n int) string {
	if n == 1 {
		return "1 shard"
	}
	return strconv.Itoa(n) + " shards"
}

// txnPct is the cross-shard transaction share, or "-" when the workload
// has no transactions, with the rolled-back transactions' share after it
// when some rolled back (sim.Candidate.TxnCell).
func txnPct(as *advisor.Assessment) string {
	rb := ""
	if f := as.Score.RolledBackCrossShardFraction; f != nil {
		rb = sim.RolledBackNote(*f)
	}
	if as.Score.Transactions == 0 {
		return "-" + rb
	}
	return numfmt.Pct(as.Criteria.CrossShardTxn) + rb
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// WriteAdviceMarkdown writes adv as a Markdown document, warnings included.
func WriteAdviceMarkdown(w io.Writer, adv *advisor.Advice) error {
	fmt.Fprintf(w, "# Shard key advice: %s\n\n%s, engine `%s`.\n\n", MarkdownText(adv.Workload), placesText(adv), adv.Engine)
	for _, s := range adv.Summary {
		fmt.Fprintf(w, "%s\n\n", MarkdownText(s))
	}
	fmt.Fprintf(w, "| rank | key | local | %s | %s | boundary | largest partition | %s (units/s) | %s | verdict |\n", slotHeader(adv, "single-shard"), slotHeader(adv, "cross-shard txns"), busiestHeader(adv, "busiest"), busiestHeader(adv, "after fixes"))
	fmt.Fprintln(w, "|---:|---|---:|---:|---:|---|---:|---:|---:|---|")
	for _, as := range adv.Candidates {
		cr := as.Criteria
		fmt.Fprintf(w, "| %d | `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n", as.Rank, MarkdownCell(as.Display()), singlePct(cr, cr.Local), singlePct(cr, cr.SingleShard), txnPct(as),
			yesNo(cr.Boundary), largest(as), numfmt.Num(cr.MaxShardWork), afterCell(cr), MarkdownCell(MarkdownText(as.Verdict)))
	}
	if l := notSimulatedNote(adv); l != "" {
		fmt.Fprintf(w, "\n%s\n", MarkdownText(l))
	}
	if head, lines := skippedText(adv); head != "" {
		fmt.Fprintf(w, "\n%s\n\n", MarkdownText(head))
		for _, l := range lines {
			fmt.Fprintf(w, "- %s\n", MarkdownText(l))
		}
	}
	for i, as := range adv.Candidates {
		if i >= 3 {
			break
		}
		fmt.Fprintf(w, "\n## %d. `%s`\n\n%s\n\n", as.Rank, as.Display(), MarkdownText(as.Verdict))
		for _, r := range as.Reasons {
			fmt.Fprintf(w, "- %s\n", MarkdownText(r))
		}
		if len(as.Expensive) > 0 {
			fmt.Fprintln(w, "\nExpensive under this key:")
			for _, op := range as.Expensive {
				note := ""
				if op.Unsized >= 0.5 {
					note = " (" + op.RouteNote() + ")"
				}
				fmt.Fprintf(w, "- %s: %s req/s ask %.1f %s each%s, +%s\n", MarkdownText(op.Name), numfmt.Num(op.Rate), op.FanoutMean, op.FanoutUnit(), MarkdownText(note), numfmt.Count(op.ExtraWork, "unit/s", "units/s"))
			}
		}
		if len(as.Fixes) > 0 {
			fmt.Fprintln(w, "\nFixes:")
			for _, f := range as.Fixes {
				fmt.Fprintf(w, "- **%s**: %s\n", f.Kind, MarkdownText(f.Text))
			}
		}
		if t := rangeBoundsText(as.Score); t != "" {
			fmt.Fprintf(w, "\n%s\n", MarkdownText(t))
		}
		writeRangesMarkdown(w, as.Score)
		if wns := as.OwnWarnings(); len(wns) > 0 {
			fmt.Fprintln(w, "\nWarnings:")
			for _, wn := range wns {
				fmt.Fprintf(w, "- %s\n", MarkdownText(wn))
			}
		}
	}
	fmt.Fprintln(w, "\n## Which choice could still change in two years")
	for _, s := range adv.Durable {
		fmt.Fprintf(w, "\n- %s", MarkdownText(s))
	}
	fmt.Fprintln(w)
	for _, f := range adv.Flags {
		fmt.Fprintf(w, "\n> flag: %s\n", MarkdownText(f))
	}
	if len(adv.Warnings) > 0 {
		fmt.Fprint(w, "\n## Warnings\n\n")
		for _, wn := range adv.Warnings {
			fmt.Fprintf(w, "- %s\n", MarkdownText(wn))
		}
	}
	return nil
}

// adviceHTML writes one self-contained page: inline CSS and SVG charts of
// per-shard work against capacity and fan-out per operation; no scripts,
// no network loads.
// WriteAdviceHTML writes adv as one self-contained HTML page with charts,
// warnings included.
func WriteAdviceHTML(w io.Writer, adv *advisor.Advice) error {
	type bar struct {
		X, Y, W, H float64
		Over       bool
		Label      string
	}
	type label struct {
		X, Y   float64
		Text   string
		Anchor string // start, middle, end
	}
	type chart struct {
		Title  string
		Bars   []bar
		CapY   float64
		HasCap bool
		MeanY  float64 // a dashed line at the mean; 0: none
		Labels []label
		Legend []string // what numbered bars stand for
		Width  float64
		Height float64
		Unit   string // what full height is every one of: shard, node
	}
	type rangeRow struct {
		Shard int
		Range string
		Work  float64
		Load  string // loadCell's
	}
	type cand struct {
		*advisor.Assessment
		Work   chart
		Fanout chart
		// Ranges are the Citus shard intervals beside each shard's
		// figures (rangeRows); More the shards left out.
		Ranges []rangeRow
		More   int
	}
	// Plot area: y from top to base; labels above and below it.
	const width, height, top, base = 640.0, 190.0, 22.0, 166.0
	const plot = base - top
	var cands []cand
	for i, as := range adv.Candidates {
		if i >= 3 {
			break
		}
		c := as.Score
		// A node's capacity is not drawn against one slot's bar: the
		// nodes table shows it.
		// With work counted per node (sim.Candidate.WorkPer: Redis
		// Cluster's masters) the bars are the nodes', against a node's
		// capacity: 3 bars, not 16384.
		capacity := adv.Capacity
		work, unit := c.ShardWork, "shard"
		if c.WorkPer == "node" {
			work, unit = c.CapacityWork(), "node"
		} else if c.CapacityPer == "node" {
			capacity = 0
		}
		scale := math.Max(c.MaxShardWork, capacity)
		if scale <= 0 {
			scale = 1
		}
		wk := chart{Title: "per-" + unit + " work (units/s)", Width: width, Height: height}
		bw := width / float64(len(work))
		for s, x := range work {
			if c.WorkPerS == 0 {
				break // no operations: no chart
			}
			h := x / scale * plot
			lab := fmt.Sprintf("%s %d: %s", unit, s, numfmt.Count(x, "unit/s", "units/s"))
			if s < len(c.ShardHashRanges) && unit == "shard" {
				lab = fmt.Sprintf("shard %d (hash %s): %s", s, HashRangesText(c.ShardHashRanges[s]), numfmt.Count(x, "unit/s", "units/s"))
			}
			wk.Bars = append(wk.Bars, bar{X: float64(s) * bw, Y: base - h, W: math.Max(bw-1, 0.5), H: h,
				Over: capacity > 0 && x > capacity, Label: lab})
		}
		wk.Labels = append(wk.Labels,
			label{0, top - 6, fmt.Sprintf("busiest %s %s/s (%s the mean)", unit, numfmt.Num(c.MaxShardWork), numfmt.Ratio(c.WorkRatio)), "start"},
			label{0, height - 6, unit + " 0", "start"},
			label{width, height - 6, fmt.Sprintf("%s %d", unit, len(work)-1), "end"})
		if c.MeanShardWork > 0 {
			wk.MeanY = base - c.MeanShardWork/scale*plot
			wk.Labels = append(wk.Labels, label{width, wk.MeanY - 4, fmt.Sprintf("mean %s/s", numfmt.Num(c.MeanShardWork)), "end"})
		}
		if capacity > 0 {
			wk.HasCap, wk.CapY = true, base-capacity/scale*plot
		}
		// Fan-out in nodes when the candidate counts nodes (full height:
		// every node), else in shards.
		unit, full := c.FanoutUnit(), c.Shards
		if c.FanoutPer == "node" && c.Nodes != nil {
			full = c.Nodes.Nodes
		} else if c.FanoutPer == "node" {
			full = c.CapacityUnits()
		}
		fo := chart{Title: fmt.Sprintf("fan-out per operation (mean %s asked)", unit), Width: width, Height: height, Unit: strings.TrimSuffix(unit, "s")}
		if n := len(c.Operations); n > 0 {
			ow := width / float64(n)
			for k, op := range c.Operations {
				h := op.FanoutMean / float64(full) * plot
				x := float64(k) * ow
				fo.Bars = append(fo.Bars, bar{X: x, Y: base - h, W: math.Max(ow-4, 1), H: h,
					Label: fmt.Sprintf("%s: %.2f of %d %s", op.Name, op.FanoutMean, full, unit)})
				mid := x + math.Max(ow-4, 1)/2
				fo.Labels = append(fo.Labels,
					label{mid, base - h - 4, numfmt.Num(op.FanoutMean), "middle"},
					label{mid, height - 6, strconv.Itoa(k + 1), "middle"})
				fo.Legend = append(fo.Legend, op.Name)
			}
		}
		cd := cand{Assessment: as, Work: wk, Fanout: fo}
		if len(c.ShardHashRanges) > 0 {
			rows, more := rangeRows(c)
			for _, sh := range rows {
				cd.Ranges = append(cd.Ranges, rangeRow{sh, HashRangesText(c.ShardHashRanges[sh]), c.ShardWork[sh], loadCell(c, sh)})
			}
			cd.More = more
		}
		cands = append(cands, cd)
	}
	return adviceTmpl.Execute(w, map[string]any{"A": adv, "Cands": cands, "Nodes": nodesHTML(adv)})
}

// nodeRow is one node of the recommended design's slots-over-nodes
// report, for the HTML page.
type nodeRow struct {
	Node, Slots int
	Work, Load  float64
	Over        bool
}

// nodesView is the recommended design's slots over nodes (the table and
// Markdown formats' section), for the HTML page.
type nodesView struct {
	Key    string
	R      *sim.NodesReport
	Rows   []nodeRow
	Growth []sim.Growth
	PerCap bool // the capacity is a node's
}

func nodesHTML(adv *advisor.Advice) *nodesView {
	if len(adv.Candidates) == 0 || adv.Candidates[0].Score.Nodes == nil {
		return nil
	}
	c := adv.Candidates[0].Score
	r := c.Nodes
	v := &nodesView{Key: c.Key, R: r, Growth: r.Growth, PerCap: r.Capacity > 0}
	over := map[int]bool{}
	for _, k := range r.OverCapacity {
		over[k] = true
	}
	for k := range r.NodeWork {
		v.Rows = append(v.Rows, nodeRow{Node: k, Slots: r.NodeSlots[k], Work: r.NodeWork[k], Load: r.NodeLoad[k], Over: over[k]})
	}
	return v
}

var adviceTmpl = template.Must(template.New("advice").Funcs(template.FuncMap{"pct": numfmt.Pct, "num": numfmt.Num, "count": numfmt.Count, "yesno": yesNo, "txnpct": txnPct, "shards": shardsText, "places": placesText, "largest": largest, "busiest": busiestHeader, "slotcol": slotHeader, "rangebounds": rangeBoundsText, "skipped": skippedView, "spct": singlePct, "after": afterCell, "notsim": notSimulatedNote}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shard key advice: {{.A.Workload}}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d232a}
table{border-collapse:collapse;width:100%;font-size:14px}th,td{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}code{background:#f3f4f6;padding:0 .2rem}
.bar{fill:#3b6ea5}.over{fill:#c0392b}.cap{stroke:#111;stroke-dasharray:4 3}.overrow td{color:#c0392b}.fix{background:#f6f8fa;border-left:3px solid #3b6ea5;padding:.3rem .6rem;margin:.3rem 0}
svg{width:100%;height:auto;background:#fafafa}svg text{font-size:11px;fill:#333;paint-order:stroke;stroke:#fafafa;stroke-width:3px}.mean{stroke:#888;stroke-dasharray:2 2}figcaption{font-size:13px;color:#555}.legend{margin:.2rem 0;columns:2}
</style></head><body>
<h1>Shard key advice: {{.A.Workload}}</h1>
<p>{{places .A}}, engine <code>{{.A.Engine}}</code>{{if .A.Capacity}}, capacity {{count .A.Capacity "unit of work/s" "units of work/s"}} per {{if and .Nodes .Nodes.PerCap}}node (its slots' work summed){{else}}shard{{end}}{{end}}.</p>
{{range .A.Summary}}<p>{{.}}</p>{{end}}
<table><tr><th>rank</th><th>key</th><th>local</th><th>{{slotcol .A "single-shard"}}</th><th>{{slotcol .A "cross-shard txns"}}</th><th>boundary</th><th>largest partition</th><th>{{busiest .A "busiest"}} (units/s)</th><th>{{busiest .A "after fixes"}}</th><th>verdict</th></tr>
{{range .A.Candidates}}<tr><td class="n">{{.Rank}}</td><td><code>{{.Display}}</code></td><td class="n">{{spct .Criteria .Criteria.Local}}</td><td class="n">{{spct .Criteria .Criteria.SingleShard}}</td><td class="n">{{txnpct .}}</td><td>{{yesno .Criteria.Boundary}}</td><td class="n">{{largest .}}</td><td class="n">{{num .Criteria.MaxShardWork}}</td><td class="n">{{after .Criteria}}</td><td>{{.Verdict}}</td></tr>
{{end}}</table>{{with notsim .A}}<p>{{.}}</p>{{end}}{{with skipped .A}}
<p>{{.Head}}</p><ul>{{range .Lines}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{range .Cands}}<h2>{{.Rank}}. <code>{{.Display}}</code></h2><p>{{.Verdict}}</p>
<ul>{{range .Reasons}}<li>{{.}}</li>{{end}}</ul>
{{with .Work}}{{if .Bars}}<figure><svg viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Title}}">{{range .Bars}}<rect class="{{if .Over}}over{{else}}bar{{end}}" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"><title>{{.Label}}</title></rect>{{end}}{{if .MeanY}}<line class="mean" x1="0" x2="{{.Width}}" y1="{{.MeanY}}" y2="{{.MeanY}}"><title>mean</title></line>{{end}}{{if .HasCap}}<line class="cap" x1="0" x2="{{.Width}}" y1="{{.CapY}}" y2="{{.CapY}}"><title>capacity</title></line>{{end}}{{range .Labels}}<text x="{{.X}}" y="{{.Y}}" text-anchor="{{.Anchor}}">{{.Text}}</text>{{end}}</svg><figcaption>{{.Title}}; grey line: the mean{{if .HasCap}}; dashed line: capacity; red: over capacity{{end}}</figcaption></figure>{{end}}{{end}}
{{with .Fanout}}{{if .Bars}}<figure><svg viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Title}}">{{range .Bars}}<rect class="bar" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"><title>{{.Label}}</title></rect>{{end}}{{range .Labels}}<text x="{{.X}}" y="{{.Y}}" text-anchor="{{.Anchor}}">{{.Text}}</text>{{end}}</svg><figcaption>{{.Title}}; full height = every {{.Unit}}; the bars are the operations:<ol class="legend">{{range .Legend}}<li>{{.}}</li>{{end}}</ol></figcaption></figure>{{end}}{{end}}
{{if .Ranges}}<h3>Citus shard intervals</h3><p>Each shard's interval of the hash space, as pg_dist_shard lists it (<code>shardminvalue..shardmaxvalue</code>), beside its figures.</p><table><tr><th>shard</th><th>hash interval</th><th>work/s</th><th>load</th></tr>{{range .Ranges}}<tr><td class="n">{{.Shard}}</td><td><code>{{.Range}}</code></td><td class="n">{{num .Work}}</td><td class="n">{{.Load}}</td></tr>{{end}}</table>{{if .More}}<p>{{.More}} more shards (the 10 busiest are shown; JSON's <code>shard_hash_ranges</code> has every one).</p>{{end}}{{end}}
{{if .Expensive}}<h3>Expensive under this key</h3><ul>{{range .Expensive}}<li>{{.Name}}: {{num .Rate}} req/s ask {{printf "%.1f" .FanoutMean}} {{.FanoutUnit}} each{{if ge .Unsized 0.5}} ({{.RouteNote}}){{end}}, +{{count .ExtraWork "unit/s" "units/s"}}</li>{{end}}</ul>{{end}}
{{range .Fixes}}<div class="fix"><b>{{.Kind}}</b>: {{.Text}}</div>{{end}}{{with rangebounds .Score}}<p>{{.}}</p>{{end}}{{with .OwnWarnings}}<h3>Warnings</h3><ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{end}}
{{with .Nodes}}<h2>Slots over nodes: <code>{{.Key}}</code></h2>
<p>{{.R.Slots}} slots over {{.R.Nodes}} nodes ({{.R.Assignment}}); max/mean per node: work {{printf "%.2f" .R.NodeWorkRatio}}x, load {{if .R.LoadKnown}}{{printf "%.2f" .R.NodeLoadRatio}}x{{else}}unknown (no row weights){{end}}.{{if .PerCap}} Capacity {{num .R.Capacity}} units of work/s per node (its slots' work summed): {{len .R.OverCapacity}} of {{.R.Nodes}} nodes over it.{{end}}</p>
<table><tr><th>node</th><th>slots</th><th>work (units/s)</th><th>load</th>{{if .PerCap}}<th>over capacity</th>{{end}}</tr>
{{range .Rows}}<tr{{if .Over}} class="overrow"{{end}}><td class="n">{{.Node}}</td><td class="n">{{.Slots}}</td><td class="n">{{num .Work}}</td><td class="n">{{if $.Nodes.R.LoadKnown}}{{num .Load}}{{else}}unknown{{end}}</td>{{if $.Nodes.PerCap}}<td>{{if .Over}}yes{{else}}no{{end}}</td>{{end}}</tr>
{{end}}</table>
{{if .Growth}}<p>Growth {{(index .Growth 0).From}} &rarr; {{(index .Growth 0).To}} nodes, measured on the row sample:</p>
<table><tr><th>placement</th><th>keys moved</th><th>rows moved</th><th>rows</th><th>max/mean rows after</th></tr>
{{range .Growth}}<tr><td>{{.Placement}}</td><td class="n">{{pct .KeysMoved}}</td><td class="n">{{pct .RowsMoved}}</td><td class="n">{{num .Rows}}</td><td class="n">{{num .BalanceAfter}}</td></tr>
{{end}}</table>{{else}}<p>Growth: unknown (no row sample of a hash-keyed table).</p>{{end}}
{{end}}
<h2>Which choice could still change in two years</h2><ul>{{range .A.Durable}}<li>{{.}}</li>{{end}}</ul>
{{range .A.Flags}}<p><b>flag:</b> {{.}}</p>{{end}}
{{if .A.Warnings}}<h2>Warnings</h2><ul>{{range .A.Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}
</body></html>
`))

// slotHeader names a column that counts slots with slots over nodes
// ("single-shard", "cross-shard txns"): as it is, or "single-slot",
// "cross-slot txns" (sim.Candidate: single_shard_fraction and
// cross_shard_txn_fraction count slots, as Redis Cluster's CROSSSLOT
// does, not nodes).
func slotHeader(adv *advisor.Advice, name string) string {
	if adv.Nodes > 0 {
		return strings.Replace(name, "-shard", "-slot", 1)
	}
	return name
}

// busiestHeader names a column of per-shard work: as it is, or, with
// slots over nodes, saying the figure is a slot's (the nodes report and
// the capacity line give a node's).
func busiestHeader(adv *advisor.Advice, name string) string {
	if len(adv.Candidates) > 0 && adv.Candidates[0].Score.WorkPer == "node" || adv.Nodes == 0 && partition.CitusShards(adv.Engine) > 0 {
		// Work counted per node (sim.Candidate.WorkPer: redis; or
		// citus(shard_count=S), whose figures are the nodes').
		if name == "busiest" {
			return "busiest node"
		}
		return name + " (node)"
	}
	if adv.Nodes > 0 {
		if name == "busiest" {
			return "busiest slot"
		}
		return name + " (slot)"
	}
	return name
}

// rangeBoundsText says which range boundaries a score placed by
// (sim.Candidate.RangeBounds) and how to give them back, or why they
// cannot be written; "" for a design without range boundaries.
func rangeBoundsText(c *sim.Candidate) string {
	if c == nil {
		return ""
	}
	if len(c.RangeBounds) == 0 {
		if c.RangeBoundsNote != "" {
			return fmt.Sprintf("range boundaries at %s: %s; --emit cannot reproduce them", shardsText(c.Shards), c.RangeBoundsNote)
		}
		return ""
	}
	var cols []string
	for _, rb := range c.RangeBounds {
		cols = append(cols, rb.Table+"."+strings.Join(rb.Columns, ","))
	}
	return fmt.Sprintf("range boundaries at %s: %s split at [%s] (range shard i holds [bound i-1, bound i)); -k '%s' places exactly so again",
		shardsText(c.Shards), strings.Join(cols, ", "), strings.Join(c.RangeBounds[0].Bounds, ", "), c.KeyWithBounds)
}

// skippedText is the note under the ranking on the candidates advise
// generated but could not score (advisor.Advice.Skipped), said once
// there rather than as warnings: a heading and one line a candidate; ""
// without any.
func skippedText(adv *advisor.Advice) (string, []string) {
	if len(adv.Skipped) == 0 {
		return "", nil
	}
	n := "1 candidate"
	if len(adv.Skipped) > 1 {
		n = fmt.Sprintf("%d candidates", len(adv.Skipped))
	}
	head := fmt.Sprintf("Not scored under engine %s: %s that advise generated from the workload (none named by you):", adv.Engine, n)
	var lines []string
	for _, s := range adv.Skipped {
		lines = append(lines, s.Key+": "+s.Reason)
	}
	return head, lines
}

// skippedView is skippedText for the HTML page (nil without any).
func skippedView(adv *advisor.Advice) *struct {
	Head  string
	Lines []string
} {
	head, lines := skippedText(adv)
	if head == "" {
		return nil
	}
	return &struct {
		Head  string
		Lines []string
	}{head, lines}
}

// singlePct is x, a single-shard or local share of cr, as a percentage,
// or "unknown" when no interactive request asks a shard (each an empty
// IN list: advisor.Criteria.SingleKnown).
func singlePct(cr advisor.Criteria, x float64) string {
	if !cr.SingleKnown() {
		return "unknown"
	}
	return numfmt.Pct(x)
}

// afterCell is the "after fixes" cell: the busiest shard's work once the
// candidate's fixes are re-simulated, or "-" when none was simulated for
// it (advisor.Criteria.AfterFixesNotSimulated: a workload without a
// capacity re-simulates the leading candidates' fixes only).
func afterCell(cr advisor.Criteria) string {
	if cr.AfterFixesNotSimulated {
		return "-"
	}
	return numfmt.Num(cr.AfterFixes)
}

// notSimulatedNote says what an "after fixes" cell of "-" means, when a
// candidate has one; "" otherwise.
func notSimulatedNote(adv *advisor.Advice) string {
	for _, as := range adv.Candidates {
		if as.Criteria.AfterFixesNotSimulated {
			return "After fixes \"-\": not simulated. Without a capacity the fixes of the three leading candidates (and of the design in use) are re-simulated; give --capacity to have every candidate's."
		}
	}
	return ""
}

// sampledRows reports whether a table of candidate c has sample rows.
func sampledRows(c *sim.Candidate) bool {
	for _, t := range c.Tables {
		if t.Rows > 0 {
			return true
		}
	}
	return false
}

// isRedis reports whether engine is Redis Cluster's ("redis", with or
// without options), whose transactions span slots (CROSSSLOT) rather than
// commit on several shards.
func isRedis(engine string) bool {
	if i := strings.IndexAny(engine, "(:"); i >= 0 {
		engine = engine[:i]
	}
	return strings.TrimSpace(engine) == "redis"
}
