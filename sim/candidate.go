package sim

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/jsonnull"
	"github.com/shardkey/shardkey/internal/numfmt"
	"github.com/shardkey/shardkey/partition"
)

// Candidate is the score of one design. JSON names are pinned by
// docs/product.md; units are per second where the input has rates (requests/s,
// units of work/s; one unit = one operation instance on one shard).
type Candidate struct {
	Key    string `json:"key"`    // the design as written
	Engine string `json:"engine"` // placement of hash keys
	Shards int    `json:"shards"`

	RequestsPerS  float64   `json:"requests_per_s"`
	WorkPerS      float64   `json:"work_per_s"`
	ShardWork     []float64 `json:"shard_work"`
	MaxShardWork  float64   `json:"max_shard_work"`
	MeanShardWork float64   `json:"mean_shard_work"`
	WorkRatio     float64   `json:"work_ratio"` // max/mean of shard_work, idle shards included

	// ShardLoad is the per-shard sum of row weights and LoadRatio its
	// max/mean. When no row weighs anything (no row sample: a workload of
	// statements only, a Citus coordinator's empty shells) the load is
	// unknown: both are then zero here and null in JSON (see MarshalJSON).
	//
	// Both are per shard here. In JSON, when WorkPer is "node" (slots on
	// nodes under redis), load_ratio is the nodes' (UnitLoadRatio: the
	// busiest node's row load over the mean node's, each node's slots
	// summed), as work_ratio is, and LoadPer says "node"; the slots'
	// max/mean is then slot_load_ratio. shard_load stays per slot.
	ShardLoad []float64 `json:"shard_load"`
	LoadRatio float64   `json:"load_ratio"`
	// LoadPer is "node" in JSON when load_ratio and
	// expected_max_load_ratio (the candidate's and each table's) are the
	// nodes' (WorkPer "node"); SlotLoadRatio and
	// SlotExpectedMaxLoadRatio then carry the per-slot figures. Set by
	// MarshalJSON only; absent otherwise (they count shards).
	LoadPer                  string   `json:"load_per,omitempty"`
	SlotLoadRatio            *float64 `json:"slot_load_ratio,omitempty"`
	SlotExpectedMaxLoadRatio *float64 `json:"slot_expected_max_load_ratio,omitempty"`

	// ShardHashRanges, when the design's hash keys are placed by the citus
	// engine, gives each shard's intervals of the int32 hash space, as
	// pg_dist_shard lists them (shardminvalue, shardmaxvalue, inclusive),
	// indexed like shard_work: one interval a shard by default, several
	// when shard_count puts more Citus shards than nodes, none for a
	// shard an isolate() dedicates to its values.
	ShardHashRanges [][][2]int32 `json:"shard_hash_ranges,omitempty"`

	// RangeBounds, for a design with range keys, are the range
	// boundaries this score placed by, per range-keyed table (one set for
	// the design: co-located range keys share them), at this shard
	// count; KeyWithBounds is Key with them written in as bounds=[...],
	// which -k (score, advise) and --emit place the same way. Both are
	// absent when the design has no range key or no boundaries, and when
	// they cannot be written (RangeBoundsNote says why).
	RangeBounds     []RangeBound `json:"range_bounds,omitempty"`
	KeyWithBounds   string       `json:"key_with_bounds,omitempty"`
	RangeBoundsNote string       `json:"range_bounds_note,omitempty"`
	// RangeValues, when the range boundaries were computed from the data
	// (not given as bounds=[...]) over a one-column key with at most 4
	// distinct values per range, are the values each range holds, in
	// range order (range shard i holds RangeValues[i]; ranges past the
	// last value are left out), each as bounds=[...] writes it. The
	// values are the sample's, or the statements' without one. The
	// advisor reads it to tell ranges fitted value by value to the
	// sample's traffic from an even split; not in JSON (the advice's
	// range_fit says what it found).
	RangeValues [][]string `json:"-"`

	FanoutMean float64 `json:"fanout_mean"` // shards per operation instance, rate-weighted
	FanoutP99  float64 `json:"fanout_p99"`  // seed 000's p99: sorted fan-out at floor(0.99(n-1))
	// FanoutPer is "node" when fanout_mean and fanout_p99 (the
	// candidate's and each operation's) count the nodes an instance
	// touches rather than its slots: slots placed on nodes (--slots,
	// --nodes) under an engine whose client sends one request per node
	// (ScatterPerNode: redis, where a keyless scatter on 16384 slots over
	// 3 masters touches 3 nodes). Absent otherwise: they count shards.
	// single_shard_fraction and scatter_fraction still count slots (a
	// command across two slots of one node is split by slot).
	FanoutPer string `json:"fanout_per,omitempty"`
	// WorkPer is "node" when work_per_s (the candidate's and each
	// operation's), work_ratio, max_shard_work and mean_shard_work count
	// the nodes' work (Candidate.NodeWork: slots on nodes under an engine
	// whose client sends a keyless scatter once per node, ScatterPerNode:
	// redis): a scatter on 16384 slots over 3 masters costs 3 units, and
	// the ratio is the busiest node's over the mean node's. shard_work
	// stays per slot. Absent otherwise: they count shards.
	WorkPer string `json:"work_per,omitempty"`
	// SingleShardFraction is the share (0..1) of requests that touch
	// exactly one shard, among the requests that ask a shard at all:
	// NoShardPerS are left out. Null when no request asks a shard.
	SingleShardFraction float64 `json:"single_shard_fraction"`
	// NoShardPerS is the rate (requests/s) of requests that ask no shard:
	// their key predicate matches no row whatever the data (an empty IN
	// list, {"in": []}, PostgreSQL's = ANY('{}'), IN (NULL)), so the
	// router sends them nowhere. They are in requests_per_s and
	// fanout_mean (a fan-out of 0) but not in single_shard_fraction.
	// Omitted when none.
	NoShardPerS float64 `json:"no_shard_per_s,omitempty"`

	// CrossShardTxnFraction is the share (0..1) of transactions that
	// touch more than one shard; Transactions is how many were scored.
	CrossShardTxnFraction float64 `json:"cross_shard_txn_fraction"`
	Transactions          int64   `json:"transactions"`
	// RolledBackCrossShardFraction is the share (0..1) of the
	// transactions that rolled back (shardkey.Txn.RolledBack, left out of
	// cross_shard_txn_fraction, a share of commits) that touched more than
	// one shard before rolling back: each cost a distributed
	// transaction's coordination (two-phase commit's prepare then abort,
	// or locks held on several shards until the rollback) for nothing.
	// AllCrossShardTxnFraction is the share of all transactions,
	// committed and rolled back, that crossed shards. Both are null when
	// no transaction rolled back (nothing to measure, not 0);
	// RolledBackTransactions is how many rolled-back ones were scored.
	RolledBackCrossShardFraction *float64 `json:"rolled_back_cross_shard_fraction"`
	AllCrossShardTxnFraction     *float64 `json:"all_cross_shard_txn_fraction"`
	RolledBackTransactions       int64    `json:"rolled_back_transactions,omitempty"`
	// LookupCrossShardTxnFraction, for a design with lookups and
	// transactions, is the part (0..1 of all transactions) of
	// cross_shard_txn_fraction due to lookup rows: transactions that
	// cross shards only because their lookup rows are elsewhere.
	LookupCrossShardTxnFraction *float64 `json:"lookup_cross_shard_txn_fraction,omitempty"`
	// Lookups are the design's lookups (secondary routing tables) with
	// what they cost and save; their work is in work_per_s and
	// shard_work.
	Lookups []LookupScore `json:"lookups,omitempty"`

	Operations []OpScore `json:"operations"`

	// Capacity is the work one shard can do (units/s; 0: not given) and
	// OverCapacity the shards whose work exceeds it. With slots over
	// nodes (Options.Nodes, OnNodes) the capacity is a node's, judged on
	// the sum of its slots' work: CapacityPer is "node" and OverCapacity
	// lists nodes (0-based), not slots.
	Capacity     float64 `json:"capacity"`
	CapacityPer  string  `json:"capacity_per,omitempty"`
	OverCapacity []int   `json:"over_capacity"`
	// nodes is the placement capacity is judged per node of; nil: per
	// shard.
	nodes *Nodes
	// keyless is the rate (requests/s) of scatter-gather instances that
	// name no key (Partial.WorkKeyless): each adds one unit to every slot,
	// and to every node once under ScatterPerNode.
	keyless float64
	// crossTxnRequests: see CrossTxnRequests.
	crossTxnRequests      float64
	crossTxnRequestsKnown bool

	// Key characteristics of the main table's key (of the key expression
	// whose tables the operations name most, its table with the most
	// rows); Tables has them for every keyed table.
	Cardinality int        `json:"cardinality"`
	TopValues   []TopValue `json:"top_values"`
	// MoreValues are the main key's values ranked after TopValues
	// (KeyStats.MoreValues); not in JSON.
	MoreValues           []TopValue `json:"-"`
	Monotonicity         float64    `json:"monotonicity"`
	Monotonic            bool       `json:"monotonic"`
	Entropy              float64    `json:"entropy"`
	ExpectedMaxLoadRatio float64    `json:"expected_max_load_ratio"`
	Tables               []TableKey `json:"tables"`
	// keyUnknown: nothing measured the main key's values (KeyStats.Unknown);
	// monoUnknown: nothing orders them. Their figures are null in JSON.
	keyUnknown, monoUnknown bool
	// txnsUnknown: which statements ran together is unknown
	// (shardkey.Workload.TxnsUnknown): cross_shard_txn_fraction is null.
	txnsUnknown bool

	// Rebalance says what fraction of keys and of load moves when shards
	// are added, under each placement of the hash points.
	Rebalance []Move `json:"rebalance,omitempty"`

	// Nodes, with --slots and --nodes, gives the design's slots (its
	// shards) over nodes: per-node work and load and growth.
	Nodes *NodesReport `json:"nodes,omitempty"`

	Warnings []string `json:"warnings,omitempty"`
	// LookupWarnings are the Warnings that are about one table's lookup
	// (LookupWarning): they read the same under every candidate with
	// that lookup, so that advice can say each once.
	LookupWarnings []string `json:"-"`
	// Unsharded are the tables the design leaves unsharded on shard 0
	// (none of the key's columns; each also has a Warning), in the
	// workload's order.
	Unsharded []string `json:"-"`
}

