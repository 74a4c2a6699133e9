package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// advise with slots over nodes says so in its header in every format
// ("64 slots over 4 nodes", not "64 shards"), and JSON carries nodes
// beside shards.
func TestAdviseSlotsOverNodesHeader(t *testing.T) {
	for _, format := range []string{"table", "markdown", "html", "json"} {
		code, out, errs := runCmd(t, "", "advise", "--slots", "64", "--nodes", "4", "--format", format)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", format, code, errs)
		}
		if format == "json" {
			var adv struct{ Shards, Nodes int }
			if err := json.Unmarshal([]byte(out), &adv); err != nil {
				t.Fatal(err)
			}
			if adv.Shards != 64 || adv.Nodes != 4 {
				t.Errorf("json: shards %d nodes %d, want 64 and 4", adv.Shards, adv.Nodes)
			}
			continue
		}
		if !strings.Contains(out, "64 slots over 4 nodes") || strings.Contains(out, "64 shards, engine") || strings.Contains(out, "advice for 64 shards") {
			t.Errorf("%s: want the header to say 64 slots over 4 nodes:\n%.600s", format, out)
		}
	}
}

// With no row sample (a workload of queries only) the row load is
// unknown: score's and advise's JSON give shard_load and load_ratio as
// null, not [0, 0, 0, 0] and 0 (a perfectly even load). With rows, the
// figures stay numbers: two rows of weight 1 on 4 shards are a load
// summing to 2.
func TestUnknownLoadIsNull(t *testing.T) {
	dir := t.TempDir()
	q := filepath.Join(dir, "q.jsonl")
	if err := os.WriteFile(q, []byte(`{"where": {"user_id": 1}, "weight": 3}`+"\n"+`{"where": {"user_id": 2}, "weight": 1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"score", "--queries", q, "--shards", "4", "-k", "hash(user_id)", "--format", "json"},
		{"advise", "--queries", q, "--shards", "4", "--format", "json"},
	} {
		code, out, errs := runCmd(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errs)
		}
		var doc struct {
			Candidates []json.RawMessage
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Candidates) == 0 {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		for _, raw := range doc.Candidates {
			var c map[string]json.RawMessage
			json.Unmarshal(raw, &c)
			if c["score"] != nil { // advise: the candidate's score
				json.Unmarshal(c["score"], &c)
			}
			if string(c["shard_load"]) != "null" || string(c["load_ratio"]) != "null" {
				t.Errorf("%v: shard_load %s, load_ratio %s; want null and null (no rows)", args[0], c["shard_load"], c["load_ratio"])
			}
		}
	}
	r := filepath.Join(dir, "r.csv")
	os.WriteFile(r, []byte("user_id\n1\n2\n"), 0o644)
	code, out, errs := runCmd(t, "", "score", "--rows", r, "--shards", "4", "-k", "hash(user_id)", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	var doc struct {
		Candidates []struct {
			ShardLoad []float64 `json:"shard_load"`
		}
	}
	json.Unmarshal([]byte(out), &doc)
	sum := 0.0
	for _, x := range doc.Candidates[0].ShardLoad {
		sum += x
	}
	if len(doc.Candidates[0].ShardLoad) != 4 || sum != 2 {
		t.Errorf("with two rows: shard_load %v, want 4 shards summing to 2", doc.Candidates[0].ShardLoad)
	}
}
