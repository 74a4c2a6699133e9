package sim

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadNodes: a slot map file never panics, and a map it accepts
// assigns every slot to a node in 0..Count-1, each node holding a slot.
func FuzzReadNodes(f *testing.F) {
	f.Add("0-3 1\n4,0\n5 0 # last\n")
	f.Add("# none\n")
	f.Add("0-5 0\n3 1\n")
	f.Add("5-0 1\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		p := filepath.Join(dir, "map.txt")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadNodes(p, 6)
		if err != nil {
			return
		}
		held := make([]bool, m.Count)
		for s, n := range m.Node {
			if n < 0 || n >= m.Count {
				t.Fatalf("slot %d on node %d of %d", s, n, m.Count)
			}
			held[n] = true
		}
		for n, ok := range held {
			if !ok {
				t.Fatalf("node %d holds no slot", n)
			}
		}
	})
}
