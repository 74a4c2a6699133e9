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

// TestRedisNodeWording: under redis with --slots 16384 --nodes 3 the
// advice's work figures are the nodes', and so are its words and its
// perfect-hash yardstick. The log (3 s) reads customers 1, 2, 3 (slots
// 9842, 5649, 1584: nodes 1, 1, 0 of the contiguous split 0-5460,
// 5461-10922, 10923-16383) and once by email (no key: one unit on each
// master). Node work: node 0 1+1, node 1 2+1, node 2 0+1 units over 3 s,
// so the busiest node 1.00/s, 1.50x the mean (2/3). A perfect hash of 3
// equal keys over 3 nodes: all apart with probability 6/27 (max 1), all
// together 3/27 (max 3), else 18/27 (max 2): E[max] = 51/27, over a mean
// of 1: 1.89x (criteria expected_max_load_ratio 51/27). Over 2 nodes
// (sweep): max 3 with probability 2/8, else 2: 2.25 / 1.5 = 1.5; over 4:
// (24 + 3x4 + 2x36) / 64 = 1.6875 over 0.75 = 2.25. The projection fix
// for the email read says "busiest node" and counts its fan-out in nodes.
func TestRedisNodeWording(t *testing.T) {
	log := writeFile(t, "lk.log", "2024-01-01 10:00:00.000 UTC [100] LOG:  statement: SELECT * FROM orders WHERE customer_id = 1\n"+
		"2024-01-01 10:00:01.000 UTC [100] LOG:  statement: SELECT * FROM orders WHERE customer_id = 2\n"+
		"2024-01-01 10:00:02.000 UTC [100] LOG:  statement: SELECT * FROM orders WHERE customer_id = 3\n"+
		"2024-01-01 10:00:03.000 UTC [100] LOG:  statement: SELECT * FROM orders WHERE email = 'a@x'\n")
	args := []string{"advise", "--log", log, "-k", "hash(customer_id)", "--engine", "redis", "--slots", "16384", "--nodes", "3", "--bootstrap", "0"}
	code, out, errs := runCmd(t, "", append(args, "--sweep", "2,4", "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var a struct {
		Candidates []struct {
			Reasons  []string
			Criteria struct {
				Expected float64 `json:"expected_max_load_ratio"`
			}
			Fixes []struct{ Kind, Text string }
		}
		Sweep []struct {
			Shards   int
			Per      string
			Expected float64 `json:"expected_max_load_ratio"`
		}
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil || len(a.Candidates) == 0 {
		t.Fatalf("%v: %s", err, out)
	}
	c := a.Candidates[0]
	near := func(x, y float64) bool { return x > y-1e-9 && x < y+1e-9 }
	if !near(c.Criteria.Expected, 51.0/27) {
		t.Errorf("criteria expected_max_load_ratio %v; want 51/27 (3 keys over 3 nodes)", c.Criteria.Expected)
	}
	if len(a.Sweep) != 2 || a.Sweep[0].Per != "node" || !near(a.Sweep[0].Expected, 1.5) || !near(a.Sweep[1].Expected, 2.25) {
		t.Errorf("sweep %+v; want 2 nodes 1.5, 4 nodes 2.25", a.Sweep)
	}
	if want := "busiest node 1.00 units/s, 1.50x the mean node; a perfect hash of this many equal keys over 3 nodes gives 1.89x"; !strings.Contains(strings.Join(c.Reasons, "\n"), want) {
		t.Errorf("reasons %q; want %q", c.Reasons, want)
	}
	var proj string
	for _, f := range c.Fixes {
		if f.Kind == "projection" {
			proj = f.Text
		}
	}
	if !strings.Contains(proj, "busiest node 1.00/s -> ") || strings.Contains(proj, "busiest shard") ||
		!strings.Contains(proj, "would still ask 3.00 nodes per request") || !strings.Contains(proj, "today it asks 3.0 nodes per request") {
		t.Errorf("projection fix %q; want busiest node 1.00/s and fan-out in nodes", proj)
	}
}
