package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/numfmt"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/reshard"
	"github.com/shardkey/shardkey/sim"
	"github.com/shardkey/shardkey/workload"
)

// nodeFlags are --slots, --nodes, --slot-map and --grow-to: a design's
// logical shards (slots) over nodes, and growth.
type nodeFlags struct {
	slots, nodes, growTo int
	slotMap              string
	rowBytes             float64
}

func (n *nodeFlags) register(fs *flag.FlagSet) {
	n.registerPlacement(fs)
	fs.Float64Var(&n.rowBytes, "row-bytes", 0, "average row size in `bytes`, for the bytes growth moves (default: estimated from the sample's columns)")
}

// registerPlacement registers the flags but --row-bytes, for a command
// that has its own (advise's, shared with --current).
func (n *nodeFlags) registerPlacement(fs *flag.FlagSet) {
	fs.IntVar(&n.slots, "slots", 0, "logical `shards` (slots) keys hash to; with --nodes, slots are placed on nodes")
	fs.IntVar(&n.nodes, "nodes", 0, "`nodes` the slots are placed on (with --slots)")
	fs.StringVar(&n.slotMap, "slot-map", "contiguous", "slot placement: contiguous, round-robin, or a map `file` (lines SLOT NODE or FIRST-LAST NODE)")
	fs.IntVar(&n.growTo, "grow-to", 0, "`nodes` to measure growth to (default --nodes + 1)")
}

// fromWorkload takes the placement a scenario spec gives (nodes: M, its
// shards then being slots) when no flag gave one.
func (n *nodeFlags) fromWorkload(w *shardkey.Workload) {
	if n.on() || w.Nodes <= 0 {
		return
	}
	n.slots, n.nodes, n.growTo = w.Shards, w.Nodes, w.Nodes+1
	if n.slotMap == "" {
		n.slotMap = "contiguous"
	}
}

// validate checks the flags and makes --slots the shard count.
func (n *nodeFlags) validate(c *common, fs *flag.FlagSet) error {
	growSet, slotsSet, nodesSet, mapSet := false, false, false, false
	fs.Visit(func(f *flag.Flag) {
		growSet = growSet || f.Name == "grow-to"
		slotsSet = slotsSet || f.Name == "slots"
		nodesSet = nodesSet || f.Name == "nodes"
		mapSet = mapSet || f.Name == "slot-map"
	})
	citus := partition.IsCitus(c.engine)
	if s := partition.CitusShards(c.engine); s > 0 && slotsSet && n.slots != s {
		return usageErr("--engine %s makes %d shards and --slots %d says %d: give one (with citus(shard_count=S), --shards counts the nodes)", c.engine, s, n.slots, n.slots)
	}
	if s := partition.CitusShards(c.engine); s > 0 && !slotsSet && nodesSet {
		// The engine's option gives the shards the nodes hold: --nodes M
		// places its S shards, as --slots S --nodes M does.
		if c.shards != 0 {
			return usageErr("--shards %d and --nodes %d with --engine %s: both count the nodes its %d shards are placed on; give one (--nodes adds the per-node report and growth)", c.shards, n.nodes, c.engine, s)
		}
		n.slots = s
	}
	redis := isRedis(c.engine)
	if redis && !slotsSet && nodesSet {
		// Redis Cluster has its 16384 slots whatever the nodes:
		// --nodes M alone places them on M masters.
		if c.shards != 0 {
			return usageErr("--shards %d and --nodes %d with --engine redis: both count the masters its %d hash slots are placed on; give one (--nodes adds the per-node report and growth)", c.shards, n.nodes, partition.RedisSlots)
		}
		n.slots = partition.RedisSlots
	}
	if redis && slotsSet {
		if err := checkRedisSlots(n.slots); err != nil {
			return err
		}
	}
	if citus && !mapSet {
		// Citus places a new table's shards on the workers in turn
		// (operations/create_shards.c, CreateShardsWithRoundRobinPolicy),
		// as citus(shard_count=S) does over --shards nodes.
		n.slotMap = "round-robin"
	}
	if slotsSet && (n.slots < 1 || n.slots > shardkey.MaxShards) {
		return usageErr("--slots %d: must be in 1..%d (with --nodes)", n.slots, shardkey.MaxShards)
	}
	if n.slots == 0 && n.nodes == 0 {
		if growSet || n.rowBytes != 0 {
			return usageErr("--grow-to and --row-bytes need --slots and --nodes")
		}
		return nil
	}
	switch {
	case n.slots == 0 && citus:
		return usageErr("--nodes %d needs the shards placed on the nodes: give them with --engine 'citus(shard_count=S)' or --slots S", n.nodes)
	case n.slots == 0:
		return usageErr("--nodes %d needs --slots: the logical shards placed on the nodes", n.nodes)
	case n.nodes == 0 && nodesSet:
		return usageErr("--nodes 0: must be at least 1 (the nodes the --slots %d are placed on)", n.slots)
	case n.nodes == 0:
		return usageErr("--slots %d needs --nodes: the nodes the slots are placed on", n.slots)
	case n.slots < 1 || n.slots > shardkey.MaxShards:
		return usageErr("--slots %d: must be in 1..%d (with --nodes)", n.slots, shardkey.MaxShards)
	case n.nodes < 1 || n.nodes > n.slots:
		return usageErr("--nodes %d: must be in 1..--slots (%d)", n.nodes, n.slots)
	case math.IsNaN(n.rowBytes) || math.IsInf(n.rowBytes, 0) || n.rowBytes < 0:
		return usageErr("--row-bytes %v: want a number of bytes > 0", n.rowBytes)
	case growSet && (n.growTo <= n.nodes || n.growTo > n.slots):
		return usageErr("--grow-to %d: must be more than --nodes (%d) and at most --slots (%d): a node holds at least one slot", n.growTo, n.nodes, n.slots)
	case c.shards != 0 && c.shards != n.slots:
		return usageErr("--shards %d and --slots %d: with --slots the design's shards are its slots; give one", c.shards, n.slots)
	}
	if n.growTo == 0 {
		n.growTo = min(n.nodes+1, n.slots)
	}
	c.shards = n.slots
	return nil
}

