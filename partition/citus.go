package partition

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

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
//
// Split shards: the option split_points=P1,P2,... gives the shard
// intervals a table has after citus_split_shard_by_split_points (or any
// pg_dist_shard whose ranges are not the uniform ones): each point is the
// inclusive maximum hash of the shard below it and the next shard starts
// at P+1, as src/backend/distributed/operations/shard_split.c
// (CreateSplitIntervalsForShard) sets shardmaxvalue and the next
// shardminvalue. The first shard starts at INT32_MIN and the last ends
// at INT32_MAX; k points make k+1 shards, placed like shard_count's.
type Citus struct {
	shardCount int
	// splits are the split points, ascending; nil for uniform intervals.
	splits []int32
}

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
	c := Citus{shardCount: s}
	if text, ok := o["split_points"]; ok {
		for _, f := range strings.Split(text, ",") {
			p, err := strconv.ParseInt(strings.TrimSpace(f), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("citus: split_points: %q is not an int32 hash value", strings.TrimSpace(f))
			}
			if n := len(c.splits); n > 0 && int32(p) <= c.splits[n-1] || p == math.MaxInt32 {
				return nil, fmt.Errorf("citus: split_points must ascend strictly and stay below %d (at %d)", math.MaxInt32, p)
			}
			c.splits = append(c.splits, int32(p))
		}
		if len(c.splits)+1 > 64000 {
			return nil, fmt.Errorf("citus: split_points: %d shards, at most 64000", len(c.splits)+1)
		}
		if s != 0 && s != len(c.splits)+1 {
			return nil, fmt.Errorf("citus: shard_count=%d but split_points make %d shards", s, len(c.splits)+1)
		}
		c.shardCount = len(c.splits) + 1
	}
	return c, nil
}

func (c Citus) Name() string {
	switch {
	case c.splits != nil:
		ps := make([]string, len(c.splits))
		for i, p := range c.splits {
			ps[i] = strconv.Itoa(int(p))
		}
		return specName("citus", "split_points="+strings.Join(ps, ","))
	case c.shardCount == 0:
		return "citus"
	}
	return specName("citus", fmt.Sprintf("shard_count=%d", c.shardCount))
}

// ShardCount returns the engine's fixed shard count (the option
// shard_count, or the shards split_points make), 0 when the shard count
// is Layout's n (one shard per node, --shards).
func (c Citus) ShardCount() int { return c.shardCount }

// IsCitus reports whether engine (an Engine's Name or an --engine spec)
// is Citus's placement, with or without options: "citus",
// "citus(shard_count=32)".
func IsCitus(engine string) bool {
	return engine == "citus" || strings.HasPrefix(engine, "citus(")
}

// CitusShards returns the shard count of engine spec when it is a Citus
// engine with a fixed one (citus(shard_count=S), split_points), else 0.
func CitusShards(spec string) int {
	e, err := Lookup(spec)
	if err != nil {
		return 0
	}
	if c, ok := e.(Citus); ok {
		return c.ShardCount()
	}
	return 0
}

// CitusEngine returns the engine spec that places rows in the shard
// intervals ranges, as pg_dist_shard lists a hash-distributed table's
// shards (shardminvalue, shardmaxvalue; inclusive int32 bounds, in any
// order): "citus" when they are the uniform intervals create_shards.c
// makes for their count, else "citus(split_points=...)". It fails when
// the ranges do not cover the int32 hash space exactly once.
func CitusEngine(ranges [][2]int32) (string, error) {
	if len(ranges) == 0 || len(ranges) > 64000 {
		return "", fmt.Errorf("%d shard intervals: want 1..64000", len(ranges))
	}
	r := append([][2]int32(nil), ranges...)
	slices.SortFunc(r, func(a, b [2]int32) int { return cmp.Compare(a[0], b[0]) })
	next := int64(math.MinInt32)
	for _, x := range r {
		if int64(x[0]) != next || x[1] < x[0] {
			return "", fmt.Errorf("shard interval [%d, %d]: the intervals must cover the int32 hash space without gap or overlap (expected one starting at %d)", x[0], x[1], next)
		}
		next = int64(x[1]) + 1
	}
	if next != math.MaxInt32+1 {
		return "", fmt.Errorf("the last shard interval ends at %d, not %d", next-1, math.MaxInt32)
	}
	l, _ := Citus{}.Layout(len(r))
	uniform := true
	for i, x := range r {
		if lo, hi := l.(*CitusLayout).HashRange(i); lo != x[0] || hi != x[1] {
			uniform = false
			break
		}
	}
	if uniform {
		return "citus", nil
	}
	ps := make([]string, len(r)-1)
	for i := range ps {
		ps[i] = strconv.Itoa(int(r[i][1]))
	}
	return specName("citus", "split_points="+strings.Join(ps, ",")), nil
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
		if i > 0 && c.splits != nil {
			l.starts[i] = uint64(uint32(c.splits[i-1]+1) ^ 0x80000000)
		}
		l.node[i] = int32(i % n)
	}
	if c.splits != nil {
		l.inc = 0
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
	inc    uint64   // 2^32 / shards, the hashes per shard; 0 for split intervals (search starts)
	starts []uint64 // starts[i] = i * inc, point space
	node   []int32  // node[i] holds shard i
}

func (l *CitusLayout) Shards() int { return l.nodes }

// Shard returns the node holding the shard of point p.
func (l *CitusLayout) Shard(p uint64) int { return int(l.node[l.ShardIndex(p)]) }

// ShardIndex returns the index of the shard interval holding point p, in
// 0..ShardCount()-1: CalculateUniformHashRangeIndex.
func (l *CitusLayout) ShardIndex(p uint64) int {
	if l.inc == 0 {
		// Split intervals: the last start at or below p.
		i, j := 0, len(l.starts)
		for j-i > 1 {
			m := int(uint(i+j) >> 1)
			if l.starts[m] <= p {
				i = m
			} else {
				j = m
			}
		}
		return i
	}
	return int(min(p/l.inc, uint64(len(l.starts)-1)))
}

// Node returns the node (shardkey shard) holding shard interval i.
func (l *CitusLayout) Node(i int) int { return int(l.node[i]) }

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
