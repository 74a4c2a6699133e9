package partition

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/shardkey/shardkey"
)

// Postgres is PostgreSQL declarative hash partitioning (PARTITION BY HASH
// with MODULUS n), from postgres/postgres: src/common/hashfn.c (hash_bytes,
// hash_bytes_uint32 and their *_extended forms, Bob Jenkins' lookup3),
// src/backend/access/hash/hashfunc.c (hashint4, hashint8, hashtext,
// hashvarlena, hashfloat8), src/backend/utils/adt/uuid.c (uuid_hash),
// src/include/common/hashfn.h (hash_combine64) and
// src/backend/partitioning/partbounds.c (compute_partition_hash_value).
//
// Each key column is hashed with its type's extended hash function and
// HASH_PARTITION_SEED; the 64-bit hashes are folded with hash_combine64
// (NULL columns are skipped, so an all-NULL key has row hash 0 and lands in
// remainder 0), and the partition is rowHash mod n. Point is that 64-bit row
// hash and Layout is Modulo. Hash shows the type's 32-bit hash function
// (hashint4, hashtext, ...) as a signed int32 for a single non-NULL column,
// the value `SELECT hashint8(x)` prints; PostgreSQL has no 32-bit hash of a
// compound key, so for two or more columns (or a NULL) Hash is the unsigned
// 64-bit row hash that decides the partition.
//
// Types: Int16, Int32, Int64 use hashint2/4/8, which agree wherever the
// value fits; Text and Bytes hash their bytes (hashtext under a
// deterministic collation, hashvarlena for bytea); UUID hashes its 16 bytes;
// Timestamp is hashint8 of microseconds since 2000-01-01 (timestamp_hash);
// Float32 and Float64 use hashfloat4/hashfloat8 (0 and -0 hash alike, every
// NaN as the canonical NaN); Uint64 has no PostgreSQL type and is hashed as
// a bigint when it fits, else rejected. Checked against PostgreSQL 15.18 on
// little-endian x86_64 (testdata/vectors/postgresql_hash.json): hash_bytes
// reads native-order words, so big-endian servers place text differently.
// The float functions are transcribed from hashfunc.c without a vector.
type Postgres struct{}

var (
	_ Engine       = Postgres{}
	_ Int64Pointer = Postgres{}
)

// pgHashPartitionSeed is HASH_PARTITION_SEED from catalog/partition.h.
const pgHashPartitionSeed uint64 = 0x7A5B22367996DCFD

// pgEpochOffset is the number of microseconds from the Unix epoch to
// PostgreSQL's 2000-01-01 epoch.
const pgEpochOffset = 946684800 * 1000000

func (Postgres) Name() string { return "postgres" }

func (p Postgres) Hash(key []shardkey.Value) (Hash, error) {
	if len(key) == 1 && !key[0].IsNull() {
		h, err := pgHash32(key[0], "postgres")
		return SignedHash(int64(h)), err
	}
	rh, err := p.Point(key)
	return UnsignedHash(rh), err
}

// Point returns the row hash of compute_partition_hash_value.
func (Postgres) Point(key []shardkey.Value) (uint64, error) {
	var row uint64
	for _, v := range key {
		if v.IsNull() {
			continue
		}
		h, err := pgHash64(v, pgHashPartitionSeed, "postgres")
		if err != nil {
			return 0, err
		}
		row = pgHashCombine64(row, h)
	}
	return row, nil
}

// PointInt64 is Point for one Int64 column, without allocation.
func (Postgres) PointInt64(v int64) uint64 {
	return pgHashCombine64(0, pgHashUint32Ext(pgFoldInt8(v), pgHashPartitionSeed))
}

func (Postgres) Layout(n int) (Layout, error) { return NewModulo(n) }

// pgHashCombine64 is hash_combine64 from common/hashfn.h.
func pgHashCombine64(a, b uint64) uint64 {
	return a ^ (b + 0x49a0f4dd15e5a8e3 + (a << 54) + (a >> 7))
}

// pgFoldInt8 is hashint8's reduction of an int8 to the uint32 it hashes:
// the low word xor the high word (complemented for negatives), so that
// values that fit in int4 hash as hashint4 does.
func pgFoldInt8(v int64) uint32 {
	lo, hi := uint32(v), uint32(uint64(v)>>32)
	if v < 0 {
		hi = ^hi
	}
	return lo ^ hi
}

// pgHash32 returns the type's 32-bit hash support function of v (non-NULL).
func pgHash32(v shardkey.Value, system string) (int32, error) {
	v = asSQL(v)
	switch v.Type {
	case shardkey.Int16, shardkey.Int32, shardkey.Int64, shardkey.Bool:
		// bool hashes with hashchar: hash_uint32 of 0 or 1, as hashint4.
		return int32(pgHashUint32(pgFoldInt8(v.Int))), nil
	case shardkey.Timestamp:
		return int32(pgHashUint32(pgFoldInt8(v.Int - pgEpochOffset))), nil
	case shardkey.Date:
		return int32(pgHashUint32(pgDate(v))), nil
	case shardkey.Uint64:
		if v.Int < 0 {
			return 0, pgUint64Error(system, v)
		}
		return int32(pgHashUint32(pgFoldInt8(v.Int))), nil
	case shardkey.Text, shardkey.Bytes, shardkey.UUID:
		return int32(pgHashBytes(v.Str)), nil
	case shardkey.Float32, shardkey.Float64:
		f, zero := pgFloat(v)
		if zero {
			return 0, nil
		}
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(f))
		return int32(pgHashBytes(string(b[:]))), nil
	}
	return 0, fmt.Errorf("%s: cannot hash a value of type %s", system, v.Type)
}

