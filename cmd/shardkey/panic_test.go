package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParserPanicIsInputError: `SET````0`, on which Vitess's MySQL parser
// panics, is an input error (exit 1, the statement named) for explain,
// and a statement left out with a warning naming the file, line and
// statement in a MySQL general log; never a crash (exit 2, a stack).
func TestParserPanicIsInputError(t *testing.T) {
	for _, args := range [][]string{
		{"explain", "--dialect", "mysql", "-k", "hash(id)", "SET````0"},
		{"explain", "-k", "hash(id)", "SET````0"},
	} {
		code, _, errs := runCmd(t, "", args...)
		if code != 1 || !strings.Contains(errs, "parser") || strings.Contains(errs, "goroutine") {
			t.Errorf("%q: exit %d, stderr %q; want 1 and the parser's error", args, code, errs)
		}
	}
	log := filepath.Join(t.TempDir(), "general.log")
	data := "/usr/sbin/mysqld, Version: 8.0.40 (MySQL Community Server - GPL). started with:\n" +
		"Tcp port: 3306  Unix socket: /tmp/mysql.sock\n" +
		"Time                 Id Command    Argument\n" +
		"2024-01-01T00:00:00.000000Z\t    8 Query\tSELECT * FROM t WHERE id = 1\n" +
		"2024-01-01T00:00:01.000000Z\t    8 Query\tSET````0\n" +
		"2024-01-01T00:00:02.000000Z\t    8 Query\tSELECT * FROM t WHERE id = 2\n"
	if err := os.WriteFile(log, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "", "score", "--log", log, "-k", "hash(id)")
	if code != 0 {
		t.Fatalf("score --log: exit %d: %s", code, errs)
	}
	for _, want := range []string{"general.log", "SET````0", "line 5", "panicked"} {
		if !strings.Contains(out+errs, want) {
			t.Errorf("score --log: the warning lacks %q:\n%s%s", want, out, errs)
		}
	}
}
