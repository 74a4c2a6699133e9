package sim

import (
	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// Salt buckets and where they live.
//
// A salted value's K buckets sit, under most engines, on its home shard
// and the K-1 shards after it (K <= N buckets on K distinct shards: a
// salt column a router maps to consecutive shards, or isolate split='s
// dedicated shards). Under Cassandra a bucket is a partition of its own:
// the bucket column joins the partition key, PRIMARY KEY ((tenant_id,
// bucket), ...), and bucket b of a value is placed by the Murmur3 token
// of the composite key (value, b) (CompositeType: per column a 2-byte
// length, the bytes, a 0x00; the bucket a CQL int), so two buckets of one
// value may share a node and a node may hold buckets of several. Every
// other value keeps bucket 0 and is placed by the token of (value, 0),
// not of the value alone: the partition key of every row has the column.

// cassandraBucketed is a Cassandra engine placing a key as the partition
// key (key..., bucket 0): the home of every value of a bucketed table.
type cassandraBucketed struct{ partition.Engine }

// bucketValue is bucket b as the bucket column holds it (a CQL int).
func bucketValue(b int) shardkey.Value { return shardkey.Value{Type: shardkey.Int32, Int: int64(b)} }

func withBucket(key []shardkey.Value, b int) []shardkey.Value {
	k := make([]shardkey.Value, len(key)+1)
	copy(k, key)
	k[len(key)] = bucketValue(b)
	return k
}

func (c cassandraBucketed) Hash(key []shardkey.Value) (partition.Hash, error) {
	return c.Engine.Hash(withBucket(key, 0))
}

func (c cassandraBucketed) Point(key []shardkey.Value) (uint64, error) {
	return c.Engine.Point(withBucket(key, 0))
}

// bucketK returns the bucket count of the salted value whose encoding is
// enc, homed at shard home: its entry of salt's per-value list, else
// isolate split='s count at home or salt's K.
func (tk *tableKey) bucketK(enc string, home int) int {
	if k, ok := tk.saltKOf[enc]; ok {
		return k
	}
	return tk.bucketsAt(home)
}

// bucketShards computes the shard of each bucket of the salted key homed
// at home with k buckets: (key, b)'s token under Cassandra bucketing,
// else home+b (mod N).
func (tk *tableKey) bucketShards(key []shardkey.Value, home, k, n int) ([]int, error) {
	out := make([]int, k)
	for b := range out {
		if !tk.composite || b == 0 {
			out[b] = (home + b) % n
			continue
		}
		p, err := tk.cellEng.Point(withBucket(key, b))
		if err != nil {
			return nil, err
		}
		if tk.modN > 0 {
			out[b] = int(p % tk.modN)
		} else {
			out[b] = tk.layout.Shard(p)
		}
	}
	return out, nil
}

// setBuckets fills each salted table's per-value bucket counts and the
// shards of every salted value's buckets, once the hot values
// (shareHot) and range bounds are known.
func (s *Scheme) setBuckets() error {
	r := newRouter(s)
	for ti, tk := range s.tables {
		if tk == nil || tk.salted == nil {
			continue
		}
		t := s.w.Tables[ti]
		if tk.saltKs != nil {
			tk.saltKOf = map[string]int{}
			for i, enc := range tk.saltOrder {
				if i < len(tk.saltKs) {
					tk.saltKOf[enc] = tk.saltKs[i]
				}
			}
		}
		keys := map[string]int{}
		for enc := range tk.salted {
			keys[enc] = 0
		}
		tk.bshard = map[string][]int{}
		for _, ik := range isoTuples(t, tk.cols, keys) {
			home, err := r.home(tk, ik.key)
			if err != nil {
				continue // a key the engine cannot place: routed as it comes
			}
			enc := string(keyString(nil, ik.key))
			sh, err := tk.bucketShards(ik.key, home, tk.bucketK(enc, home), s.N)
			if err != nil {
				return err
			}
			tk.bshard[enc] = sh
			if tk.intCol {
				if tk.bshardInt == nil {
					tk.bshardInt = map[int64][]int{}
				}
				tk.bshardInt[ik.key[0].Canonical().Int] = sh
			}
		}
	}
	return nil
}

// bucketsOf returns the shards of the buckets of salted key, homed at
// shard home, bucket b at index b (shards repeat when buckets share a
// node). The slice is the scheme's: callers must not change it.
func (r *router) bucketsOf(tk *tableKey, key []shardkey.Value, home int) []int {
	r.buf = keyString(r.buf[:0], key)
	if sh, ok := tk.bshard[string(r.buf)]; ok {
		return sh
	}
	k := tk.bucketK(string(r.buf), home)
	sh, err := tk.bucketShards(key, home, k, r.s.N)
	if err != nil {
		// Not reached: the engine placed the key, so it places it with
		// a bucket; consecutive shards rather than none.
		sh = make([]int, k)
		for b := range sh {
			sh[b] = (home + b) % r.s.N
		}
	}
	return sh
}
