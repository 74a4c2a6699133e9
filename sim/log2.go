package sim

import (
	"math"
	"runtime"
)

// Entropy's logarithms. Key statistics take p*log2(p) once per distinct
// value (3.3 M for seed 000's three keys: 2 M order ids, 1.2 M customer-
// month pairs, 100,000 customers), and math.Log2 is a chain of dependent
// steps (Frexp, a division, a polynomial) behind two calls, so the loop
// waited for each logarithm in turn. entropyPair takes two values at
// once, their logarithms written out side by side, so that the two
// chains overlap; the sum is the same, bit for bit: each term is
// math.Log2's (log2Pair repeats its steps, and those of Log's assembly on
// amd64, math/log_amd64.s, operation for operation, each product rounded
// before it is added: no fused multiply-add, which the assembly does not
// use either), and the terms are subtracted in the same order.

// entropyOne subtracts value weight w's term from h: -p*log2(p) for its
// share p of total (> 0), nothing when w or p is 0 (p can round to 0
// beside much heavier values: its term is 0 then, not 0 * -Inf).
func entropyOne(h, w, total float64) float64 {
	if w > 0 {
		if p := w / total; p > 0 {
			h -= p * math.Log2(p)
		}
	}
	return h
}

// entropyPair is entropyOne(entropyOne(h, w0, total), w1, total).
func entropyPair(h, w0, w1, total float64) float64 {
	p0, p1 := w0/total, w1/total
	if !(w0 > 0 && w1 > 0 && p0 > 0 && p1 > 0) {
		return entropyOne(entropyOne(h, w0, total), w1, total)
	}
	l0, l1 := log2Pair(p0, p1)
	h -= p0 * l0
	h -= p1 * l1
	return h
}

// log2Pair returns math.Log2(x0) and math.Log2(x1), bit for bit. On
// amd64, for normal positive values, it repeats math.Log2's steps
// (Frexp; an exact power of two alone; else Log(frac)*(1/Ln2) + exp) with
// Log's assembly written out for both values at once. Anything else
// (zero, subnormal, negative, infinite, NaN; and other architectures,
// whose Log is another code) is math.Log2's.
// TestLog2PairMatchesMath holds it to math.Log2.
func log2Pair(x0, x1 float64) (float64, float64) {
	if runtime.GOARCH != "amd64" {
		return math.Log2(x0), math.Log2(x1)
	}
	b0, b1 := math.Float64bits(x0), math.Float64bits(x1)
	e0, e1 := int(b0>>52), int(b1>>52) // the sign bit makes a negative's >= 0x800
	// math.Frexp: x = frac * 2^exp, frac in [0.5, 1).
	f0 := math.Float64frombits(b0&(1<<52-1) | 1022<<52)
	f1 := math.Float64frombits(b1&(1<<52-1) | 1022<<52)
	if uint(e0-1) >= 0x7fe || uint(e1-1) >= 0x7fe || f0 == 0.5 || f1 == 0.5 {
		return math.Log2(x0), math.Log2(x1)
	}
	// Log(frac), math/log_amd64.s: Frexp's exponent of frac is 0, so k
	// is 0, or -1 with f1 doubled below Sqrt2/2.
	k0, k1 := 0.0, 0.0
	if f0 < math.Sqrt2/2 {
		k0, f0 = -1, f0*2
	}
	if f1 < math.Sqrt2/2 {
		k1, f1 = -1, f1*2
	}
	g0, g1 := f0-1, f1-1
	s0, s1 := g0/(2+g0), g1/(2+g1)
	q0, q1 := float64(s0*s0), float64(s1*s1)
	r0, r1 := float64(q0*q0), float64(q1*q1)
	t10 := float64(q0 * (logL1 + float64(r0*(logL3+float64(r0*(logL5+float64(r0*logL7)))))))
	t11 := float64(q1 * (logL1 + float64(r1*(logL3+float64(r1*(logL5+float64(r1*logL7)))))))
	t20 := float64(r0 * (logL2 + float64(r0*(logL4+float64(r0*logL6)))))
	t21 := float64(r1 * (logL2 + float64(r1*(logL4+float64(r1*logL6)))))
	R0, R1 := t10+t20, t11+t21
	hf0, hf1 := float64(float64(0.5*g0)*g0), float64(float64(0.5*g1)*g1)
	l0 := float64(k0*logLn2Hi) - ((hf0 - (float64(s0*(hf0+R0)) + float64(k0*logLn2Lo))) - g0)
	l1 := float64(k1*logLn2Hi) - ((hf1 - (float64(s1*(hf1+R1)) + float64(k1*logLn2Lo))) - g1)
	// math.log2's last step, as it writes it.
	return l0*(1/math.Ln2) + float64(e0-1022), l1*(1/math.Ln2) + float64(e1-1022)
}

// The constants of math/log_amd64.s.
const (
	logLn2Hi = 6.93147180369123816490e-01 // 0x3fe62e42fee00000
	logLn2Lo = 1.90821492927058770002e-10 // 0x3dea39ef35793c76
	logL1    = 6.666666666666735130e-01   // 0x3FE5555555555593
	logL2    = 3.999999999940941908e-01   // 0x3FD999999997FA04
	logL3    = 2.857142874366239149e-01   // 0x3FD2492494229359
	logL4    = 2.222219843214978396e-01   // 0x3FCC71C51D8E78AF
	logL5    = 1.818357216161805012e-01   // 0x3FC7466496CB03DE
	logL6    = 1.531383769920937332e-01   // 0x3FC39A09D078C69F
	logL7    = 1.479819860511658591e-01   // 0x3FC2F112DF3E5244
)
