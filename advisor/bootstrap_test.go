package advisor

import (
	"testing"

	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
)

// TestIntervalMovedByBias: the replicates' quantiles moved by their
// median's distance from the sample's value, worked by hand. Five
// replicates 10, 12, 14, 16, 18 of a value 11: the 2.5% and 97.5%
// quantiles are the first and last (indexes round(0.1) = 0 and round(3.9)
// = 4), the median 14, the bias 3, so 7 to 15. A share's replicates 0.98,
// 0.99, 1, 1, 1 of 0.9: median 1, bias 0.1, so 0.88 to 0.9. A ratio kept
// at 1 or more: replicates 1.1, 1.2, 1.3 of 1.0, median 1.2, bias 0.2, so
// 0.9 (kept at 1) to 1.1.
func TestIntervalMovedByBias(t *testing.T) {
	near := func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }
	for _, c := range []struct {
		xs          []float64
		est, lo, hi float64
		want        Interval
	}{
		{[]float64{18, 12, 16, 10, 14}, 11, 0, 1e300, Interval{7, 15}},
		{[]float64{1, 0.98, 1, 0.99, 1}, 0.9, 0, 1, Interval{0.88, 0.9}},
		{[]float64{1.3, 1.1, 1.2}, 1.0, 1, 1e300, Interval{1, 1.1}},
	} {
		got := interval(c.xs, c.est, c.lo, c.hi)
		if !near(got.Lo, c.want.Lo) || !near(got.Hi, c.want.Hi) {
			t.Errorf("interval(%v, %v) = %v, want %v", c.xs, c.est, got, c.want)
		}
	}
}

// TestBootstrapHoldsTheSample: the fresh-clone review's case, the
// workspace under Citus on 64 shards keyed hash(page_id); members:
// replicate: its busiest shard is a maximum of 64 similar per-shard sums
// (no whale decides it), biased upward in every resample, and the plain
// percentile interval (1,575-1,664/s) excluded the 1,554/s the advice
// printed for it. An interval of how far another sample could move a
// figure holds the figure: for the recommended design's busiest shard and
// work ratio, Lo <= value <= Hi.
func TestBootstrapHoldsTheSample(t *testing.T) {
	s, err := scenario.Builtin("workspace")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := partition.Lookup("citus")
	if err != nil {
		t.Fatal(err)
	}
	adv, err := Recommend(w, Options{Shards: 64, Engine: eng, Keys: []string{"hash(page_id); members:replicate"}, Bootstrap: 20, Seed: w.Seed})
	if err != nil {
		t.Fatal(err)
	}
	c, sc := adv.Confidence, adv.Candidates[0].Score
	if c == nil {
		t.Fatal("no confidence intervals")
	}
	if v := sc.MaxShardWork; v < c.MaxShardWork.Lo || v > c.MaxShardWork.Hi {
		t.Errorf("busiest shard %.1f/s outside its interval %.1f-%.1f", v, c.MaxShardWork.Lo, c.MaxShardWork.Hi)
	}
	if v := sc.WorkRatio; v < c.WorkRatio.Lo || v > c.WorkRatio.Hi {
		t.Errorf("work ratio %.3f outside its interval %.3f-%.3f", v, c.WorkRatio.Lo, c.WorkRatio.Hi)
	}
}
