package advisor_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
)

func advise(t *testing.T, name, variant string) *advisor.Advice {
	t.Helper()
	s, err := scenario.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, variant)
	if err != nil {
		t.Fatal(err)
	}
	adv, err := advisor.Recommend(w, advisor.Options{Shards: w.Shards})
	if err != nil {
		t.Fatal(err)
	}
	return adv
}

func hasFix(as *advisor.Assessment, kind, target string) bool {
	for _, f := range as.Fixes {
		if f.Kind == kind && strings.Contains(f.Target, target) {
			return true
		}
	}
	return false
}

// TestScenarios checks the advice against the seed documents' answers.
func TestScenarios(t *testing.T) {
	// Seed 001: hash(user_id); "latest posts from everyone" is better
	// served by a separate table or index than by asking every shard;
	// range(created_at) puts every write on one shard.
	adv := advise(t, "social", "")
	if adv.Recommended != "hash(user_id)" {
		t.Errorf("social: recommended %s; want hash(user_id)", adv.Recommended)
	}
	best := adv.Candidates[0]
	if !hasFix(best, "read-model", "latest posts") {
		t.Errorf("social: no read model for latest posts: %+v", best.Fixes)
	}
	for _, as := range adv.Candidates {
		if as.Key == "range(created_at)" && (as.Viable || !hasFix(as, "bucket-prefix", "created_at")) {
			t.Error("social: range(created_at) should be rejected as monotonic, with a bucket-prefix or entity-first remedy")
		}
	}
	if len(adv.Durable) == 0 {
		t.Error("social: no answer to which choice can change later")
	}

	// Seed 001's celebrity (30% of the posts and of the reads): isolated,
	// and its reads cached. Salting is no fix here: "every read of a
	// salted user asks four shards, and the busiest shard still does
	// 2,130 a second" (seed 001), so the numbers do not favour it and it
	// is not proposed (issue 12: a fix only when the numbers favour it).
	adv = advise(t, "social", "celebrity")
	if !strings.HasPrefix(adv.Recommended, "hash(user_id)") {
		t.Errorf("celebrity: recommended %s; want hash(user_id)", adv.Recommended)
	}
	best = adv.Candidates[0]
	if !hasFix(best, "isolate", "user_id = 0") || hasFix(best, "salt", "") || !hasFix(best, "cache", "user_id = 0") {
		t.Errorf("celebrity: want the celebrity (user_id = 0) isolated and its reads cached, not salted: %+v", best.Fixes)
	}

	// Seed 000: customer id, the largest customers isolated, fetch by
	// order id made single-shard by shard-encoded ids, the nightly report
	// to a replica.
	adv = advise(t, "orders", "")
	if adv.Recommended != "hash(customer_id)" {
		t.Errorf("orders: recommended %s; want hash(customer_id)", adv.Recommended)
	}
	best = adv.Candidates[0]
	if !hasFix(best, "isolate", "") || !hasFix(best, "shard-encoded-id", "fetch an order by id") || !hasFix(best, "replica", "nightly report") {
		t.Errorf("orders: fixes %+v", best.Fixes)
	}

	// Seed 003: conversation_id, with a per-user inbox projection.
	adv = advise(t, "chat", "")
	if adv.Recommended != "hash(conversation_id)" {
		t.Errorf("chat: recommended %s; want hash(conversation_id)", adv.Recommended)
	}
	if !hasFix(adv.Candidates[0], "projection", "inbox") {
		t.Errorf("chat: no per-user inbox projection: %+v", adv.Candidates[0].Fixes)
	}

	// Seed 002: workspace_id, with a routing table (directory) for the
	// largest workspaces.
	adv = advise(t, "workspace", "")
	if adv.Recommended != "hash(workspace_id)" {
		t.Errorf("workspace: recommended %s; want hash(workspace_id)", adv.Recommended)
	}
	if !hasFix(adv.Candidates[0], "isolate", "") {
		t.Errorf("workspace: no directory override for the largest workspaces: %+v", adv.Candidates[0].Fixes)
	}
	// Three candidates are explained (seed 002's interview question).
	if len(adv.Candidates) < 3 {
		t.Errorf("workspace: %d candidates; want at least 3", len(adv.Candidates))
	}
}

