package advisor

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
)

// whaleShop is a shop with a whale on a table the design keys by its own
// key: 400 order lines over 40 skus, 10 each (each sku 10/400 = 2.5% of
// the lines), and 100 orders, 40 of them account 7's and one each for
// accounts 100..159 (account 7: 40/100 = 40% of the orders). Reads: 100
// a second of an account's orders, each account's share its orders'
// (account 7: 40/s), and 100 a second of a sku's lines, evenly. 8
// shards, 35 units/s a shard: the mean shard does 200/8 = 25/s, under
// it, but account 7's 40/s alone is over it.
func whaleShop() *shardkey.Workload {
	items := &shardkey.Table{Name: "order_items", Rows: 400, Columns: []*shardkey.Column{{Name: "sku", Type: shardkey.Int64}}}
	for r := 0; r < 400; r++ {
		items.Columns[0].Ints = append(items.Columns[0].Ints, int64(1+r%40))
	}
	orders := &shardkey.Table{Name: "orders", Rows: 100, Columns: []*shardkey.Column{{Name: "account_id", Type: shardkey.Int64}}}
	for r := 0; r < 40; r++ {
		orders.Columns[0].Ints = append(orders.Columns[0].Ints, 7)
	}
	for a := 100; a < 160; a++ {
		orders.Columns[0].Ints = append(orders.Columns[0].Ints, int64(a))
	}
	eq := func(v int64) []shardkey.Cond {
		return []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(v)}}
	}
	byAccount := &shardkey.Operation{Name: "an account's orders", Table: 1, Kind: shardkey.Read, Rate: 100,
		Instances: []shardkey.Instance{{Weight: 40, Conds: eq(7)}}}
	for a := 100; a < 160; a++ {
		byAccount.Instances = append(byAccount.Instances, shardkey.Instance{Weight: 1, Conds: eq(int64(a))})
	}
	bySku := &shardkey.Operation{Name: "a sku's lines", Table: 0, Kind: shardkey.Read, Rate: 100}
	for s := 1; s <= 40; s++ {
		bySku.Instances = append(bySku.Instances, shardkey.Instance{Weight: 1, Conds: eq(int64(s))})
	}
	return &shardkey.Workload{Name: "whale shop", Tables: []*shardkey.Table{items, orders},
		Ops: []*shardkey.Operation{byAccount, bySku}, Shards: 8, Capacity: 35}
}

// TestLargestPartitionEveryTable: the largest partition of a design with
// keys per table is the largest over every table it shards. Under
// hash(sku); orders:hash(account_id) the main table (the most rows) is
// order_items, whose largest sku holds 2.5%; account 7 holds 40% of
// orders, 3.2 times the fair share 1/8 = 12.5% and over the whale
// threshold 1.5/8 = 18.75%: the design's largest partition, named with
// its table, column, value and measure, in the reasons, the fixes (a
// directory override isolating it on orders, re-simulated from the rows;
// a cache, its 40 reads/s being over the 35/s a shard can do: it has no
// writes, so each read replica has all 35/s for reads, ceil(40 / (35 -
// 0)) = 2 replicas) and the over-capacity line (its 40/s alone is
// over 35/s, so no shard count fits). Before, the figure was 2.5%,
// bounded, and the whale unnamed.
func TestLargestPartitionEveryTable(t *testing.T) {
	w := whaleShop()
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	const design = "hash(sku); orders:hash(account_id)"
	adv, err := Recommend(w, Options{Shards: 8, Engine: partition.Generic{}, Keys: []string{design}})
	if err != nil {
		t.Fatal(err)
	}
	as := adv.Candidates[0]
	cr := as.Criteria
	if cr.LargestPartition != 0.40 || cr.Bounded || cr.LargestUnknown {
		t.Errorf("largest partition %v, bounded %v, unknown %v; want 0.40, false, false", cr.LargestPartition, cr.Bounded, cr.LargestUnknown)
	}
	p := cr.LargestOf
	if p == nil {
		t.Fatal("largest_partition_of missing")
	}
	if strings.Join(p.Tables, ",") != "orders" || strings.Join(p.Columns, ",") != "account_id" || p.Value != "7" || p.Measure != "rows" || p.Group {
		t.Errorf("largest partition of %+v; want orders.account_id = 7, rows", *p)
	}
	want := "the largest partition of the design is orders.account_id = 7: it holds 40% of the rows of orders, a whale (one shard's fair share is 1/8 = 12.5%; a whale holds more than 1.5 times it, 18.8%)"
	if !containsPrefix(as.Reasons, want) {
		t.Errorf("reasons lack %q:\n%s", want, strings.Join(as.Reasons, "\n"))
	}
	var iso, cache *Fix
	for i := range as.Fixes {
		switch as.Fixes[i].Kind {
		case "isolate":
			iso = &as.Fixes[i]
		case "cache":
			cache = &as.Fixes[i]
		}
	}
	if iso == nil || iso.Key != "hash(sku); orders:isolate(hash(account_id), top=1)" || iso.Target != "account_id = 7 (40% of the rows of orders)" {
		t.Fatalf("isolate fix %+v; want orders:isolate(hash(account_id), top=1) for account_id = 7 (40%% of the rows of orders)", iso)
	}
	// Its own shard keeps the whale's 40/s: after the fix the busiest
	// shard does at least that.
	if iso.After == nil || iso.After.MaxShardWork < 40-1e-9 {
		t.Errorf("after isolation %+v; the whale's shard does 40/s at least", iso.After)
	}
	if cache == nil || !strings.Contains(cache.Text, "orders.account_id = 7's ~40.0 requests/s (40.0 reads/s, 0.00 writes/s") || !strings.Contains(cache.Text, "serve them from 2 read replicas") {
		t.Errorf("cache fix %+v; want account 7's 40 reads/s and 2 read replicas", cache)
	}
	wantCap := "its work is one key value's, the whale orders.account_id = 7 (40% of the rows of orders), which every shard count keeps on one shard"
	if !strings.Contains(strings.Join(adv.Summary, "\n"), wantCap) {
		t.Errorf("summary lacks %q:\n%s", wantCap, adv.Summary)
	}
}

