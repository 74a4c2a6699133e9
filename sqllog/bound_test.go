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
