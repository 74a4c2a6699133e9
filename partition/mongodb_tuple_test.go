package partition

import (
	"testing"

	"github.com/shardkey/shardkey"
)

// TestMongoPatternTupleChunk: composite split points {a: v1, b: v2} place
// a shard key by comparing it field by field (MongoDB's chunk ranges are
// [min, max) in the key's order); a split point giving fewer fields has
// MinKey for the rest, so every key with that prefix is at or above it.
// By hand, with split points (10, 5) and (20, -3) on 3 shards.
func TestMongoPatternTupleChunk(t *testing.T) {
	iv := shardkey.IntValue
	p := MongoPattern{Fields: []string{"a", "b"}, Hashed: 1, TupleBounds: [][]shardkey.Value{{iv(10), iv(5)}, {iv(20), iv(-3)}}}
	for _, c := range []struct {
		a, b int64
		want int
	}{{7, 100, 0}, {10, 4, 0}, {10, 5, 1}, {20, -4, 1}, {20, -3, 2}, {25, -100, 2}} {
		got, ok, err := p.Chunk([]shardkey.Value{iv(c.a), iv(c.b)}, 3)
		if err != nil || !ok || got != c.want {
			t.Errorf("Chunk(%d, %d) = %d, %v, %v; want %d", c.a, c.b, got, ok, err, c.want)
		}
	}
	p.TupleBounds = [][]shardkey.Value{{iv(10)}}
	if got, _, _ := p.Chunk([]shardkey.Value{iv(10), iv(-1 << 63)}, 2); got != 1 {
		t.Errorf("Chunk(10, min int64) under split point {a: 10, b: MinKey} = %d; want 1", got)
	}
	if _, _, err := p.Chunk([]shardkey.Value{iv(1), iv(1)}, 1); err == nil {
		t.Error("one split point on one shard: no error")
	}
}
