package sim

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/jsonnull"
	"github.com/shardkey/shardkey/partition"
)

// Nodes maps a design's logical shards (slots, 0..len(Node)-1) to nodes
// (0..Count-1): "start with many more logical shards than nodes, so growth
// moves slots, not keys" (seeds 000 and 002), as Redis Cluster's 16384
// hash slots, Citus's shards over worker nodes, Vitess's shards over
// tablets and Elasticsearch's routing shards are placed.
type Nodes struct {
	Count int
	Node  []int // Node[slot] is the slot's node
	// How says how slots were assigned: contiguous, round-robin, or the
	// map file's name.
	How string
}

// NewNodes assigns slots to nodes contiguously (in runs, as redis-cli's
// cluster create splits Redis Cluster's slots: see contiguousRedisCLI) or
// round-robin (slot s on node s mod nodes, as Citus places a table's
// shards on its workers).
func NewNodes(slots, nodes int, how string) (*Nodes, error) {
	if slots < 1 || nodes < 1 || nodes > slots {
		return nil, fmt.Errorf("%d slots over %d nodes: want 1 <= nodes <= slots", slots, nodes)
	}
	m := &Nodes{Count: nodes, Node: make([]int, slots), How: how}
	switch how {
	case "contiguous":
		contiguousRedisCLI(m.Node, nodes)
	case "round-robin":
		for s := range m.Node {
			m.Node[s] = s % nodes
		}
	default:
		return nil, fmt.Errorf("slot assignment %q: want contiguous, round-robin or a map file", how)
	}
	return m, nil
}

// contiguousRedisCLI assigns len(node) slots to nodes in contiguous runs
// as redis-cli's clusterManagerCommandCreate (redis-cli.c) assigns Redis
// Cluster's 16384 slots to a new cluster's masters, generalised to any
// slot count: with the float32 slots_per_node = slots/nodes and a float32
// cursor, node i ends at lround(cursor + slots_per_node - 1), the last
// node taking everything up to the last slot (16384 slots over 3 nodes:
// 0-5460, 5461-10922, 10923-16383; partition.Redis.Layout is the same for
// 16384 slots). When nodes divide slots evenly it is slot*nodes/slots.
func contiguousRedisCLI(node []int, nodes int) {
	slots := len(node)
	spn := float32(slots) / float32(nodes)
	var cursor float32
	first := 0
	for i := 0; i < nodes; i++ {
		x := float64(cursor + spn - 1)
		last := int(x + 0.5) // lround: x >= 0 here
		if last > slots-1 || i == nodes-1 {
			last = slots - 1
		}
		if last < first {
			last = first
		}
		for j := first; j <= last && j < slots; j++ {
			node[j] = i
		}
		first = last + 1
		cursor += spn
	}
}

// ReadNodes reads a slot map file: one assignment a line, "SLOT NODE" or
// "FIRST-LAST NODE" (an inclusive range, as Redis Cluster lists slots),
// fields separated by spaces, tabs or a comma; "#" starts a comment. Every
// slot 0..slots-1 must be assigned exactly once; nodes are numbered from 0
// and every node up to the largest must hold a slot. Errors name the file
// and line.
func ReadNodes(file string, slots int) (*Nodes, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := &Nodes{Node: make([]int, slots), How: file}
	for i := range m.Node {
		m.Node[i] = -1
	}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' })
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			return nil, shardkey.Errorf(file, line, "", "want SLOT NODE or FIRST-LAST NODE, got %q", strings.TrimSpace(text))
		}
		lo, hi := fields[0], fields[0]
		if a, b, ok := strings.Cut(fields[0], "-"); ok {
			lo, hi = a, b
		}
		first, err1 := strconv.Atoi(lo)
		last, err2 := strconv.Atoi(hi)
		node, err3 := strconv.Atoi(fields[1])
		switch {
		case err1 != nil || err2 != nil || first < 0 || last < first || last >= slots:
			return nil, shardkey.Errorf(file, line, "slot", "%q: want a slot or range within 0..%d", fields[0], slots-1)
		case err3 != nil || node < 0 || node >= slots:
			return nil, shardkey.Errorf(file, line, "node", "%q: want a node number 0..%d", fields[1], slots-1)
		}
		for s := first; s <= last; s++ {
			if m.Node[s] >= 0 {
				return nil, shardkey.Errorf(file, line, "slot", "slot %d assigned twice", s)
			}
			m.Node[s] = node
			m.Count = max(m.Count, node+1)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	held := make([]bool, m.Count)
	for s, n := range m.Node {
		if n < 0 {
			return nil, shardkey.Errorf(file, line, "slot", "slot %d is not assigned (every slot 0..%d needs a node)", s, slots-1)
		}
		held[n] = true
	}
	for n, ok := range held {
		if !ok {
			return nil, shardkey.Errorf(file, line, "node", "node %d holds no slot (nodes are numbered from 0 without gaps)", n)
		}
	}
	return m, nil
}

