package partition

import (
	"fmt"

	"github.com/shardkey/shardkey"
)

// Citus is Citus hash distribution (create_distributed_table with the hash
// method), from citusdata/citus: src/backend/distributed/operations/
// create_shards.c (CreateShardsWithRoundRobinPolicy) and
// src/backend/distributed/utils/shardinterval_utils.c
// (CalculateUniformHashRangeIndex).
//
// The hash is the distribution column type's 32-bit PostgreSQL hash, what
// worker_hash(value) returns (hashint4/hashint8/hashtext/uuid_hash..., see
// Postgres). A table with S shards splits the int32 space into S uniform
// intervals of 2^32/S hashes (integer division; the last shard absorbs the
// remainder) and a hash belongs to shard (hash - INT32_MIN) / (2^32/S),
// clamped to S-1. Point is the hash shifted to unsigned order,
// uint32(hash) ^ 0x80000000, so Layout is a range layout over 0..2^32-1.
// Citus distributes on one column and rejects NULL distribution values
// (ErrNoDestination).
//
// Shard count and growth: by default Layout(n) builds n shards, one per
// node (--shards is citus.shard_count). With the option shard_count=S,
// Layout(n) builds S shards placed round-robin on n nodes (shard i on node
// i mod n, as CreateShardsWithRoundRobinPolicy does over the sorted worker
// list) and Shard returns the node. Grow models adding nodes as Citus
// does, by moving whole shards (citus_rebalance_start, by_shard_count):
// the shard count is fixed, and while the fullest node holds at least two
// shards more than the emptiest, its highest-numbered shard moves to the
// emptiest node (lowest index first on ties). The real rebalancer's choice
// of which shard to move also weighs colocation and disk size, so the
// moved set is a model; the count moved is exact. With the default one
// shard per node there is nothing to move: new nodes stay empty until
// shards are split, which is what Citus does too.
type Citus struct{ shardCount int }

var (
	_ Engine       = Citus{}
	_ Int64Pointer = Citus{}
	_ Grower       = Citus{}
)

func newCitus(o Options) (Engine, error) {
	s, err := o.Int("shard_count", 0)
	if err != nil {
		return nil, err
	}
	if _, ok := o["shard_count"]; ok && (s < 1 || s > 64000) {
		return nil, fmt.Errorf("citus: shard_count=%d must be in 1..64000", s)
	}
	return Citus{s}, nil
}

func (c Citus) Name() string {
	if c.shardCount == 0 {
		return "citus"
	}
	return specName("citus", fmt.Sprintf("shard_count=%d", c.shardCount))
}

func (Citus) Hash(key []shardkey.Value) (Hash, error) {
	h, err := citusHash(key)
	return SignedHash(int64(h)), err
}

func (Citus) Point(key []shardkey.Value) (uint64, error) {
	h, err := citusHash(key)
	return uint64(uint32(h) ^ 0x80000000), err
}

// PointInt64 is Point for one Int64 column, without allocation.
func (Citus) PointInt64(v int64) uint64 {
	return uint64(pgHashUint32(pgFoldInt8(v)) ^ 0x80000000)
}

func citusHash(key []shardkey.Value) (int32, error) {
	if len(key) != 1 {
		return 0, fmt.Errorf("citus: a table is distributed by one column, not %d", len(key))
	}
	if key[0].IsNull() {
		return 0, errNoDestination("citus: a distribution column value cannot be NULL")
	}
	return pgHash32(key[0], "citus")
}

// Layout returns n shards (default) or shard_count shards round-robin on
// n nodes.
func (c Citus) Layout(n int) (Layout, error) {
	if err := checkShards(n); err != nil {
		return nil, err
	}
	s := c.shardCount
	if s == 0 {
		s = n
	}
	inc := uint64(1<<32) / uint64(s)
	l := &CitusLayout{nodes: n, inc: inc, starts: make([]uint64, s), node: make([]int32, s)}
	for i := range s {
		l.starts[i] = uint64(i) * inc
		l.node[i] = int32(i % n)
	}
	return l, nil
}

// Grow moves whole shards onto the new nodes (see Citus).
func (c Citus) Grow(l Layout, to int) (Layout, error) {
	cl, ok := l.(*CitusLayout)
	if !ok {
		return nil, fmt.Errorf("citus: cannot grow a %T", l)
	}
	if to < cl.nodes {
		return nil, fmt.Errorf("citus: cannot shrink %d nodes to %d", cl.nodes, to)
	}
	g := &CitusLayout{nodes: to, inc: cl.inc, starts: cl.starts, node: append([]int32(nil), cl.node...)}
	count := make([]int, to)
	for _, nd := range g.node {
		count[nd]++
	}
	for {
		hi, lo := 0, 0
		for i := range count {
			if count[i] > count[hi] {
				hi = i
			}
			if count[i] < count[lo] {
				lo = i
			}
		}
		if count[hi]-count[lo] < 2 {
			return g, nil
		}
		for s := len(g.node) - 1; s >= 0; s-- {
			if int(g.node[s]) == hi {
				g.node[s] = int32(lo)
				break
			}
		}
		count[hi]--
		count[lo]++
	}
}

// CitusLayout is a Citus hash-distributed table: shard intervals over the
// shifted int32 hash space and the node of each shard.
type CitusLayout struct {
	nodes  int
	inc    uint64   // 2^32 / shards, the hashes per shard
	starts []uint64 // starts[i] = i * inc, point space
	node   []int32  // node[i] holds shard i
}

func (l *CitusLayout) Shards() int { return l.nodes }

// Shard returns the node holding the shard of point p.
func (l *CitusLayout) Shard(p uint64) int { return int(l.node[l.ShardIndex(p)]) }

// ShardIndex returns the index of the shard interval holding point p, in
// 0..ShardCount()-1: CalculateUniformHashRangeIndex.
func (l *CitusLayout) ShardIndex(p uint64) int {
	return int(min(p/l.inc, uint64(len(l.starts)-1)))
}

// ShardCount returns the number of shard intervals.
func (l *CitusLayout) ShardCount() int { return len(l.starts) }

// HashRange returns shard i's shardminvalue and shardmaxvalue as
// pg_dist_shard shows them (inclusive int32 hash bounds).
func (l *CitusLayout) HashRange(i int) (lo, hi int32) {
	lo = int32(uint32(l.starts[i]) ^ 0x80000000)
	if i == len(l.starts)-1 {
		return lo, 1<<31 - 1
	}
	return lo, int32(uint32(l.starts[i+1]-1) ^ 0x80000000)
}