// OpScore is the score of one operation under a design.
type OpScore struct {
	Name         string  `json:"name"`
	Table        string  `json:"table"`
	Kind         string  `json:"kind"`
	RequestsPerS float64 `json:"requests_per_s"`
	// MergedPerS is the rate of its reads that are no requests of their
	// own: a table read of a multi-table SELECT other than its first
	// (counted in the first table's read's requests_per_s, whose
	// statement asks the union of its tables' shards), a multi-row
	// INSERT's rows after its first (its first row's request asks the
	// union of its rows' shards), or, in a workload
	// that does not give the statement's parts, a join of its table with
	// another on columns under one unique vindex, which vtgate merges
	// into the route the other table's lookup picks. Their work and own
	// fan-out count here. Omitted when none.
	MergedPerS float64 `json:"merged_per_s,omitempty"`
	WorkPerS   float64 `json:"work_per_s"`
	FanoutMean float64 `json:"fanout_mean"`
	FanoutP99  float64 `json:"fanout_p99"`
	// ScatterFraction is the share (0..1) of its reads (requests and
	// merged) sent to every shard to gather an answer.
	ScatterFraction float64 `json:"scatter_fraction"`
	// UnsizedFraction is the share (0..1) of its requests routed by the
	// key's values that are known only at run time, their number too (a
	// list bind variable; the rows an INSERT ... SELECT computes, each
	// going to its own value's shard): which shards, and how many, is
	// unknown, and they are counted at every shard, the most they can
	// ask. The engine routes them by the key: no scatter-gather (not in
	// ScatterFraction). Omitted when none.
	UnsizedFraction float64 `json:"unsized_fraction,omitempty"`
	// Broadcast reports a write to a replicated (reference) table: each
	// request writes every copy, on every shard, and commits on all of
	// them (Citus: two-phase commit; Vitess: a reference table's writes
	// go to every shard), so it is a broadcast write, not scatter-gather
	// (ScatterFraction is then 0), and a cross-shard transaction.
	Broadcast bool `json:"broadcast,omitempty"`
	// SingleShardFraction is the share (0..1) of its requests whose
	// statement asks exactly one shard (a multi-table SELECT counted at
	// its first table's read, over the union of its tables' shards); of
	// its own reads' when all of them ride in other reads' requests
	// (merged_per_s). Requests that ask no shard (NoShardPerS) are left
	// out; null when all of them ask none.
	SingleShardFraction float64 `json:"single_shard_fraction"`
	// NoShardPerS is the rate (requests/s) of its requests that ask no
	// shard (an empty IN list: see Candidate.NoShardPerS). Omitted when
	// none.
	NoShardPerS float64 `json:"no_shard_per_s,omitempty"`
	// LookupWorkPerS is the part of work_per_s done on lookup tables
	// (routing reads, lookup-row writes).
	LookupWorkPerS float64 `json:"lookup_work_per_s,omitempty"`
	// KeyMovesPerS is the rate of its updates that assign the table's key
	// under the design, each moving its row to the new key's shard (a
	// delete and an insert; one more unit of work, in work_per_s);
	// KeyMoveCrossFraction the share (0..1) of them expected to land on
	// another shard than the old row's. Omitted when none.
	KeyMovesPerS         float64 `json:"key_moves_per_s,omitempty"`
	KeyMoveCrossFraction float64 `json:"key_move_cross_fraction,omitempty"`
	Latency              string  `json:"latency,omitempty"`
	// NodeWorkPerS, with slots over nodes (OnNodes) under an engine whose
	// router sends a keyless scatter once to each node (ScatterPerNode:
	// redis), is the operation's units of work/s counted on the nodes:
	// work_per_s with each keyless scatter costing one unit per node
	// instead of one per slot. Absent otherwise (work_per_s is then what
	// the nodes do).
	NodeWorkPerS *float64 `json:"node_work_per_s,omitempty"`
	// keyless is the rate (requests/s) of its instances that name no key
	// and ask every shard (OpPartial.Keyless).
	keyless float64
	// slotWork is work_per_s counted per slot, kept when setNodeOps makes
	// work_per_s the nodes' (nil until then).
	slotWork *float64
	// slotFanout is FanoutMean counted in slots (shards), whatever
	// Candidate.FanoutPer says.
	slotFanout float64
}

