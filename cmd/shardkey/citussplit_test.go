package main

import (
	"encoding/json"
	"testing"
)

// TestCitusNoSplit: Citus distributes a table by one column and its
// tenant isolation (isolate_tenant_to_new_shard) gives a value one shard
// at most, so under --engine citus the workspace whale is isolated, never
// split over several shards by a second key level, and "after fixes"
// counts only what Citus can build; the default engine still splits it.
// The fixes read are hash(workspace_id)'s, wherever it ranks (under Citus
// it ranks after hash(page_id); members:replicate, which fits the
// capacity after its fixes: TestFitsBeforeNeverFits).
func TestCitusNoSplit(t *testing.T) {
	kinds := func(engine string) map[string]bool {
		t.Helper()
		code, out, errOut := runCmd(t, "", "advise", "workspace", "--engine", engine, "--format", "json")
		if code != 0 {
			t.Fatalf("advise workspace --engine %s: exit %d: %s", engine, code, errOut)
		}
		var adv struct {
			Candidates []struct {
				Key   string                  `json:"key"`
				Fixes []struct{ Kind string } `json:"fixes"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(out), &adv); err != nil || len(adv.Candidates) == 0 {
			t.Fatalf("advise --engine %s JSON: %v", engine, err)
		}
		for _, as := range adv.Candidates {
			if as.Key != "hash(workspace_id)" {
				continue
			}
			m := map[string]bool{}
			for _, f := range as.Fixes {
				m[f.Kind] = true
			}
			return m
		}
		t.Fatalf("advise --engine %s: no candidate hash(workspace_id)", engine)
		return nil
	}
	if k := kinds("citus"); k["split"] || !k["isolate"] {
		t.Errorf("citus: fixes %v; want the whale isolated and no split", k)
	}
	if k := kinds("generic"); !k["split"] {
		t.Errorf("generic: fixes %v; want a split of the whales", k)
	}
}
