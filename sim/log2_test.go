package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLog2PairMatchesMath holds log2Pair to math.Log2 bit for bit, and
// entropyPair to two entropyOne in turn: shares as key statistics take
// them (a weight over a total, a count over a total), random bit patterns
// over every exponent and sign, fractions in [0.5, 1), each value's
// neighbours around Sqrt2/2 (where Log's reduction doubles the fraction or
// not), 0.5 and 1 at many exponents, every power of two, and the special
// values math.Log2 handles (zero, subnormal, negative, infinite, NaN),
// each in either lane beside an ordinary value.
func TestLog2PairMatchesMath(t *testing.T) {
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
	}
	check := func(x0, x1 float64) {
		t.Helper()
		l0, l1 := log2Pair(x0, x1)
		if w0, w1 := math.Log2(x0), math.Log2(x1); !same(l0, w0) || !same(l1, w1) {
			t.Fatalf("log2Pair(%v, %v) = %v, %v (%#x, %#x); math.Log2 %v, %v (%#x, %#x)", x0, x1,
				l0, l1, math.Float64bits(l0), math.Float64bits(l1), w0, w1, math.Float64bits(w0), math.Float64bits(w1))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	var xs []float64
	for range 1_000_000 {
		xs = append(xs[:0],
			r.Float64(),                                          // a share in [0, 1)
			r.Float64()/(1+r.Float64()*1e6),                      // a small one
			math.Float64frombits(r.Uint64()),                     // any bits
			math.Float64frombits(r.Uint64()>>12|0x3fe<<52),       // a fraction in [0.5, 1)
			float64(1+r.IntN(1000))/float64(1+r.IntN(1_000_000))) // a count over a total
		for i := 0; i+1 < len(xs); i++ {
			check(xs[i], xs[i+1])
		}
		h0, total := r.Float64()*10, 1+r.Float64()*1e3
		w0, w1 := r.Float64()*total, r.Float64()*total
		if got, want := entropyPair(h0, w0, w1, total), entropyOne(entropyOne(h0, w0, total), w1, total); !same(got, want) {
			t.Fatalf("entropyPair(%v, %v, %v, %v) = %v, want %v", h0, w0, w1, total, got, want)
		}
	}
	var edge []float64
	for _, c := range []float64{math.Sqrt2 / 2, 0.5, 1, math.Nextafter(1, 0), math.Nextafter(0.5, 1)} {
		x, y := c, c
		for range 300 {
			for _, e := range []int{-1074, -1040, -1022, -300, -20, -1, 0, 1, 40, 1000} {
				edge = append(edge, math.Ldexp(x, e), math.Ldexp(y, e))
			}
			x, y = math.Nextafter(x, 0), math.Nextafter(y, 2)
		}
	}
	for e := -1074; e <= 1023; e++ {
		edge = append(edge, math.Ldexp(1, e))
	}
	edge = append(edge, 0, math.Copysign(0, -1), 5e-324, 2.2250738585072009e-308, 2.2250738585072014e-308,
		-1, -0.5, -0.75, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64)
	for _, x := range edge {
		check(x, 0.3)
		check(0.3, x)
		check(x, x)
	}
	for _, w := range []float64{0, 1e-300, 1, math.Inf(1), math.NaN()} {
		for _, total := range []float64{1, 1e300, math.Inf(1)} {
			if got, want := entropyPair(1, w, 0.5, total), entropyOne(entropyOne(1, w, total), 0.5, total); !same(got, want) {
				t.Fatalf("entropyPair(1, %v, 0.5, %v) = %v, want %v", w, total, got, want)
			}
		}
	}
}

// BenchmarkEntropy is the entropy sum of ComputeKeyStats over 2 M
// shares (seed 000's order ids, each row its own value), two at a time
// (entropyPair) and, side by side, as it was: one math.Log2 at a time.
func BenchmarkEntropy(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 7))
	ws := make([]float64, 2_000_000)
	total := 0.0
	for i := range ws {
		ws[i] = r.ExpFloat64() * 1e-6
		total += ws[i]
	}
	var sink float64
	b.Run("pairs", func(b *testing.B) {
		for range b.N {
			h := 0.0
			for i := 0; i+1 < len(ws); i += 2 {
				h = entropyPair(h, ws[i], ws[i+1], total)
			}
			sink += h
		}
	})
	b.Run("math.Log2", func(b *testing.B) {
		for range b.N {
			h := 0.0
			for _, w := range ws {
				if w > 0 {
					if p := w / total; p > 0 {
						h -= p * math.Log2(p)
					}
				}
			}
			sink += h
		}
	})
	_ = sink
}