// SlotFanoutMean returns the operation's mean fan-out counted in slots
// (shards asked per instance), which is FanoutMean unless the candidate
// counts fan-out in nodes (Candidate.FanoutPer "node").
func (o OpScore) SlotFanoutMean() float64 {
	if o.slotFanout == 0 { // not set (an OpScore built by hand): the same
		return o.FanoutMean
	}
	return o.slotFanout
}

// FanoutUnit returns what c's fan-out figures count: "nodes" when
// FanoutPer is "node", else "shards".
func (c *Candidate) FanoutUnit() string {
	if c.FanoutPer == "node" {
		return "nodes"
	}
	return "shards"
}

// TableKey is one table's key under a design, with its characteristics.
type TableKey struct {
	KeyStats
	Key string `json:"key"`
	// ExpectedMaxLoadRatio is the balls-into-bins E[max]/mean of the
	// key's Cardinality equal keys over the design's shards. In JSON,
	// under a candidate whose work is counted per node (WorkPer "node"),
	// it is over the nodes, and SlotExpectedMaxLoadRatio (set by
	// Candidate.MarshalJSON only) is over the slots.
	ExpectedMaxLoadRatio     float64  `json:"expected_max_load_ratio"`
	SlotExpectedMaxLoadRatio *float64 `json:"slot_expected_max_load_ratio,omitempty"`
}

// Move is the data movement of one growth step.
type Move struct {
	Placement string  `json:"placement"` // modulo, jump, ring, or the engine's own growth
	From      int     `json:"from"`
	To        int     `json:"to"`
	KeysMoved float64 `json:"keys_moved"` // share 0..1 of distinct keys that change shard
	LoadMoved float64 `json:"load_moved"` // share 0..1 of row weight that changes shard
	// Note explains a figure that would mislead alone: an engine that
	// keeps its logical shards when nodes are added (Citus) moves whole
	// shards, and none when there are no more shards than nodes.
	Note string `json:"note,omitempty"`
}

// Score compiles design (a key expression or design text) for w, routes
// the workload and returns its score.
func Score(w *shardkey.Workload, design string, o Options) (*Candidate, error) {
	d, err := shardkey.ParseDesign(design)
	if err != nil {
		return nil, err
	}
	s, err := Compile(w, d, o)
	if err != nil {
		return nil, err
	}
	p, err := Run(w, s, o.Workers)
	if err != nil {
		return nil, err
	}
	return s.Report(p), nil
}

// Headline fills the part of a Candidate that comes from the partial
// alone (per-shard work and load, their ratios, the cross-shard
// transaction fraction), without key statistics, operations or
// rebalancing: what a bootstrap replicate needs.
func (s *Scheme) Headline(p *Partial) *Candidate {
	c := &Candidate{Key: s.Design.Text, Engine: s.Engine.Name(), Shards: s.N, Capacity: s.w.Capacity, nodes: s.nodes, keyless: p.WorkKeyless}
	if s.nodes != nil {
		c.CapacityPer = "node"
	}
	c.ShardWork = p.ShardWork()
	c.WorkRatio, c.MaxShardWork, c.MeanShardWork = ratio(c.ShardWork)
	c.setNodeWork(false)
	c.ShardLoad = p.ShardLoad()
	c.LoadRatio, _, _ = ratio(c.ShardLoad)
	if p.RolledBackCount > 0 && p.RolledBackWeight > 0 {
		rb := p.RolledBackCross / p.RolledBackWeight
		all := (p.TxnCross + p.RolledBackCross) / (p.TxnWeight + p.RolledBackWeight)
		c.RolledBackCrossShardFraction, c.AllCrossShardTxnFraction = &rb, &all
		c.RolledBackTransactions = p.RolledBackCount
	}
	if s.w.TxnsUnknown {
		c.txnsUnknown = true
		// Which statements ran together is unknown (a pg_stat_statements
		// export): no transaction is scored, not each write as one.
		return c
	}
	if p.TxnCount == 0 && p.AutoTxnCount > 0 {
		// No transaction recorded: each write is one (Partial.AutoTxnWeight).
		if p.AutoTxnWeight > 0 {
			c.CrossShardTxnFraction = p.AutoTxnCross / p.AutoTxnWeight
		}
		c.Transactions = p.AutoTxnCount
		return c
	}
	if p.TxnWeight > 0 {
		c.CrossShardTxnFraction = p.TxnCross / p.TxnWeight
	}
	c.Transactions = p.TxnCount
	c.crossTxnRequests, c.crossTxnRequestsKnown = p.TxnCrossRequests, true
	return c
}

// CrossTxnRequests returns the rate (requests/s where rates are known,
// else by transaction weight) of requests that commit with a
// cross-shard transaction (Partial.TxnCrossRequests), and whether the
// scoring recorded transactions to count them from.
func (c *Candidate) CrossTxnRequests() (float64, bool) {
	return c.crossTxnRequests, c.crossTxnRequestsKnown
}

