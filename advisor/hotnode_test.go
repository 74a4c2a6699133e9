package advisor_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
)

// crc16 is CRC-16/XMODEM (poly 0x1021, init 0, no reflection), the
// checksum Redis Cluster's slot is taken from (src/crc16.c; slot =
// crc16(key) & 16383), written here from its definition, not from
// package partition's table.
func crc16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc ^= uint16(c) << 8
		for i := 0; i < 8; i++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// redisNode is the master of key's slot among nodes masters holding
// 16384 slots in the contiguous runs redis-cli --cluster create gives 3
// masters (0-5460, 5461-10922, 10923-16383) and 4 (4096 each).
func redisNode(key string, nodes int) int {
	slot := int(crc16([]byte(key)) & 16383)
	switch nodes {
	case 3:
		switch {
		case slot <= 5460:
			return 0
		case slot <= 10922:
			return 1
		}
		return 2
	case 4:
		return slot / 4096
	}
	panic("nodes")
}

// cartsOn builds a table of integer cart ids (a client sends an integer
// key as its decimal text) with perNode[k] ids on node k of nodes, the
// first of node 0 weighing whale (1 for none) and every other 1, read by
// equality at one request/s per unit of weight.
func cartsOn(t *testing.T, nodes int, perNode []int, whale float64) *shardkey.Workload {
	t.Helper()
	tb := &shardkey.Table{Name: "carts", Columns: []*shardkey.Column{{Name: "cart_id", Type: shardkey.Int64}}}
	var reads []shardkey.Instance
	left := append([]int(nil), perNode...)
	for id := int64(1); ; id++ {
		k := redisNode(strconv.FormatInt(id, 10), nodes)
		if left[k] == 0 {
			done := true
			for _, x := range left {
				done = done && x == 0
			}
			if done {
				break
			}
			continue
		}
		wt := 1.0
		if k == 0 && left[0] == perNode[0] {
			wt = whale
		}
		left[k]--
		tb.Columns[0].Ints = append(tb.Columns[0].Ints, id)
		tb.Weights = append(tb.Weights, wt)
		tb.Rows++
		reads = append(reads, shardkey.Instance{Weight: wt, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.Value{Type: shardkey.Int64, Int: id}}}})
	}
	total := 0.0
	for _, x := range tb.Weights {
		total += x
	}
	w := &shardkey.Workload{Name: "carts", Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{
		{Name: "get cart", Table: 0, Kind: shardkey.Read, Rate: total, Instances: reads}}}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestHotShardPerNode: under Redis Cluster (16384 slots over N masters)
// the hot-shard rejection weighs the node, the unit that saturates, and
// its share against the fair share 1/N, never against a slot. Shares by
// hand from the ids' slots (crc16 above; contiguous slot runs):
//   - 3 nodes, 100 ids on each: the busiest node does 100/300 = 33%, the
//     fair share; viable. (Counted per slot, 33% against a limit of
//     3/16384 rejected it: "one shard does 33% of all work".)
//   - 4 nodes, 260 / 50 / 45 / 45 ids: node 0 does 260/400 = 65%, above
//     the limit min(50%, 3/4) = 50% (1.5 times a perfect hash's busiest
//     share of 400 equal keys over 4 nodes, about 27%, is less; twice the
//     largest key's 0.25% too): rejected, "one node does 65% of all
//     work".
//   - 3 nodes, a whale weighing 300 and 280 other ids on node 0, 210 on
//     each other node (total weight 1,000): node 0 does 580/1000 = 58%,
//     above 50% and above 1.5 x a perfect hash's ~35% for 701 equal keys
//     (52.7%), but not above twice the whale's 30% (60%), which a perfect
//     hash cannot spread either: viable, and the whale is the fixes'.
func TestHotShardPerNode(t *testing.T) {
	if got := crc16([]byte("123456789")); got != 0x31C3 {
		t.Fatalf("crc16 check value %#x; want 0x31c3", got)
	}
	if got := crc16([]byte("foo")) & 16383; got != 12182 { // redis tests/unit/moduleapi/misc.tcl
		t.Fatalf("slot of foo %d; want 12182", got)
	}
	eng, err := partition.Lookup("redis")
	if err != nil {
		t.Fatal(err)
	}
	advise := func(w *shardkey.Workload, nodes int) *advisor.Assessment {
		t.Helper()
		m, err := sim.NewNodes(16384, nodes, "contiguous")
		if err != nil {
			t.Fatal(err)
		}
		adv, err := advisor.Recommend(w, advisor.Options{Shards: 16384, Engine: eng, Nodes: m, Keys: []string{"hash(cart_id)"}})
		if err != nil {
			t.Fatal(err)
		}
		return adv.Candidates[0]
	}
	nodeShare := func(as *advisor.Assessment) float64 {
		w := as.Score.CapacityWork()
		total := 0.0
		for _, x := range w {
			total += x
		}
		return as.Score.MaxShardWork / total
	}

	as := advise(cartsOn(t, 3, []int{100, 100, 100}, 1), 3)
	if got := nodeShare(as); math.Abs(got-1.0/3) > 1e-9 {
		t.Errorf("balanced: busiest node's share %v; want 1/3", got)
	}
	if !as.Viable {
		t.Errorf("balanced over 3 nodes: rejected %q; want viable", as.Rejection)
	}

	as = advise(cartsOn(t, 4, []int{260, 50, 45, 45}, 1), 4)
	if got := nodeShare(as); math.Abs(got-0.65) > 1e-9 {
		t.Errorf("clumped: busiest node's share %v; want 0.65", got)
	}
	if as.Viable || as.Rejection != "one node does 65% of all work" {
		t.Errorf("clumped over 4 nodes: viable %v, rejection %q; want \"one node does 65%% of all work\"", as.Viable, as.Rejection)
	}
	if !strings.Contains(as.Reasons[0], "hot node: one node does 65% of all work (4 nodes, a fair share 25%), above the limit of 50%") {
		t.Errorf("clumped: reason %q", as.Reasons[0])
	}

	as = advise(cartsOn(t, 3, []int{281, 210, 210}, 300), 3)
	if got := nodeShare(as); math.Abs(got-0.58) > 1e-9 {
		t.Errorf("whale: busiest node's share %v; want 0.58", got)
	}
	if top := as.Score.TopValues[0].Share; math.Abs(top-0.3) > 1e-9 {
		t.Errorf("whale: largest key's share %v; want 0.3", top)
	}
	if !as.Viable {
		t.Errorf("whale: rejected %q; want viable (the whale is 30%%, the limit twice it)", as.Rejection)
	}
}

