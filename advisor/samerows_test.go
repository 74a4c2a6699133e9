package advisor

import (
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
)

// TestSameRowsUnsampled: without a row sample (a workload read from a
// log) no sampled row moves between hash(id) and hash(tenant), which is
// no evidence that they place rows alike: unknown, so not the same
// placement (both candidates kept). Under vitess, hash(id) and hash(id,
// vindex=hash) are the same vindex on the same column: the same
// placement, sample or not.
func TestSameRowsUnsampled(t *testing.T) {
	w := &shardkey.Workload{Tables: []*shardkey.Table{{Name: "t", Columns: []*shardkey.Column{
		{Name: "id", Type: shardkey.Int64}, {Name: "tenant", Type: shardkey.Int64}}}}, Shards: 4}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	check := func(engine, a, b string, want bool) {
		t.Helper()
		eng, err := partition.Lookup(engine)
		if err != nil {
			t.Fatal(err)
		}
		if got := sameRows(&Assessment{Key: a, w: w}, &Assessment{Key: b, w: w}, sim.Options{Shards: 4, Engine: eng}); got != want {
			t.Errorf("%s: sameRows(%s, %s) = %v; want %v", engine, a, b, got, want)
		}
	}
	check("generic", "hash(id)", "hash(tenant)", false)
	check("vitess", "hash(id)", "hash(tenant)", false)
	check("vitess", "hash(id)", "hash(id, vindex=hash)", true)
	check("vitess", "hash(id)", "hash(id, vindex=xxhash)", false)
}