// Sum returns per-node sums of per-slot values (work, load, rows).
func (m *Nodes) Sum(perSlot []float64) []float64 {
	out := make([]float64, m.Count)
	for s, x := range perSlot {
		if s < len(m.Node) {
			out[m.Node[s]] += x
		}
	}
	return out
}

// SlotMove is one slot moved from a node to another.
type SlotMove struct {
	Slot int `json:"slot"`
	From int `json:"from"`
	To   int `json:"to"`
}

// rebalanceThreshold is redis-cli's default --cluster-threshold, in
// percent (CLUSTER_MANAGER_REBALANCE_THRESHOLD, redis-cli.c).
const rebalanceThreshold = 2

// Grow returns m over n > m.Count nodes, nodes m.Count..n-1 added empty,
// and the slot moves in the order they are made: exactly the slots
// redis-cli moves for `redis-cli --cluster add-node` of each new node then
// `redis-cli --cluster rebalance --cluster-use-empty-masters` (redis/redis
// src/redis-cli.c, clusterManagerCommandRebalance and
// clusterManagerComputeReshardTable), every node of weight 1, the default
// threshold of 2%, generalised from 16384 to len(m.Node) slots:
//
//  1. every node is expected to hold (int)((float)slots/n) slots (a C
//     float, truncated); its balance is the slots it holds minus that;
//  2. nothing moves unless a node is off by more than the threshold
//     (|100 - 100*expected/held| > 2, or an empty node expected to hold
//     more than 1 slot: always the case when growing);
//  3. truncation leaves the balances summing to more than 0: each node
//     with balance <= 0 in turn (node order) takes one more slot until
//     they sum to 0, so a new node may take more than slots/n (64 slots
//     over 4 -> 5 nodes: 16, not 12 or 13);
//  4. nodes are sorted by balance; the most negative receives from the
//     most positive min(|dst|, |src|) slots, and the cursors move on when
//     a balance reaches 0;
//  5. a source gives up the lowest-numbered slots it still holds
//     (clusterManagerComputeReshardTable scans slots 0 up).
//
// So each existing node gives up its lowest slots, not its highest: 16384
// slots over 3 nodes -> 4 moves 5461-6826 from node 1, 10923-12287 from
// node 2 and 0-1364 from node 0 (redis-cli check then shows the new
// master with slots:[0-1364],[5461-6826],[10923-12287] (4096 slots)).
// redis-cli sorts with qsort and lists the nodes in the order it loads
// them (the entry node, then CLUSTER NODES); Grow sorts stably in node
// order, so when balances tie it may pair sources with new nodes
// differently than a given redis-cli run, but every source gives up the
// same slots. Citus's rebalancer (by_shard_count) evens shard counts too
// but picks shards its own way; the moves here are redis-cli's.
func (m *Nodes) Grow(n int) (*Nodes, []SlotMove) {
	g := &Nodes{Count: n, Node: append([]int(nil), m.Node...), How: m.How}
	if n <= m.Count {
		return g, nil
	}
	held := make([]int, n)
	for _, k := range g.Node {
		held[k]++
	}
	expected := int(float32(len(g.Node)) / float32(n))
	balance := make([]int, n)
	total, reached := 0, false
	for k := range balance {
		balance[k] = held[k] - expected
		total += balance[k]
		if held[k] > 0 {
			if math.Abs(100-100.0*float64(expected)/float64(held[k])) > rebalanceThreshold {
				reached = true
			}
		} else if expected > 1 {
			reached = true
		}
	}
	if !reached {
		return g, nil
	}
	// total >= 0 (expected is truncated) and some balance is <= 0 (n
	// nodes cannot all hold more than slots/n), so this ends.
	for total > 0 {
		for k := range balance {
			if balance[k] <= 0 && total > 0 {
				balance[k]--
				total--
			}
		}
	}
	order := make([]int, n)
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(i, j int) bool { return balance[order[i]] < balance[order[j]] })
	var moves []SlotMove
	for di, si := 0, n-1; di < si; {
		dst, src := order[di], order[si]
		num := min(abs(balance[dst]), abs(balance[src]))
		for s := 0; s < len(g.Node) && num > 0 && balance[src] > 0; s++ {
			if g.Node[s] == src {
				g.Node[s] = dst
				moves = append(moves, SlotMove{Slot: s, From: src, To: dst})
				balance[dst]++
				balance[src]--
				num--
			}
		}
		if balance[dst] == 0 {
			di++
		}
		if balance[src] == 0 {
			si--
		}
		if balance[dst] != 0 && balance[src] != 0 {
			break // cannot happen with balances summing to 0; never loop
		}
	}
	return g, moves
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Growth is what one placement moves when nodes are added, measured on
// the row sample of the design's hash-keyed tables.
type Growth struct {
	// Placement: slots (the design's slots over nodes, rebalanced by
	// Nodes.Grow as redis-cli --cluster rebalance moves them), modulo (hash mod nodes), jump (jump consistent hash
	// over nodes), ring (consistent hashing, 128 virtual nodes per node),
	// ketama (libmemcached's continuum) or range split (equal-row ranges, one per node, in hash order; each
	// new node takes the upper half of the then largest range, as range
	// partitioning grows by splitting).
	Placement string `json:"placement"`
	From      int    `json:"from_nodes"`
	To        int    `json:"to_nodes"`
	// SlotsMoved and Moves: for the slots placement, which slots move.
	SlotsMoved int        `json:"slots_moved,omitempty"`
	Moves      []SlotMove `json:"slot_moves,omitempty"`
	// KeysMoved and RowsMoved are shares (0..1) of distinct keys and of
	// rows that change node; Rows the rows that move (of the sample).
	KeysMoved float64 `json:"keys_moved"`
	RowsMoved float64 `json:"rows_moved"`
	Rows      float64 `json:"rows"`
	// Bytes is Rows times the average row size (set by the caller:
	// --row-bytes or an estimate; 0 and left out when unknown).
	Bytes float64 `json:"bytes,omitempty"`
	// BalanceAfter is max/mean of rows per node after growth.
	BalanceAfter float64 `json:"balance_after"`
}

