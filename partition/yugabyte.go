package partition

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/shardkey/shardkey"
)

// Yugabyte is YugabyteDB hash sharding (YSQL yb_hash_code, YCQL token),
// from yugabyte/yugabyte-db: src/yb/util/yb_partition.cc
// (HashColumnCompoundValue), src/yb/common/partition.cc
// (CreateHashPartitions, EncodeKey/AppendToKey) and
// src/yb/gutil/hash/jenkins.cc (Hash64StringWithSeed).
//
// The hash columns' values are concatenated in key order with no tags,
// lengths or terminators: Int16/Int32/Int64 as 2/4/8-byte big-endian two's
// complement, Float32/Float64 as big-endian IEEE-754, Text and Bytes as
// their raw bytes. h = Hash64StringWithSeed(compound, 97), Bob Jenkins'
// 64-bit lookup2, and yb_hash_code = (h>>48 ^ 3*(h>>32) ^ 5*(h>>16) ^
// 7*(h&0xFFFF)) & 0xFFFF, in 0..65535: that is Hash (unsigned) and Point.
// Tablet i of N owns hash codes [i*65536/N, (i+1)*65536/N) (integer math;
// not hash*N/65536, which is off by one at some boundaries), so Layout is
// a Ranges layout, YBTablets. Checked against yb_hash_code.out and the yb_hash_code docs
// (testdata/vectors/yugabytedb_yb_hash_code.json).
//
// Not covered by vectors, and so unverified: UUID (its 16 raw bytes),
// Timestamp (8-byte big-endian microseconds since 2000-01-01, the YSQL
// datum), Uint64 (8-byte big-endian) and enums (not a shardkey type).
// NULL hash columns have no destination (YSQL primary keys are NOT NULL).
// Tablet splitting makes ranges uneven; Layout is a table's initial split.
type Yugabyte struct{}

var (
	_ Engine       = Yugabyte{}
	_ Int64Pointer = Yugabyte{}
)

func (Yugabyte) Name() string { return "yugabyte" }

func (y Yugabyte) Hash(key []shardkey.Value) (Hash, error) {
	p, err := y.Point(key)
	return UnsignedHash(p), err
}

func (Yugabyte) Point(key []shardkey.Value) (uint64, error) {
	var buf [64]byte
	b := buf[:0]
	for _, v := range key {
		v = asSQL(v)
		switch v.Type {
		case shardkey.Null:
			return 0, errNoDestination("yugabyte: a hash column value cannot be NULL")
		case shardkey.Int16:
			b = binary.BigEndian.AppendUint16(b, uint16(v.Int))
		case shardkey.Int32:
			b = binary.BigEndian.AppendUint32(b, uint32(v.Int))
		case shardkey.Int64, shardkey.Uint64:
			b = binary.BigEndian.AppendUint64(b, uint64(v.Int))
		case shardkey.Timestamp:
			b = binary.BigEndian.AppendUint64(b, uint64(v.Int-pgEpochOffset))
		case shardkey.Float32:
			b = binary.BigEndian.AppendUint32(b, math.Float32bits(float32(v.Float)))
		case shardkey.Float64:
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(v.Float))
		case shardkey.Text, shardkey.Bytes, shardkey.UUID:
			b = append(b, v.Str...)
		default:
			return 0, fmt.Errorf("yugabyte: cannot hash a value of type %s", v.Type)
		}
	}
	return uint64(YBHashCode(b)), nil
}

// PointInt64 is Point for one Int64 column, without allocation.
func (Yugabyte) PointInt64(v int64) uint64 {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(v))
	return uint64(YBHashCode(b[:]))
}

// Layout returns the n tablets of CreateHashPartitions (n <= 65536).
func (Yugabyte) Layout(n int) (Layout, error) {
	if err := checkShards(n); err != nil {
		return nil, err
	}
	if n > 1<<16 {
		return nil, fmt.Errorf("yugabyte: %d tablets: at most 65536", n)
	}
	return YBTablets{uint64(n)}, nil
}

// YBTablets is the tablet layout of a hash-sharded YugabyteDB table with N
// tablets: tablet i owns hash codes [i*65536/N, (i+1)*65536/N). It is
// Ranges (see Ranges) computed in O(1).
type YBTablets struct{ n uint64 }

func (l YBTablets) Shards() int { return int(l.n) }

// Shard returns the largest i with i*65536/N <= p, which is
// ((p+1)*N - 1) / 65536.
func (l YBTablets) Shard(p uint64) int {
	p = min(p, 65535)
	return int(((p+1)*l.n - 1) >> 16)
}

// Ranges returns the same layout as tablet start hash codes.
func (l YBTablets) Ranges() Ranges {
	starts := make([]uint64, l.n)
	for i := range starts {
		starts[i] = uint64(i) * 65536 / l.n
	}
	return Ranges{Starts: starts}
}

// YBHashCode returns yb_hash_code of the compound key bytes b.
func YBHashCode(b []byte) uint16 {
	h := ybHash64(b, 97)
	return uint16((h >> 48) ^ 3*(h>>32) ^ 5*(h>>16) ^ 7*(h&0xFFFF))
}

func ybMix(a, b, c uint64) (uint64, uint64, uint64) {
	a -= b
	a -= c
	a ^= c >> 43
	b -= c
	b -= a
	b ^= a << 9
	c -= a
	c -= b
	c ^= b >> 8
	a -= b
	a -= c
	a ^= c >> 38
	b -= c
	b -= a
	b ^= a << 23
	c -= a
	c -= b
	c ^= b >> 5
	a -= b
	a -= c
	a ^= c >> 35
	b -= c
	b -= a
	b ^= a << 49
	c -= a
	c -= b
	c ^= b >> 11
	a -= b
	a -= c
	a ^= c >> 12
	b -= c
	b -= a
	b ^= a << 18
	c -= a
	c -= b
	c ^= b >> 22
	return a, b, c
}

// ybHash64 is Hash64StringWithSeed: lookup2 with 64-bit words, 24-byte
// blocks as three little-endian words, the length added to c and the tail
// bytes 16..22 added to c from bit 8 up (the low byte of c is the length's).
func ybHash64(s []byte, c uint64) uint64 {
	a := uint64(0xe08c1d668b756f82)
	b := a
	n := len(s)
	for len(s) >= 24 {
		a += binary.LittleEndian.Uint64(s)
		b += binary.LittleEndian.Uint64(s[8:])
		c += binary.LittleEndian.Uint64(s[16:])
		a, b, c = ybMix(a, b, c)
		s = s[24:]
	}
	c += uint64(uint32(n))
	for i := len(s) - 1; i >= 0; i-- {
		switch {
		case i >= 16:
			c += uint64(s[i]) << (8 * (i - 15))
		case i >= 8:
			b += uint64(s[i]) << (8 * (i - 8))
		default:
			a += uint64(s[i]) << (8 * i)
		}
	}
	_, _, c = ybMix(a, b, c)
	return c
}
