package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAdviseInsertFromSeries: an INSERT ... SELECT ... FROM
// generate_series(...) reads no sharded table; each row it inserts goes
// to its own id's shard, ids the statement computes. It is no
// scatter-gather (scatter_fraction 0), its fan-out is counted at its
// bound, all 8 shards (unsized_fraction 1: how many is unknown), and the
// advice does not tell the application to "supply the key", which it
// does (g).
func TestAdviseInsertFromSeries(t *testing.T) {
	log := writeFile(t, "gs.log", `2026-11-30 23:04:49.948 UTC [28905] tester@postgres LOG:  statement: INSERT INTO users (id, name) SELECT g, 'user' || g FROM generate_series(1, 100) g;
2026-11-30 23:04:49.993 UTC [28911] tester@postgres LOG:  statement: SELECT name FROM users WHERE id = 42;
2026-11-30 23:04:49.994 UTC [28911] tester@postgres LOG:  statement: SELECT name FROM users WHERE id = 43;
2026-11-30 23:04:50.993 UTC [28911] tester@postgres LOG:  statement: SELECT name FROM users WHERE id = 44;
`)
	code, out, errs := runCmd(t, "", "advise", "--log", log, "-k", "hash(id)", "--format", "json")
	if code != 0 {
		t.Fatalf("advise: exit %d: %s", code, errs)
	}
	var doc struct {
		Candidates []struct {
			Score struct {
				Operations []struct {
					Name    string  `json:"name"`
					Fanout  float64 `json:"fanout_mean"`
					Scatter float64 `json:"scatter_fraction"`
					Unsized float64 `json:"unsized_fraction"`
				} `json:"operations"`
			} `json:"score"`
			Fixes []struct {
				Kind string `json:"kind"`
			} `json:"fixes"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, op := range doc.Candidates[0].Score.Operations {
		if op.Name != "insert users" {
			continue
		}
		found = true
		if op.Scatter != 0 || op.Unsized != 1 || op.Fanout != 8 {
			t.Errorf("insert users: scatter %v unsized %v fan-out %v; want 0, 1, 8 (counted at every shard, no scatter)", op.Scatter, op.Unsized, op.Fanout)
		}
	}
	if !found {
		t.Fatalf("no operation insert users in %s", out)
	}
	for _, f := range doc.Candidates[0].Fixes {
		if f.Kind == "key-on-insert" {
			t.Errorf("fix key-on-insert proposed for an insert that binds the key from generate_series")
		}
	}
	code, out, _ = runCmd(t, "", "advise", "--log", log, "-k", "hash(id)")
	if code != 0 || strings.Contains(out, "100% scatter-gather") || !strings.Contains(out, "insert users: 0.96 req/s ask 8.0 shards each (routed by the key's values, known only at run time") {
		t.Errorf("advise text: exit %d, want insert users routed by run-time values, not scatter-gather:\n%s", code, out)
	}
}
