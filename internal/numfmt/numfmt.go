// Package numfmt formats numbers for people, the same way in every report:
// thousands separators and shares as percentages.
package numfmt

import (
	"fmt"
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

// Num formats a number for people: thousands separators from 100 up,
// three significant digits below; an integer (up to float rounding) as one.
func Num(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Sprint(x)
	case math.Abs(x) >= 99.5:
		return Round(x)
	case math.Abs(x-math.Round(x)) <= 1e-9*math.Max(1, math.Abs(x)):
		// An integer, up to float rounding (sums of fractional weights
		// added in another order differ in the last bits).
		return strconv.FormatInt(int64(math.Round(x)), 10)
	case math.Abs(x) >= 9.995:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case math.Abs(x) >= 0.01:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// Count formats x as Num does, followed by its unit: one when the
// number reads "1" ("1 request/s", "+1 unit/s"), else many ("5,200
// requests/s", "1.50 units/s").
func Count(x float64, one, many string) string {
	n := Num(x)
	if n == "1" {
		return n + " " + one
	}
	return n + " " + many
}

// Ratio formats a max/mean ratio: two decimals and "x".
func Ratio(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) + "x" }

// Wrap breaks s into lines of at most width bytes (a longer word stands
// alone), each starting with indent.
func Wrap(s string, width int, indent string) string {
	var lines []string
	line := indent
	for _, word := range strings.Fields(s) {
		if len(line)+len(word)+1 > width && strings.TrimSpace(line) != "" {
			lines = append(lines, line)
			line = indent
		}
		if strings.TrimSpace(line) != "" {
			line += " "
		}
		line += word
	}
	if strings.TrimSpace(line) != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// Bytes formats a byte count in binary units: "800 B", "844.3 KiB",
// "3.4 MiB", up to PiB.
func Bytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return Num(b) + " B"
	}
	return strconv.FormatFloat(b, 'f', 1, 64) + " " + units[i]
}
