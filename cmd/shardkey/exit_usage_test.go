package main

import (
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
		{[]string{"score", "--slots", "16384", "--nodes", "0", "-k", "hash(user_id)"}, 2, []string{"--nodes 0: must be at least 1"}},
		{[]string{"advise", "--workload", bin}, 1, []string{bin + ":2:", "not UTF-8", "byte offset 8", "YAML"}},
		// citus(shard_count=S) gives the slots; --shards then counts
		// the nodes, as --nodes does (advise.txtar: --nodes alone runs).
		{[]string{"score", "--engine", "citus(shard_count=32)", "--nodes", "4", "--shards", "4", "-k", "hash(user_id)"}, 2, []string{"--shards 4 and --nodes 4 with --engine citus(shard_count=32): both count the nodes"}},
		{[]string{"score", "--engine", "citus", "--nodes", "4", "-k", "hash(user_id)"}, 2, []string{"--nodes 4 needs the shards placed on the nodes: give them with --engine 'citus(shard_count=S)' or --slots S"}},
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
// directory (rotated files read in time order): an empty one is still
// the reader's input error.
func TestDirectoryGivenAsFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"advise", "--workload", dir}, 2, "shardkey advise: --workload " + dir + ": is a directory; give a file\n"},
		{[]string{"score", "--workload", dir, "-k", "hash(a)"}, 2, "shardkey score: --workload " + dir + ": is a directory; give a file\n"},
		{[]string{"advise", "--queries", dir}, 2, "shardkey advise: --queries " + dir + ": is a directory; give a file\n"},
		{[]string{"advise", "--rows", "t=" + dir}, 2, "shardkey advise: --rows t=" + dir + ": is a directory; give a file\n"},
		{[]string{"advise", "--log", dir}, 1, "no log files in this directory"},
	} {
		code, _, errs := runCmd(t, "", tc.args...)
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
