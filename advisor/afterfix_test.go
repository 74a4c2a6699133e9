package advisor_test

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
)

// TestAfterFixesEveryCandidate: "after fixes" is re-simulated for every
// candidate, not only the three leading ones. The built-in workspace
// (64 shards, capacity 800) ranks hash(page_id); members:replicate 4th.
// Unfixed, its busiest shard does 1,595/s, of which 800/s is "search a
// workspace" (800/s by workspace_id, not the key: every shard asked).
// Its fix is a per-workspace_id projection of pages: the search then
// asks one shard, so the workload's work is, from its rates,
//
//	load a page 20,000 + check a permission 20,000 (members replicated:
//	a read asks one shard) + search a workspace 800 (one shard each) +
//	add a block 3,000 + create a page 100 + its copy in the projection
//	100 = 44,000/s (export a workspace, batch, moves to a replica: its
//	own fix), a mean of 44,000 / 64 = 687.5/s a shard,
//
// and every shard loses the 800/s of the scatter: a busiest shard of at
// least the mean, 687.5/s, and at most 1,595 - 800 = 795/s plus the
// projection's reads and writes that land on it, here well under 1,000/s
// (the busiest workspace, ~16% of pages, sends ~127/s of searches to its
// one shard). Before this fix the figure was the unfixed 1,595/s.
func TestAfterFixesEveryCandidate(t *testing.T) {
	adv := advise(t, "workspace", "")
	var as *advisor.Assessment
	for _, c := range adv.Candidates {
		if c.Key == "hash(page_id); members:replicate" {
			as = c
		}
	}
	if as == nil {
		t.Fatal("no candidate hash(page_id); members:replicate")
	}
	if as.Rank <= 3 {
		t.Fatalf("%s ranks %d; the test needs it past the first three", as.Key, as.Rank)
	}
	if !hasFix(as, "projection", "search a workspace") {
		t.Fatalf("%s: no projection fix for search a workspace: %+v", as.Key, as.Fixes)
	}
	if got := as.Criteria.AfterFixes; got < 687.5 || got > 1000 {
		t.Errorf("%s: busiest shard after fixes %.1f/s (unfixed %.1f/s); want between the mean 687.5/s and 1,000/s", as.Key, got, as.Criteria.MaxShardWork)
	}
	af := as.AfterFixesOf()
	if af == nil || af.Key != "hash(page_id); members:replicate; pages_by_workspace_id:hash(workspace_id)" {
		t.Fatalf("%s: after fixes of %+v; want the design with the projection pages_by_workspace_id", as.Key, af)
	}
	if got := af.Nums.WorkPerS; got < 44000-0.01 || got > 44000+0.01 {
		t.Errorf("work after fixes %.2f/s; want 44,000/s", got)
	}
	// Every viable candidate's figure is of its own fixes.
	for _, c := range adv.Candidates {
		if c.Viable && c.AfterFixesOf() == nil {
			t.Errorf("%s (rank %d): after fixes not re-simulated", c.Key, c.Rank)
		}
	}
}

// TestFitsBeforeNeverFits: the built-in workspace under Citus. Citus's
// tenant isolation stops at one shard, so hash(workspace_id) cannot split
// its whale: workspace_id = 1 alone sends about 16% of the 43,900
// requests/s (~6,895/s, the workload's own zipf share 1/H(5000, 1.1)),
// 8.6 times the 800/s a shard can do, and no shard count brings it under
// capacity. hash(page_id); members:replicate asks one shard for 98% of the
// requests and, with its projection for "search a workspace" (work
// 44,000/s, a mean of 687.5/s a shard: TestAfterFixesEveryCandidate's
// arithmetic), has a busiest shard after fixes between that mean and
// about 900/s (792/s under Citus's hash, 884/s under the default
// engine's: the hash placement alone moves it by about 10%).
//
// At the workload's 800/s that busiest shard is within 10% of the
// capacity (fitMargin): not a fit to leave the tenant key for, so
// hash(workspace_id) stays first (100% single-shard against 98%). At
// 1,000/s a shard, 900/s is 10% under it: hash(page_id);
// members:replicate fits with room to spare while the whale still
// exceeds any shard (6,895 > 1,000), so it ranks first, its verdict
// saying why (though the other is ahead on access) and that no shard
// count fits hash(workspace_id).
func TestFitsBeforeNeverFits(t *testing.T) {
	s, err := scenario.Builtin("workspace")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := partition.Lookup("citus")
	if err != nil {
		t.Fatal(err)
	}
	for _, capacity := range []float64{800, 1000} {
		w, err := scenario.Build(s, "")
		if err != nil {
			t.Fatal(err)
		}
		w.Capacity = capacity
		adv, err := advisor.Recommend(w, advisor.Options{Shards: w.Shards, Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		best := adv.Candidates[0]
		if capacity == 800 {
			if best.Key != "hash(workspace_id)" || adv.CapacityFirst {
				t.Errorf("capacity 800: recommended %s (capacity_first %v); want hash(workspace_id): the other design's fit is within 10%% of the capacity", best.Key, adv.CapacityFirst)
			}
			continue
		}
		// hash(block_id); pages:hash(page_id); members:hash(user_id) puts a
		// page and its blocks apart, so every transaction (a page's blocks
		// written together) crosses shards, against none under
		// hash(workspace_id): whether or not it fits, the capacity does not
		// rank it first (capacityTxnSlack).
		pos := map[string]int{}
		for i, c := range adv.Candidates {
			pos[c.Key] = i
		}
		if b, ok := pos["hash(block_id); pages:hash(page_id); members:hash(user_id)"]; ok && b < pos["hash(workspace_id)"] {
			t.Errorf("capacity 1,000: hash(block_id) design (100%% of transactions cross shards) ranks %d, before hash(workspace_id) at %d", b+1, pos["hash(workspace_id)"]+1)
		}
		if best.Key != "hash(page_id); members:replicate" {
			t.Fatalf("capacity 1,000: recommended %s; want hash(page_id); members:replicate, the design that fits after its fixes", best.Key)
		}
		if got := best.Criteria.AfterFixes; got < 687.5 || got > 900 {
			t.Errorf("busiest shard after fixes %.1f/s; want between the mean 687.5/s and 900/s", got)
		}
		if !adv.CapacityFirst || !strings.Contains(best.Verdict, "ranked before hash(workspace_id), though that one is ahead on what the operations and transactions touch") || !strings.Contains(best.Verdict, "no shard count brings hash(workspace_id) under it") {
			t.Errorf("capacity_first %v, verdict %q; want it to say why it ranks before hash(workspace_id)", adv.CapacityFirst, best.Verdict)
		}
	}
}
