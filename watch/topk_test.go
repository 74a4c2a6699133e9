package watch

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestTopK_Bounds checks Space-Saving's guarantees (Metwally et al. 2005,
// Lemma 3.4 and Theorem 3.5) on a seeded Zipf stream against exact counts:
// every tracked key's true count lies in [Count-Err, Count]; every key
// above Total/Cap is tracked; an untracked key's count is at most Min().
func TestTopK_Bounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 1, 100000)
	exact := map[string]float64{}
	tk := NewTopK(200)
	for range 200000 {
		k := fmt.Sprint(z.Uint64())
		w := float64(1 + rng.IntN(3))
		exact[k] += w
		tk.Add(k, w)
	}
	total := 0.0
	for k, n := range exact {
		total += n
		c, ok := tk.Lookup(k)
		switch {
		case ok && (n > c.Count || n < c.Count-c.Err):
			t.Errorf("key %s: true %v outside [%v, %v]", k, n, c.Count-c.Err, c.Count)
		case !ok && n > tk.Min():
			t.Errorf("untracked key %s: true %v above Min %v", k, n, tk.Min())
		}
	}
	if total != tk.Total {
		t.Errorf("Total %v; want %v", tk.Total, total)
	}
	// The heaviest key of a Zipf(1.1) stream is "0" and comes out first.
	if top := tk.Top(1); len(top) != 1 || top[0].Key != "0" {
		t.Errorf("Top(1) = %v; want key 0", top)
	}
}

// TestTopK_Exact: with room for every key, counts are exact.
func TestTopK_Exact(t *testing.T) {
	tk := NewTopK(10)
	for i, k := range []string{"a", "b", "a", "c", "a", "b"} {
		tk.Add(k, float64(i+1))
	}
	check := func(k string, want float64) {
		t.Helper()
		if c, ok := tk.Lookup(k); !ok || c.Count != want || c.Err != 0 {
			t.Errorf("%s: %+v, %v; want count %v, exact", k, c, ok, want)
		}
	}
	check("a", 1+3+5)
	check("b", 2+6)
	check("c", 4)
	if tk.Min() != 0 {
		t.Errorf("Min() = %v; want 0 (not full)", tk.Min())
	}
}
