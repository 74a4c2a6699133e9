package partition

import (
	"encoding/hex"
	"fmt"
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
	checked, skipped := 0, 0
	for i, m := range loadVectors(t, file).Vectors {
		v := vec{t, i, m}
		enc := v.opt("input_encoding")
		name := fmt.Sprintf("%d/%s/%v", i, enc, v.m["input"])
		if k := v.opt("output_kind"); k != "yb_hash_code_uint16" {
			t.Fatalf("%s: unknown output_kind %q", name, k)
		}
		if strings.Contains(enc, "enum") {
			t.Logf("skipped %s: enum hash-column encoding (enum OID/sort order) is not derived in the vectors and enums are not a shardkey type", name)
			skipped++
			continue
		}
		var types []string
		inputs := []any{v.m["input"]}
		if strings.HasPrefix(enc, "(") {
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
	t.Logf("%s: checked %d yugabyte vectors, skipped %d (enum)", file, checked, skipped)
}
