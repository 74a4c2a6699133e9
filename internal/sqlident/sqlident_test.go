package sqlident

import "testing"

// TestIdents: hand-worked cases of each dialect's rules. PostgreSQL folds
// unquoted names to lower case and reserves "user" and "order"
// (Appendix C, SQL Key Words); MySQL reserves ORDER and GROUP (MySQL 8.0
// Reference Manual, 11.3 Keywords and Reserved Words) and keeps case.
func TestIdents(t *testing.T) {
	for _, c := range []struct{ name, pg, my string }{
		{"orders", "orders", "orders"},
		{"Orders", `"Orders"`, "Orders"},
		{"order", `"order"`, "`order`"},
		{"Order", `"Order"`, "`Order`"},
		{"user", `"user"`, "`user`"},
		{"group", `"group"`, "`group`"},
		{"user-data", `"user-data"`, "`user-data`"},
		{"a`b", "\"a`b\"", "`a``b`"},
		{`a"b`, `"a""b"`, "`a\"b`"},
		{"order_items", "order_items", "order_items"},
	} {
		if got := PG(c.name); got != c.pg {
			t.Errorf("PG(%q) = %s; want %s", c.name, got, c.pg)
		}
		if got := MySQL(c.name); got != c.my {
			t.Errorf("MySQL(%q) = %s; want %s", c.name, got, c.my)
		}
	}
}