// Report turns a merged partial into a Candidate.
func (s *Scheme) Report(p *Partial) *Candidate {
	w := s.w
	c := s.Headline(p)
	c.ShardHashRanges = s.hashRanges()
	if d, rb, why := s.BoundedDesign(); d != nil {
		c.RangeBounds, c.KeyWithBounds = rb, d.Text
	} else {
		c.RangeBoundsNote = why
	}
	c.RangeValues = s.rangeValueTexts()
	hist := make([]float64, s.N+1)
	var nodeHist []float64 // with s.nodeFanout: fan-out in nodes
	if s.nodeFanout != nil {
		nodeHist = make([]float64, s.nodeFanout.Count+1)
		c.FanoutPer = "node"
	}
	// count: the requests (statements) in hist; nodeCount: the
	// instances in nodeHist.
	var count, nodeCount int64
	for i, op := range w.Ops {
		o := &p.Ops[i]
		c.RequestsPerS += o.Requests
		c.WorkPerS += o.Work
		// Per statement: a multi-table SELECT once, at the union of
		// its tables' shards (OpPartial.Stmt).
		for f, x := range o.stmtHist() {
			hist[f] += x
		}
		count += o.Count - o.Riders
		nodeCount += o.Count
		os := OpScore{Name: op.Name, Table: w.Tables[op.Table].Name, Kind: op.Kind.String(),
			RequestsPerS: o.Requests, MergedPerS: o.Merged, WorkPerS: o.Work, LookupWorkPerS: o.Lookup, Latency: op.Latency, keyless: o.Keyless}
		if o.Moves > 0 {
			os.KeyMovesPerS, os.KeyMoveCrossFraction = o.Moves, o.MoveCross/o.Moves
		}
		os.FanoutMean, os.FanoutP99 = fanoutStats(o.Hist, o.Count)
		os.slotFanout = os.FanoutMean
		if nodeHist != nil {
			for k, x := range o.NodeHist {
				nodeHist[k] += x
			}
			os.FanoutMean, os.FanoutP99 = fanoutStats(o.NodeHist, o.Count)
		}
		os.Broadcast = op.Kind.IsWrite() && s.tables[op.Table].kind == kReplicate && s.N > 1
		if all := o.Requests + o.Merged; all > 0 && !os.Broadcast {
			os.ScatterFraction = o.Scatter / all
			os.UnsizedFraction = o.Unsized / all
		}
		switch sh := o.stmtHist(); {
		case len(sh) < 2:
		case o.Requests > 0:
			// Its requests' statements that ask one shard, of those
			// that ask any.
			os.NoShardPerS = min(sh[0], o.Requests)
			if asking := o.Requests - os.NoShardPerS; asking > 0 {
				os.SingleShardFraction = sh[1] / asking
			}
		case o.Merged > 0:
			// All its reads ride in other reads' requests: its own
			// part's.
			os.SingleShardFraction = o.Hist[1] / o.Merged
		}
		c.Operations = append(c.Operations, os)
	}
	c.setNodeOps()
	if c.WorkPer == "node" {
		c.setNodeWork(true)
	}
	c.FanoutMean, c.FanoutP99 = fanoutStats(hist, count)
	if nodeHist != nil {
		c.FanoutMean, c.FanoutP99 = fanoutStats(nodeHist, nodeCount)
	}
	if c.RequestsPerS > 0 && len(hist) > 1 {
		// Of the requests that ask a shard: one that asks none (an
		// empty IN list) is neither single-shard nor fanned out.
		c.NoShardPerS = min(hist[0], c.RequestsPerS)
		if asking := c.RequestsPerS - c.NoShardPerS; asking > 0 {
			c.SingleShardFraction = hist[1] / asking
		}
	}
	c.OverCapacity = overCapacity(c.CapacityWork(), w.Capacity)
	// The main key speaks for the design (Cardinality, TopValues, the
	// perfect-hash yardstick ExpectedMaxLoadRatio): the key expression
	// whose tables the most requests name (hash(w_id) over TPC-C's
	// warehouse tables, not item:hash(i_id) of the largest table, which
	// only new-order's item reads ask), the largest of its tables; with
	// no rates, or a tie, the largest table's, as before.
	exprReq := map[string]float64{}
	for _, op := range w.Ops {
		if op.Table >= 0 && op.Table < len(s.tables) {
			if tk := s.tables[op.Table]; tk.kind != kUnplaced && tk.kind != kReplicate {
				exprReq[tk.expr.String()] += op.Rate
			}
		}
	}
	main := -1
	var hidden []string // warnings of range keys whose fitted boundaries hide a hot tail
	for ti, tk := range s.tables {
		if tk.kind == kUnplaced || tk.kind == kReplicate {
			continue
		}
		t := w.Tables[ti]
		ks := cachedKeyStats(t, tk.cols)
		if t.Rows == 0 {
			// No rows: the statements' values are what there is.
			ks = cached(s.cache, w, fmt.Sprint("trafficstats", ti, tk.cols), func() KeyStats {
				var byTable [][]txnStmt // one pass over the transactions for every table
				if s.cache != nil {
					byTable = cached(s.cache, w, "stmtsbytable", func() [][]txnStmt { return stmtsByTable(w) })
				}
				return trafficKeyStats(w, ti, tk.cols, byTable)
			}).clone()
		}
		// Statistics computed inside the database replace the sample's
		// (or the statements'): a Citus coordinator's shells have no rows
		// sampled, their figures computed on the workers.
		ks = s.databaseStats(ks, t, tk)
		tkr := TableKey{KeyStats: ks, Key: tk.expr.String(), ExpectedMaxLoadRatio: ExpectedMaxLoadRatio(ks.Cardinality, s.N)}
		c.Tables = append(c.Tables, tkr)
		if tk.kind == kRange && ks.Basis == "traffic" && ks.Monotonic && ks.Inserted >= MonotonicInserts && !s.givenBounds() {
			end := "last"
			if ks.Monotonicity < 0 {
				end = "first"
			}
			hidden = append(hidden, fmt.Sprintf("key %q: range boundaries of %s.%s are fitted to the statements' own values (no row sample), and %s is monotonic (rank correlation %.2f with insert order over %d logged inserts): the fitted ranges spread the logged inserts, but every new insert lands past the %s boundary, on one shard, a hot tail these figures hide; give bounds=[...] placed ahead of the data, or a key that does not follow insert order",
				s.Design.Text, t.Name, strings.Join(ks.Columns, ", "), strings.Join(ks.Columns, ", "), ks.Monotonicity, ks.Inserted, end))
		}
		better := main < 0 || t.Rows > w.Tables[main].Rows
		if main >= 0 && t.Rows == 0 && w.Tables[main].Rows == 0 {
			// Without rows, the key with the most traffic speaks for the design.
			better = ks.Cardinality > c.Cardinality
		}
		if main >= 0 && t.Rows > 0 && w.Tables[main].Rows > 0 && !ks.Unknown() && !c.keyUnknown {
			// Both keys measured on rows: else the largest table's (or
			// the rowless rule above), whose values are known.
			if r, m := exprReq[tk.expr.String()], exprReq[s.tables[main].expr.String()]; r != m {
				better = r > m
			}
		}
		if better {
			main = ti
			c.Cardinality, c.TopValues, c.Monotonicity, c.Monotonic, c.Entropy = ks.Cardinality, ks.TopValues, ks.Monotonicity, ks.Monotonic, ks.Entropy
			c.MoreValues = ks.MoreValues
			c.ExpectedMaxLoadRatio = tkr.ExpectedMaxLoadRatio
			c.keyUnknown, c.monoUnknown = ks.Unknown(), ks.MonotonicityUnknown
		}
	}
	if c.TopValues == nil {
		c.TopValues = []TopValue{}
	}
	if c.Tables == nil {
		c.Tables = []TableKey{}
	}
	if s.movesSet {
		c.Rebalance = slices.Clone(s.moves)
	} else {
		c.Rebalance = s.rebalance()
	}
	if len(s.lookups) > 0 {
		c.Lookups = s.lookupScores(p)
		if p.TxnWeight > 0 {
			f := p.TxnCrossLookup / p.TxnWeight
			c.LookupCrossShardTxnFraction = &f
		}
	}
	for _, e := range s.Warnings {
		c.Warnings = append(c.Warnings, e.Error())
		var lw *LookupWarning
		if errors.As(e, &lw) {
			c.LookupWarnings = append(c.LookupWarnings, e.Error())
		}
	}
	c.Warnings = append(c.Warnings, hidden...)
	c.Unsharded = s.unsharded
	if p.NullRows > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d row(s) have a NULL key that %s cannot place (the database would refuse them); their weight is spread over every shard", p.NullRows, s.Engine.Name()))
	}
	if p.TxnUnbound > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d transaction write(s) give no value for the key column(s) of their table; each is counted as a row placed on a random shard (a default value), so cross_shard_txn_fraction is an expectation over those placements", p.TxnUnbound))
	}
	if len(w.Ops) == 0 {
		c.Warnings = append(c.Warnings, "the workload has no operations, so every shard's work is 0; give queries (--queries, --log, a workload) to measure work; shard_load from row weights is still computed")
	}
	return c
}

