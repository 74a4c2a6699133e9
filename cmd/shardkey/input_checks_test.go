package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInputChecks: input the command cannot honour is refused up front
// with exit 2 (a usage error) and a message naming the flag, never
// silently ignored or taken as a default:
//   - --stats without --from: statistics of a live database, with none;
//   - --grow-to 0: growth to 0 nodes is no growth (must be more than
//     --nodes), not "the default";
//   - watch -k on a column of no table: refused as score refuses it,
//     not run window after window.
func TestInputChecks(t *testing.T) {
	pgbench := filepath.Join("testdata", "pgbench", "pgbench-tpcb-s4.log")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"score", "--log", pgbench, "-k", "hash(aid)", "--stats", "db:sample=10%"}, "--stats db:sample=10%: only with --from"},
		{[]string{"advise", "--log", pgbench, "--stats", "sample"}, "--stats sample: only with --from"},
		{[]string{"score", "--log", pgbench, "-k", "hash(aid)", "--slots", "8", "--nodes", "2", "--grow-to", "0"}, "--grow-to 0: must be more than --nodes (2)"},
		{[]string{"score", "--log", pgbench, "-k", "hash(aid)", "--grow-to", "0"}, "--grow-to and --row-bytes need --slots and --nodes"},
		{[]string{"watch", "--log", pgbench, "-k", "hash(nosuch)"}, `-k: design hash(nosuch) places no table of the first window with statements`},
	} {
		code, out, errs := runCmd(t, "", c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.args, code, errs, c.want)
		}
		if c.args[0] == "watch" && strings.Contains(out, "UTC") {
			t.Errorf("%v: printed windows before refusing:\n%s", c.args, out)
		}
	}
}

// TestMissingInputFile: an input file that does not exist is a usage
// error (exit 2, as -k @missing.json is) whose message names the flag and
// the path, for every flag that names an input file and every command
// that takes one; the message is written by hand from that rule:
// "--FLAG VALUE: no such file or directory" (the operating system's
// ENOENT text), or "no files match this pattern" for a --log glob.
func TestMissingInputFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.log")
	pgbench := filepath.Join("testdata", "pgbench", "pgbench-tpcb-s4.log")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"advise", "--log", missing}, "--log " + missing + ": no such file or directory"},
		{[]string{"advise", "--log", filepath.Join(dir, "postgresql-*.log")}, "--log " + filepath.Join(dir, "postgresql-*.log") + ": no files match this pattern"},
		{[]string{"advise", "--rows", "users=" + missing}, "--rows users=" + missing + ": no such file or directory"},
		{[]string{"advise", "--queries", missing}, "--queries " + missing + ": no such file or directory"},
		{[]string{"advise", "--txns", missing}, "--txns " + missing + ": no such file or directory"},
		{[]string{"advise", "--workload", missing}, "--workload " + missing + ": no such file or directory"},
		{[]string{"score", "--log", pgbench, "--schema", missing, "-k", "hash(aid)"}, "--schema " + missing + ": no such file or directory"},
		{[]string{"score", "--log", pgbench, "--log", missing, "-k", "hash(aid)"}, "--log " + missing + ": no such file or directory"},
		{[]string{"explain", "--schema", missing, "-k", "hash(id)", "SELECT * FROM t WHERE id = 1"}, "--schema " + missing + ": no such file or directory"},
		{[]string{"explain", "--log", missing, "-k", "hash(id)", "SELECT * FROM t WHERE id = 1"}, "--log " + missing + ": no such file or directory"},
		{[]string{"watch", "--log", missing, "-k", "hash(aid)"}, "--log " + missing + ": no such file or directory"},
		{[]string{"watch", "--log", pgbench, "-k", "hash(aid)", "--slots", "8", "--nodes", "2", "--slot-map", missing}, "--slot-map " + missing + ": no such file or directory"},
		{[]string{"score", "--log", pgbench, "-k", "hash(aid)", "--slots", "8", "--nodes", "2", "--slot-map", missing}, "--slot-map " + missing + ": no such file or directory"},
	} {
		code, _, errs := runCmd(t, "", c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.args, code, errs, c.want)
		}
	}
	// The same missing file for -k @FILE, for comparison: exit 2 as well.
	if code, _, errs := runCmd(t, "", "score", "--log", pgbench, "-k", "@"+missing); code != 2 || !strings.Contains(errs, missing) {
		t.Errorf("-k @missing: exit %d, stderr %q", code, errs)
	}
}

// TestEndlessLineMessage: a file of one endless line (/dev/zero) gives
// one message whichever flag reads it: the file and line once (--rows
// said "/dev/zero: /dev/zero:1: ...") and the bound in MiB, as
// shardkey.MaxLineBytes is documented (--queries and --txns said
// "67108864 bytes"). 64 MiB = 64 << 20 = 67108864.
func TestEndlessLineMessage(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	want := "shardkey advise: /dev/zero:1: line longer than 64 MiB (a binary or NUL-filled file?)\n"
	for _, flag := range []string{"--rows", "--queries", "--txns"} {
		code, _, errs := runCmd(t, "", "advise", flag, "/dev/zero")
		if code != 1 || errs != want {
			t.Errorf("%s /dev/zero: exit %d, stderr %q; want exit 1 and %q", flag, code, errs, want)
		}
	}
}
