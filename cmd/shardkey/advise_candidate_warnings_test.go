package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdvise_CandidateWarnings: a candidate's own warnings are in its
// block of the table and Markdown outputs, its section of the HTML page,
// on standard error and in the closing warnings list. The log reads
// users by id and audit by kind; users has no column kind and audit none
// called id, so hash(kind) leaves users unsharded on shard 0 and hash(id)
// leaves audit there, and each says so in its own block (not the
// other's).
func TestAdvise_CandidateWarnings(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "2026-11-30 23:05:%02d.%03d UTC [100] app@shop LOG:  statement: SELECT * FROM users WHERE id = %d\n", i/10, i, i)
		fmt.Fprintf(&b, "2026-11-30 23:05:%02d.%03d UTC [100] app@shop LOG:  statement: INSERT INTO audit (kind, note) VALUES ('login', 'user %d')\n", i/10, i+500, i)
	}
	log := filepath.Join(t.TempDir(), "app.log")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	own := map[string]string{
		"hash(kind)": `key "hash(kind)": table users has none of the key's columns and stays unsharded on shard 0`,
		"hash(id)":   `key "hash(id)": table audit has none of the key's columns and stays unsharded on shard 0`,
	}
	for _, format := range []string{"table", "markdown", "html", "json"} {
		code, out, errs := runCmd(t, "", "advise", "--log", log, "-k", "hash(id)", "-k", "hash(kind)", "--format", format, "--bootstrap", "0", "--sweep", "")
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", format, code, errs)
		}
		for key, wn := range own {
			if !strings.Contains(errs, "warning: "+wn+"\n") {
				t.Errorf("%s: stderr lacks %q:\n%s", format, wn, errs)
			}
			want := wn
			switch format {
			case "json":
				want = strings.ReplaceAll(wn, `"`, `\"`)
			case "html":
				want = strings.ReplaceAll(strings.ReplaceAll(wn, `"`, "&#34;"), "'", "&#39;")
			}
			// The closing list: after the last candidate's block.
			closing := map[string]string{"table": "\nwarnings:\n", "markdown": "\n## Warnings\n", "html": "<h2>Warnings</h2>", "json": `"warnings": [`}[format]
			if i := strings.LastIndex(out, closing); i < 0 || !strings.Contains(out[i:], want) {
				t.Errorf("%s: the closing warnings lack %q", format, want)
			}
			if format == "json" {
				continue // each candidate's score.warnings had them already
			}
			// The candidate's own block: from its heading to the next
			// heading, or to "Which choice could still change".
			sep, head := map[string]string{"table": "\n== ", "markdown": "\n## ", "html": "<h2>"}[format], map[string]string{"table": ". " + key + ": ", "markdown": ". `" + key + "`", "html": ". <code>" + key + "</code></h2>"}[format]
			var block string
			for _, part := range strings.Split(out, sep) {
				if strings.Contains(part, head) {
					block, _, _ = strings.Cut(part, "Which choice could still change")
					break
				}
			}
			flat := strings.Join(strings.Fields(block), " ") // the table wraps lines
			if !strings.Contains(flat, want) {
				t.Errorf("%s: the block of %s lacks its warning %q:\n%s", format, key, want, block)
			}
			for other, ow := range own {
				if other != key && strings.Contains(flat, strings.SplitN(ow, ":", 2)[0]) {
					t.Errorf("%s: the block of %s has %s's warning", format, key, other)
				}
			}
		}
	}
}
