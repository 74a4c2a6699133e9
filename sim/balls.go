package sim

import (
	"math"
	"sync"
)

// ExpectedMaxLoadRatio returns E[max]/mean for k equal-weight keys hashed
// uniformly at random into n shards: the busiest shard's expected load over
// the mean k/n, the imbalance a perfect hash still leaves (balls into bins;
// seed 000: 1.24 for 6,400 keys on 64 shards, 1.023 for 640,000). It
// returns 0 for k <= 0 and 1 for n == 1. Results are memoised; it is safe
// for concurrent use.
//
// E[max] = sum over c >= 0 of 1 - P(max <= c). By Poissonization, with X_i
// iid Poisson(k/n), P(max <= c) = P(X_i <= c for all i | sum X_i = k) =
// F(c)^n P(S_c = k) / P(Poisson(k) = k), where S_c sums n copies of X
// truncated to <= c. When it is cheap, P(S_c = k) is computed exactly by
// convolution (repeated squaring of the truncated distribution), which
// makes the result exact; otherwise from the Edgeworth expansion of S_c's
// distribution with its skewness, within 0.1% of simulation from about 30
// keys per shard up.
func ExpectedMaxLoadRatio(k, n int) float64 {
	if k <= 0 || n <= 0 {
		return 0
	}
	if n == 1 {
		return 1
	}
	key := [2]int{k, n}
	ballsMu.Lock()
	r, ok := ballsMemo[key]
	ballsMu.Unlock()
	if ok {
		return r
	}
	lam := float64(k) / float64(n)
	width := lam + 10*math.Sqrt(lam) + 20
	cost := float64(k) * width * width * 2 * math.Log2(float64(n)+1)
	if cost <= 4e7 {
		r = exactExpectedMax(k, n) / lam
	} else {
		r = edgeworthExpectedMax(k, n) / lam
	}
	ballsMu.Lock()
	if len(ballsMemo) > 1<<12 {
		ballsMemo = map[[2]int]float64{}
	}
	ballsMemo[key] = r
	ballsMu.Unlock()
	return r
}

var (
	ballsMu   sync.Mutex
	ballsMemo = map[[2]int]float64{}
)

// exactExpectedMax computes E[max] for the multinomial(k; 1/n, ..., 1/n)
// through the Poissonized identity with an exact convolution.
func exactExpectedMax(k, n int) float64 {
	lam := float64(k) / float64(n)
	logPk := -float64(k) + float64(k)*math.Log(float64(k)) - lgamma(float64(k)+1)
	c0 := (k + n - 1) / n // max >= ceil(k/n)
	e := float64(c0)
	pmf := make([]float64, 0, k+1)
	for c := c0; c <= k; c++ {
		// Truncated Poisson(lam) on 0..c, normalised.
		pmf = pmf[:0]
		F := 0.0
		for x := 0; x <= c; x++ {
			p := math.Exp(-lam + float64(x)*math.Log(lam) - lgamma(float64(x)+1))
			pmf = append(pmf, p)
			F += p
		}
		for x := range pmf {
			pmf[x] /= F
		}
		pk := convPower(pmf, n, k) // P(S_c = k)
		p := 0.0
		if pk > 0 {
			p = math.Exp(float64(n)*math.Log(F) + math.Log(pk) - logPk)
		}
		p = math.Min(1, math.Max(0, p))
		e += 1 - p
		if 1-p < 1e-13 {
			break
		}
	}
	return e
}

// convPower returns the probability at k of the n-fold convolution of the
// distribution pmf, keeping only indices <= k.
func convPower(pmf []float64, n, k int) float64 {
	result := []float64{1}
	base := append([]float64(nil), pmf...)
	for n > 0 {
		if n&1 == 1 {
			result = conv(result, base, k)
		}
		n >>= 1
		if n > 0 {
			base = conv(base, base, k)
		}
	}
	if k < len(result) {
		return result[k]
	}
	return 0
}

func conv(a, b []float64, k int) []float64 {
	m := len(a) + len(b) - 1
	if m > k+1 {
		m = k + 1
	}
	out := make([]float64, m)
	for i, x := range a {
		if x == 0 || i >= m {
			continue
		}
		lim := m - i
		if lim > len(b) {
			lim = len(b)
		}
		o := out[i : i+lim]
		for j, y := range b[:lim] {
			o[j] += x * y
		}
	}
	return out
}

// edgeworthExpectedMax computes E[max] by Poissonization: with X_i iid
// Poisson(lam), P(max <= c | sum = k) = F(c)^n P(S_c = k) / P(Poisson(k) = k)
// where S_c is the sum of n copies of X truncated to <= c, whose point
// probability is taken from the Edgeworth expansion with skewness.
func edgeworthExpectedMax(k, n int) float64 {
	lam := float64(k) / float64(n)
	sd := math.Sqrt(lam)
	lo := int(math.Max(0, lam-14*sd-10))
	hi := int(lam + 16*sd + 30)
	logPk := -float64(k) + float64(k)*math.Log(float64(k)) - lgamma(float64(k)+1)
	res := float64(lo)
	var F, m1, m2, m3 float64
	ll := math.Log(lam)
	for c := lo; c <= hi; c++ {
		x := float64(c)
		p := math.Exp(-lam + x*ll - lgamma(x+1))
		F += p
		m1 += p * x
		m2 += p * x * x
		m3 += p * x * x * x
		pmax := 0.0
		if F > 0 {
			mu := m1 / F
			v := m2/F - mu*mu
			if v > 0 {
				mu3 := m3/F - 3*mu*m2/F + 2*mu*mu*mu
				s := math.Sqrt(float64(n) * v)
				z := (float64(k) - float64(n)*mu) / s
				g := mu3 / math.Pow(v, 1.5)
				dens := math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) / s * (1 + g/(6*math.Sqrt(float64(n)))*(z*z*z-3*z))
				if dens > 0 {
					pmax = math.Exp(float64(n)*math.Log(F) + math.Log(dens) - logPk)
				}
			}
		}
		pmax = math.Min(1, math.Max(0, pmax))
		res += 1 - pmax
	}
	return res
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}
