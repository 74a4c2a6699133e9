package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// writeSeed000Files writes a workload of seed 000's shape (the formats of
// cmd/shardkey/testdata/seed000/gen.py: rows.csv with customer_id,
// order_id, order_month, weight; equality queries; transactions writing an
// order and its lines) into dir.
func writeSeed000Files(tb testing.TB, dir string, rows, queries, txns int) {
	rng := rand.New(rand.NewPCG(7, 8))
	create := func(name string) (*bufio.Writer, func()) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			tb.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		return w, func() {
			if err := w.Flush(); err != nil {
				tb.Fatal(err)
			}
			f.Close()
		}
	}
	month := func() string { return fmt.Sprintf("%04d-%02d", 2023+rng.IntN(2), 1+rng.IntN(12)) }
	cust := func() int { return 1 + int(rng.ExpFloat64()*20000)%1000000 }
	w, done := create("rows.csv")
	fmt.Fprintln(w, "customer_id,order_id,order_month,weight")
	for i := 0; i < rows; i++ {
		fmt.Fprintf(w, "%d,%d,%s,%v\n", cust(), 100001+i, month(), rng.Float64()/float64(rows))
	}
	done()
	w, done = create("queries.jsonl")
	for i := 0; i < queries; i++ {
		switch r := rng.IntN(20); {
		case r < 12:
			fmt.Fprintf(w, "{\"where\": {\"customer_id\": %d}}\n", cust())
		case r < 17:
			fmt.Fprintf(w, "{\"where\": {\"order_id\": %d}}\n", 100001+rng.IntN(rows))
		case r < 18:
			fmt.Fprintf(w, "{\"where\": {\"customer_id\": %d, \"order_month\": %q}}\n", cust(), month())
		default:
			fmt.Fprintf(w, "{\"where\": {\"order_month\": %q}}\n", month())
		}
	}
	done()
	w, done = create("txns.jsonl")
	for i := 0; i < txns; i++ {
		c, o, m := cust(), 100001+rows+i, month()
		io.WriteString(w, `{"writes": [`)
		for k := 0; k < 1+rng.IntN(5); k++ {
			if k > 0 {
				io.WriteString(w, ", ")
			}
			if rng.IntN(10) == 0 {
				c = cust()
			}
			fmt.Fprintf(w, `{"customer_id": %d, "order_id": %d, "order_month": %q}`, c, o, m)
		}
		io.WriteString(w, "]}\n")
	}
	done()
}

// BenchmarkScoreFiles runs `shardkey score` as a user does, from the CSV
// and JSONL files, on 2 M rows, 1 M queries and 0.5 M transactions with
// three candidates, 64 shards and the default engine: the figure the core
// issue's target (and docs/performance.md) is about. Writing the files is
// not timed.
func BenchmarkScoreFiles(b *testing.B) {
	dir := b.TempDir()
	writeSeed000Files(b, dir, 2_000_000, 1_000_000, 500_000)
	args := []string{"score", "--rows", filepath.Join(dir, "rows.csv"), "--queries", filepath.Join(dir, "queries.jsonl"),
		"--txns", filepath.Join(dir, "txns.jsonl"), "--shards", "64",
		"-k", "hash(customer_id)", "-k", "hash(order_id)", "-k", "hash(customer_id, order_month)", "--format", "json"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if code := run(context.Background(), args, nil, io.Discard, io.Discard); code != 0 {
			b.Fatalf("score exited %d", code)
		}
	}
}
