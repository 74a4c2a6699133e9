package main

import (
	"strings"
	"testing"
)

// TestAllZeroRowWeights: a rows file whose weight column is all 0 has a
// row sample, so the advice does not say "no row sample": the warning
// names the file and the weight field (stderr and the report's
// warnings), and the bootstrap line says the weights are all 0. Two
// reads of user_id 1 and 2 give the statements.
func TestAllZeroRowWeights(t *testing.T) {
	rows := writeFile(t, "zw.csv", "user_id,weight\n1,0\n2,0\n3,0\n")
	queries := writeFile(t, "q.jsonl", `{"where": {"user_id": 1}, "weight": 1}`+"\n"+`{"where": {"user_id": 2}, "weight": 1}`+"\n")
	code, out, errs := runCmd(t, "", "advise", "--rows", rows, "--queries", queries, "--sweep", "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	warn := rows + ": weight: every row's weight is 0, so the rows give no share of requests: shard_load and load_ratio are unknown"
	if !strings.Contains(errs, "warning: "+warn) || !strings.Contains(out, "  - "+warn) {
		t.Errorf("no warning %q on stderr and in the report:\n%s\n%s", warn, errs, out)
	}
	if strings.Contains(out, "no row sample") || !strings.Contains(out, "load ratio unknown (the sampled rows' weights are all 0)") {
		t.Errorf("report says no row sample, or not that the weights are all 0:\n%s", out)
	}
}
