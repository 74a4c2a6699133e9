package shardkey_test

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

func TestParseDesign(t *testing.T) {
	check := func(in, wantDefault string, wantTables map[string]string) {
		t.Helper()
		d, err := shardkey.ParseDesign(in)
		if err != nil {
			t.Fatalf("ParseDesign(%q): %v", in, err)
		}
		got := ""
		if d.Default != nil {
			got = d.Default.String()
		}
		if got != wantDefault {
			t.Errorf("ParseDesign(%q) default = %q; want %q", in, got, wantDefault)
		}
		if len(d.Tables) != len(wantTables) {
			t.Errorf("ParseDesign(%q) tables = %v; want %v", in, d.Tables, wantTables)
		}
		for k, v := range wantTables {
			if e, ok := d.Tables[k]; !ok || e.String() != v {
				t.Errorf("ParseDesign(%q) table %s = %v; want %s", in, k, e, v)
			}
		}
	}
	check("hash(user_id)", "hash(user_id)", nil)
	check("user_id", "hash(user_id)", nil)
	check(" hash( customer_id ,order_month ) ", "hash(customer_id, order_month)", nil)
	check("range(created_at)", "range(created_at)", nil)
	check("range(w, bounds=[10, 20, '30'])", "range(w, bounds=[10, 20, 30])", nil)
	check("salt(hash(user_id), 4, top=1)", "salt(hash(user_id), 4, top=1)", nil)
	check("salt(hash(user_id), 4)", "salt(hash(user_id), 4, top=1)", nil)
	check("isolate(hash(customer_id), top=3)", "isolate(hash(customer_id), top=3)", nil)
	check("directory(user_id, dir.csv)", "directory(user_id, dir.csv)", nil)
	check("warehouse:range(w_id); item:replicate", "", map[string]string{"warehouse": "range(w_id)", "item": "replicate"})
	check("hash(customer_id); item:replicate", "hash(customer_id)", map[string]string{"item": "replicate"})
}

func TestParseDesignErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty key expression"},
		{"hash(a", `at 7: expected ')'`},
		{"hash()", "expected a column name"},
		{"hash(a, b, a)", "column a named twice"},
		{"range(a, a)", "column a named twice"},
		{"hash(a) hash(b)", `expected ";"`},
		{"md5(a)", `unknown function "md5"`},
		{"salt(hash(a), 0, top=1)", "salt buckets 0"},
		{"salt(hash(a), x)", "whole number"},
		{"isolate(hash(a), top=0)", "top=0"},
		{"a:hash(x); a:hash(y)", "two keys"},
		{"hash(a); hash(b)", "at most one expression without a table"},
		{"replicate", ""}, // a bare column called replicate is hash(replicate)
	} {
		_, err := shardkey.ParseDesign(c.in)
		if c.want == "" {
			if err != nil {
				t.Errorf("ParseDesign(%q): %v", c.in, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseDesign(%q) error = %v; want it to contain %q", c.in, err, c.want)
		}
	}
}

func FuzzParseDesign(f *testing.F) {
	for _, s := range []string{"hash(a)", "range(a, b, bounds=[1,2])", "salt(isolate(hash(a), top=2), 4, top=1)", "t:replicate; u:hash(x)", "directory(a, f.csv)", "((", "a:b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := shardkey.ParseDesign(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "key ") {
				t.Fatalf("error without context: %v", err)
			}
			return
		}
		if d.Default == nil && len(d.Tables) == 0 {
			t.Fatalf("ParseDesign(%q) accepted an empty design", s)
		}
		// A parsed expression prints in a form that parses again.
		if d.Default != nil {
			if _, err := shardkey.ParseExpr(d.Default.String()); err != nil && !strings.Contains(d.Default.String(), "directory(") {
				t.Fatalf("%q printed as %q, which does not parse: %v", s, d.Default, err)
			}
		}
	})
}
