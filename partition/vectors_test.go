package partition

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// vec wraps one vector with typed accessors that fail the test on a
// missing or mistyped field.
type vec struct {
	t *testing.T
	i int
	m map[string]any
}

func (v vec) where() string { return fmt.Sprintf("vector %d (input %v)", v.i, v.m["input"]) }

func (v vec) has(k string) bool { _, ok := v.m[k]; return ok }

// wantKind fails the test unless the vector's output_kind is kind, so a
// vector of a kind the checker does not understand is never passed over.
func (v vec) wantKind(kind string) {
	v.t.Helper()
	if k := v.str("output_kind"); k != kind {
		v.t.Fatalf("%s: unknown output_kind %q (this checker knows %q)", v.where(), k, kind)
	}
}

func (v vec) str(k string) string {
	v.t.Helper()
	s, ok := v.m[k].(string)
	if !ok {
		v.t.Fatalf("%s: field %q is %T, want string", v.where(), k, v.m[k])
	}
	return s
}

// opt returns string field k, or "" when it is absent or not a string
// (for optional fields).
func (v vec) opt(k string) string {
	s, _ := v.m[k].(string)
	return s
}

// int64 returns number field k (an int64, or a uint64's bits), failing
// the test when it is missing.
func (v vec) int64(k string) int64 {
	v.t.Helper()
	if !v.has(k) {
		v.t.Fatalf("%s: no field %q", v.where(), k)
	}
	return jsonInt(v.t, v.m[k])
}

// counts returns a "<n>": int map field (partitions or chunk indices by
// count), sorted by count.
func (v vec) counts(k string) [][2]int {
	v.t.Helper()
	m, ok := v.m[k].(map[string]any)
	if !ok {
		v.t.Fatalf("%s: field %q is %T, want object", v.where(), k, v.m[k])
	}
	var out [][2]int
	for ks, x := range m {
		n, err := strconv.Atoi(ks)
		if err != nil {
			v.t.Fatalf("%s: %s key %q: %v", v.where(), k, ks, err)
		}
		out = append(out, [2]int{n, int(jsonInt(v.t, x))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

func eachVec(t *testing.T, f vectorFile, fn func(v vec)) {
	for i, m := range f.Vectors {
		fn(vec{t, i, m})
	}
}

func decodeHex(t *testing.T, s string) string {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil {
		t.Fatalf("hex %q: %v", s, err)
	}
	return string(b)
}

func bytesValue(raw string) shardkey.Value { return shardkey.Value{Type: shardkey.Bytes, Str: raw} }

func mustLayout(t testing.TB, e Engine, n int) Layout {
	t.Helper()
	l, err := e.Layout(n)
	if err != nil {
		t.Fatalf("%s.Layout(%d): %v", e.Name(), n, err)
	}
	return l
}

func jsonInt(t *testing.T, x any) int64 {
	t.Helper()
	n, ok := x.(json.Number)
	if !ok {
		t.Fatalf("%v (%T) is not a number", x, x)
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i
	}
	u, err := strconv.ParseUint(string(n), 10, 64)
	if err != nil {
		t.Fatalf("%v is not a 64-bit integer", n)
	}
	return int64(u)
}

func jsonFloat(t *testing.T, x any) float64 {
	t.Helper()
	n, ok := x.(json.Number)
	if !ok {
		t.Fatalf("%v (%T) is not a number", x, x)
	}
	f, err := n.Float64()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// perShardCount returns a {"4": 1, "16": 7} field as sorted (n, want)
// pairs.
func perShardCount(t *testing.T, x any) [][2]int64 {
	t.Helper()
	m, _ := x.(map[string]any)
	var out [][2]int64
	for k, w := range m {
		n, err := strconv.Atoi(k)
		if err != nil {
			t.Fatalf("shard count %q", k)
		}
		out = append(out, [2]int64{int64(n), jsonInt(t, w)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

func mustLookup(t testing.TB, spec string) Engine {
	t.Helper()
	e, err := Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func shardOf(t *testing.T, e Engine, key []shardkey.Value, n int) int {
	t.Helper()
	p, err := e.Point(key)
	if err != nil {
		t.Fatalf("%s.Point(%v): %v", e.Name(), key, err)
	}
	l, err := e.Layout(n)
	if err != nil {
		t.Fatal(err)
	}
	return l.Shard(p)
}

func parseUUID(t *testing.T, s string) shardkey.Value {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil || len(b) != 16 {
		t.Fatalf("bad uuid %q", s)
	}
	return shardkey.Value{Type: shardkey.UUID, Str: string(b)}
}

// vectorChecker checks every vector of one shared/vectors file against the
// engines, failing on any input_encoding or output_kind it does not
// understand: no vector is skipped.
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

// engineGroundTruth says, for every engine, what checks its placement bit
// for bit; TestGroundTruthCoversEveryEngine fails for an engine that is
// not listed, so a new engine cannot come without saying so.
var engineGroundTruth = map[string]string{
	"generic":                     "shardkey's own function (xxhash64 of canonical bytes); FuzzEngine, TestPointCanonicalRow",
	"blake2b":                     "seed 000's h(); cmd/shardkey/seed_test.go reproduces the seed's numbers",
	"jump":                        "jump_consistent_hash.json",
	"ring":                        "shardkey's own ring; FuzzEngine and the growth tests",
	"redis":                       "redis_cluster.json",
	"cassandra":                   "cassandra_murmur3.json",
	"mongodb":                     "mongodb_hashed.json; TestMongoDB_EmbeddedValues",
	"kafka":                       "kafka_default_partitioner.json",
	"kafka-librdkafka":            "kafka_default_partitioner.json",
	"ketama":                      "ketama_libmemcached.json (also through servers=)",
	"postgres":                    "postgresql_hash.json",
	"citus":                       "citus_hash_distribution.json; testdata/citus_real_cluster.json (a real Citus 12.1.12 cluster, TestCitus_RealCluster)",
	"elasticsearch":               "elasticsearch_routing.json",
	"yugabyte":                    "yugabytedb_yb_hash_code.json; TestYugabyte_EnumOIDs",
	"vitess":                      "vitess_vindexes.json",
	"vitess-xxhash":               "vitess_vindexes.json",
	"vitess-binary-md5":           "vitess_vindexes.json",
	"vitess-unicode-loose-md5":    "vitess_vindexes.json",
	"vitess-unicode-loose-xxhash": "vitess_vindexes.json",
	"vitess-numeric":              "vitess_vindexes.json",
	"vitess-reverse-bits":         "vitess_vindexes.json",
	"vitess-multicol":             "the real multicol vindex of the vitess module (TestVitessMultiCol)",
	"cockroachdb":                 "none: unverified, no vectors from a real cockroach (see its doc comment)",
}

func TestGroundTruthCoversEveryEngine(t *testing.T) {
	for _, name := range Names() {
		if engineGroundTruth[name] == "" {
			t.Errorf("engine %s: say in engineGroundTruth what checks it", name)
		}
	}
	for name := range engineGroundTruth {
		if Doc(name) == "" {
			t.Errorf("engineGroundTruth names %s, which is no engine", name)
		}
	}
}
