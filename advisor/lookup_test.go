package advisor_test

import (
	"math"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/partition"
)

// lookupUsers: 96 users on 8 shards under Vitess's numeric vindex, whose
// keyspace id is the value's 8 bytes, so value v is on shard v>>61 (key
// ranges -20, 20-40, ...; values stay below 2^63, on shards 0-3): user i
// is sh(i%4)+i, on shard i%4; its phone sh((i+1)%4)+i is on lookup shard
// (i+1)%4, never its row's. Reads by user_id (100/s, every user alike), reads by
// phone (10/s, every phone alike), and inserts at the given rate of a user
// on shard 0 whose phone is on shard 3.
func lookupUsers(t *testing.T, insertRate float64) *shardkey.Workload {
	t.Helper()
	sh := func(k int) int64 { return int64(k) << 61 }
	const n = 96
	tb := &shardkey.Table{Name: "users", Rows: n, Columns: []*shardkey.Column{
		{Name: "user_id", Type: shardkey.Int64}, {Name: "phone", Type: shardkey.Int64}}}
	i64 := func(v int64) shardkey.Value { return shardkey.Value{Type: shardkey.Int64, Int: v} }
	var byPhone, byID []shardkey.Instance
	for i := 0; i < n; i++ {
		tb.Columns[0].Ints = append(tb.Columns[0].Ints, sh(i%4)+int64(i))
		tb.Columns[1].Ints = append(tb.Columns[1].Ints, sh((i+1)%4)+int64(i))
		byID = append(byID, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: i64(sh(i%4) + int64(i))}}})
		byPhone = append(byPhone, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 1, Op: shardkey.Eq, Val: i64(sh((i+1)%4) + int64(i))}}})
	}
	w := &shardkey.Workload{Name: "users", Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{
		{Name: "by id", Table: 0, Kind: shardkey.Read, Rate: 100, Instances: byID},
		{Name: "by phone", Table: 0, Kind: shardkey.Read, Rate: 10, Instances: byPhone},
		{Name: "new user", Table: 0, Kind: shardkey.Insert, Rate: insertRate, Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{
			{Col: 0, Op: shardkey.Eq, Val: i64(1000)}, {Col: 1, Op: shardkey.Eq, Val: i64(sh(3) + 1000)}}}}},
	}}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestLookupFix: the advisor's fix for reads by a non-key column is the
// design with lookup(col), re-simulated, its insert cost stated; with
// numbers worked by hand. Before: by id 100 x 1 + by phone 10 x 8 (scatter)
// + inserts 2 x 1 = 182 units/s. After: by phone reads the lookup's shard
// and then the row's, 10 x 2; each insert writes its row and its lookup row
// (on shard 3, not the row's 0), 2 x 2: 100 + 20 + 4 = 124.
func TestLookupFix(t *testing.T) {
	eng, err := partition.Lookup("vitess-numeric")
	if err != nil {
		t.Fatal(err)
	}
	adv, err := advisor.Recommend(lookupUsers(t, 2), advisor.Options{Shards: 8, Engine: eng, Keys: []string{"hash(user_id)"}})
	if err != nil {
		t.Fatal(err)
	}
	var fix *advisor.Fix
	for i, f := range adv.Candidates[0].Fixes {
		if f.Kind == "global-index" && f.Target == "by phone" {
			fix = &adv.Candidates[0].Fixes[i]
		}
	}
	if fix == nil {
		t.Fatalf("no lookup fix for by phone: %+v; expensive %+v; viable %v", adv.Candidates[0].Fixes, adv.Candidates[0].Expensive, adv.Candidates[0].Viable)
	}
	if want := "hash(user_id); users:hash(user_id), lookup(phone)"; fix.Key != want {
		t.Errorf("fix key %q; want %q", fix.Key, want)
	}
	if math.Abs(fix.Before.WorkPerS-182) > 1e-9 || math.Abs(fix.After.WorkPerS-124) > 1e-9 {
		t.Errorf("work %v -> %v; want 182 -> 124", fix.Before.WorkPerS, fix.After.WorkPerS)
	}
	// Shard 0 before: a quarter of the reads by id (25), every read by
	// phone (10), the inserts (2). After: 25, the reads of its quarter of
	// the phones' rows (2.5) and of the phones on its lookup shard (2.5),
	// the inserts' rows (2).
	if math.Abs(fix.Before.MaxShardWork-37) > 1e-9 || math.Abs(fix.After.MaxShardWork-32) > 1e-9 {
		t.Errorf("busiest shard %v -> %v; want 37 -> 32", fix.Before.MaxShardWork, fix.After.MaxShardWork)
	}
	for _, want := range []string{
		"a Vitess lookup_unique vindex",
		"each request reads the lookup table's one shard, then the one shard of the row (1.00 per request here)",
		"each of the 2.00 inserts and deletes/s to users also writes a lookup row (+2.00 units/s), 100% of them on another shard than their row",
	} {
		if !strings.Contains(fix.Text, want) {
			t.Errorf("fix text lacks %q:\n%s", want, fix.Text)
		}
	}
	// At 200 inserts/s the lookup rows cost 200 units/s to save 60: no
	// lookup is proposed.
	adv, err = advisor.Recommend(lookupUsers(t, 200), advisor.Options{Shards: 8, Engine: eng, Keys: []string{"hash(user_id)"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range adv.Candidates[0].Fixes {
		if f.Kind == "global-index" {
			t.Errorf("a lookup that costs more than it saves was proposed: %s", f.Text)
		}
	}
}
