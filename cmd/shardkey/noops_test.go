package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNoOperationsUnknown: a workload of rows and no operation has no
// request to take a share, ratio or fan-out of: advise says "unknown" or
// "-" for them and JSON writes null, not the 0% / 0.00x / 0.00 it wrote
// (a 0 reads as a measurement: nothing single-shard, perfectly even
// shards). Its busiest shard's 0/s is a fact and stays; so does the
// load ratio, from the rows. No capacity: over capacity is "-" in the
// sweep, as in the score table (null in JSON already).
func TestNoOperationsUnknown(t *testing.T) {
	spec := writeFile(t, "noops.yaml", `name: noops
shards: 4
tables:
  - name: t
    rows: 100
    columns:
      - {name: id, gen: uniform, distinct: 100}
candidates: [hash(id)]
`)
	code, out, errs := runCmd(t, "", "advise", "--workload", spec, "--bootstrap", "0", "--sweep", "4,8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"1     hash(id)  unknown  unknown       -  ",
		"4       0/s      -           1.60x       1.26x               -        -                 -\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("advise lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runCmd(t, "", "advise", "--workload", spec, "--bootstrap", "0", "--sweep", "4,8", "--format", "json")
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	var r struct {
		Candidates []struct {
			Criteria map[string]any
			Score    map[string]any
		}
		Sweep []map[string]any
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Candidates) == 0 || len(r.Sweep) == 0 {
		t.Fatalf("no candidate or sweep: %s", out)
	}
	check := func(what string, m map[string]any, null []string) {
		for _, k := range null {
			if v, ok := m[k]; !ok || v != nil {
				t.Errorf("%s %s = %v (present %v); want null", what, k, v, ok)
			}
		}
	}
	check("score", r.Candidates[0].Score, []string{"work_ratio", "fanout_mean", "fanout_p99", "single_shard_fraction", "cross_shard_txn_fraction"})
	check("criteria", r.Candidates[0].Criteria, []string{"local_fraction", "single_shard_fraction", "work_ratio", "work_per_request", "cross_shard_txn_fraction"})
	check("sweep", r.Sweep[0], []string{"work_ratio", "fanout_mean", "cross_shard_txn_fraction", "over_capacity"})
	if v := r.Candidates[0].Score["requests_per_s"]; v != 0.0 {
		t.Errorf("requests_per_s = %v; want 0 (a fact: no operation)", v)
	}
}
