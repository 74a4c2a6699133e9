package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestAdviseStatStatementsRelative: a pg_stat_statements export holds
// call counts with no time span and no transactions, so advise gives no
// absolute rate, no capacity verdict (even with --capacity), no
// cross-shard transaction share and no "based on N transactions", and
// says why in a warning, in every format. A perfect hash's ratio that
// cannot be computed is never "0.00x".
func TestAdviseStatStatementsRelative(t *testing.T) {
	log := "../../sqllog/testdata/pg-stat-statements.csv"
	code, out, errs := runCmd(t, "", "advise", "--log", log, "--capacity", "5", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		RatesRelative bool            `json:"rates_relative"`
		TxnsUnknown   bool            `json:"transactions_unknown"`
		CapacityCheck json.RawMessage `json:"capacity_check"`
		Summary       []string
		Warnings      []string
		Candidates    []struct {
			Criteria map[string]any
			Score    map[string]any
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !r.RatesRelative || !r.TxnsUnknown {
		t.Errorf("rates_relative %v transactions_unknown %v; want both true", r.RatesRelative, r.TxnsUnknown)
	}
	if len(r.CapacityCheck) != 0 && string(r.CapacityCheck) != "null" {
		t.Errorf("capacity_check %s; want none (capacity verdicts unknown)", r.CapacityCheck)
	}
	for i, c := range r.Candidates {
		if v, ok := c.Criteria["cross_shard_txn_fraction"]; !ok || v != nil {
			t.Errorf("candidate %d: criteria cross_shard_txn_fraction %v; want null", i, v)
		}
		if v, ok := c.Score["cross_shard_txn_fraction"]; !ok || v != nil {
			t.Errorf("candidate %d: score cross_shard_txn_fraction %v; want null", i, v)
		}
		if v, ok := c.Score["transactions"]; !ok || v != float64(0) {
			t.Errorf("candidate %d: score transactions %v; want 0", i, v)
		}
	}
	sum := strings.Join(r.Summary, "\n")
	for _, bad := range []string{"requests/s cost", "transactions cross shards", "Over capacity"} {
		if strings.Contains(sum, bad) {
			t.Errorf("summary says %q:\n%s", bad, sum)
		}
	}
	if regexp.MustCompile(`Based on \d+ transaction`).MatchString(sum) {
		t.Errorf("summary rests on transactions the export does not have:\n%s", sum)
	}
	want := "no time span and no transactions"
	found := false
	for _, w := range r.Warnings {
		found = found || strings.Contains(w, want)
	}
	if !found {
		t.Errorf("no warning saying %q: %q", want, r.Warnings)
	}
	for _, f := range []string{"table", "markdown", "html"} {
		code, out, errs := runCmd(t, "", "advise", "--log", log, "--capacity", "5", "--format", f)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, errs)
		}
		for _, bad := range []string{"gives 0.00x", "transactions cross shards", "requests/s cost", "Over capacity"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: says %q", f, bad)
			}
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s: no warning saying %q", f, want)
		}
	}
}
