package input

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// checkExactFloat fails when exactFloat accepts s with another value than
// strconv.ParseFloat gives (bit for bit, so -0 and 0 differ), or accepts
// what strconv rejects.
func checkExactFloat(t *testing.T, s string) bool {
	t.Helper()
	got, ok := exactFloat(s)
	if !ok {
		return false
	}
	want, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("exactFloat(%q) = %v; strconv rejects it: %v", s, got, err)
	}
	if math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("exactFloat(%q) = %v (%#x); strconv %v (%#x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
	}
	return true
}

func TestExactFloat(t *testing.T) {
	for _, c := range []struct {
		s  string
		ok bool
	}{
		{"0", true}, {"-0", true}, {"1", true}, {"1.", true}, {".5", true}, {"0.000123", true},
		{"2.871580110239838e-07", true}, {"5e-22", true}, {"5e22", true}, {"1E+3", true},
		{"9007199254740991", true}, {"9007199254740992", false}, // 2^53: not exact as m
		{"1e23", false}, {"1e-23", false}, {"12345678901234567", false},
		{"", false}, {"-", false}, {".", false}, {"+1", false}, {"1e", false}, {"1e+", false},
		{" 1", false}, {"1 ", false}, {"0x10", false}, {"inf", false}, {"NaN", false}, {"1_0", false},
		{"0.30000000000000004", false}, {"1.5e-7", true}, {"123456789012345.6", true},
		{"00000000000000000000001", true}, // leading zeros are not significant digits
	} {
		if got := checkExactFloat(t, c.s); got != c.ok {
			t.Errorf("exactFloat(%q) ok = %v; want %v", c.s, got, c.ok)
		}
	}
	// Python's repr of random weights, as seed 000's generator writes
	// them: every accepted one equals strconv's reading.
	r := rand.New(rand.NewPCG(1, 2))
	taken := 0
	for i := 0; i < 200000; i++ {
		w := r.Float64() * math.Pow(10, float64(r.IntN(30)-20))
		if checkExactFloat(t, strconv.FormatFloat(w, 'g', -1, 64)) {
			taken++
		}
		checkExactFloat(t, strconv.FormatFloat(w, 'f', r.IntN(20), 64))
		checkExactFloat(t, strconv.FormatFloat(w, 'e', r.IntN(17), 64))
	}
	if taken == 0 {
		t.Error("no shortest-form weight took the fast path")
	}
}

func FuzzExactFloat(f *testing.F) {
	for _, s := range []string{"0", "-0.5", "2.871580110239838e-07", "1e22", "9007199254740991", ".e1", "1e-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkExactFloat(t, s) })
}
