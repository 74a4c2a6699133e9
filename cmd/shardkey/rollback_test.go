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
		if f != "json" && !strings.Contains(out, "25% (of rolled-back: 40% crossed)") {
			t.Errorf("advise --format %s: no cross-shard cell %q in\n%s", f, "25% (of rolled-back: 40% crossed)", out)
		}
	}
	code, out, errs = runCmd(t, "", "score", "--log", log, "--shards", "2", "-k", key)
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, errs)
	}
	if got := strings.Join(strings.Fields(out), " "); !strings.Contains(got, "cross-shard transactions: 25% of committed transactions cross shards; 2 of 5 rolled-back transactions (40%) crossed shards before rolling back, so 33% of all transactions, committed and rolled back, crossed.") {
		t.Errorf("score: no rolled-back line in\n%s", out)
	}
	// Score's table and Markdown cells read as advise's.
	for _, f := range []string{"table", "markdown"} {
		code, out, errs = runCmd(t, "", "score", "--log", log, "--shards", "2", "-k", key, "--format", f)
		if code != 0 || !strings.Contains(out, "25% (of rolled-back: 40% crossed)") {
			t.Errorf("score --format %s: exit %d, no cross-shard cell %q in\n%s%s", f, code, "25% (of rolled-back: 40% crossed)", out, errs)
		}
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

// TestWatchRolledBackCrossShard: watch keeps the rolled-back
// transactions apart per window, as score does for the whole log. With
// --window 2s the log's nine transactions fall into two windows (by
// hand, from sqllog/testdata/pg-rollback.log under range(id,
// bounds=[100]) on 2 shards, ids below 100 on shard 0):
//
//	[10:00:00, 10:00:02)  committed {1, 2} one, {1, 150} CROSS, {120, 130} one
//	                      rolled back {3, 200} CROSS, {4, 6} one
//	[10:00:02, 10:00:04)  committed {5} one
//	                      rolled back {101, 50} CROSS, {110, 111} one, {7} one
//
// Window 1: 1 of 3 committed cross (1/3), 1 of 2 rolled back (1/2), 2 of
// 5 in all (2/5). Window 2: 0 of 1 committed, 1 of 3 rolled back (1/3),
// 1 of 4 in all (1/4).
func TestWatchRolledBackCrossShard(t *testing.T) {
	log := "../../sqllog/testdata/pg-rollback.log"
	args := []string{"watch", "--log", log, "--window", "2s", "--shards", "2", "-k", "range(id, bounds=[100])"}
	code, out, errs := runCmd(t, "", append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("watch: exit %d: %s", code, errs)
	}
	type design struct {
		Cross      float64  `json:"cross_shard_txn_fraction"`
		RolledBack *float64 `json:"rolled_back_cross_shard_fraction"`
		All        *float64 `json:"all_cross_shard_txn_fraction"`
	}
	var got []design
	var rbn []float64
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var w struct {
			RolledBackTxns float64  `json:"rolled_back_txns"`
			Designs        []design `json:"designs"`
		}
		if err := json.Unmarshal([]byte(line), &w); err != nil {
			t.Fatalf("%v\n%s", err, line)
		}
		if len(w.Designs) != 1 {
			t.Fatalf("%d designs in %s", len(w.Designs), line)
		}
		got = append(got, w.Designs[0])
		rbn = append(rbn, w.RolledBackTxns)
	}
	want := []struct{ cross, rb, all, n float64 }{{1.0 / 3, 0.5, 0.4, 2}, {0, 1.0 / 3, 0.25, 3}}
	if len(got) != len(want) {
		t.Fatalf("%d windows; want %d:\n%s", len(got), len(want), out)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	for i, w := range want {
		g := got[i]
		if !near(g.Cross, w.cross) || g.RolledBack == nil || !near(*g.RolledBack, w.rb) || g.All == nil || !near(*g.All, w.all) || rbn[i] != w.n {
			t.Errorf("window %d: cross %g, rolled back %v, all %v, rolled_back_txns %g; want %g, %g, %g, %g", i+1, g.Cross, g.RolledBack, g.All, rbn[i], w.cross, w.rb, w.all, w.n)
		}
	}
	code, out, errs = runCmd(t, "", args...)
	if code != 0 {
		t.Fatalf("watch: exit %d: %s", code, errs)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, s := range []string{"33% (of rolled-back: 50% crossed)", "1 of 2 rolled-back transactions (50%) crossed shards before rolling back, so 40% of all transactions",
		"0% (of rolled-back: 33% crossed)", "1 of 3 rolled-back transactions (33%) crossed shards before rolling back, so 25% of all transactions"} {
		if !strings.Contains(flat, s) {
			t.Errorf("watch table: no %q in\n%s", s, out)
		}
	}
}
