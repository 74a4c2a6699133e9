package numfmt

import "testing"

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{Commas(0), "0"}, {Commas(999), "999"}, {Commas(1000), "1,000"}, {Commas(-1234567), "-1,234,567"},
		{Round(1.3e20), "1.300e+20"}, {Round(-2.5e19), "-2.500e+19"}, {Round(3e25 + 1e20), "3.000e+25"}, {Round(999999999999999), "999,999,999,999,999"}, {Round(1234.5), "1,235"}, {Round(-0.4), "0"},
		{Pct(0), "0%"}, {Pct(0.0004), "<0.1%"}, {Pct(0.0525), "5.2%"}, {Pct(0.5), "50%"}, {Pct(1), "100%"},
	} {
		if c.got != c.want {
			t.Errorf("got %q; want %q", c.got, c.want)
		}
	}
}
