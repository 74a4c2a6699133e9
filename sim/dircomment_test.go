package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestDirectoryComments: a directory file may open with "# ..." comment
// lines (advisor.WriteDirectory's note on what its shard column is, with
// slots over nodes); they are skipped, the header after them too, and an
// error further down names its line in the file as written. A value that
// starts with '#' but no space ("#redis") is a value, as before.
func TestDirectoryComments(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f := write("c.csv", "# w_id,shard: the shard column is a stand-in slot\n#   1: slot 9842 -> node 2\n#\nw_id,shard\n1,4096\n2,6144\n")
	m, err := readDirectory(f, "", shardkey.Int64, 16384)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 2 || m[shardkey.IntValue(1)] != 4096 || m[shardkey.IntValue(2)] != 6144 {
		t.Errorf("got %v; want 1 -> 4096, 2 -> 6144", m)
	}
	// Line 6 of the file (3 comments, the header, 1,4096) is the bad one.
	f = write("bad.csv", "# note\n# more\n#\nw_id,shard\n1,4096\n2,x\n")
	if _, err := readDirectory(f, "", shardkey.Int64, 16384); err == nil || !strings.Contains(err.Error(), ":6:") {
		t.Errorf("error %v; want one naming line 6", err)
	}
	f = write("tag.csv", "#redis,3\n#db,1\n")
	m, err = readDirectory(f, "", shardkey.Text, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 2 || m[shardkey.TextValue("#redis")] != 3 || m[shardkey.TextValue("#db")] != 1 {
		t.Errorf("got %v; want #redis -> 3, #db -> 1", m)
	}
}
