package advisor_test

import (
	"testing"

	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/scenario"
)

// TestAfterFixesNotSimulatedWithoutCapacity: with a capacity every
// candidate's fixes are re-simulated (its ranking and "over capacity
// after fixes" verdicts need them); without one only the three leading
// candidates' are, and the others say so (after_fixes_not_simulated,
// "-" in the tables) rather than print their unfixed busiest shard as if
// fixed. The orders scenario has a capacity (3,000/s) and more than
// three candidates.
func TestAfterFixesNotSimulatedWithoutCapacity(t *testing.T) {
	s, err := scenario.Builtin("orders")
	if err != nil {
		t.Fatal(err)
	}
	for _, capacity := range []float64{3000, 0} {
		w, err := scenario.Build(s, "")
		if err != nil {
			t.Fatal(err)
		}
		w.Capacity = capacity
		adv, err := advisor.Recommend(w, advisor.Options{Shards: w.Shards})
		if err != nil {
			t.Fatal(err)
		}
		if len(adv.Candidates) < 4 {
			t.Fatalf("%d candidates; the test needs 4 or more", len(adv.Candidates))
		}
		for i, as := range adv.Candidates {
			want := capacity == 0 && i >= 3 && !as.InUse
			if as.Criteria.AfterFixesNotSimulated != want {
				t.Errorf("capacity %v, rank %d (%s): after_fixes_not_simulated %v; want %v", capacity, as.Rank, as.Key, as.Criteria.AfterFixesNotSimulated, want)
			}
			for _, f := range as.Fixes {
				if want && f.After != nil {
					t.Errorf("capacity %v, rank %d: a re-simulated %s fix on a candidate whose fixes were not simulated", capacity, as.Rank, f.Kind)
				}
			}
		}
	}
}
