package sqllog

import (
	"context"
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
