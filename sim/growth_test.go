package sim

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// TestNodes: contiguous and round-robin assignments, growth by slot count
// and per-node sums, against hand-worked layouts.
func TestNodes(t *testing.T) {
	// Contiguous as redis-cli splits slots: 8/3 = 2.67 a node, node 0 ends
	// at lround(1.67) = 2, node 1 at lround(4.33) = 4, node 2 takes the rest.
	c, _ := NewNodes(8, 3, "contiguous")
	if got := c.Node; !equalInts(got, []int{0, 0, 0, 1, 1, 2, 2, 2}) {
		t.Errorf("contiguous 8 over 3: %v", got)
	}
	r, _ := NewNodes(8, 3, "round-robin")
	if got := r.Node; !equalInts(got, []int{0, 1, 2, 0, 1, 2, 0, 1}) {
		t.Errorf("round-robin 8 over 3: %v", got)
	}
	if got := c.Sum([]float64{1, 2, 3, 4, 5, 6, 7, 8}); !equalFloats(got, []float64{6, 9, 21}) {
		t.Errorf("contiguous sums: %v", got)
	}
	// 8 slots, 3 -> 4 nodes as redis-cli rebalances: expected (int)(8/4)
	// = 2 a node, balances 1, 0, 1, -2; sorted (stably) 3, 1, 0, 2: node
	// 3 takes 1 slot from node 2 (its lowest, 5), then 1 from node 0 (0).
	g, moves := c.Grow(4)
	if len(moves) != 2 || moves[0] != (SlotMove{Slot: 5, From: 2, To: 3}) || moves[1] != (SlotMove{Slot: 0, From: 0, To: 3}) {
		t.Errorf("grow 3 -> 4: moves %v", moves)
	}
	if !equalInts(g.Node, []int{3, 0, 0, 1, 1, 3, 2, 2}) {
		t.Errorf("grow 3 -> 4: %v", g.Node)
	}
	if _, err := NewNodes(4, 5, "contiguous"); err == nil {
		t.Error("5 nodes for 4 slots: no error")
	}
}

// TestGrowRedisCLI: Redis Cluster's 16384 slots grown as redis-cli
// --cluster rebalance --cluster-use-empty-masters moves them
// (redis-cli.c: clusterManagerCommandRebalance,
// clusterManagerComputeReshardTable), worked by hand.
func TestGrowRedisCLI(t *testing.T) {
	type run struct{ first, last, from, to int }
	check := func(name string, m *Nodes, n int, want []run, counts []int) {
		t.Helper()
		g, moves := m.Grow(n)
		var got []run
		for _, mv := range moves {
			if k := len(got) - 1; k >= 0 && got[k].last+1 == mv.Slot && got[k].from == mv.From && got[k].to == mv.To {
				got[k].last = mv.Slot
				continue
			}
			got = append(got, run{mv.Slot, mv.Slot, mv.From, mv.To})
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: moves %v; want %v", name, got, want)
		}
		held := make([]int, g.Count)
		for _, k := range g.Node {
			held[k]++
		}
		if !equalInts(held, counts) {
			t.Errorf("%s: slots per node %v; want %v", name, held, counts)
		}
	}
	m, _ := NewNodes(16384, 3, "contiguous") // 0-5460, 5461-10922, 10923-16383
	// 3 -> 4: expected (int)(16384/4) = 4096; balances 1365, 1366, 1365,
	// -4096 (sum 0); sorted 3, 0, 2, 1: node 3 takes node 1's lowest 1366
	// slots, then node 2's lowest 1365, then node 0's lowest 1365. The
	// new master ends with [0-1364],[5461-6826],[10923-12287], 4096 slots.
	check("3 -> 4", m, 4, []run{{5461, 6826, 1, 3}, {10923, 12287, 2, 3}, {0, 1364, 0, 3}}, []int{4096, 4096, 4096, 4096})
	// 3 -> 5: expected (int)(16384/5 = 3276.8) = 3276; balances 2185,
	// 2186, 2185, -3276, -3276 sum to 4: nodes 3 and 4 each take 2 more
	// (-3278 each). Sorted 3, 4, 0, 2, 1: node 3 takes node 1's 2186
	// (5461-7646) and 1092 of node 2's (10923-12014); node 4 the rest of
	// node 2's 2185 (1093: 12015-13107) and node 0's 2185 (0-2184).
	check("3 -> 5", m, 5, []run{{5461, 7646, 1, 3}, {10923, 12014, 2, 3}, {12015, 13107, 2, 4}, {0, 2184, 0, 4}}, []int{3276, 3276, 3276, 3278, 3278})
	// Growing to no more nodes moves nothing.
	if _, moves := m.Grow(3); len(moves) != 0 {
		t.Errorf("3 -> 3: %d moves", len(moves))
	}
}

