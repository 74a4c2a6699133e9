package shardkey_test

import (
	"math"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestValueText: text forms follow Python's str(), which seed 000's h()
// joins with "|".
func TestValueText(t *testing.T) {
	check := func(v shardkey.Value, want string) {
		t.Helper()
		if got := v.String(); got != want {
			t.Errorf("%#v.String() = %q; want %q", v, got, want)
		}
	}
	check(shardkey.IntValue(-42), "-42")
	check(shardkey.TextValue("2024-03"), "2024-03")
	check(shardkey.FloatValue(1), "1.0")      // Python: str(1.0)
	check(shardkey.FloatValue(0.1), "0.1")    // shortest round trip
	check(shardkey.FloatValue(1e16), "1e+16") // exponent from 1e16 up
	check(shardkey.FloatValue(1e15), "1000000000000000.0")
	check(shardkey.FloatValue(1.5e-5), "1.5e-05") // and below 1e-4
	check(shardkey.FloatValue(0.0001), "0.0001")
	check(shardkey.FloatValue(math.Inf(-1)), "-inf")
	check(shardkey.Value{Type: shardkey.Uint64, Int: -1}, "18446744073709551615")
	u, err := shardkey.ParseValue("123E4567-E89B-12D3-A456-426614174000", shardkey.UUID)
	if err != nil {
		t.Fatal(err)
	}
	check(u, "123e4567-e89b-12d3-a456-426614174000")
}

func TestParseValueErrors(t *testing.T) {
	for _, c := range []struct {
		s string
		t shardkey.Type
	}{{"x", shardkey.Int64}, {"99999", shardkey.Int16}, {"1.5", shardkey.Int32}, {"zz", shardkey.Bytes}, {"1234", shardkey.UUID}, {"yesterday", shardkey.Timestamp}, {"-1", shardkey.Uint64}} {
		if _, err := shardkey.ParseValue(c.s, c.t); err == nil {
			t.Errorf("ParseValue(%q, %s) succeeded", c.s, c.t)
		}
	}
}

func TestCompare(t *testing.T) {
	lt := func(a, b shardkey.Value) {
		t.Helper()
		if shardkey.Compare(a, b) >= 0 || shardkey.Compare(b, a) <= 0 {
			t.Errorf("want %v < %v", a, b)
		}
	}
	lt(shardkey.Value{}, shardkey.IntValue(-5))
	lt(shardkey.IntValue(-5), shardkey.IntValue(3))
	lt(shardkey.IntValue(3), shardkey.FloatValue(3.5))
	lt(shardkey.IntValue(-1), shardkey.Value{Type: shardkey.Uint64, Int: -1})
	lt(shardkey.IntValue(1<<40), shardkey.TextValue("a"))
	lt(shardkey.TextValue("a"), shardkey.TextValue("b"))
}

func TestInferType(t *testing.T) {
	check := func(want shardkey.Type, s ...string) {
		t.Helper()
		if got := shardkey.InferType(s); got != want {
			t.Errorf("InferType(%q) = %s; want %s", s, got, want)
		}
	}
	check(shardkey.Int64, "1", "-2", "")
	check(shardkey.Float64, "1", "2.5")
	check(shardkey.Text, "1", "x")
	check(shardkey.UUID, "123e4567-e89b-12d3-a456-426614174000")
	check(shardkey.Timestamp, "2026-11-30 12:00:00", "2026-11-30")
	check(shardkey.Text, "2024-03")
	check(shardkey.Text)
}

// TestInferTypeOdd: the narrowest type every sample parses as; integers
// beyond float64's exact range never become Float64; one stray value among
// integers is reported.
func TestInferTypeOdd(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want shardkey.Type
		odd  int
	}{
		{[]string{"1", "-2", "", "30"}, shardkey.Int64, -1},
		{[]string{" 1", "2 "}, shardkey.Int64, -1},
		{[]string{"+5", "7"}, shardkey.Int64, -1},
		{[]string{"18446744073709550000", "18446744073709550049"}, shardkey.Uint64, -1},
		{[]string{"-1", "18446744073709550000"}, shardkey.Text, -1}, // no single integer type holds both
		{[]string{"100000000000000000000", "100000000000000000001"}, shardkey.Text, -1},
		{[]string{"2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05", "2024-01-06", "2024-01-07", "2024-01-08", "2024-01-09", "N/A"}, shardkey.Text, 9},
		{[]string{"1", " ", "NULL", `\N`, "null", "2"}, shardkey.Int64, -1},
		{[]string{"1.5", "2.5", "3.5", "4.5", "5.5", "6.5", "7.5", "8.5", "9.5", "abc"}, shardkey.Text, 9},
		{[]string{"9007199254740993", "1.5"}, shardkey.Text, -1},
		{[]string{"1.5", "2"}, shardkey.Float64, -1},
		{[]string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "1e3"}, shardkey.Float64, 9},
		{[]string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "x"}, shardkey.Text, 9},
		{[]string{"1", "2", "x", "y"}, shardkey.Text, -1},
		{[]string{"2024-01-02", "2024-01-03 04:05:06"}, shardkey.Timestamp, -1},
		{[]string{"123e4567-e89b-12d3-a456-426614174000"}, shardkey.UUID, -1},
		{[]string{"", ""}, shardkey.Text, -1},
	} {
		got, odd, _ := shardkey.InferTypeOdd(c.in)
		if got != c.want || odd != c.odd {
			t.Errorf("InferTypeOdd(%q) = %s, %d; want %s, %d", c.in, got, odd, c.want, c.odd)
		}
	}
}

// TestParseValueNull: blank text, NULL and \N are NULL in typed columns,
// text in text columns.
func TestParseValueNull(t *testing.T) {
	for _, s := range []string{"", "  ", "NULL", "null", `\N`} {
		for _, typ := range []shardkey.Type{shardkey.Int64, shardkey.Float64, shardkey.Timestamp, shardkey.UUID} {
			v, err := shardkey.ParseValue(s, typ)
			if err != nil || !v.IsNull() {
				t.Errorf("ParseValue(%q, %s) = %v, %v; want NULL", s, typ, v, err)
			}
		}
	}
	if v, _ := shardkey.ParseValue("NULL", shardkey.Text); v.IsNull() || v.Str != "NULL" {
		t.Errorf("ParseValue(NULL, text) = %v; want the text NULL", v)
	}
}
