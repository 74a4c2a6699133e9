package advisor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/loggen"
	"github.com/shardkey/shardkey/sim"
	"github.com/shardkey/shardkey/sqllog"
)

// BenchmarkAdviseLog advises a workload read from a 32 MB TPC-C log
// (internal/loggen, PostgreSQL stderr, seed 1) as `shardkey advise --log
// FILE` does by default: 8 shards, the sweep 4..256, 20 bootstrap
// replicates. The log is read once, before the timer: only advising is
// measured, the cost that does not grow with the log (its samples are
// bounded). cpu-s/op is the process's CPU time per advice (user + system,
// every goroutine and the garbage collector), the figure a loaded machine
// does not distort.
func BenchmarkAdviseLog(b *testing.B) {
	w := benchLog(b)
	o := Options{Shards: 8, Sweep: []int{4, 8, 16, 32, 64, 128, 256}, Bootstrap: 20, Seed: w.Seed}
	cpu0 := cpuSeconds()
	b.ResetTimer()
	for range b.N {
		if _, err := Recommend(w, o); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if cpu0 >= 0 {
		b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
	}
}

// benchLog reads a 32 MB TPC-C log (internal/loggen, PostgreSQL stderr,
// seed 1).
func benchLog(b *testing.B) *shardkey.Workload {
	b.Helper()
	file := filepath.Join(b.TempDir(), "tpcc.log")
	f, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	_, err = loggen.Write(f, loggen.Options{Format: "stderr", Bytes: 32 << 20, Seed: 1})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	w := &shardkey.Workload{}
	if err := sqllog.ReadFile(context.Background(), w, file, sqllog.Options{}); err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkBootstrap scores 20 bootstrap replicates of the design advise
// recommends for the 32 MB TPC-C log of BenchmarkAdviseLog (range keys by
// warehouse: bounds recomputed per replicate), one after another (par=1,
// the baseline: main's Bootstrap) and up to GOMAXPROCS at a time (par=0,
// Bootstrap's), the same intervals either way. cpu-s/op as in
// BenchmarkAdviseLog; the wall time per op gains only where a core is
// free.
func BenchmarkBootstrap(b *testing.B) {
	w := benchLog(b)
	key := "customer:range(c_w_id); district:range(d_w_id); history:range(h_c_w_id); item:replicate; new_order:range(no_w_id); order_line:range(ol_w_id); orders:range(o_w_id); stock:range(s_w_id); warehouse:range(w_id)"
	for _, par := range []int{1, 0} {
		b.Run(fmt.Sprintf("par=%d", par), func(b *testing.B) {
			o := sim.Options{Shards: 8, Cache: sim.NewCache()}
			cpu0 := cpuSeconds()
			b.ResetTimer()
			for range b.N {
				if _, err := bootstrap(w, key, 20, w.Seed, o, par); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if cpu0 >= 0 {
				b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
			}
		})
	}
}
