package sqllog

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestParserPanic: `SET````0`, which panics inside Vitess's parser, is a
// statement that does not parse: left out with a warning naming the file,
// its line and its text, while the log's other statements are read.
func TestParserPanic(t *testing.T) {
	general := "/usr/sbin/mysqld, Version: 8.0.40 (MySQL Community Server - GPL). started with:\n" +
		"Tcp port: 3306  Unix socket: /tmp/mysql.sock\n" +
		"Time                 Id Command    Argument\n" +
		"2024-01-01T00:00:00.000000Z\t    8 Query\tSELECT * FROM t WHERE id = 1\n" +
		"2024-01-01T00:00:01.000000Z\t    8 Query\tSET````0\n" +
		"2024-01-01T00:00:02.000000Z\t    8 Query\tSELECT * FROM t WHERE id = 2\n"
	slow := "/usr/sbin/mysqld, Version: 8.0.40 (MySQL Community Server - GPL). started with:\n" +
		"Tcp port: 3306  Unix socket: /tmp/mysql.sock\n" +
		"Time                 Id Command    Argument\n" +
		"# Time: 2024-01-01T00:00:00.000000Z\n" +
		"# User@Host: root[root] @ localhost []  Id:     8\n" +
		"# Query_time: 0.000100  Lock_time: 0.000000 Rows_sent: 1  Rows_examined: 1\n" +
		"SET timestamp=1704067200;\n" +
		"SELECT * FROM t WHERE id = 1;\n" +
		"# Time: 2024-01-01T00:00:01.000000Z\n" +
		"# User@Host: root[root] @ localhost []  Id:     8\n" +
		"# Query_time: 0.000100  Lock_time: 0.000000 Rows_sent: 1  Rows_examined: 1\n" +
		"SET timestamp=1704067201;\n" +
		"SET````0;\n"
	for _, c := range []struct {
		format, log string
		line        string
	}{
		{"mysql-general", general, "line 5"},
		{"mysql-slow", slow, "line 13"},
	} {
		w := &shardkey.Workload{}
		err := Read(context.Background(), w, strings.NewReader(c.log), "my.log", Options{Format: c.format, Workers: 2})
		if err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		var warned string
		for _, e := range w.Warnings {
			if strings.Contains(e.Error(), "could not be parsed") {
				warned = e.Error()
			}
		}
		for _, want := range []string{"my.log", "SET````0", c.line, "panicked"} {
			if !strings.Contains(warned, want) {
				t.Errorf("%s: warning %q lacks %q (warnings %v)", c.format, warned, want, w.Warnings)
			}
		}
		if ti := w.TableIndex("t"); ti < 0 || len(w.Ops) == 0 {
			t.Errorf("%s: the statements around it were not read: %d ops", c.format, len(w.Ops))
		}
	}
	// One statement: ParseStatement (explain) returns the error.
	for _, d := range []Dialect{MySQL, 0} {
		if _, err := ParseStatement("SET````0", d); err == nil || !strings.Contains(err.Error(), "panicked") && !strings.Contains(err.Error(), "neither parser") {
			t.Errorf("ParseStatement(SET````0, %v): %v", d, err)
		}
	}
	if _, err := UpdateSets("SET````0", MySQL); err == nil {
		t.Error("UpdateSets(SET````0): no error")
	}
}

// TestTruncatedWhileRead: a log that loses its tail while it is read is an
// error naming the file (not exit 0 with the statements before the cut).
func TestTruncatedWhileRead(t *testing.T) {
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "2026-11-30 23:04:50.000 UTC [100] LOG:  statement: SELECT * FROM t WHERE id = %d\n", i)
	}
	file := filepath.Join(t.TempDir(), "pg.log")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Whole, it reads.
	if err := ReadFile(context.Background(), &shardkey.Workload{}, file, Options{}); err != nil {
		t.Fatal(err)
	}
	testHookOpened = func(f string) { os.Truncate(f, 100_000) }
	defer func() { testHookOpened = nil }()
	err := ReadFile(context.Background(), &shardkey.Workload{}, file, Options{})
	if err == nil || !strings.Contains(err.Error(), "pg.log") || !strings.Contains(err.Error(), "truncated") || !strings.Contains(err.Error(), fmt.Sprintf("100000 of its %d bytes", b.Len())) {
		t.Errorf("truncated while read: %v", err)
	}
}

// TestLineBound: a log without line ends (/dev/zero, NUL-filled) stops at
// shardkey.MaxLineBytes with an error naming the file and line, in every
// format; an unterminated csvlog quote stops at MaxRecordBytes.
func TestLineBound(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB per format")
	}
	nul := make([]byte, shardkey.MaxLineBytes+1<<20)
	for _, format := range []string{"stderr", "csvlog", "jsonlog", "pg_stat_statements", "mysql-general", "mysql-slow"} {
		err := Read(context.Background(), &shardkey.Workload{}, bytes.NewReader(nul), "nul.log", Options{Format: format})
		if err == nil || !strings.Contains(err.Error(), "nul.log") || !strings.Contains(err.Error(), "64 MiB") {
			t.Errorf("%s: %v", format, err)
		}
	}
	head := "2026-11-30 23:04:50.000 UTC,,,100,,s1,1,,2026-11-30 23:04:50 UTC,,0,LOG,00000,\"statement: SELECT 1\n"
	quoted := head + strings.Repeat("SELECT * FROM t WHERE id = 1\n", shardkey.MaxRecordBytes/29+1000)
	err := Read(context.Background(), &shardkey.Workload{}, strings.NewReader(quoted), "q.csv", Options{Format: "csvlog"})
	if err == nil || !strings.Contains(err.Error(), "q.csv") || !strings.Contains(err.Error(), "record longer than 64 MiB") {
		t.Errorf("unterminated quote: %v", err)
	}
}

// TestOpenTransactionBound: a transaction that never commits is counted
// in pieces of maxTxnStmts statements with a warning naming the line where
// the first piece ended, so memory does not grow with it: 2,500
// statements after BEGIN (line 1) make 2 pieces of 1,000, the first
// ending at line 1,001, and a last one of 500 at the end of the log.
func TestOpenTransactionBound(t *testing.T) {
	var b strings.Builder
	b.WriteString("2026-11-30 23:04:50.000 UTC [100] LOG:  statement: BEGIN\n")
	for i := range 2500 {
		fmt.Fprintf(&b, "2026-11-30 23:04:5%d.000 UTC [100] LOG:  statement: UPDATE t SET v = 1 WHERE id = %d\n", i%10, i)
	}
	w := &shardkey.Workload{}
	if err := Read(context.Background(), w, strings.NewReader(b.String()), "open.log", Options{Format: "stderr"}); err != nil {
		t.Fatal(err)
	}
	var warned string
	for _, e := range w.Warnings {
		if strings.Contains(e.Error(), "without COMMIT") {
			warned = e.Error()
		}
	}
	if !strings.HasPrefix(warned, "open.log:1001: ") || !strings.Contains(warned, "past 1000 statements") || !strings.Contains(warned, "2 times") {
		t.Errorf("warning %q", warned)
	}
	n := 0
	for _, tx := range w.Txns {
		n += len(tx.Stmts)
		if len(tx.Stmts) > maxTxnStmts {
			t.Errorf("a transaction of %d statements", len(tx.Stmts))
		}
	}
}
