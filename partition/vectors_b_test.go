package partition

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shardkey/shardkey"
)

// bVector is one entry of a vectors file, numbers kept as json.Number.
type bVector map[string]any

// loadB reads the vectors of one file in testdata/vectors.
func loadB(t *testing.T, name string) []bVector {
	t.Helper()
	f, err := os.Open(filepath.Join(vectorsDir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.UseNumber()
	var file struct {
		Vectors []bVector `json:"vectors"`
	}
	if err := dec.Decode(&file); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(file.Vectors) == 0 {
		t.Fatalf("%s: no vectors", name)
	}
	return file.Vectors
}

func (v bVector) str(k string) string {
	s, _ := v[k].(string)
	return s
}

func (v bVector) int(t *testing.T, k string) int64 {
	t.Helper()
	return jsonInt(t, v[k])
}

func (v bVector) has(k string) bool { _, ok := v[k]; return ok }

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

func mustLookup(t *testing.T, spec string) Engine {
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

func checkPostgresVectors(t *testing.T, file string) {
	e := mustLookup(t, "postgres")
	checked := 0
	for i, v := range loadB(t, file) {
		name := fmt.Sprintf("%d/%s/%v", i, v.str("input_encoding"), v["input"])
		var val shardkey.Value
		switch enc := v.str("input_encoding"); {
		case enc == "int4":
			val = shardkey.Value{Type: shardkey.Int32, Int: v.int(t, "input")}
		case enc == "int8":
			val = shardkey.IntValue(v.int(t, "input"))
		case strings.HasPrefix(enc, "text"):
			val = shardkey.TextValue(v.str("input"))
		case strings.HasPrefix(enc, "uuid"):
			val = parseUUID(t, v.str("input"))
		default:
			t.Fatalf("%s: unknown encoding", name)
		}
		key := []shardkey.Value{val}
		kind := v.str("output_kind")
		if strings.HasPrefix(kind, "hash_partition_remainder_modulus_") {
			n, err := strconv.Atoi(strings.TrimPrefix(kind, "hash_partition_remainder_modulus_"))
			if err != nil || n < 1 {
				t.Fatalf("%s: unknown output_kind %q", name, kind)
			}
			if got, want := shardOf(t, e, key, n), int(v.int(t, "output")); got != want {
				t.Errorf("%s: partition %d, want %d", name, got, want)
			}
			if got, want := int64(mustPG64(t, val, pgHashPartitionSeed)), v.int(t, "extended_hash_with_HASH_PARTITION_SEED"); got != want {
				t.Errorf("%s: extended hash %d, want %d", name, got, want)
			}
			checked++
			continue
		}
		// The int32 hash PostgreSQL applies to the input's type.
		wantKind := map[shardkey.Type]string{shardkey.Int32: "hashint4_int32", shardkey.Int64: "hashint8_int32",
			shardkey.Text: "hashtext_int32", shardkey.UUID: "uuid_hash_int32"}[val.Type]
		if kind != wantKind {
			t.Fatalf("%s: unknown output_kind %q for a %s input (want %q)", name, kind, val.Type, wantKind)
		}
		h, err := e.Hash(key)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := v.int(t, "output"); h.Kind != Signed || h.Int != want {
			t.Errorf("%s: Hash = %v, want %d", name, h, want)
		}
		fn := v.str("function")
		for k, seed := range map[string]uint64{fn + "extended_seed0": 0, fn + "extended_seed_HASH_PARTITION_SEED": pgHashPartitionSeed} {
			if !v.has(k) {
				continue
			}
			if got, want := int64(mustPG64(t, val, seed)), v.int(t, k); got != want {
				t.Errorf("%s: %s = %d, want %d", name, k, got, want)
			}
			if seed == pgHashPartitionSeed {
				p, _ := e.Point(key)
				if p != pgHashCombine64(0, uint64(v.int(t, k))) {
					t.Errorf("%s: Point is not hash_combine64(0, %s)", name, k)
				}
			}
		}
		if fn == "hashtext" {
			// varchar and bytea (hashvarlena) hash the same bytes;
			// char(n) strips trailing spaces first.
			bytesVal := shardkey.Value{Type: shardkey.Bytes, Str: val.Str}
			if got, _ := pgHash32(bytesVal, "postgres"); int64(got) != v.int(t, "hashtext_of_varchar") {
				t.Errorf("%s: bytes/varchar hash %d, want %d", name, got, v.int(t, "hashtext_of_varchar"))
			}
			bp := shardkey.TextValue(strings.TrimRight(val.Str, " "))
			if got, _ := pgHash32(bp, "postgres"); int64(got) != v.int(t, "hashbpchar_of_char_n") {
				t.Errorf("%s: bpchar hash %d, want %d", name, got, v.int(t, "hashbpchar_of_char_n"))
			}
		}
		checked++
	}
	t.Logf("%s: checked %d postgres vectors", file, checked)
}

func mustPG64(t *testing.T, v shardkey.Value, seed uint64) uint64 {
	t.Helper()
	h, err := pgHash64(v, seed, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func checkCitusVectors(t *testing.T, file string) {
	e := mustLookup(t, "citus")
	checked := 0
	for i, v := range loadB(t, file) {
		name := fmt.Sprintf("%d/%s/%v", i, v.str("input_encoding"), v["input"])
		wantKind := "worker_hash_int32"
		if v.str("input_encoding") == "shard layout" {
			wantKind = "shard_min_max_hash_inclusive"
		}
		if k := v.str("output_kind"); k != wantKind {
			t.Fatalf("%s: unknown output_kind %q (want %q)", name, k, wantKind)
		}
		switch v.str("input_encoding") {
		case "shard layout":
			in := v["input"].(map[string]any)
			n, idx := int(jsonInt(t, in["shard_count"])), int(jsonInt(t, in["shard_index"]))
			l, err := e.Layout(n)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := l.(*CitusLayout).HashRange(idx)
			out := v["output"].([]any)
			if int64(lo) != jsonInt(t, out[0]) || int64(hi) != jsonInt(t, out[1]) {
				t.Errorf("%s: range [%d, %d], want %v", name, lo, hi, out)
			}
			checked++
			continue
		case "date":
			// shardkey has no date type; PostgreSQL hashes a date as
			// hashint4 of its day number since 2000-01-01, which is
			// checked here through the internal hashint4.
			d, err := time.Parse("2006-01-02", v.str("input"))
			if err != nil {
				t.Fatal(err)
			}
			days := (d.Unix() - 946684800) / 86400
			h := int32(pgHashUint32(pgFoldInt8(days)))
			if int64(h) != v.int(t, "output") {
				t.Errorf("%s: hashint4(%d) = %d, want %d", name, days, h, v.int(t, "output"))
			}
			for _, c := range perShardCount(t, v["shard_index"]) {
				l, _ := e.Layout(int(c[0]))
				if got := l.Shard(uint64(uint32(h) ^ 0x80000000)); int64(got) != c[1] {
					t.Errorf("%s: %d shards: shard %d, want %d", name, c[0], got, c[1])
				}
			}
			t.Logf("%s: date is not a shardkey type; checked as hashint4 of day %d", name, days)
			checked++
			continue
		}
		var val shardkey.Value
		switch v.str("input_encoding") {
		case "int4":
			val = shardkey.Value{Type: shardkey.Int32, Int: v.int(t, "input")}
		case "int8":
			val = shardkey.IntValue(v.int(t, "input"))
		case "text":
			val = shardkey.TextValue(v.str("input"))
		default:
			t.Fatalf("%s: unknown encoding", name)
		}
		key := []shardkey.Value{val}
		h, err := e.Hash(key)
		if err != nil {
			t.Fatal(err)
		}
		if h.Int != v.int(t, "output") {
			t.Errorf("%s: worker_hash %d, want %d", name, h.Int, v.int(t, "output"))
		}
		for _, c := range perShardCount(t, v["shard_index"]) {
			if got := shardOf(t, e, key, int(c[0])); int64(got) != c[1] {
				t.Errorf("%s: %d shards: shard %d, want %d", name, c[0], got, c[1])
			}
		}
		checked++
	}
	t.Logf("%s: checked %d citus vectors", file, checked)
}

func checkElasticsearchVectors(t *testing.T, file string) {
	checked := 0
	for i, v := range loadB(t, file) {
		name := fmt.Sprintf("%d/%v", i, v["input"])
		// Every routing string is hashed as Java's UTF-16 code units.
		switch enc := v.str("input_encoding"); {
		case strings.HasPrefix(enc, "Java String -> UTF-16"), strings.HasPrefix(enc, "_id or _routing string (UTF-16LE"),
			enc == "routing and id strings", enc == "utf8 string":
		default:
			t.Fatalf("%s: unknown input_encoding %q", name, enc)
		}
		switch v.str("output_kind") {
		case "murmur3_x86_32_signed_int32":
			s := v.str("input")
			want := v.int(t, "output")
			if got := ESMurmur3(s); int64(got) != want {
				t.Errorf("%s: murmur3 %d, want %d", name, got, want)
			}
			e := mustLookup(t, "elasticsearch")
			if h, _ := e.Hash([]shardkey.Value{shardkey.TextValue(s)}); h.Int != want {
				t.Errorf("%s: Hash %v, want %d", name, h, want)
			}
			for _, c := range perShardCount(t, v["default_routing_num_shards"]) {
				if got := ESRoutingShards(int(c[0])); int64(got) != c[1] {
					t.Errorf("%s: default routing shards for %d = %d, want %d", name, c[0], got, c[1])
				}
			}
			for field, spec := range map[string]string{
				"shard_classic_default_routing_num_shards": "elasticsearch",
				"shard_new_mod_function":                   "elasticsearch:function=mod",
			} {
				e := mustLookup(t, spec)
				for _, c := range perShardCount(t, v[field]) {
					if got := shardOf(t, e, []shardkey.Value{shardkey.TextValue(s)}, int(c[0])); int64(got) != c[1] {
						t.Errorf("%s: %s %d shards: %d, want %d", name, spec, c[0], got, c[1])
					}
				}
			}
		case "shard_id":
			st := v["index_settings"].(map[string]any)
			n := int(jsonInt(t, st["number_of_shards"]))
			var opts []string
			if strings.HasPrefix(v.str("routing_function"), "new") {
				opts = append(opts, "function=mod")
			} else {
				r := n
				if st["routing_num_shards"] != nil {
					r = int(jsonInt(t, st["routing_num_shards"]))
				}
				opts = append(opts, "routing_num_shards="+strconv.Itoa(r))
			}
			var key []shardkey.Value
			if in, ok := v["input"].(map[string]any); ok {
				opts = append(opts, "partition_size="+strconv.FormatInt(jsonInt(t, st["routing_partition_size"]), 10))
				key = []shardkey.Value{shardkey.TextValue(in["_routing"].(string)), shardkey.TextValue(in["_id"].(string))}
			} else {
				key = []shardkey.Value{shardkey.TextValue(v.str("input"))}
			}
			e := mustLookup(t, "elasticsearch:"+strings.Join(opts, ","))
			if v.has("hash") {
				if h, _ := e.Hash(key); h.Int != v.int(t, "hash") {
					t.Errorf("%s: hash %v, want %d", name, h, v.int(t, "hash"))
				}
			}
			if got := shardOf(t, e, key, n); int64(got) != v.int(t, "output") {
				t.Errorf("%s: %s: shard %d, want %d", name, e.Name(), got, v.int(t, "output"))
			}
		default:
			t.Fatalf("%s: unknown output kind %q", name, v.str("output_kind"))
		}
		checked++
	}
	t.Logf("%s: checked %d elasticsearch vectors", file, checked)
}

func checkYugabyteVectors(t *testing.T, file string) {
	e := mustLookup(t, "yugabyte")
	checked, skipped := 0, 0
	for i, v := range loadB(t, file) {
		enc := v.str("input_encoding")
		name := fmt.Sprintf("%d/%s/%v", i, enc, v["input"])
		if k := v.str("output_kind"); k != "yb_hash_code_uint16" {
			t.Fatalf("%s: unknown output_kind %q", name, k)
		}
		if strings.Contains(enc, "enum") {
			t.Logf("skipped %s: enum hash-column encoding (enum OID/sort order) is not derived in the vectors and enums are not a shardkey type", name)
			skipped++
			continue
		}
		var types []string
		inputs := []any{v["input"]}
		if strings.HasPrefix(enc, "(") {
			types = strings.Split(enc[1:strings.IndexByte(enc, ')')], ", ")
			inputs = v["input"].([]any)
		} else {
			types = []string{strings.Fields(enc)[0]}
		}
		if len(types) != len(inputs) {
			t.Fatalf("%s: %d types for %d inputs", name, len(types), len(inputs))
		}
		var key []shardkey.Value
		for j, typ := range types {
			switch typ {
			case "int2":
				key = append(key, shardkey.Value{Type: shardkey.Int16, Int: jsonInt(t, inputs[j])})
			case "int4":
				key = append(key, shardkey.Value{Type: shardkey.Int32, Int: jsonInt(t, inputs[j])})
			case "int8":
				key = append(key, shardkey.IntValue(jsonInt(t, inputs[j])))
			case "float4":
				key = append(key, shardkey.Value{Type: shardkey.Float32, Float: jsonFloat(t, inputs[j])})
			case "float8":
				key = append(key, shardkey.FloatValue(jsonFloat(t, inputs[j])))
			case "text":
				key = append(key, shardkey.TextValue(inputs[j].(string)))
			default:
				t.Fatalf("%s: unknown type %q", name, typ)
			}
		}
		want := v.int(t, "output")
		h, err := e.Hash(key)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if h.Kind != Unsigned || h.Int != want {
			t.Errorf("%s: yb_hash_code %v, want %d", name, h, want)
		}
		if v.has("compound_key_hex") {
			b, _ := hex.DecodeString(v.str("compound_key_hex"))
			if got := YBHashCode(b); int64(got) != want {
				t.Errorf("%s: YBHashCode(compound) = %d, want %d", name, got, want)
			}
		}
		if v.has("cql_token_int64") {
			if got := int64((uint64(want) ^ 0x8000) << 48); got != v.int(t, "cql_token_int64") {
				t.Errorf("%s: token %d, want %d", name, got, v.int(t, "cql_token_int64"))
			}
		}
		for _, c := range perShardCount(t, v["tablet_index_for_num_tablets"]) {
			if got := shardOf(t, e, key, int(c[0])); int64(got) != c[1] {
				t.Errorf("%s: %d tablets: tablet %d, want %d", name, c[0], got, c[1])
			}
		}
		checked++
	}
	t.Logf("%s: checked %d yugabyte vectors, skipped %d (enum)", file, checked, skipped)
}

var vtVindexEngine = map[string]string{
	"hash":                 "vitess",
	"xxhash":               "vitess-xxhash",
	"binary_md5":           "vitess-binary-md5",
	"unicode_loose_md5":    "vitess-unicode-loose-md5",
	"unicode_loose_xxhash": "vitess-unicode-loose-xxhash",
	"numeric":              "vitess-numeric",
	"reverse_bits":         "vitess-reverse-bits",
}

func checkVitessVectors(t *testing.T, file string) {
	checked := 0
	for i, v := range loadB(t, file) {
		enc := v.str("input_encoding")
		name := fmt.Sprintf("%d/%s/%s/%q", i, v.str("vindex"), enc, v.str("input"))
		spec, ok := vtVindexEngine[v.str("vindex")]
		if !ok {
			t.Fatalf("%s: unknown vindex", name)
		}
		e := mustLookup(t, spec)
		in := v.str("input")
		var val shardkey.Value
		switch enc {
		case "sqltypes INT64":
			n, err := strconv.ParseInt(in, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			val = shardkey.IntValue(n)
		case "sqltypes INT32":
			n, _ := strconv.ParseInt(in, 10, 32)
			val = shardkey.Value{Type: shardkey.Int32, Int: n}
		case "sqltypes UINT64":
			n, err := strconv.ParseUint(in, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			val = shardkey.Value{Type: shardkey.Uint64, Int: int64(n)}
		case "sqltypes VARCHAR (UTF-8)":
			val = shardkey.TextValue(in)
		case "sqltypes VARBINARY (UTF-8 bytes)":
			val = shardkey.Value{Type: shardkey.Bytes, Str: in}
		case "SQL NULL":
		default:
			t.Fatalf("%s: unknown encoding", name)
		}
		key := []shardkey.Value{val}
		h, err := e.Hash(key)
		switch v.str("output_kind") {
		case "destination":
			if v.str("output") != "DestinationNone" || !errors.Is(err, ErrNoDestination) {
				t.Errorf("%s: Hash = %v, %v; want %s", name, h, err, v.str("output"))
			}
			checked++
			continue
		case "keyspace_id_hex":
			if err != nil || h.Kind != Hex || h.Hex != v.str("output") {
				t.Errorf("%s: Hash = %v, %v; want %s", name, h, err, v.str("output"))
			}
		default:
			t.Fatalf("%s: unknown output kind", name)
		}
		if ip, ok := e.(Int64Pointer); ok && val.Type == shardkey.Int64 {
			p, _ := e.Point(key)
			if got := ip.PointInt64(val.Int); got != p {
				t.Errorf("%s: PointInt64 %x, Point %x", name, got, p)
			}
		}
		for k, w := range v["shard_for_even_shard_count"].(map[string]any) {
			n, _ := strconv.Atoi(k)
			p, _ := e.Point(key)
			l, err := e.Layout(n)
			if err != nil {
				t.Fatal(err)
			}
			if got := l.(*VitessLayout).ShardName(l.Shard(p)); got != w.(string) {
				t.Errorf("%s: %d shards: %s, want %s", name, n, got, w)
			}
		}
		checked++
	}
	// The file's cross_check: a vtexplain transcript with 32 shards routes
	// hash(100) to 80-88 and hash(1000) to 18-20.
	e := mustLookup(t, "vitess")
	l, _ := e.Layout(32)
	for id, want := range map[int64]string{100: "80-88", 1000: "18-20"} {
		p, _ := e.Point([]shardkey.Value{shardkey.IntValue(id)})
		if got := l.(*VitessLayout).ShardName(l.Shard(p)); got != want {
			t.Errorf("cross_check %d: %s, want %s", id, got, want)
		}
	}
	t.Logf("%s: checked %d vitess vectors and the 2 cross_check routes", file, checked)
}

func checkJumpVectors(t *testing.T, file string) {
	checked := 0
	for i, v := range loadB(t, file) {
		if v.str("input_encoding") != "uint64 key" || v.str("output_kind") != "bucket" {
			t.Fatalf("%d: unknown input_encoding %q or output_kind %q", i, v.str("input_encoding"), v.str("output_kind"))
		}
		in, ok := v["input"].(map[string]any)
		if !ok {
			t.Fatalf("%d: input %v is not {key, num_buckets}", i, v["input"])
		}
		key, n := uint64(jsonInt(t, in["key"])), int(jsonInt(t, in["num_buckets"]))
		want := int(v.int(t, "output"))
		if got := JumpHash(key, n); got != want {
			t.Errorf("%d: JumpHash(%d, %d) = %d, want %d", i, key, n, got, want)
		}
		l, _ := Jump{}.Layout(n)
		p, _ := Jump{}.Point([]shardkey.Value{{Type: shardkey.Uint64, Int: int64(key)}})
		if got := l.Shard(p); got != want {
			t.Errorf("%d: jump engine: bucket %d, want %d", i, got, want)
		}
		checked++
	}
	t.Logf("%s: checked %d jump vectors", file, checked)
}