// slotsOn builds carts whose ids land perSlot[k] on slot k of 8 under
// vitess-numeric (the keyspace id is the uint64 value itself; 8 even
// keyspace-id ranges: slot = id >> 61): id (k<<61) | j, j = 1..perSlot[k],
// each read by equality once a second.
func slotsOn(t *testing.T, perSlot []int) *shardkey.Workload {
	t.Helper()
	tb := &shardkey.Table{Name: "carts", Columns: []*shardkey.Column{{Name: "cart_id", Type: shardkey.Uint64}}}
	var reads []shardkey.Instance
	for k, n := range perSlot {
		for j := 1; j <= n; j++ {
			id := int64(uint64(k)<<61 | uint64(j)) // a Uint64's 64 bits
			tb.Columns[0].Ints = append(tb.Columns[0].Ints, id)
			tb.Weights = append(tb.Weights, 1)
			tb.Rows++
			reads = append(reads, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.Value{Type: shardkey.Uint64, Int: id}}}})
		}
	}
	w := &shardkey.Workload{Name: "carts", Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{
		{Name: "get cart", Table: 0, Kind: shardkey.Read, Rate: float64(len(reads)), Instances: reads}}}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestHotNodeUnderSlots: with slots over nodes (--slots 8 --nodes 4,
// contiguous: node k holds slots 2k and 2k+1) under any engine the node
// is what saturates, so the hot-spot rejection weighs the busiest node's
// share against the nodes' limit, and quotes it; a slot's share was
// weighed against the slots' limit (3/8 = 37.5%) and quoted. By hand:
//   - 45 ids on slot 0, 10 on each other slot (115): slot 0 does 45/115
//     = 39%, above 37.5%, but node 0 (slots 0 and 1) 55/115 = 47.8%,
//     under the nodes' min(50%, 3/4) = 50% (1.5 times a perfect hash's
//     busiest share of 115 equal keys over 4 nodes is below it, twice the
//     largest key's 0.9% too): viable (it was "one shard does 39%").
//   - 60 on slot 0, 30 on slot 1, 10 on each other (150): node 0 does
//     90/150 = 60%, above 50%: rejected, "one node does 60% of all work"
//     (it was "one shard does 40%", slot 0's 60/150).
func TestHotNodeUnderSlots(t *testing.T) {
	eng, err := partition.Lookup("vitess-numeric")
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.NewNodes(8, 4, "contiguous")
	if err != nil {
		t.Fatal(err)
	}
	advise := func(w *shardkey.Workload) *advisor.Assessment {
		t.Helper()
		adv, err := advisor.Recommend(w, advisor.Options{Shards: 8, Engine: eng, Nodes: m, Keys: []string{"hash(cart_id)"}})
		if err != nil {
			t.Fatal(err)
		}
		return adv.Candidates[0]
	}
	as := advise(slotsOn(t, []int{45, 10, 10, 10, 10, 10, 10, 10}))
	if got := as.Score.ShardWork[0]; got != 45 {
		t.Fatalf("slot 0 work %v; want 45 (the ids' slots by hand)", got)
	}
	if !as.Viable {
		t.Errorf("node 0 at 47.8%%: rejected %q; want viable", as.Rejection)
	}
	as = advise(slotsOn(t, []int{60, 30, 10, 10, 10, 10, 10, 10}))
	if as.Viable || as.Rejection != "one node does 60% of all work" {
		t.Errorf("node 0 at 60%%: viable %v, rejection %q; want \"one node does 60%% of all work\"", as.Viable, as.Rejection)
	}
	if !strings.Contains(strings.Join(as.Reasons, "\n"), "hot node: one node does 60% of all work (4 nodes, a fair share 25%), above the limit of 50%") {
		t.Errorf("node 0 at 60%%: reasons %q", as.Reasons)
	}
}
