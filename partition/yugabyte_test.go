package partition

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

func TestYugabyte_Layout(t *testing.T) {
	l, _ := mustLookup(t, "yugabyte").Layout(3)
	// Tablets [0, 21845), [21845, 43690), [43690, 65536).
	for _, c := range [][2]int{{0, 0}, {21844, 0}, {21845, 1}, {43689, 1}, {43690, 2}, {65535, 2}} {
		if got := l.Shard(uint64(c[0])); got != c[1] {
			t.Errorf("hash %d: tablet %d, want %d", c[0], got, c[1])
		}
	}
	// The O(1) tablet formula equals the Ranges of tablet starts.
	for _, n := range []int{1, 2, 3, 7, 16, 100, 1000, 65535, 65536} {
		l, _ := mustLookup(t, "yugabyte").Layout(n)
		r := l.(YBTablets).Ranges()
		for h := uint64(0); h < 65536; h += 1 + h%7 {
			if a, b := l.Shard(h), r.Shard(h); a != b {
				t.Fatalf("%d tablets, hash %d: tablet %d, Ranges says %d", n, h, a, b)
			}
		}
	}
	if _, err := mustLookup(t, "yugabyte").Layout(65537); err == nil {
		t.Error("65537 tablets accepted")
	}
}

func checkYugabyteVectors(t *testing.T, file string) {
	e := mustLookup(t, "yugabyte")
	checked, enums := 0, 0
	for i, m := range loadVectors(t, file).Vectors {
		v := vec{t, i, m}
		enc := v.opt("input_encoding")
		name := fmt.Sprintf("%d/%s/%v", i, enc, v.m["input"])
		if k := v.opt("output_kind"); k != "yb_hash_code_uint16" {
			t.Fatalf("%s: unknown output_kind %q", name, k)
		}
		var types []string
		inputs := []any{v.m["input"]}
		if strings.HasPrefix(enc, "enum") {
			types = []string{"enum"}
		} else if strings.HasPrefix(enc, "(") {
			types = strings.Split(enc[1:strings.IndexByte(enc, ')')], ", ")
			inputs = v.m["input"].([]any)
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
			case "enum":
				// A YSQL enum hashes as the int64 YbDatumToEnum makes
				// of it: see ybEnumValue.
				label, _ := inputs[j].(string)
				label = strings.TrimSuffix(strings.TrimSuffix(label, " (enum)"), "::mood")
				ev, ok := ybMood[strings.Trim(label, "'")]
				if !ok {
					t.Fatalf("%s: unknown enum label %q", name, label)
				}
				key = append(key, shardkey.IntValue(ev))
				enums++
			default:
				t.Fatalf("%s: unknown type %q", name, typ)
			}
		}
		want := v.int64("output")
		h, err := e.Hash(key)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if h.Kind != Unsigned || h.Int != want {
			t.Errorf("%s: yb_hash_code %v, want %d", name, h, want)
		}
		if v.has("compound_key_hex") {
			b, _ := hex.DecodeString(v.opt("compound_key_hex"))
			if got := YBHashCode(b); int64(got) != want {
				t.Errorf("%s: YBHashCode(compound) = %d, want %d", name, got, want)
			}
		}
		if v.has("cql_token_int64") {
			if got := int64((uint64(want) ^ 0x8000) << 48); got != v.int64("cql_token_int64") {
				t.Errorf("%s: token %d, want %d", name, got, v.int64("cql_token_int64"))
			}
		}
		for _, c := range perShardCount(t, v.m["tablet_index_for_num_tablets"]) {
			if got := shardOf(t, e, key, int(c[0])); int64(got) != c[1] {
				t.Errorf("%s: %d tablets: tablet %d, want %d", name, c[0], got, c[1])
			}
		}
		checked++
	}
	t.Logf("%s: checked %d yugabyte vectors (%d enum values)", file, checked, enums)
}

// ybEnumValue is the int64 a YSQL enum value is hashed as: YbDatumToEnum
// (src/postgres/src/backend/utils/misc/ybctype.c, yugabyte/yugabyte-db)
// puts the label's pg_enum.enumsortorder, a float4 read as its 4 bytes, in
// the high half and the label's OID in the low half; the hash key holds it
// as an int8, 8 bytes big-endian.
func ybEnumValue(sortOrder float32, oid uint32) int64 {
	return int64(uint64(math.Float32bits(sortOrder))<<32 | uint64(oid))
}

// ybMood is the regress test's CREATE TYPE mood AS ENUM ('sad', 'ok',
// 'happy') (yb_hash_code.sql): sort orders 1, 2, 3, and OIDs that the
// vectors file does not give, since the cluster assigns them.
// TestYugabyte_EnumOIDs derives them from the vectors themselves.
var ybMood = map[string]int64{
	"sad":   ybEnumValue(1, 16412),
	"ok":    ybEnumValue(2, 16414),
	"happy": ybEnumValue(3, 16416),
}

// TestYugabyte_EnumOIDs derives the enum label OIDs of ybMood from the
// four enum vectors of yugabytedb_yb_hash_code.json, whose file says the
// encoding is "not derived": for each vector, the first OID from
// FirstNormalObjectId (16384, where a fresh cluster's user objects begin)
// whose ybEnumValue makes the vector's yb_hash_code. The derivation holds
// only if the answers are what PostgreSQL's EnumValuesCreate assigns to one
// CREATE TYPE, consecutive even OIDs in label order, and 'happy' (in two
// vectors) gets the same OID from both: a 16-bit hash matching by chance
// at all four is about 2^-64 likely.
func TestYugabyte_EnumOIDs(t *testing.T) {
	i4 := func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
	first := func(sort float32, rest []byte, want uint16) uint32 {
		for oid := uint32(16384); oid < 1<<20; oid++ {
			b := binary.BigEndian.AppendUint64(nil, uint64(ybEnumValue(sort, oid)))
			if YBHashCode(append(b, rest...)) == want {
				return oid
			}
		}
		return 0
	}
	got := []uint32{
		first(3, nil, 1243),     // 'happy'::mood
		first(3, i4(4), 43113),  // ('happy', 4)
		first(2, i4(4), 7098),   // ('ok', 4)
		first(1, i4(34), 60656), // ('sad', 34)
	}
	if want := []uint32{16416, 16416, 16414, 16412}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("enum OIDs derived from the vectors: %v; want %v (sad, ok, happy = 16412, 16414, 16416)", got, want)
	}
}
