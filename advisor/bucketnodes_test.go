package advisor_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
)

// TestCassandraBucketNodes: under Cassandra, when the bucket fix leaves
// nodes over capacity, the capacity check searches the node count with
// the bucket counts re-derived for each count, and says one thing.
//
// By hand, from scenario/builtin/workspace.yaml: 43,900.01 requests/s at
// 800 units/s a node need at least ceil(43,900.01 / 800) = 55 nodes, so
// the search starts there. The whales' counts, each bucket sized to 720
// units/s (10% under 800), are 12, 5, 4, 3, 2, 2
// (TestCassandraBucketByCapacity); at 12 nodes and more no count is capped,
// so every count searched tries each whale's own counts and the
// heaviest's, 12, for all six. Each count the search names as leaving a
// node over is re-scored here on its own (sim.Score, the full scoring,
// not the search's routing of the operations only) with both designs.
func TestCassandraBucketNodes(t *testing.T) {
	s, err := scenario.Builtin("workspace")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	adv, err := advisor.Recommend(w, advisor.Options{Shards: w.Shards, Engine: partition.Cassandra{}, Keys: []string{"hash(workspace_id)"}})
	if err != nil {
		t.Fatal(err)
	}
	cp := adv.CapacityCheck
	if cp == nil || !cp.BucketsRederived || cp.NeedSearch == nil {
		t.Fatalf("no node search with the bucket counts re-derived: %+v", cp)
	}
	least := int(math.Ceil(43900.01 / 800))
	if cp.NeedSearch.Least != least || cp.NeedSearch.From != least {
		t.Errorf("search from %d (least %d); want %d", cp.NeedSearch.From, cp.NeedSearch.Least, least)
	}
	const own = "salt(hash(workspace_id), [12, 5, 4, 3, 2, 2], top=6, by=page_id); members:salt(hash(workspace_id), [12, 5, 4, 3, 2, 2], top=6, by=user_id)"
	const one = "salt(hash(workspace_id), 12, top=6, by=page_id); members:salt(hash(workspace_id), 12, top=6, by=user_id)"
	// over returns the fewer nodes over of the two designs on n nodes
	// and the lighter busiest among those with that many over.
	over := func(n int) (int, float64) {
		bo, bw := -1, 0.0
		for _, k := range []string{own, one} {
			x, err := sim.Score(w, k, sim.Options{Shards: n, Engine: partition.Cassandra{}})
			if err != nil {
				t.Fatal(err)
			}
			if bo < 0 || len(x.OverCapacity) < bo || len(x.OverCapacity) == bo && x.MaxShardWork < bw {
				bo, bw = len(x.OverCapacity), x.MaxShardWork
			}
		}
		return bo, bw
	}
	sum := adv.Summary[0]
	if strings.Contains(sum, "does not bring the busiest under") || strings.Contains(sum, "add nodes") {
		t.Errorf("headline still says more nodes cannot help, or to add nodes:\n%s", sum)
	}
	if need := cp.ShardsNeeded; need > 0 {
		// A fit: re-scored on its own, the design printed has no node
		// over on that many nodes, and one fewer has.
		x, err := sim.Score(w, cp.NeededKey, sim.Options{Shards: need, Engine: partition.Cassandra{}})
		if err != nil {
			t.Fatal(err)
		}
		if len(x.OverCapacity) != 0 || math.Abs(x.MaxShardWork-cp.NeededBusiest) > 1e-6*x.MaxShardWork {
			t.Errorf("%s on %d nodes: %d over, busiest %.1f; the search said none, %.1f", cp.NeededKey, need, len(x.OverCapacity), x.MaxShardWork, cp.NeededBusiest)
		}
		if need > least {
			if o, _ := over(need - 1); o == 0 {
				t.Errorf("%d nodes fit too; the search said %d", need-1, need)
			}
		}
		if !strings.Contains(sum, fmt.Sprintf("%d nodes, with the whales bucketed K = ", need)) {
			t.Errorf("headline does not state the plan:\n%s", sum)
		}
		return
	}
	// No fit within the bound (the case here: buckets near 720 units/s
	// each, 72 of them placed by token): said plainly, with the counts
	// searched; the first two and the lightest re-score over capacity.
	want := fmt.Sprintf("No node count from %d (43,900 requests/s at 800 a node", least)
	if !strings.Contains(sum, want) || !strings.Contains(sum, fmt.Sprintf("to %d, each re-scored with the whales' bucket counts re-derived for it", cp.NeedSearch.Upto)) || !strings.Contains(sum, "a bounded search") {
		t.Errorf("headline does not say plainly which counts were searched and that none fits:\n%s", sum)
	}
	if cp.NeedSearch.Upto < least+50 {
		t.Errorf("searched only %d to %d", least, cp.NeedSearch.Upto)
	}
	for _, n := range []int{least, least + 1, cp.LightestShards} {
		o, b := over(n)
		if o == 0 {
			t.Errorf("%d nodes fit (busiest %.1f); the search said none to %d does", n, b, cp.NeedSearch.Upto)
		}
		if n == cp.LightestShards && math.Abs(b-cp.LightestBusiest) > 1e-6*b {
			t.Errorf("the lightest, %d nodes: busiest %.1f re-scored; the search said %.1f", n, b, cp.LightestBusiest)
		}
	}
	if !strings.Contains(sum, fmt.Sprintf("The lightest of them, %d nodes with K = ", cp.LightestShards)) {
		t.Errorf("headline does not name the lightest count searched:\n%s", sum)
	}
}

