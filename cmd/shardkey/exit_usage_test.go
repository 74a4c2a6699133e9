package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUsageErrorsNamed: README's exit status: 2 for a usage error, an
// input file that does not exist among them, 1 for bad input with
// FILE:LINE. A directory file the key names that does not exist is the
// first (named); --nodes 0 with --slots says what --nodes must be; a
// --workload file that is not UTF-8 is bad input named by file and line
// (the YAML decoder alone says "invalid leading UTF-8 octet").
func TestUsageErrorsNamed(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "garbage.bin")
	// "name: x\n" then 0xff on line 2, byte offset 8.
	if err := os.WriteFile(bin, []byte("name: x\n\xff\xfe\x00\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"score", "-k", "directory(user_id, /nonexistent.csv)"}, 2, []string{"/nonexistent.csv", "does not exist"}},
		// A directory where the key names its file: exit 2 as for one
		// that does not exist, naming the key and the path (it was exit
		// 1 with "DIR:1: read DIR: is a directory", a line the path has not).
		{[]string{"score", "-k", "directory(user_id, " + dir + ")"}, 2, []string{"shardkey score: -k: key \"directory(user_id, " + dir + ")\": table posts: directory file " + dir + " is a directory; give a file of value,shard lines\n"}},
		{[]string{"score", "--slots", "16384", "--nodes", "0", "-k", "hash(user_id)"}, 2, []string{"--nodes 0: must be at least 1"}},
		{[]string{"advise", "--workload", bin}, 1, []string{bin + ":2:", "not UTF-8", "byte offset 8", "YAML"}},
		// citus(shard_count=S) gives the slots; --shards then counts
		// the nodes, as --nodes does (advise.txtar: --nodes alone runs).
		{[]string{"score", "--engine", "citus(shard_count=32)", "--nodes", "4", "--shards", "4", "-k", "hash(user_id)"}, 2, []string{"--shards 4 and --nodes 4 with --engine citus(shard_count=32): both count the nodes"}},
		{[]string{"score", "--engine", "citus", "--nodes", "4", "-k", "hash(user_id)"}, 2, []string{"--nodes 4 needs the shards placed on the nodes: give them with --engine 'citus(shard_count=S)' or --slots S"}},
		// --capacity 0 silently dropped social.yaml's capacity of 1,000
		// (no "over capacity" anywhere); a shard that can do no work is
		// no capacity: a usage error, as a negative one was.
		{[]string{"score", "--capacity", "0", "-k", "hash(user_id)"}, 2, []string{"--capacity 0: must be a finite number > 0 (units of work/s one shard can do)"}},
		{[]string{"score", "--capacity", "-5", "-k", "hash(user_id)"}, 2, []string{"--capacity -5: must be a finite number > 0"}},
	} {
		args := tc.args
		if args[0] == "score" {
			args = append([]string{"score", "--workload", "../../scenario/builtin/social.yaml"}, args[1:]...)
		}
		code, _, errs := runCmd(t, "", args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d: %s", args, code, tc.code, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%v: %q does not say %q", args, errs, w)
			}
		}
	}
}

