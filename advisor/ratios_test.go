package advisor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
)

// TestRatioText: the whale fix names which ratio it reports and what it
// measures: rows (by weight, or counted once) when the rows have a load,
// else the work.
func TestRatioText(t *testing.T) {
	plain := &shardkey.Workload{Tables: []*shardkey.Table{{Name: "t"}}}
	weighted := &shardkey.Workload{Tables: []*shardkey.Table{{Name: "t", Weights: []float64{1}}}}
	for _, c := range []struct {
		c    *sim.Candidate
		w    *shardkey.Workload
		want string
	}{
		{&sim.Candidate{LoadRatio: 3.3, WorkRatio: 1.1}, plain, "row load ratio (the sampled rows the busiest shard holds over the mean shard's: data, not traffic)"},
		{&sim.Candidate{LoadRatio: 3.3, WorkRatio: 1.1}, weighted, "row load ratio (the busiest shard's sampled rows, each weighted by its share of requests, over the mean shard's)"},
		{&sim.Candidate{WorkRatio: 1.1}, plain, "work ratio (the busiest shard's units of work/s over the mean shard's)"},
	} {
		if got := ratioText(c.c, c.w); got != c.want {
			t.Errorf("ratioText %+v\n got %q\nwant %q", c.c, got, c.want)
		}
	}
}

// TestAdviseRatiosNamed: on the orders scenario (rows without weights),
// the summary's ratio is named the work ratio and the whale fix's the row
// load ratio, with the work ratio beside it: the review saw 1.13x and
// 3.33x printed side by side unexplained.
func TestAdviseRatiosNamed(t *testing.T) {
	s, err := scenario.Builtin("orders")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	adv, err := Recommend(w, Options{Shards: w.Shards})
	if err != nil {
		t.Fatal(err)
	}
	// The figure named the work ratio is the work's, not the rows' (on
	// orders they differ: a whale's rows, 3.3%, weigh more than its
	// traffic).
	c := adv.Candidates[0].Score
	if c.LoadRatio-c.WorkRatio < 0.5 {
		t.Fatalf("orders: load ratio %.2f and work ratio %.2f too close to tell apart", c.LoadRatio, c.WorkRatio)
	}
	sum := strings.Join(adv.Summary, "\n")
	if !strings.Contains(sum, fmt.Sprintf("(work ratio %.2fx: its work over the mean shard's)", c.WorkRatio)) {
		t.Errorf("summary does not name its ratio the work ratio:\n%s", sum)
	}
	found := false
	for _, f := range adv.Candidates[0].Fixes {
		if f.Kind != "isolate" {
			continue
		}
		found = true
		if !strings.Contains(f.Text, "the row load ratio (the sampled rows the busiest shard holds over the mean shard's: data, not traffic) goes from") || !strings.Contains(f.Text, "busiest shard's work from") || !strings.Contains(f.Text, fmt.Sprintf("goes from %.2fx", c.LoadRatio)) || !strings.Contains(f.Text, fmt.Sprintf("(work ratio %.2fx -> ", c.WorkRatio)) {
			t.Errorf("isolate fix does not say what its ratios measure: %s", f.Text)
		}
	}
	if !found {
		t.Errorf("orders: no whale fix on %s", adv.Recommended)
	}
}