// Growth measures growth from m.Count to n nodes under the slots
// placement and, at the same growth, under modulo, jump, ring and range
// splits, over the rows of the design's hash-keyed tables (up to
// rebalanceSample evenly spaced rows per table, as Rebalance). The scheme
// must have m's slot count as its shard count. It returns nil when no
// table has a hash key with rows.
func (s *Scheme) Growth(m *Nodes, n int) []Growth {
	type pt struct {
		p    uint64
		slot int
		rows float64
	}
	var pts []pt
	total := 0.0
	for ti, tk := range s.tables {
		if tk.kind != kHash {
			continue
		}
		for _, x := range rowPoints(s.w.Tables[ti], tk) {
			pts = append(pts, pt{x.p, tk.layout.Shard(x.p), x.w})
			total += x.w
		}
	}
	if len(pts) == 0 || total == 0 {
		return nil
	}
	from := m.Count
	measure := func(name string, before, after func(i int, p pt) int) Growth {
		g := Growth{Placement: name, From: from, To: n}
		perNode := make([]float64, n)
		for i, x := range pts {
			a := after(i, x)
			perNode[a] += x.rows
			if before(i, x) != a {
				g.KeysMoved++
				g.Rows += x.rows
			}
		}
		g.KeysMoved /= float64(len(pts))
		g.RowsMoved = g.Rows / total
		g.BalanceAfter, _, _ = ratio(perNode)
		return g
	}
	grown, moves := m.Grow(n)
	sg := measure("slots", func(_ int, x pt) int { return m.Node[x.slot] }, func(_ int, x pt) int { return grown.Node[x.slot] })
	sg.SlotsMoved, sg.Moves = len(moves), moves
	out := []Growth{sg}
	m1, _ := partition.NewModulo(from)
	m2, _ := partition.NewModulo(n)
	out = append(out, measure("modulo", func(_ int, x pt) int { return m1.Shard(x.p) }, func(_ int, x pt) int { return m2.Shard(x.p) }))
	j1, j2 := partition.JumpLayout{N: from}, partition.JumpLayout{N: n}
	out = append(out, measure("jump", func(_ int, x pt) int { return j1.Shard(x.p) }, func(_ int, x pt) int { return j2.Shard(x.p) }))
	ring, _ := partition.NewRing(128)
	r1, _ := ring.Layout(from)
	r2, _ := ring.Layout(n)
	out = append(out, measure("ring (128 vnodes)", func(_ int, x pt) int { return r1.Shard(ringPoint(x.p)) }, func(_ int, x pt) int { return r2.Shard(ringPoint(x.p)) }))
	// ketama (libmemcached's continuum of weight-1 servers) over the
	// low 32 bits of the points as a ring places them (ringPoint: the
	// engine's point may span fewer bits), as ketama hashes keys to 32
	// bits.
	k1, err1 := partition.Ketama{}.Layout(from)
	k2, err2 := partition.Ketama{}.Layout(n)
	if err1 == nil && err2 == nil {
		out = append(out, measure("ketama", func(_ int, x pt) int { return k1.Shard(ringPoint(x.p)) }, func(_ int, x pt) int { return k2.Shard(ringPoint(x.p)) }))
	}
	// Range splits, in hash order (the points are sorted within each
	// table; sort them all).
	sort.Slice(pts, func(i, j int) bool { return pts[i].p < pts[j].p })
	before := make([]int, len(pts))
	cum := 0.0
	for i, x := range pts {
		before[i] = min(int(cum/total*float64(from)), from-1)
		cum += x.rows
	}
	after := append([]int(nil), before...)
	for k := from; k < n; k++ {
		// The largest range by rows; it keeps its lower half.
		rows := make([]float64, k)
		for i, x := range pts {
			rows[after[i]] += x.rows
		}
		big := 0
		for j := range rows {
			if rows[j] > rows[big] {
				big = j
			}
		}
		half, acc := rows[big]/2, 0.0
		for i, x := range pts {
			if after[i] != big {
				continue
			}
			if acc >= half {
				after[i] = k
			}
			acc += x.rows
		}
	}
	out = append(out, measure("range split", func(i int, _ pt) int { return before[i] }, func(i int, _ pt) int { return after[i] }))
	return out
}

