package partition

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"time"

	"github.com/shardkey/shardkey"
)

// CockroachDB is the bucket of a CockroachDB hash-sharded index
// (PRIMARY KEY ... USING HASH WITH (bucket_count = n)): the hidden column
// crdb_internal_<cols>_shard_<n>. From cockroachdb/cockroach:
// pkg/sql/catalog/schemaexpr/hash_sharded_compute_expr.go
// (MakeHashShardComputeExpr), pkg/sql/sem/builtins (fnv32 is FNV-1 32-bit,
// md5 returns lowercase hex text, crdb_internal.datums_to_bytes is the
// ascending key encoding of its arguments) and pkg/util/encoding.
//
// The shard expression is stored per index and changed twice (the
// release boundaries were not pinned down here; SHOW CREATE TABLE shows
// which one an index has); option generation picks it:
//
//   - 1 (the first hash-sharded indexes): the sum over the key columns of fnv32 of the
//     column cast to STRING (COALESCE to the empty string for NULL), mod n:
//     mod(fnv32(COALESCE(CAST(a AS STRING), ...)) + fnv32(...b...), n).
//   - 2 (later): mod(fnv32(crdb_internal.datums_to_bytes(a, b, ...)), n).
//   - 3 (default; current master): mod(fnv32(md5(
//     crdb_internal.datums_to_bytes(a, b, ...))), n), FNV-1 of the 32 hex
//     digits of the MD5.
//
// datums_to_bytes encodes NULL as 0x00, integers as CockroachDB's ascending
// varint (one byte 0x88+v for 0..109, else a 0xf6..0xfd or 0x80..0x87
// length marker and big-endian bytes), floats with a sign marker and
// order-preserving bits, text, bytes and UUIDs (16 raw bytes) as 0x12,
// escaped bytes (0x00 -> 0x00 0xff) and 0x00 0x01, and timestamps as 0x14
// then varints of Unix seconds and nanoseconds. Generation 1 casts to text
// as CockroachDB prints values: integers in decimal, UUIDs 8-4-4-4-12,
// bytes as \x<hex>, TIMESTAMP as "2006-01-02 15:04:05.999999", floats in
// Go's shortest form (which CockroachDB follows except for some
// exponents). Uint64 values beyond the int8 range cannot be stored in an
// INT and are rejected.
//
// fnv32 returns a non-negative INT (0..2^32-1), so mod is the plain
// remainder and every bucket is in 0..n-1. Hash and Point are the value
// inside mod(); Layout is Modulo (bucket = Point mod bucket_count, where
// --shards is bucket_count). There are no verified vectors for
// CockroachDB (testdata/vectors/README.md): this follows the source and
// is provisional until checked against a real cockroach.
type CockroachDB struct{ generation int }

var (
	_ Engine       = CockroachDB{}
	_ Int64Pointer = CockroachDB{}
)

func newCockroachDB(o Options) (Engine, error) {
	g, err := o.Int("generation", 3)
	if err != nil {
		return nil, err
	}
	if g < 1 || g > 3 {
		return nil, fmt.Errorf("cockroachdb: generation=%d must be 1, 2 or 3", g)
	}
	return CockroachDB{g}, nil
}

func (c CockroachDB) gen() int {
	if c.generation == 0 {
		return 3
	}
	return c.generation
}

func (c CockroachDB) Name() string {
	if c.gen() == 3 {
		return "cockroachdb"
	}
	return specName("cockroachdb", fmt.Sprintf("generation=%d", c.gen()))
}

func (c CockroachDB) Hash(key []shardkey.Value) (Hash, error) {
	p, err := c.Point(key)
	return UnsignedHash(p), err
}

func (c CockroachDB) Point(key []shardkey.Value) (uint64, error) {
	var buf [128]byte
	if c.gen() == 1 {
		var sum uint64
		for _, v := range key {
			b, err := crdbCastString(buf[:0], v)
			if err != nil {
				return 0, err
			}
			sum += uint64(crdbFNV32(b))
		}
		return sum, nil
	}
	b := buf[:0]
	for _, v := range key {
		var err error
		if b, err = crdbAppendKey(b, v); err != nil {
			return 0, err
		}
	}
	return uint64(crdbFNVEncoded(b, c.gen())), nil
}

// PointInt64 is Point for one Int64 column, without allocation.
func (c CockroachDB) PointInt64(v int64) uint64 {
	if c.gen() == 1 {
		var digits [20]byte
		return uint64(crdbFNV32(formatInt64(&digits, v)))
	}
	var buf [24]byte
	return uint64(crdbFNVEncoded(crdbAppendVarint(buf[:0], v), c.gen()))
}

func (CockroachDB) Layout(n int) (Layout, error) { return NewModulo(n) }

