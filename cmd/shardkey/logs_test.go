package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogInputs: --log - reads standard input and gives the advice the
// file gives; a truncated .gz is exit 1 with an error naming the file,
// not a partial report with exit 0; stderr (a buffer, not a terminal)
// carries no progress bar.
func TestLogInputs(t *testing.T) {
	file := "../../sqllog/testdata/mariadb-general.log"
	plain, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	code, want, errs := runCmd(t, "", "advise", "--log", file, "--format", "json")
	if code != 0 {
		t.Fatalf("advise --log %s: exit %d: %s", file, code, errs)
	}
	code, got, errs := runCmd(t, string(plain), "advise", "--log", "-", "--format", "json")
	if code != 0 {
		t.Fatalf("advise --log -: exit %d: %s", code, errs)
	}
	// The workload's name is the --log value: "-" instead of the path.
	got = strings.ReplaceAll(got, `"workload": "-"`, `"workload": "`+file+`"`)
	if strings.ReplaceAll(got, "standard input", file) != want {
		t.Errorf("--log - differs from --log %s", file)
	}
	if strings.Contains(errs, "reading") {
		t.Errorf("progress written to a stderr that is not a terminal: %q", errs)
	}

	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	z.Write(bytes.Repeat(plain, 20))
	z.Close()
	cut := filepath.Join(t.TempDir(), "general.log.gz")
	if err := os.WriteFile(cut, buf.Bytes()[:buf.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "", "advise", "--log", cut, "--format", "json")
	if code != 1 || out != "" || !strings.Contains(errs, cut) || !strings.Contains(errs, "truncated") {
		t.Errorf("truncated .gz: exit %d, %d bytes of output, stderr %q; want exit 1, no output, an error naming the file", code, len(out), errs)
	}
}
