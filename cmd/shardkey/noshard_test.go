package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestEmptyInAsksNoShard: an empty IN list ({"in": []}, PostgreSQL's
// = ANY('{}')) is a deliberate request that matches no row: the router
// sends it nowhere (fan-out 0). Four users on 8 shards, read by id at
// 10/s each for users 1, 2 and 3 (one shard each) and 10/s with an empty
// IN list, by hand:
//   - 40 requests/s, 30 units of work/s; of the 30 requests/s that ask a
//     shard all ask one: single_shard_fraction 30/30 = 1 (it was 30/40 =
//     0.75, the empty lists counted as not single-shard), no_shard_per_s
//     10, said apart in the text;
//   - the empty-list reads alone: 10 requests/s, no work on any shard, so
//     the mean shard does 0 and work_ratio (max/mean) cannot be computed:
//     null, "unknown" in words (it was 0, "0.00x"), and no share of
//     requests is single-shard: null (it was 0, "0% single-shard" beside
//     "every operation asks one shard").
func TestEmptyInAsksNoShard(t *testing.T) {
	rows := writeFile(t, "u.csv", "user_id\n1\n2\n3\n4\n")
	empty := `{"where": {"user_id": {"in": []}}, "weight": 10}` + "\n"
	mixed := writeFile(t, "q1.jsonl", `{"where": {"user_id": 1}, "weight": 10}`+"\n"+`{"where": {"user_id": 2}, "weight": 10}`+"\n"+`{"where": {"user_id": 3}, "weight": 10}`+"\n"+empty)
	only := writeFile(t, "q0.jsonl", empty)
	type cand struct {
		RequestsPerS float64  `json:"requests_per_s"`
		WorkPerS     float64  `json:"work_per_s"`
		WorkRatio    *float64 `json:"work_ratio"`
		Single       *float64 `json:"single_shard_fraction"`
		NoShard      float64  `json:"no_shard_per_s"`
		Operations   []struct {
			Name    string   `json:"name"`
			Single  *float64 `json:"single_shard_fraction"`
			NoShard float64  `json:"no_shard_per_s"`
		} `json:"operations"`
	}
	score := func(q string) cand {
		t.Helper()
		code, out, errs := runCmd(t, "", "score", "--rows", rows, "--queries", q, "-k", "hash(user_id)", "--format", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var r struct{ Candidates []cand }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r.Candidates[0]
	}
	c := score(mixed)
	if c.RequestsPerS != 40 || c.WorkPerS != 30 || c.Single == nil || *c.Single != 1 || c.NoShard != 10 {
		t.Errorf("mixed: requests %v, work %v, single %s, no shard %v; want 40, 30, 1, 10", c.RequestsPerS, c.WorkPerS, orNull(c.Single), c.NoShard)
	}
	for _, op := range c.Operations {
		if strings.Contains(op.Name, " in ") && (op.Single != nil || op.NoShard != 10) {
			t.Errorf("the empty-list read: single %s, no shard %v; want null and 10", orNull(op.Single), op.NoShard)
		}
	}
	c = score(only)
	if c.RequestsPerS != 10 || c.WorkPerS != 0 || c.WorkRatio != nil || c.Single != nil || c.NoShard != 10 {
		t.Errorf("only empty lists: requests %v, work %v, work ratio %s, single %s, no shard %v; want 10, 0, null, null, 10", c.RequestsPerS, c.WorkPerS, orNull(c.WorkRatio), orNull(c.Single), c.NoShard)
	}
	_, out, _ := runCmd(t, "", "score", "--rows", rows, "--queries", mixed, "-k", "hash(user_id)")
	if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, `10 requests/s match no rows and ask no shard (an empty IN list: {"in": []}, = ANY('{}')): left out of the single-shard share`) {
		t.Errorf("score's text does not say the empty lists apart:\n%s", out)
	}
	for _, q := range []string{mixed, only} {
		_, out, _ := runCmd(t, "", "advise", "--rows", rows, "--queries", q, "--bootstrap", "0", "--sweep", "")
		flat := strings.Join(strings.Fields(out), " ")
		if !strings.Contains(flat, "10 requests/s match no rows and ask no shard") {
			t.Errorf("%s: advise does not say the empty lists apart:\n%s", q, out)
		}
		if strings.Contains(" "+flat, " 0.00x") || strings.Contains(" "+flat, " 0% of interactive requests") || strings.Contains(flat, " 0% 0% ") {
			t.Errorf("%s: advise prints a ratio or share it cannot compute:\n%s", q, out)
		}
		if q == mixed && !strings.Contains(flat, "Shard by hash(user_id). 100% of interactive requests go to a single shard") {
			t.Errorf("mixed: advise's summary does not give 100%% single-shard of the requests that ask a shard:\n%s", out)
		}
	}
}

// orNull is *x in decimal, "null" for nil.
func orNull(x *float64) string {
	if x == nil {
		return "null"
	}
	return strconv.FormatFloat(*x, 'g', -1, 64)
}

// TestOneRequestSingular: a count of one is printed singular with its
// unit: a log of 2 statements 2 s apart (10:00:00.000 to 10:00:01.999,
// plus the 1 ms resolution: 2 s) is 1 request/s, and score's head says
// "1 request/s on 8 shards", not "1 requests/s".
func TestOneRequestSingular(t *testing.T) {
	log := writeFile(t, "two.log", "2026-12-01 10:00:00.000 UTC [1001] app@shop LOG:  statement: SELECT id FROM orders WHERE account_id = 1;\n"+
		"2026-12-01 10:00:01.999 UTC [1002] app@shop LOG:  statement: SELECT id FROM orders WHERE account_id = 2;\n")
	for _, f := range []string{"table", "markdown"} {
		code, out, errs := runCmd(t, "", "score", "--log", log, "-k", "hash(account_id)", "--format", f)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if !strings.Contains(out, "1 request/s on 8 shards") || strings.Contains(out, "1 requests/s") {
			t.Errorf("--format %s: want \"1 request/s on 8 shards\" in\n%s", f, out)
		}
	}
}