// NodesReport is a design's slots over nodes in a report: per-node work
// and load beside per-slot (the Candidate's shard_work and shard_load),
// and what growing to more nodes moves.
type NodesReport struct {
	Slots      int    `json:"slots"`
	Nodes      int    `json:"nodes"`
	Assignment string `json:"assignment"` // contiguous, round-robin or the map file
	// NodeSlots[k] is the number of slots node k holds.
	NodeSlots []int `json:"node_slots"`
	// NodeWork is units of work/s per node: its slots' work summed, but
	// with a request that names no key costing one unit per node under an
	// engine that sends it once per node (ScatterPer "node": redis; see
	// ScatterPerNode), one per slot otherwise ("slot").
	NodeWork      []float64 `json:"node_work"`
	ScatterPer    string    `json:"scatter_per"`
	NodeWorkRatio float64   `json:"node_work_ratio"`
	NodeLoad      []float64 `json:"node_load"` // row weight per node
	NodeLoadRatio float64   `json:"node_load_ratio"`
	// LoadKnown is false when the input has no row weights (a log, a
	// spec without rows): node_load and node_load_ratio are then null in
	// JSON, not zeros that would read as empty nodes.
	LoadKnown bool `json:"-"`
	// Capacity is the work one node can do (units/s; 0: not given) and
	// OverCapacity the nodes whose work (their slots' summed) exceeds it.
	Capacity     float64  `json:"capacity"`
	OverCapacity []int    `json:"over_capacity"`
	Growth       []Growth `json:"growth"`
}

// NodesReport returns c's per-node figures under m and growth to n nodes.
// The scheme must have m's slot count as its shard count.
func (s *Scheme) NodesReport(c *Candidate, m *Nodes, n int) *NodesReport {
	r := &NodesReport{Slots: len(m.Node), Nodes: m.Count, Assignment: m.How, NodeSlots: make([]int, m.Count)}
	for _, k := range m.Node {
		r.NodeSlots[k]++
	}
	r.NodeWork = c.NodeWork(m)
	r.ScatterPer = "slot"
	if ScatterPerNode(c.Engine) {
		r.ScatterPer = "node"
	}
	r.NodeWorkRatio, _, _ = ratio(r.NodeWork)
	r.NodeLoad = m.Sum(c.ShardLoad)
	r.NodeLoadRatio, _, _ = ratio(r.NodeLoad)
	r.LoadKnown = c.LoadKnown()
	r.Capacity, r.OverCapacity = c.Capacity, overCapacity(r.NodeWork, c.Capacity)
	r.Growth = s.Growth(m, n)
	if r.Growth == nil {
		r.Growth = []Growth{}
	}
	return r
}