// pgHash64 returns the type's extended (64-bit, seeded) hash of v.
func pgHash64(v shardkey.Value, seed uint64, system string) (uint64, error) {
	v = asSQL(v)
	switch v.Type {
	case shardkey.Int16, shardkey.Int32, shardkey.Int64, shardkey.Bool:
		return pgHashUint32Ext(pgFoldInt8(v.Int), seed), nil
	case shardkey.Timestamp:
		return pgHashUint32Ext(pgFoldInt8(v.Int-pgEpochOffset), seed), nil
	case shardkey.Date:
		return pgHashUint32Ext(pgDate(v), seed), nil
	case shardkey.Uint64:
		if v.Int < 0 {
			return 0, pgUint64Error(system, v)
		}
		return pgHashUint32Ext(pgFoldInt8(v.Int), seed), nil
	case shardkey.Text, shardkey.Bytes, shardkey.UUID:
		return pgHashBytesExt(v.Str, seed), nil
	case shardkey.Float32, shardkey.Float64:
		f, zero := pgFloat(v)
		if zero {
			return seed, nil // hashfloat8extended returns the seed for ±0
		}
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(f))
		return pgHashBytesExt(string(b[:]), seed), nil
	}
	return 0, fmt.Errorf("%s: cannot hash a value of type %s", system, v.Type)
}

func pgUint64Error(system string, v shardkey.Value) error {
	return fmt.Errorf("%s: uint64 value %d does not fit in a bigint", system, v.Uint())
}

// pgFloat returns v widened to float8 as hashfloat4/hashfloat8 hash it
// (NaNs replaced by the canonical NaN) and whether it is ±0.
func pgFloat(v shardkey.Value) (float64, bool) {
	f := v.Float
	if v.Type == shardkey.Float32 {
		f = float64(float32(f))
	}
	if f == 0 {
		return 0, true
	}
	if math.IsNaN(f) {
		f = math.Float64frombits(0x7ff8000000000000) // get_float8_nan()
	}
	return f, false
}

// lookup3's mix and final, as hashfn.c defines them.
func pgMix(a, b, c uint32) (uint32, uint32, uint32) {
	a -= c
	a ^= bits.RotateLeft32(c, 4)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 6)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 8)
	b += a
	a -= c
	a ^= bits.RotateLeft32(c, 16)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 19)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 4)
	b += a
	return a, b, c
}

func pgFinal(a, b, c uint32) (uint32, uint32, uint32) {
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	return a, b, c
}

// pgHashUint32 is hash_bytes_uint32 (hash_uint32).
func pgHashUint32(k uint32) uint32 {
	a := uint32(0x9e3779b9 + 4 + 3923095)
	b, c := a, a
	a += k
	_, _, c = pgFinal(a, b, c)
	return c
}

// pgHashUint32Ext is hash_bytes_uint32_extended.
func pgHashUint32Ext(k uint32, seed uint64) uint64 {
	a := uint32(0x9e3779b9 + 4 + 3923095)
	b, c := a, a
	if seed != 0 {
		a += uint32(seed >> 32)
		b += uint32(seed)
		a, b, c = pgMix(a, b, c)
	}
	a += k
	_, b, c = pgFinal(a, b, c)
	return uint64(b)<<32 | uint64(c)
}

// pgHashBytes is hash_bytes (hash_any) on a little-endian host.
func pgHashBytes(k string) uint32 {
	a, b, c := pgLookup3(k, 0)
	_, _, c = pgFinal(a, b, c)
	return c
}

// pgHashBytesExt is hash_bytes_extended (hash_any_extended).
func pgHashBytesExt(k string, seed uint64) uint64 {
	a, b, c := pgLookup3(k, seed)
	_, b, c = pgFinal(a, b, c)
	return uint64(b)<<32 | uint64(c)
}

// pgLookup3 runs hash_bytes up to its final mix: initialisation (with the
// seed perturbation of the extended form), 12-byte blocks and the tail,
// whose bytes 8..10 go to c shifted by 8, 16, 24 (the low byte of c is
// never used for data).
func pgLookup3(k string, seed uint64) (a, b, c uint32) {
	a = 0x9e3779b9 + uint32(len(k)) + 3923095
	b, c = a, a
	if seed != 0 {
		a += uint32(seed >> 32)
		b += uint32(seed)
		a, b, c = pgMix(a, b, c)
	}
	for len(k) >= 12 {
		a += uint32(k[0]) | uint32(k[1])<<8 | uint32(k[2])<<16 | uint32(k[3])<<24
		b += uint32(k[4]) | uint32(k[5])<<8 | uint32(k[6])<<16 | uint32(k[7])<<24
		c += uint32(k[8]) | uint32(k[9])<<8 | uint32(k[10])<<16 | uint32(k[11])<<24
		a, b, c = pgMix(a, b, c)
		k = k[12:]
	}
	for i := len(k) - 1; i >= 0; i-- {
		switch {
		case i >= 8:
			c += uint32(k[i]) << (8 * (i - 7))
		case i >= 4:
			b += uint32(k[i]) << (8 * (i - 4))
		default:
			a += uint32(k[i]) << (8 * i)
		}
	}
	return a, b, c
}

// pgDate is the DateADT of a Date value, days since 2000-01-01 as an int32,
// which PostgreSQL's date hash opclass hashes with hashint4 (date_ops:
// hashint4, hashint4extended). Days beyond int32 wrap, as a DATE cannot
// hold them anyway.
func pgDate(v shardkey.Value) uint32 { return uint32(int32(dateDays(v.Int) - 10957)) }
