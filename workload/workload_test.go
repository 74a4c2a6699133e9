package workload_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/workload"
)

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRead: rows give the table, a query file its operation (one shape:
// read orders where customer_id = ?, two requests), and the workload is
// named after its files.
func TestRead(t *testing.T) {
	rows := write(t, "orders.csv", "order_id,customer_id\n1,10\n2,10\n3,11\n")
	queries := write(t, "q.jsonl", `{"where": {"customer_id": 10}, "weight": 1}`+"\n"+`{"where": {"customer_id": 11}, "weight": 1}`+"\n")
	w, dir, err := workload.Read(context.Background(), workload.Inputs{Rows: []string{rows}, Queries: []string{queries}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if dir != "" || w.Table("orders") == nil || w.Table("orders").Rows != 3 {
		t.Fatalf("dir %q, tables %v", dir, w.Tables)
	}
	if len(w.Ops) != 1 || w.Ops[0].Name != "read orders where customer_id = ?" || len(w.Ops[0].Instances) != 2 {
		t.Fatalf("operations %+v", w.Ops)
	}
	if !strings.Contains(w.Name, "orders.csv") || !strings.Contains(w.Name, "q.jsonl") {
		t.Errorf("name %q", w.Name)
	}
}

// TestRead_Usage: inputs that do not go together, and input files that
// cannot be opened, are usage errors.
func TestRead_Usage(t *testing.T) {
	rows := write(t, "t.csv", "id\n1\n")
	missing := filepath.Join(t.TempDir(), "missing")
	for _, c := range []struct {
		in   workload.Inputs
		want string
	}{
		{workload.Inputs{}, "no workload"},
		{workload.Inputs{Schema: "s.sql"}, "--schema describes the tables"},
		// The flags given are named, not --rows/--queries/--txns whatever was given.
		{workload.Inputs{SpecFile: "x.yaml", Rows: []string{rows}}, "give either --workload or --rows, not both: a --workload spec is the whole workload"},
		{workload.Inputs{SpecFile: "x.yaml", Logs: []string{rows}}, "give either --workload or --log, not both: a --workload spec is the whole workload"},
		{workload.Inputs{SpecFile: "x.yaml", Rows: []string{rows}, From: "postgres://h/db"}, "give either --workload or --rows and --from, not both"},
		{workload.Inputs{SpecFile: "x.yaml", Queries: []string{rows}, Txns: []string{rows}, Logs: []string{rows}}, "give either --workload or --queries, --txns and --log, not both"},
		{workload.Inputs{Rows: []string{rows}, Variant: "v"}, "--variant applies to scenario specs"},
		{workload.Inputs{Logs: []string{rows, rows}}, "given twice"},
		{workload.Inputs{Logs: []string{filepath.Join(filepath.Dir(rows), "*.csv"), rows}}, "given twice"}, // through a glob
		{workload.Inputs{Logs: []string{filepath.Dir(rows), rows}}, "given twice"},                         // through a directory
		{workload.Inputs{SpecFile: "x.yaml", Types: map[string]shardkey.Type{"id": shardkey.Int64}}, "--column-type applies"},
		// A file that is not there: the flag, its value and the reason.
		{workload.Inputs{SpecFile: missing}, "--workload " + missing + ": no such file or directory"},
		{workload.Inputs{Rows: []string{"t=" + missing}}, "--rows t=" + missing + ": no such file or directory"},
		{workload.Inputs{Rows: []string{rows}, Queries: []string{missing}}, "--queries " + missing + ": no such file or directory"},
		{workload.Inputs{Rows: []string{rows}, Txns: []string{missing}}, "--txns " + missing + ": no such file or directory"},
		{workload.Inputs{Rows: []string{rows}, Schema: missing}, "--schema " + missing + ": no such file or directory"},
		{workload.Inputs{Logs: []string{missing}}, "--log " + missing + ": no such file or directory"},
		{workload.Inputs{Logs: []string{missing + "*"}}, "--log " + missing + "*: no files match this pattern"},
	} {
		_, _, err := workload.Read(context.Background(), c.in)
		var ue *shardkey.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want a usage error with %q", c.in, err, c.want)
		}
	}
}

// TestLogCopiesAcross: a log given once plain and once gzipped (two
// --log values) holds its statements twice: a usage error naming both,
// as for a file named twice. The same pieces in one directory are read
// once (sqllog's TestCopiesInSet).
func TestLogCopiesAcross(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("..", "sqllog", "testdata", "pg-stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "postgresql.log"), filepath.Join(t.TempDir(), "postgresql.log.gz")
	if err := os.WriteFile(a, plain, 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	z.Write(plain)
	z.Close()
	if err := os.WriteFile(b, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = workload.Read(context.Background(), workload.Inputs{Logs: []string{a, b}})
	var ue *shardkey.UsageError
	if want := a + " and " + b + " hold the same content (decompressed)"; !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
		t.Errorf("--log %s --log %s: %v; want a usage error with %q", a, b, err, want)
	}
	// a.log twice over (26,296 bytes, under the 64 KiB hashed) and a
	// gzipped copy of its first half: refused, as docs/product.md says.
	twice := filepath.Join(t.TempDir(), "a.log")
	if err := os.WriteFile(twice, bytes.Repeat(plain, 2), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = workload.Read(context.Background(), workload.Inputs{Logs: []string{twice, b}})
	if want := twice + " and " + b + " hold the same log, one a prefix of the other (decompressed)"; !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
		t.Errorf("--log %s --log %s: %v; want a usage error with %q", twice, b, err, want)
	}
	// Two different logs are read.
	other := filepath.Join("..", "sqllog", "testdata", "pg-stderr-duration.log")
	if _, _, err := workload.Read(context.Background(), workload.Inputs{Logs: []string{a, other}}); err != nil {
		t.Errorf("two different logs: %v", err)
	}
}
