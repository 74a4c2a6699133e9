package sqllog

import (
	"strings"
	"testing"
	"time"
)

// backwards: session 101 steps back 0.5 s within itself (line 3); 202 is
// 0.2 s behind the log's latest, within the jitter allowed between
// sessions (line 4); 303 opens 3 s behind the latest (line 5); 101 goes
// on forward (line 6). Two statements go back: lines 3 and 5.
const backwards = `2024-03-01 10:00:00.000 UTC [101] app@db LOG:  statement: SELECT * FROM t WHERE id = 1
2024-03-01 10:00:01.000 UTC [101] app@db LOG:  statement: SELECT * FROM t WHERE id = 2
2024-03-01 10:00:00.500 UTC [101] app@db LOG:  statement: SELECT * FROM t WHERE id = 3
2024-03-01 10:00:00.800 UTC [202] app@db LOG:  statement: SELECT * FROM t WHERE id = 4
2024-03-01 09:59:58.000 UTC [303] app@db LOG:  statement: SELECT * FROM t WHERE id = 5
2024-03-01 10:00:02.000 UTC [101] app@db LOG:  statement: SELECT * FROM t WHERE id = 6
`

func TestTimestampsBackwards(t *testing.T) {
	count := func(warnings []error) (n int, text string) {
		for _, e := range warnings {
			if strings.Contains(e.Error(), "timestamps go backwards") {
				n++
				text = e.Error()
			}
		}
		return n, text
	}
	w := readText(t, backwards, Options{})
	n, text := count(w.Warnings)
	if n != 1 {
		t.Fatalf("%d warnings of timestamps going backwards; want 1\n%s", n, summary(w))
	}
	for _, want := range []string{
		"test.log:3: ",  // the first: session 101's step back
		"stamped 500ms", // 10:00:01.000 - 10:00:00.500
		`session "101"`,
		"; 2 statements are stamped earlier", // lines 3 and 5
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in %q", want, text)
		}
	}

	// In order, and a step back within the jitter: no warning.
	ok := strings.Replace(backwards, "10:00:00.500", "10:00:01.500", 1)
	ok = strings.Replace(ok, "09:59:58.000", "10:00:00.900", 1)
	if n, text := count(readText(t, ok, Options{}).Warnings); n != 0 {
		t.Errorf("in order (but for 0.6 s of jitter between sessions): warned %q", text)
	}

	// Watch: each window warns of its own. 10 s windows: [10:00:00,
	// 10:00:10) holds lines 1-4 and 6 and line 5 (09:59:58 stays in the
	// current window): one window, both steps back.
	ws := readWindows(t, backwards, 10*time.Second)
	if len(ws) != 1 {
		t.Fatalf("%d windows; want 1", len(ws))
	}
	if n, text := count(ws[0].Workload.Warnings); n != 1 || !strings.Contains(text, "w.log:3: ") || !strings.Contains(text, "; 2 statements") {
		t.Errorf("window: %d warnings, %q; want 1 at w.log:3 of 2 statements", n, text)
	}
}
