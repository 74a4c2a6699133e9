package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/numfmt"
	skreport "github.com/shardkey/shardkey/report"
	"github.com/shardkey/shardkey/sim"
)

// report is the document of score and demo (report.Score).
type report = skreport.Score

func newReport(l *loaded, cands []*sim.Candidate) *report {
	return skreport.NewScore(l.w, l.opts.Engine.Name(), cands)
}

// scoreFormats are the --format renderers of the score document (score,
// demo), in the order help texts list them: a new output format is a
// function in a file of its own and one line here.
var scoreFormats = []struct {
	name   string
	render func(io.Writer, *report) error
}{
	{"table", renderTable},
	{"json", renderJSON},
	{"markdown", renderMarkdown},
}

// formatNames lists the names of fs, in order.
func formatNames[T any](fs []struct {
	name   string
	render func(io.Writer, T) error
}) []string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return names
}

// render writes r in format to w, one of scoreFormats (validated with
// the flags); warnings (the workload's and each candidate's) go to werr,
// where they cannot be taken for a line of the table, and into the JSON
// and Markdown documents as well.
func render(w, werr io.Writer, format string, r *report) error {
	for _, wn := range r.Warnings {
		fmt.Fprintf(werr, "warning: %s\n", wn)
	}
	for _, c := range r.Ranked() {
		for _, wn := range c.Warnings {
			fmt.Fprintf(werr, "warning: %s\n", wn)
		}
	}
	for _, f := range scoreFormats {
		if f.name == format {
			return f.render(w, r)
		}
	}
	return usageErr("--format %q: want %s", format, orList(formatNames(scoreFormats)))
}

