package emit

import (
	"strings"
	"testing"
)

// TestReadVSchema: a keyspace VSchema in the shape of Vitess's own test
// schema (go/vt/vtgate/planbuilder/testdata/vschemas/schema.json: user by
// hash on Id, a lookup vindex besides, a reference table) reads as the
// design of its primary vindexes.
func TestReadVSchema(t *testing.T) {
	js := `{"keyspaces": {"user": {"sharded": true,
	  "vindexes": {"user_index": {"type": "hash"}, "name_user_map": {"type": "lookup_hash", "owner": "user"}},
	  "tables": {
	    "user": {"column_vindexes": [{"column": "Id", "name": "user_index"}, {"column": "name", "name": "name_user_map"}]},
	    "music": {"column_vindexes": [{"column": "user_id", "name": "user_index"}]},
	    "ref": {"type": "reference"}}},
	  "main": {"tables": {"seq": {"type": "sequence"}, "unsharded": {}}}}}`
	d, err := ReadVSchema([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if want := "music:hash(user_id, vindex=hash); ref:replicate; user:hash(Id, vindex=hash), lookup(name, nonunique)"; d.Design != want {
		t.Errorf("design %q; want %q", d.Design, want)
	}
	if d.Engine != "vitess" {
		t.Errorf("engine %q; want vitess", d.Engine)
	}
	if len(d.Warnings) != 0 {
		t.Errorf("warnings %q; want none", d.Warnings)
	}
	if _, err := ReadVSchema([]byte(`{"sharded": true, "tables": {}}`)); err == nil {
		t.Error("a VSchema with no table: no error")
	}
	one, err := ReadVSchema([]byte(`{"sharded": true, "vindexes": {"xxhash": {"type": "xxhash"}}, "tables": {"orders": {"column_vindexes": [{"column": "customer_id", "name": "xxhash"}]}}}`))
	if err != nil || one.Design != "orders:hash(customer_id, vindex=xxhash)" || one.Engine != "vitess-xxhash" {
		t.Errorf("keyspace VSchema: %+v, %v", one, err)
	}
}

// TestReadVSchemaMixed: tables whose primary vindexes are of different
// types each keep their own in the design (hash(col, vindex=TYPE)), with
// no warning; the engine is hash's (Vitess's planning rules).
func TestReadVSchemaMixed(t *testing.T) {
	js := `{"sharded": true,
	  "vindexes": {"user_index": {"type": "hash"}, "login_index": {"type": "unicode_loose_md5"}, "bin": {"type": "binary_md5"}},
	  "tables": {
	    "users": {"column_vindexes": [{"column": "user_id", "name": "user_index"}]},
	    "accounts": {"column_vindexes": [{"column": "login", "name": "login_index"}]},
	    "blobs": {"column_vindexes": [{"columns": ["sha"], "name": "bin"}]},
	    "pairs": {"column_vindexes": [{"columns": ["a", "b"], "name": "user_index"}]}}}`
	d, err := ReadVSchema([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if want := "accounts:hash(login, vindex=unicode_loose_md5); blobs:hash(sha, vindex=binary_md5); users:hash(user_id, vindex=hash)"; d.Design != want {
		t.Errorf("design %q; want %q", d.Design, want)
	}
	if d.Engine != "vitess" {
		t.Errorf("engine %q; want vitess", d.Engine)
	}
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], `table pairs: primary vindex user_index of type "hash" is on 2 columns`) {
		t.Errorf("warnings %q; want one on pairs' two columns", d.Warnings)
	}
	if n := d.Vindexes["accounts"]; n.Primary != "login_index" || n.PrimaryType != "unicode_loose_md5" {
		t.Errorf("accounts: %+v", n)
	}
	noHash, err := ReadVSchema([]byte(`{"sharded": true, "vindexes": {"x": {"type": "xxhash"}, "b": {"type": "binary_md5"}},
	  "tables": {"a": {"column_vindexes": [{"column": "k", "name": "x"}]}, "b": {"column_vindexes": [{"column": "k", "name": "b"}]}}}`))
	if err != nil || noHash.Engine != "vitess-binary-md5" {
		t.Errorf("no hash table: engine %+v, %v; want vitess-binary-md5 (the first by name)", noHash, err)
	}
}

// TestReadVSchemaLookups: a consistent_lookup_unique owned by the table
// reads as lookup(col, consistent); one owned by another table, or on
// two columns, is left out with a warning; the backing table is no table
// of the design.
func TestReadVSchemaLookups(t *testing.T) {
	js := `{"sharded": true,
	  "vindexes": {"hash": {"type": "hash"}, "unicode_loose_md5": {"type": "unicode_loose_md5"},
	    "things_name_lookup": {"type": "consistent_lookup_unique", "params": {"table": "things_name_lookup", "from": "name", "to": "keyspace_id"}, "owner": "things"},
	    "other_lookup": {"type": "lookup", "params": {"table": "ks2.other_idx", "from": "tag", "to": "keyspace_id"}, "owner": "stuff"},
	    "pair_lookup": {"type": "lookup", "params": {"table": "pair_idx", "from": "a,b", "to": "keyspace_id"}, "owner": "things"}},
	  "tables": {
	    "things": {"column_vindexes": [{"column": "id", "name": "hash"}, {"column": "name", "name": "things_name_lookup"}, {"column": "tag", "name": "other_lookup"}, {"columns": ["a", "b"], "name": "pair_lookup"}]},
	    "things_name_lookup": {"column_vindexes": [{"column": "name", "name": "unicode_loose_md5"}]},
	    "other_idx": {"column_vindexes": [{"column": "tag", "name": "hash"}]}}}`
	d, err := ReadVSchema([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if want := "things:hash(id, vindex=hash), lookup(name, consistent)"; d.Design != want {
		t.Errorf("design %q; want %q", d.Design, want)
	}
	if len(d.Warnings) != 2 || !strings.Contains(d.Warnings[0], `owned by "stuff"`) || !strings.Contains(d.Warnings[1], "on 2 columns") {
		t.Errorf("warnings %q; want one on other_lookup's owner, one on pair_lookup's columns", d.Warnings)
	}
}

// TestReadVSchemaErrors: an empty file says so, not "unexpected end of
// JSON input"; a value of the wrong type is named by its path with the
// table's name and the index in its array (here the second column
// vindex of table orders, whose name is a number), at its line.
func TestReadVSchemaErrors(t *testing.T) {
	for _, empty := range []string{"", " \n\t"} {
		_, err := ReadVSchema([]byte(empty))
		if err == nil || !strings.Contains(err.Error(), "the file is empty") {
			t.Errorf("empty VSchema %q: %v; want the file is empty", empty, err)
		}
	}
	js := `{"sharded": true,
  "vindexes": {"hash": {"type": "hash"}},
  "tables": {
    "orders": {"column_vindexes": [{"column": "customer_id", "name": "hash"},
      {"column": "id", "name": 7}]}}}`
	_, err := ReadVSchema([]byte(js))
	if err == nil || !strings.Contains(err.Error(), "line 5") || !strings.Contains(err.Error(), "field tables.orders.column_vindexes[1].name is a JSON number, want a string") {
		t.Errorf("a number for a vindex name: %v; want line 5, field tables.orders.column_vindexes[1].name", err)
	}
	js = `{"keyspaces": {"ks-1": {"sharded": true, "tables": {"t": {"column_vindexes": {"x": 1}}}}}}`
	_, err = ReadVSchema([]byte(js))
	if err == nil || !strings.Contains(err.Error(), `field keyspaces."ks-1".tables.t.column_vindexes is a JSON object, want an array`) {
		t.Errorf("an object for column_vindexes: %v", err)
	}
}
