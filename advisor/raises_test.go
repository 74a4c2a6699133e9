package advisor

import (
	"testing"

	"github.com/shardkey/shardkey/sim"
)

// TestRaised: what a fix raises, by hand: 11 -> 12 shards over is a
// rise, 12 -> 11 not; a busiest shard 21.7 -> 25.6/s is (18% more),
// 21.7 -> 21.75 is not (under raiseTol, 0.5%).
func TestRaised(t *testing.T) {
	for _, c := range []struct {
		b, a *Nums
		want string
	}{
		{&Nums{OverCapacity: 11, MaxShardWork: 7798}, &Nums{OverCapacity: 12, MaxShardWork: 6891}, "the shards over capacity from 11 to 12"},
		{&Nums{OverCapacity: 12, MaxShardWork: 7798}, &Nums{OverCapacity: 11, MaxShardWork: 6891}, ""},
		{&Nums{MaxShardWork: 21.7}, &Nums{MaxShardWork: 25.6}, "the busiest shard from 21.7/s to 25.6/s"},
		{&Nums{MaxShardWork: 21.7}, &Nums{MaxShardWork: 21.75}, ""},
		{&Nums{OverCapacity: 1, MaxShardWork: 900}, &Nums{OverCapacity: 2, MaxShardWork: 950}, "the shards over capacity from 1 to 2 and the busiest shard from 900/s to 950/s"},
	} {
		if got := raised(c.b, c.a, "shard"); got != c.want {
			t.Errorf("raised(%+v, %+v) = %q; want %q", *c.b, *c.a, got, c.want)
		}
	}
	// Isolating 2 of 8 shards' values: shards 6 and 7 are theirs; over
	// capacity 1, 6 and 7: both whales' own, and 1 of the 6 others.
	got := isolationWhy(&sim.Candidate{OverCapacity: []int{1, 6, 7}}, 8, 2)
	if want := "each whale's own shard is over it by itself, and the other values share the 6 shards left (1 over)"; got != want {
		t.Errorf("isolationWhy = %q; want %q", got, want)
	}
}
