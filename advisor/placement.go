package advisor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/reshard"
	"github.com/shardkey/shardkey/sim"
)

// Placements: candidates that place everything alike, and the recommended
// design's slots over nodes.

// samePlacement drops a candidate that places every row and routes every
// operation and transaction as a better-ranked one does (the same design
// spelled otherwise: a bare key naming another table's column, explicit
// range bounds equal to the computed ones), so one design is not ranked
// twice with two verdicts; the kept one's origin names the other. Equal
// per-shard figures are not enough: two keys may put as many rows and as
// much work on each shard and still place different rows there (a range
// of ids and a range of tenants, four rows a shard each), which a reshard
// between them would move; so the sample's rows must also stay on their
// shards from one to the other (sim.Reshard moves none).
func samePlacement(list []*Assessment, sopts sim.Options) []*Assessment {
	seen := map[string][]*Assessment{}
	out := make([]*Assessment, 0, len(list))
	for _, as := range list {
		c := as.Score
		var fp strings.Builder
		fmt.Fprintf(&fp, "%p|%v|%v|%v|%v|%d", as.w, c.ShardWork, c.ShardLoad, c.CrossShardTxnFraction, c.FanoutMean, len(c.Operations))
		for _, op := range c.Operations {
			fmt.Fprintf(&fp, "|%s:%v", op.Name, op.FanoutMean)
		}
		key := fp.String()
		if i := slices.IndexFunc(seen[key], func(first *Assessment) bool { return sameRows(first, as, sopts) }); i >= 0 {
			first := seen[key][i]
			first.Origin += "; the same placement as " + as.Display()
			first.InUse = first.InUse || as.InUse // the design in use, spelled otherwise
			continue
		}
		seen[key] = append(seen[key], as)
		out = append(out, as)
	}
	return out
}

// sameRows reports whether a and b, scored on the same workload, place
// every sample row on the same shard (a reshard from a to b moves no row).
// Designs that do not compile again, or a failed comparison, count as
// different: both are kept. So does a table b re-keys without a row
// sample (a workload read from a log): no sampled row moving is then no
// evidence, whether its rows move is unknown, not "no".
func sameRows(a, b *Assessment, sopts sim.Options) bool {
	da, err := shardkey.ParseDesign(a.Key)
	if err != nil {
		return false
	}
	db, err := shardkey.ParseDesign(b.Key)
	if err != nil {
		return false
	}
	sa, err := sim.Compile(a.w, da, sopts)
	if err != nil {
		return false
	}
	sb, err := sim.Compile(b.w, db, sopts)
	if err != nil {
		return false
	}
	m, err := sim.Reshard(a.w, sa, sb)
	return err == nil && m.RowsKnown() && m.RowsCrossing == 0
}

// nodesReport adds the slots-over-nodes report to the recommended
// design's score (see Options.Nodes), on the workload it was scored on.
func nodesReport(as *Assessment, o Options, sopts sim.Options) {
	d, err := shardkey.ParseDesign(as.Key)
	if err != nil {
		return
	}
	s, err := sim.Compile(as.w, d, sopts)
	if err != nil {
		return
	}
	grow := o.GrowTo
	if grow <= o.Nodes.Count {
		grow = o.Nodes.Count + 1
	}
	r := s.NodesReport(as.Score, o.Nodes, grow)
	rb := o.RowBytes
	if rb == 0 {
		var rows, bytes float64
		for _, tk := range as.Score.Tables {
			if t := as.w.Table(tk.Table); t != nil && strings.HasPrefix(tk.Key, "hash(") {
				rows += float64(t.Rows)
				bytes += float64(t.Rows) * reshard.EstimateRowBytes(t)
			}
		}
		if rows > 0 {
			rb = bytes / rows
		}
	}
	for k := range r.Growth {
		r.Growth[k].Bytes = r.Growth[k].Rows * rb
	}
	c := *as.Score // the score may be shared: report on a copy
	c.Nodes = r
	as.Score = &c
}
