package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStdinNamed: a log read from standard input (--log -) is named
// "standard input" in the advice's title, as its warnings name it
// (fresh-clone review: the title said "-: advice for 8 shards").
func TestStdinNamed(t *testing.T) {
	log, err := os.ReadFile(filepath.Join("..", "..", "sqllog", "testdata", "pg-stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, string(log), "advise", "--log", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.HasPrefix(out, "standard input: advice for ") {
		t.Errorf("title %q; want it to name standard input", strings.SplitN(out, "\n", 2)[0])
	}
	if !strings.Contains(errs, "warning: standard input:") {
		t.Errorf("warnings do not name standard input: %s", errs)
	}
}
