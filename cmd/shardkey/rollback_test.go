package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestRolledBackCrossShard: sqllog/testdata/pg-rollback.log holds nine
// transactions of UPDATE accounts ... WHERE id = v, four committed and
// five rolled back. Under range(id, bounds=[100]) on 2 shards, ids below
// 100 are on shard 0 and the others on shard 1, so by hand:
//
//	committed   {1, 2} one   {1, 150} CROSS  {120, 130} one  {5} one
//	rolled back {3, 200} CROSS  {4, 6} one  {101, 50} CROSS  {110, 111} one  {7} one
//
// 1 of 4 committed transactions crosses (25%), 2 of 5 rolled-back ones
// (40%), 3 of all 9 (1/3). Every transaction is one sample of equal
// weight (each shape's rate over its kept samples, all kept), so the
// weighted shares are these counts' ratios.
func TestRolledBackCrossShard(t *testing.T) {
	log := "../../sqllog/testdata/pg-rollback.log"
	key := "range(id, bounds=[100])"
	code, out, errs := runCmd(t, "", "score", "--log", log, "--shards", "2", "-k", key, "--format", "json")
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, errs)
	}
	var r struct {
		RolledBackTxns float64 `json:"rolled_back_txns"`
		Candidates     []struct {
			Cross       float64  `json:"cross_shard_txn_fraction"`
			Txns        int64    `json:"transactions"`
			RolledBack  *float64 `json:"rolled_back_cross_shard_fraction"`
			All         *float64 `json:"all_cross_shard_txn_fraction"`
			RolledBackN int64    `json:"rolled_back_transactions"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(r.Candidates) != 1 {
		t.Fatalf("%d candidates; want 1", len(r.Candidates))
	}
	c := r.Candidates[0]
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if r.RolledBackTxns != 5 || c.Txns != 4 || c.RolledBackN != 5 {
		t.Errorf("rolled_back_txns %g, transactions %d, rolled_back_transactions %d; want 5, 4, 5", r.RolledBackTxns, c.Txns, c.RolledBackN)
	}
	if !near(c.Cross, 0.25) {
		t.Errorf("cross_shard_txn_fraction %g; want 1/4", c.Cross)
	}
	if c.RolledBack == nil || !near(*c.RolledBack, 0.4) {
		t.Errorf("rolled_back_cross_shard_fraction %v; want 2/5", c.RolledBack)
	}
	if c.All == nil || !near(*c.All, 1.0/3) {
		t.Errorf("all_cross_shard_txn_fraction %v; want 3/9", c.All)
	}

	// The headline of advise says the same, in every format.
	want := "25% of committed transactions cross shards, and 2 of 5 rolled-back transactions (40%) crossed shards before rolling back, so 33% of all transactions, committed and rolled back, crossed."
	for _, f := range []string{"json", "table", "markdown", "html"} {
		code, out, errs = runCmd(t, "", "advise", "--log", log, "--shards", "2", "-k", key, "--format", f)
		if code != 0 {
			t.Fatalf("advise --format %s: exit %d: %s", f, code, errs)
		}
		if got := strings.Join(strings.Fields(out), " "); !strings.Contains(got, want) {
			t.Errorf("advise --format %s: no %q in\n%s", f, want, out)
		}
		if f != "json" && !strings.Contains(out, "25% (rolled back 40%)") {
			t.Errorf("advise --format %s: no cross-shard cell %q in\n%s", f, "25% (rolled back 40%)", out)
		}
	}
	code, out, errs = runCmd(t, "", "score", "--log", log, "--shards", "2", "-k", key)
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, errs)
	}
	if got := strings.Join(strings.Fields(out), " "); !strings.Contains(got, "cross-shard transactions: 25% of committed transactions cross shards; 2 of 5 rolled-back transactions (40%) crossed shards before rolling back, so 33% of all transactions, committed and rolled back, crossed.") {
		t.Errorf("score: no rolled-back line in\n%s", out)
	}

	// A log without ROLLBACK: the rolled-back shares are null (nothing
	// measured), never 0.
	code, out, errs = runCmd(t, "", "score", "--log", "../../sqllog/testdata/pg-stderr.log", "-k", "hash(user_id)", "--format", "json")
	if code != 0 {
		t.Fatalf("score pg-stderr.log: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, `"rolled_back_cross_shard_fraction": null`) || !strings.Contains(out, `"all_cross_shard_txn_fraction": null`) || strings.Contains(out, "rolled_back_transactions") {
		t.Errorf("pg-stderr.log: want null rolled-back shares, no rolled_back_transactions, in\n%s", out)
	}
}
