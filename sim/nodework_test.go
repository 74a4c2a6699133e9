package sim

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// nodeWorkload is a table "kv" keyed by a text column k with three
// operations, each at rate 1:
//   - "scan" names no key (k unbound): a keyless command (SCAN, KEYS);
//   - "mget" reads k IN ('a', 'foo'): slots 15495 and 12182 (CRC16/XMODEM
//     of "a" is 0x7C87 = 31879, & 16383 = 15495; of "foo" 44950 & 16383 =
//     12182, the slot redis/redis tests/unit/moduleapi/misc.tcl asserts);
//   - "tagged" reads k IN ('{u1}x', '{u1}y'): one hash tag, one slot.
func nodeWorkload(t *testing.T) *shardkey.Workload {
	t.Helper()
	tb := &shardkey.Table{Name: "kv", Columns: []*shardkey.Column{
		{Name: "k", Type: shardkey.Text}, {Name: "v", Type: shardkey.Int64},
	}}
	txt := func(s string) shardkey.Value { return shardkey.Value{Type: shardkey.Text, Str: s} }
	in := func(vs ...string) []shardkey.Cond {
		c := shardkey.Cond{Col: 0, Op: shardkey.In}
		for _, v := range vs {
			c.List = append(c.List, txt(v))
		}
		return []shardkey.Cond{c}
	}
	w := &shardkey.Workload{Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{
		{Name: "scan", Table: 0, Kind: shardkey.Read, Rate: 1, Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{{Col: 1, Op: shardkey.Eq, Val: shardkey.IntValue(3)}}}}},
		{Name: "mget", Table: 0, Kind: shardkey.Read, Rate: 1, Instances: []shardkey.Instance{{Weight: 1, Conds: in("a", "foo")}}},
		{Name: "tagged", Table: 0, Kind: shardkey.Read, Rate: 1, Instances: []shardkey.Instance{{Weight: 1, Conds: in("{u1}x", "{u1}y")}}},
	}}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

