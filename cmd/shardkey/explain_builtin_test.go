package main

import (
	"strings"
	"testing"
)

// TestExplainBuiltin: explain takes a built-in scenario's name before the
// statement, as score and advise do (fresh-clone review: "got 2
// arguments"); its tables and shard count are the scenario's (social: 8
// shards). user_id 1 is on the shard place gives it under the same
// engine and count, asked on its own.
func TestExplainBuiltin(t *testing.T) {
	code, out, errs := runCmd(t, "", "explain", "social", "-k", "hash(user_id)", "SELECT * FROM posts WHERE user_id = 1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, pl, errs := runCmd(t, "", "place", "--shards", "8", "1")
	if code != 0 {
		t.Fatalf("place: exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(pl), "\n")
	f := strings.Fields(lines[len(lines)-1])
	shard := f[len(f)-1]
	if !strings.Contains(out, "8 shards") || !strings.Contains(out, "single-shard, shard "+shard) {
		t.Errorf("explain social: want 8 shards and single-shard, shard %s (place's):\n%s", shard, out)
	}
	if code, _, errs := runCmd(t, "", "explain", "nosuch", "-k", "hash(user_id)", "SELECT 1"); code != 2 || !strings.Contains(errs, "NAME a built-in scenario: chat, orders, social, workspace") {
		t.Errorf("explain nosuch: exit %d %q; want a usage error naming the built-ins", code, errs)
	}
}

// TestExplainRangesCounted: two split points cut 3 ranges, whatever the
// shard count (8 for social): user_id > 150 overlaps [100, 200) and
// [200, ...), 2 of the 3 (fresh-clone review: "2 of the 8 ranges").
func TestExplainRangesCounted(t *testing.T) {
	code, out, errs := runCmd(t, "", "explain", "social", "-k", "range(user_id, bounds=[100, 200])", "SELECT * FROM posts WHERE user_id > 150")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "overlaps 2 of the 3 ranges") {
		t.Errorf("explain: want 2 of the 3 ranges:\n%s", out)
	}
}

// TestExplainBuiltinUnknownTable: a table the built-in scenario does not
// have (a typo) is said so, naming the scenario's tables, as for a
// workload read from inputs (fresh-clone review: posts misspelt was
// routed to shard 0 with only the design's warning).
func TestExplainBuiltinUnknownTable(t *testing.T) {
	code, out, errs := runCmd(t, "", "explain", "social", "-k", "hash(user_id)", "SELECT * FROM postz WHERE user_id = 1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := "table postz is not in the workload social (its tables: posts)"
	if !strings.Contains(out, want) || !strings.Contains(errs, "warning: "+want) {
		t.Errorf("explain social on postz: want %q on stdout and stderr:\n%s\n%s", want, out, errs)
	}
	if _, out, _ := runCmd(t, "", "explain", "social", "-k", "hash(user_id)", "SELECT * FROM posts WHERE user_id = 1"); strings.Contains(out, "not in the workload") {
		t.Errorf("posts (in the scenario) warned:\n%s", out)
	}
}
