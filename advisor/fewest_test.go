package advisor

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sim"
)

// TestFewestShards: a design whose busiest shard on m shards does
// 400 + 11,100/m units/s (one hot value's 400/s plus an even share of
// the rest) against a capacity of 500/s fits from 11,100/m <= 100, m >=
// 111 (on 110 the busiest does 400 + 100.9 > 500): 111 shards, not the
// 128 a doubling from 32 finds. One key value's 600/s alone fits on no
// count: 0, after the doubling sees the busiest no longer fall.
func TestFewestShards(t *testing.T) {
	fake := func(busiest func(m int) float64) (func(int) (*sim.Candidate, error), *[]int) {
		var tried []int
		return func(m int) (*sim.Candidate, error) {
			tried = append(tried, m)
			c := &sim.Candidate{Shards: m, MaxShardWork: busiest(m)}
			if c.MaxShardWork > 500 {
				c.OverCapacity = []int{0}
			}
			return c, nil
		}, &tried
	}
	hot := func(m int) float64 { return 400 + 11100/float64(m) }
	score, tried := fake(hot)
	if got := fewestShards(32, &sim.Candidate{MaxShardWork: hot(32), OverCapacity: []int{0}}, noneOver, score); got != 111 {
		t.Errorf("fewest shards %d (tried %v); want 111", got, *tried)
	}
	whale := func(int) float64 { return 600 }
	score, tried = fake(whale)
	if got := fewestShards(32, &sim.Candidate{MaxShardWork: 600, OverCapacity: []int{0}}, noneOver, score); got != 0 {
		t.Errorf("one value over capacity: fewest shards %d (tried %v); want 0", got, *tried)
	}
	// Near the limit: the doubling stops at shardkey.MaxShards.
	score, _ = fake(func(m int) float64 { return 500 * 40000 / float64(m) })
	if got := fewestShards(1000, &sim.Candidate{MaxShardWork: 20000, OverCapacity: []int{0}}, noneOver, score); got != 40000 {
		t.Errorf("fewest shards %d; want 40,000 (500 x 40,000 / m <= 500 from m = 40,000 <= %d)", got, shardkey.MaxShards)
	}
}

// TestShardCountNote: only Elasticsearch constrains a new count, through
// _split's multiple of the index's shard count.
func TestShardCountNote(t *testing.T) {
	if n := shardCountNote("citus", 4, 6); n != "" {
		t.Errorf("citus: %q; want no constraint", n)
	}
	if n := shardCountNote("elasticsearch", 4, 6); !strings.Contains(n, "only to a multiple of 4") || !strings.Contains(n, "reindex") {
		t.Errorf("elasticsearch 4 -> 6: %q", n)
	}
	if n := shardCountNote("elasticsearch", 3, 6); !strings.Contains(n, "_split") {
		t.Errorf("elasticsearch 3 -> 6: %q", n)
	}
}
