package main

import (
	"encoding/json"
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

// TestAdviseGeneratedSkippedNotWarned: under Citus a table is distributed
// by one column (create_distributed_table takes one), so the two-column
// keys advise generates for TPC-C's stock (w_id, s_i_id) and district
// (w_id, d_id) cannot be scored. The user asked for neither: they are no
// warning (stderr, the closing list, JSON warnings) but one note under the
// ranking, and skipped_candidates in JSON. A candidate the workload names
// (orders' hash(customer_id, order_month)) that cannot be scored is the
// user's input, and stays a warning.
func TestAdviseGeneratedSkippedNotWarned(t *testing.T) {
	tpcc := "../../scenario/benchmarks/tpcc.yaml"
	keys := []string{
		"hash(w_id, s_i_id); customer:hash(w_id); district:hash(w_id); item:replicate; order_line:hash(w_id); warehouse:hash(w_id)",
		"hash(w_id, d_id); item:replicate; stock:hash(w_id); warehouse:hash(w_id)",
	}
	code, out, errs := runCmd(t, "", "advise", "--workload", tpcc, "--engine", "citus", "--sweep", "", "--bootstrap", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	flat := strings.Join(strings.Fields(out), " ")
	if strings.Contains(errs, "skipped") || strings.Contains(out, "skipped") {
		t.Errorf("a generated candidate is warned about:\nstderr: %s\nstdout: %s", errs, out)
	}
	const head = "Not scored under engine citus: 2 candidates that advise generated from the workload (none named by you):"
	if strings.Count(flat, head) != 1 {
		t.Errorf("want the note %q once under the ranking:\n%s", head, out)
	}
	for _, k := range keys {
		if !strings.Contains(flat, "- "+k+": ") {
			t.Errorf("the note lacks %s", k)
		}
	}
	code, out, errs = runCmd(t, "", "advise", "--workload", tpcc, "--engine", "citus", "--sweep", "", "--bootstrap", "0", "--format", "json")
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	var adv struct {
		Warnings []string `json:"warnings"`
		Skipped  []struct {
			Key    string `json:"key"`
			Reason string `json:"reason"`
		} `json:"skipped_candidates"`
	}
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatal(err)
	}
	for _, wn := range adv.Warnings {
		if strings.Contains(wn, "skipped") {
			t.Errorf("json warning %q", wn)
		}
	}
	if len(adv.Skipped) != 2 || adv.Skipped[0].Key != keys[0] || adv.Skipped[1].Key != keys[1] ||
		adv.Skipped[0].Reason != "table stock: engine citus cannot place a key of (w_id int64, s_i_id int64): citus: a table is distributed by one column, not 2" {
		t.Errorf("skipped_candidates %+v; want the two keys, stock's reason first", adv.Skipped)
	}
	_, _, errs = runCmd(t, "", "advise", "orders", "--engine", "citus", "--sweep", "", "--bootstrap", "0")
	// Named by the built-in spec's line 51 (shardkey demo orders --print
	// | grep -n candidates), as a spec file's candidate is.
	if !strings.Contains(errs, "warning: orders.yaml:51: candidates: candidate hash(customer_id, order_month) skipped: ") {
		t.Errorf("orders' own candidate hash(customer_id, order_month) is not warned about under citus: %s", errs)
	}
}
