package sqllog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestSpanWarnings: advise's rates are statement counts over the log's
// span; a span too short or mostly idle gives rates no one should read
// as the database's. Expected values by hand:
//   - 4 statements stamped 0.000, 0.100, 0.200, 0.300 s (milliseconds,
//     resolution 1 ms): span 0.301 s, under watch's 1 s (MinCovered):
//     warned; the rate is 4 / 0.301 = 13.29/s.
//   - two rotated files a year apart, 2 statements each 1 s apart: span
//     2023-01-01T00:00:00Z to 2024-01-01T00:00:01Z = 365 days + 1.001 s;
//     the idle stretch is 365 days - 1 s, over half of it: warned,
//     naming b.log:1 (the statement after the gap) and 365.0 days.
//   - 10 statements in the first second, 10 in the sixth minute
//     (00:05:00.000 to 00:05:00.900): span 300.901 s (5m1s), one idle
//     stretch of 299.1 s (4m59s), over half: warned at a.log:11;
//     statements a minute apart (0, 60, 120 s) are a quiet workload of
//     one stretch per statement, not idle: no warning, nor for
//     statements 10 s apart over 10 minutes.
func TestSpanWarnings(t *testing.T) {
	line := func(ts string, id int) string {
		return fmt.Sprintf("%s UTC [1] LOG:  statement: SELECT * FROM users WHERE id = %d\n", ts, id)
	}
	read := func(t *testing.T, files map[string]string) *shardkey.Workload {
		dir := t.TempDir()
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		w := &shardkey.Workload{}
		if err := ReadFile(context.Background(), w, dir, Options{}); err != nil {
			t.Fatal(err)
		}
		return w
	}
	find := func(w *shardkey.Workload, part string) string {
		for _, e := range w.Warnings {
			if strings.Contains(e.Error(), part) {
				return e.Error()
			}
		}
		return ""
	}
	t.Run("short", func(t *testing.T) {
		w := read(t, map[string]string{"a.log": line("2024-03-01 00:00:00.000", 1) + line("2024-03-01 00:00:00.100", 2) + line("2024-03-01 00:00:00.200", 3) + line("2024-03-01 00:00:00.300", 4)})
		if got := find(w, "the log spans only 0.301 s"); !strings.Contains(got, "under 1 s, the least watch takes a rate over") {
			t.Errorf("no short-span warning: %q", w.Warnings)
		}
		if len(w.Ops) != 1 || fmt.Sprintf("%.2f", w.Ops[0].Rate) != "13.29" {
			t.Errorf("ops %v, want one at 13.29/s", w.Ops)
		}
	})
	t.Run("years", func(t *testing.T) {
		w := read(t, map[string]string{
			"a.log": line("2023-01-01 00:00:00.000", 1) + line("2023-01-01 00:00:01.000", 2),
			"b.log": line("2024-01-01 00:00:00.000", 3) + line("2024-01-01 00:00:01.000", 4),
		})
		got := find(w, "had no statement")
		for _, want := range []string{"b.log:1: ", "span 365.0 days (2023-01-01T00:00:00Z to 2024-01-01T00:00:01Z)", "the longest, 365.0 days"} {
			if !strings.Contains(got, want) {
				t.Errorf("gap warning %q lacks %q (warnings %q)", got, want, w.Warnings)
			}
		}
		if find(w, "spans only") != "" {
			t.Errorf("short-span warning on a year: %q", w.Warnings)
		}
	})
	t.Run("minutes", func(t *testing.T) {
		var b strings.Builder
		for i := 0; i < 10; i++ {
			b.WriteString(line(fmt.Sprintf("2024-03-01 00:00:00.%d00", i), i))
		}
		for i := 0; i < 10; i++ {
			b.WriteString(line(fmt.Sprintf("2024-03-01 00:05:00.%d00", i), i))
		}
		w := read(t, map[string]string{"a.log": b.String()})
		if got := find(w, "had no statement"); !strings.Contains(got, "a.log:11: ") || !strings.Contains(got, "span 5m1s") || !strings.Contains(got, "but 4m59s of it") {
			t.Errorf("gap warning %q", got)
		}
	})
	t.Run("minutely", func(t *testing.T) {
		w := read(t, map[string]string{"a.log": line("2024-03-01 00:00:00.000", 1) + line("2024-03-01 00:01:00.000", 2) + line("2024-03-01 00:02:00.000", 3)})
		if len(w.Warnings) != 0 {
			t.Errorf("warnings on a statement a minute: %q", w.Warnings)
		}
	})
	t.Run("quiet", func(t *testing.T) {
		var b strings.Builder
		for i := 0; i <= 60; i++ {
			b.WriteString(line(fmt.Sprintf("2024-03-01 00:%02d:%02d.000", i/6, i%6*10), i))
		}
		w := read(t, map[string]string{"a.log": b.String()})
		if len(w.Warnings) != 0 {
			t.Errorf("warnings on a quiet log: %q", w.Warnings)
		}
	})
}
