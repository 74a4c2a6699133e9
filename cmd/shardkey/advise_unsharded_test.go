package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAdviseGeneratedUnshardedWarnings: under TPC-C, advise generates
// designs keyed by a column history does not have (history holds only
// h_c_w_id and h_date in scenario/benchmarks/tpcc.yaml), so they leave
// history unsharded on shard 0. Those are findings about candidates the
// tool made up, not about the input: they are in the candidate's JSON
// warnings and its verdict ("leaves history ... unsharded on shard 0"),
// not on standard error. The same design named with -k is the user's,
// and its warning is on standard error.
func TestAdviseGeneratedUnshardedWarnings(t *testing.T) {
	code, out, errs := runCmd(t, "", "advise", "--workload", "../../scenario/benchmarks/tpcc.yaml", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(errs, "unsharded on shard 0") {
		t.Errorf("standard error carries generated candidates' warnings:\n%s", errs)
	}
	var adv struct {
		Recommended string `json:"recommended"`
		Candidates  []struct {
			Key     string `json:"key"`
			Verdict string `json:"verdict"`
			Score   struct {
				Warnings []string `json:"warnings"`
			} `json:"score"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatal(err)
	}
	leaving := 0
	for _, c := range adv.Candidates {
		hasWarning := false
		for _, w := range c.Score.Warnings {
			if strings.Contains(w, "table history has none of the key's columns and stays unsharded on shard 0") {
				hasWarning = true
			}
		}
		says := strings.Contains(c.Verdict, "; leaves ") && strings.Contains(c.Verdict, "history") && strings.HasSuffix(c.Verdict, " unsharded on shard 0")
		if hasWarning != says {
			t.Errorf("%s: warning in JSON %v, verdict says it %v: %q", c.Key, hasWarning, says, c.Verdict)
		}
		if hasWarning {
			leaving++
		}
	}
	if leaving == 0 {
		t.Fatal("no candidate leaves history unsharded: nothing checked")
	}
	key := "hash(o_id); customer:hash(w_id); district:hash(w_id); item:replicate; stock:hash(w_id); warehouse:hash(w_id)"
	code, _, errs = runCmd(t, "", "advise", "--workload", "../../scenario/benchmarks/tpcc.yaml", "--format", "json", "-k", key)
	if code != 0 {
		t.Fatalf("-k: exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "table history has none of the key's columns and stays unsharded on shard 0") {
		t.Errorf("-k %s: no warning on standard error that history stays on shard 0:\n%s", key, errs)
	}
}
