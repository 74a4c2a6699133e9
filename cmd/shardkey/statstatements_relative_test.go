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

// TestStatStatementsCounts: the pg_stat_statements reader takes each
// statement's calls as its rate over a span of 1 (sqllog's finish: the
// export has no period), so the figures are counts: advise and score say
// so and print no per-second unit ("/s", "per second") in any format,
// JSON keeping its pinned field names (requests_per_s). A log with
// timestamps (pg-stderr.log) keeps its rates per second. Hand-counted
// from the export: 44 calls of statements on tables (transaction
// control, DDL, pg_sleep and "select $1" left out), its two-row INSERT
// INTO posts 2 requests: score's head says "45 requests on 8 shards".
func TestStatStatementsCounts(t *testing.T) {
	log := "../../sqllog/testdata/pg-stat-statements.csv"
	perS := regexp.MustCompile(`[0-9a-z]/s\b|per second`)
	for _, args := range [][]string{
		{"advise", "--log", log},
		{"advise", "--log", log, "--format", "markdown"},
		{"advise", "--log", log, "--format", "html"},
		{"advise", "--log", log, "--format", "json"},
		{"score", "--log", log, "-k", "hash(user_id)"},
		{"score", "--log", log, "-k", "hash(user_id)", "--format", "markdown"},
		{"score", "--log", log, "-k", "hash(user_id)", "--format", "json"},
	} {
		code, out, errs := runCmd(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		if m := perS.FindAllString(out, 5); m != nil {
			t.Errorf("%v: per-second units %q in the output of counts", args, m)
		}
		if args[len(args)-1] == "json" && !strings.Contains(out, `"requests_per_s"`) {
			t.Errorf("%v: no requests_per_s field", args)
		}
	}
	_, out, _ := runCmd(t, "", "score", "--log", log, "-k", "hash(user_id)")
	if !strings.Contains(out, "\n45 requests on 8 shards,") {
		t.Errorf("score: want the head \"45 requests on 8 shards\" in\n%s", out)
	}
	_, out, _ = runCmd(t, "", "advise", "--log", log)
	if want := "the figures below are counts (requests: the calls counted; units of work: the shards they asked), not rates."; !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
		t.Errorf("advise: no %q in\n%s", want, out)
	}
	_, out, _ = runCmd(t, "", "score", "--log", "../../sqllog/testdata/pg-stderr.log", "-k", "hash(user_id)")
	if !strings.Contains(out, " requests/s on 8 shards,") {
		t.Errorf("score pg-stderr.log: a log with timestamps has rates per second:\n%s", out)
	}
}
