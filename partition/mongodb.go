package partition

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

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
// bytes); ObjectID its 12 bytes (type 35); Date its int64 LE milliseconds
// (type 45); Bool one byte (type 40); any other BSON value (ExtJSON) as
// recursiveHash hashes it (MongoHashBSON). A hashed shard key hashes one
// field, so compound keys are rejected here: a compound key with one
// hashed field is a MongoPattern.
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
	mongoMinKey     = -1
	mongoNull       = 5
	mongoNumber     = 10
	mongoString     = 15
	mongoObject     = 20
	mongoArray      = 25
	mongoBinData    = 30
	mongoOID        = 35
	mongoBool       = 40
	mongoDate       = 45
	mongoRegex      = 50
	mongoDBRef      = 55
	mongoCode       = 60
	mongoCodeWScope = 65
	mongoMaxKey     = 127
)

// mongoCanonicalType is canonicalizeBSONType (src/mongo/bson/bsontypes.h)
// of BSON type byte t, with Timestamp hashed as a Date (45), as
// hasher_test.cpp asserts (Timestamp(0, 0) and Date(0) hash alike); ok is
// false for a byte that is no BSON type.
func mongoCanonicalType(t byte) (c int32, ok bool) {
	switch t {
	case 0xFF:
		return mongoMinKey, true
	case 0x7F:
		return mongoMaxKey, true
	case 0x06: // undefined
		return 0, true
	case 0x0A:
		return mongoNull, true
	case 0x01, 0x10, 0x12, 0x13: // double, int32, int64, decimal128
		return mongoNumber, true
	case 0x02, 0x0E: // string, symbol
		return mongoString, true
	case 0x03:
		return mongoObject, true
	case 0x04:
		return mongoArray, true
	case 0x05:
		return mongoBinData, true
	case 0x07:
		return mongoOID, true
	case 0x08:
		return mongoBool, true
	case 0x09, 0x11: // date, timestamp
		return mongoDate, true
	case 0x0B:
		return mongoRegex, true
	case 0x0C: // DBPointer ("DBRef" in hasher.cpp)
		return mongoDBRef, true
	case 0x0D:
		return mongoCode, true
	case 0x0F:
		return mongoCodeWScope, true
	}
	return 0, false
}

// maxBSONDepth bounds the nesting MongoHashBSON follows (MongoDB's own
// limit on BSON depth is 200 levels).
const maxBSONDepth = 200

// MongoHashBSON returns BSONElementHasher::hash64 (seed 0) of a top-level
// BSON value given as its type byte followed by its BSON value bytes (the
// form of an ExtJSON shardkey.Value), as src/mongo/db/hasher.cpp
// recursiveHash hashes it: canonical type as int32 LE, then for a number
// safeNumberLongForHash as int64 LE, for another scalar its raw value
// bytes, and for an embedded document or array each element hashed with
// its field name (name bytes and NUL) followed by the EOO marker (int32 LE
// 0, no name); a CodeWScope hashes its code and NUL, then its scope's
// elements and EOO. It fails on bytes that are not one BSON value.
func MongoHashBSON(raw string) (int64, error) {
	if len(raw) == 0 {
		return 0, fmt.Errorf("mongodb: empty BSON value")
	}
	var buf [128]byte
	b := binary.LittleEndian.AppendUint32(buf[:0], 0) // seed
	b, n, err := mongoAppendElement(b, raw[0], "", false, raw[1:], 0)
	if err != nil {
		return 0, err
	}
	if n != len(raw)-1 {
		return 0, fmt.Errorf("mongodb: %d bytes after the BSON value", len(raw)-1-n)
	}
	sum := md5.Sum(b)
	return int64(binary.LittleEndian.Uint64(sum[:8])), nil
}

