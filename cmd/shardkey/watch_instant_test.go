package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWatch_InstantWindow: a log whose statements all carry one
// millisecond timestamp is one window of one instant: no duration, so
// its seconds and rates are "unknown" in the table, null in JSON, and the
// HTML page draws no per-shard work (not 0) and says why. Its shares
// stand: 12 of its 24 reads bind user_id 7, a share of 50.0%.
func TestWatch_InstantWindow(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		uid := i
		if i <= 12 {
			uid = 7
		}
		fmt.Fprintf(&b, "2026-11-30 23:05:10.250 UTC [100] app@shop LOG:  statement: SELECT * FROM posts WHERE user_id = %d\n", uid)
	}
	for range 4 {
		b.WriteString("2026-11-30 23:05:10.250 UTC [100] app@shop LOG:  statement: SELECT * FROM posts WHERE created_at > now()\n")
	}
	log := filepath.Join(t.TempDir(), "instant.log")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(format string) string {
		code, out, errs := runCmd(t, "", "watch", "--log", log, "-k", "hash(user_id)", "--format", format)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", format, code, errs)
		}
		return out
	}
	out := run("table")
	if !strings.Contains(out, "(unknown s, 24 statements)") || !strings.Contains(out, "work/s per shard: unknown") || !strings.Contains(out, "7 50%") {
		t.Errorf("table:\n%s\nwant (unknown s, 24 statements), work/s per shard unknown, key 7 at 50%%", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 3 && f[0] == "hash(user_id)" && f[1] != "work/s" && (f[1] != "unknown" || f[2] != "unknown") {
			t.Errorf("table: requests/s %s, work/s %s; want unknown, unknown", f[1], f[2])
		}
	}
	js := run("json")
	for _, want := range []string{`"seconds":null`, `"requests_per_s":null`, `"work_per_s":null`, `"shard_work":null`, `"share":0.5,`} {
		if !strings.Contains(js, want) {
			t.Errorf("json lacks %s:\n%s", want, js)
		}
	}
	if html := run("html"); !strings.Contains(html, "Work per shard (units/s): unknown, every window is one instant") || strings.Contains(html, ">shard 0</text>") {
		t.Errorf("html: no note that per-shard work is unknown, or a shard's line drawn")
	}
}
