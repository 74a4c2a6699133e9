package sqllog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/loggen"
)

// liveHeap reads a log and returns the live heap (after a collection)
// once every batch is aggregated and before the workload is finished:
// what the reader keeps for the log read so far, nothing in flight. It
// also returns the 90th percentile of the live heap between batches (the
// first 5 and the last 16 left out: the parsers initialise; the pipeline
// drains), which adds the up to 6 batches per worker in flight and varies
// with their timing by a few hundred kB.
//
// It returns the number of transactions kept and the sum of the
// operations' rates, not the workload: a workload kept alive would count
// in the next read's heap.
func liveHeap(t *testing.T, file string, o Options) (end, p90 uint64, txns int, rate float64) {
	t.Helper()
	var ms runtime.MemStats
	var series []uint64
	testHookAdd = func() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		series = append(series, ms.HeapAlloc)
	}
	testHookDrained = func() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		end = ms.HeapAlloc
	}
	defer func() { testHookAdd, testHookDrained = nil, nil }()
	w := &shardkey.Workload{}
	if err := ReadFile(context.Background(), w, file, o); err != nil {
		t.Fatal(err)
	}
	for _, op := range w.Ops {
		rate += op.Rate
	}
	txns = len(w.Txns)
	if len(series) < 30 {
		t.Fatalf("%d batches: too few to measure", len(series))
	}
	series = series[5 : len(series)-16]
	slices.Sort(series)
	return end, series[len(series)*9/10], txns, rate
}

