package advisor

import "testing"

// TestFmtF: numbers below 0.01 keep three significant digits (a capacity
// of 0.001 units/s printed as 0.00), the rest as before.
func TestFmtF(t *testing.T) {
	for x, want := range map[float64]string{0.001: "0.001", 0.00123456: "0.00123", 0.0099: "0.0099", 0: "0.00", 0.5: "0.50", 12.34: "12.3", 1234: "1,234"} {
		if got := fmtF(x); got != want {
			t.Errorf("fmtF(%v) = %q, want %q", x, got, want)
		}
	}
}
