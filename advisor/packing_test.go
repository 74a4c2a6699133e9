package advisor

import (
	"strings"
	"testing"
)

// TestPackingNote: with the whales split, 45,714 units/s at 800 a shard
// need at least ceil(57.14) = 58 shards whatever the placement; when
// hashing needs 146 (over 1.5 times that), the headline names the gap.
// Without a split fix, or when hashing needs under 1.5 times the bound
// (86 < 87), nothing is said.
func TestPackingNote(t *testing.T) {
	cp := func(applied string, need int) *Capacity {
		return &Capacity{Capacity: 800, Applied: []string{applied}, kinds: []string{strings.Fields(applied)[0]}, After: &Nums{WorkPerS: 45714}, ShardsNeeded: need}
	}
	if got := packingNote(cp("split the 10 heaviest values of workspace_id", 146)); !strings.Contains(got, "no placement fits on fewer than 58 (45,714 units/s") || !strings.Contains(got, "the rest of the 146 is values colliding under hash") {
		t.Errorf("packingNote = %q; want the bound 58 and the 146", got)
	}
	if got := packingNote(cp("isolate workspace_id = 1", 146)); got != "" {
		t.Errorf("without a split: %q; want nothing", got)
	}
	if got := packingNote(cp("split workspace_id = 1", 86)); got != "" {
		t.Errorf("86 shards against a bound of 58: %q; want nothing", got)
	}
	if got := packingNote(cp("split workspace_id = 1", 87)); got == "" {
		t.Error("87 shards against a bound of 58 (1.5 times): want the note")
	}
}

// TestCapacityTextSpreadWhale: once the whale is bucketed, split or
// salted by an applied fix, the headline no longer says that every shard
// count keeps it on one shard (the fix just spread it); under Cassandra
// the remedy is more buckets, not a directory it does not have.
func TestCapacityTextSpreadWhale(t *testing.T) {
	whale := &PartitionValue{Share: 0.16}
	for _, c := range []struct {
		engine, applied, want, not string
	}{
		{"cassandra", "bucket workspace_id = 1", "with the whales bucketed", "directory"},
		{"generic", "split the 10 heaviest values of workspace_id", "with the whales split", "every shard count keeps on one shard"},
		{"generic", "isolate workspace_id = 1", "every shard count keeps on one shard", "with the whales"},
	} {
		cp := &Capacity{Capacity: 800, Applied: []string{c.applied}, kinds: []string{strings.Fields(c.applied)[0]}, Before: &Nums{OverCapacity: 9, MaxShardWork: 8520}, After: &Nums{OverCapacity: 18, MaxShardWork: 2589}, engine: c.engine, whale: whale}
		got := capacityText(cp, 64)
		if !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("%s, %s: %q; want %q and not %q", c.engine, c.applied, got, c.want, c.not)
		}
	}
}
