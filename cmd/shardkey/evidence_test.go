package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdviseSmallLogSaysSo: sqllog/testdata/mariadb-general.log is a
// handful of statements. Its orders.customer_id = 5 is named by 4
// statements on orders: the INSERT (5), the UPDATE (5), the SELECT by
// customer_id = 5, and IN (5, 6, 7), a third of one: (1 + 1 + 1 + 1/3)/4
// = 10/12 = 83%. On n = 4 the 95% interval (Wilson's with Newcombe's
// continuity correction, worked below from the formula) has its lower end
// over 1.5/8 = 18.75%, yet the statements name only 3 customers, and an
// even spread over 3 is over the threshold too: no whale is claimed, in
// text, JSON and Markdown alike. And the ranking rests on a few
// transactions: the headline says so and names the designs it cannot
// separate from the first.
func TestAdviseSmallLogSaysSo(t *testing.T) {
	log := filepath.Join("..", "..", "sqllog", "testdata", "mariadb-general.log")
	p, n, z := 10.0/12, 4.0, 1.959964
	lo := (2*n*p + z*z - 1 - z*math.Sqrt(z*z-2-1/n+4*p*(n*(1-p)+1))) / (2 * (n + z*z))
	if lo <= 0.1875 {
		t.Fatalf("worked lower end %.4f: not a whale; the test's premise is wrong", lo)
	}
	code, out, errs := runCmd(t, "", "advise", "--log", log, "--format", "json")
	if code != 0 {
		t.Fatalf("advise: exit %d: %s", code, errs)
	}
	var doc struct {
		Summary  []string `json:"summary"`
		Evidence struct {
			Transactions int64    `json:"transactions"`
			Statements   int      `json:"statements"`
			Low          bool     `json:"low"`
			Tied         []string `json:"tied_with_first"`
		} `json:"evidence"`
		Candidates []struct {
			Key     string `json:"key"`
			Verdict string `json:"verdict"`
			Tied    bool   `json:"tied_with_first"`
			Fixes   []struct {
				Kind, Target, Text string
			} `json:"fixes"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	sum := strings.Join(doc.Summary, " ")
	if !doc.Evidence.Low || doc.Evidence.Transactions == 0 || doc.Evidence.Transactions >= 100 || len(doc.Evidence.Tied) == 0 {
		t.Errorf("evidence %+v; want low, a few transactions, designs tied with the first", doc.Evidence)
	}
	if !strings.Contains(sum, "too few to separate designs") || !strings.Contains(doc.Candidates[0].Verdict, "provisional") || !doc.Candidates[1].Tied {
		t.Errorf("summary %q, verdict %q, second tied %v; want the ranking called provisional", sum, doc.Candidates[0].Verdict, doc.Candidates[1].Tied)
	}
	// But the 4 statements name only 3 customers: an even spread over
	// them alone (1/3 each) is over 18.75% too, so the interval cannot
	// tell a whale from an even spread: spread unknown, no whale claimed.
	for _, f := range doc.Candidates[0].Fixes {
		if f.Kind == "whale" {
			t.Errorf("a whale fix on 3 values named by 4 statements: %+v", f)
		}
	}
	if strings.Contains(sum, "Whale:") {
		t.Errorf("the headline claims a whale: %q", sum)
	}
	for _, format := range []string{"table", "markdown"} {
		code, out, _ := runCmd(t, "", "advise", "--log", log, "--format", format)
		flat := strings.Join(strings.Fields(out), " ")
		if code != 0 || strings.Contains(flat, "Whale:") || !strings.Contains(flat, "the statements name only 3 values of customer_id") || !strings.Contains(flat, "too few to separate designs") {
			t.Errorf("%s: a whale claimed, or the spread-unknown reason or the provisional ranking missing:\n%s", format, out)
		}
	}
}
