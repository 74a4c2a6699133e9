package report

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey/advisor"
)

// TestAdviceHTMLEscapes: names and texts from the user's workload (a log's
// table names, a spec's workload name, warnings quoting statements) are
// text in the page, never markup: a table named like a script tag must not
// run in the reader's browser.
func TestAdviceHTMLEscapes(t *testing.T) {
	evil := `<script>alert("x")</script>`
	adv := &advisor.Advice{
		Workload: evil,
		Shards:   4,
		Engine:   "generic",
		Summary:  []string{"table " + evil},
		Durable:  []string{evil},
		Flags:    []string{evil},
		Warnings: []string{"statement " + evil},
	}
	var b strings.Builder
	if err := WriteAdviceHTML(&b, adv); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "<script>") {
		t.Fatalf("workload text reached the page as markup:\n%s", out)
	}
	// The workload's name is in the title and the heading; the summary,
	// the durable list, the flag and the warning once each.
	if n := strings.Count(out, "&lt;script&gt;"); n != 6 {
		t.Errorf("escaped script tags: %d, want 6 (workload twice, summary, durable, flag, warning)", n)
	}
}
