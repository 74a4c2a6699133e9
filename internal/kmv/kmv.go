// Package kmv is a k-minimum-values distinct-count sketch (Bar-Yossef et
// al., "Counting distinct elements in a data stream", RANDOM 2002): it
// keeps the K smallest distinct 64-bit hashes seen, and estimates the
// number of distinct hashes as (K-1) / the K-th smallest as a fraction of
// the hash space, with a relative standard error of about 1/sqrt(K-2)
// (3% for K = 1024). Sketches of the same hash function merge by adding
// one's hashes to the other.
package kmv

import (
	"math"
	"sort"
)

// K is the number of hashes a sketch keeps.
const K = 1024

// Add returns s (sorted, at most K distinct hashes) with h added: kept
// when it is among the K smallest.
func Add(s []uint64, h uint64) []uint64 {
	if len(s) >= K && h > s[len(s)-1] {
		return s // the common case once full: no search
	}
	i := sort.Search(len(s), func(i int) bool { return s[i] >= h })
	if i < len(s) && s[i] == h {
		return s
	}
	if len(s) >= K {
		if i >= K {
			return s
		}
		s = s[:K-1]
	}
	s = append(s, 0)
	copy(s[i+1:], s[i:])
	s[i] = h
	return s
}

// Estimate returns the distinct hashes a sketch saw: exact while it holds
// fewer than K, else (K-1) / (the K-th smallest / 2^64).
func Estimate(s []uint64) int {
	if len(s) < K {
		return len(s)
	}
	frac := float64(s[len(s)-1]) / math.MaxUint64
	if frac <= 0 {
		return len(s)
	}
	return int(float64(K-1) / frac)
}
