package advisor

import "testing"

// TestSortTables: a design's table entries in order of table name after
// the expression without a table, each entry's text (lookups, bounds,
// quoted names holding ";") kept; a design that does not parse is left
// as it is.
func TestSortTables(t *testing.T) {
	check := func(in, want string) {
		t.Helper()
		if got := sortTables(in); got != want {
			t.Errorf("sortTables(%q) = %q; want %q", in, got, want)
		}
	}
	check("hash(w_id); warehouse:replicate; customer:hash(c_w_id), lookup(c_id); district:range(d_id, bounds=[1, 5])",
		"hash(w_id); customer:hash(c_w_id), lookup(c_id); district:range(d_id, bounds=[1, 5]); warehouse:replicate")
	check(`"z;t":hash(b); a:replicate; hash(x)`, `hash(x); a:replicate; "z;t":hash(b)`)
	check("hash(x)", "hash(x)")
	check("b:hash(x); a:hash(", "b:hash(x); a:hash(")
}