func containsPrefix(list []string, p string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// TestWhaleStrict: a value is a whale only past 1.5 times one shard's
// fair share. On 8 shards the fair share is 12.5% and the threshold
// 18.75%: a value at 1/8 (a perfectly even key of 8 values) or at 15%
// is no whale; at 20% it is. Before, anything above 12.5% was called a
// whale ("15% ... more than one shard's fair share (12%)").
func TestWhaleStrict(t *testing.T) {
	for _, c := range []struct {
		share float64
		n     int
		want  bool
	}{
		{1.0 / 8, 8, false},
		{0.15, 8, false},
		{0.1875, 8, false}, // exactly 1.5 fair shares
		{0.20, 8, true},
		{3131.0 / 100000, 32, false}, // chat: 3.131% against 1/32 = 3.125%
		{0.05, 32, true},             // over 1.5/32 = 4.6875%
	} {
		if got := isWhale(c.share, c.n); got != c.want {
			t.Errorf("isWhale(%v, %d) = %v; want %v", c.share, c.n, got, c.want)
		}
	}
	// 20,000 orders: account 1 has 3,000 (15%) or 4,000 (20%), every
	// other account one; hash(account_id) on 8 shards. So many rows that
	// the shares' 95% intervals (15% +- 0.5 points, 20% +- 0.6) are on
	// one side of 18.75% (TestWhaleEvidence has 20 rows).
	check := func(mine int, bounded bool) {
		t.Helper()
		tab := &shardkey.Table{Name: "orders", Rows: 20000, Columns: []*shardkey.Column{{Name: "account_id", Type: shardkey.Int64}}}
		for r := 0; r < 20000; r++ {
			v := int64(100 + r)
			if r < mine {
				v = 1
			}
			tab.Columns[0].Ints = append(tab.Columns[0].Ints, v)
		}
		op := &shardkey.Operation{Name: "an account's orders", Table: 0, Kind: shardkey.Read, Rate: 10,
			Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(1)}}}}}
		w := &shardkey.Workload{Tables: []*shardkey.Table{tab}, Ops: []*shardkey.Operation{op}, Shards: 8}
		if err := w.Validate(); err != nil {
			t.Fatal(err)
		}
		adv, err := Recommend(w, Options{Shards: 8, Engine: partition.Generic{}, Keys: []string{"hash(account_id)"}})
		if err != nil {
			t.Fatal(err)
		}
		as := adv.Candidates[0]
		share := float64(mine) / 20000
		if as.Criteria.LargestPartition != share || as.Criteria.Bounded != bounded || as.Criteria.LargestUnknown {
			t.Errorf("%d of 20,000 rows: largest %v bounded %v unknown %v; want %v %v false", mine, as.Criteria.LargestPartition, as.Criteria.Bounded, as.Criteria.LargestUnknown, share, bounded)
		}
		said := containsPrefix(as.Reasons, "the largest partition of the design is")
		if !bounded && !containsPrefix(as.Reasons, "the largest partition of the design is orders.account_id = 1: it holds 20% of the rows of orders, a whale") {
			said = false
		}
		if said == bounded {
			t.Errorf("%d of 20,000 rows: whale reason given %v; want %v:\n%s", mine, said, !bounded, strings.Join(as.Reasons, "\n"))
		}
	}
	check(3000, true)
	check(4000, false)
}