// renderJSON writes r as the pinned JSON document, indented.
func renderJSON(w io.Writer, r *report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// num formats a number for people: thousands separators from 100 up,
// three significant digits below.
func num(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Sprint(x)
	case math.Abs(x) >= 99.5:
		return numfmt.Round(x)
	case math.Abs(x-math.Round(x)) <= 1e-9*math.Max(1, math.Abs(x)):
		// An integer, up to float rounding (sums of fractional weights
		// added in another order differ in the last bits).
		return strconv.FormatInt(int64(math.Round(x)), 10)
	case math.Abs(x) >= 9.995:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case math.Abs(x) >= 0.01:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

func commas(n int64) string { return numfmt.Commas(n) }

func pct(x float64) string { return numfmt.Pct(x) }

// orDash returns a candidate's fan-out mean and p99, work ratio and load
// ratio as text, or "-" where the workload has nothing to measure them on
// (no operations; no rows or no row weight), rather than a 0 that reads as
// a result.
func orDash(c *sim.Candidate) (fan, p99, workRatio, load string) {
	fan, p99, workRatio, load = "-", "-", "-", "-"
	if c.RequestsPerS > 0 {
		fan, p99 = strconv.FormatFloat(c.FanoutMean, 'f', 2, 64), num(c.FanoutP99)
	}
	if c.WorkPerS > 0 {
		workRatio = ratioText(c.WorkRatio)
	}
	if c.LoadRatio > 0 {
		load = ratioText(c.LoadRatio)
	}
	return
}

func ratioText(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) + "x" }

func renderTable(w io.Writer, r *report) error {
	fmt.Fprintf(w, "%s\n", r.Workload)
	if r.Description != "" {
		fmt.Fprintf(w, "%s\n", wrap(r.Description, 88, ""))
	}
	c0 := r.Candidates[0]
	capText := "capacity not given"
	if r.Capacity > 0 {
		capText = "capacity " + num(r.Capacity) + " units of work/s per shard"
	}
	fmt.Fprintf(w, "%s requests/s on %d shards, %s, engine %s\n\n", num(c0.RequestsPerS), r.Shards, capText, r.Engine)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "rank\tkey\tbusiest shard\tx mean\twork\tfan-out\tp99\tcross-shard txns\tload ratio\tover capacity")
	ranked := r.Ranked()
	for i, c := range ranked {
		txn := "-"
		if c.Transactions > 0 {
			txn = pct(c.CrossShardTxnFraction)
		}
		over := "-"
		if r.Capacity > 0 {
			over = fmt.Sprintf("%d of %d", len(c.OverCapacity), c.Shards)
		}
		fan, p99, workRatio, load := orDash(c)
		fmt.Fprintf(tw, "%d\t%s\t%s/s\t%s\t%s/s\t%s\t%s\t%s\t%s\t%s\n", i+1, c.Key, num(c.MaxShardWork), workRatio,
			num(c.WorkPerS), fan, p99, txn, load, over)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nWork is units of work per second: one operation on one shard is one unit.")
	for _, c := range ranked {
		fmt.Fprintf(w, "\n== %s ==\n", c.Key)
		bars(w, c, r.Capacity)
		ops(w, c)
		keyLine(w, c)
		if len(c.Rebalance) > 0 {
			var parts []string
			for _, m := range c.Rebalance {
				p := fmt.Sprintf("%s %s of keys (%s of load)", m.Placement, pct(m.KeysMoved), pct(m.LoadMoved))
				if m.To != c.Shards+1 {
					p = fmt.Sprintf("%s to %d shards %s of keys (%s of load)", m.Placement, m.To, pct(m.KeysMoved), pct(m.LoadMoved))
				}
				parts = append(parts, p)
			}
			fmt.Fprintf(w, "adding a shard (%d -> %d) moves: %s\n", c.Shards, c.Shards+1, strings.Join(parts, "; "))
		}
	}
	return nil
}

const barWidth = 40

// bars draws per-shard work against capacity.
func bars(w io.Writer, c *sim.Candidate, capacity float64) {
	scale := c.MaxShardWork
	if capacity > scale {
		scale = capacity
	}
	if scale <= 0 {
		fmt.Fprintln(w, "no work on any shard")
		return
	}
	capCol := -1
	if capacity > 0 {
		capCol = int(math.Round(capacity / scale * barWidth))
		fmt.Fprintf(w, "per-shard work, units/s (| marks capacity %s/s, ! a shard over it):\n", num(capacity))
	} else {
		fmt.Fprintln(w, "per-shard work, units/s:")
	}
	idx := make([]int, len(c.ShardWork))
	for i := range idx {
		idx[i] = i
	}
	shown := idx
	if len(idx) > 16 {
		sort.SliceStable(idx, func(a, b int) bool { return c.ShardWork[idx[a]] > c.ShardWork[idx[b]] })
		shown = idx[:10]
	}
	for _, s := range shown {
		x := c.ShardWork[s]
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
		fmt.Fprintf(w, " %s%4d %s %8s\n", flag, s, string(row), num(x))
	}
	if len(idx) > 16 {
		rest := make([]float64, 0, len(idx)-10)
		for _, s := range idx[10:] {
			rest = append(rest, c.ShardWork[s])
		}
		fmt.Fprintf(w, "  ... %d more shards from %s down to %s (the 10 busiest are shown)\n", len(rest), num(rest[0]), num(rest[len(rest)-1]))
	}
	fmt.Fprintf(w, "busiest %s/s, mean %s/s: %s the mean\n", num(c.MaxShardWork), num(c.MeanShardWork), ratioText(c.WorkRatio))
}

func ops(w io.Writer, c *sim.Candidate) {
	if len(c.Operations) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "operation\trequests/s\twork/s\tfan-out mean\tp99\tscatter-gather")
	for _, o := range c.Operations {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", o.Name, num(o.RequestsPerS), num(o.WorkPerS),
			strconv.FormatFloat(o.FanoutMean, 'f', 2, 64), num(o.FanoutP99), pct(o.ScatterFraction))
	}
	tw.Flush()
}

