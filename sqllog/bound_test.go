package sqllog

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/loggen"
)

// liveHeap reads a log, collecting garbage after each batch is
// aggregated, and returns the 90th percentile and the largest of the live
// heap sizes seen once the first 5 batches are in (before them the
// parsers initialise and every shape is parsed for the first time), and
// the workload. A percentile, because up to a dozen batches are in flight
// in the pipeline at any moment, a few hundred kB of jitter.
func liveHeap(t *testing.T, file string, o Options) (p90, peak uint64, w *shardkey.Workload) {
	t.Helper()
	var ms runtime.MemStats
	var series []uint64
	testHookAdd = func() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		series = append(series, ms.HeapAlloc)
	}
	defer func() { testHookAdd = nil }()
	w = &shardkey.Workload{}
	if err := ReadFile(context.Background(), w, file, o); err != nil {
		t.Fatal(err)
	}
	if len(series) < 10 {
		t.Fatalf("%d batches: too few to measure", len(series))
	}
	series = series[5:]
	slices.Sort(series)
	return series[len(series)*9/10], series[len(series)-1], w
}

// TestHeapBounded: reading a TPC-C client's log ten times the size of
// another (more sessions come and go, more distinct values, every shape
// seen more often) keeps a live heap less than 10% larger. Small sample
// sizes stand for the defaults, so that both logs fill every reservoir.
func TestHeapBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 22 MB of logs")
	}
	o := Options{Sample: 16, MaxInstances: 256, MaxTxnStatements: 512, Workers: 2}
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
		hs, ps, ws := liveHeap(t, gen(2<<20), o)
		hb, pb, wb := liveHeap(t, gen(20<<20), o)
		t.Logf("%s: live heap (90th percentile, peak) %.2f MB, %.2f MB reading 2 MB; %.2f MB, %.2f MB reading 20 MB", format, float64(hs)/(1<<20), float64(ps)/(1<<20), float64(hb)/(1<<20), float64(pb)/(1<<20))
		if float64(hb) > 1.1*float64(hs) {
			t.Errorf("%s: live heap grew from %d to %d bytes (%.0f%%) for a log ten times larger", format, hs, hb, 100*(float64(hb)/float64(hs)-1))
		}
		// The bounds thin samples; they do not change what is counted:
		// the big log has about ten times the statements of the small.
		sum := func(w *shardkey.Workload) float64 {
			r := 0.0
			for _, op := range w.Ops {
				r += op.Rate
			}
			return r
		}
		if len(ws.Txns) == 0 || len(wb.Txns) > len(ws.Txns)*11/10 || sum(wb) <= 0 {
			t.Errorf("%s: %d and %d transactions kept", format, len(ws.Txns), len(wb.Txns))
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