func scoreNodes(t *testing.T, w *shardkey.Workload, engine string, slots int, m *Nodes) *Candidate {
	t.Helper()
	eng, err := partition.Lookup(engine)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Score(w, "hash(k)", Options{Shards: slots, Engine: eng, Nodes: m})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestNodeWorkRedis: 16384 slots over 3 nodes in the contiguous
// assignment (redis-cli's cluster create: node 0 0..5460, node 1
// 5461..10922, node 2 10923..16383). Redis Cluster sends a keyless
// command once to each master (command tip request_policy:all_shards):
// the scan costs 1 unit on each node, 3 in all, not 5462 + 5461 + 5461.
// MGET a foo asks slots 15495 and 12182, both on node 2: the client
// splits it by slot even on one node (request_policy:multi_shard), so 2
// units on node 2. The tagged pair hashes "u1" alone: CRC16/XMODEM
// 0x51DE = 20958, & 16383 = 4574, on node 0: 1 unit. Node work: 1 + 1,
// 1, 1 + 2. Fan-out counts the nodes each touches: the scan 3, mget 1
// (both slots on node 2), tagged 1; mean (3 + 1 + 1) / 3 at equal rates,
// p99 3 (of 3 instances: the smallest fan-out reaching 99% of the rate).
func TestNodeWorkRedis(t *testing.T) {
	m, err := NewNodes(16384, 3, "contiguous")
	if err != nil {
		t.Fatal(err)
	}
	if m.Node[12182] != 2 || m.Node[15495] != 2 || m.Node[5460] != 0 || m.Node[5461] != 1 {
		t.Fatalf("contiguous 16384 over 3: slot 12182 on %d, 15495 on %d", m.Node[12182], m.Node[15495])
	}
	w := nodeWorkload(t)
	c := scoreNodes(t, w, "redis", 16384, m)
	// Per slot: the scan asks every slot, mget 2, tagged 1.
	if c.Operations[0].SlotFanoutMean() != 16384 || c.Operations[1].SlotFanoutMean() != 2 || c.Operations[2].SlotFanoutMean() != 1 {
		t.Errorf("per slot: fan-outs %v %v %v", c.Operations[0].SlotFanoutMean(), c.Operations[1].SlotFanoutMean(), c.Operations[2].SlotFanoutMean())
	}
	// Work is the nodes': 3 + 2 + 1 units/s (not 16384 + 2 + 1), node
	// work 2, 1, 3: busiest 3 over mean 2 = 1.5x.
	if c.WorkPer != "node" || !near(c.WorkPerS, 6) || !near(c.MaxShardWork, 3) || !near(c.MeanShardWork, 2) || !near(c.WorkRatio, 1.5) {
		t.Errorf("work per %q: %v/s, busiest %v, mean %v, ratio %v; want node, 6, 3, 2, 1.5", c.WorkPer, c.WorkPerS, c.MaxShardWork, c.MeanShardWork, c.WorkRatio)
	}
	if ops := c.Operations; !near(ops[0].WorkPerS, 3) || !near(ops[1].WorkPerS, 2) || !near(ops[2].WorkPerS, 1) {
		t.Errorf("operations' work %v %v %v; want 3 2 1", ops[0].WorkPerS, ops[1].WorkPerS, ops[2].WorkPerS)
	}
	// Per node: 3, 1, 1.
	if c.FanoutPer != "node" || c.FanoutUnit() != "nodes" || c.Operations[0].FanoutMean != 3 || c.Operations[0].FanoutP99 != 3 || c.Operations[1].FanoutMean != 1 || c.Operations[2].FanoutMean != 1 {
		t.Errorf("per node (%q): fan-outs %v (p99 %v) %v %v; want 3 (3) 1 1", c.FanoutPer, c.Operations[0].FanoutMean, c.Operations[0].FanoutP99, c.Operations[1].FanoutMean, c.Operations[2].FanoutMean)
	}
	if !near(c.FanoutMean, 5.0/3) || c.FanoutP99 != 3 {
		t.Errorf("fan-out mean %v p99 %v; want 5/3, 3", c.FanoutMean, c.FanoutP99)
	}
	if b, _ := c.MarshalJSON(); !strings.Contains(string(b), `"fanout_per":"node"`) {
		t.Errorf("JSON has no fanout_per node: %.300s", b)
	}
	want := []float64{1 + 1, 1, 1 + 2}
	got := c.CapacityWork()
	for k := range want {
		if !near(got[k], want[k]) {
			t.Errorf("node work %v; want %v", got, want)
			break
		}
	}
	s, _ := Compile(w, mustDesign(t, "hash(k)"), Options{Shards: 16384, Engine: partition.Redis{}})
	r := s.NodesReport(c, m, 4)
	if r.ScatterPer != "node" || !near(r.NodeWork[0], want[0]) || !near(r.NodeWork[2], want[2]) {
		t.Errorf("nodes report: scatter per %q, node work %v; want node, %v", r.ScatterPer, r.NodeWork, want)
	}
	if x := c.Operations[0].NodeWorkPerS; x == nil || !near(*x, 3) {
		t.Errorf("scan's node work %v; want 3 (one unit per node)", x)
	}
	if x := c.Operations[1].NodeWorkPerS; x == nil || !near(*x, 2) {
		t.Errorf("mget's node work %v; want 2 (one command per slot)", x)
	}
	// Capacity 2.5 units/s per node: node 2 (3) is over it; counted per
	// slot every node would be (5461 units and more).
	w.Capacity = 2.5
	c = scoreNodes(t, w, "redis", 16384, m)
	if !equalInts(c.OverCapacity, []int{2}) {
		t.Errorf("over capacity %v; want [2]", c.OverCapacity)
	}
	// Scored without nodes, then placed on them (score --slots --nodes):
	// the same node work.
	c = scoreNodes(t, w, "redis", 16384, nil).OnNodes(m)
	if got := c.CapacityWork(); !near(got[0], want[0]) || !near(got[1], want[1]) || !near(got[2], want[2]) {
		t.Errorf("OnNodes: node work %v; want %v", got, want)
	}
	if x := c.Operations[0].NodeWorkPerS; x == nil || !near(*x, 3) {
		t.Errorf("OnNodes: scan's node work %v; want 3", x)
	}
	if c.WorkPer != "node" || !near(c.WorkPerS, 6) || !near(c.WorkRatio, 1.5) || !near(c.Operations[0].WorkPerS, 3) {
		t.Errorf("OnNodes: work per %q %v/s ratio %v, scan %v/s; want node, 6, 1.5, 3", c.WorkPer, c.WorkPerS, c.WorkRatio, c.Operations[0].WorkPerS)
	}
	// Placed twice (the advisor's capacity search re-places a score):
	// the same figures, not the node subtraction applied again.
	c = c.OnNodes(m)
	if !near(c.WorkPerS, 6) || !near(c.Operations[0].WorkPerS, 3) {
		t.Errorf("OnNodes twice: work %v/s, scan %v/s; want 6, 3", c.WorkPerS, c.Operations[0].WorkPerS)
	}
	if l := ScatterCaveat("redis", 16384, 3, true); !strings.Contains(l, "3 units, not 16384") {
		t.Errorf("caveat %q", l)
	}
}

// TestNodeWorkPerSlot: Citus runs a multi-shard query as one task per
// shard placement, so with 32 shards round-robin over 4 workers the scan
// costs 8 units on each worker (its 8 shards), as the per-slot sum.
func TestNodeWorkPerSlot(t *testing.T) {
	m, err := NewNodes(32, 4, "round-robin")
	if err != nil {
		t.Fatal(err)
	}
	w := nodeWorkload(t)
	w.Ops = w.Ops[:1]
	c := scoreNodes(t, w, "citus", 32, m)
	for k, x := range c.CapacityWork() {
		if !near(x, 8) {
			t.Errorf("citus node %d: work %v; want 8", k, x)
		}
	}
	if c.Operations[0].NodeWorkPerS != nil {
		t.Errorf("citus: node_work_per_s %v; want none (work_per_s is the nodes')", *c.Operations[0].NodeWorkPerS)
	}
}

// TestNodeWorkKeyedScatter: a keyed request whose key tuples are too
// many to route one by one (IN lists of 65 x 65 = 4,225 tuples > 4,096
// on a two-column key) is counted at every slot; it names keys, which
// Redis Cluster's client splits by slot, so it is no keyless scatter and
// stays one unit per slot on the nodes: 16 slots over 2 nodes, 8 units
// a node.
func TestNodeWorkKeyedScatter(t *testing.T) {
	tb := &shardkey.Table{Name: "kv", Columns: []*shardkey.Column{
		{Name: "a", Type: shardkey.Int64}, {Name: "b", Type: shardkey.Int64},
	}}
	ca, cb := shardkey.Cond{Col: 0, Op: shardkey.In}, shardkey.Cond{Col: 1, Op: shardkey.In}
	for i := range 65 {
		ca.List = append(ca.List, shardkey.IntValue(int64(i)))
		cb.List = append(cb.List, shardkey.IntValue(int64(i)))
	}
	w := &shardkey.Workload{Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{
		{Name: "mget", Table: 0, Kind: shardkey.Read, Rate: 1, Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{ca, cb}}}},
	}}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	m, _ := NewNodes(16, 2, "contiguous")
	c, err := Score(w, "hash(a, b)", Options{Shards: 16, Engine: partition.Redis{}, Nodes: m})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.CapacityWork(); len(got) != 2 || !near(got[0], 8) || !near(got[1], 8) {
		t.Errorf("node work %v; want [8 8]", got)
	}
	if x := c.Operations[0].NodeWorkPerS; x == nil || !near(*x, 16) {
		t.Errorf("node_work_per_s %v; want 16", x)
	}
	// It asks every slot, so both nodes.
	if c.Operations[0].FanoutMean != 2 || c.Operations[0].SlotFanoutMean() != 16 {
		t.Errorf("fan-out %v nodes, %v slots; want 2, 16", c.Operations[0].FanoutMean, c.Operations[0].SlotFanoutMean())
	}
}

