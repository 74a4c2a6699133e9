package sqllog

import "testing"

// TestDecodeUnicodeEscapes: the bodies of PostgreSQL U&'...' strings, with
// the values PostgreSQL 15 gives them (select U&'d\0061t\+000061',
// U&'\00e9t\00E9', U&'a\\b' returned data, été and a\b; U&'\0000' is
// "invalid Unicode escape value"); a lone surrogate and a short escape
// are refused too.
func TestDecodeUnicodeEscapes(t *testing.T) {
	check := func(in, want string, ok bool) {
		t.Helper()
		got, gotOK := decodeUnicodeEscapes(in)
		if got != want || gotOK != ok {
			t.Errorf("decodeUnicodeEscapes(%q) = %q, %v; want %q, %v", in, got, gotOK, want, ok)
		}
	}
	check(`d\0061t\+000061`, "data", true)
	check(`\00e9t\00E9`, "été", true)
	check(`a\\b`, `a\b`, true)
	check(`plain`, "plain", true)
	check(`\D800`, "", false)
	check(`\00e`, "", false)
	check(`\0000`, "", false)
}