// mongoAppendElement appends recursiveHash's stream for the element of
// type t (named name when withName) whose value starts data, and returns
// the length of the value in data.
func mongoAppendElement(b []byte, t byte, name string, withName bool, data string, depth int) ([]byte, int, error) {
	bad := func(what string) ([]byte, int, error) {
		return b, 0, fmt.Errorf("mongodb: malformed BSON %s", what)
	}
	if depth > maxBSONDepth {
		return bad("value: nested deeper than 200 levels")
	}
	ct, ok := mongoCanonicalType(t)
	if !ok {
		return b, 0, fmt.Errorf("mongodb: unknown BSON type 0x%02x", t)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(ct))
	if withName {
		b = append(append(b, name...), 0)
	}
	le32 := func(off int) (int, bool) {
		if off+4 > len(data) {
			return 0, false
		}
		return int(int32(binary.LittleEndian.Uint32([]byte(data[off : off+4])))), true
	}
	fixed := func(n int) ([]byte, int, error) {
		if len(data) < n {
			return bad("value: too short")
		}
		return append(b, data[:n]...), n, nil
	}
	// str is the length of a BSON string (int32 length with the NUL,
	// bytes, NUL) at off.
	str := func(off int) (int, bool) {
		l, ok := le32(off)
		if !ok || l < 1 || off+4+l > len(data) || data[off+4+l-1] != 0 {
			return 0, false
		}
		return 4 + l, true
	}
	switch t {
	case 0xFF, 0x7F, 0x06, 0x0A:
		return b, 0, nil
	case 0x01:
		if len(data) < 8 {
			return bad("double")
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64([]byte(data[:8])))
		return binary.LittleEndian.AppendUint64(b, uint64(mongoSafeLong(f))), 8, nil
	case 0x10:
		if len(data) < 4 {
			return bad("int32")
		}
		return binary.LittleEndian.AppendUint64(b, uint64(int64(int32(binary.LittleEndian.Uint32([]byte(data[:4])))))), 4, nil
	case 0x12:
		if len(data) < 8 {
			return bad("int64")
		}
		return append(b, data[:8]...), 8, nil
	case 0x13:
		if len(data) < 16 {
			return bad("decimal128")
		}
		d := bson.NewDecimal128(binary.LittleEndian.Uint64([]byte(data[8:16])), binary.LittleEndian.Uint64([]byte(data[:8])))
		return binary.LittleEndian.AppendUint64(b, uint64(mongoDecimalLong(d))), 16, nil
	case 0x02, 0x0D, 0x0E:
		n, ok := str(0)
		if !ok {
			return bad("string")
		}
		return append(b, data[:n]...), n, nil
	case 0x05:
		l, ok := le32(0)
		if !ok || l < 0 || 5+l > len(data) {
			return bad("BinData")
		}
		return append(b, data[:5+l]...), 5 + l, nil
	case 0x07:
		return fixed(12)
	case 0x08:
		return fixed(1)
	case 0x09, 0x11:
		return fixed(8)
	case 0x0B:
		p := strings.IndexByte(data, 0)
		if p < 0 {
			return bad("regex")
		}
		f := strings.IndexByte(data[p+1:], 0)
		if f < 0 {
			return bad("regex")
		}
		n := p + 1 + f + 1
		return append(b, data[:n]...), n, nil
	case 0x0C:
		n, ok := str(0)
		if !ok || n+12 > len(data) {
			return bad("DBPointer")
		}
		return append(b, data[:n+12]...), n + 12, nil
	case 0x03, 0x04:
		l, ok := le32(0)
		if !ok || l < 5 || l > len(data) {
			return bad("document")
		}
		b, err := mongoAppendDocument(b, data[4:l], depth)
		return b, l, err
	case 0x0F:
		l, ok := le32(0)
		if !ok || l < 14 || l > len(data) {
			return bad("CodeWScope")
		}
		n, ok := str(4)
		if !ok || 4+n+5 > l {
			return bad("CodeWScope")
		}
		b = append(b, data[8:4+n]...) // the code and its NUL, no length
		dl, ok := le32(4 + n)
		if !ok || dl < 5 || 4+n+dl != l {
			return bad("CodeWScope scope")
		}
		b, err := mongoAppendDocument(b, data[4+n+4:l], depth)
		return b, l, err
	}
	return bad("value")
}

// mongoAppendDocument appends the stream of a document's elements, body
// being the bytes after its int32 length up to and including its final
// NUL, then the EOO marker.
func mongoAppendDocument(b []byte, body string, depth int) ([]byte, error) {
	for {
		if len(body) == 0 {
			return b, fmt.Errorf("mongodb: malformed BSON document: no end")
		}
		t := body[0]
		if t == 0 {
			if len(body) != 1 {
				return b, fmt.Errorf("mongodb: malformed BSON document: bytes after its end")
			}
			return binary.LittleEndian.AppendUint32(b, 0), nil // EOO, no name
		}
		e := strings.IndexByte(body[1:], 0)
		if e < 0 {
			return b, fmt.Errorf("mongodb: malformed BSON document: unterminated field name")
		}
		name := body[1 : 1+e]
		var n int
		var err error
		if b, n, err = mongoAppendElement(b, t, name, true, body[2+e:], depth+1); err != nil {
			return b, err
		}
		body = body[2+e+n:]
	}
}

// mongoDecimalLong is safeNumberLongForHash of a Decimal128: NaN is 0,
// other values are rounded toward zero and saturated to the int64 range
// (an assumption: no hasher test covers Decimal128).
func mongoDecimalLong(d bson.Decimal128) int64 {
	if d.IsNaN() {
		return 0
	}
	switch d.IsInf() {
	case 1:
		return math.MaxInt64
	case -1:
		return math.MinInt64
	}
	bi, exp, err := d.BigInt()
	if err != nil {
		return 0
	}
	if exp > 0 {
		if exp > 40 && bi.Sign() != 0 {
			if bi.Sign() > 0 {
				return math.MaxInt64
			}
			return math.MinInt64
		}
		bi.Mul(bi, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp)), nil))
	} else if exp < 0 {
		bi.Quo(bi, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-exp)), nil)) // truncates toward zero
	}
	switch {
	case bi.IsInt64():
		return bi.Int64()
	case bi.Sign() > 0:
		return math.MaxInt64
	}
	return math.MinInt64
}

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
	case shardkey.ObjectID:
		if len(v.Str) != 12 {
			return 0, fmt.Errorf("mongodb: an ObjectId has 12 bytes, got %d", len(v.Str))
		}
		t = mongoOID
		b = append(b, v.Str...)
	case shardkey.Date:
		t = mongoDate
		b = binary.LittleEndian.AppendUint64(b, uint64(v.Int))
	case shardkey.Bool:
		t = mongoBool
		b = append(b, byte(v.Int&1))
	case shardkey.ExtJSON:
		return MongoHashBSON(v.Str)
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
