package main

import (
	"strings"
	"testing"
)

// TestAdviseLocalColumn: the text table's local column (the share of
// requests single-shard and committing locally, which the verdict
// quotes) is in the Markdown and HTML tables too, a cell in every row
// beside single-shard. social's recommended hash(user_id) is 96% local
// (its text table and verdict: "96% of interactive requests single-shard
// and local").
func TestAdviseLocalColumn(t *testing.T) {
	code, out, errs := runCmd(t, "", "advise", "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var header, row string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| rank |") {
			header = l
		}
		if strings.HasPrefix(l, "| 1 |") {
			row = l
		}
	}
	if !strings.HasPrefix(header, "| rank | key | local | single-shard |") {
		t.Errorf("markdown header %q: want local before single-shard", header)
	}
	if !strings.HasPrefix(row, "| 1 | `hash(user_id)` | 96% | 96% |") {
		t.Errorf("markdown row %q", row)
	}
	if strings.Count(header, "|") != strings.Count(row, "|") {
		t.Errorf("markdown header has %d cells, row %d", strings.Count(header, "|"), strings.Count(row, "|"))
	}
	code, out, errs = runCmd(t, "", "advise", "--format", "html")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "<th>key</th><th>local</th><th>single-shard</th>") {
		t.Error("html table has no local column before single-shard")
	}
	if !strings.Contains(out, `<td><code>hash(user_id)</code></td><td class="n">96%</td><td class="n">96%</td>`) {
		t.Error("html row of hash(user_id) has no local cell")
	}
}
