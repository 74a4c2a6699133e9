package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/shardkey/shardkey/internal/numfmt"
	"github.com/shardkey/shardkey/sim"
)

// Citus shard intervals beside the per-shard figures: under the citus
// engine each shard of a score holds intervals of the int32 hash space
// (sim.Candidate.ShardHashRanges), the shardminvalue and shardmaxvalue
// that pg_dist_shard lists for it, so a hot shard in the report can be
// found in the database:
//
//	SELECT shardid FROM pg_dist_shard
//	WHERE logicalrelid = 'orders'::regclass AND shardminvalue = '-1073741824';

// maxRangeRows is how many shards the interval table lists before it
// keeps to the busiest, as the bars do.
const maxRangeRows = 16

// HashRangesText writes a shard's hash intervals as "lo..hi" joined by
// ", ", or "none (isolated values)" for a shard without one.
func HashRangesText(rs [][2]int32) string {
	if len(rs) == 0 {
		return "none (isolated values)"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%d..%d", r[0], r[1])
	}
	return strings.Join(parts, ", ")
}

// rangeRows returns the shards the interval table lists: all of them up
// to maxRangeRows, else the 10 busiest (by work, then load) in shard
// order, and how many are left out.
func rangeRows(c *sim.Candidate) ([]int, int) {
	idx := make([]int, len(c.ShardHashRanges))
	for i := range idx {
		idx[i] = i
	}
	if len(idx) <= maxRangeRows {
		return idx, 0
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := idx[a], idx[b]
		if c.ShardWork[x] != c.ShardWork[y] {
			return c.ShardWork[x] > c.ShardWork[y]
		}
		return c.ShardLoad[x] > c.ShardLoad[y]
	})
	top := append([]int(nil), idx[:10]...)
	sort.Ints(top)
	return top, len(idx) - 10
}

// writeRangesTable writes, for a Citus design, each shard's hash
// intervals beside its work and load, as a terminal table; nothing for
// other designs.
func writeRangesTable(w io.Writer, c *sim.Candidate) {
	if len(c.ShardHashRanges) == 0 {
		return
	}
	rows, more := rangeRows(c)
	fmt.Fprintln(w, "Citus shard intervals (pg_dist_shard shardminvalue..shardmaxvalue) and each shard's figures:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "shard\thash interval\twork/s\tload")
	for _, s := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", s, HashRangesText(c.ShardHashRanges[s]), numfmt.Num(c.ShardWork[s]), loadCell(c, s))
	}
	tw.Flush()
	if more > 0 {
		fmt.Fprintf(w, "  ... %d more shards (the 10 busiest are shown; JSON's shard_hash_ranges has every one)\n", more)
	}
}

// writeRangesMarkdown is writeRangesTable as a Markdown table.
func writeRangesMarkdown(w io.Writer, c *sim.Candidate) {
	if len(c.ShardHashRanges) == 0 {
		return
	}
	rows, more := rangeRows(c)
	fmt.Fprintln(w, "\nCitus shard intervals (pg_dist_shard `shardminvalue..shardmaxvalue`):")
	fmt.Fprintln(w, "\n| shard | hash interval | work/s | load |")
	fmt.Fprintln(w, "|---:|---|---:|---:|")
	for _, s := range rows {
		fmt.Fprintf(w, "| %d | %s | %s | %s |\n", s, HashRangesText(c.ShardHashRanges[s]), numfmt.Num(c.ShardWork[s]), loadCell(c, s))
	}
	if more > 0 {
		fmt.Fprintf(w, "\n%d more shards (the 10 busiest are shown; JSON's `shard_hash_ranges` has every one).\n", more)
	}
}

// loadCell is shard s's row load for a table cell: "unknown" when no row
// was sampled at all (a Citus coordinator's empty shells, a workload of
// statements only), where a 0 would read as an empty shard.
func loadCell(c *sim.Candidate, s int) string {
	for _, x := range c.ShardLoad {
		if x != 0 {
			return numfmt.Num(c.ShardLoad[s])
		}
	}
	return "unknown"
}
