package partition

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// vectorsDir returns the directory of the shared ground-truth vectors
// (shared/vectors, see its README.md). It honours $SHARDKEY_VECTORS, else
// walks up from the working directory looking for shared/vectors in each
// ancestor or beside it, so it finds /work/shared/vectors from
// /work/main/partition and a CI clone's sibling shared/ alike. It fails the
// test when none is found: vectors are the only check of bit-exact
// placement, so a missing directory must not pass as a skip.
func vectorsDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("SHARDKEY_VECTORS"); d != "" {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			t.Fatalf("SHARDKEY_VECTORS=%q is not a directory", d)
		}
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("finding vectors: %v", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		c := filepath.Join(d, "shared", "vectors")
		if fi, err := os.Stat(c); err == nil && fi.IsDir() {
			return c
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	t.Fatalf("shared/vectors not found in any parent of %s; set SHARDKEY_VECTORS to the vectors directory", wd)
	return ""
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
