package advisor

import (
	"fmt"
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
// twice with two verdicts; the kept one's origin names the other.
func samePlacement(list []*Assessment) []*Assessment {
	seen := map[string]*Assessment{}
	out := make([]*Assessment, 0, len(list))
	for _, as := range list {
		c := as.Score
		var fp strings.Builder
		fmt.Fprintf(&fp, "%p|%v|%v|%v|%v|%d", as.w, c.ShardWork, c.ShardLoad, c.CrossShardTxnFraction, c.FanoutMean, len(c.Operations))
		for _, op := range c.Operations {
			fmt.Fprintf(&fp, "|%s:%v", op.Name, op.FanoutMean)
		}
		key := fp.String()
		if first, ok := seen[key]; ok {
			first.Origin += "; the same placement as " + as.Display()
			first.InUse = first.InUse || as.InUse // the design in use, spelled otherwise
			continue
		}
		seen[key] = as
		out = append(out, as)
	}
	return out
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