// TestDirectoryGivenAsFile: a directory where a flag wants a file is a
// usage error (exit 2, as for a file that does not exist: README's exit
// status) naming the flag and the path, before anything is read; it was
// exit 1 with "read DIR: is a directory", naming no flag. --log takes a
// directory (rotated files read in time order): an empty one (or one of
// dot files and subdirectories only) holds no log, a usage error naming
// it (exit 2; it was exit 1, the reader's "no log files").
func TestDirectoryGivenAsFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".hidden.log"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"advise", "--workload", dir}, 2, "shardkey advise: --workload " + dir + ": is a directory; give a file\n"},
		{[]string{"score", "--workload", dir, "-k", "hash(a)"}, 2, "shardkey score: --workload " + dir + ": is a directory; give a file\n"},
		{[]string{"advise", "--queries", dir}, 2, "shardkey advise: --queries " + dir + ": is a directory; give a file\n"},
		{[]string{"advise", "--rows", "t=" + dir}, 2, "shardkey advise: --rows t=" + dir + ": is a directory; give a file\n"},
		{[]string{"advise", "--log", dir}, 2, "shardkey advise: --log " + dir + ": a directory with no log files in it"},
		{[]string{"score", "--log", dir, "-k", "hash(a)"}, 2, "shardkey score: --log " + dir + ": a directory with no log files in it"},
		{[]string{"watch", "--log", dir, "-k", "hash(a)"}, 2, "shardkey watch: --log " + dir + ": a directory with no log files in it"},
	} {
		code, _, errs := runCmd(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

// TestEmptyLogs: a --log that holds nothing to read is a usage error
// (exit 2) whether it is an empty file (it was exit 1, "FILE:1: empty
// log"), standard input with nothing on it, or a directory whose files
// are all empty, as a directory with no file is; an empty file beside a
// log in a directory (one just rotated in) is passed over. A symbolic
// link to nothing in a directory is named with its target (it was exit 1
// with "stat DIR/a.log: no such file or directory"), as a --log file
// that does not exist is (exit 2).
func TestEmptyLogs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stmt := "2024-03-01 00:00:00.000 UTC [1] LOG:  statement: SELECT * FROM t WHERE id = 1\n"
	empty := write("empty.log", "")
	write("allempty/a.log", "")
	write("allempty/b.log", "")
	write("mixed/a.log", stmt)
	write("mixed/b.log", "")
	write("dangle/b.log", stmt)
	link := filepath.Join(dir, "dangle", "a.log")
	if err := os.Symlink(filepath.Join(dir, "gone.log"), link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		stdin string
		code  int
		want  string
	}{
		{[]string{"advise", "--log", empty}, "", 2, "shardkey advise: --log " + empty + ": an empty file: no statement to read\n"},
		{[]string{"advise", "--log", "-"}, "\n", 2, "shardkey advise: standard input: an empty log (no lines but blank ones): no statement to read\n"},
		{[]string{"advise", "--log", filepath.Join(dir, "allempty")}, "", 2, "shardkey advise: --log " + dir + "/allempty: a directory whose 2 log file(s) are all empty: no statement to read\n"},
		{[]string{"advise", "--log", filepath.Join(dir, "allempty", "*")}, "", 2, "shardkey advise: " + dir + "/allempty/*: its 2 log file(s) are all empty: no statement to read\n"},
		{[]string{"score", "--log", filepath.Join(dir, "mixed"), "-k", "hash(id)"}, "", 0, ""},
		{[]string{"advise", "--log", filepath.Join(dir, "dangle")}, "", 2, "shardkey advise: --log " + dir + "/dangle: " + link + " is a symbolic link to " + dir + "/gone.log, which does not exist"},
		{[]string{"advise", "--log", filepath.Join(dir, "dangle", "*.log")}, "", 2, "shardkey advise: " + link + ": a symbolic link to " + dir + "/gone.log, which cannot be opened (no such file or directory)"},
	} {
		code, _, errs := runCmd(t, tc.stdin, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

// TestScoreBuiltinName: score takes a built-in scenario's name as advise
// does (exit 0; score.txtar compares its report with the spec file's); a
// name that is none, and --workload NAME, are usage errors (exit 2)
// saying how to name one.
func TestScoreBuiltinName(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"score", "workspace", "-k", "hash(workspace_id)"}, 0, ""},
		{[]string{"score", "nosuch", "-k", "hash(workspace_id)"}, 2, "a built-in scenario is one of chat, orders, social, workspace"},
		{[]string{"advise", "--workload", "workspace"}, 2, "the built-in scenario workspace is named without --workload"},
	} {
		code, _, errs := runCmd(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

// TestRedisSlotsFixed: Redis Cluster has 16384 hash slots in every
// cluster (a key's slot is CRC16(key) mod 16384, cluster.c keyHashSlot),
// so --slots with --engine redis is 16384 or a usage error (exit 2) saying
// so, for score, advise and watch; --nodes alone places the 16384 slots
// on that many masters (as --slots 16384 --nodes 3 does); a spec's
// shards: 64 with nodes: 4 under redis is the spec's error (exit 1).
func TestRedisSlotsFixed(t *testing.T) {
	social := "../../scenario/builtin/social.yaml"
	log := "../../watch/testdata/pgbench-celebrity.log.gz"
	spec := writeFile(t, "s.yaml", func() string {
		b, err := os.ReadFile(social)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Replace(string(b), "\nshards: 8\n", "\nshards: 64\nnodes: 4\n", 1)
	}())
	const why = "Redis Cluster always has 16384 hash slots (a key's slot is CRC16(key) mod 16384, cluster.c keyHashSlot)"
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"advise", "social", "--engine", "redis", "--slots", "100", "--nodes", "3"}, 2, "--slots 100 with --engine redis: " + why + "; give --slots 16384, and the masters with --nodes"},
		{[]string{"score", "--workload", social, "-k", "hash(user_id)", "--engine", "redis", "--slots", "64", "--nodes", "4"}, 2, "--slots 64 with --engine redis: " + why},
		{[]string{"score", "--workload", social, "-k", "hash(user_id)", "--engine", "redis", "--slots", "64"}, 2, "--slots 64 with --engine redis"},
		{[]string{"watch", "--log", log, "-k", "hash(aid)", "--engine", "redis", "--slots", "8", "--nodes", "2"}, 2, "--slots 8 with --engine redis: " + why},
		{[]string{"score", "--workload", spec, "-k", "hash(user_id)", "--engine", "redis"}, 1, "shards: 64 with nodes: 4 under --engine redis: " + why},
		{[]string{"score", "--workload", social, "-k", "hash(user_id)", "--engine", "redis", "--nodes", "3", "--shards", "3"}, 2, "--shards 3 and --nodes 3 with --engine redis: both count the masters"},
		{[]string{"score", "--workload", social, "-k", "hash(user_id)", "--engine", "redis", "--slots", "16384", "--nodes", "3"}, 0, ""},
	} {
		code, _, errs := runCmd(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
	// --nodes 3 alone is --slots 16384 --nodes 3.
	a := runJSON(t, "score", "--workload", social, "-k", "hash(user_id)", "--engine", "redis", "--nodes", "3")
	b := runJSON(t, "score", "--workload", social, "-k", "hash(user_id)", "--engine", "redis", "--slots", "16384", "--nodes", "3")
	if a.Shards != 16384 || b.Shards != 16384 || a.Candidates[0].Nodes == nil || b.Candidates[0].Nodes == nil ||
		fmt.Sprint(a.Candidates[0].Nodes.NodeWork) != fmt.Sprint(b.Candidates[0].Nodes.NodeWork) {
		t.Errorf("redis --nodes 3: shards %d, nodes %+v; want 16384 and --slots 16384 --nodes 3's %+v", a.Shards, a.Candidates[0].Nodes, b.Candidates[0].Nodes)
	}
}

// TestNoCandidatesUsage: a log whose statements filter on no column (a
// count of a whole table) gives advise nothing to draw keys from: README's
// exit status counts that a usage error (exit 2, "add --log or --queries,
// or name keys with -k"), as it is for a log with no statements; it was
// exit 1.
func TestNoCandidatesUsage(t *testing.T) {
	log := writeFile(t, "scan.log", "2026-12-01 10:00:00.000 UTC [1001] app@shop LOG:  statement: SELECT count(*) FROM orders;\n"+
		"2026-12-01 10:00:01.000 UTC [1002] app@shop LOG:  statement: SELECT count(*) FROM orders;\n")
	code, _, errs := runCmd(t, "", "advise", "--log", log)
	if want := "shardkey advise: no candidate keys: no operation filters on a column by equality or range; name keys with -k\n"; code != 2 || errs != want {
		t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errs, want)
	}
}
