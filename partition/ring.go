package partition

import (
	"cmp"
	"math/bits"
	"slices"
)

// TokenRing is a ring of (token, node) points on the unsigned 64-bit circle.
// A point p belongs to the node of the first token >= p, wrapping to the
// first token. Engines with signed tokens (Cassandra) shift them by 2^63
// before building the ring so that unsigned order is token order.
type TokenRing struct {
	n      int
	tokens []uint64 // sorted ascending
	owner  []int32  // owner[i] is the node of tokens[i]
	// A bucket index over the tokens' top bits, about one bucket per
	// token: first[b] is the first i whose token's top bits are >= b
	// (p >> shift), first[len-1] = len(tokens). A point's answer lies in
	// its bucket or is the next bucket's first token, so Shard searches a
	// bucket of one or two tokens instead of the whole ring: a ring of 64
	// nodes of 128 vnodes is 13 dependent, cache-missing steps otherwise
	// (docs/performance.md, seed 000's growth figures).
	shift uint
	first []int32
}

// NewTokenRing builds a ring of n nodes with per nodes' points point(node, i),
// i in 0..per-1. Equal tokens are ordered by node.
func NewTokenRing(n int, point func(node, i int) uint64, per int) *TokenRing {
	counts := make([]int, n)
	for i := range counts {
		counts[i] = per
	}
	return newTokenRingCounts(counts, point)
}

// newTokenRingCounts is NewTokenRing with counts[node] points per node.
func newTokenRingCounts(counts []int, point func(node, i int) uint64) *TokenRing {
	type tk struct {
		t uint64
		n int32
	}
	n, total := len(counts), 0
	for _, c := range counts {
		total += c
	}
	all := make([]tk, 0, total)
	for node := 0; node < n; node++ {
		for i := 0; i < counts[node]; i++ {
			all = append(all, tk{point(node, i), int32(node)})
		}
	}
	// slices.SortFunc, not sort.Slice: a ring of 65,536 nodes has 8 M
	// points, and sort.Slice's reflective swaps took most of a minute.
	slices.SortFunc(all, func(a, b tk) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.n, b.n)
	})
	r := &TokenRing{n: n, tokens: make([]uint64, len(all)), owner: make([]int32, len(all))}
	for i, x := range all {
		r.tokens[i], r.owner[i] = x.t, x.n
	}
	r.index()
	return r
}

// index builds r.first: 2^k buckets for k the bit length of the token
// count (1 to 2 buckets a token), each holding the index of its first
// token.
func (r *TokenRing) index() {
	k := uint(max(1, bits.Len(uint(len(r.tokens)))))
	r.shift = 64 - k
	r.first = make([]int32, 1<<k+1)
	b := 0
	for i, t := range r.tokens {
		for ; b <= int(t>>r.shift); b++ {
			r.first[b] = int32(i)
		}
	}
	for ; b < len(r.first); b++ {
		r.first[b] = int32(len(r.tokens))
	}
}

func (r *TokenRing) Shards() int { return r.n }

// Shard returns the owner of the first token >= p, wrapping around.
func (r *TokenRing) Shard(p uint64) int {
	// The first index with tokens[i] >= p, by hand: sort.Search's
	// closure call per step costs as much as the key's hash. Tokens
	// before p's bucket are < p, and the next bucket's first is >= p.
	b := p >> r.shift
	lo, hi := int(r.first[b]), int(r.first[b+1])
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.tokens[m] < p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(r.tokens) {
		lo = 0
	}
	return int(r.owner[lo])
}

// Ranges is a layout of contiguous point ranges: shard i owns points in
// [Starts[i], Starts[i+1]), the last shard owning to the top of the space.
// Starts[0] must be 0 and Starts ascending. Redis slot ranges, Vitess
// keyspace-id ranges, Citus int32 intervals, YugabyteDB tablets and MongoDB
// chunks are all Ranges over their engine's point space.
type Ranges struct {
	Starts []uint64
}

func (r Ranges) Shards() int { return len(r.Starts) }

// Shard returns the index of the last start <= p.
func (r Ranges) Shard(p uint64) int {
	lo, hi := 0, len(r.Starts) // the first start > p, by hand as above
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.Starts[m] <= p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}
