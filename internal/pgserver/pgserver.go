// Package pgserver starts throwaway PostgreSQL servers for tests that
// need more than one server (a Citus coordinator's workers): the
// machine's server binaries, a free loopback port, data under /tmp,
// stopped and removed when the test ends.
package pgserver

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"testing"
)

// pgBin is where the throwaway workers' server binaries are
// (SHARDKEY_TEST_PG_BIN overrides it).
func pgBin() string {
	if s := os.Getenv("SHARDKEY_TEST_PG_BIN"); s != "" {
		return s
	}
	return "/usr/lib/postgresql/15/bin"
}

// Start starts a throwaway PostgreSQL server on a free loopback port
// (initdb and pg_ctl from pgBin, data under /tmp/citus15-* (the name from the Citus tests that first needed it), trust
// authentication for user postgres), stopped and removed when the test
// ends, and returns its port. It skips when the binaries are missing.
// As root, the server runs as the postgres user (initdb refuses root).
func Start(t testing.TB) int {
	t.Helper()
	initdb, pgctl := filepath.Join(pgBin(), "initdb"), filepath.Join(pgBin(), "pg_ctl")
	for _, b := range []string{initdb, pgctl} {
		if _, err := os.Stat(b); err != nil {
			t.Skipf("no PostgreSQL server binaries to start a throwaway worker (%v; set SHARDKEY_TEST_PG_BIN to their directory)", err)
		}
	}
	dir, err := os.MkdirTemp("/tmp", "citus15-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	run := func(args ...string) *exec.Cmd { return exec.Command(args[0], args[1:]...) }
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skipf("running as root and no postgres user to run a throwaway server as: %v", err)
		}
		if out, err := exec.Command("chown", u.Username, dir).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v: %s", err, out)
		}
		run = func(args ...string) *exec.Cmd {
			return exec.Command("runuser", append([]string{"-u", u.Username, "--"}, args...)...)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	data := filepath.Join(dir, "data")
	if out, err := run(initdb, "-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v: %s", err, out)
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=20 -c shared_buffers=16MB", port, dir)
	if out, err := run(pgctl, "-D", data, "-o", opts, "-w", "-t", "60", "-l", filepath.Join(dir, "log"), "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		t.Fatalf("pg_ctl start: %v: %s\n%s", err, out, log)
	}
	t.Cleanup(func() {
		if out, err := run(pgctl, "-D", data, "-m", "immediate", "-w", "stop").CombinedOutput(); err != nil {
			t.Logf("pg_ctl stop: %v: %s", err, out)
		}
	})
	return port
}
