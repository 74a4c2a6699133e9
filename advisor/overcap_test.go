package advisor

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
)

// TestVerdictOverCapacity: a candidate that leaves a shard over the
// capacity says so in its label, with the figures computed by hand:
// 3,617/s after fixes against 800/s is 4.52x (3,617 / 800 = 4.521); as
// scored, without fixes worked out, 7,289/800 = 9.11x with the 12 shards
// the score lists over it. Under capacity, or with no capacity given,
// the label is unchanged.
func TestVerdictOverCapacity(t *testing.T) {
	mk := func(capacity float64, fixed *Capacity, expensive ...OpCost) *Assessment {
		return &Assessment{Viable: true, Expensive: expensive,
			Score:    &sim.Candidate{Shards: 64, Capacity: capacity, MaxShardWork: 7289, OverCapacity: make([]int, 12)},
			Criteria: Criteria{MaxShardWork: 7289, AfterFixes: 7289}, capacity: fixed}
	}
	after := &Capacity{Capacity: 800, After: &Nums{MaxShardWork: 3617, OverCapacity: 9}}
	search := OpCost{Name: "search a workspace", ExtraWork: 50400}
	for _, c := range []struct {
		as    *Assessment
		first bool
		want  string
	}{
		{mk(800, after), false, "possible, but over capacity after fixes: busiest shard 3,617/s, 4.52x the 800/s one shard can do (9 of 64 shards over)"},
		{mk(800, nil), false, "possible, but over capacity: busiest shard 7,289/s, 9.11x the 800/s one shard can do (12 of 64 shards over)"},
		{mk(800, nil, search), false, "possible, but over capacity: busiest shard 7,289/s, 9.11x the 800/s one shard can do (12 of 64 shards over); and search a workspace costs 50,400 extra units/s"},
		{mk(800, &Capacity{Capacity: 800, After: &Nums{MaxShardWork: 700}}), false, "possible"},
		{mk(0, nil), false, "possible"},
		{mk(800, after), true, "recommended: 0% of interactive requests single-shard; but over capacity after fixes: busiest shard 3,617/s, 4.52x the 800/s one shard can do (9 of 64 shards over)"},
	} {
		c.as.Score.RequestsPerS = 1
		if got := verdict(c.as, c.first); got != c.want {
			t.Errorf("verdict\n got %q\nwant %q", got, c.want)
		}
	}
}

// TestAdviseOverCapacityLabelled: on the built-in workspace scenario
// (800 units/s a shard) under every engine tried, no viable candidate
// whose busiest shard after fixes exceeds the capacity is labelled
// without saying so, and none under it says it is over (the review saw
// {workspace_id: "hashed"} at 9x capacity labelled "possible" under
// mongodb).
func TestAdviseOverCapacityLabelled(t *testing.T) {
	s, err := scenario.Builtin("workspace")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mongodb", "generic"} {
		eng, err := partition.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		adv, err := Recommend(w, Options{Shards: w.Shards, Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		for _, as := range adv.Candidates {
			if !as.Viable {
				continue
			}
			over := as.Criteria.AfterFixes > w.Capacity
			if said := strings.Contains(as.Verdict, "over capacity"); said != over {
				t.Errorf("%s: %s: busiest after fixes %.0f/s against %.0f/s; verdict %q", name, as.Key, as.Criteria.AfterFixes, w.Capacity, as.Verdict)
			}
		}
	}
}