func adviseFile(t *testing.T, file string) *advisor.Advice {
	t.Helper()
	s, err := scenario.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	adv, err := advisor.Recommend(w, advisor.Options{Shards: w.Shards})
	if err != nil {
		t.Fatal(err)
	}
	return adv
}

// TestBenchmarks: published benchmarks encoded as specs
// (scenario/benchmarks) get their textbook keys.
func TestBenchmarks(t *testing.T) {
	// TPC-C: warehouse id across the warehouse-rooted tables, item
	// replicated, ~10.7% cross-shard at one warehouse per shard (the
	// scenario test derives 10.73%), NURand item ids flagged.
	adv := adviseFile(t, "../scenario/benchmarks/tpcc.yaml")
	best := adv.Candidates[0]
	if !strings.Contains(best.Key, "range(w_id)") && !strings.Contains(best.Key, "hash(w_id)") || !strings.Contains(best.Key, "item:replicate") {
		t.Errorf("tpcc: recommended %s; want the warehouse design with item replicated", best.Key)
	}
	if x := best.Criteria.CrossShardTxn; x < 0.09 || x > 0.125 {
		t.Errorf("tpcc: cross-shard %.4f; want about 0.107", x)
	}
	// The runner-up, hash(w_id); item:replicate, has fewer cross-shard
	// transactions only because the generic hash puts warehouses 1, 5, 7
	// on shard 5 and 4, 6 on shard 3 (place --engine generic 1..8): a
	// remote warehouse is on another shard with q_w = 5/7 (w 1, 5, 7),
	// 6/7 (4, 6) or 1 (2, 3, 8), mean 48/56, so by the spec (k ~
	// U{5..15} lines, 1% remote each; 15% remote Payments):
	// 0.45 (1 - mean_w E[(1 - 0.01 q_w)^k]) + 0.43 x 0.15 x 48/56 = 9.22%,
	// against 10.73% at one warehouse per shard, bought with a busiest
	// shard of three warehouses. Its load decides (a difference well past
	// 25%), and the headline says the trade-off.
	qs := []float64{5. / 7, 1, 1, 6. / 7, 5. / 7, 6. / 7, 5. / 7, 1}
	stay := 0.0
	for _, q := range qs {
		for k := 5; k <= 15; k++ {
			stay += math.Pow(1-0.01*q, float64(k)) / 11 / 8
		}
	}
	wantHash := 0.45*(1-stay) + 0.43*0.15*48/56
	var hashW *advisor.Assessment
	for _, as := range adv.Candidates {
		if as.Key == "hash(w_id); item:replicate" {
			hashW = as
		}
	}
	if hashW == nil || hashW.Rank != 2 || math.Abs(hashW.Criteria.CrossShardTxn-wantHash) > 0.006 {
		t.Fatalf("tpcc: hash(w_id); item:replicate %+v; want rank 2 with cross-shard %.4f", hashW, wantHash)
	}
	// hash(w_id) matches it only with each warehouse placed on a shard
	// of its own (its place-values fix: 8 values, 8 shards), which also
	// gives up the 9.2% (the warehouses sharing a shard no longer do):
	// the summary says what the hash does, the fix the trade-off.
	if !strings.Contains(best.Key, "range(w_id") || !strings.Contains(strings.Join(adv.Summary, " "), "as the hash places its few values its busiest shard does") {
		t.Errorf("tpcc: want the one-warehouse-per-shard design first and why not hash said; summary %q", adv.Summary)
	}
	if hashW != nil {
		var said bool
		for _, f := range hashW.Fixes {
			said = said || f.Kind == "place-values" && strings.Contains(f.Text, "Cross-shard transactions 9.2% -> 11%")
		}
		if !said {
			t.Errorf("tpcc: hash(w_id)'s place-values fix does not say the transactions' trade-off: %+v", hashW.Fixes)
		}
	}
	// Both warehouse designs are keyed by w_id alone: each carries the
	// root checklist, w_id's monotonicity with it (the range design's in
	// its own terms), and a largest partition that is known.
	for _, as := range []*advisor.Assessment{best, hashW} {
		if as.Root == nil || as.Root.Column != "w_id" || !as.Root.Monotonic || as.Criteria.LargestUnknown || !as.Criteria.Bounded {
			t.Errorf("tpcc %s: root %+v, largest unknown %v bounded %v; want the w_id checklist, monotonic, bounded", as.Key, as.Root, as.Criteria.LargestUnknown, as.Criteria.Bounded)
		}
	}
	if !slices.ContainsFunc(best.Reasons, func(r string) bool {
		return strings.Contains(r, "under this design's ranges every new entity (any w_id past the last boundary) goes to the last range")
	}) {
		t.Errorf("tpcc: the range design does not say where new warehouses go: %q", best.Reasons)
	}
	// The item design keys district by w_id, 10 rows for each warehouse
	// (per_parent: 10): every w_id holds 1/8 = 12.5% of district, not an
	// unknown share of a small sample.
	for _, as := range adv.Candidates {
		if strings.Contains(as.Key, "stock:hash(s_i_id)") && (as.Criteria.LargestUnknown || !as.Criteria.Bounded) {
			t.Errorf("tpcc %s: largest partition unknown %v bounded %v; want bounded", as.Key, as.Criteria.LargestUnknown, as.Criteria.Bounded)
		}
	}
	flagged := false
	for _, f := range adv.Flags {
		flagged = flagged || strings.Contains(f, "s_i_id: its ids are patterned")
	}
	if !flagged {
		t.Errorf("tpcc: NURand item ids not flagged: %v", adv.Flags)
	}
	// YCSB: the primary key; workload E's scans cost 8 shards under hash.
	adv = adviseFile(t, "../scenario/benchmarks/ycsb.yaml")
	if !strings.Contains(adv.Recommended, "ycsb_key") {
		t.Errorf("ycsb: recommended %s; want the primary key", adv.Recommended)
	}
	for _, as := range adv.Candidates {
		if as.Key == "hash(ycsb_key)" && (len(as.Expensive) == 0 || as.Expensive[0].FanoutMean != 8) {
			t.Errorf("ycsb: under hash the scans should ask all 8 shards: %+v", as.Expensive)
		}
	}
	// TATP: subscriber id; the lookups by phone number (18% of
	// transactions) go through a lookup table, lookup(sub_nbr), which the
	// fix re-simulates: less work than asking all 8 shards.
	adv = adviseFile(t, "../scenario/benchmarks/tatp.yaml")
	if adv.Recommended != "hash(s_id)" {
		t.Errorf("tatp: recommended %s; want hash(s_id)", adv.Recommended)
	}
	if x := adv.Candidates[0].Criteria.CrossShardTxn; x < 0.17 || x > 0.19 {
		t.Errorf("tatp: %.3f of transactions scatter; want 0.18 before the directory", x)
	}
	dir := 0
	for _, f := range adv.Candidates[0].Fixes {
		if f.Kind == "global-index" && strings.Contains(f.Text, "sub_nbr") && strings.Contains(f.Key, "subscriber:hash(s_id), lookup(sub_nbr") {
			dir++
			if f.After == nil || f.Before == nil || f.After.WorkPerS >= f.Before.WorkPerS {
				t.Errorf("tatp: %s: the lookup saves no work: %+v -> %+v", f.Target, f.Before, f.After)
			}
		}
	}
	if dir != 3 {
		t.Errorf("tatp: %d phone-number lookups routed through a directory; want 3", dir)
	}
}

