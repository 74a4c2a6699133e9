package input

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestUnmapReleases: unmap returns before the mapping is released (a
// goroutine releases it, off the reader's path), and the release does
// happen: after waitUnmapped no mapping of the files is left in the
// process's maps (Linux's /proc/self/maps), for several files mapped and
// released one after another, as score reads its row file and statement
// files.
func TestUnmapReleases(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/maps")
	}
	dir := t.TempDir()
	var names []string
	for i, size := range []int{1, 4096, 1 << 20, 3<<20 + 5} {
		name := filepath.Join(dir, "m"+string(rune('a'+i))+".jsonl")
		if err := os.WriteFile(name, []byte(strings.Repeat("x", size)), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	mapped := func() []string {
		b, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			t.Fatal(err)
		}
		var in []string
		for _, n := range names {
			if strings.Contains(string(b), n) {
				in = append(in, n)
			}
		}
		return in
	}
	for _, n := range names {
		f, err := os.Open(n)
		if err != nil {
			t.Fatal(err)
		}
		data, unmap := mapFile(f)
		f.Close()
		if data == nil {
			t.Fatalf("%s: not mapped", n)
		}
		if got := mapped(); len(got) == 0 || got[len(got)-1] != n {
			t.Fatalf("%s: not in the process's maps (%v)", n, got)
		}
		if data[len(data)-1] != 'x' {
			t.Fatalf("%s: last byte %q", n, data[len(data)-1])
		}
		unmap()
	}
	waitUnmapped()
	if got := mapped(); len(got) > 0 {
		t.Errorf("still mapped after waitUnmapped: %v", got)
	}
}
