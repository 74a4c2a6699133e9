package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// throwawayPostgres starts a PostgreSQL server of its own (initdb in a
// temporary directory, a free loopback port, pg_stat_statements
// preloaded) and returns its DSN; the server is stopped and removed when
// the test ends. The machine's own server is not touched.
func throwawayPostgres(t *testing.T) string {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		msg := "PostgreSQL server binaries not installed"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI is set, so the test may not be skipped")
		}
		t.Skip(msg)
	}
	bin := filepath.Dir(bins[len(bins)-1])
	dir, err := os.MkdirTemp("", "shardkey-pg")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	as := func(name string, args ...string) *exec.Cmd {
		if os.Geteuid() == 0 { // initdb and postgres refuse root
			return exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
		}
		return exec.Command(name, args...)
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root without a postgres user")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		os.Chown(dir, uid, gid)
	}
	data := filepath.Join(dir, "data")
	if out, err := as(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "--no-sync").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	port := freePort(t)
	conf := fmt.Sprintf("port = %d\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\nfsync = off\nshared_preload_libraries = 'pg_stat_statements'\n", port, dir)
	f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(conf)
	f.Close()
	if out, err := as(filepath.Join(bin, "pg_ctl"), "-D", data, "-w", "-l", filepath.Join(dir, "server.log"), "start").CombinedOutput(); err != nil {
		t.Fatalf("pg_ctl start: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		as(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop").Run()
		os.RemoveAll(dir)
	})
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
}

// TestWatch_FromPgStatStatements: watch --from polls pg_stat_statements;
// the calls made between polls (200 reads and 50 updates by the test)
// come out as the windows' requests, exactly, and top keys are unknown
// (null: the statistics keep no values).
func TestWatch_FromPgStatStatements(t *testing.T) {
	dsn := throwawayPostgres(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		"CREATE EXTENSION pg_stat_statements",
		"CREATE TABLE accounts (aid int PRIMARY KEY, abalance int)",
		"INSERT INTO accounts SELECT g, 0 FROM generate_series(1, 1000) g",
		"ANALYZE accounts",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var out, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(wctx, []string{"watch", "--from", dsn, "--window", "1s", "--shards", "4", "-k", "hash(aid)", "--format", "json"}, strings.NewReader(""), &out, &stderr)
	}()
	// Wait for the baseline reading (the "polling" line), then make calls.
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(stderr.String(), "polling"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("watch --from did not start: %s", stderr.String())
		}
	}
	for i := range 200 {
		var b int
		if err := conn.QueryRow(ctx, "SELECT abalance FROM accounts WHERE aid = $1", i%1000+1).Scan(&b); err != nil {
			t.Fatal(err)
		}
		if i%4 == 0 {
			if _, err := conn.Exec(ctx, "UPDATE accounts SET abalance = abalance + 1 WHERE aid = $1", 7); err != nil {
				t.Fatal(err)
			}
		}
	}
	var total float64
	var windows []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		total = 0
		windows = strings.Split(strings.TrimSpace(out.String()), "\n")
		for _, l := range windows {
			if l == "" {
				continue
			}
			var w struct {
				Seconds float64
				Designs []struct {
					RequestsPerS float64         `json:"requests_per_s"`
					TopKeys      json.RawMessage `json:"top_keys"`
				}
			}
			if err := json.Unmarshal([]byte(l), &w); err != nil {
				t.Fatal(err)
			}
			for _, d := range w.Designs {
				total += d.RequestsPerS * w.Seconds
				if string(d.TopKeys) != "null" {
					t.Errorf("top_keys %s; want null (unknown)", d.TopKeys)
				}
			}
		}
		if total >= 250-1e-6 {
			break
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("watch --from: exit %d: %s", code, stderr.String())
	}
	if total < 250-1e-6 || total > 250+1e-6 {
		t.Errorf("requests over the windows: %v; want 250 (200 reads + 50 updates)\n%s\n%s", total, out.String(), stderr.String())
	}
	t.Logf("%d windows", len(windows))
}
