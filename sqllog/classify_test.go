package sqllog

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestClassifyQuick: the quick path of classify gives what
// shardkey.InferType gives for the same value, on values at the edges of
// its rules.
func TestClassifyQuick(t *testing.T) {
	nums := []string{"0", "7", "-7", "007", "123456789012345678", "-123456789012345678",
		"1234567890123456789", "99999999999999999999", "1.5", "1e5", "1_000", "-", "+5", "0x1F"}
	strs := []string{"a", "abc", "NULL", "null", "Null ", "inf", "Infinity", "NaN", "nan",
		"abcdef01-2345-6789-abcd-ef0123456789", "ABCDEF01-2345-6789-ABCD-EF0123456789",
		"2024-01-02", "2024-01-02 10:11:12", "Mon, 02 Jan 2006", "true", "false", "x ", " x",
		"é", "aé", "BARBARBAR", "a\t", "Z9", "abcd-efgh-ij", "e5", "E10", "t", "f", "0", "12", "-3"}
	quick := 0
	for _, kind := range []litKind{litNum, litStr} {
		vals := nums
		if kind == litStr {
			vals = strs
		}
		for _, s := range vals {
			got, ok := classifyQuick(lit{s: s, kind: kind})
			if !ok {
				continue
			}
			quick++
			want := shardkey.InferType([]string{s})
			if kind == litNum && strings.ContainsAny(s, ".eE") {
				want = shardkey.Float64
			}
			if got != want {
				t.Errorf("classifyQuick(%q, kind %d) = %v, InferType says %v", s, kind, got, want)
			}
		}
	}
	if quick < 15 {
		t.Errorf("only %d values took the quick path", quick)
	}
}
