package partition

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/shardkey/shardkey"
)

// MongoDB is MongoDB's hashed shard key (mongodb/mongo src/mongo/db/hasher.cpp
// BSONElementHasher::hash64 and recursiveHash, test vectors in
// src/mongo/db/hasher_test.cpp; the value of convertShardKeyToHashed):
//
//	hash = int64 little-endian of MD5(seed int32 LE 0 ++ canonicalType int32 LE ++ value)[0:8]
//
// The top-level element has no field name. Numbers of every type are
// squashed to one int64 (safeNumberLongForHash) and written as 8 bytes LE,
// so 42, NumberLong(42) and 42.9 hash alike: doubles truncate toward zero,
// NaN is 0, values >= 2^63 are INT64_MAX and below -2^63 INT64_MIN (canonical
// type 10). Text is a BSON string (int32 LE length with the NUL, bytes, NUL;
// type 15); Bytes BinData subtype 0 and UUID BinData subtype 4 (int32 LE
// length, subtype, bytes; type 30); Timestamp a BSON Date of its
// milliseconds, floored (int64 LE; type 45); NULL hashes as null (type 5, no
// bytes). A hashed shard key hashes one field, so compound keys are
// rejected.
//
// Hash is the int64; Point is hash + 2^63 as uint64. The layout is the
// initial chunks of an empty collection sharded on n shards with
// numInitialChunks = n (src/mongo/db/s/config/initial_split_policy.cpp
// calculateHashedSplitPoints): intervalSize = (INT64_MAX / n) * 2, split
// points symmetric around 0 (even n: 0, ±interval, ...; odd n: ±interval/2,
// ±3·interval/2, ...), chunk i = [split i-1, split i) on shard i. Real
// clusters may place chunks on shards in another order and the balancer
// moves them later; read config.chunks for a live cluster.
type MongoDB struct{}

var (
	_ Engine       = MongoDB{}
	_ Int64Pointer = MongoDB{}
)

// BSON canonical types (src/mongo/bson/bsontypes.h canonicalizeBSONType).
const (
	mongoMinKey  = -1
	mongoNull    = 5
	mongoNumber  = 10
	mongoString  = 15
	mongoObject  = 20
	mongoArray   = 25
	mongoBinData = 30
	mongoOID     = 35
	mongoBool    = 40
	mongoDate    = 45
	mongoRegex   = 50
	mongoDBRef   = 55
	mongoCode    = 60
	mongoMaxKey  = 127
)

func (MongoDB) Name() string { return "mongodb" }

func (MongoDB) Hash(key []shardkey.Value) (Hash, error) {
	h, err := mongoHash(key)
	return SignedHash(h), err
}

func (m MongoDB) Point(key []shardkey.Value) (uint64, error) {
	if v, ok := singleInt64(key); ok {
		return m.PointInt64(v), nil
	}
	h, err := mongoHash(key)
	return uint64(h) ^ 1<<63, err
}

// PointInt64 is Point for one Int64 column, without allocation.
func (MongoDB) PointInt64(v int64) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(v))
	return uint64(MongoHashElement(mongoNumber, b[:])) ^ 1<<63
}

func mongoHash(key []shardkey.Value) (int64, error) {
	if len(key) != 1 {
		return 0, fmt.Errorf("mongodb: a hashed shard key hashes one field, got %d columns", len(key))
	}
	v := key[0]
	var buf [64]byte
	b := buf[:0]
	var t int32
	switch v.Type {
	case shardkey.Null:
		t = mongoNull
	case shardkey.Int16, shardkey.Int32, shardkey.Int64:
		t = mongoNumber
		b = binary.LittleEndian.AppendUint64(b, uint64(v.Int))
	case shardkey.Uint64:
		t = mongoNumber
		u := uint64(v.Int)
		if u > math.MaxInt64 {
			u = math.MaxInt64
		}
		b = binary.LittleEndian.AppendUint64(b, u)
	case shardkey.Float32:
		t = mongoNumber
		b = binary.LittleEndian.AppendUint64(b, uint64(mongoSafeLong(float64(float32(v.Float)))))
	case shardkey.Float64:
		t = mongoNumber
		b = binary.LittleEndian.AppendUint64(b, uint64(mongoSafeLong(v.Float)))
	case shardkey.Text:
		t = mongoString
		b = appendBSONString(b, v.Str)
	case shardkey.Bytes:
		t = mongoBinData
		b = appendBSONBinData(b, 0, v.Str)
	case shardkey.UUID:
		t = mongoBinData
		b = appendBSONBinData(b, 4, v.Str)
	case shardkey.Timestamp:
		t = mongoDate
		b = binary.LittleEndian.AppendUint64(b, uint64(floorDiv(v.Int, 1000)))
	default:
		return 0, fmt.Errorf("mongodb: cannot hash a %s value", v.Type)
	}
	return MongoHashElement(t, b), nil
}

// mongoSafeLong is safeNumberLongForHash for a double.
func mongoSafeLong(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= 0x1p63:
		return math.MaxInt64
	case f < -0x1p63:
		return math.MinInt64
	}
	return int64(f)
}

func appendBSONString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)+1))
	b = append(b, s...)
	return append(b, 0)
}

func appendBSONBinData(b []byte, subtype byte, data string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	b = append(b, subtype)
	return append(b, data...)
}

// MongoHashElement returns BSONElementHasher::hash64 (seed 0) of a
// top-level element of canonical type canonType whose hashed value bytes
// are value (see MongoDB for the encoding per type).
func MongoHashElement(canonType int32, value []byte) int64 {
	var buf [128]byte
	b := binary.LittleEndian.AppendUint32(buf[:0], 0) // seed
	b = binary.LittleEndian.AppendUint32(b, uint32(canonType))
	b = append(b, value...)
	sum := md5.Sum(b)
	return int64(binary.LittleEndian.Uint64(sum[:8]))
}

// Layout returns the n initial chunks of calculateHashedSplitPoints, chunk
// i on shard i.
func (MongoDB) Layout(n int) (Layout, error) {
	if err := checkShards(n); err != nil {
		return nil, err
	}
	splits := MongoHashedSplitPoints(n)
	starts := make([]uint64, 1, n)
	for _, s := range splits {
		starts = append(starts, uint64(s)^1<<63)
	}
	return Ranges{Starts: starts}, nil
}

// MongoHashedSplitPoints returns the sorted split points (hash values) of
// calculateHashedSplitPoints for numInitialChunks = n (none for n = 1).
func MongoHashedSplitPoints(n int) []int64 {
	if n <= 1 {
		return nil
	}
	interval := (int64(math.MaxInt64) / int64(n)) * 2
	var splits []int64
	var cur int64
	if n%2 == 0 {
		splits = append(splits, cur)
		cur += interval
	} else {
		cur += interval / 2
	}
	for i := 0; i < (n-1)/2; i++ {
		splits = append(splits, cur, -cur)
		cur += interval
	}
	sort.Slice(splits, func(i, j int) bool { return splits[i] < splits[j] })
	return splits
}
