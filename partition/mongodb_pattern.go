package partition

import (
	"fmt"

	"github.com/shardkey/shardkey"
)

// MongoPattern is a MongoDB shard key pattern, {a: 1, b: "hashed"}: its
// fields in key order, at most one of them hashed (MongoDB 4.4+ compound
// hashed keys; src/mongo/db/s/shardkey_pattern.cpp).
//
// MongoDB stores a document's shard key as the fields' values with the
// hashed one replaced by its hashed value, BSONElementHasher::hash64 (see
// MongoDB; ShardKeyPattern::extractShardKeyFromDoc), and a chunk is a
// contiguous range of shard keys. Where the chunks of a fresh collection
// are:
//
//   - hashed prefix ({a: "hashed", ...}): MongoDB's even split of the hash
//     space, one chunk per shard (create_collection_coordinator.cpp picks
//     SplitPointsBasedSplitPolicy for an empty collection whose key has a
//     hashed prefix; initial_split_policy.cpp calculateHashedSplitPoints
//     makes split points {a: h, <rest>: MinKey}); chunk i on shard i, as
//     MongoDB.Layout.
//   - ranged prefix ({a: 1, b: "hashed"} or {a: 1}): one chunk on the
//     primary shard (SingleChunkOnPrimarySplitPolicy), later split by size
//     and balanced, so the chunks follow the data. Chunk needs the split
//     points on a (Bounds) to answer.
type MongoPattern struct {
	Fields []string
	// Hashed is the index in Fields of the hashed field, -1 for none.
	Hashed int
	// Bounds are the split points on the first field of a ranged prefix,
	// increasing: chunk i holds a in [Bounds[i-1], Bounds[i]) (split
	// points {a: Bounds[i], <rest>: MinKey}).
	Bounds []shardkey.Value
	// TupleBounds, when set (in place of Bounds), are composite split
	// points, increasing: each a value for each of the leading fields as
	// ShardKey stores them (the hashed field's hashed value), the split
	// point {a: v1, b: v2, <rest>: MinKey}; chunk i holds the keys from
	// TupleBounds[i-1] up to TupleBounds[i], compared field by field as
	// MongoDB compares shard keys with chunk bounds.
	TupleBounds [][]shardkey.Value
}

// ShardKey returns key (one Value per field, in pattern order) as MongoDB
// stores it: the hashed field's value replaced by its hashed value, an
// Int64. It fails when the key has another number of values or the
// hashed value is one MongoDB cannot hash.
func (p MongoPattern) ShardKey(key []shardkey.Value) ([]shardkey.Value, error) {
	if len(key) != len(p.Fields) {
		return nil, fmt.Errorf("mongodb: the shard key pattern has %d fields, the key %d values", len(p.Fields), len(key))
	}
	out := append([]shardkey.Value(nil), key...)
	if p.Hashed >= 0 {
		h, err := mongoHash(key[p.Hashed : p.Hashed+1])
		if err != nil {
			return nil, err
		}
		out[p.Hashed] = shardkey.IntValue(h)
	}
	return out, nil
}

// Chunk returns the chunk (and shard: chunk i is on shard i) of shard key
// sk (from ShardKey) among the n chunks of a fresh collection on n
// shards. ok is false for a ranged prefix without Bounds, whose chunks
// only the data decides. It fails when Bounds make more than n chunks.
func (p MongoPattern) Chunk(sk []shardkey.Value, n int) (chunk int, ok bool, err error) {
	if err := checkShards(n); err != nil {
		return 0, false, err
	}
	if p.Hashed == 0 {
		return MongoDB{}.layoutShard(sk[0].Int, n), true, nil
	}
	if len(p.TupleBounds) > 0 {
		if len(p.TupleBounds) > n-1 {
			return 0, false, fmt.Errorf("mongodb: %d split points make %d chunks, more than the %d shards", len(p.TupleBounds), len(p.TupleBounds)+1, n)
		}
		for _, b := range p.TupleBounds {
			if cmpPrefix(sk, b) < 0 {
				break
			}
			chunk++
		}
		return chunk, true, nil
	}
	if len(p.Bounds) == 0 {
		return 0, n == 1, nil
	}
	if len(p.Bounds) > n-1 {
		return 0, false, fmt.Errorf("mongodb: %d split points make %d chunks, more than the %d shards", len(p.Bounds), len(p.Bounds)+1, n)
	}
	for _, b := range p.Bounds {
		if shardkey.Compare(b, sk[0]) > 0 {
			break
		}
		chunk++
	}
	return chunk, true, nil
}

// cmpPrefix compares shard key sk with split point b (b's fields, the
// rest MinKey, below any value): field by field over b's fields, and sk
// at or above b when they are equal.
func cmpPrefix(sk, b []shardkey.Value) int {
	for i := range b {
		if i >= len(sk) {
			return -1
		}
		if c := shardkey.Compare(sk[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// layoutShard is the initial chunk of hashed value h among n (see Layout).
func (MongoDB) layoutShard(h int64, n int) int {
	c := 0
	for _, s := range MongoHashedSplitPoints(n) {
		if s <= h {
			c++
		}
	}
	return c
}