func TestReadNodes(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "map.txt")
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	m, err := ReadNodes(write("# slots\n0-3 1\n4,0\n5 0 # last\n"), 6)
	if err != nil || !equalInts(m.Node, []int{1, 1, 1, 1, 0, 0}) || m.Count != 2 {
		t.Errorf("map: %v %v", m, err)
	}
	for _, c := range []struct{ text, want string }{
		{"0-3 1\n4 0\n", "map.txt:2: slot: slot 5 is not assigned"},
		{"0-5 1\n", "node 0 holds no slot"},
		{"0-5 0\n3 1\n", "map.txt:2: slot: slot 3 assigned twice"},
		{"0-9 0\n", "map.txt:1: slot: \"0-9\": want a slot or range within 0..5"},
		{"0 1 2\n", "map.txt:1: want SLOT NODE"},
	} {
		if _, err := ReadNodes(write(c.text), 6); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want %q", c.text, err, c.want)
		}
	}
}

// TestGrowthClosedForm: 100,000 uniformly hashed keys, one row each, in
// 64 slots over 4 nodes, growing to 5. Closed forms: modulo moves
// N/(N+1) = 4/5 of keys (p mod 4 = p mod 5 for 4 of every 20 residues);
// jump 1/(N+1) = 1/5; a ring with 128 virtual nodes and ketama about 1/5; slots, as
// redis-cli rebalances: every node is expected to hold (int)(64/5) = 12,
// the balances 4,4,4,4,-12 sum to 4, so the new node's becomes -16: it
// takes 4 slots from each node, 16/64 = 0.25 of the keys, and ends with
// 16 against 12 each: balance 16/12.8 = 1.25; a range split moves
// half of one of 4 equal ranges, 1/8, and leaves max/mean 25%/20% = 1.25.
func TestGrowthClosedForm(t *testing.T) {
	w := workload(100000, func(int) float64 { return 1 })
	d, _ := shardkey.ParseDesign("hash(id)")
	s, err := Compile(w, d, Options{Shards: 64})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := NewNodes(64, 4, "contiguous")
	got := map[string]Growth{}
	for _, g := range s.Growth(m, 5) {
		got[g.Placement] = g
	}
	// Binomial sampling error with 100,000 keys: sd < 0.0013.
	for _, c := range []struct {
		placement   string
		moved, tol  float64
		balance, bt float64
	}{
		{"slots", 16.0 / 64, 0.007, 16 / 12.8, 0.03},
		{"modulo", 4.0 / 5, 0.007, 1, 0.03},
		{"jump", 1.0 / 5, 0.007, 1, 0.03},
		{"ring (128 vnodes)", 1.0 / 5, 0.05, 1, 0.25},
		{"ketama", 1.0 / 5, 0.05, 1, 0.25},
		{"range split", 1.0 / 8, 0.001, 1.25, 0.001},
	} {
		g, ok := got[c.placement]
		if !ok {
			t.Errorf("no %s entry", c.placement)
			continue
		}
		if math.Abs(g.KeysMoved-c.moved) > c.tol || math.Abs(g.RowsMoved-c.moved) > c.tol {
			t.Errorf("%s: keys %.4f rows %.4f moved; want %.4f", c.placement, g.KeysMoved, g.RowsMoved, c.moved)
		}
		if math.Abs(g.BalanceAfter-c.balance) > c.bt {
			t.Errorf("%s: balance after %.4f; want %.4f", c.placement, g.BalanceAfter, c.balance)
		}
	}
	for _, g := range got {
		t.Logf("%s: keys %.4f rows %.4f balance %.4f", g.Placement, g.KeysMoved, g.RowsMoved, g.BalanceAfter)
	}
	if g := got["slots"]; g.SlotsMoved != 16 || len(g.Moves) != 16 || math.Abs(g.Rows-g.RowsMoved*100000) > 1e-6 {
		t.Errorf("slots: %d slots moved (%d moves), %v rows; want 16", g.SlotsMoved, len(g.Moves), g.Rows)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestOnNodes: a node's capacity is judged on its slots' summed work.
// Slots doing 100, 200, 100 and 50 units/s, capacity 250: no slot is over
// it; contiguous on 2 nodes (slots 0-1, 2-3) node 0 does 300 (over) and
// node 1 150; round-robin (slots 0 and 2, 1 and 3) 200 and 250, the
// second exactly at capacity, which is not over it.
func TestOnNodes(t *testing.T) {
	c := &Candidate{Shards: 4, ShardWork: []float64{100, 200, 100, 50}, Capacity: 250}
	c.OverCapacity = overCapacity(c.CapacityWork(), c.Capacity)
	if len(c.OverCapacity) != 0 || c.CapacityUnits() != 4 {
		t.Fatalf("per slot: over %v of %d; want none of 4", c.OverCapacity, c.CapacityUnits())
	}
	for how, want := range map[string]string{"contiguous": "[0]", "round-robin": "[]"} {
		m, err := NewNodes(4, 2, how)
		if err != nil {
			t.Fatal(err)
		}
		n := c.OnNodes(m)
		if got := fmt.Sprint(n.OverCapacity); got != want || n.CapacityPer != "node" || n.CapacityUnits() != 2 {
			t.Errorf("%s: over %s (per %q, of %d); want %s per node of 2", how, got, n.CapacityPer, n.CapacityUnits(), want)
		}
		// The capacity stays a node's when recomputed for another.
		if got := fmt.Sprint(n.WithCapacity(150).OverCapacity); got != map[string]string{"contiguous": "[0]", "round-robin": "[0 1]"}[how] {
			t.Errorf("%s: at capacity 150, over %s", how, got)
		}
	}
	if len(c.OverCapacity) != 0 {
		t.Errorf("OnNodes changed its receiver: %v", c.OverCapacity)
	}
}

// TestGrowMatchesRedisEngine: on Redis Cluster's 16384 slots, Nodes.Grow
// from the contiguous placement moves every slot to the master
// partition.Redis.Grow (the engine's own growth, the same redis-cli
// rebalance) gives it, adding one or two masters.
func TestGrowMatchesRedisEngine(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 7} {
		m, err := NewNodes(16384, n, "contiguous")
		if err != nil {
			t.Fatal(err)
		}
		l, err := partition.Redis{}.Layout(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, to := range []int{n + 1, n + 2} {
			g, _ := m.Grow(to)
			l2, err := partition.Redis{}.Grow(l, to)
			if err != nil {
				t.Fatal(err)
			}
			for s := 0; s < 16384; s++ {
				if g.Node[s] != l2.Shard(uint64(s)) {
					t.Errorf("%d -> %d: slot %d on node %d; the redis engine's growth puts it on %d", n, to, s, g.Node[s], l2.Shard(uint64(s)))
					break
				}
			}
		}
	}
}
