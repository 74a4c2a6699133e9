package partition

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ringOwner is the ring's definition by a linear scan: the node of the
// first token >= p, wrapping to the first token.
func ringOwner(r *TokenRing, p uint64) int {
	for i, t := range r.tokens {
		if t >= p {
			return int(r.owner[i])
		}
	}
	return int(r.owner[0])
}

// TestTokenRingIndex checks TokenRing.Shard's bucket index against a
// linear scan of the tokens: rings of 1 to 300 tokens, random, clustered
// (many tokens in one bucket, equal tokens of several nodes) and at the
// ends of the circle, probed at each token, one either side of it, the
// circle's ends and random points.
func TestTokenRingIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := map[string]func() uint64{
		"random":    rng.Uint64,
		"clustered": func() uint64 { return 1<<40 + rng.Uint64N(64) },
		"ends": func() uint64 {
			if rng.IntN(2) == 0 {
				return rng.Uint64N(4)
			}
			return math.MaxUint64 - rng.Uint64N(4)
		},
	}
	for name, gen := range shapes {
		for _, per := range []int{1, 2, 3, 7, 50, 100} {
			for _, n := range []int{1, 2, 3} {
				r := NewTokenRing(n, func(node, i int) uint64 { return gen() }, per)
				probes := []uint64{0, 1, math.MaxUint64, math.MaxUint64 - 1}
				for _, tk := range r.tokens {
					probes = append(probes, tk, tk-1, tk+1)
				}
				for range 200 {
					probes = append(probes, rng.Uint64())
				}
				for _, p := range probes {
					if got, want := r.Shard(p), ringOwner(r, p); got != want {
						t.Fatalf("%s, %d nodes x %d: Shard(%#x) = %d, the first token >= it is node %d's", name, n, per, p, got, want)
					}
				}
			}
		}
	}
}

// ringSearch is TokenRing.Shard before the bucket index: a binary search
// of the whole ring, the baseline of BenchmarkTokenRingShard.
func ringSearch(r *TokenRing, p uint64) int {
	lo, hi := 0, len(r.tokens)
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

// BenchmarkTokenRingShard places 1 M random points on the ring of 64 nodes
// of 128 vnodes (the `ring` engine's, and seed 000's growth figures'), with
// the bucket index and, side by side, with the former binary search.
func BenchmarkTokenRingShard(b *testing.B) {
	r := cachedRing(128, 64)
	rng := rand.New(rand.NewPCG(3, 4))
	pts := make([]uint64, 1<<20)
	for i := range pts {
		pts[i] = rng.Uint64()
	}
	for _, c := range []struct {
		name  string
		shard func(uint64) int
	}{{"index", r.Shard}, {"search", func(p uint64) int { return ringSearch(r, p) }}} {
		b.Run(c.name, func(b *testing.B) {
			sink := 0
			for i := 0; b.Loop(); i++ {
				sink += c.shard(pts[i&(len(pts)-1)])
			}
			_ = sink
		})
	}
}
