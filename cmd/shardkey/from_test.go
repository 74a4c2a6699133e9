package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// fromPG creates a throwaway PostgreSQL database holding one table,
// accounts(id, region), dropped when the test ends, and returns its DSN
// and whether its user is a superuser (SHARDKEY_TEST_PG names the server; the test skips when it does not
// answer, as package livedb's tests do).
func fromPG(t *testing.T) (string, bool) {
	t.Helper()
	ctx := context.Background()
	admin := os.Getenv("SHARDKEY_TEST_PG")
	if admin == "" {
		admin = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	a, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Skipf("no PostgreSQL at %s: %v", admin, err)
	}
	t.Cleanup(func() { a.Close(ctx) })
	var super bool
	if err := a.QueryRow(ctx, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&super); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("shardkey_cli_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
	if _, err := a.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := a.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	cfg, _ := pgx.ParseConfig(admin)
	dsn := fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Host, cfg.Port, name)
	db, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	for _, q := range []string{
		`CREATE TABLE accounts (id int PRIMARY KEY, region text)`,
		`INSERT INTO accounts SELECT i, (ARRAY['eu', 'us'])[1 + i % 2] FROM generate_series(1, 500) i`,
		`ANALYZE accounts`,
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return dsn, super
}

// A password given as ?password= in the --from DSN (issue 17: printed
// verbatim in the report and in errors) appears in no output format and
// in no error; the row sample's size and method do appear.
func TestFromRedactsPassword(t *testing.T) {
	dsn, super := fromPG(t)
	dsn += "&password=hunter2secret" // trust authentication ignores it
	for _, format := range []string{"table", "markdown", "json"} {
		code, out, errs := runCmd(t, "", "score", "--from", dsn, "-k", "hash(id)", "--format", format)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", format, code, errs)
		}
		if strings.Contains(out+errs, "hunter2secret") {
			t.Errorf("%s: the password appears in the output:\n%s\n%s", format, out, errs)
		}
		// Warnings are part of the JSON and Markdown documents; the
		// terminal table leaves them to stderr, where they cannot be read
		// as a line of the table.
		report := out
		if format == "table" {
			report = errs
		}
		if !strings.Contains(out, "password=xxxxx") || !strings.Contains(report, "accounts 500 rows: every row") {
			t.Errorf("%s: want the redacted DSN and the sample (accounts 500 rows: every row) in the report:\n%s", format, out)
		}
		// A superuser (postgres, by default) is warned about on stderr at
		// once and in the report.
		if super && !strings.Contains(errs, "warning: ") || !strings.Contains(errs, "SUPERUSER CONNECTION") || !strings.Contains(report, "SUPERUSER CONNECTION") {
			t.Errorf("%s: want the superuser warning on stderr and in the report:\nstdout:\n%s\nstderr:\n%s", format, out, errs)
		}
		// Once on stderr: livedb prints it as soon as it connects, and
		// the command's warnings loop must not print it again.
		if n := strings.Count(errs, "SUPERUSER CONNECTION"); super && n != 1 {
			t.Errorf("%s: the superuser warning is on stderr %d times, want once:\n%s", format, n, errs)
		}
	}
	bad := strings.Replace(dsn, "/shardkey_cli_", "/no_such_db_", 1)
	code, out, errs := runCmd(t, "", "score", "--from", bad, "-k", "hash(id)")
	if code == 0 || strings.Contains(out+errs, "hunter2secret") || !strings.Contains(errs, "password=xxxxx") {
		t.Errorf("a database that does not exist: exit %d, want an error with password=xxxxx and no password:\n%s%s", code, out, errs)
	}
	code, _, errs = runCmd(t, "", "score", "--from", "host=127.0.0.1 password=hunter2secret", "-k", "hash(id)")
	if code != 2 || strings.Contains(errs, "hunter2secret") {
		t.Errorf("a key=value DSN: exit %d, want 2 and no password:\n%s", code, errs)
	}
}

// advise shows --from's warnings (the row sample's size and method, the
// superuser connection) in every format.
func TestFromAdviseWarnings(t *testing.T) {
	dsn, _ := fromPG(t)
	for _, format := range []string{"table", "markdown", "html", "json"} {
		code, out, errs := runCmd(t, "", "advise", "--from", dsn, "-k", "hash(id)", "--format", format)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", format, code, errs)
		}
		report := out
		if format == "table" {
			report = errs // the terminal table leaves warnings to stderr
		}
		if !strings.Contains(report, "accounts 500 rows: every row") {
			t.Errorf("%s: the row sample's size and method are not in the report:\n%s", format, out)
		}
	}
}
