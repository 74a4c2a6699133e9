package partition

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

func TestPostgresTypes(t *testing.T) {
	pg := func(v shardkey.Value) int32 {
		h, err := pgHash32(v, "postgres")
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	// Integer widths agree (hashint2/4/8), as do Uint64 values that fit.
	for _, x := range []int64{0, 1, -42, 32767} {
		a := pg(shardkey.Value{Type: shardkey.Int16, Int: x})
		b := pg(shardkey.IntValue(x))
		c := pg(shardkey.Value{Type: shardkey.Uint64, Int: x & math.MaxInt64})
		if a != b || (x >= 0 && c != b) {
			t.Errorf("%d: int2 %d int8 %d uint64 %d", x, a, b, c)
		}
	}
	// A timestamp is hashint8 of microseconds since 2000-01-01.
	if a, b := pg(shardkey.TimeValue(pgEpochOffset+123)), pg(shardkey.IntValue(123)); a != b {
		t.Errorf("timestamp at 2000-01-01+123us hashes %d, int8 123 hashes %d", a, b)
	}
	// hashfloat8: ±0 hash to 0, float4 widens, every NaN is one NaN.
	if pg(shardkey.FloatValue(0)) != 0 || pg(shardkey.FloatValue(math.Copysign(0, -1))) != 0 {
		t.Error("±0.0 do not hash to 0")
	}
	if pg(shardkey.Value{Type: shardkey.Float32, Float: 1.5}) != pg(shardkey.FloatValue(1.5)) {
		t.Error("float4 1.5 and float8 1.5 hash differently")
	}
	if pg(shardkey.FloatValue(math.NaN())) != pg(shardkey.FloatValue(math.Float64frombits(0xfff8000000000001))) {
		t.Error("NaNs hash differently")
	}
	if _, err := pgHash32(shardkey.Value{Type: shardkey.Uint64, Int: -1}, "postgres"); err == nil {
		t.Error("uint64 max accepted as a bigint")
	}
	// Compound keys fold with hash_combine64 in column order.
	e := mustLookup(t, "postgres")
	a, b := shardkey.IntValue(1), shardkey.TextValue("x")
	p, _ := e.Point([]shardkey.Value{a, b})
	ha, _ := pgHash64(a, pgHashPartitionSeed, "")
	hb, _ := pgHash64(b, pgHashPartitionSeed, "")
	if want := pgHashCombine64(pgHashCombine64(0, ha), hb); p != want {
		t.Errorf("compound point %x, want %x", p, want)
	}
}

func checkPostgresVectors(t *testing.T, file string) {
	e := mustLookup(t, "postgres")
	checked := 0
	for i, m := range loadVectors(t, file).Vectors {
		v := vec{t, i, m}
		name := fmt.Sprintf("%d/%s/%v", i, v.opt("input_encoding"), v.m["input"])
		var val shardkey.Value
		switch enc := v.opt("input_encoding"); {
		case enc == "int4":
			val = shardkey.Value{Type: shardkey.Int32, Int: v.int64("input")}
		case enc == "int8":
			val = shardkey.IntValue(v.int64("input"))
		case strings.HasPrefix(enc, "text"):
			val = shardkey.TextValue(v.opt("input"))
		case strings.HasPrefix(enc, "uuid"):
			val = parseUUID(t, v.opt("input"))
		default:
			t.Fatalf("%s: unknown encoding", name)
		}
		key := []shardkey.Value{val}
		kind := v.opt("output_kind")
		if strings.HasPrefix(kind, "hash_partition_remainder_modulus_") {
			n, err := strconv.Atoi(strings.TrimPrefix(kind, "hash_partition_remainder_modulus_"))
			if err != nil || n < 1 {
				t.Fatalf("%s: unknown output_kind %q", name, kind)
			}
			if got, want := shardOf(t, e, key, n), int(v.int64("output")); got != want {
				t.Errorf("%s: partition %d, want %d", name, got, want)
			}
			if got, want := int64(mustPG64(t, val, pgHashPartitionSeed)), v.int64("extended_hash_with_HASH_PARTITION_SEED"); got != want {
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
		if want := v.int64("output"); h.Kind != Signed || h.Int != want {
			t.Errorf("%s: Hash = %v, want %d", name, h, want)
		}
		fn := v.opt("function")
		for k, seed := range map[string]uint64{fn + "extended_seed0": 0, fn + "extended_seed_HASH_PARTITION_SEED": pgHashPartitionSeed} {
			if !v.has(k) {
				continue
			}
			if got, want := int64(mustPG64(t, val, seed)), v.int64(k); got != want {
				t.Errorf("%s: %s = %d, want %d", name, k, got, want)
			}
			if seed == pgHashPartitionSeed {
				p, _ := e.Point(key)
				if p != pgHashCombine64(0, uint64(v.int64(k))) {
					t.Errorf("%s: Point is not hash_combine64(0, %s)", name, k)
				}
			}
		}
		if fn == "hashtext" {
			// varchar and bytea (hashvarlena) hash the same bytes;
			// char(n) strips trailing spaces first.
			bytesVal := shardkey.Value{Type: shardkey.Bytes, Str: val.Str}
			if got, _ := pgHash32(bytesVal, "postgres"); int64(got) != v.int64("hashtext_of_varchar") {
				t.Errorf("%s: bytes/varchar hash %d, want %d", name, got, v.int64("hashtext_of_varchar"))
			}
			bp := shardkey.TextValue(strings.TrimRight(val.Str, " "))
			if got, _ := pgHash32(bp, "postgres"); int64(got) != v.int64("hashbpchar_of_char_n") {
				t.Errorf("%s: bpchar hash %d, want %d", name, got, v.int64("hashbpchar_of_char_n"))
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
