// Package numfmt formats numbers for people, the same way in every report:
// thousands separators and shares as percentages.
package numfmt

import (
	"math"
	"strconv"
	"strings"
)

// Commas formats n with thousands separators: 1234567 -> "1,234,567".
func Commas(n int64) string { return group(strconv.FormatInt(n, 10)) }

// Round formats x rounded to an integer with thousands separators; from
// 1e15 up, where a float64's digits stop being exact integers, in
// scientific notation with four digits (1.3e20 -> "1.300e+20").
func Round(x float64) string {
	if math.Abs(x) >= 1e15 {
		return strconv.FormatFloat(x, 'e', 3, 64)
	}
	return group(strconv.FormatFloat(math.Round(x), 'f', 0, 64))
}

// group inserts thousands separators into a decimal integer.
func group(s string) string {
	if s == "-0" {
		s = "0"
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Pct formats a share (0..1) as a percentage: "0%", "<0.1%", one decimal
// below 10%, none above.
func Pct(x float64) string {
	switch {
	case x == 0:
		return "0%"
	case x < 0.001:
		return "<0.1%"
	case x < 0.1:
		return strconv.FormatFloat(100*x, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(100*x, 'f', 0, 64) + "%"
}
