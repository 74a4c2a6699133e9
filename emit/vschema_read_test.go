package emit

import "testing"

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
	if want := "music:hash(user_id); ref:replicate; user:hash(Id)"; d.Design != want {
		t.Errorf("design %q; want %q", d.Design, want)
	}
	if d.Engine != "vitess" {
		t.Errorf("engine %q; want vitess", d.Engine)
	}
	if len(d.Warnings) != 1 {
		t.Errorf("warnings %q; want one on the lookup vindex", d.Warnings)
	}
	if _, err := ReadVSchema([]byte(`{"sharded": true, "tables": {}}`)); err == nil {
		t.Error("a VSchema with no table: no error")
	}
	one, err := ReadVSchema([]byte(`{"sharded": true, "vindexes": {"xxhash": {"type": "xxhash"}}, "tables": {"orders": {"column_vindexes": [{"column": "customer_id", "name": "xxhash"}]}}}`))
	if err != nil || one.Design != "orders:hash(customer_id)" || one.Engine != "vitess-xxhash" {
		t.Errorf("keyspace VSchema: %+v, %v", one, err)
	}
}