// TestSaltWhenWritesAreHot: a device that sends half of 4,000 inserts/s,
// with no reads, on 8 shards of 1,000 units/s. Isolating it leaves its own
// shard at 2,000/s; salting it over K = 2,000 / (1,000 / 2) = 4 buckets
// spreads its writes to 500/s per bucket and costs no reads, so the
// numbers favour salting and it is proposed with K = 4.
func TestSaltWhenWritesAreHot(t *testing.T) {
	spec, err := scenario.Parse([]byte(`name: iot
shards: 8
capacity: 1000
seed: 1
tables:
  - name: events
    rows: 20000
    columns:
      - {name: device_id, gen: uniform, distinct: 5000, celebrity: 0.5}
      - {name: seq, gen: sequential}
operations:
  - {name: record an event, table: events, kind: insert, rate: 4000}
  - {name: a device's events, table: events, rate: 10, where: {device_id: "?"}}
candidates: [hash(device_id)]
`), "iot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(spec, "")
	if err != nil {
		t.Fatal(err)
	}
	adv, err := advisor.Recommend(w, advisor.Options{Shards: w.Shards})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range adv.Candidates[0].Fixes {
		if f.Kind == "salt" && strings.Contains(f.Key, ", 4, top=1)") {
			found = true
		}
	}
	if !found {
		t.Errorf("want the hot device salted over K = 4 buckets: %+v", adv.Candidates[0].Fixes)
	}
}

// TestScatterFixByKind: the remedy for an operation that asks every shard
// depends on what it is. A delete that binds no key must still reach every
// shard that may hold a matching row, so a read model is no fix for it
// (it is to be written by key, or run shard by shard as maintenance); a
// scan of a range of the key is served by range partitioning on it, not
// hidden in a read model; and neither is counted as removed from the
// serving shards in "after fixes".
func TestScatterFixByKind(t *testing.T) {
	spec := `name: kinds
shards: 8
seed: 1
tables:
  - name: events
    rows: 5000
    columns:
      - {name: device_id, gen: uniform, distinct: 500}
      - {name: kind, gen: uniform, distinct: 400}
operations:
  - {name: read a device, table: events, rate: 1000, where: {device_id: "?"}}
  - {name: purge a kind, table: events, kind: delete, rate: 50, where: {kind: "?"}}
  - {name: purge everything, table: events, kind: delete, rate: 20}
candidates: [hash(device_id)]
`
	file := filepath.Join(t.TempDir(), "kinds.yaml")
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	adv := adviseFile(t, file)
	best := adv.Candidates[0]
	if hasFix(best, "read-model", "purge") {
		t.Errorf("a delete got a read model: %+v", best.Fixes)
	}
	if !hasFix(best, "write-by-key", "purge everything") {
		t.Errorf("purge everything (binds no key): want write-by-key, got %+v", best.Fixes)
	}
	// kind has 400 values over 5,000 rows: 12.5 rows a value, on about
	// 8 x (1 - (7/8)^12.5) = 6.3 of the 8 shards, so no directory makes
	// the delete single-shard.
	if !hasFix(best, "write-by-key", "purge a kind") || hasFix(best, "global-index", "purge a kind") {
		t.Errorf("purge a kind (12.5 rows a kind): want write-by-key, got %+v", best.Fixes)
	}
	// Deletes are not taken off the serving shards by a fix: after
	// fixes, the busiest shard still does their work.
	if c := best.Criteria; c.AfterFixes < c.MaxShardWork*0.999 {
		t.Errorf("after fixes %v < busiest %v: a fix hid the deletes' work", c.AfterFixes, c.MaxShardWork)
	}

	// YCSB's workload E scans a range of the key: under hash the fix is a
	// range key, not a read model.
	adv = adviseFile(t, "../scenario/benchmarks/ycsb.yaml")
	for _, as := range adv.Candidates {
		if as.Key != "hash(ycsb_key)" {
			continue
		}
		if hasFix(as, "read-model", "scan") || !hasFix(as, "range-key", "scan") {
			t.Errorf("ycsb hash(ycsb_key): want a range-key fix for the scans, not a read model: %+v", as.Fixes)
		}
	}
}

// TestIsolationDoesNotAddOverCapacity: each dedicated shard of an
// isolation is one fewer for the other values, so isolating more whales
// can leave more shards over capacity than before. The workspace's 5
// largest workspaces did (14 shards over 800 units/s, 13 before); the
// isolation proposed must leave no more over capacity than the design
// had, and no more than isolating fewer whales would (each count scored
// here on its own).
func TestIsolationDoesNotAddOverCapacity(t *testing.T) {
	s, err := scenario.Builtin("workspace")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	adv, err := advisor.Recommend(w, advisor.Options{Shards: w.Shards})
	if err != nil {
		t.Fatal(err)
	}
	as := adv.Candidates[0]
	for _, f := range as.Fixes {
		if f.Kind != "isolate" {
			continue
		}
		if f.After.OverCapacity > f.Before.OverCapacity {
			t.Errorf("%s leaves %d shards over capacity, %d before", f.Key, f.After.OverCapacity, f.Before.OverCapacity)
		}
		for k := 1; k <= 5; k++ { // the 5 values above 1.5 fair shares
			c, err := sim.Score(w, fmt.Sprintf("isolate(hash(workspace_id), top=%d)", k), sim.Options{Shards: w.Shards})
			if err != nil {
				continue
			}
			if len(c.OverCapacity) < f.After.OverCapacity {
				t.Errorf("%s leaves %d shards over capacity; isolating %d leaves %d", f.Key, f.After.OverCapacity, k, len(c.OverCapacity))
			}
		}
		return
	}
	t.Fatalf("no isolation proposed for %s", as.Key)
}

// TestRecommend_Current: the design in use is scored as the baseline. On
// social (seed 001: hash(user_id), every post read by its user), a design
// in use that is the recommended one is kept (its own key, no rival can
// beat it beyond noise: the same design scores the same); range(created_at),
// rejected as monotonic (every insert on the last range), is not, and the
// summary says to change it (after the capacity line, which comes
// first). A design already among the candidates is
// marked, not added twice.
func TestRecommend_Current(t *testing.T) {
	s, err := scenario.Builtin("social")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		current string
		keep    bool
	}{{"hash(user_id)", true}, {"range(created_at)", false}} {
		adv, err := advisor.Recommend(w, advisor.Options{Shards: w.Shards, Current: tc.current, CurrentLabel: "in use (test)"})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, as := range adv.Candidates {
			if as.Key == tc.current {
				n++
				if !as.InUse || !strings.HasPrefix(as.Verdict, "in use (test); ") {
					t.Errorf("%s: in_use %v, verdict %q", tc.current, as.InUse, as.Verdict)
				}
			}
		}
		if n != 1 || adv.InUse != tc.current || adv.KeepInUse != tc.keep || (adv.Recommended == tc.current) != tc.keep {
			t.Errorf("%s: %d candidates of it, in use %q, keep %v, recommended %q; want 1, keep %v", tc.current, n, adv.InUse, adv.KeepInUse, adv.Recommended, tc.keep)
		}
		want := "Change the design in use, " + tc.current
		if tc.keep {
			want = "Keep the design in use, " + tc.current
		}
		said := false
		for _, line := range adv.Summary {
			said = said || strings.HasPrefix(line, want)
		}
		if !said {
			t.Errorf("%s: summary %q, want a line opening with %q", tc.current, adv.Summary, want)
		}
	}
}

