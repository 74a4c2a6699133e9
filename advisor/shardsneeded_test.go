package advisor_test

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
)

// TestShardsNeededWorkspace: the built-in workspace under the default
// engine, its whales split (the design after fixes below; each split
// whale's shards sized to 10% under capacity, splitTarget). Scored with
// `shardkey score workspace -k DESIGN --shards K` at every K from 55 to
// 130, the first count that leaves no shard over 800/s is 105 (busiest
// 779/s); 104 and 106 leave shards over, 107 none: the fit is not
// monotone in the count. 55 is the fewest the requests allow
// (ceil(43,900.01 / 800)). So advised for 64 shards or for 100, the
// fewest shards needed are 105, the search having re-scored every count
// from 55 (from 100 too: 100 leaves one shard over). 105's fit is thin, 3% to spare; the first count whose busiest
// is at most 720/s (10% to spare) is 116 (682/s), which the headline
// names. (Before the split whales' shards were sized with a margin, the
// whales' own shards stayed at 782/s on every count and no count up to
// 256 left 10% to spare.)
func TestShardsNeededWorkspace(t *testing.T) {
	const design = "isolate(hash(workspace_id), top=14, split=page_id, over=[14, 6, 4, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1]); members:isolate(hash(workspace_id), top=14, split=user_id, over=[14, 6, 4, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1])"
	s, err := scenario.Builtin("workspace")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{64, 100} {
		adv, err := advisor.Recommend(w, advisor.Options{Shards: n})
		if err != nil {
			t.Fatal(err)
		}
		cp := adv.CapacityCheck
		if cp == nil || cp.AfterKey != design {
			t.Fatalf("advised for %d shards: capacity check %+v; want the design after fixes %s", n, cp, design)
		}
		if cp.ShardsNeeded != 105 || cp.NeedSearch == nil || cp.NeedSearch.Least != 55 || cp.NeedSearch.From != 55 {
			t.Errorf("advised for %d shards: shards needed %d (searched %+v); want 105, every count from 55", n, cp.ShardsNeeded, cp.NeedSearch)
		}
		if cp.ShardsForMargin != 116 || cp.MarginSearch == nil {
			t.Errorf("advised for %d shards: shards for margin %d (searched %+v); want 116", n, cp.ShardsForMargin, cp.MarginSearch)
		}
		head := adv.Summary[0]
		for _, want := range []string{"105 shards", "bring every shard under it, the fewest that do: every count from 55 (43,900 requests/s at 800 a shard", "on 105 the busiest does 779/s, 3% to spare", "10% to spare at 116 shards"} {
			if !strings.Contains(head, want) {
				t.Errorf("advised for %d shards: headline lacks %q:\n%s", n, want, head)
			}
		}
	}
	// What was said, scored on its own.
	for _, c := range []struct {
		m    int
		over bool
	}{{55, true}, {100, true}, {104, true}, {105, false}, {106, true}, {107, false}, {115, false}, {116, false}} {
		x, err := sim.Score(w, design, sim.Options{Shards: c.m})
		if err != nil {
			t.Fatal(err)
		}
		if over := len(x.OverCapacity) > 0; over != c.over {
			t.Errorf("%d shards: %d over capacity (busiest %.1f/s); want over %v", c.m, len(x.OverCapacity), x.MaxShardWork, c.over)
		}
		if spare := x.MaxShardWork <= 720; !c.over && spare != (c.m == 116) {
			t.Errorf("%d shards: busiest %.1f/s; want 10%% to spare (at most 720/s) on 116 only of these", c.m, x.MaxShardWork)
		}
	}
}
