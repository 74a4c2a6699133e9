package main

import (
	"strings"
	"testing"
)

// TestStatStatementsPerExport: a pg_stat_statements export holds call
// counts with no period, so its figures printed per second are the calls
// counted over the export's whole period. The summary and the reader's
// warning say so where the output prints "/s"; they used to call them
// "shares of the counts" beside figures in requests/s, which read as a
// contradiction (fresh-clone review).
func TestStatStatementsPerExport(t *testing.T) {
	code, out, errs := runCmd(t, "", "advise", "--log", "../../sqllog/testdata/pg-stat-statements.csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	out, errs = strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(errs), " ") // unwrapped
	if strings.Contains(out+errs, "shares of the") {
		t.Errorf("output still calls the figures shares:\n%s\n%s", out, errs)
	}
	if want := "the calls counted over the export's whole period, not rates per second"; !strings.Contains(out, want) {
		t.Errorf("summary lacks %q:\n%s", want, out)
	}
	if want := "the figures printed per second are the calls counted over the export's whole period, not rates"; !strings.Contains(errs, want) {
		t.Errorf("warning lacks %q:\n%s", want, errs)
	}
}
