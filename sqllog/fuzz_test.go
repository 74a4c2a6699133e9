package sqllog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// fuzzRead reads data as a log of format: it must never panic, and what it
// returns must validate.
//
// Run a target with bounded minimisation, or each new input found is
// minimised for up to a minute (Go's default) and the fuzzer runs a few
// dozen inputs a minute instead of thousands:
//
//	go test ./sqllog -run '^$' -fuzz '^FuzzCSVLog$' -fuzztime 60s -fuzzminimizetime 10x
func fuzzRead(t *testing.T, format string, data []byte) {
	w := &shardkey.Workload{}
	err := Read(context.Background(), w, strings.NewReader(string(data)), "fuzz.log", Options{Format: format, Sample: 8, Workers: 2})
	if err != nil {
		if !strings.HasPrefix(err.Error(), "fuzz.log") {
			t.Fatalf("error without the file name: %v", err)
		}
		return
	}
	if err := w.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
}

func seed(f *testing.F, files ...string) {
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		// Excerpts of 12 lines only, not the whole file: the fuzzer
		// mutates and minimises each seed, and small seeds keep it at
		// thousands of inputs a minute (the golden tests read the whole
		// files).
		lines := strings.SplitAfter(string(data), "\n")
		for i := 0; i < len(lines); i += 12 {
			f.Add([]byte(strings.Join(lines[i:min(i+12, len(lines))], "")))
		}
	}
}

func FuzzStderr(f *testing.F) {
	seed(f, "pg-stderr.log", "pg-stderr-duration.log")
	f.Add([]byte(interleaved))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, "stderr", data) })
}

func FuzzCSVLog(f *testing.F) {
	seed(f, "pg-csvlog.csv")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, "csvlog", data) })
}

func FuzzJSONLog(f *testing.F) {
	seed(f, "pg-jsonlog.json")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, "jsonlog", data) })
}

func FuzzPGStatStatements(f *testing.F) {
	seed(f, "pg-stat-statements.csv")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, "pg_stat_statements", data) })
}

func FuzzMySQLGeneral(f *testing.F) {
	seed(f, "mariadb-general.log")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, "mysql-general", data) })
}

func FuzzMySQLSlow(f *testing.F) {
	seed(f, "mariadb-slow.log")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, "mysql-slow", data) })
}

// FuzzDetect reads data with the format detected.
func FuzzDetect(f *testing.F) {
	seed(f, "pg-stderr.log", "pg-csvlog.csv", "pg-jsonlog.json", "pg-stat-statements.csv", "mariadb-general.log", "mariadb-slow.log")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, "", data) })
}

// FuzzStatement parses and binds one statement in both dialects.
func FuzzStatement(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM t WHERE a = 1 AND b IN (2, 3) AND c BETWEEN 4 AND 5",
		"SELECT * FROM a JOIN b ON a.x = b.y WHERE a.x = 5",
		"INSERT INTO t (a, b) VALUES (1, 'x'), (2, E'y\\'')",
		"SELECT * FROM `t` WHERE (a, b) IN ((1, 2), (3, 4)) # c",
		"UPDATE t SET v = $1 WHERE id = $2::bigint",
		"SELECT $$q$$, DATE '2024-01-01' FROM t WHERE x = -1.5e3",
		"INSERT INTO p (a, b) SELECT l.a, 'x' FROM l WHERE l.a IN (3, 4)",
		"SELECT d.b FROM (SELECT a AS u, b FROM t x WHERE x.c > 5) d JOIN s ON s.id = d.u WHERE d.u = 3",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, d := range []Dialect{Postgres, MySQL} {
			st, err := ParseStatement(sql, d)
			if err != nil {
				continue
			}
			w := &shardkey.Workload{}
			if _, err := st.Bind(w, nil); err == nil {
				if err := w.Validate(); err != nil {
					t.Fatalf("%s %q: Validate: %v", d, sql, err)
				}
			}
		}
	})
}
