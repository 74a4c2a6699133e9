package main

import (
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	vschemapb "vitess.io/vitess/go/vt/proto/vschema"
	"vitess.io/vitess/go/vt/sqlparser"
	"vitess.io/vitess/go/vt/vtgate/vindexes"
)

// TestEmitVSchemaFixLookup: on TATP (scenario/benchmarks/tatp.yaml)
// advise recommends hash(s_id) and a global-index fix, lookup(sub_nbr,
// nonunique) on subscriber, which its "after fixes" figures route
// through (the fix's re-simulated key). The emitted VSchema must
// carry it: Vitess's BuildKeyspaceSchema, reading the JSON as vtgate
// does, gives subscriber the hash vindex on s_id first (its primary
// vindex) and an owned lookup vindex (Vitess type "lookup": the
// non-unique lookup, go/vt/vtgate/vindexes/lookup.go) on sub_nbr, and a
// backing table subscriber_sub_nbr_lookup; a note says why it is there.
// Before, the VSchema had the hash vindex alone.
func TestEmitVSchemaFixLookup(t *testing.T) {
	code, out, errs := runCmd(t, "", "advise", "--workload", "../../scenario/benchmarks/tatp.yaml", "--emit", "vschema",
		"--bootstrap", "0", "--sweep", "", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Recommended string `json:"recommended"`
		Candidates  []struct {
			Fixes []struct {
				Kind string `json:"kind"`
				Key  string `json:"key"`
			} `json:"fixes"`
		} `json:"candidates"`
		Config struct {
			Key   string   `json:"key"`
			Text  string   `json:"text"`
			Notes []string `json:"notes"`
		} `json:"config"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	fixed := false
	for _, f := range r.Candidates[0].Fixes {
		fixed = fixed || f.Kind == "global-index" && strings.Contains(f.Key, "subscriber:hash(s_id), lookup(sub_nbr, nonunique)")
	}
	if r.Recommended != "hash(s_id)" || !fixed {
		t.Fatalf("recommended %q, fixes %+v; want hash(s_id) with a global-index fix on subscriber, lookup(sub_nbr, nonunique)", r.Recommended, r.Candidates[0].Fixes)
	}
	var ks vschemapb.Keyspace
	if err := protojson.Unmarshal([]byte(r.Config.Text), &ks); err != nil {
		t.Fatalf("protojson: %v\n%s", err, r.Config.Text)
	}
	built, err := vindexes.BuildKeyspaceSchema(&ks, "app", sqlparser.NewTestParser())
	if err != nil {
		t.Fatalf("BuildKeyspaceSchema: %v\n%s", err, r.Config.Text)
	}
	sub := built.Tables["subscriber"]
	if sub == nil || len(sub.ColumnVindexes) != 2 {
		t.Fatalf("subscriber: %+v; want two column vindexes\n%s", sub, r.Config.Text)
	}
	p, l := sub.ColumnVindexes[0], sub.ColumnVindexes[1]
	if p.Type != "hash" || p.Columns[0].String() != "s_id" {
		t.Errorf("subscriber's primary vindex %s on %v; want hash on s_id", p.Type, p.Columns)
	}
	if l.Type != "lookup" || l.Columns[0].String() != "sub_nbr" || !l.Owned {
		t.Errorf("subscriber's second vindex %s on %v (owned %v); want an owned lookup on sub_nbr", l.Type, l.Columns, l.Owned)
	}
	if built.Tables["subscriber_sub_nbr_lookup"] == nil {
		t.Errorf("no backing table subscriber_sub_nbr_lookup\n%s", r.Config.Text)
	}
	if !strings.Contains(strings.Join(r.Config.Notes, "\n"), `lookup vindexes of the proposed fixes (subscriber: lookup(sub_nbr, nonunique)): in this VSchema because the "after fixes" figures route through them`) {
		t.Errorf("notes %q do not say why the lookup vindex is there", r.Config.Notes)
	}
}
