package sim

import (
	"math"
	"strconv"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/kmv"
)

// kmvTol returns the bits an entropy whose sketched values hold share r
// may be off by when the sketch's estimate of their number is off by 3
// standard errors (1/sqrt(kmv.K-2) each, internal/kmv): r log2(1 - 3s)
// in magnitude, the larger of r log2(1 +- 3s).
func kmvTol(r float64) float64 {
	s := 1 / math.Sqrt(kmv.K-2)
	return -r * math.Log2(1-3*s)
}

// countsWorkload returns a workload of one table t whose column k was
// read from a log: counts vc, no operation sampled.
func countsWorkload(vc *shardkey.ValueCounts) *shardkey.Workload {
	return &shardkey.Workload{Tables: []*shardkey.Table{{
		Name:    "t",
		Columns: []*shardkey.Column{{Name: "k", Type: shardkey.Int64}},
		Traffic: map[string]*shardkey.ValueCounts{"k": vc},
	}}}
}

// zipfCounts returns the counts of n values 1..n of weight 1/i (Zipf,
// s = 1), the first exact listed and the rest sketched, and the true
// entropy of the n values summed independently of the counts.
func zipfCounts(n, exact int) (*shardkey.ValueCounts, float64) {
	vc := &shardkey.ValueCounts{}
	hn := 0.0
	for i := n; i >= 1; i-- { // smallest first: less rounding
		hn += 1 / float64(i)
	}
	h := 0.0
	for i := 1; i <= n; i++ {
		w := 1 / float64(i)
		vc.Total += w
		p := w / hn
		h -= p * math.Log2(p)
		if i <= exact {
			vc.Values = append(vc.Values, shardkey.IntValue(int64(i)))
			vc.Weights = append(vc.Weights, w)
		} else {
			vc.Sketch = kmv.Add(vc.Sketch, xxhash.Sum64String(strconv.Itoa(i)))
		}
	}
	return vc, h
}

// TestTrafficEntropyPastCap: the entropy of a log's counts past the
// values counted one by one (tailEntropy): the counted values' terms
// exact, the rest's share r spread over the sketch's estimate d of its
// values, -r log2(r/d).
func TestTrafficEntropyPastCap(t *testing.T) {
	// Uniform: n values of weight 1 each, the first 1,000 listed: the
	// entropy is log2(n) (with d exact: 1000/n log2 n + r log2(n r / r)
	// = log2 n), within the sketch's error on d.
	for _, n := range []int{1000, 1500, 100000} {
		vc := &shardkey.ValueCounts{}
		for i := range n {
			vc.Total++
			if i < 1000 {
				vc.Values = append(vc.Values, shardkey.IntValue(int64(i)))
				vc.Weights = append(vc.Weights, 1)
			} else {
				vc.Sketch = kmv.Add(vc.Sketch, xxhash.Sum64String(strconv.Itoa(i)))
			}
		}
		ks := TrafficKeyStats(countsWorkload(vc), 0, []int{0})
		r := float64(n-1000) / float64(n)
		want := math.Log2(float64(n))
		if n-1000 < kmv.K {
			// The sketch holds every hash: d exact, the figure exact.
			if math.Abs(ks.Entropy-want) > 1e-9 {
				t.Errorf("uniform %d: entropy %v, want %v", n, ks.Entropy, want)
			}
		} else if tol := kmvTol(r); math.Abs(ks.Entropy-want) > tol {
			t.Errorf("uniform %d: entropy %v, want log2(%d) = %v within %v", n, ks.Entropy, n, want, tol)
		}
		if ks.EntropyEstimated != (n > 1000) || ks.Estimated != (n > 1000) {
			t.Errorf("uniform %d: estimated: entropy %v, cardinality %v; want %v", n, ks.EntropyEstimated, ks.Estimated, n > 1000)
		}
	}

	// Zipf (weights 1/i, i = 1..200,000), the first 1,000 listed: the
	// figure is the closed form of the estimate with d = 199,000 (within
	// the sketch's error on d), and at least the true entropy (an upper
	// estimate: the tail is not evenly used), within that error.
	const n, exact = 200000, 1000
	vc, trueH := zipfCounts(n, exact)
	hn, he := 0.0, 0.0
	for i := n; i >= 1; i-- {
		hn += 1 / float64(i)
		if i <= exact {
			he += 1 / float64(i)
		}
	}
	counted := 0.0
	for i := 1; i <= exact; i++ {
		p := 1 / float64(i) / hn
		counted -= p * math.Log2(p)
	}
	r := (hn - he) / hn
	want := counted - r*math.Log2(r/float64(n-exact))
	ks := TrafficKeyStats(countsWorkload(vc), 0, []int{0})
	if tol := kmvTol(r); math.Abs(ks.Entropy-want) > tol {
		t.Errorf("zipf: entropy %v, want %v within %v", ks.Entropy, want, tol)
	}
	if ks.Entropy < trueH-kmvTol(r) {
		t.Errorf("zipf: entropy %v below the true %v by more than the sketch's error", ks.Entropy, trueH)
	}
	if !ks.EntropyEstimated {
		t.Errorf("zipf: entropy not marked estimated")
	}
	t.Logf("zipf n=%d, %d listed: rest %.4f of the weight; true entropy %.4f, counted values' terms (the old figure) %.4f, estimate %.4f (closed form %.4f)", n, exact, r, trueH, counted, ks.Entropy, want)
}

// TestTrafficEntropyMapPastCap: statements binding more distinct values
// than TrafficKeyStats counts one by one (distinctExact), each once: the
// entropy is log2(n) within the sketch's error on the rest, marked
// estimated; under the cap it is log2(n) exactly, not marked.
func TestTrafficEntropyMapPastCap(t *testing.T) {
	for _, n := range []int{distinctExact, distinctExact + 30000} {
		op := &shardkey.Operation{Name: "get", Table: 0, Kind: shardkey.Read, Rate: float64(n)}
		for i := range n {
			op.Instances = append(op.Instances, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(int64(i))}}})
		}
		w := &shardkey.Workload{
			Tables: []*shardkey.Table{{Name: "t", Columns: []*shardkey.Column{{Name: "k", Type: shardkey.Int64}}}},
			Ops:    []*shardkey.Operation{op},
		}
		ks := TrafficKeyStats(w, 0, []int{0})
		want := math.Log2(float64(n))
		past := n > distinctExact
		r := float64(n-distinctExact) / float64(n)
		tol := 1e-9
		if n-distinctExact >= kmv.K {
			tol = kmvTol(r)
		}
		if math.Abs(ks.Entropy-want) > tol || ks.EntropyEstimated != past || ks.Estimated != past {
			t.Errorf("%d values: entropy %v (estimated %v, cardinality %d estimated %v), want log2(%d) = %v within %v, estimated %v",
				n, ks.Entropy, ks.EntropyEstimated, ks.Cardinality, ks.Estimated, n, want, tol, past)
		}
	}
}
