package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestDirectoryBounds: a directory file without line ends (/dev/zero)
// stops at its first line's bound, and one with more entries than
// shardkey.MaxDirectoryEntries is refused at the entry past it; both name
// the file and line.
func TestDirectoryBounds(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := readDirectory("/dev/zero", "", shardkey.Int64, 8)
		if err == nil || !strings.Contains(err.Error(), "/dev/zero:1: line longer than 1 MiB") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	if testing.Short() {
		return
	}
	var b strings.Builder
	for i := range shardkey.MaxDirectoryEntries + 1 {
		fmt.Fprintf(&b, "%d,%d\n", i, i%8)
	}
	file := filepath.Join(t.TempDir(), "dir.csv")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := readDirectory(file, "", shardkey.Int64, 8)
	if want := fmt.Sprintf("dir.csv:%d: more than %d entries", shardkey.MaxDirectoryEntries+1, shardkey.MaxDirectoryEntries); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("too many entries: %v, want %q", err, want)
	}
}