// TestNodeFanoutNotRedis: an engine whose router asks every shard
// (Citus: one task per shard placement) keeps fan-out in shards, even
// with its shards on nodes: the scan asks 32 shards; no fanout_per.
func TestNodeFanoutNotRedis(t *testing.T) {
	m, _ := NewNodes(32, 4, "round-robin")
	w := nodeWorkload(t)
	w.Ops = w.Ops[:1]
	c := scoreNodes(t, w, "citus", 32, m)
	if c.FanoutPer != "" || c.FanoutUnit() != "shards" || c.Operations[0].FanoutMean != 32 {
		t.Errorf("citus: fan-out %v per %q; want 32 shards", c.Operations[0].FanoutMean, c.FanoutPer)
	}
}

// TestNewNodesRedisCLI: contiguous slots over nodes are redis-cli's
// cluster create layout: 16384 slots over 3 masters 0-5460, 5461-10922,
// 10923-16383 (redis-cli.c clusterManagerCommandCreate; the ranges
// `redis-cli --cluster create` prints), and the same table as
// partition.Redis's Layout for any master count; 64 slots over 4 nodes
// 16 each.
func TestNewNodesRedisCLI(t *testing.T) {
	m, err := NewNodes(16384, 3, "contiguous")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]int{{0, 0}, {5460, 0}, {5461, 1}, {10922, 1}, {10923, 2}, {16383, 2}} {
		if m.Node[c[0]] != c[1] {
			t.Errorf("slot %d on node %d; want %d", c[0], m.Node[c[0]], c[1])
		}
	}
	for _, n := range []int{1, 2, 3, 5, 7, 10, 16, 100, 1000, 16384} {
		m, err := NewNodes(16384, n, "contiguous")
		if err != nil {
			t.Fatal(err)
		}
		l, err := partition.Redis{}.Layout(n)
		if err != nil {
			t.Fatal(err)
		}
		rl := l.(*partition.RedisLayout)
		for s := 0; s < 16384; s++ {
			if got, want := m.Node[s], rl.Shard(uint64(s)); got != want {
				t.Fatalf("%d masters: slot %d on node %d; redis-cli's layout %d", n, s, got, want)
			}
		}
	}
	m, _ = NewNodes(64, 4, "contiguous")
	for s := range 64 {
		if m.Node[s] != s/16 {
			t.Fatalf("64 slots over 4 nodes: slot %d on node %d; want %d", s, m.Node[s], s/16)
		}
	}
}

