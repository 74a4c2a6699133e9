package sqllog

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shardkey/shardkey"
)

// readWindows reads log in windows of d, returning them.
func readWindows(t *testing.T, log string, d time.Duration) []*Window {
	t.Helper()
	var ws []*Window
	newW := func() *shardkey.Workload { return &shardkey.Workload{} }
	err := ReadWindows(context.Background(), strings.NewReader(log), "w.log", Options{}, d, newW, func(w *Window) error {
		ws = append(ws, w)
		return nil
	})
	if err != nil {
		t.Fatalf("ReadWindows: %v", err)
	}
	return ws
}

// opsRate is the summed rate of a workload's operations.
func opsRate(w *shardkey.Workload) float64 {
	s := 0.0
	for _, op := range w.Ops {
		s += op.Rate
	}
	return s
}

// mariaGeneral is a MariaDB general log (times in whole seconds, written
// when the second changes): 2 statements at 10:00:00, 1 at 10:00:03, 3 at
// 10:00:07.
const mariaGeneral = "240301 10:00:00\t     1 Query\tSELECT * FROM t WHERE id = 1\n" +
	"\t\t     1 Query\tSELECT * FROM t WHERE id = 2\n" +
	"240301 10:00:03\t     1 Query\tSELECT * FROM t WHERE id = 3\n" +
	"240301 10:00:07\t     1 Query\tSELECT * FROM t WHERE id = 4\n" +
	"\t\t     1 Query\tSELECT * FROM t WHERE id = 5\n" +
	"\t\t     1 Query\tSELECT * FROM t WHERE id = 6\n"

