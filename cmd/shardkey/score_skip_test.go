package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestScoreSkipsUnplaceable: a spec names candidates for any engine;
// scored under one that cannot place some of them, score scores the
// others and says, in a warning on standard error and in the output's
// warnings, which it left out and why, as advise does. Citus distributes
// a table by one column (create_distributed_table), so the built-in
// orders' hash(customer_id, order_month) is left out and hash(customer_id)
// and hash(order_id) are scored. Score used to stop at the first such
// candidate (exit 1, nothing scored).
func TestScoreSkipsUnplaceable(t *testing.T) {
	code, out, errs := runCmd(t, "", "score", "orders", "--engine", "citus", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var sc struct {
		Warnings   []string `json:"warnings"`
		Candidates []struct {
			Key string `json:"key"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &sc); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, c := range sc.Candidates {
		keys = append(keys, c.Key)
	}
	if strings.Join(keys, "; ") != "hash(customer_id); hash(order_id)" {
		t.Errorf("scored %q; want hash(customer_id) and hash(order_id)", keys)
	}
	const want = `candidates: key "hash(customer_id, order_month)": table orders: engine citus cannot place a key of (customer_id int64, order_month timestamp): citus: a table is distributed by one column, not 2; this candidate is skipped, the others scored`
	if !strings.Contains(errs, "warning: orders.yaml:") || !strings.Contains(errs, want) {
		t.Errorf("standard error lacks the skip warning %q:\n%s", want, errs)
	}
	found := false
	for _, w := range sc.Warnings {
		found = found || strings.Contains(w, want)
	}
	if !found {
		t.Errorf("JSON warnings %q lack %q", sc.Warnings, want)
	}
	// Under Redis Cluster none of TPC-C's spec candidates can be placed
	// (item:replicate: no reference tables): nothing to score is still the
	// usage error it was (exit 2: the engine chosen cannot place the spec's
	// keys; name others with -k), the first candidate's, at its line.
	code, _, errs = runCmd(t, "", "score", "--workload", "../../scenario/benchmarks/tpcc.yaml", "--engine", "redis")
	if code != 2 || !strings.Contains(errs, "tpcc.yaml:186: candidates:") || !strings.Contains(errs, "Redis Cluster has no reference tables") {
		t.Errorf("tpcc under redis: exit %d %q; want exit 2 at tpcc.yaml:186", code, errs)
	}
}