// TestRangeScanRedisNodes: a range over a hash-slotted key (k >= 'a' and
// k < 'b') names no key Redis can route by: the client scans every
// master, 1 unit on each of 3 nodes = 3 units/s at rate 1, not 16384;
// busiest node 1 over mean 1 = 1x. Without nodes the 16384 slots are
// the shards: 16384 units, ratio 1x.
func TestRangeScanRedisNodes(t *testing.T) {
	tb := &shardkey.Table{Name: "kv", Columns: []*shardkey.Column{{Name: "k", Type: shardkey.Text}}}
	rg := shardkey.Cond{Col: 0, Op: shardkey.Range, Bounds: &shardkey.Bounds{Lo: shardkey.Value{Type: shardkey.Text, Str: "a"}, Hi: shardkey.Value{Type: shardkey.Text, Str: "b"}, HasLo: true, HasHi: true, LoIncl: true}}
	w := &shardkey.Workload{Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{
		{Name: "range", Table: 0, Kind: shardkey.Read, Rate: 1, Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{rg}}}},
	}}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	m, _ := NewNodes(16384, 3, "contiguous")
	c := scoreNodes(t, w, "redis", 16384, m)
	if !near(c.WorkPerS, 3) || !near(c.Operations[0].WorkPerS, 3) || !near(c.WorkRatio, 1) || !near(c.MaxShardWork, 1) || c.WorkPer != "node" {
		t.Errorf("range on 16384 slots over 3 nodes: work %v/s (op %v), busiest %v, ratio %v, per %q; want 3, 3, 1, 1, node", c.WorkPerS, c.Operations[0].WorkPerS, c.MaxShardWork, c.WorkRatio, c.WorkPer)
	}
	c = scoreNodes(t, w, "redis", 16384, nil)
	if !near(c.WorkPerS, 16384) || c.WorkPer != "" {
		t.Errorf("range on 16384 shards: work %v/s per %q; want 16384 per shard", c.WorkPerS, c.WorkPer)
	}
}

// TestReplicateRefusedRedis: Redis Cluster has no reference tables (a key
// lives in one slot on one master), so a design naming replicate is
// refused under redis, with the table named; other engines accept it.
func TestReplicateRefusedRedis(t *testing.T) {
	w := nodeWorkload(t)
	_, err := Score(w, "kv:replicate", Options{Shards: 16, Engine: partition.Redis{}})
	if err == nil || !strings.Contains(err.Error(), "table kv: replicate: Redis Cluster has no reference tables") {
		t.Errorf("redis replicate: err %v; want the refusal", err)
	}
	if _, err := Score(w, "kv:replicate", Options{Shards: 16, Engine: partition.Generic{}}); err != nil {
		t.Errorf("generic replicate: %v", err)
	}
}
