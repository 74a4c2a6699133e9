package partition

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// vectorChecker checks every vector of one shared/vectors file against the
// engines, failing on any input_encoding or output_kind it does not
// understand (the one documented exception: YugabyteDB enum columns, whose
// encoding the vectors do not derive, are logged and skipped).
type vectorChecker func(t *testing.T, file string)

// vectorCheckers names the checker of each vectors file. A file in the
// directory that is not listed here fails TestAllVectorFilesChecked, so a
// new system's vectors cannot go unchecked.
var vectorCheckers = map[string]vectorChecker{
	"cassandra_murmur3.json":         checkCassandraVectors,
	"citus_hash_distribution.json":   checkCitusVectors,
	"elasticsearch_routing.json":     checkElasticsearchVectors,
	"jump_consistent_hash.json":      checkJumpVectors,
	"kafka_default_partitioner.json": checkKafkaVectors,
	"ketama_libmemcached.json":       checkKetamaVectors,
	"mongodb_hashed.json":            checkMongoDBVectors,
	"postgresql_hash.json":           checkPostgresVectors,
	"redis_cluster.json":             checkRedisVectors,
	"vitess_vindexes.json":           checkVitessVectors,
	"yugabytedb_yb_hash_code.json":   checkYugabyteVectors,
}

// TestAllVectorFilesChecked lists every *.json file in the vectors
// directory and runs its checker as a subtest (go test -run
// 'TestAllVectorFilesChecked/redis_cluster.json'). It fails for a file with
// no checker and for a listed file that is missing. A file under another
// name (held-back vectors, say) whose "system" is the same as a listed
// file's is checked by that file's checker: same system, same kinds.
func TestAllVectorFilesChecked(t *testing.T) {
	dir := vectorsDir(t)
	files, checks, problems := resolveVectorCheckers(t, dir)
	for _, p := range problems {
		t.Error(p)
	}
	for i, name := range files {
		t.Run(name, func(t *testing.T) { checks[i](t, name) })
	}
}

// resolveVectorCheckers returns the *.json files of dir, sorted, with the
// checker of each, and a problem for each file with no checker and each
// vectorCheckers entry missing from dir.
func resolveVectorCheckers(t *testing.T, dir string) (files []string, checks []vectorChecker, problems []string) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	bySystem := map[string]vectorChecker{}
	for name, check := range vectorCheckers {
		if sys := vectorSystem(t, filepath.Join(dir, name)); sys != "" {
			bySystem[sys] = check
		}
	}
	seen := map[string]bool{}
	for _, p := range paths {
		name := filepath.Base(p)
		seen[name] = true
		check, ok := vectorCheckers[name]
		if !ok {
			sys := vectorSystem(t, p)
			if check, ok = bySystem[sys]; !ok || sys == "" {
				problems = append(problems, fmt.Sprintf("%s (system %q): no checker in vectorCheckers", name, sys))
				continue
			}
		}
		files, checks = append(files, name), append(checks, check)
	}
	var missing []string
	for name := range vectorCheckers {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		problems = append(problems, fmt.Sprintf("%s: listed in vectorCheckers but not in %s", name, dir))
	}
	return files, checks, problems
}

// TestResolveVectorCheckers checks the meta test itself: a file of an
// unknown system has no checker, a renamed file of a known system gets that
// system's checker, and a listed file that is gone is reported.
func TestResolveVectorCheckers(t *testing.T) {
	src := vectorsDir(t)
	dir := t.TempDir()
	for name := range vectorCheckers {
		if name == "jump_consistent_hash.json" {
			continue // reported missing
		}
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if name == "redis_cluster.json" {
			if err := os.WriteFile(filepath.Join(dir, "redis_heldback.json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "newdb.json"), []byte(`{"system": "NewDB", "vectors": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	files, _, problems := resolveVectorCheckers(t, dir)
	if !contains(files, "redis_heldback.json") || contains(files, "newdb.json") || len(files) != len(vectorCheckers) {
		t.Errorf("checked files %v; want every listed file but jump's, plus redis_heldback.json", files)
	}
	want := []string{
		`newdb.json (system "NewDB"): no checker in vectorCheckers`,
		"jump_consistent_hash.json: listed in vectorCheckers but not in " + dir,
	}
	if strings.Join(problems, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
}

// vectorSystem returns the "system" field of the vectors file at path, or
// "" if the file is absent.
func vectorSystem(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		System string `json:"system"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return strings.TrimSpace(f.System)
}