func keyLine(w io.Writer, c *sim.Candidate) {
	for _, t := range c.Tables {
		if t.Rows == 0 && t.Basis == "" || t.Basis == "traffic" && t.Cardinality == 0 {
			fmt.Fprintf(w, "key %s on %s: no row sample and no statement binding it to a value: distinct values, skew and monotonicity unknown\n", strings.Join(t.Columns, ", "), t.Table)
			continue
		}
		if t.Basis == "traffic" {
			top := ""
			if len(t.TopValues) > 0 {
				top = fmt.Sprintf(", hottest %s = %s at %s of the requests naming it", strings.Join(t.Columns, ", "), t.TopValues[0].Value, pct(t.TopValues[0].Share))
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
			fmt.Fprintf(w, "key %s on %s, traffic-based (no row sample): %s%s distinct values in the statements%s, entropy %.1f bits, %s; %s equally busy values hashed to %d shards give a busiest shard %s the mean\n",
				strings.Join(t.Columns, ", "), t.Table, about, commas(int64(t.Cardinality)), top, t.Entropy, mono, commas(int64(t.Cardinality)), c.Shards, ratioText(t.ExpectedMaxLoadRatio))
			continue
		}
		top := ""
		if len(t.TopValues) > 0 {
			top = fmt.Sprintf(", hottest %s at %s of rows' weight", t.TopValues[0].Value, pct(t.TopValues[0].Share))
		}
		mono := "not monotonic"
		if t.Monotonic {
			mono = "MONOTONIC"
		}
		fmt.Fprintf(w, "key %s on %s: %s distinct values%s, entropy %.1f bits, %s (r = %.2f); a perfect hash of this many equal keys gives %s\n",
			strings.Join(t.Columns, ", "), t.Table, commas(int64(t.Cardinality)), top, t.Entropy, mono, t.Monotonicity, ratioText(t.ExpectedMaxLoadRatio))
	}
}

func wrap(s string, width int, indent string) string {
	var lines []string
	line := indent
	for _, word := range strings.Fields(s) {
		if len(line)+len(word)+1 > width && strings.TrimSpace(line) != "" {
			lines = append(lines, line)
			line = indent
		}
		if strings.TrimSpace(line) != "" {
			line += " "
		}
		line += word
	}
	if strings.TrimSpace(line) != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

func renderMarkdown(w io.Writer, r *report) error {
	fmt.Fprintf(w, "# %s\n\n", mdText(r.Workload))
	if r.Description != "" {
		fmt.Fprintf(w, "%s\n\n", mdText(r.Description))
	}
	fmt.Fprintf(w, "%s requests/s on %d shards, engine `%s`", num(r.Candidates[0].RequestsPerS), r.Shards, r.Engine)
	if r.Capacity > 0 {
		fmt.Fprintf(w, ", capacity %s units of work/s per shard", num(r.Capacity))
	}
	fmt.Fprint(w, ".\n\n")
	fmt.Fprintln(w, "| rank | key | busiest shard (units/s) | x mean | work/s | fan-out mean | p99 | cross-shard txns | load ratio |")
	fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|")
	ranked := r.Ranked()
	for i, c := range ranked {
		txn := "-"
		if c.Transactions > 0 {
			txn = pct(c.CrossShardTxnFraction)
		}
		fan, p99, workRatio, load := orDash(c)
		fmt.Fprintf(w, "| %d | `%s` | %s | %s | %s | %s | %s | %s | %s |\n", i+1, mdCell(c.Key), num(c.MaxShardWork), workRatio,
			num(c.WorkPerS), fan, p99, txn, load)
	}
	for _, c := range ranked {
		fmt.Fprintf(w, "\n## `%s`\n\n", c.Key)
		fmt.Fprintln(w, "| operation | requests/s | work/s | fan-out mean | p99 | scatter-gather |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
		for _, o := range c.Operations {
			fmt.Fprintf(w, "| %s | %s | %s | %.2f | %s | %s |\n", mdCell(mdText(o.Name)), num(o.RequestsPerS), num(o.WorkPerS), o.FanoutMean, num(o.FanoutP99), pct(o.ScatterFraction))
		}
		fmt.Fprintf(w, "\nPer-shard work (units/s): %s.\n", joinNums(c.ShardWork))
		if len(c.Warnings) > 0 {
			fmt.Fprintln(w, "\nWarnings:")
			for _, wn := range c.Warnings {
				fmt.Fprintf(w, "- %s\n", mdText(wn))
			}
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprint(w, "\n## Warnings\n\n")
		for _, wn := range r.Warnings {
			fmt.Fprintf(w, "- %s\n", mdText(wn))
		}
	}
	return nil
}

// mdText escapes what Markdown would read as HTML in text from the
// workload (names, descriptions).
func mdText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// mdCell escapes a table cell's pipes, which would end the cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func joinNums(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = num(x)
	}
	return strings.Join(parts, ", ")
}

var _ = shardkey.Null
