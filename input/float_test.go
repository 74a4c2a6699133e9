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
		{"9007199254740991", true}, {"9007199254740992", true}, // 2^53: rounded from integers
		{"9007199254740993", true}, {"9007199254740995", true}, // ties: to even, 2^53 and 2^53+4
		{"18446744073709551615", false}, {"9999999999999999999", true}, // 20 and 19 digits
		{"1e23", true}, {"1e-23", true}, {"12345678901234567", true},
		{"1e27", true}, {"1e-27", true}, {"1e28", false}, {"1e-28", false},
		{"", false}, {"-", false}, {".", false}, {"+1", false}, {"1e", false}, {"1e+", false},
		{" 1", false}, {"1 ", false}, {"0x10", false}, {"inf", false}, {"NaN", false}, {"1_0", false},
		{"0.30000000000000004", true}, {"1.5e-7", true}, {"123456789012345.6", true},
		{"4.3231893968012104e-07", true}, {"1.7976931348623157e308", false},
		{"00000000000000000000001", true},                                     // leading zeros are not significant digits
		{"000.000123", true}, {"-0.0", true}, {"0.1000000000000000000", true}, // 19 significant digits
		{"0.10000000000000000000", false}, {"1000000000000000000.5", false}, // 21 and 20: trailing zeros count
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
	// 17 to 19 significant digits and scales past 10^22, rounded from
	// integers: random mantissas and exponents, written with and without
	// a point, and exact ties between two float64s (an integer halfway
	// between two neighbours above 2^53), which round to even.
	for i := 0; i < 200000; i++ {
		m := r.Uint64N(10_000_000_000_000_000_000)
		e := r.IntN(61) - 30
		checkExactFloat(t, strconv.FormatUint(m, 10)+"e"+strconv.Itoa(e))
		ds := strconv.FormatUint(m, 10)
		if p := r.IntN(len(ds) + 1); p < len(ds) {
			checkExactFloat(t, ds[:p]+"."+ds[p:]+"e"+strconv.Itoa(e))
		}
	}
	for j := uint(1); j <= 10; j++ {
		for k := 0; k < 1000; k++ {
			// base is a float64 (53 significant bits) whose neighbour
			// above is base + 2^j: base + 2^(j-1) is halfway.
			base := (uint64(1)<<52 | r.Uint64N(1<<52)) << j
			for _, m := range []uint64{base + 1<<(j-1), base + 1<<(j-1) - 1, base + 1<<(j-1) + 1} {
				if !checkExactFloat(t, strconv.FormatUint(m, 10)) {
					t.Fatalf("exactFloat(%d) not taken", m)
				}
			}
		}
	}
}

func FuzzExactFloat(f *testing.F) {
	for _, s := range []string{"0", "-0.5", "2.871580110239838e-07", "1e22", "9007199254740991", ".e1", "1e-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkExactFloat(t, s) })
}

// TestExactFloatPrefix: a number followed by a byte no decimal continues
// with (a separator, a letter, a space) is read as strconv.ParseFloat
// reads the number alone, and its length is the number's; a number that
// a following byte continues ('.', a digit, 'e') is read greedily, and
// exactFloat of the whole text agrees whenever the length is all of it.
func TestExactFloatPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 100000; i++ {
		w := r.Float64() * math.Pow(10, float64(r.IntN(30)-20))
		num := strconv.FormatFloat(w, "gfe"[r.IntN(3)], r.IntN(18)-1, 64)
		want, err := strconv.ParseFloat(num, 64)
		if err != nil {
			t.Fatal(err)
		}
		for _, tail := range []string{"", ",", "\t7", ";x", " kg", "x", "\n"} {
			f, n, ok := exactFloatPrefix(num + tail)
			if ok && (n != len(num) || math.Float64bits(f) != math.Float64bits(want)) {
				t.Fatalf("exactFloatPrefix(%q) = %v, %d; want %v, %d", num+tail, f, n, want, len(num))
			}
			if g, gok := exactFloat(num); ok != gok || ok && math.Float64bits(g) != math.Float64bits(f) {
				t.Fatalf("exactFloatPrefix(%q) ok %v, exactFloat(%q) ok %v", num+tail, ok, num, gok)
			}
		}
	}
	for _, c := range []struct {
		s  string
		n  int
		ok bool
	}{
		{"1.5.5", 3, true}, {"2.5-3", 3, true}, {"1e5e5", 3, true}, {"12,3", 2, true},
		{"1e,", 0, false}, {"1e+,", 0, false}, {"-,", 0, false}, {".,", 0, false}, {",1", 0, false},
		{"12345678901234567890,", 0, false}, {"1e28,", 0, false}, {"5.,", 2, true}, {".5x", 2, true},
	} {
		f, n, ok := exactFloatPrefix(c.s)
		if ok != c.ok || ok && n != c.n {
			t.Errorf("exactFloatPrefix(%q) = %v, %d, %v; want length %d, %v", c.s, f, n, ok, c.n, c.ok)
			continue
		}
		if ok {
			if want, _ := strconv.ParseFloat(c.s[:n], 64); f != want {
				t.Errorf("exactFloatPrefix(%q) = %v; want %v", c.s, f, want)
			}
		}
	}
}