// TestCassandraBucketNodesFit: the same search where a count fits. At
// 5,000 units/s a node only workspace_id = 1 is a whale: W = 15.7% of
// 43,900.01 = 6,895/s, R = 15.7% of 800.01 = 126/s (whale figures of
// TestCassandraBucketByCapacity), so K = ceil((6,895 - 126) / (4,500 -
// 126)) = ceil(1.55) = 2, each bucket sized to 4,500 (10% under 5,000);
// one whale leaves one design a count. The search starts at
// ceil(43,900.01 / 5,000) = 9 nodes. The count it names, re-scored on its
// own with the printed design, has no node over and the count below it
// has one; the count for 10% to spare, re-scored, has its busiest at most
// 4,500/s and the one below it not.
func TestCassandraBucketNodesFit(t *testing.T) {
	s, err := scenario.Builtin("workspace")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	w.Capacity = 5000
	adv, err := advisor.Recommend(w, advisor.Options{Shards: w.Shards, Engine: partition.Cassandra{}, Keys: []string{"hash(workspace_id)"}})
	if err != nil {
		t.Fatal(err)
	}
	cp := adv.CapacityCheck
	if cp == nil || !cp.BucketsRederived || cp.NeedSearch == nil {
		t.Fatalf("no node search with the bucket counts re-derived: %+v", cp)
	}
	const key = "salt(hash(workspace_id), [2], top=1, by=page_id); members:salt(hash(workspace_id), [2], top=1, by=user_id)"
	if cp.NeedSearch.From != 9 {
		t.Errorf("search from %d; want 9", cp.NeedSearch.From)
	}
	need := cp.ShardsNeeded
	if need == 0 || cp.NeededKey != key || fmt.Sprint(cp.NeededBuckets) != "[2]" {
		t.Fatalf("needed %d nodes with %q %v; want a count with %q [2]", need, cp.NeededKey, cp.NeededBuckets, key)
	}
	score := func(n int) (int, float64) {
		x, err := sim.Score(w, key, sim.Options{Shards: n, Engine: partition.Cassandra{}})
		if err != nil {
			t.Fatal(err)
		}
		return len(x.OverCapacity), x.MaxShardWork
	}
	if o, b := score(need); o != 0 || math.Abs(b-cp.NeededBusiest) > 1e-6*b {
		t.Errorf("%d nodes re-scored: %d over, busiest %.1f; the search said none, %.1f", need, o, b, cp.NeededBusiest)
	}
	for n := max(9, need-3); n < need; n++ {
		if o, _ := score(n); o == 0 {
			t.Errorf("%d nodes fit too; the search said %d is the fewest", n, need)
		}
	}
	sum := adv.Summary[0]
	want := fmt.Sprintf("%d nodes, with the whales bucketed K = [2], bring every node under it: busiest ", need)
	if !strings.Contains(sum, want) || strings.Contains(sum, "does not bring the busiest under") || strings.Contains(sum, "add nodes") {
		t.Errorf("headline does not state one plan (%q):\n%s", want, sum)
	}
	if m := cp.ShardsForMargin; m > need {
		if o, b := score(m); o != 0 || b > 4500 || math.Abs(b-cp.MarginBusiest) > 1e-6*b {
			t.Errorf("%d nodes re-scored: %d over, busiest %.1f; the search said 10%% to spare at %.1f", m, o, b, cp.MarginBusiest)
		}
		if o, b := score(m - 1); o == 0 && b <= 4500 {
			t.Errorf("%d nodes leave 10%% to spare too (busiest %.1f); the search said %d", m-1, b, m)
		}
		if !strings.Contains(sum, fmt.Sprintf("10%% to spare takes %d nodes, K = [2]", m)) {
			t.Errorf("headline does not give the count for 10%% to spare:\n%s", sum)
		}
	}
}
