package partition

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// TestRingDefaultPoints: the default ring's node k holds the points
// xxhash64("node-k-i"), i < vnodes, and a point belongs to the node of the
// first point at or above it, wrapping (the ring as docs/engines.md
// defines it). Computed here from that definition with fmt and a sort, for
// a small ring and for one large enough to be cached (asked twice: the
// same answers).
func TestRingDefaultPoints(t *testing.T) {
	for _, c := range []struct{ n, vn int }{{3, 4}, {600, 128}} {
		type tok struct {
			t    uint64
			node int
		}
		var all []tok
		for k := 0; k < c.n; k++ {
			for i := 0; i < c.vn; i++ {
				all = append(all, tok{xxhash.Sum64String(fmt.Sprintf("node-%d-%d", k, i)), k})
			}
		}
		slices.SortFunc(all, func(a, b tok) int {
			if a.t != b.t {
				if a.t < b.t {
					return -1
				}
				return 1
			}
			return a.node - b.node
		})
		owner := func(p uint64) int {
			for _, x := range all {
				if x.t >= p {
					return x.node
				}
			}
			return all[0].node
		}
		r, err := NewRing(c.vn)
		if err != nil {
			t.Fatal(err)
		}
		for round := 0; round < 2; round++ {
			l, err := r.Layout(c.n)
			if err != nil {
				t.Fatal(err)
			}
			for j := 0; j < 200; j++ {
				p := xxhash.Sum64String(fmt.Sprint("probe", j))
				if j == 0 {
					p = ^uint64(0) // above every point: wraps to the first
				}
				if got, want := l.Shard(p), owner(p); got != want {
					t.Fatalf("%d nodes x %d points, round %d: point %#x on node %d; want %d", c.n, c.vn, round, p, got, want)
				}
			}
		}
	}
}