// TestSpanResolution: a statement stamped t with timestamps of resolution
// r ran in [t, t+r): a log's span, and its last window's, count r after
// the last timestamp.
func TestSpanResolution(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	// Whole seconds: 6 statements in [10:00:00, 10:00:08): 8 s, 0.75/s
	// (not 6 over 7 s).
	w := readText(t, mariaGeneral, Options{})
	if got := opsRate(w); !near(got, 0.75) {
		t.Errorf("whole seconds: %g statements/s, want 6/8 = 0.75", got)
	}
	// PostgreSQL's %t (whole seconds) and %m (milliseconds), 10:00:00 to
	// 10:00:02: 3 s and 2.001 s.
	for _, c := range []struct {
		frac string
		span float64
	}{{"", 3}, {".000", 2.001}} {
		log := ""
		for _, s := range []string{"00", "01", "02"} {
			log += "2024-03-01 10:00:" + s + c.frac + " UTC [1] LOG:  statement: SELECT * FROM t WHERE id = 1\n"
		}
		if got := opsRate(readText(t, log, Options{})); !near(got, 3/c.span) {
			t.Errorf("PostgreSQL %q: %g statements/s, want 3/%g", c.frac, got, c.span)
		}
	}
	// One second of whole-second stamps: its statements ran in it, 1 s
	// (no "no time span" warning), but when in it is unknown: the span
	// is known to a second either way, 100% of it, which a warning says
	// (fresh-clone review: the first megabyte of a busy slow log, all in
	// one second, gave half its rate and no warning). A span of 2 s,
	// 50%; of 12 s, under a tenth: no warning. One millisecond instant
	// has no span.
	w = readText(t, "240301 10:00:00\t     1 Query\tSELECT * FROM t WHERE id = 1\n\t\t     1 Query\tSELECT * FROM t WHERE id = 2\n", Options{})
	if got := opsRate(w); !near(got, 2) || len(w.Warnings) != 1 || !strings.Contains(w.Warnings[0].Error(), "the log spans only 1 s at timestamps of 1 s resolution: the time its statements took is known only to within 1 s either way (100% of the span)") {
		t.Errorf("one whole second: %g statements/s, want 2 and a warning of the span known to 1 s, 100%%; warnings %v", got, w.Warnings)
	}
	for _, c := range []struct {
		last, want string
	}{{"01", "(50% of the span)"}, {"11", ""}} {
		w = readText(t, "240301 10:00:00\t     1 Query\tSELECT * FROM t WHERE id = 1\n240301 10:00:"+c.last+"\t     1 Query\tSELECT * FROM t WHERE id = 2\n", Options{})
		got := fmt.Sprint(w.Warnings)
		if c.want == "" && len(w.Warnings) != 0 || c.want != "" && (len(w.Warnings) != 1 || !strings.Contains(got, c.want)) {
			t.Errorf("whole seconds to 10:00:%s: warnings %s; want %q", c.last, got, c.want)
		}
	}
	w = readText(t, "2024-03-01 10:00:00.000 UTC [1] LOG:  statement: SELECT * FROM t WHERE id = 1\n2024-03-01 10:00:00.000 UTC [1] LOG:  statement: SELECT * FROM t WHERE id = 2\n", Options{})
	if got := opsRate(w); !near(got, 2) || len(w.Warnings) != 1 || !strings.Contains(w.Warnings[0].Error(), "no time span") {
		t.Errorf("one millisecond: %g statements/s, want counts (2) and a warning; warnings %v", got, w.Warnings)
	}

	// Windows of 5 s: [10:00:00, :05) from the first statement, 5 s,
	// 3 statements; [10:00:05, :10), the last, to 10:00:07 + 1 s: 3 s,
	// 3 statements, 1/s.
	ws := readWindows(t, mariaGeneral, 5*time.Second)
	if len(ws) != 2 {
		t.Fatalf("%d windows, want 2", len(ws))
	}
	for i, want := range []struct {
		seconds float64
		stmts   int
	}{{5, 3}, {3, 3}} {
		if ws[i].Seconds != want.seconds || ws[i].Statements != want.stmts || ws[i].Resolution != time.Second {
			t.Errorf("window %d: %g s, %d statements, resolution %v; want %g s, %d, 1s", i, ws[i].Seconds, ws[i].Statements, ws[i].Resolution, want.seconds, want.stmts)
		}
		if got := opsRate(ws[i].Workload); !near(got, float64(want.stmts)/want.seconds) {
			t.Errorf("window %d: %g statements/s, want %d/%g", i, got, want.stmts, want.seconds)
		}
	}
	// The last window's span ends at its end at the latest: 10:00:07 +
	// 1 s is past the end of a 7.5 s window [00:00, 00:07.5).
	ws = readWindows(t, mariaGeneral, 7500*time.Millisecond)
	if len(ws) != 1 || ws[0].Seconds != 7.5 {
		t.Errorf("7.5 s windows: %d, first %g s; want 1 of 7.5 s", len(ws), ws[0].Seconds)
	}
}

// TestWindowStart: windows start at multiples of their length since the
// Unix epoch: floor(t/d)*d, worked out by hand.
func TestWindowStart(t *testing.T) {
	for _, c := range []struct {
		us   int64 // microseconds since the epoch
		d    time.Duration
		want int64 // the start, nanoseconds since the epoch
	}{
		// 2024-03-01 00:00:00 UTC = 1709251200 s = 7 × 244178742 + 6:
		// a 7 s window starts 6 s before midnight, at 23:59:54 (year-1
		// alignment, time.Truncate, gave 23:59:57).
		{1709251200e6, 7 * time.Second, (1709251200 - 6) * 1e9},
		{1709251200e6 + 999999, 7 * time.Second, (1709251200 - 6) * 1e9},
		{1709251201e6, 7 * time.Second, 1709251201e9}, // 7 × 244178743
		// 10 s windows at :00, :10, ...
		{1709251215e6 + 500, 10 * time.Second, 1709251210e9},
		// Before the epoch: the floor, not toward zero. -1 µs is in
		// [-1 s, 0).
		{-1, time.Second, -1e9},
		{-7e6, 7 * time.Second, -7e9},
		// 1.5 ms windows: 1000 µs is in [0, 1.5 ms).
		{1000, 1500 * time.Microsecond, 0},
		{3100, 1500 * time.Microsecond, 3e6},
	} {
		if got := windowStart(c.us, c.d); !got.Equal(time.Unix(0, c.want)) {
			t.Errorf("windowStart(%d µs, %v) = %v, want %v", c.us, c.d, got, time.Unix(0, c.want).UTC())
		}
	}
	// Past 2262 nanoseconds overflow int64: year 3000, 1 h windows.
	y3000 := time.Date(3000, 1, 1, 10, 30, 0, 0, time.UTC)
	if got, want := windowStart(y3000.UnixMicro(), time.Hour), time.Date(3000, 1, 1, 10, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("year 3000: %v, want %v", got, want)
	}
	// A 7 s log window through ReadWindows: the statement at midnight
	// is in [23:59:54, 00:00:01).
	ws := readWindows(t, "2024-03-01 00:00:00.000 UTC [1] LOG:  statement: SELECT * FROM t WHERE id = 1\n", 7*time.Second)
	if want := time.Date(2024, 2, 29, 23, 59, 54, 0, time.UTC); len(ws) != 1 || !ws[0].Start.Equal(want) || !ws[0].End.Equal(want.Add(7*time.Second)) {
		t.Errorf("7 s window: %v - %v, want %v", ws[0].Start, ws[0].End, want)
	}
}

