package advisor

import (
	"testing"

	"github.com/shardkey/shardkey"
)

// TestOneValueKeyRejected: a log (no rows) whose 200 reads all bind a = 5
// and each its own b. A key on a puts every request on one shard
// whatever the function: not a shard key of this workload, rejected and
// said why (the fresh-clone review found hash(a) and range(a) "possible"
// at 8.00x the mean, the hot-unit limit letting a key of one value
// through as it lets few keys their uneven spread). b, 200 values, is
// recommended.
func TestOneValueKeyRejected(t *testing.T) {
	w := &shardkey.Workload{Name: "one", Shards: 8, Tables: []*shardkey.Table{{Name: "t", Columns: []*shardkey.Column{{Name: "a", Type: shardkey.Int64}, {Name: "b", Type: shardkey.Int64}}}}}
	op := &shardkey.Operation{Name: "read t where a = ? and b = ?", Table: 0, Kind: shardkey.Read, Rate: 10}
	for i := range 200 {
		op.Instances = append(op.Instances, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{
			{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(5)},
			{Col: 1, Op: shardkey.Eq, Val: shardkey.IntValue(int64(i))},
		}})
	}
	w.Ops = []*shardkey.Operation{op}
	adv, err := Recommend(w, Options{Shards: 8, Keys: []string{"hash(a)", "range(a)", "hash(b)"}})
	if err != nil {
		t.Fatal(err)
	}
	if adv.Recommended != "hash(b)" {
		t.Errorf("recommended %q, want hash(b)", adv.Recommended)
	}
	for _, as := range adv.Candidates {
		if as.Key == "hash(b)" {
			continue
		}
		want := "every one of the 200 statements naming a binds one value, 5"
		if as.Viable || as.Rejection != want {
			t.Errorf("%s: viable %v, rejection %q; want rejected: %q", as.Key, as.Viable, as.Rejection, want)
		}
	}
}
