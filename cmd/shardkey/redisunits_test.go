package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestRedisNoReferenceTables: Redis Cluster has no reference tables:
// every key lives in the one hash slot CRC16 of it (or of its hash tag)
// names, on the master owning that slot, and nothing copies a key to
// every master. The workspace scenario's small read-mostly members table
// is made replicate under the generic engine (checked, so the test can
// fail), never under redis; a design naming replicate under redis is
// refused (exit 2) with the reason. With --slots 16384 --nodes 3 the
// advice counts work per node (work_per "node") and its sweep varies the
// node count (2 and 4 nodes of the same 16384 slots, per "node").
func TestRedisNoReferenceTables(t *testing.T) {
	type advice struct {
		Candidates []struct {
			Key   string `json:"key"`
			Score struct {
				WorkPer string `json:"work_per"`
			} `json:"score"`
		} `json:"candidates"`
		Sweep []struct {
			Shards int    `json:"shards"`
			Per    string `json:"per"`
		} `json:"sweep"`
	}
	hasReplicate := func(a advice) bool {
		for _, c := range a.Candidates {
			if strings.Contains(c.Key, "replicate") {
				return true
			}
		}
		return false
	}
	var gen, red advice
	code, out, errs := runCmd(t, "", "advise", "workspace", "--bootstrap", "0", "--sweep", "", "--format", "json")
	if code != 0 {
		t.Fatalf("advise generic: exit %d: %s", code, errs)
	}
	if err := json.Unmarshal([]byte(out), &gen); err != nil {
		t.Fatal(err)
	}
	if !hasReplicate(gen) {
		t.Fatalf("generic advise offers no replicate candidate; the test needs one")
	}
	code, out, errs = runCmd(t, "", "advise", "workspace", "--engine", "redis", "--slots", "16384", "--nodes", "3", "--bootstrap", "0", "--sweep", "2,4", "--format", "json")
	if code != 0 {
		t.Fatalf("advise redis: exit %d: %s", code, errs)
	}
	if err := json.Unmarshal([]byte(out), &red); err != nil {
		t.Fatal(err)
	}
	if hasReplicate(red) {
		t.Errorf("advise under redis offers a replicate candidate: Redis Cluster has no reference tables")
	}
	if len(red.Candidates) == 0 || red.Candidates[0].Score.WorkPer != "node" {
		t.Errorf("redis on 16384 slots over 3 nodes: work_per %+v; want node", red.Candidates)
	}
	if len(red.Sweep) != 2 || red.Sweep[0].Shards != 2 || red.Sweep[1].Shards != 4 || red.Sweep[0].Per != "node" {
		t.Errorf("sweep %+v; want 2 and 4 nodes, per node", red.Sweep)
	}

	code, spec, errs := runCmd(t, "", "demo", "workspace", "--print")
	if code != 0 {
		t.Fatalf("demo --print: exit %d: %s", code, errs)
	}
	path := t.TempDir() + "/workspace.yaml"
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCmd(t, "", "score", "--workload", path, "--engine", "redis", "-k", "hash(page_id); members:replicate")
	if code != 2 || !strings.Contains(errs, "table members: replicate: Redis Cluster has no reference tables") {
		t.Errorf("score members:replicate under redis: exit %d, %s; want 2 and the reason", code, errs)
	}
}