// TestWindowTooShort: windows under MinWindow, or under the resolution of
// the log's timestamps (whole seconds here), are usage errors.
func TestWindowTooShort(t *testing.T) {
	newW := func() *shardkey.Workload { return &shardkey.Workload{} }
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{time.Nanosecond, "window length 1ns: must be at least 1ms"},
		{999 * time.Microsecond, "window length 999µs: must be at least 1ms"},
		{500 * time.Millisecond, "window length 500ms is shorter than the resolution of the log's timestamps (1s)"},
	} {
		err := ReadWindows(context.Background(), strings.NewReader(mariaGeneral), "w.log", Options{}, c.d, newW, func(*Window) error { return nil })
		var ue *shardkey.UsageError
		if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v: %v; want a usage error %q", c.d, err, c.want)
		}
	}
	if ws := readWindows(t, mariaGeneral, time.Second); len(ws) != 3 {
		t.Errorf("1s windows of a log of whole seconds: %d windows, want 3 (10:00:00, :03, :07)", len(ws))
	}
}

// TestWindowPartialInstant: a window of 20 s in a longer log whose only
// statement is at its start (every statement at one instant) is not one
// instant of the whole log: its start is known. PostgreSQL %m stamps
// 10:00:00.010, 10:00:10.000 and 10:00:20.000: the first window
// [10:00:00, 10:00:20) runs from the first statement, 20 - 0.010 =
// 19.99 s, partial (the log starts inside it); the last [10:00:20,
// 10:00:40) from its start to the last stamp plus the resolution,
// 0.001 s, partial (the log ends inside it). That is under MinCovered
// (1 s; a tenth of 20 s is longer): no rate (1 statement / 0.001 s = 1000/s
// is not supportable), Seconds 0 with Covered 0.001, rates the counts,
// and a warning. Before the fix the last was taken for one instant (0
// s).
// A log that is one instant stays one (0 s, not partial); a
// window the log fills (whole seconds, 10:00:00 to 10:00:04 in a 5 s
// window) is not partial.
func TestWindowPartialInstant(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	log := ""
	for _, ts := range []string{"00.010", "10.000", "20.000"} {
		log += "2024-03-01 10:00:" + ts + " UTC [1] LOG:  statement: SELECT * FROM t WHERE id = 1\n"
	}
	ws := readWindows(t, log, 20*time.Second)
	if len(ws) != 2 {
		t.Fatalf("%d windows, want 2", len(ws))
	}
	for i, want := range []struct {
		seconds, covered, rate float64
		stmts                  int
		warn                   string
	}{
		{19.99, 19.99, 2 / 19.99, 2, ""},
		{0, 0.001, 1, 1, "the log covers only 0.001 s of this window's 20 s (less than 1 s)"},
	} {
		if !near(ws[i].Seconds, want.seconds) || !near(ws[i].Covered, want.covered) || ws[i].Statements != want.stmts || !ws[i].Partial {
			t.Errorf("window %d: %g s (covered %g), %d statements, partial %v; want %g s (%g), %d, partial", i, ws[i].Seconds, ws[i].Covered, ws[i].Statements, ws[i].Partial, want.seconds, want.covered, want.stmts)
		}
		wn := ws[i].Workload.Warnings
		if got := opsRate(ws[i].Workload); !near(got, want.rate) || want.warn == "" && len(wn) != 0 || want.warn != "" && (len(wn) != 1 || !strings.Contains(wn[0].Error(), want.warn)) {
			t.Errorf("window %d: %g statements/s, want %g; warnings %v, want %q", i, got, want.rate, wn, want.warn)
		}
	}
	// At MinCovered exactly the rate stands: a last statement at
	// 10:00:20.999 covers [10:00:20, 10:00:21), 1 s: 1 / 1 s.
	ws = readWindows(t, strings.Replace(log, "10:00:20.000", "10:00:20.999", 1), 20*time.Second)
	if len(ws) != 2 || !near(ws[1].Seconds, 1) || !ws[1].Partial || !near(opsRate(ws[1].Workload), 1) {
		t.Errorf("1 s of the window covered: %d windows, last %g s, %g/s; want 2, 1 s, 1/s", len(ws), ws[1].Seconds, opsRate(ws[1].Workload))
	}
	// The first window the same: a log starting at 10:00:19.500 covers
	// 0.5 s of [10:00:00, 10:00:20): under 1 s, no rate.
	ws = readWindows(t, strings.Replace(log, "10:00:00.010", "10:00:19.500", 1), 20*time.Second)
	if len(ws) != 2 || ws[0].Seconds != 0 || !near(ws[0].Covered, 0.5) || !ws[0].Partial {
		t.Errorf("log starting 0.5 s before the first window's end: %d windows, first %g s (covered %g); want 0 (0.5)", len(ws), ws[0].Seconds, ws[0].Covered)
	}
	// A window under 10 s needs a tenth of itself: of 500 ms windows,
	// the last [10:00:20.000, 10:00:20.500) covering 0.049 s (to
	// 10:00:20.048 + 1 ms) is under 50 ms, no rate; 0.050 s is a rate,
	// 1 / 0.05 = 20/s.
	for _, c := range []struct {
		last string
		secs float64
	}{{"10:00:20.048", 0}, {"10:00:20.049", 0.05}} {
		ws = readWindows(t, strings.Replace(log, "10:00:20.000", c.last, 1), 500*time.Millisecond)
		w := ws[len(ws)-1]
		if !near(w.Seconds, c.secs) || !w.Partial || c.secs > 0 && !near(opsRate(w.Workload), 1/c.secs) {
			t.Errorf("500 ms windows, last statement at %s: last window %g s (covered %g), %g/s; want %g s", c.last, w.Seconds, w.Covered, opsRate(w.Workload), c.secs)
		}
	}
	// The whole log one instant: no span, rates are counts, not partial.
	ws = readWindows(t, "2024-03-01 10:00:05.000 UTC [1] LOG:  statement: SELECT * FROM t WHERE id = 1\n", 20*time.Second)
	if len(ws) != 1 || ws[0].Seconds != 0 || ws[0].Partial {
		t.Errorf("one-instant log: %d windows, %g s; want 1 of 0 s", len(ws), ws[0].Seconds)
	}
	// Whole seconds 10:00:00..10:00:04 in [10:00:00, 10:00:05): the
	// log covers the window, 5 s, not partial.
	ws = readWindows(t, "240301 10:00:00\t     1 Query\tSELECT 1 FROM t\n240301 10:00:04\t     1 Query\tSELECT 1 FROM t\n", 5*time.Second)
	if len(ws) != 1 || ws[0].Seconds != 5 || ws[0].Partial {
		t.Errorf("a filled window: %d windows, %g s, partial %v; want 1 of 5 s, not partial", len(ws), ws[0].Seconds, ws[0].Partial)
	}
}
