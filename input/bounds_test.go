package input_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/input"
)

// TestRowFileBound: a row file larger than shardkey.MaxRowFileBytes is not
// read whole into memory: it is read record by record, so a (sparse) file
// of NUL bytes past its first line stops at the line bound instead of
// allocating the file; /dev/zero, a stream, stops at the same bound.
func TestRowFileBound(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB")
	}
	dir := t.TempDir()
	for _, name := range []string{"big.csv", "big.tsv", "big.jsonl"} {
		file := filepath.Join(dir, name)
		head := "id\n1\n"
		if strings.HasSuffix(name, ".jsonl") {
			head = "{\"id\": 1}\n{\"id\": 2}\n"
		}
		if err := os.WriteFile(file, []byte(head), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(file, shardkey.MaxRowFileBytes+1); err != nil {
			t.Fatal(err)
		}
		_, err := input.ReadRows(file, "t", input.Options{})
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "longer than") {
			t.Errorf("%s: %v; want the line bound", name, err)
		}
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := input.ReadRows("/dev/zero", "t", input.Options{})
		if err == nil || !strings.Contains(err.Error(), "/dev/zero") || !strings.Contains(err.Error(), "longer than") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
}
