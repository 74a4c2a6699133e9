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