// hashRanges returns each shard's Citus hash intervals (see
// Candidate.ShardHashRanges), or nil when no table's key is placed by a
// Citus layout. The tables of one design share the engine and the shard
// count, so the first hash-placed table's layout speaks for all.
func (s *Scheme) hashRanges() [][][2]int32 {
	for _, tk := range s.tables {
		if tk.kind != kHash && tk.kind != kDirectory {
			continue
		}
		cl, ok := tk.layout.(*partition.CitusLayout)
		if !ok {
			return nil
		}
		out := make([][][2]int32, s.N)
		for i := range out {
			out[i] = [][2]int32{}
		}
		for i := range cl.ShardCount() {
			n := cl.Node(i)
			lo, hi := cl.HashRange(i)
			out[n] = append(out[n], [2]int32{lo, hi})
		}
		return out
	}
	return nil
}

// prefetch computes what Report will need of the row samples alone (key
// statistics, hash points, growth figures), so it can overlap with
// reading the rest.
func (s *Scheme) prefetch() {
	for ti, tk := range s.tables {
		if tk.kind == kUnplaced || tk.kind == kReplicate {
			continue
		}
		cachedKeyStats(s.w.Tables[ti], tk.cols)
		if tk.kind == kHash {
			hashPoints(s.w.Tables[ti], tk)
		}
	}
	// The growth figures too (the hash points on the rings and layouts
	// of N and N+1 shards): else they were computed by Report, after the
	// last statement, when the schemes' reports (three for two cores,
	// at seed 000) leave a core idle part of the time.
	s.moves, s.movesSet = s.rebalance(), true
}

// cachedKeyStats memoises key statistics per table and column list: they
// do not depend on the partition function, and candidates share them.
func cachedKeyStats(t *shardkey.Table, cols []int) KeyStats {
	return memo(t, fmt.Sprint("stats", cols), func() KeyStats { return ComputeKeyStats(t, cols) })
}

// rebalanceSample bounds the rows used for growth estimates.
const rebalanceSample = 1 << 17

// rebalance reports, for the hash-keyed tables, the share of distinct keys
// and of row weight that change shard (estimated from at most
// rebalanceSample evenly spaced rows per table: a sampling error below 0.3
// points) from N to N+1 (and, for the engine's
// own growth, N to 2N) under modulo, jump and ring placement of the
// engine's points.
func (s *Scheme) rebalance() []Move {
	var pts []pointWeight
	for ti, tk := range s.tables {
		if tk.kind != kHash {
			continue
		}
		t := s.w.Tables[ti]
		pts = append(pts, hashPoints(t, tk)...)
	}
	agg := pts
	if len(agg) == 0 {
		return nil
	}
	total := 0.0
	for _, x := range pts {
		total += x.w
	}
	n := s.N
	measure := func(name string, a, b partition.Layout) Move {
		m := Move{Placement: name, From: a.Shards(), To: b.Shards()}
		var k, wt float64
		for _, x := range pts {
			if a.Shard(x.p) != b.Shard(x.p) {
				k++
				wt += x.w
			}
		}
		m.KeysMoved = k / float64(len(pts))
		if total > 0 {
			m.LoadMoved = wt / total
		}
		return m
	}
	var out []Move
	m1, _ := partition.NewModulo(n)
	m2, _ := partition.NewModulo(n + 1)
	out = append(out, measure("modulo", m1, m2))
	out = append(out, measure("jump", partition.JumpLayout{N: n}, partition.JumpLayout{N: n + 1}))
	ring, _ := partition.NewRing(128)
	r1, _ := ring.Layout(n)
	r2, _ := ring.Layout(n + 1)
	out = append(out, measureRing(pts, total, n, r1, r2))
	if g, ok := s.Engine.(partition.Grower); ok {
		if l, err := s.Engine.Layout(n); err == nil {
			for _, to := range []int{n + 1, 2 * n} {
				if l2, err := g.Grow(l, to); err == nil {
					m := measure(fmt.Sprintf("%s growth", s.Engine.Name()), l, l2)
					m.Note = fixedShardsNote(l2, to)
					out = append(out, m)
				}
			}
		}
	}
	return out
}

// measureRing is rebalance's "ring (128 vnodes)" move from a to b (n to
// n+1 nodes), over the points as the ring places them (ringPoint).
func measureRing(pts []pointWeight, total float64, n int, a, b partition.Layout) Move {
	m := Move{Placement: "ring (128 vnodes)", From: a.Shards(), To: b.Shards()}
	var k, wt float64
	for _, x := range pts {
		p := ringPoint(x.p)
		if a.Shard(p) != b.Shard(p) {
			k++
			wt += x.w
		}
	}
	m.KeysMoved = k / float64(len(pts))
	if total > 0 {
		m.LoadMoved = wt / total
	}
	return m
}

type pointWeight struct {
	p uint64
	w float64
}

// sortPoints sorts points by p, stably. Hash points are spread evenly over
// 64 bits, so one pass scattering them by their top bits into about one
// bucket per point, then an insertion sort of each bucket, replaces the
// eight passes of a radix sort; a bucket that is large all the same (many
// rows of one key) is sorted by slices.SortStableFunc.
func sortPoints(pts []pointWeight) []pointWeight {
	n := len(pts)
	if n < 2 {
		return pts
	}
	bb := uint(bits.Len(uint(n)))
	start := make([]int32, 1<<bb+1)
	for _, x := range pts {
		start[x.p>>(64-bb)+1]++
	}
	for b := 1; b < len(start); b++ {
		start[b] += start[b-1]
	}
	out := make([]pointWeight, n)
	pos := append([]int32(nil), start[:1<<bb]...)
	for _, x := range pts {
		b := x.p >> (64 - bb)
		out[pos[b]] = x
		pos[b]++
	}
	for b := 0; b < 1<<bb; b++ {
		s := out[start[b]:start[b+1]]
		if len(s) > 32 {
			slices.SortStableFunc(s, func(a, b pointWeight) int { return cmp.Compare(a.p, b.p) })
			continue
		}
		for i := 1; i < len(s); i++ {
			for j := i; j > 0 && s[j].p < s[j-1].p; j-- {
				s[j], s[j-1] = s[j-1], s[j]
			}
		}
	}
	return out
}

// hashPoints returns the distinct routing points of tk's key over (a
// sample of at most rebalanceSample evenly spaced rows of) t, with their
// summed row weights, sorted by point. Memoised per table, columns and
// engine.
func hashPoints(t *shardkey.Table, tk *tableKey) []pointWeight {
	return pointsBy(t, tk, "points", t.Weight)
}

// rowPoints is hashPoints with each sampled row weighing 1 (rows, not
// requests): what moving data copies.
func rowPoints(t *shardkey.Table, tk *tableKey) []pointWeight {
	return pointsBy(t, tk, "rowpoints", func(int) float64 { return 1 })
}