// ringPoint returns the point a 64-bit consistent-hash ring ("ring (128
// vnodes)" in the growth comparisons) places engine point p at:
// MurmurHash3's 64-bit finaliser fmix64 (Appleby's smhasher,
// MurmurHash3.cpp; as Cassandra's Murmur3Partitioner ends its token).
// Engines' points are not all spread over 64 bits (a Redis slot is 14
// bits, Citus's and Kafka's hashes 32): fed raw into a ring of 64-bit
// tokens they all fall between the same two tokens, on one node, and
// growth moves nothing. A real ring hashes the key with its own 64-bit
// hash; fmix64 is a bijection, so keys with one engine point (one Redis
// slot) stay together and distinct points stay distinct, spread evenly.
func ringPoint(p uint64) uint64 {
	p ^= p >> 33
	p *= 0xff51afd7ed558ccd
	p ^= p >> 33
	p *= 0xc4ceb9fe1a85ec53
	p ^= p >> 33
	return p
}

// MarshalJSON writes r with node_load and node_load_ratio null when the
// row load is unknown (LoadKnown false), capacity and over_capacity null
// when no capacity was given (Capacity 0).
func (r NodesReport) MarshalJSON() ([]byte, error) {
	type plain NodesReport
	b, err := marshalNoEscape(plain(r))
	if err != nil {
		return nil, err
	}
	null := jsonnull.Unless(r.LoadKnown, "node_load", "node_load_ratio")
	null = append(null, jsonnull.Unless(r.Capacity > 0, "capacity", "over_capacity")...)
	return jsonnull.Null(b, null...)
}

// ScatterCaveat returns the line that states how a scatter's work is
// counted when slots are placed on far fewer nodes (slots >= 4 x nodes),
// "" otherwise or when scatter is false (no operation asks more than one
// slot). Per-slot figures (shard work) count one unit per slot a request
// asks; fan-out counts slots too, but nodes under redis (see
// Candidate.FanoutPer). Per-node figures (node work, capacity per node) follow
// what the engine's system does (ScatterPerNode):
//   - redis: a command that names no key goes once to each master
//     (command tip request_policy:all_shards), so it costs one unit per
//     node; a multi-key command across slots is split by the client, one
//     command per slot even on one node (request_policy:multi_shard), so
//     it costs one unit per slot;
//   - citus: a multi-shard query runs one task per shard placement (the
//     adaptive executor, src/backend/distributed/executor/
//     adaptive_executor.c; Citus docs, "Distributed Query Executor"), so
//     one unit per shard is the model;
//   - vitess: a scatter query is sent to every shard (one query per
//     shard's primary tablet);
//   - elasticsearch: a search runs on one copy of every shard of the
//     index (Elasticsearch reference, "Search shard routing"): per shard;
//   - any other engine: the model is stated, and the per-node bound given.
func ScatterCaveat(engine string, slots, nodes int, scatter bool) string {
	if !scatter || nodes < 1 || slots < 4*nodes {
		return ""
	}
	if ScatterPerNode(engine) {
		return fmt.Sprintf("Work is counted on the nodes (work/s, the busiest node, the ratio to the mean node): a command that names no key costs one unit per node, as Redis Cluster sends it to each master (command tip request_policy:all_shards), %d units, not %d (one per slot). A multi-key command whose keys hash to several slots costs one unit per slot: the client must split it by slot even when one node holds them (request_policy:multi_shard). Fan-out (mean, p99) counts the nodes a request touches: %d for a command that names no key.", nodes, slots, nodes)
	}
	model := fmt.Sprintf("Scatter work is counted one unit per slot asked: a request asking every slot costs %d units here, summed into the %d nodes.", slots, nodes)
	switch engine {
	case "citus":
		return model + " Citus runs a multi-shard query as one task per shard placement (adaptive executor), so that is its cost."
	case "vitess":
		return model + " Vitess sends a scatter query to every shard's primary tablet, one query per shard, so that is its cost."
	case "elasticsearch":
		return model + " Elasticsearch runs a search on one copy of every shard, so that is its cost."
	}
	return model + fmt.Sprintf(" A system that sends a scatter once per node (as Redis Cluster does to each master) does %d units for it, up to %dx less; one that runs a task per shard (Citus, Vitess) does what is counted.", nodes, slots/nodes)
}