func (n *nodeFlags) on() bool { return n.slots > 0 }

// isRedis reports whether engine (an --engine spec) is Redis Cluster's
// placement.
func isRedis(engine string) bool {
	e, err := partition.Lookup(engine)
	return err == nil && e.Name() == "redis"
}

// checkRedisSlots refuses a --slots other than Redis Cluster's: a key's
// slot is CRC16(key) mod 16384 in every cluster (cluster.c keyHashSlot,
// CLUSTER_SLOTS in cluster.h), so no other count describes one; the
// nodes (--nodes, the masters) are what a cluster chooses.
func checkRedisSlots(slots int) error {
	if slots == partition.RedisSlots {
		return nil
	}
	return usageErr("--slots %d with --engine redis: Redis Cluster always has %d hash slots (a key's slot is CRC16(key) mod %d, cluster.c keyHashSlot); give --slots %d, and the masters with --nodes", slots, partition.RedisSlots, partition.RedisSlots, partition.RedisSlots)
}

// nodesFor is common.nodesFor for these flags: the placement they (or
// w's spec, when no flag gives one) name, nil when neither does.
func (n *nodeFlags) nodesFor(w *shardkey.Workload) (*sim.Nodes, error) {
	n.fromWorkload(w)
	if !n.on() {
		return nil, nil
	}
	return n.placement()
}

// placement returns the slots' placement on nodes.
func (n *nodeFlags) placement() (*sim.Nodes, error) {
	switch n.slotMap {
	case "contiguous", "round-robin":
		m, err := sim.NewNodes(n.slots, n.nodes, n.slotMap)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		return m, nil
	}
	if err := workload.CheckFile("--slot-map", n.slotMap, n.slotMap); err != nil {
		return nil, err
	}
	m, err := sim.ReadNodes(n.slotMap, n.slots)
	if err != nil {
		return nil, err
	}
	if m.Count != n.nodes {
		return nil, fmt.Errorf("%s: the map places slots on %d nodes; --nodes says %d", n.slotMap, m.Count, n.nodes)
	}
	return m, nil
}

// assign adds the nodes report to every candidate.
func (n *nodeFlags) assign(l *loaded, cands []*sim.Candidate) error {
	m, err := n.placement()
	if err != nil {
		return err
	}
	schemes, err := compileKeys(l.w, l.keys, l.opts, l.keysFromFlags)
	if err != nil {
		return err
	}
	for i, c := range cands {
		// The capacity is a node's: judged on its slots' summed work.
		c = c.OnNodes(m)
		cands[i] = c
		c.Nodes = schemes[i].NodesReport(c, m, n.growTo)
		rb := n.rowBytes
		if rb == 0 {
			// The sample's estimate, averaged over the hash-keyed tables'
			// rows (the tables growth moves).
			var rows, bytes float64
			for _, tk := range c.Tables {
				if t := l.w.Table(tk.Table); t != nil && strings.HasPrefix(tk.Key, "hash(") {
					rows += float64(t.Rows)
					bytes += float64(t.Rows) * reshard.EstimateRowBytes(t)
				}
			}
			if rows > 0 {
				rb = bytes / rows
			}
		}
		for k := range c.Nodes.Growth {
			c.Nodes.Growth[k].Bytes = c.Nodes.Growth[k].Rows * rb
		}
	}
	return nil
}