// pointsBy returns the distinct routing points of tk's key over (a sample
// of) t with their summed weight(i), sorted by point; memoised under name.
func pointsBy(t *shardkey.Table, tk *tableKey, name string, weight func(int) float64) []pointWeight {
	return memo(t, fmt.Sprint(name, tk.cols, tk.eng.Name()), func() []pointWeight {
		step := 1
		if t.Rows > rebalanceSample {
			step = t.Rows / rebalanceSample
		}
		// Points in row order, sorted stably, equal points merged: each
		// point's weight is summed in row order.
		pts := make([]pointWeight, 0, t.Rows/step+1)
		key := make([]shardkey.Value, len(tk.cols))
		var buf []byte
		var ints []int64 // one Int64 column without NULLs: PointInt64
		if c := t.Columns[tk.cols[0]]; tk.fast != nil && c.Nulls == nil {
			ints = c.Ints
		}
		// A memoised engine's points over this table's key columns are
		// in its table by the row's slot, from the columns' codes (after
		// the rows' fill, every row's), without the row's values built
		// and looked up again (memoEngine.Point).
		m, _ := tk.eng.(*memoEngine)
		if m != nil && (m.t != t || len(m.cols) != len(tk.cols)) {
			m = nil
		}
		for i := 0; i < t.Rows; i += step {
			if ints != nil {
				pts = append(pts, pointWeight{tk.fast.PointInt64(ints[i]), weight(i)})
				continue
			}
			if m != nil {
				if p := m.pts[m.rowSlot(i)].Load(); p != 0 {
					pts = append(pts, pointWeight{p, weight(i)})
					continue
				}
			}
			if tk.canon != nil { // from the columns' bytes, as rows are routed
				buf = partition.AppendCanonicalRow(buf[:0], tk.keyCol, i)
				pts = append(pts, pointWeight{tk.canon.PointCanonical(buf), weight(i)})
				continue
			}
			for j, c := range tk.cols {
				key[j] = t.Columns[c].Value(i)
			}
			p, err := tk.eng.Point(key)
			if err != nil {
				continue
			}
			pts = append(pts, pointWeight{p, weight(i)})
		}
		pts = sortPoints(pts)
		out := pts[:0]
		for i := 0; i < len(pts); {
			x := pointWeight{pts[i].p, 0}
			for ; i < len(pts) && pts[i].p == x.p; i++ {
				x.w += pts[i].w
			}
			out = append(out, x)
		}
		return out
	})
}

// overCapacity returns the shards (ascending) whose work exceeds capacity
// (units of work/s; 0 means not given: none). A relative tolerance of
// 1e-12 keeps a shard exactly at capacity from counting through rounding.
func overCapacity(work []float64, capacity float64) []int {
	out := []int{}
	if capacity > 0 {
		for i, x := range work {
			if x > capacity*(1+1e-12) {
				out = append(out, i)
			}
		}
	}
	return out
}

// WithCapacity returns c as scored with per-shard capacity capacity
// (units of work/s; 0: not given): c itself when its capacity is that
// already, else a copy with Capacity and OverCapacity recomputed.
// Capacity decides nothing else, so one scoring serves every capacity.
func (c *Candidate) WithCapacity(capacity float64) *Candidate {
	if c.Capacity == capacity {
		return c
	}
	cc := *c
	cc.Capacity = capacity
	cc.OverCapacity = overCapacity(cc.CapacityWork(), capacity)
	return &cc
}

// OnNodes returns c with its capacity judged per node of m (whose slot
// count must be c's shard count): a copy whose OverCapacity lists the
// nodes whose slots' work, summed, exceeds the capacity, CapacityPer
// "node". A node is the machine the capacity is a figure of; its slots
// share it, so four slots at 60% of it each put the node at 240%.
func (c *Candidate) OnNodes(m *Nodes) *Candidate {
	if m == nil || len(m.Node) != c.Shards {
		return c
	}
	cc := *c
	cc.nodes, cc.CapacityPer = m, "node"
	cc.OverCapacity = overCapacity(cc.CapacityWork(), cc.Capacity)
	cc.setNodeOps()
	cc.WorkPer = ""
	cc.WorkRatio, cc.MaxShardWork, cc.MeanShardWork = ratio(cc.ShardWork)
	cc.setNodeWork(true)
	return &cc
}

// setNodeWork makes c's work figures the nodes' when its shards are
// slots on nodes under an engine whose client sends a keyless scatter
// once per master (ScatterPerNode: redis): work_ratio, max_shard_work
// and mean_shard_work over NodeWork (the busiest node against the mean
// node), and with total set work_per_s their sum (16384 slots over 3
// masters: a SCAN is 3 units, not 16384); WorkPer "node". ShardWork
// stays per slot (where the keys land). Otherwise c is unchanged.
func (c *Candidate) setNodeWork(total bool) {
	if c.nodes == nil || len(c.nodes.Node) != c.Shards || !ScatterPerNode(c.Engine) {
		return
	}
	nw := c.NodeWork(c.nodes)
	c.WorkRatio, c.MaxShardWork, c.MeanShardWork = ratio(nw)
	c.WorkPer = "node"
	if total {
		c.WorkPerS = 0
		for _, x := range nw {
			c.WorkPerS += x
		}
	}
}

// setNodeOps sets each operation's NodeWorkPerS when c's shards are slots
// on nodes (c.nodes) under an engine that sends a keyless scatter once
// per node, and clears it otherwise. The operations are copied first:
// a Candidate copied by OnNodes shares its slice with the original.
func (c *Candidate) setNodeOps() {
	if len(c.Operations) == 0 {
		return
	}
	c.Operations = slices.Clone(c.Operations)
	for i := range c.Operations {
		op := &c.Operations[i]
		op.NodeWorkPerS = nil
		if op.slotWork == nil {
			w := op.WorkPerS
			op.slotWork = &w
		}
		op.WorkPerS = *op.slotWork
		if c.nodes != nil && len(c.nodes.Node) == c.Shards && ScatterPerNode(c.Engine) {
			x := max(op.WorkPerS-op.keyless*float64(c.Shards-c.nodes.Count), 0)
			op.NodeWorkPerS = &x
			op.WorkPerS = x
		}
	}
}

// ScatterPerNode reports whether engine's router sends a scatter-gather
// request that names no key once to each node rather than once to each
// slot on it, when the design's shards are slots placed on nodes:
//   - redis: yes. A Redis Cluster node serves all its slots; a command
//     naming no key (SCAN, KEYS, DBSIZE, FT.SEARCH), command tip
//     request_policy:all_shards, is sent once to each master (Redis docs,
//     "Command tips"; redis-py RedisCluster and go-redis ClusterClient
//     send such commands to every master node). A multi-key command
//     whose keys hash to several slots is another matter: Redis Cluster
//     refuses it (CROSSSLOT) and the client splits it by slot,
//     request_policy:multi_shard, "even if all the slots are managed by
//     the same shard" (Command tips), so it stays one unit per slot
//     (redis-py pipelines the parts to each node, one round trip per node
//     but one command per slot);
//   - citus: no, a multi-shard query runs one task per shard placement
//     (adaptive executor, src/backend/distributed/executor/
//     adaptive_executor.c), shards being the slots;
//   - vitess: no, a scatter query goes to every shard's primary tablet
//     (one MySQL query per shard, go/vt/vtgate/engine/route.go);
//   - elasticsearch: no, a search runs on one copy of every shard;
//   - cockroachdb, yugabyte: no, DistSender and the YB client send one
//     request per range or tablet;
//   - every other engine: no (the model stated in ScatterCaveat).
func ScatterPerNode(engine string) bool {
	return engine == "redis"
}

