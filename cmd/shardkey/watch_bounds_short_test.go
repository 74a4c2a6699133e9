package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWatchBoundsNotFromShortWindow: a range design's boundaries are
// fixed for the rest of the run from one window; a first window the log
// covers for 0.499 s of 10 s (31 requests, ids 1000..1030) is too short
// for rates, so its boundaries are only provisional, and they are fixed
// from the next window: 200 requests, one each for ids 1..200, whose
// equal-traffic split into 4 ranges starts ranges at the 51st, 101st and
// 151st value: bounds=[51, 101, 151].
func TestWatchBoundsNotFromShortWindow(t *testing.T) {
	var b strings.Builder
	n := 0
	add := func(ms, id int) {
		n++
		s := float64(ms) / 1000
		m := int(s / 60)
		fmt.Fprintf(&b, "2026-11-30 23:%02d:%06.3f UTC [100]: [%d-1] user=t,db=p,app=psql,client=127.0.0.1 6b.1 LOG:  duration: 0.5 ms  statement: SELECT name FROM users WHERE id = %d;\n", 5+m, s-60*float64(m), n, id)
	}
	for i := 0; i < 31; i++ {
		add(9501+i*16, 1000+i)
	}
	for wnd := 1; wnd <= 2; wnd++ {
		for i := 0; i < 200; i++ {
			add(wnd*10000+i*50, 1+i)
		}
	}
	log := filepath.Join(t.TempDir(), "short.log")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCmd(t, "", "watch", "--log", log, "--window", "10s", "--shards", "4", "-k", "range(id)")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var first, fixed string
	for _, l := range strings.Split(errs, "\n") {
		if strings.Contains(l, "range boundaries provisional") {
			first = l
		}
		if strings.Contains(l, "range boundaries fixed") {
			fixed = l
		}
	}
	if !strings.HasPrefix(first, "warning: 2026-11-30T23:05:00Z:") || !strings.Contains(first, "0.499 s") {
		t.Errorf("first window's warning %q: want its boundaries provisional, the log covering 0.499 s", first)
	}
	if !strings.HasPrefix(fixed, "warning: 2026-11-30T23:05:10Z:") || !strings.Contains(fixed, "bounds=[51, 101, 151]") {
		t.Errorf("boundaries fixed %q: want from the 23:05:10 window, bounds=[51, 101, 151]", fixed)
	}
}
