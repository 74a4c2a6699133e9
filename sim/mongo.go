package sim

import (
	"fmt"
	"slices"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// MongoDB shard key patterns with a hashed field (MongoDB 4.4+ compound
// hashed keys), {a: 1, b: "hashed"} or {a: "hashed", b: 1}.
//
// MongoDB orders a collection's documents by the pattern's fields, the
// hashed one replaced by its hashed value, BSONElementHasher::hash64
// (src/mongo/db/s/shardkey_pattern.cpp,
// ShardKeyPattern::extractShardKeyFromDoc; a missing field is null), and a
// chunk is a contiguous range of that order. The layouts modelled:
//
//   - A hashed prefix ({a: "hashed", ...}): an empty collection starts
//     with MongoDB's even split of the hash space, one chunk per shard
//     (src/mongo/db/s/create_collection_coordinator.cpp picks
//     SplitPointsBasedSplitPolicy when the key has a hashed prefix;
//     src/mongo/db/s/config/initial_split_policy.cpp
//     calculateHashedSplitPoints builds split points {a: h, b: MinKey}).
//     The later fields never decide a shard, so the key places as
//     hash(a) under partition.MongoDB: equal a, equal shard.
//   - A ranged prefix ({a: 1, b: "hashed"}): MongoDB creates one chunk
//     on the primary shard (SingleChunkOnPrimarySplitPolicy; pre-split
//     only with zones and presplitHashedZones), then splits chunks by size
//     and the balancer spreads them until the shards hold equal data. That
//     settled state is modelled: chunk boundaries at equal-weight
//     quantiles of the compound order (a, hash(b)), one range per shard,
//     as range keys' boundaries are (bounds.go), unless bounds=[...] give
//     the split points on a. One a's documents are spread by hash(b)
//     over consecutive chunks, so a hot a can split across shards.
//
// Routing follows mongos's targeting (src/mongo/s/chunk_manager.cpp
// getShardIdsForQuery, from the query's index bounds on the key): an
// equality (or IN) on every field is one chunk; an equality on the prefix
// before the hashed field asks the chunks of that prefix; a range on the
// hashed field bounds nothing (a hashed index has point intervals only);
// no equality on the first field is scatter-gather.

// mongoHashed compiles a pattern with a hashed field into tk: a hashed
// prefix as a hash key on that field (tk.kind = kHash, the caller builds
// its layout), a ranged prefix as a range key whose hashed field orders by
// its hashed value (tk.kind = kRange, tk.mongoHashed).
func (s *Scheme) mongoHashed(t *shardkey.Table, tk *tableKey, m *shardkey.RangeExpr) error {
	if name := s.Engine.Name(); name != "mongodb" {
		return fmt.Errorf("%s has a hashed field, which only --engine mongodb places (MongoDB's hashed value orders the key); the engine is %s", m, name)
	}
	h := slices.Index(m.Cols, m.Hashed)
	if len(m.Cols) > 1 && (tk.iso != nil || tk.salted != nil) {
		return fmt.Errorf("salt and isolate over a compound MongoDB pattern with a hashed field are not supported: isolate with zones, or salt a ranged field")
	}
	if h == 0 {
		// {a: "hashed"} alone is hash(a): isolate and salt apply as they
		// do over it (isolate: a zone on each hot value's hashed value,
		// emit/mongodb.go).
		if len(m.Bounds) > 0 {
			return fmt.Errorf("%s: a hashed prefix's chunks are MongoDB's even split of the hash space: bounds=[...] split a ranged first field", m)
		}
		tk.kind = kHash
		tk.cols = tk.cols[:1]
		tk.eng = memoize(s.Engine, t, tk.cols)
		return nil
	}
	tk.kind = kRange
	tk.mongoHashed = h + 1
	return nil
}

// keyPart returns the value that orders column j of tk's key: MongoDB's
// hashed value, as an Int64, for the hashed field of a compound MongoDB
// key with a ranged prefix; v itself otherwise.
func (tk *tableKey) keyPart(j int, v shardkey.Value) (shardkey.Value, error) {
	if tk.mongoHashed != j+1 {
		return v, nil
	}
	return mongoHashedValue(v)
}

// mongoHashedValue is MongoDB's hashed value of v as an Int64 Value.
func mongoHashedValue(v shardkey.Value) (shardkey.Value, error) {
	h, err := partition.MongoDB{}.Hash([]shardkey.Value{v})
	if err != nil {
		return v, err
	}
	return shardkey.IntValue(h.Int), nil
}

// hashedSortedKeys is sortedKeys of a key whose column hashed-1 (1-based;
// 0: none) orders by MongoDB's hashed value.
func hashedSortedKeys(t *shardkey.Table, cols []int, hashed int) ([]keyWeight, error) {
	if hashed == 0 || hashed > len(cols) {
		return sortedKeys(t, cols), nil
	}
	type result struct {
		kws []keyWeight
		err error
	}
	r := memo(t, fmt.Sprint("sorted-mongo-hashed", cols, hashed), func() result {
		o := sortedOrder(t, cols, hashed)
		if o.err != nil {
			return result{err: o.err}
		}
		return result{kws: o.weighed(t)}
	})
	return r.kws, r.err
}