// ExpectedWorkRatio returns the perfect-hash yardstick for WorkRatio:
// the balls-into-bins E[max]/mean (ExpectedMaxLoadRatio) of the main
// key's Cardinality equal-weight keys over the units work_ratio is
// counted on. Those are the nodes when WorkPer is "node" (a key's slot
// is on a node with the node's share of the slots as probability, the
// shares taken as equal: exact for equal counts, and a contiguous split
// such as 16384 slots over 3 masters differs by one slot), else the
// shards (ExpectedMaxLoadRatio itself). 0 when no key value is known.
func (c *Candidate) ExpectedWorkRatio() float64 {
	if c.WorkPer == "node" && c.nodes != nil && c.ExpectedMaxLoadRatio > 0 {
		return ExpectedMaxLoadRatio(c.Cardinality, c.nodes.Count)
	}
	return c.ExpectedMaxLoadRatio
}

// UnitLoadRatio returns the row load ratio (max/mean of the row weight)
// over the units work_ratio is counted on: the nodes when WorkPer is
// "node" (slots over nodes under Redis: each node's slots' load summed),
// else the shards (LoadRatio itself).
func (c *Candidate) UnitLoadRatio() float64 {
	if c.WorkPer == "node" && c.nodes != nil && len(c.nodes.Node) == len(c.ShardLoad) {
		r, _, _ := ratio(c.nodes.Sum(c.ShardLoad))
		return r
	}
	return c.LoadRatio
}

// CapacityWork returns the work (units/s) of each unit capacity is judged
// on: per node when c's capacity is a node's (see OnNodes and NodeWork),
// else per shard (ShardWork itself).
func (c *Candidate) CapacityWork() []float64 {
	if c.nodes != nil {
		return c.NodeWork(c.nodes)
	}
	return c.ShardWork
}

// NodeWork returns the work (units/s) of each node of m, whose slot count
// must be c's shard count: the sum of its slots' work, except that under
// an engine that sends a keyless scatter once per node (ScatterPerNode)
// each such scatter costs the node one unit, not one per slot it holds.
// With S slots on N nodes a scatter is then N units, not S.
func (c *Candidate) NodeWork(m *Nodes) []float64 {
	if !ScatterPerNode(c.Engine) || c.keyless == 0 {
		return m.Sum(c.ShardWork)
	}
	out := make([]float64, m.Count)
	held := make([]bool, m.Count)
	for s, x := range c.ShardWork {
		if s < len(m.Node) {
			out[m.Node[s]] += max(x-c.keyless, 0)
			held[m.Node[s]] = true
		}
	}
	for k := range out {
		if held[k] {
			out[k] += c.keyless
		}
	}
	return out
}

// NodeWorkFloor returns the work (units/s) that the node holding c's
// busiest slot does however c's slots are placed on nodes, as long as
// each node holds a slot: that slot's work, a keyless scatter counted
// once under an engine that sends it once per node (NodeWork). A node's
// work sums non-negative terms, so it is never below any one of them, and
// no node count brings every node under a capacity below this floor.
func (c *Candidate) NodeWorkFloor() float64 {
	kl := 0.0
	if ScatterPerNode(c.Engine) {
		kl = c.keyless
	}
	floor := 0.0
	for _, x := range c.ShardWork {
		floor = max(floor, max(x-kl, 0)+kl)
	}
	return floor
}

// CapacityUnits returns how many units capacity is judged on: nodes or
// shards.
func (c *Candidate) CapacityUnits() int {
	if c.nodes != nil {
		return c.nodes.Count
	}
	return c.Shards
}

// LoadKnown reports whether any row weighs something, so that ShardLoad
// and LoadRatio measure the rows' load; when not, they are unknown, not 0.
func (c *Candidate) LoadKnown() bool {
	for _, x := range c.ShardLoad {
		if x != 0 {
			return true
		}
	}
	return false
}

// MarshalJSON writes c with its own field names and null for every
// figure nothing measured (a 0 would read as a measurement):
//   - shard_load and load_ratio when the row load is unknown (LoadKnown
//     false): a 0 would read as perfectly even, empty shards;
//   - capacity and over_capacity when no capacity was given (Capacity
//     0): no shard is judged against one;
//   - cardinality, top_values, monotonicity, monotonic and entropy when
//     the main key's values are unknown (KeyStats.Unknown: no row
//     sample, no statement binding it, no database figure), and
//     monotonicity and monotonic when nothing orders its values
//     (MonotonicityUnknown);
//   - expected_max_load_ratio when there is no key value to place (0);
//   - cross_shard_txn_fraction when which statements ran together is
//     unknown or there is no transaction; single_shard_fraction,
//     work_ratio, fanout_mean and fanout_p99 when there is no request
//     (or no work: SingleShardKnown, WorkRatioKnown): a workload of no
//     operations has no share, ratio or fan-out, not 0.
//
// With work counted per node (WorkPer "node": slots on nodes under
// redis) load_ratio and expected_max_load_ratio, the candidate's and
// each table's, are written per node too (load_per "node"), beside
// work_ratio, so that no figure of the headline is a slot's: the slots'
// are slot_load_ratio and slot_expected_max_load_ratio (16384 slots
// holding 8 keys have a max/mean of 2048 whatever the nodes do).
func (c Candidate) MarshalJSON() ([]byte, error) {
	type plain Candidate
	c.perNodeJSON()
	b, err := marshalNoEscape(plain(c))
	if err != nil {
		return nil, err
	}
	var null []string
	null = append(null, jsonnull.Unless(c.LoadKnown(), "shard_load", "load_ratio")...)
	null = append(null, jsonnull.Unless(c.Capacity > 0, "capacity", "over_capacity")...)
	null = append(null, jsonnull.Unless(!c.keyUnknown, "cardinality", "top_values", "entropy")...)
	null = append(null, jsonnull.Unless(!c.keyUnknown && !c.monoUnknown, "monotonicity", "monotonic")...)
	null = append(null, jsonnull.Unless(c.ExpectedMaxLoadRatio > 0, "expected_max_load_ratio")...)
	null = append(null, jsonnull.Unless(!c.txnsUnknown && c.Transactions > 0, "cross_shard_txn_fraction")...)
	null = append(null, jsonnull.Unless(c.SingleShardKnown(), "single_shard_fraction")...)
	null = append(null, jsonnull.Unless(c.WorkRatioKnown(), "work_ratio")...)
	null = append(null, jsonnull.Unless(c.RequestsPerS > 0, "fanout_mean", "fanout_p99")...)
	return jsonnull.Null(b, null...)
}

// perNodeJSON makes c's load figures the nodes' for JSON when its work
// is (see MarshalJSON); c is a copy. Otherwise it leaves c unchanged.
func (c *Candidate) perNodeJSON() {
	if c.WorkPer != "node" || c.nodes == nil || len(c.nodes.Node) != len(c.ShardLoad) {
		return
	}
	c.LoadPer = "node"
	if c.LoadKnown() {
		slot := c.LoadRatio
		c.SlotLoadRatio = &slot
		c.LoadRatio = c.UnitLoadRatio()
	}
	if c.ExpectedMaxLoadRatio > 0 {
		slot := c.ExpectedMaxLoadRatio
		c.SlotExpectedMaxLoadRatio = &slot
		c.ExpectedMaxLoadRatio = ExpectedMaxLoadRatio(c.Cardinality, c.nodes.Count)
	}
	c.Tables = slices.Clone(c.Tables)
	for i := range c.Tables {
		t := &c.Tables[i]
		if t.ExpectedMaxLoadRatio > 0 {
			slot := t.ExpectedMaxLoadRatio
			t.SlotExpectedMaxLoadRatio = &slot
			t.ExpectedMaxLoadRatio = ExpectedMaxLoadRatio(t.Cardinality, c.nodes.Count)
		}
	}
}

