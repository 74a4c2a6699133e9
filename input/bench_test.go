package input_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shardkey/shardkey/input"
)

// benchRows is the size of the files the reader benchmarks read: enough to
// amortise type inference, small enough for a shared 2-core machine.
const benchRows = 200_000

type benchRow struct {
	ID      int64     `parquet:"id"`
	UserID  int64     `parquet:"user_id"`
	Country string    `parquet:"country"`
	Created time.Time `parquet:"created_at,timestamp(microsecond)"`
	Weight  float64   `parquet:"weight"`
}

func benchData() []benchRow {
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	countries := []string{"us", "de", "fr", "jp", "br", "in"}
	rows := make([]benchRow, benchRows)
	for i := range rows {
		rows[i] = benchRow{
			ID: int64(i + 1), UserID: int64(i*7919) % 100_003, Country: countries[i%len(countries)],
			Created: base.Add(time.Duration(i) * time.Second), Weight: float64(1 + i%5),
		}
	}
	return rows
}

// writeText writes the rows as CSV or JSONL.
func writeText(b *testing.B, path string, rows []benchRow, jsonl bool) {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if !jsonl {
		fmt.Fprintln(w, "id,user_id,country,created_at,weight")
	}
	for _, r := range rows {
		ts := r.Created.Format(time.RFC3339)
		if jsonl {
			fmt.Fprintf(w, `{"id": %d, "user_id": %d, "country": %q, "created_at": %q, "weight": %g}`+"\n", r.ID, r.UserID, r.Country, ts, r.Weight)
		} else {
			fmt.Fprintf(w, "%d,%d,%s,%s,%g\n", r.ID, r.UserID, r.Country, ts, r.Weight)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// benchRead reads path b.N times and reports rows/s.
func benchRead(b *testing.B, path string) {
	b.Helper()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t, err := input.ReadRows(path, "events", input.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if t.Rows != benchRows {
			b.Fatalf("read %d rows; want %d", t.Rows, benchRows)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkReadRows_CSV(b *testing.B) {
	path := filepath.Join(b.TempDir(), "events.csv")
	writeText(b, path, benchData(), false)
	benchRead(b, path)
}

func BenchmarkReadRows_JSONL(b *testing.B) {
	path := filepath.Join(b.TempDir(), "events.jsonl")
	writeText(b, path, benchData(), true)
	benchRead(b, path)
}

func BenchmarkReadRows_Parquet(b *testing.B) {
	path := writeParquet(b, b.TempDir(), "events.parquet", benchData(), 64<<10)
	benchRead(b, path)
}
