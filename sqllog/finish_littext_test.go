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

// TestShapeShown: the placeholders standing for a shape's literals read
// "?" in the unparsed statements' warning (fresh-clone review: "a =
// $100001 AND" for a log line "a = 1 AND"); a statement's own $2 stays.
func TestShapeShown(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT * FROM t WHERE a = $100001 AND":       "SELECT * FROM t WHERE a = ? AND",
		"SELECT $2, $100001 IN ($100002, $200003) x$": "SELECT $2, ? IN (?, ?) x$",
		"no placeholder": "no placeholder",
	} {
		if got := shapeShown(in); got != want {
			t.Errorf("shapeShown(%q) = %q; want %q", in, got, want)
		}
	}
}