// renderNodes prints the slots-over-nodes section of each candidate.
func renderNodes(w io.Writer, cands []*sim.Candidate) {
	for _, c := range cands {
		r := c.Nodes
		if r == nil {
			continue
		}
		fmt.Fprintf(w, "\n%s: %d slots over %d nodes (%s)\n", c.Key, r.Slots, r.Nodes, r.Assignment)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "node\tslots\twork/s\tload\t")
		over := map[int]bool{}
		for _, k := range r.OverCapacity {
			over[k] = true
		}
		for k := range r.NodeWork {
			flag := ""
			if over[k] {
				flag = " !"
			}
			load := "-" // no row weights to sum
			if r.LoadKnown {
				load = num(r.NodeLoad[k])
			}
			fmt.Fprintf(tw, "%d\t%d\t%s%s\t%s\t\n", k, r.NodeSlots[k], num(r.NodeWork[k]), flag, load)
		}
		tw.Flush()
		if r.Capacity > 0 {
			fmt.Fprintf(w, "capacity %s per node (its slots' work summed): %d of %d nodes over it (marked !)\n", numfmt.Count(r.Capacity, "unit of work/s", "units of work/s"), len(r.OverCapacity), r.Nodes)
		}
		wr, lr := "-", "-" // nothing to measure them on: no work, no row weight
		if c.WorkPerS > 0 {
			// The slots' own: work_ratio is the nodes' where work is
			// counted per node (sim.Candidate.WorkPer).
			wr = ratioText(sim.MaxOverMean(c.ShardWork))
		}
		if c.LoadRatio > 0 {
			lr = ratioText(c.LoadRatio)
		}
		nwr, nlr := "-", "-"
		if wr != "-" {
			nwr = num(r.NodeWorkRatio) + "x"
		}
		if lr != "-" {
			nlr = num(r.NodeLoadRatio) + "x"
		}
		fmt.Fprintf(w, "max/mean per node: work %s, load %s (per slot: work %s, load %s)\n", nwr, nlr, wr, lr)
		if len(r.Growth) == 0 {
			fmt.Fprintln(w, "growth: unknown (no row sample of a hash-keyed table)")
			continue
		}
		g0 := r.Growth[0]
		fmt.Fprintf(w, "growth %d -> %d nodes, measured on the row sample:\n", g0.From, g0.To)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  placement\tkeys moved\trows moved\trows\tbytes\tmax/mean rows after")
		for _, g := range r.Growth {
			name := g.Placement
			if g.Placement == "slots" {
				name = fmt.Sprintf("slots (%d of %d move)", g.SlotsMoved, r.Slots)
			}
			b := "unknown"
			if g.Bytes > 0 || g.Rows == 0 {
				b = numfmt.Bytes(g.Bytes)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", name, pct(g.KeysMoved), pct(g.RowsMoved), num(g.Rows), b, num(g.BalanceAfter))
		}
		tw.Flush()
		if g0.SlotsMoved > 0 {
			// Runs of consecutive slots with one source and target, in
			// the order they move (as redis-cli moves them: Nodes.Grow).
			type run struct{ first, last, from, to int }
			var runs []run
			for _, mv := range g0.Moves {
				if k := len(runs) - 1; k >= 0 && runs[k].last+1 == mv.Slot && runs[k].from == mv.From && runs[k].to == mv.To {
					runs[k].last = mv.Slot
					continue
				}
				runs = append(runs, run{mv.Slot, mv.Slot, mv.From, mv.To})
			}
			var parts []string
			for i, r := range runs {
				if i == 12 {
					parts = append(parts, fmt.Sprintf("... %d more runs", len(runs)-12))
					break
				}
				slots := fmt.Sprint(r.first)
				if r.last > r.first {
					slots = fmt.Sprintf("%d-%d", r.first, r.last)
				}
				parts = append(parts, fmt.Sprintf("%s: %d->%d", slots, r.from, r.to))
			}
			fmt.Fprintf(w, "slots moved (slots: from->to node, as redis-cli --cluster rebalance moves them): %s\n", strings.Join(parts, ", "))
		}
	}
}