// TestLargestPartitionNoRows: whaleShop with no row sample of orders (a
// log): account 7 is named by 40 of every 100 reads of orders, 40% of
// the requests naming account_id there, the same whale on the traffic
// basis. The isolation cannot be re-simulated without the rows that say
// which values are hottest: it is proposed in words, without a key, and
// the over-capacity line says that no proposed fix could be
// re-simulated and names the whale.
func TestLargestPartitionNoRows(t *testing.T) {
	w := whaleShop()
	w.Tables[1].Rows = 0
	w.Tables[1].Columns[0].Ints = nil
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	adv, err := Recommend(w, Options{Shards: 8, Engine: partition.Generic{}, Keys: []string{"hash(sku); orders:hash(account_id)"}})
	if err != nil {
		t.Fatal(err)
	}
	as := adv.Candidates[0]
	p := as.Criteria.LargestOf
	if p == nil || p.Share != 0.40 || p.Measure != "requests" || p.Value != "7" || as.Criteria.Bounded {
		t.Fatalf("largest partition %+v, bounded %v; want account_id = 7, 40%% of requests, a whale", p, as.Criteria.Bounded)
	}
	var iso *Fix
	for i := range as.Fixes {
		if as.Fixes[i].Kind == "isolate" {
			iso = &as.Fixes[i]
		}
	}
	if iso == nil || iso.Key != "" || !strings.Contains(iso.Text, "not re-simulated") || !strings.Contains(iso.Text, "account_id = 7 (40% of the requests naming account_id on orders)") {
		t.Errorf("isolate fix %+v; want one in words for account_id = 7 (40%% of the requests naming account_id on orders)", iso)
	}
	sum := strings.Join(adv.Summary, "\n")
	for _, want := range []string{"no proposed fix could be re-simulated (isolating account_id = 7", "the whale orders.account_id = 7 (40% of the requests naming account_id on orders)"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
}

// TestShareInterval: the 95% intervals the whale test reads, worked by
// hand (z = 1.959964, z^2 = 3.841459; Newcombe's continuity-corrected
// score interval, lo = (2np + z^2 - 1 - z sqrt(z^2 - 2 - 1/n +
// 4p(n(1-p)+1))) / 2(n+z^2), hi likewise with +1, +2 and -1):
//
//   - 1 of 1: p = 1, the exact bound 0.025^(1/1) = 0.025 (the plain
//     score interval's n/(n+z^2) would be 0.2065, over 18.75%): unproven
//     on 8 shards; 2 of 2: sqrt(0.025) = 0.1581 < 0.1875: unproven; 3 of
//     3: 0.025^(1/3) = 0.2924: a whale;
//   - 2 of 3: (4 + 2.841459 - z sqrt(1.508126 + 5.333333)) / 13.682918
//     = (6.841459 - 5.126521) / 13.682918 = 0.1253 (the plain score
//     interval: 0.2077, a whale); hi (8.841459 + z sqrt(5.508126)) /
//     13.682918 = 0.9824: unproven;
//   - 40 of 100: (80 + 2.841459 -+ ...) / 207.682918: lo (82.841459 -
//     z sqrt(1.831459 + 97.6)) = 63.2977 -> 0.3048; hi (84.841459 + z
//     sqrt(5.831459 + 94.4)) = 104.4638 -> 0.5030: a whale, 0.3048 >
//     0.1875;
//   - 3 of 20: lo (8.841459 - z sqrt(1.791459 + 10.8)) / 47.682918 =
//     0.0396, hi (10.841459 + z sqrt(5.791459 + 9.6)) / 47.682918 =
//     0.3886: unproven;
//   - 100 of 1,000: lo (202.841459 - z sqrt(1.840459 + 360.4)) /
//     2007.682918 = 0.0825, hi (204.841459 + z sqrt(5.840459 + 359.6)) /
//     2007.682918 = 0.1207: bounded, 0.1207 <= 0.1875.
func TestShareInterval(t *testing.T) {
	check := func(k, n int, lo, hi float64, want int) {
		t.Helper()
		gl, gh := shareInterval(float64(k)/float64(n), n)
		if math.Abs(gl-lo) > 5e-4 || math.Abs(gh-hi) > 5e-4 {
			t.Errorf("shareInterval(%d/%d) = [%.4f, %.4f]; want [%.4f, %.4f]", k, n, gl, gh, lo, hi)
		}
		if got := whaleVerdict(float64(k)/float64(n), n, 8); got != want {
			t.Errorf("whaleVerdict(%d/%d, 8 shards) = %d; want %d", k, n, got, want)
		}
	}
	check(1, 1, 0.025, 1, unproven)
	check(2, 2, 0.1581, 1, unproven)
	check(3, 3, 0.2924, 1, aWhale)
	check(2, 3, 0.1253, 0.9824, unproven)
	check(40, 100, 0.3048, 0.5030, aWhale)
	check(3, 20, 0.0396, 0.3886, unproven)
	check(100, 1000, 0.0825, 0.1207, noWhale)
	// Nothing counts the observations: the point figure, as isWhale.
	if whaleVerdict(0.2, 0, 8) != aWhale || whaleVerdict(0.15, 0, 8) != noWhale {
		t.Error("whaleVerdict with n = 0 is not isWhale's")
	}
}

// TestWhaleEvidence: 20 orders, account 1 with 3 (15%) or 4 (20%) of
// them: both shares' 95% intervals straddle 1.5/8 = 18.75% (3 of 20:
// [4.0%, 39%], TestShareInterval; 4 of 20: [6.6%, 44%] by the same
// sums), so neither is shown a whale nor bounded: the largest partition is unknown (null
// share and bounded in JSON), named, with the 20 rows it rests on, and
// no isolation is proposed. Before, 4 of 20 was a 20% whale and 3 of 20
// bounded.
func TestWhaleEvidence(t *testing.T) {
	for _, mine := range []int{3, 4} {
		tab := &shardkey.Table{Name: "orders", Rows: 20, Columns: []*shardkey.Column{{Name: "account_id", Type: shardkey.Int64}}}
		for r := 0; r < 20; r++ {
			v := int64(100 + r)
			if r < mine {
				v = 1
			}
			tab.Columns[0].Ints = append(tab.Columns[0].Ints, v)
		}
		op := &shardkey.Operation{Name: "an account's orders", Table: 0, Kind: shardkey.Read, Rate: 10,
			Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(1)}}}}}
		w := &shardkey.Workload{Tables: []*shardkey.Table{tab}, Ops: []*shardkey.Operation{op}, Shards: 8, Capacity: 5}
		if err := w.Validate(); err != nil {
			t.Fatal(err)
		}
		adv, err := Recommend(w, Options{Shards: 8, Engine: partition.Generic{}, Keys: []string{"hash(account_id)"}})
		if err != nil {
			t.Fatal(err)
		}
		as := adv.Candidates[0]
		cr := as.Criteria
		if !cr.LargestUnknown || cr.LargestPartition != 0 || cr.LargestOf == nil || cr.LargestOf.Observations != 20 {
			t.Errorf("%d of 20 rows: unknown %v share %v of %+v; want unknown, 0, resting on 20 rows", mine, cr.LargestUnknown, cr.LargestPartition, cr.LargestOf)
		}
		want := "the largest partition of the design is unknown: its heaviest value, orders.account_id = 1, holds " + pct(float64(mine)/20) + " of the rows of orders, but that rests on 20 sampled rows"
		if !containsPrefix(as.Reasons, want) || containsPrefix(as.Reasons, "the largest partition of the design is orders") {
			t.Errorf("%d of 20 rows: reasons lack %q or call a whale:\n%s", mine, want, strings.Join(as.Reasons, "\n"))
		}
		for _, f := range as.Fixes {
			if f.Kind == "isolate" {
				t.Errorf("%d of 20 rows: isolation proposed for an unproven whale: %+v", mine, f)
			}
		}
		b, err := json.Marshal(cr)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"largest_partition_share":null`) || !strings.Contains(string(b), `"bounded":null`) || !strings.Contains(string(b), `"observations":20`) {
			t.Errorf("%d of 20 rows: criteria JSON %s; want a null share and bounded, 20 observations", mine, b)
		}
	}
}

// TestWhaleOneStatement: whaleShop without rows of orders, its reads of
// orders one statement naming account 7: 100% of the requests naming
// account_id there, on the evidence of one statement (exact lower end
// 0.025, under 18.75%): unknown, said with the one statement it rests
// on, and no isolation or cache proposed for it. Before: a 100% whale.
func TestWhaleOneStatement(t *testing.T) {
	w := whaleShop()
	w.Tables[1].Rows = 0
	w.Tables[1].Columns[0].Ints = nil
	w.Ops[0].Instances = w.Ops[0].Instances[:1]
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	adv, err := Recommend(w, Options{Shards: 8, Engine: partition.Generic{}, Keys: []string{"hash(sku); orders:hash(account_id)"}})
	if err != nil {
		t.Fatal(err)
	}
	as := adv.Candidates[0]
	cr := as.Criteria
	p := cr.LargestOf
	if !cr.LargestUnknown || p == nil || p.Value != "7" || p.Share != 1 || p.Observations != 1 || p.Measure != "requests" {
		t.Fatalf("largest partition %+v, unknown %v; want account_id = 7, 100%% of 1 statement, unknown", p, cr.LargestUnknown)
	}
	want := "the largest partition of the design is unknown: only one value seen: spread unknown (orders.account_id = 7, named by the one statement naming account_id;"
	if !containsPrefix(as.Reasons, want) {
		t.Errorf("reasons lack %q:\n%s", want, strings.Join(as.Reasons, "\n"))
	}
	for _, f := range as.Fixes {
		if f.Kind == "isolate" || f.Kind == "cache" {
			t.Errorf("fix proposed for an unproven whale: %+v", f)
		}
	}
}

// TestRankUnknownLargest: an unknown largest partition is neither
// bounded nor a whale in the ranking: against a design with a whale,
// equal on everything else, neither goes first on that criterion; two
// known ones are still ordered bounded first. Before, an unknown
// partition ranked as bounded (Bounded true with LargestUnknown).
func TestRankUnknownLargest(t *testing.T) {
	mk := func(bounded, unknown bool) *Assessment {
		return &Assessment{Score: &sim.Candidate{}, Criteria: Criteria{Bounded: bounded, LargestUnknown: unknown, AfterFixes: 10}}
	}
	whale, unknown, bounded := mk(false, false), mk(true, true), mk(true, false)
	if _, decided := orderBanded(unknown, whale, 0.02); decided {
		t.Error("unknown against a whale: decided; want a tie on the largest partition")
	}
	if _, decided := orderBanded(whale, unknown, 0.02); decided {
		t.Error("a whale against unknown: decided; want a tie on the largest partition")
	}
	if first, decided := orderBanded(bounded, whale, 0.02); !decided || !first {
		t.Errorf("bounded against a whale: first %v decided %v; want true true", first, decided)
	}
}

// TestRootFewValuesDistinct: a root group's share on the requests basis
// rests on its distinct values named (RootStats.Cardinality), not on the
// five top values it lists. On 8 shards the whale threshold is 1.5/8 =
// 18.75%: an even spread over 5 values (20% each) would be over it, so
// five values alone are too few to tell; over 10 values (10% each) it is
// under, so ten values are enough to judge (go-tpc's 10 warehouses).
func TestRootFewValuesDistinct(t *testing.T) {
	top := []sim.TopValue{{Value: "4", Share: 0.12}, {Value: "1", Share: 0.11}, {Value: "2", Share: 0.1}, {Value: "3", Share: 0.1}, {Value: "5", Share: 0.1}}
	p := &PartitionValue{Measure: "requests", Share: 0.12, Group: true, top: top}
	if !p.fewValues(8) {
		t.Errorf("5 values named: fewValues false; want true (1/5 = 20%% > 18.75%%)")
	}
	p.distinct = 10
	if p.fewValues(8) {
		t.Errorf("10 distinct values named (5 listed): fewValues true; want false (1/10 = 10%% < 18.75%%)")
	}
}
