package advisor_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/partition"
)

// textKeyed: 64 accounts (id int64, email text), read by email with
// equality (100/s, every email alike) and inserted (10/s); nothing binds
// id. Under Vitess's hash vindex, which maps unsigned integers only
// (Hash.Map, go/vt/vtgate/vindexes/hash.go: DestinationNone for text),
// hash(email) places nothing.
func textKeyed(t *testing.T) *shardkey.Workload {
	t.Helper()
	const n = 64
	tb := &shardkey.Table{Name: "accounts", Rows: n, Columns: []*shardkey.Column{
		{Name: "id", Type: shardkey.Int64}, {Name: "email", Type: shardkey.Text}}}
	var reads []shardkey.Instance
	for i := 0; i < n; i++ {
		email := fmt.Sprintf("user%d@example.com", i)
		tb.Columns[0].Ints = append(tb.Columns[0].Ints, int64(i+1))
		tb.Columns[1].Strs = append(tb.Columns[1].Strs, email)
		reads = append(reads, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 1, Op: shardkey.Eq, Val: shardkey.Value{Type: shardkey.Text, Str: email}}}})
	}
	w := &shardkey.Workload{Name: "accounts", Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{
		{Name: "by email", Table: 0, Kind: shardkey.Read, Rate: 100, Instances: reads},
		{Name: "sign up", Table: 0, Kind: shardkey.Insert, Rate: 10, Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{
			{Col: 0, Op: shardkey.Eq, Val: shardkey.Value{Type: shardkey.Int64, Int: 1000}},
			{Col: 1, Op: shardkey.Eq, Val: shardkey.Value{Type: shardkey.Text, Str: "new@example.com"}}}}}},
	}}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestAdviseVitessTextKey: under --engine vitess a text key read by
// equality is a candidate keyed by unicode_loose_md5, the vindex Vitess
// users shard a varchar by (and the one a lookup table's text column and
// --emit vschema fall back to), not skipped: every request (a read by
// one email, an insert of one row) asks one shard, fan-out 1.00. A design
// the user names is scored as written.
func TestAdviseVitessTextKey(t *testing.T) {
	eng, err := partition.Lookup("vitess")
	if err != nil {
		t.Fatal(err)
	}
	const want = "hash(email, vindex=unicode_loose_md5)"
	adv, err := advisor.Recommend(textKeyed(t), advisor.Options{Shards: 8, Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	if adv.Recommended != want {
		t.Fatalf("recommended %q; want %q (warnings %q)", adv.Recommended, want, adv.Warnings)
	}
	c := adv.Candidates[0]
	if got := fmt.Sprintf("%.2f", c.Score.FanoutMean); got != "1.00" || c.Criteria.SingleShard != 1 {
		t.Errorf("fan-out %s, single-shard %v; want 1.00, 1", got, c.Criteria.SingleShard)
	}
	for _, wn := range adv.Warnings {
		if strings.Contains(wn, "maps unsigned integers only") {
			t.Errorf("warning %q: the text key was skipped", wn)
		}
	}
	// The shared choice by type, as a lookup table's column and emit
	// take it.
	for typ, vt := range map[shardkey.Type]string{shardkey.Text: "unicode_loose_md5", shardkey.Bytes: "binary_md5", shardkey.Int64: "hash", shardkey.Float64: "xxhash", shardkey.Timestamp: "xxhash"} {
		if got := shardkey.VindexFor(typ); got != vt {
			t.Errorf("VindexFor(%v) = %q; want %q", typ, got, vt)
		}
	}

	// Under an engine whose vindex maps text, the generated key is left to it.
	xx, err := partition.Lookup("vitess-xxhash")
	if err != nil {
		t.Fatal(err)
	}
	adv, err = advisor.Recommend(textKeyed(t), advisor.Options{Shards: 8, Engine: xx})
	if err != nil {
		t.Fatal(err)
	}
	if adv.Recommended != "hash(email)" {
		t.Errorf("vitess-xxhash: recommended %q; want hash(email)", adv.Recommended)
	}

	// The design in use is compared like for like: not rewritten.
	const cur = "hash(email, vindex=unicode_loose_xxhash)"
	adv, err = advisor.Recommend(textKeyed(t), advisor.Options{Shards: 8, Engine: eng, Current: cur})
	if err != nil {
		t.Fatal(err)
	}
	if adv.InUse != cur {
		t.Errorf("in use %q; want %q", adv.InUse, cur)
	}
	// Named with -k: scored as written, which the hash vindex cannot place.
	if _, err := advisor.Recommend(textKeyed(t), advisor.Options{Shards: 8, Engine: eng, Keys: []string{"hash(email)"}}); err == nil || !strings.Contains(err.Error(), "maps unsigned integers only") {
		t.Errorf("-k hash(email) under vitess: err %v; want the hash vindex's refusal", err)
	}
}