// TestFixKindSlotsVsNodes: the read-model threshold for a lookup column
// (fewer than 10 distinct values per machine serving it) counts the
// nodes the data is served from, not the slots it is placed in: user_id
// has 50 distinct values, more than 10 x 4 nodes = 40, so under
// hash(post_id) "read by user" gets the same kind of fix on 32 slots over
// 4 nodes as on 4 shards, not a read model (50 < 10 x 32 slots).
func TestFixKindSlotsVsNodes(t *testing.T) {
	spec, err := scenario.Parse([]byte(`name: posts
shards: 4
seed: 1
tables:
  - name: posts
    rows: 4000
    columns:
      - {name: post_id, gen: sequential}
      - {name: user_id, gen: uniform, distinct: 50}
operations:
  - {name: read by user, table: posts, rate: 1000, where: {user_id: "?"}}
  - {name: read a post, table: posts, rate: 1000, where: {post_id: "?"}}
candidates: [hash(post_id)]
`), "posts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(spec, "")
	if err != nil {
		t.Fatal(err)
	}
	kind := func(o advisor.Options) string {
		o.Keys = []string{"hash(post_id)"}
		adv, err := advisor.Recommend(w, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range adv.Candidates[0].Fixes {
			if f.Target == "read by user" {
				return f.Kind
			}
		}
		return ""
	}
	nodes, err := sim.NewNodes(32, 4, "contiguous")
	if err != nil {
		t.Fatal(err)
	}
	on4 := kind(advisor.Options{Shards: 4})
	onSlots := kind(advisor.Options{Shards: 32, Nodes: nodes})
	if on4 == "" || on4 == "read-model" || onSlots != on4 {
		t.Errorf("read by user: fix %q on 4 shards, %q on 32 slots over 4 nodes; want the same, not a read model (50 values > 10 x 4 nodes)", on4, onSlots)
	}
}
