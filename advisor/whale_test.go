package advisor

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
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
// a cache, its 40 reads/s being over the 35/s a shard can do: replicas
// ceil(40 / 17.5) = 3) and the over-capacity line (its 40/s alone is
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
	if cache == nil || !strings.Contains(cache.Text, "orders.account_id = 7's ~40.0 requests/s (40.0 reads/s, 0.00 writes/s") || !strings.Contains(cache.Text, "3 read replicas") {
		t.Errorf("cache fix %+v; want account 7's 40 reads/s and 3 read replicas", cache)
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
	// 20 orders: account 1 has 3 (15%) or 4 (20%), every other account
	// one; hash(account_id) on 8 shards.
	check := func(mine int, bounded bool) {
		t.Helper()
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
		w := &shardkey.Workload{Tables: []*shardkey.Table{tab}, Ops: []*shardkey.Operation{op}, Shards: 8}
		if err := w.Validate(); err != nil {
			t.Fatal(err)
		}
		adv, err := Recommend(w, Options{Shards: 8, Engine: partition.Generic{}, Keys: []string{"hash(account_id)"}})
		if err != nil {
			t.Fatal(err)
		}
		as := adv.Candidates[0]
		share := float64(mine) / 20
		if as.Criteria.LargestPartition != share || as.Criteria.Bounded != bounded {
			t.Errorf("%d of 20 rows: largest %v bounded %v; want %v %v", mine, as.Criteria.LargestPartition, as.Criteria.Bounded, share, bounded)
		}
		said := containsPrefix(as.Reasons, "the largest partition of the design is")
		if !bounded && !containsPrefix(as.Reasons, "the largest partition of the design is orders.account_id = 1: it holds 20% of the rows of orders, a whale") {
			said = false
		}
		if said == bounded {
			t.Errorf("%d of 20 rows: whale reason given %v; want %v:\n%s", mine, said, !bounded, strings.Join(as.Reasons, "\n"))
		}
	}
	check(3, true)
	check(4, false)
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
