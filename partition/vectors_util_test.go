package partition

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// vectorsDir returns the directory of the ground-truth vectors: the
// repository's own copy in testdata/vectors (taken from the systems' own
// test suites; testdata/vectors/README.md gives each file's source), or
// $SHARDKEY_VECTORS when set, so that a newer or held-back set can be
// checked with the same tests. It fails the test when the directory is
// missing: vectors are the only check of bit-exact placement, so a missing
// directory must not pass as a skip.
func vectorsDir(t testing.TB) string {
	t.Helper()
	d := os.Getenv("SHARDKEY_VECTORS")
	if d == "" {
		d = filepath.Join("testdata", "vectors")
	}
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		t.Fatalf("vectors directory %q is not a directory (set SHARDKEY_VECTORS to override testdata/vectors)", d)
	}
	return d
}

// vectorFile is one shared/vectors/*.json file; vectors keep their JSON
// numbers as json.Number so 64-bit values stay exact.
type vectorFile struct {
	System    string           `json:"system"`
	Algorithm string           `json:"algorithm"`
	Vectors   []map[string]any `json:"vectors"`
}

// loadVectors reads vectors file name (e.g. "redis_cluster.json") from
// vectorsDir, failing the test if it is missing, malformed or empty.
func loadVectors(t testing.TB, name string) vectorFile {
	t.Helper()
	path := filepath.Join(vectorsDir(t), name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading vectors: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var f vectorFile
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(f.Vectors) == 0 {
		t.Fatalf("%s: no vectors", path)
	}
	return f
}