// SingleShardKnown reports whether SingleShardFraction measures
// anything: false when there are no requests (a workload of no
// operations), or when none of them asks a shard (all NoShardPerS), so
// that no share of them can be single-shard.
func (c *Candidate) SingleShardKnown() bool {
	return c.RequestsPerS > 0 && c.NoShardPerS < c.RequestsPerS
}

// NoShardNote says, apart from the shares, how many requests ask no
// shard (NoShardPerS: a key predicate that matches no row, an empty IN
// list); "" when none do.
func (c *Candidate) NoShardNote() string {
	if c.NoShardPerS <= 0 {
		return ""
	}
	what := "left out of the single-shard share"
	if !c.SingleShardKnown() {
		what = "every request does, so no shard does any work, and the single-shard share and the work ratio are unknown"
	}
	verbs := "match no rows and ask"
	if numfmt.Num(c.NoShardPerS) == "1" {
		verbs = "matches no rows and asks"
	}
	return fmt.Sprintf("%s %s no shard (an empty IN list: {\"in\": []}, = ANY('{}')): %s", numfmt.Count(c.NoShardPerS, "request/s", "requests/s"), verbs, what)
}

// WorkRatioKnown reports whether WorkRatio (max/mean of the shards'
// work) can be computed: false when no shard does any work (no
// operations, or every request asks no shard), where the mean is 0 and
// the ratio undefined, not 0.
func (c *Candidate) WorkRatioKnown() bool {
	return c.WorkPerS > 0
}

// TxnsUnknown reports that which statements ran together is unknown
// (shardkey.Workload.TxnsUnknown): no cross-shard share was measured.
func (c *Candidate) TxnsUnknown() bool { return c.txnsUnknown }

// MarshalJSON writes k with null for the figures nothing measured (see
// KeyStats.Unknown; Candidate.MarshalJSON): cardinality, top_values,
// monotonicity, monotonic and entropy when its values are unknown,
// monotonicity and monotonic when nothing orders them,
// expected_max_load_ratio when there is no value to place, rows when no
// row was sampled (the row count is unknown, not 0).
func (k TableKey) MarshalJSON() ([]byte, error) {
	type plain TableKey
	b, err := marshalNoEscape(plain(k))
	if err != nil {
		return nil, err
	}
	unknown := k.KeyStats.Unknown()
	var null []string
	null = append(null, jsonnull.Unless(!unknown, "cardinality", "top_values", "entropy")...)
	null = append(null, jsonnull.Unless(!unknown && !k.MonotonicityUnknown, "monotonicity", "monotonic")...)
	null = append(null, jsonnull.Unless(k.ExpectedMaxLoadRatio > 0, "expected_max_load_ratio")...)
	null = append(null, jsonnull.Unless(k.Rows > 0, "rows")...)
	return jsonnull.Null(b, null...)
}

// marshalNoEscape is json.Marshal without HTML escaping: a MarshalJSON's
// bytes are copied as they are into the caller's output, and the caller's
// encoder decides about escaping.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// fixedShardsNote explains a growth whose engine keeps a fixed number of
// logical shards and moves whole shards onto new nodes (Citus: adding a
// worker changes no shard's hash interval; the rebalancer moves shard
// placements, rebalance_table_shards with the by_shard_count strategy):
// with no more shards than nodes, a new node receives no shard at all.
// Empty for other layouts.
func fixedShardsNote(l partition.Layout, nodes int) string {
	fc, ok := l.(interface{ ShardCount() int })
	if !ok {
		return ""
	}
	s := fc.ShardCount()
	if s > nodes {
		return fmt.Sprintf("%d nodes, %d shards: the shards keep their hash intervals, whole shards move", nodes, s)
	}
	return fmt.Sprintf("%d nodes, %d shards: no more shards than nodes, so a new node gets no shard; set citus.shard_count well above the node count", nodes, s)
}

// RolledBackText is the clause on the transactions that rolled back,
// for a report's line on cross-shard transactions: of the n the log
// showed (shardkey.Workload.RolledBackTxns; 0: the scored count), how
// many crossed shards before rolling back and what share of all
// transactions, committed and rolled back, crossed. "" when none rolled
// back. The count crossed is the share times n: a whole number when
// every rolled-back transaction was scored, else "about" one.
func (c *Candidate) RolledBackText(n float64) string {
	if c.RolledBackCrossShardFraction == nil {
		return ""
	}
	if n <= 0 {
		n = float64(c.RolledBackTransactions)
	}
	f := *c.RolledBackCrossShardFraction
	x := f * n
	count := fmt.Sprintf("%.0f", math.Round(x))
	if math.Abs(x-math.Round(x)) > 1e-6 {
		count = "about " + count
	}
	s := fmt.Sprintf("%s of %.0f rolled-back transactions (%s) crossed shards before rolling back", count, n, numfmt.Pct(f))
	if c.AllCrossShardTxnFraction != nil {
		s += fmt.Sprintf(", so %s of all transactions, committed and rolled back, crossed", numfmt.Pct(*c.AllCrossShardTxnFraction))
	}
	return s
}

// TxnCell is a report table's cross-shard transactions cell: the share
// of committed transactions that cross shards, with the rolled-back
// transactions' share after it when some rolled back (RolledBackNote);
// "-" without transactions.
func (c *Candidate) TxnCell() string {
	if c.Transactions == 0 {
		if c.RolledBackCrossShardFraction != nil {
			return "-" + RolledBackNote(*c.RolledBackCrossShardFraction)
		}
		return "-"
	}
	s := numfmt.Pct(c.CrossShardTxnFraction)
	if c.RolledBackCrossShardFraction != nil {
		s += RolledBackNote(*c.RolledBackCrossShardFraction)
	}
	return s
}

// RolledBackNote is what a cross-shard transactions cell adds when some
// transactions rolled back: f, the share of them that crossed shards, as
// " (of rolled-back: 50% crossed)". Not "(rolled back 50%)", which read
// as the share of transactions that rolled back.
func RolledBackNote(f float64) string {
	return " (of rolled-back: " + numfmt.Pct(f) + " crossed)"
}

// MarshalJSON writes o with single_shard_fraction null when it has
// requests and none of them asks a shard (all no_shard_per_s): no share
// of them can be single-shard.
func (o OpScore) MarshalJSON() ([]byte, error) {
	type plain OpScore
	b, err := marshalNoEscape(plain(o))
	if err != nil {
		return nil, err
	}
	return jsonnull.Null(b, jsonnull.Unless(!(o.RequestsPerS > 0 && o.NoShardPerS >= o.RequestsPerS), "single_shard_fraction")...)
}
