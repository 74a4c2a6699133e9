package advisor

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/loggen"
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
