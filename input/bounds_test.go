package input_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/input"
)

// TestRowFileBound: a row file larger than shardkey.MaxRowFileBytes is
// refused before it is read (a sparse file: nothing is written), with the
// way to sample it; /dev/zero, a stream, stops at its first line's bound.
func TestRowFileBound(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"big.csv", "big.tsv", "big.jsonl", "big.parquet"} {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, []byte("id\n1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(file, shardkey.MaxRowFileBytes+1); err != nil {
			t.Fatal(err)
		}
		_, err := input.ReadRows(file, "t", input.Options{})
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "at most 256 MiB") || !strings.Contains(err.Error(), "sample") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if testing.Short() {
		return
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := input.ReadRows("/dev/zero", "t", input.Options{})
		if err == nil || !strings.Contains(err.Error(), "/dev/zero") || !strings.Contains(err.Error(), "longer than") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
}
