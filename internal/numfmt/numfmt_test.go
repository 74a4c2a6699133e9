package numfmt

import "testing"

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{Commas(0), "0"}, {Commas(999), "999"}, {Commas(1000), "1,000"}, {Commas(-1234567), "-1,234,567"},
		{Round(1.3e20), "1.300e+20"}, {Round(-2.5e19), "-2.500e+19"}, {Round(3e25 + 1e20), "3.000e+25"}, {Round(999999999999999), "999,999,999,999,999"}, {Round(1234.5), "1,235"}, {Round(-0.4), "0"},
		{Pct(0), "0%"}, {Pct(0.0004), "<0.1%"}, {Pct(0.0525), "5.2%"}, {Pct(0.5), "50%"}, {Pct(1), "100%"},
		// One reads singular, whatever else plural: 1.00 is not the
		// integer 1 (Num keeps its decimals), 0.3 + 0.7 is.
		{Count(1, "request/s", "requests/s"), "1 request/s"}, {Count(0.3+0.7, "unit/s", "units/s"), "1 unit/s"},
		{Count(2, "request/s", "requests/s"), "2 requests/s"}, {Count(0, "request/s", "requests/s"), "0 requests/s"},
		{Count(1.004, "request/s", "requests/s"), "1.00 requests/s"}, {Count(5200, "request/s", "requests/s"), "5,200 requests/s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q; want %q", c.got, c.want)
		}
	}
}
