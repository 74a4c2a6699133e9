package report

import (
	"testing"

	"github.com/shardkey/shardkey/sim"
)

// TestPlacedOnOneShard: the score header says "on 1 shard", not "on 1
// shards" (fresh-clone review), and "on 8 shards".
func TestPlacedOnOneShard(t *testing.T) {
	for n, want := range map[int]string{1: "1 shard", 8: "8 shards"} {
		if got := placedOn(n, &sim.Candidate{}); got != want {
			t.Errorf("placedOn(%d) = %q; want %q", n, got, want)
		}
	}
}
