package sqllog

import "testing"

// TestLitText: a value a reason quotes is one line: a string with a
// control character or a byte that is no UTF-8 (the binary string of
// b'101', X'FF') is written as an escape string, by hand.
func TestLitText(t *testing.T) {
	check := func(l lit, want string) {
		t.Helper()
		if got := litText(l); got != want {
			t.Errorf("litText(%q) = %s; want %s", l.s, got, want)
		}
	}
	check(lit{kind: litStr, s: "abc"}, "'abc'")
	check(lit{kind: litStr, s: "O'Brien"}, "'O''Brien'")
	check(lit{kind: litStr, s: "\x05"}, `E'\x05'`)
	check(lit{kind: litStr, s: "a\xffb'\\é"}, `E'a\xffb''\\é'`)
	check(lit{kind: litNum, s: "42"}, "42")
}
