package sqllog

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestChunksScrub: a batch's memory (chunks) reused over many batches of
// random sizes. take hands out zeroed elements; after scrub (at release)
// the chunks hold nothing but what the last batch took and wrote, every
// other element zero, whatever earlier batches wrote; what a batch took
// is not overwritten while it lasts (no two takes share an element).
// Without scrub zeroing the difference, an element an earlier batch wrote
// past this batch's use stays (and keeps its text alive).
func TestChunksScrub(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var c chunks[string]
	for round := 1; round <= 300; round++ {
		c.reset()
		mark := fmt.Sprint("round ", round)
		var taken [][]string
		for range rng.IntN(40) {
			n := 1 + rng.IntN(300)
			var out []string
			if rng.IntN(2) == 0 {
				out = c.take(n, 256)
				for i, v := range out {
					if v != "" {
						t.Fatalf("round %d: take(%d)[%d] = %q, want zero", round, n, i, v)
					}
				}
			} else {
				out = c.takeDirty(n, 256)
			}
			if len(out) != n || cap(out) != n {
				t.Fatalf("round %d: take(%d) gave len %d cap %d", round, n, len(out), cap(out))
			}
			for i := range out {
				out[i] = mark
			}
			taken = append(taken, out)
		}
		c.scrub()
		written := 0
		for _, out := range taken {
			for _, v := range out {
				if v != mark {
					t.Fatalf("round %d: a taken element was overwritten: %q", round, v)
				}
			}
			written += len(out)
		}
		seen := 0
		for k, ch := range c.list {
			for i, v := range ch[:cap(ch)] {
				switch v {
				case "":
				case mark:
					seen++
				default:
					t.Fatalf("round %d: chunk %d element %d still holds %q after scrub", round, k, i, v)
				}
			}
		}
		if seen != written {
			t.Fatalf("round %d: the chunks hold %d elements of this round, want the %d taken", round, seen, written)
		}
	}
}

// TestLitSlabScrub: the literal slab reused over many batches, each
// statement's literals appended to next's slice (sometimes past its room,
// allocating elsewhere), sometimes first written by a match that fails
// (wrote) and written again shorter. After scrub the slab holds nothing
// but the literals the last batch took, every other one zero.
func TestLitSlabScrub(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var s litSlab
	for round := 1; round <= 300; round++ {
		s.reset()
		mark := fmt.Sprint("round ", round)
		var taken [][]lit
		for range rng.IntN(600) {
			l := s.next()
			if rng.IntN(4) == 0 {
				// A failed match: it wrote literals and kept none.
				failed := l
				for range rng.IntN(100) {
					failed = append(failed, lit{s: "failed " + mark, kind: litNum})
				}
				s.wrote(len(failed))
			}
			l = l[:0]
			n := rng.IntN(30)
			if rng.IntN(50) == 0 {
				n = 100 + rng.IntN(5000) // past next's room, often
			}
			for range n {
				l = append(l, lit{s: mark, kind: litStr})
			}
			taken = append(taken, s.took(l))
		}
		s.scrub()
		inSlab := 0
		for _, l := range taken {
			for _, v := range l {
				if v.s != mark {
					t.Fatalf("round %d: a literal taken was overwritten: %q", round, v.s)
				}
			}
			if len(l) > 0 && s.holds(&l[0]) {
				inSlab += len(l)
			}
		}
		seen := 0
		for k, ch := range s.c.list {
			for i, v := range ch[:cap(ch)] {
				switch v.s {
				case "":
				case mark:
					seen++
				default:
					t.Fatalf("round %d: chunk %d literal %d still holds %q after scrub", round, k, i, v.s)
				}
			}
		}
		if seen != inSlab {
			t.Fatalf("round %d: the slab holds %d literals of this round, want the %d taken from it", round, seen, inSlab)
		}
	}
}

// holds reports whether p is in one of s's chunks.
func (s *litSlab) holds(p *lit) bool {
	for _, ch := range s.c.list {
		full := ch[:cap(ch)]
		for i := range full {
			if &full[i] == p {
				return true
			}
		}
	}
	return false
}
