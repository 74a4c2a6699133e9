package advisor_test

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
)

// TestSplitWhale: the workspace scenario's largest workspace alone
// exceeds a shard, so the advice splits it over K dedicated shards by
// (workspace_id, page_id) and members by (workspace_id, user_id).
//
// By hand, from scenario/builtin/workspace.yaml: workspace_id is Zipf
// (s = 1.1) over 5,000 values in pages and members (blocks inherit their
// page's), so workspace 1 holds p = 1/H(5000, 1.1) = 0.158 of every
// table's weight and of every operation's rows. Its work is p times the
// 43,900.01 requests/s, W = 6,945/s; its tenant-wide reads (search a
// workspace 800/s, export 0.01/s: workspace_id alone) R = 126.6/s ask
// all K of its shards, the rest one. Each of its shards does
// (W - R)/K + R <= 800 when K >= (6,945 - 126.6)/(800 - 126.6) = 10.1:
// K0 = 11. The rows' hash does not split the pages exactly evenly, so
// the advisor may need a few more: K in 11..19, the whale's last K
// shards under 800/s and, below its K, one over.
func TestSplitWhale(t *testing.T) {
	h := 0.0
	for k := 1; k <= 5000; k++ {
		h += math.Pow(float64(k), -1.1)
	}
	p := 1 / h
	const rate, wideRate, capacity, n = 43900.01, 800.01, 800.0, 64
	work, wide := p*rate, p*wideRate
	k0 := int(math.Ceil((work - wide) / (capacity - wide)))
	if k0 != 11 {
		t.Fatalf("hand-derived K0 = %d; the scenario changed?", k0)
	}
	adv := advise(t, "workspace", "")
	as := adv.Candidates[0]
	var key string
	for _, f := range as.Fixes {
		if f.Kind == "split" {
			key = f.Key
		}
	}
	want := regexp.MustCompile(`^isolate\(hash\(workspace_id\), top=1, split=page_id, over=(\d+)\); members:isolate\(hash\(workspace_id\), top=1, split=user_id, over=(\d+)\)$`)
	m := want.FindStringSubmatch(key)
	if m == nil || m[1] != m[2] {
		t.Fatalf("split fix key %q; want pages and blocks split by page_id, members by user_id, over the same K", key)
	}
	k, _ := strconv.Atoi(m[1])
	if k < k0 || k > k0+8 {
		t.Fatalf("K = %d; want %d..%d", k, k0, k0+8)
	}
	s, err := scenario.Builtin("workspace")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	score := func(k int) *sim.Candidate {
		key := strings.ReplaceAll(key, "over="+m[1], "over="+strconv.Itoa(k))
		c, err := sim.Score(w, key, sim.Options{Shards: n})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := score(k)
	sum := 0.0
	for sh, x := range c.ShardWork[n-k:] {
		if x > capacity {
			t.Errorf("K = %d: the whale's shard %d does %.0f/s, over %v", k, n-k+sh, x, capacity)
		}
		sum += x
	}
	// Its shards do W - R + K R together: within 2% of the hand figure
	// (the sample's share of workspace 1 is not exactly p).
	if hand := work - wide + float64(k)*wide; math.Abs(sum-hand) > 0.02*hand {
		t.Errorf("the whale's %d shards do %.0f/s together; want about %.0f", k, sum, hand)
	}
	// A search of a workspace asks 1 shard, workspace 1's K: fan-out
	// 1 + p (K - 1).
	found := false
	for _, op := range c.Operations {
		found = found || op.Name == "search a workspace"
		if op.Name == "search a workspace" && math.Abs(op.FanoutMean-(1+p*float64(k-1))) > 0.02*op.FanoutMean {
			t.Errorf("search a workspace fan-out %.3f; want about %.3f", op.FanoutMean, 1+p*float64(k-1))
		}
	}
	if !found {
		t.Error("no operation search a workspace")
	}
	if c.CrossShardTxnFraction != 0 {
		t.Errorf("cross-shard transactions %v; want 0 (a new page's blocks go to its bucket)", c.CrossShardTxnFraction)
	}
	if k > k0 {
		below := score(k - 1)
		if maxOf(below.ShardWork[n-k+1:]) <= capacity {
			t.Errorf("K = %d is not the fewest: %d keeps the whale's shards under %v", k, k-1, capacity)
		}
	}
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
