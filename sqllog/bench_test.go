package sqllog

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/loggen"
)

// pgbenchLog returns n lines of a PostgreSQL stderr log of pgbench's
// simple-protocol TPC-B-like script, 16 sessions interleaved.
func pgbenchLog(n int) string {
	var sb strings.Builder
	stmts := []string{
		"BEGIN;",
		"UPDATE pgbench_accounts SET abalance = abalance + %[1]d WHERE aid = %[2]d;",
		"SELECT abalance FROM pgbench_accounts WHERE aid = %[2]d;",
		"UPDATE pgbench_tellers SET tbalance = tbalance + %[1]d WHERE tid = %[3]d;",
		"UPDATE pgbench_branches SET bbalance = bbalance + %[1]d WHERE bid = %[4]d;",
		"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (%[3]d, %[4]d, %[2]d, %[1]d, CURRENT_TIMESTAMP);",
		"END;",
	}
	for i := 0; i < n; i++ {
		sess := i % 16
		k := (i / 16) % len(stmts)
		x := i*7919 + sess
		sql := stmts[k]
		if strings.Contains(sql, "%") {
			sql = fmt.Sprintf(sql, x%5000-2500, x%100000+1, x%100+1, x%10+1)
			sql = strings.Split(sql, "%!")[0] // arguments a statement does not use
		}
		fmt.Fprintf(&sb, "2024-03-01 10:%02d:%02d.%03d UTC [%d] bench@bench LOG:  statement: %s\n", (i/60000)%60, (i/1000)%60, i%1000, 4000+sess, sql)
	}
	return sb.String()
}

// BenchmarkStderr reports log lines read per second per core (lines/s
// divided by GOMAXPROCS) for a pgbench log in stderr format.
func BenchmarkStderr(b *testing.B) {
	const n = 200000
	text := pgbenchLog(n)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for range b.N {
		w := &shardkey.Workload{}
		if err := Read(context.Background(), w, strings.NewReader(text), "bench.log", Options{}); err != nil {
			b.Fatal(err)
		}
	}
	perSec := float64(n) * float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(perSec, "lines/s")
	b.ReportMetric(perSec/float64(runtime.GOMAXPROCS(0)), "lines/s/core")
}

// BenchmarkNormalize measures the shape key and literal extraction alone.
func BenchmarkNormalize(b *testing.B) {
	sql := "UPDATE pgbench_accounts SET abalance = abalance + -1234 WHERE aid = 56789;"
	var buf []byte
	for range b.N {
		buf, _ = normalize(buf, sql, Postgres)
	}
}

// BenchmarkTPCC reads a 20 MB TPC-C-like log (internal/loggen: go-tpc's
// statements replayed with fresh values, 32 sessions interleaved) in each
// format, as ReadFile does with the default options. MB/s is per wall
// second of the run (all cores); MB/cpu-s per second of the process's
// CPU time (user + system, every goroutine and the garbage collector:
// the figure a loaded machine does not distort); allocs/op and B/op are
// per whole log, and alloc-B/MB is bytes allocated per MB (1e6 bytes) of
// log.
func BenchmarkTPCC(b *testing.B) {
	for _, format := range []string{"stderr", "csvlog", "jsonlog", "mysql-general", "mysql-slow"} {
		b.Run(format, func(b *testing.B) {
			f, err := os.Create(filepath.Join(b.TempDir(), "tpcc.log"))
			if err != nil {
				b.Fatal(err)
			}
			n, err := loggen.Write(f, loggen.Options{Format: format, Bytes: 20 << 20, Seed: 1})
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(n)
			b.ReportAllocs()
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			cpu0 := cpuSeconds()
			b.ResetTimer()
			for range b.N {
				w := &shardkey.Workload{}
				if err := ReadFile(context.Background(), w, f.Name(), Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if cpu0 >= 0 {
				cpu := cpuSeconds() - cpu0
				b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
				b.ReportMetric(float64(n)*float64(b.N)/1e6/cpu, "MB/cpu-s")
			}
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N)/(float64(n)/1e6), "alloc-B/MB")
		})
	}
}

// BenchmarkReader measures the reading goroutine alone: a 20 MB TPC-C-like
// log (internal/loggen) of each format read as readSources reads a plain
// file (the same buffers and bounds), its entries handed to a pipeline
// that drops them unparsed. The reader is serial (it keeps log order), so
// its cost bounds the wall throughput of ReadFile whatever the number of
// workers. MB/cpu-s is MB (1e6 bytes) of log per second of the process's
// CPU time (user + system, with the garbage collector).
func BenchmarkReader(b *testing.B) {
	for _, format := range []string{"stderr", "csvlog", "jsonlog", "mysql-general", "mysql-slow"} {
		b.Run(format, func(b *testing.B) {
			name := filepath.Join(b.TempDir(), "tpcc.log")
			f, err := os.Create(name)
			if err != nil {
				b.Fatal(err)
			}
			n, err := loggen.Write(f, loggen.Options{Format: format, Bytes: 20 << 20, Seed: 1})
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(n)
			b.ReportAllocs()
			cpu0 := cpuSeconds()
			b.ResetTimer()
			for range b.N {
				if err := readDiscard(name, format); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if cpu0 >= 0 {
				cpu := cpuSeconds() - cpu0
				b.ReportMetric(float64(n)*float64(b.N)/1e6/cpu, "MB/cpu-s")
			}
		})
	}
}

// readDiscard reads file in format as readSources does, into a pipeline
// whose batches are dropped (recycled) without parsing.
func readDiscard(file, format string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	p := &pipeline{ctx: context.Background(), work: make(chan *job, 8), order: make(chan *job, 8), done: make(chan error, 1), dialect: dialectOf(format), free: make(chan *batchMem, 10), freeE: make(chan []entry, 10)}
	go func() {
		for range p.work {
		}
	}()
	go func() {
		for j := range p.order {
			p.release(j)
		}
		p.done <- nil
	}()
	bound := &shardkey.BoundedReader{R: bufio.NewReaderSize(f, 64<<10), File: file, What: "log", MaxLine: shardkey.MaxLineBytes}
	br := bufio.NewReaderSize(bound, 1<<20)
	if format == "csvlog" {
		bound.MaxRecord = shardkey.MaxRecordBytes
	}
	rs := &readState{p: p, file: file, bound: bound}
	if err := readBody(br, format, rs); err != nil {
		return err
	}
	if rs.entries == 0 {
		return fmt.Errorf("%s: no entries", file)
	}
	return nil
}