// TestHeapBounded: reading a TPC-C client's log ten times the size of
// another (more sessions come and go, more distinct values, every shape
// seen more often) keeps a live heap less than 10% larger. Small sample
// sizes stand for the defaults, so that both logs fill every reservoir.
func TestHeapBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 66 MB of logs")
	}
	o := Options{Sample: 8, MaxInstances: 128, MaxTxnStatements: 256, MaxCountedValues: 64, Workers: 2}
	for _, format := range []string{"stderr", "mysql-general"} {
		gen := func(n int64) string {
			f, err := os.Create(filepath.Join(t.TempDir(), "tpcc.log"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := loggen.Write(f, loggen.Options{Format: format, Bytes: n, Seed: 3, TxnsPerSession: 50}); err != nil {
				t.Fatal(err)
			}
			return f.Name()
		}
		small, big := gen(3<<20), gen(30<<20)
		hs, ps, ts, _ := liveHeap(t, small, o)
		hb, pb, tb, rb := liveHeap(t, big, o)
		// The heap between batches includes the batches in flight, whose
		// number varies with the scheduling of the parsers (more when the
		// machine is loaded), by a few hundred kB either way: each log is
		// read a second time and the smaller 90th percentile kept, so that
		// a busy moment of one read is not taken for growth.
		_, ps2, _, _ := liveHeap(t, small, o)
		_, pb2, _, _ := liveHeap(t, big, o)
		ps, pb = min(ps, ps2), min(pb, pb2)
		t.Logf("%s: live heap at the end of the log, 90th percentile while reading: %.2f MB, %.2f MB reading 3 MB; %.2f MB, %.2f MB reading 30 MB", format, float64(hs)/(1<<20), float64(ps)/(1<<20), float64(hb)/(1<<20), float64(pb)/(1<<20))
		if float64(hb) > 1.1*float64(hs) {
			t.Errorf("%s: live heap at the end of the log grew from %d to %d bytes (%.0f%%) for a log ten times larger", format, hs, hb, 100*(float64(hb)/float64(hs)-1))
		}
		if float64(pb) > 1.1*float64(ps) {
			t.Errorf("%s: live heap while reading grew from %d to %d bytes (%.0f%%) for a log ten times larger", format, ps, pb, 100*(float64(pb)/float64(ps)-1))
		}
		// The bounds thin samples; they do not stop counting.
		if ts == 0 || tb > ts*11/10 || rb <= 0 {
			t.Errorf("%s: %d and %d transactions kept, rates %v", format, ts, tb, rb)
		}
	}
}

// TestCacheConstants: statements that differ only in the constants of
// their integer arithmetic (a TPC-C client's "d_next_o_id = 3061 + 1",
// "ol_o_id >= 3004 - 20") share one cached template, so the cache does not
// grow with the log's values; each is folded with its own constants.
func TestCacheConstants(t *testing.T) {
	for _, d := range []Dialect{Postgres, MySQL} {
		c := &cache{}
		for i, want := range []string{"2981", "2982", "2983"} {
			sql := fmt.Sprintf("SELECT * FROM order_line WHERE ol_w_id = 2 AND ol_o_id >= %d - 20", 3001+i)
			tp, lits, _ := c.analyze(sql, d, nil, nil, nil)
			if tp.err != nil {
				t.Fatalf("%s %q: %v", d, sql, tp.err)
			}
			vals := tp.parts[0].bind(lits, nil)
			if got := fmt.Sprint(vals[0]); !strings.Contains(got, want) {
				t.Errorf("%s %q: values %s, want %s among them", d, sql, got, want)
			}
		}
		if n := c.n.Load(); n != 1 {
			t.Errorf("%s: %d templates cached for one shape, want 1", d, n)
		}
	}
}

// TestIdleSession: a session that opens a transaction and is silent for
// longer than the idle timeout has it closed and counted then, as the
// server closing the idle connection would; its later statements are
// transactions of their own. With no timeout they are one transaction.
func TestIdleSession(t *testing.T) {
	log := `2024-03-01 00:00:00.000 UTC [7] app@db LOG:  statement: BEGIN
2024-03-01 00:00:00.001 UTC [7] app@db LOG:  statement: UPDATE a SET x = 1 WHERE id = 1
2024-03-01 00:00:01.000 UTC [8] app@db LOG:  statement: SELECT * FROM a WHERE id = 3
2024-03-01 09:00:00.000 UTC [8] app@db LOG:  statement: SELECT * FROM a WHERE id = 4
2024-03-01 09:00:00.001 UTC [7] app@db LOG:  statement: UPDATE b SET y = 1 WHERE id = 2
2024-03-01 09:00:00.002 UTC [7] app@db LOG:  statement: COMMIT
`
	stmts := func(w *shardkey.Workload) []int {
		var n []int
		for _, tx := range w.Txns {
			if tx.Stmts[0].Kind == shardkey.Update {
				n = append(n, len(tx.Stmts))
			}
		}
		return n
	}
	w := readText(t, log, Options{})
	if got := stmts(w); !slices.Equal(got, []int{1, 1}) {
		t.Errorf("8 h timeout: update transactions of %v statements, want [1 1] (closed when idle, then the later update alone)", got)
	}
	if !has(summary(w), "1 open transactions of sessions idle for more than 8h0m0s were closed") {
		t.Errorf("no warning about the idle session:\n%s", summary(w))
	}
	if got := stmts(readText(t, log, Options{IdleTimeout: -1})); !slices.Equal(got, []int{2}) {
		t.Errorf("no timeout: update transactions of %v statements, want [2]", got)
	}
}

// TestSampleBudget: with budgets smaller than the log's shapes need, every
// reservoir is thinned to a common cap within the budget, and the rates,
// which count every statement, do not change.
func TestSampleBudget(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "tpcc.log"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loggen.Write(f, loggen.Options{Format: "stderr", Bytes: 1 << 20, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	full := readLog(t, f.Name(), Options{Sample: 64})
	o := Options{Sample: 64, MaxInstances: 100, MaxTxnStatements: 1000}
	small := readLog(t, f.Name(), o)
	if len(full.Ops) != len(small.Ops) {
		t.Fatalf("%d operations, %d with the budget", len(full.Ops), len(small.Ops))
	}
	inst := 0
	for i, op := range small.Ops {
		inst += len(op.Instances)
		if op.Rate != full.Ops[i].Rate {
			t.Errorf("%s: rate %v with the budget, %v without", op.Name, op.Rate, full.Ops[i].Rate)
		}
	}
	if inst > 100 {
		t.Errorf("%d instances kept, budget 100", inst)
	}
	stmts, rate, fullRate := 0, 0.0, 0.0
	for _, tx := range small.Txns {
		stmts += len(tx.Stmts)
		rate += tx.Weight
	}
	for _, tx := range full.Txns {
		fullRate += tx.Weight
	}
	if stmts > 1000 || len(small.Txns) >= len(full.Txns) {
		t.Errorf("%d transactions of %d statements kept (budget 1000), %d without the budget", len(small.Txns), stmts, len(full.Txns))
	}
	if d := rate/fullRate - 1; d > 1e-9 || d < -1e-9 {
		t.Errorf("transaction rate %v with the budget, %v without", rate, fullRate)
	}
}

// TestDetachReuse: a reservoir replacing a kept transaction or instance
// by a new one copies the new values into the dropped one's memory where
// it has room; the copy must equal detach's (same values, nil slices
// kept nil, an empty one empty) and hold nothing of the statement's text.
func TestDetachReuse(t *testing.T) {
	src := strings.Repeat("12345'abc'99", 1) // stands for a batch's statement text
	mk := func(ss ...string) []rv {
		out := make([]rv, len(ss))
		for i, s := range ss {
			out[i] = rv{lit: lit{s: s, kind: litNum}}
		}
		return out
	}
	var l limits
	old := l.detachStmts([]sample{{vals: mk("1", "2", "3")}, {vals: mk("4")}, {vals: nil}})
	oldFirst := &old[0].vals[0]
	stmts := []sample{{vals: mk(src[0:5], src[5:10])}, {vals: mk(src[10:12], "7")}, {vals: []rv{}}}
	want := l.detachStmts(stmts)
	got := l.detachStmtsInto(old, stmts)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got[2].vals == nil {
		t.Errorf("an empty statement's values became nil")
	}
	if &got[0].vals[0] != oldFirst {
		t.Errorf("the first statement's values were not copied into the dropped one's")
	}
	if cap(got[0].vals) != len(got[0].vals) {
		t.Errorf("a reused statement's values have room to grow: len %d cap %d", len(got[0].vals), cap(got[0].vals))
	}
	for i, v := range append(got[0].vals, got[1].vals...) {
		if p := unsafe.StringData(v.s); p != nil && uintptr(unsafe.Pointer(p)) >= uintptr(unsafe.Pointer(unsafe.StringData(src))) &&
			uintptr(unsafe.Pointer(p)) < uintptr(unsafe.Pointer(unsafe.StringData(src)))+uintptr(len(src)) {
			t.Errorf("value %d (%q) points into the statement's text", i, v.s)
		}
	}

	inst := l.detach(mk("1", "2"))
	at := &inst[0]
	again := l.detachInto(inst, mk(src[0:5], "66"))
	if !reflect.DeepEqual(again, l.detach(mk(src[0:5], "66"))) || &again[0] != at {
		t.Errorf("detachInto: got %v (reused %v)", again, &again[0] == at)
	}
	if e := l.detachInto(inst, []rv{}); e == nil || len(e) != 0 {
		t.Errorf("detachInto of no values: got %v, want an empty, non-nil slice", e)
	}
	if e := l.detachInto(inst, nil); e != nil {
		t.Errorf("detachInto of nil: got %v, want nil", e)
	}
}
