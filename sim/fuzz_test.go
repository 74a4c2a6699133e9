package sim

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/scenario"
)

// FuzzDirectory reads arbitrary text as a directory file (value,shard
// lines): never a panic, every error names the file, and what it returns
// maps values to shards in range.
func FuzzDirectory(f *testing.F) {
	for _, s := range []string{"value,shard\n1,0\n2,3\n", "1,0\n1,1\n", "x,9\n", "\"a\nb\",1\n", "7, 2\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		file := filepath.Join(t.TempDir(), "dir.csv")
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, typ := range []shardkey.Type{shardkey.Int64, shardkey.Text} {
			m, err := readDirectory(file, "", typ, 4)
			if err != nil {
				if !strings.Contains(err.Error(), "dir.csv") {
					t.Fatalf("error does not name the file: %v", err)
				}
				continue
			}
			for v, sh := range m {
				if sh < 0 || sh >= 4 {
					t.Fatalf("%v -> shard %d of 4", v, sh)
				}
			}
		}
	})
}

// fuzzSpec is a small workload, so each key compiles and runs in about a
// millisecond: two tables, a child inheriting its parent's key.
const fuzzSpec = `name: fuzz
shards: 4
tables:
  - name: users
    rows: 200
    columns: [{name: id, gen: sequential}, {name: region, gen: uniform, distinct: 5}, {name: at, gen: time}]
  - name: posts
    parent: users
    per_parent: 1-3
    columns: [{name: post_id, gen: sequential}, {name: tag, gen: zipf, distinct: 20, s: 1, prefix: t}]
operations:
  - {name: by user, table: posts, rate: 10, where: {id: "?"}}
  - {name: by tag, table: posts, rate: 5, where: {tag: "?"}}
  - {name: recent, table: users, rate: 1, where: {at: recent}}
  - {name: post, table: posts, kind: insert, rate: 3}
transactions:
  - {name: t, rate: 1, steps: [{table: posts, kind: insert, repeat: 1-2}, {table: users, kind: update, where: {id: "?"}}]}
`

// FuzzCompileKey compiles arbitrary keys and designs against a workload
// and scores them: never a panic; a key that compiles scores to finite,
// non-negative per-shard work. Keys that read files (directory) are left
// out (FuzzDirectory reads those).
func FuzzCompileKey(f *testing.F) {
	spec, err := scenario.Parse([]byte(fuzzSpec), "fuzz.yaml")
	if err != nil {
		f.Fatal(err)
	}
	w, err := scenario.Build(spec, "")
	if err != nil {
		f.Fatal(err)
	}
	for _, k := range []string{"hash(id)", "hash(region, id)", "range(at)", "posts:hash(tag); users:hash(id)", "salt(hash(id), 4, top=1)",
		"isolate(hash(region), top=2)", "range(id, 50, 100)", "users:replicate; hash(id)", "hash(nosuch)",
		"salt(hash(region), 2, top=1, by=id)", "isolate(hash(region), top=1, split=id, over=2)", "salt(hash(id), 2, top=1, by=tag)"} {
		f.Add(k, uint8(4))
	}
	f.Fuzz(func(t *testing.T, key string, shards uint8) {
		if strings.Contains(strings.ToLower(key), "directory") {
			return
		}
		d, err := shardkey.ParseDesign(key)
		if err != nil {
			return
		}
		n := int(shards)%64 + 1
		s, err := Compile(w, d, Options{Shards: n, Workers: 1})
		if err != nil {
			return
		}
		p, err := Run(w, s, 1)
		if err != nil {
			return
		}
		c := s.Report(p)
		if len(c.ShardWork) != n {
			t.Fatalf("%q: %d shards of work, want %d", key, len(c.ShardWork), n)
		}
		for i, x := range c.ShardWork {
			if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("%q: shard %d work %v", key, i, x)
			}
		}
	})
}
