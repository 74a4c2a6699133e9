package shardkey_test

import (
	"slices"
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
	check("salt(hash(workspace_id), 9, top=2, by=page_id)", "salt(hash(workspace_id), 9, top=2, by=page_id)", nil)
	check("salt( hash(workspace_id) , 9 , top=2 , by = page_id )", "salt(hash(workspace_id), 9, top=2, by=page_id)", nil)
	check("salt(hash(workspace_id), [11, 5, 3], top=3, by=page_id)", "salt(hash(workspace_id), [11, 5, 3], top=3, by=page_id)", nil)
	check("salt(hash(workspace_id), [4, 2])", "salt(hash(workspace_id), [4, 2], top=2)", nil)
	check("salt(hash(workspace_id), [ 4 ,1 ] , top=2)", "salt(hash(workspace_id), [4, 1], top=2)", nil)
	check("isolate(hash(customer_id), top=3)", "isolate(hash(customer_id), top=3)", nil)
	check("isolate(hash(workspace_id), top=1, split=page_id, over=11)", "isolate(hash(workspace_id), top=1, split=page_id, over=11)", nil)
	check("isolate(hash(workspace_id), top=3, split=page_id, over=[12, 5, 3])", "isolate(hash(workspace_id), top=3, split=page_id, over=[12, 5, 3])", nil)
	check("isolate( hash(workspace_id) , top=2 , split=page_id , over=[ 4 ,2 ] )", "isolate(hash(workspace_id), top=2, split=page_id, over=[4, 2])", nil)
	check("isolate(hash(workspace_id), top=3, split=page_id, over=[4, 1, 1])", "isolate(hash(workspace_id), top=3, split=page_id, over=[4, 1, 1])", nil)
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
		// bounds=[] was read as no bounds: the sample's quantiles were
		// used while the key echoed bounds=[].
		{"range(user_id, bounds=[])", "at 23: range bounds=[] gives no boundary"},
		{"range({a: 1}, bounds=[ ])", "at 22: range bounds=[] gives no boundary"},
		{"hash(a) hash(b)", `expected ";"`},
		{"md5(a)", `unknown function "md5"`},
		{"lookup(email)", "at 1: lookup(col) follows a table's key, after a comma, as in hash(user_id), lookup(email)"},
		{"users:lookup(email)", "lookup(col) follows a table's key"},
		{"salt(hash(a), 0, top=1)", "salt buckets 0"},
		{"salt(hash(a), x)", "whole number"},
		{"salt(hash(a), 4, top=1, by=a)", "by=a: a key column"},
		{"salt(hash(a), 4, top=1, by=)", "by= needs a column"},
		{"salt(hash(a), 4, top=1, on=b)", "expected by=column"},
		{"salt(hash(a), 4, by=b)", "expected top=N"},
		{"salt(hash(a), [4, 2], top=3)", "gives 2 bucket counts for top=3 values"},
		// A bad entry of a list is pointed at (1-based offset 19, the
		// "x" or "0"; it was 15, the "[") and counted from 1 (it said
		// "entry 0" of the value 0).
		{"salt(hash(a), [4, 0], top=2)", "at 19: salt [...] entry 2, 0 buckets: must be in 1.."},
		{"salt(hash(a), [4, x], top=2)", `at 19: salt [...] entry 2, "x": not a whole number of buckets`},
		{"salt(x, [3, a], top=2)", `at 13: salt [...] entry 2, "a": not a whole number of buckets`},
		{"salt(hash(a), [0, 4], top=2)", "at 16: salt [...] entry 1, 0 buckets: must be in 1.."},
		{"salt(hash(a), [], top=1)", "salt []: give one bucket count per value"},
		{"isolate(hash(a), top=0)", "top=0"},
		{"isolate(hash(a), top=1, split=b)", "needs over=K"},
		{"isolate(hash(a), top=1, split=b, over=1)", "over=1: must be in 2.."},
		{"isolate(hash(a), top=1, split=a, over=4)", "split=a: a key column"},
		// over= gives split='s shard counts: alone, it says so, at the
		// 1-based offset of "over" (25 and 18).
		{"isolate(hash(a), top=1, over=4)", "at 25: isolate over= without split=: over= lists the shard counts that split= spreads each hot value over, so it needs split=COLUMN before it"},
		{"isolate(hash(a), over=4)", "at 18: isolate over= without split="},
		{"isolate(hash(a), top=1, by=b)", "expected split=column"},
		{"isolate(hash(a), top=2, split=b, over=[4])", "gives 1 shard counts for top=2 values"},
		{"isolate(hash(a), top=2, split=b, over=[4, 0])", "at 43: isolate over=[...] entry 2, 0 shards: must be in 1.."},
		{"isolate(hash(a), top=1, split=b, over=[0])", "at 40: isolate over=[...] entry 1, 0 shards: must be in 1.."},
		{"isolate(hash(a), top=1, split=b, over=[x])", `at 40: isolate over=[...] entry 1, "x": not a whole number`},
		{"isolate(hash(a), top=1, split=b, over=[])", "over=[]: give one shard count per value"},
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

// TestParseMongoPattern: MongoDB shard key patterns (ascending fields, at
// most one "hashed", as ShardKeyPattern::isShardKeyPatternValid allows).
func TestParseMongoPattern(t *testing.T) {
	for _, c := range []struct{ in, str, hashed string }{
		{`{a: 1, b: "hashed"}`, `{a: 1, b: "hashed"}`, "b"},
		{`{ a : 'hashed' , b:1 }`, `{a: "hashed", b: 1}`, "a"},
		{`{a: 1, b: 1}`, `{a: 1, b: 1}`, ""},
		{`{"user.id": 1, _id: "hashed", c: 1}`, `{user.id: 1, _id: "hashed", c: 1}`, "_id"},
		{`range({a: 1, b: "hashed"}, bounds=[10, 20])`, `range({a: 1, b: "hashed"}, bounds=[10, 20])`, "b"},
	} {
		e, err := shardkey.ParseExpr(c.in)
		if err != nil {
			t.Errorf("ParseExpr(%s): %v", c.in, err)
			continue
		}
		re, ok := e.(*shardkey.RangeExpr)
		if !ok || !re.Mongo || re.Hashed != c.hashed || e.String() != c.str {
			t.Errorf("ParseExpr(%s) = %#v (%s); want a pattern %s hashing %q", c.in, e, e, c.str, c.hashed)
		}
	}
	d, err := shardkey.ParseDesign(`orders:{user_id: 1, _id: "hashed"}; users:{_id: "hashed"}`)
	if err != nil || d.Tables["orders"].String() != `{user_id: 1, _id: "hashed"}` || d.Tables["users"].String() != `{_id: "hashed"}` {
		t.Errorf("ParseDesign of two patterns = %v, %v", d, err)
	}
	for _, c := range []struct{ in, want string }{
		{`{a: "hashed", b: "hashed"}`, "at most one hashed field"},
		{`{a: -1}`, "shard keys are ascending"},
		{`{a: 2}`, `"2": a MongoDB shard key field is 1`},
		{`{a: "text"}`, `"text": a MongoDB shard key field is 1`},
		{`{a: 1, a: 1}`, "field a named twice"},
		{`{}`, "expected a field name"},
		{`{a: 1`, `expected '}'`},
		{`{a 1}`, `expected ':'`},
	} {
		_, err := shardkey.ParseExpr(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseExpr(%s) error = %v; want %q", c.in, err, c.want)
		}
	}
}

// TestParseDesignLookups: lookup(col) after a key, as the grammar in
// docs/product.md writes it; Vitess's vindex types by name.
func TestParseDesignLookups(t *testing.T) {
	d, err := shardkey.ParseDesign("users:hash(user_id), lookup(email), lookup(tag, nonunique, consistent); orders:hash(user_id)")
	if err != nil {
		t.Fatal(err)
	}
	has := func(string) bool { return true }
	got := d.LookupsFor("users", has)
	want := []shardkey.Lookup{{Col: "email", Unique: true}, {Col: "tag", Consistent: true}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("LookupsFor(users) = %+v; want %+v", got, want)
	}
	if got[0].String() != "lookup(email)" || got[1].String() != "lookup(tag, nonunique, consistent)" {
		t.Errorf("String() = %q, %q", got[0], got[1])
	}
	if got[0].VindexType() != "lookup_unique" || got[1].VindexType() != "consistent_lookup" {
		t.Errorf("VindexType() = %q, %q; want lookup_unique, consistent_lookup", got[0].VindexType(), got[1].VindexType())
	}
	if l := d.LookupsFor("orders", has); l != nil {
		t.Errorf("LookupsFor(orders) = %v; want none", l)
	}
	if d.Tables["users"].String() != "hash(user_id)" {
		t.Errorf("users key = %s", d.Tables["users"])
	}
	// A bare expression's lookup applies to the tables it places that
	// have the column.
	d, err = shardkey.ParseDesign("hash(user_id), lookup(email, unique, consistent)")
	if err != nil {
		t.Fatal(err)
	}
	if l := d.LookupsFor("users", func(c string) bool { return c == "user_id" || c == "email" }); len(l) != 1 || l[0].VindexType() != "consistent_lookup_unique" {
		t.Errorf("bare LookupsFor(users) = %v", l)
	}
	if l := d.LookupsFor("posts", func(c string) bool { return c == "user_id" }); l != nil {
		t.Errorf("LookupsFor(posts without email) = %v; want none", l)
	}
	if l := d.LookupsFor("tags", func(c string) bool { return c == "email" }); l != nil {
		t.Errorf("LookupsFor(a table the key does not place) = %v; want none", l)
	}
	for _, c := range []struct{ in, want string }{
		{"hash(a), b", "expected lookup(col)"},
		{"hash(a), lookup(a)", "a is a key column already"},
		{"hash(a), lookup(b), lookup(b)", "lookup(b) named twice"},
		{"hash(a), lookup(b, sorted)", `lookup option "sorted"`},
		{"hash(a), lookup(b, unique, nonunique)", "options unique and nonunique contradict"},
		{"hash(a), lookup(b, nonunique, unique)", "options nonunique and unique contradict"},
		{"hash(a), lookup(b, unique, unique)", "option unique named twice"},
		{"hash(a), lookup(b, consistent, consistent)", "option consistent named twice"},
		{"hash(a), lookup()", "lookup needs a column"},
		{"t:replicate, lookup(b)", "needs no lookup"},
		{"hash(a), lookup(b", `expected ')'`},
	} {
		if _, err := shardkey.ParseDesign(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseDesign(%q) = %v; want an error containing %q", c.in, err, c.want)
		}
	}
}

// TestParseDesignQuotedNames: names that are not plain identifiers are
// written as SQL delimited identifiers, "user-data", with "" for an
// embedded " (PostgreSQL's rule), and read back to the same names.
func TestParseDesignQuotedNames(t *testing.T) {
	d, err := shardkey.ParseDesign(`"user-data":hash("the id"); "a;b": replicate; "x ""y""":range("c-1", bounds=[5]), lookup("e mail"); orders:hash(user_id)`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"user-data", "a;b", `x "y"`, "orders"}; !slices.Equal(d.Order, want) {
		t.Fatalf("tables %q, want %q", d.Order, want)
	}
	if c := d.Tables["user-data"].Columns(); !slices.Equal(c, []string{"the id"}) {
		t.Errorf("user-data columns %q", c)
	}
	if _, ok := d.Tables["a;b"].(*shardkey.ReplicateExpr); !ok {
		t.Errorf("a;b: %v, want replicate", d.Tables["a;b"])
	}
	if c := d.Tables[`x "y"`].Columns(); !slices.Equal(c, []string{"c-1"}) {
		t.Errorf(`x "y" columns %q`, c)
	}
	if l := d.Lookups[`x "y"`]; len(l) != 1 || l[0].Col != "e mail" {
		t.Errorf("lookups %v", l)
	}
	// Written back with the same quoting.
	for e, want := range map[shardkey.Expr]string{
		d.Tables["user-data"]: `hash("the id")`,
		d.Tables[`x "y"`]:     `range("c-1", bounds=[5])`,
		d.Tables["orders"]:    `hash(user_id)`,
	} {
		if e.String() != want {
			t.Errorf("%v: String %q, want %q", e, e.String(), want)
		}
	}
	if got := d.Lookups[`x "y"`][0].String(); got != `lookup("e mail")` {
		t.Errorf("lookup %q", got)
	}
	for name, want := range map[string]string{"users": "users", "public.users": "public.users", "user-data": `"user-data"`, "a b": `"a b"`, `q"t`: `"q""t"`, "a;b": `"a;b"`, "1x": `"1x"`} {
		if got := shardkey.QuoteName(name); got != want {
			t.Errorf("shardkey.QuoteName(%q) = %s, want %s", name, got, want)
		}
	}
	// A quoted "hash" is a column, a quoted "replicate" a bare column.
	if d, err := shardkey.ParseDesign(`t:"replicate"`); err != nil || !slices.Equal(d.Tables["t"].Columns(), []string{"replicate"}) {
		t.Errorf(`t:"replicate": %v %v`, d, err)
	}
	for _, bad := range []string{`"user-data:hash(id)`, `"":hash(id)`} {
		if _, err := shardkey.ParseDesign(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestParseHashVindex: hash(col, vindex=TYPE) names the Vitess vindex
// that places a table (a VSchema's primary vindex); it reads back as
// written and is refused on several columns or an unknown type.
func TestParseHashVindex(t *testing.T) {
	d, err := shardkey.ParseDesign(`users:hash(user_id, vindex=hash); accounts:hash("login", vindex=unicode_loose_md5), lookup(email); salt(hash(a, vindex=xxhash), 4)`)
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := d.Tables["accounts"].(*shardkey.HashExpr); !ok || h.Vindex != "unicode_loose_md5" || len(h.Cols) != 1 || h.Cols[0] != "login" {
		t.Errorf("accounts: %#v", d.Tables["accounts"])
	}
	if got := d.Tables["users"].String(); got != "hash(user_id, vindex=hash)" {
		t.Errorf("users: %s", got)
	}
	if v := shardkey.KeyVindex(d.Default); v != "xxhash" {
		t.Errorf("shardkey.KeyVindex(%s) = %q; want xxhash", d.Default, v)
	}
	if v := shardkey.KeyVindex(&shardkey.HashExpr{Cols: []string{"a"}}); v != "" {
		t.Errorf("shardkey.KeyVindex(hash(a)) = %q; want none", v)
	}
	// A column named vindex is still a column.
	if e, err := shardkey.ParseExpr(`hash(vindex)`); err != nil || e.(*shardkey.HashExpr).Vindex != "" || e.Columns()[0] != "vindex" {
		t.Errorf("hash(vindex): %v %v", e, err)
	}
	if e, err := shardkey.ParseExpr(`hash("vindex", vindex=numeric)`); err != nil || e.String() != `hash(vindex, vindex=numeric)` {
		t.Errorf(`hash("vindex", vindex=numeric): %v %v`, e, err)
	}
	for _, c := range []struct{ in, want string }{
		{"hash(a, b, vindex=hash)", "takes one column, not 2"},
		{"hash(a, vindex=multicol)", "vindex=multicol: not a vindex type shardkey places (want binary_md5, hash, numeric, reverse_bits, unicode_loose_md5, unicode_loose_xxhash, xxhash)"},
		{"hash(vindex=hash)", "vindex= follows the key column"},
		{"hash(a, vindex=)", "vindex= needs a Vitess vindex type"},
		{"hash(a, vindex=hash, b)", "expected ')', got ','"},
	} {
		if _, err := shardkey.ParseExpr(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v; want %q", c.in, err, c.want)
		}
	}
	for _, vt := range shardkey.VindexTypes() {
		if e := shardkey.VindexEngine(vt); e == "" || shardkey.VindexType(e) != vt {
			t.Errorf("vindex %s: engine %q, back %q", vt, e, shardkey.VindexType(e))
		}
	}
}
