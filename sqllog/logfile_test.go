package sqllog

import (
	"context"
	"os"
	"testing"

	"github.com/shardkey/shardkey"
)

// BenchmarkLogFile reads the log named by $SQLLOG_FILE (skipped when
// unset): for profiles of big logs (-cpuprofile, -memprofile).
func BenchmarkLogFile(b *testing.B) {
	file := os.Getenv("SQLLOG_FILE")
	if file == "" {
		b.Skip("SQLLOG_FILE not set")
	}
	fi, err := os.Stat(file)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	for range b.N {
		w := &shardkey.Workload{}
		if err := ReadFile(context.Background(), w, file, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