// crdbFNVEncoded is fnv32(b) (generation 2) or fnv32(md5(b)) (3).
func crdbFNVEncoded(b []byte, gen int) uint32 {
	if gen == 2 {
		return crdbFNV32(b)
	}
	sum := md5.Sum(b)
	var hx [32]byte
	hex.Encode(hx[:], sum[:])
	return crdbFNV32(hx[:])
}

// crdbFNV32 is FNV-1 (multiply, then xor), 32-bit.
func crdbFNV32(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h *= 16777619
		h ^= uint32(c)
	}
	return h
}

// crdbAppendKey appends the ascending key encoding of v
// (rowenc.EncodeTableKey with encoding.Ascending).
func crdbAppendKey(b []byte, v shardkey.Value) ([]byte, error) {
	v = asSQL(v)
	switch v.Type {
	case shardkey.Null:
		return append(b, 0x00), nil
	case shardkey.Int16, shardkey.Int32, shardkey.Int64:
		return crdbAppendVarint(b, v.Int), nil
	case shardkey.Uint64:
		if v.Int < 0 {
			return nil, fmt.Errorf("cockroachdb: uint64 value %d does not fit in an INT", v.Uint())
		}
		return crdbAppendVarint(b, v.Int), nil
	case shardkey.Float32, shardkey.Float64:
		f := v.Float
		if v.Type == shardkey.Float32 {
			f = float64(float32(f))
		}
		switch {
		case math.IsNaN(f):
			return append(b, 0x02), nil
		case f == 0:
			return append(b, 0x04), nil
		}
		u := math.Float64bits(f)
		if u>>63 != 0 {
			return binary.BigEndian.AppendUint64(append(b, 0x03), ^u), nil
		}
		return binary.BigEndian.AppendUint64(append(b, 0x05), u), nil
	case shardkey.Text, shardkey.Bytes, shardkey.UUID:
		b = append(b, 0x12)
		for i := 0; i < len(v.Str); i++ {
			b = append(b, v.Str[i])
			if v.Str[i] == 0x00 {
				b = append(b, 0xff)
			}
		}
		return append(b, 0x00, 0x01), nil
	case shardkey.Date:
		// A DATE: keyside.Encode of a *tree.DDate writes its days since
		// the epoch with EncodeVarintAscending (unverified, as all of
		// this engine).
		return crdbAppendVarint(b, dateDays(v.Int)), nil
	case shardkey.Timestamp:
		t := time.UnixMicro(v.Int)
		b = append(b, 0x14)
		b = crdbAppendVarint(b, t.Unix())
		return crdbAppendVarint(b, int64(t.Nanosecond())), nil
	}
	return nil, fmt.Errorf("cockroachdb: cannot encode a value of type %s", v.Type)
}

// crdbAppendVarint is encoding.EncodeVarintAscending: 0x88+v for 0..109;
// else a marker giving the sign and byte count (0xf6..0xfd for 1..8 bytes
// of a positive value, 0x87..0x80 for 1..8 bytes of a negative one whose
// magnitude fits them) and the value's low bytes, big-endian.
func crdbAppendVarint(b []byte, v int64) []byte {
	const intMin, intZero, intSmall, intMax = 0x80, 0x88, 109, 0xfd
	var n int
	if v < 0 {
		n = (bits.Len64(uint64(-v)) + 7) / 8
		b = append(b, byte(intMin+8-n))
	} else if v <= intSmall {
		return append(b, byte(intZero+v))
	} else {
		n = (bits.Len64(uint64(v)) + 7) / 8
		b = append(b, byte(intMax-8+n))
	}
	for i := n - 1; i >= 0; i-- {
		b = append(b, byte(uint64(v)>>(8*i)))
	}
	return b
}

// crdbCastString appends CAST(v AS STRING), ” for NULL (generation 1).
func crdbCastString(b []byte, v shardkey.Value) ([]byte, error) {
	v = asSQL(v)
	switch v.Type {
	case shardkey.Null:
		return b, nil
	case shardkey.Text:
		return append(b, v.Str...), nil
	case shardkey.Bytes:
		return hex.AppendEncode(append(b, `\x`...), []byte(v.Str)), nil
	case shardkey.Float32:
		return strconv.AppendFloat(b, float64(float32(v.Float)), 'g', -1, 64), nil
	case shardkey.Float64:
		return strconv.AppendFloat(b, v.Float, 'g', -1, 64), nil
	case shardkey.Timestamp:
		return time.UnixMicro(v.Int).UTC().AppendFormat(b, "2006-01-02 15:04:05.999999"), nil
	case shardkey.Date:
		return appendSQLDate(b, v.Int), nil
	case shardkey.Uint64:
		if v.Int < 0 {
			return nil, fmt.Errorf("cockroachdb: uint64 value %d does not fit in an INT", v.Uint())
		}
	}
	return v.AppendText(b), nil
}
