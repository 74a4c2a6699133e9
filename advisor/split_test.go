package advisor_test

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
)

// TestSplitWhale: the workspace scenario's largest workspaces each exceed
// a shard alone, so the advice splits each over dedicated shards of its
// own by (workspace_id, page_id), members by (workspace_id, user_id), and
// isolates the next values that do over half a shard on one shard each.
//
// By hand, from scenario/builtin/workspace.yaml: workspace_id is Zipf
// (s = 1.1) over 5,000 values in pages and members (blocks inherit their
// page's), so workspace i holds p_i = i^-1.1 / H(5000, 1.1) of every
// table's weight and of every operation's rows (p_1 = 0.158). Its work
// is p_i times the 43,900.01 requests/s, W_i (W_1 = 6,945/s); its
// tenant-wide reads (search a workspace 800/s, export 0.01/s:
// workspace_id alone) R_i = p_i 800.01/s ask all K_i of its shards, the
// rest one. Each of its shards does (W_i - R_i)/K_i + R_i <= 800 when
// K_i >= (W_i - R_i)/(800 - R_i): K0 = 11, 5, 3, 2, 2, 2 for the first
// six (W_6 = 968/s). W_7 = 818/s is also over 800, and W_i > 400 (half
// a shard: two such on one shard exceed it) up to i = 13 (W_11 = 497,
// W_12 = 452, W_13 = 414, W_14 = 381, W_17 = 308/s). The statistics rank
// past the ten a report lists, so the design splits or isolates every
// value over half a shard: at least the first 11 (W_11 is 24% over 400,
// beyond the row sample's noise of a value's share) and at most 16 (W_17
// is 23% under it). The rows' hash does not split a value's pages
// exactly evenly, so each K_i may be up to 8 more than K0; re-scored,
// each value's own shards are all under 800/s.
func TestSplitWhale(t *testing.T) {
	h := 0.0
	for k := 1; k <= 5000; k++ {
		h += math.Pow(float64(k), -1.1)
	}
	const rate, wideRate, capacity, n = 43900.01, 800.01, 800.0, 64
	p := func(i int) float64 { return math.Pow(float64(i), -1.1) / h }
	k0 := func(i int) int {
		work, wide := p(i)*rate, p(i)*wideRate
		return int(math.Ceil((work - wide) / (capacity - wide)))
	}
	if got := []int{k0(1), k0(2), k0(3), k0(4), k0(5), k0(6)}; !slices.Equal(got, []int{11, 5, 3, 2, 2, 2}) {
		t.Fatalf("hand-derived K0 = %v; the scenario changed?", got)
	}
	if p(7)*rate <= capacity || p(11)*rate <= 1.2*capacity/2 || p(13)*rate <= capacity/2 || p(14)*rate > capacity/2 || p(17)*rate > 0.8*capacity/2 {
		t.Fatalf("hand-derived works: W_7 %.0f, W_13 %.0f, W_14 %.0f; the scenario changed?", p(7)*rate, p(13)*rate, p(14)*rate)
	}
	adv := advise(t, "workspace", "")
	as := adv.Candidates[0]
	var key string
	for _, f := range as.Fixes {
		if f.Kind == "split" {
			key = f.Key
		}
	}
	want := regexp.MustCompile(`^isolate\(hash\(workspace_id\), top=(\d+), split=page_id, over=\[([0-9, ]+)\]\); members:isolate\(hash\(workspace_id\), top=(\d+), split=user_id, over=\[([0-9, ]+)\]\)$`)
	m := want.FindStringSubmatch(key)
	if m == nil || m[1] != m[3] || m[2] != m[4] {
		t.Fatalf("split fix key %q; want pages and blocks split by page_id, members by user_id, over the same counts", key)
	}
	top, _ := strconv.Atoi(m[1])
	var ks []int
	total := 0
	for _, f := range strings.Split(m[2], ", ") {
		k, _ := strconv.Atoi(f)
		ks = append(ks, k)
		total += k
	}
	if top < 11 || top > 16 || len(ks) != top || total >= n {
		t.Fatalf("top=%d over=%v (%d shards); want 11..16 values, one count each, fewer than %d shards in all", top, ks, total, n)
	}
	for i := 1; i <= 6; i++ {
		if ks[i-1] < k0(i) || ks[i-1] > k0(i)+8 {
			t.Errorf("workspace %d over %d shards; want %d..%d", i, ks[i-1], k0(i), k0(i)+8)
		}
	}
	s, err := scenario.Builtin("workspace")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.Score(w, key, sim.Options{Shards: n})
	if err != nil {
		t.Fatal(err)
	}
	// The dedicated shards follow the base shards in order of weight:
	// value i's are n - total + (K_1 + ... + K_{i-1}) onwards.
	off := n - total
	for i, k := range ks {
		if x := maxOf(c.ShardWork[off : off+k]); x > capacity {
			t.Errorf("workspace %d: one of its %d shards does %.0f/s, over %v", i+1, k, x, capacity)
		}
		off += k
	}
	// The whale's shards do W_1 - R_1 + K_1 R_1 together: within 2% of
	// the hand figure (the sample's share of workspace 1 is not exactly
	// p_1).
	work, wide := p(1)*rate, p(1)*wideRate
	if sum, hand := sumOf(c.ShardWork[n-total:n-total+ks[0]]), work-wide+float64(ks[0])*wide; math.Abs(sum-hand) > 0.02*hand {
		t.Errorf("the whale's %d shards do %.0f/s together; want about %.0f", ks[0], sum, hand)
	}
	if c.CrossShardTxnFraction != 0 {
		t.Errorf("cross-shard transactions %v; want 0 (a new page's blocks go to its bucket)", c.CrossShardTxnFraction)
	}
	// The headline's shard count, if it gives one, fits: the design after
	// every fix on that many shards leaves no shard over capacity.
	cp := adv.CapacityCheck
	if cp == nil || cp.AfterKey == "" {
		t.Fatalf("no capacity section after fixes: %+v", cp)
	}
	if cp.ShardsNeeded > n {
		x, err := sim.Score(w, cp.AfterKey, sim.Options{Shards: cp.ShardsNeeded})
		if err != nil || len(x.OverCapacity) != 0 {
			t.Errorf("%d shards said to bring every shard under capacity: %v over, %v", cp.ShardsNeeded, x.OverCapacity, err)
		}
	}
	if strings.Contains(strings.Join(adv.Summary, " "), "its work is one key value's, the whale workspace_id = 1") {
		t.Errorf("headline blames the whale that the split divides: %q", adv.Summary[0])
	}
}

func sumOf(xs []float64) (s float64) {
	for _, x := range xs {
		s += x
	}
	return s
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
