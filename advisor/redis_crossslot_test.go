package advisor_test

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
)

// TestRedisPlaceValuesCrossSlot: TPC-C keyed hash(d_id) (stock and
// warehouse by hash(w_id), item by hash(i_id)) on Redis Cluster's 16384
// slots over 8 masters. The place-values fix moves the 10 districts'
// slots to masters, and its text said "Cross-shard transactions 83% ->
// 92%: the values that shared a node no longer do". The share counts
// slots (a MULTI/EXEC across slots fails with CROSSSLOT), and two
// districts on one node were never in one slot: the reason was false.
// The 92% came from the re-simulation's stand-in slots, which move only
// the d_id keys, apart from the w_id keys (stock, warehouse) of the same
// value that share its own slot (w_id 1 and d_id 1 both hash to 9842).
//
// Derived independently: moving a slot (CLUSTER SETSLOT) moves every key
// in it, so re-scoring the design itself with a slot map in which each
// value's own slot (placement[].slot) is on the fix's node leaves the
// cross-slot share exactly as before; the fix must say it stays.
func TestRedisPlaceValuesCrossSlot(t *testing.T) {
	s, err := scenario.ReadFile("../scenario/benchmarks/tpcc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := partition.Lookup("redis")
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.NewNodes(16384, 8, "contiguous")
	if err != nil {
		t.Fatal(err)
	}
	key := "hash(d_id); item:hash(i_id); stock:hash(w_id); warehouse:hash(w_id)"
	adv, err := advisor.Recommend(w, advisor.Options{Shards: 16384, Engine: eng, Nodes: m, Keys: []string{key}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	as := adv.Candidates[0]
	var fix *advisor.Fix
	for i, f := range as.Fixes {
		if f.Kind == "place-values" {
			fix = &as.Fixes[i]
		}
	}
	if fix == nil || len(fix.Placement) != 10 {
		t.Fatalf("no place-values fix of the 10 districts: %+v", as.Fixes)
	}
	moved := &sim.Nodes{Count: m.Count, Node: slices.Clone(m.Node), How: "moved"}
	for _, p := range fix.Placement {
		if p.Slot == nil || p.Node == nil {
			t.Fatalf("d_id %s placed without its own slot and node", p.Value)
		}
		moved.Node[*p.Slot] = *p.Node
	}
	after, err := sim.Score(w, key, sim.Options{Shards: 16384, Engine: eng, Nodes: moved})
	if err != nil {
		t.Fatal(err)
	}
	before := as.Score.CrossShardTxnFraction
	if math.Abs(after.CrossShardTxnFraction-before) > 1e-12 {
		t.Fatalf("slot moves changed the cross-slot share %v -> %v", before, after.CrossShardTxnFraction)
	}
	if before < 0.5 {
		t.Fatalf("cross-slot share %v: want TPC-C's districts across slots", before)
	}
	text := strings.Join(strings.Fields(fix.Text), " ")
	want := fmt.Sprintf("Cross-slot transactions stay at %.0f%%", 100*before)
	if !strings.Contains(text, want) || strings.Contains(text, "no longer do") {
		t.Errorf("fix text does not say %q (or gives the shared-node reason):\n%s", want, text)
	}
	// The work of the slots really moved: the stock and warehouse keys of
	// w_id 1..8 share the districts' slots and move with them, which the
	// directory re-simulation (d_id's keys only) leaves out.
	busiest := slices.Max(after.CapacityWork())
	g := regexp.MustCompile(`Moving the slots themselves, .* gives busiest node ([0-9,]+)/s, ([0-9.]+)x the mean`).FindStringSubmatch(text)
	if g == nil {
		t.Fatalf("fix text gives no figure for the slots moved whole (busiest node %.0f/s):\n%s", busiest, text)
	}
	if got, _ := strconv.ParseFloat(strings.ReplaceAll(g[1], ",", ""), 64); math.Abs(got-busiest) > 0.5 {
		t.Errorf("slots moved whole: text says busiest node %s/s; re-scored %.1f/s", g[1], busiest)
	}
}
