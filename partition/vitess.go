package partition

import (
	"crypto/cipher"
	"crypto/des"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/bits"
	"strconv"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/shardkey/shardkey"
)

// Vitess is a Vitess vindex: a function from a column value to a keyspace
// id (ksid), a byte string that shards own in ranges. From vitessio/vitess
// (module vitess.io/vitess v0.24.4): go/vt/vtgate/vindexes/hash.go,
// xxhash.go, binarymd5.go, unicodeloosemd5.go, unicodeloosexxhash.go,
// unicode.go, numeric.go, reverse_bits.go, and go/vt/key/key.go
// (EvenShardsKeyRange, GenerateShardRanges).
//
//   - vitess (hash): the value as a uint64 (signed integers two's
//     complement, text parsed as an unsigned decimal), 8 bytes big-endian,
//     encrypted with single DES under an all-zero key.
//   - vitess-xxhash: XXH64 (seed 0) of the value's SQL text, as 8
//     little-endian bytes.
//   - vitess-binary-md5: MD5 of the value's SQL text (16 bytes).
//   - vitess-unicode-loose-md5, vitess-unicode-loose-xxhash: trailing
//     spaces trimmed, then MD5 or XXH64 of the case- and accent-insensitive
//     collation key (see vitess_unicode.go).
//   - vitess-numeric: the uint64 itself, 8 bytes big-endian.
//   - vitess-reverse-bits: the uint64 bit-reversed, 8 bytes big-endian.
//
// A value's SQL text is what MySQL sends: integers in decimal, text and
// bytes raw, NULL empty (xxhash, md5 and unicode_loose hash NULL as the
// empty string), UUIDs in their 36-character form (a CHAR(36) column),
// timestamps as DATETIME text "2006-01-02 15:04:05.999999" (UTC) and floats
// in Go's shortest form, which may differ from MySQL's for large exponents.
// hash, numeric and reverse_bits map NULL, non-numeric text, floats, UUIDs
// and timestamps to no destination (ErrNoDestination), as their Map does;
// numeric and reverse_bits also reject negative integers. unicode_loose_*
// fail on invalid UTF-8. Vindexes are single-column.
//
// Hash is the ksid in lowercase hex. Point is the ksid's first 8 bytes,
// big-endian (zero-padded), which orders points as Vitess orders ksids
// against shard boundaries of at most 8 bytes. Layout(n) is n even shards:
// for a power of two, key.EvenShardsKeyRange's boundaries i*2^64/n written
// in the minimal number of bytes ("-80", "80-"; 256 shards "00"-"ff"
// boundaries); otherwise GenerateShardRanges' boundaries
// int(i*16^w/n) in w = 2 hex digits (n <= 256) or 4 (n <= 65536).
// Grow reshards as Vitess does, by splitting: each step splits the widest
// range (the lowest-keyed one on ties, so 4 even shards grow by splitting
// "-40") at its midpoint; the lower half keeps its shard index and the
// upper half becomes the new shard. Checked against
// testdata/vectors/vitess_vindexes.json, ksids and shard names.
type Vitess struct{ kind vtKind }

type vtKind uint8

const (
	vtHash vtKind = iota
	vtXXHash
	vtBinaryMD5
	vtUnicodeLooseMD5
	vtUnicodeLooseXXHash
	vtNumeric
	vtReverseBits
)

var vtNames = [...]string{
	vtHash:               "vitess",
	vtXXHash:             "vitess-xxhash",
	vtBinaryMD5:          "vitess-binary-md5",
	vtUnicodeLooseMD5:    "vitess-unicode-loose-md5",
	vtUnicodeLooseXXHash: "vitess-unicode-loose-xxhash",
	vtNumeric:            "vitess-numeric",
	vtReverseBits:        "vitess-reverse-bits",
}

var (
	_ Engine       = Vitess{}
	_ Int64Pointer = Vitess{}
	_ Grower       = Vitess{}
)

// VitessNumeric is the numeric and reverse_bits vindexes (see Vitess).
// It is a type of its own because they have no destination for negative
// integers, so they cannot offer Int64Pointer's infallible fast path.
type VitessNumeric struct{ v Vitess }

var (
	_ Engine = VitessNumeric{}
	_ Grower = VitessNumeric{}
)

func (n VitessNumeric) Name() string                            { return n.v.Name() }
func (n VitessNumeric) Hash(key []shardkey.Value) (Hash, error) { return n.v.Hash(key) }
func (n VitessNumeric) Point(key []shardkey.Value) (uint64, error) {
	if x, ok := singleInt64(key); ok && x >= 0 { // fast path: the ksid is the value
		if n.v.kind == vtReverseBits {
			return bits.Reverse64(uint64(x)), nil
		}
		return uint64(x), nil
	}
	return n.v.Point(key)
}
func (n VitessNumeric) Layout(shards int) (Layout, error)     { return n.v.Layout(shards) }
func (n VitessNumeric) Grow(l Layout, to int) (Layout, error) { return n.v.Grow(l, to) }

// vtDES is the hash vindex's cipher: single DES, all-zero key.
var vtDES = func() cipher.Block {
	b, err := des.NewCipher(make([]byte, 8))
	if err != nil {
		panic(err)
	}
	return b
}()

func (v Vitess) Name() string { return vtNames[v.kind] }

func (v Vitess) Hash(key []shardkey.Value) (Hash, error) {
	var buf [16]byte
	ksid, err := v.keyspaceID(buf[:0], key)
	if err != nil {
		return Hash{}, err
	}
	return HexHash(ksid), nil
}

func (v Vitess) Point(key []shardkey.Value) (uint64, error) {
	if v.kind == vtXXHash {
		// Fast paths: the keyspace id is the little-endian XXH64, so its
		// big-endian prefix is the byte-reversed hash.
		if x, ok := singleInt64(key); ok {
			return v.PointInt64(x), nil
		}
		if s, ok := singleRaw(key); ok {
			return bits.ReverseBytes64(xxhash.Sum64String(s)), nil
		}
	}
	var buf [16]byte
	ksid, err := v.keyspaceID(buf[:0], key)
	if err != nil {
		return 0, err
	}
	var p [8]byte
	copy(p[:], ksid)
	return binary.BigEndian.Uint64(p[:]), nil
}

// PointInt64 is Point for one Int64 column, without allocation for every
// vindex but unicode_loose_*. (numeric and reverse_bits, which reject
// negative integers, are VitessNumeric and have no such fast path.)
func (v Vitess) PointInt64(x int64) uint64 {
	var digits [20]byte
	switch v.kind {
	case vtHash:
		return vtDESPoint(uint64(x))
	case vtXXHash:
		return bits.ReverseBytes64(xxhash.Sum64(formatInt64(&digits, x)))
	case vtBinaryMD5:
		sum := md5.Sum(formatInt64(&digits, x))
		return binary.BigEndian.Uint64(sum[:8])
	}
	p, _ := v.Point([]shardkey.Value{shardkey.IntValue(x)})
	return p
}

func vtDESPoint(u uint64) uint64 {
	var in, out [8]byte
	binary.BigEndian.PutUint64(in[:], u)
	vtDES.Encrypt(out[:], in[:])
	return binary.BigEndian.Uint64(out[:])
}

// keyspaceID appends the ksid of key to b.
func (v Vitess) keyspaceID(b []byte, key []shardkey.Value) ([]byte, error) {
	if len(key) != 1 {
		return nil, fmt.Errorf("%s: a vindex maps one column, not %d (a key of several columns is Vitess's multicol vindex: --engine vitess-multicol)", v.Name(), len(key))
	}
	x := asSQL(key[0])
	switch v.kind {
	case vtHash, vtNumeric, vtReverseBits:
		u, ok := vtUint64(x, v.kind == vtHash)
		if !ok {
			return nil, vtNoDestination(v, x)
		}
		switch v.kind {
		case vtHash:
			return binary.BigEndian.AppendUint64(b, vtDESPoint(u)), nil
		case vtReverseBits:
			u = bits.Reverse64(u)
		}
		return binary.BigEndian.AppendUint64(b, u), nil
	}
	if v.kind == vtUnicodeLooseMD5 || v.kind == vtUnicodeLooseXXHash {
		// A buffer of its own: the collator's hash.Hash makes it escape.
		return vtUnicodeLoose(b, vtSQLText(nil, x), v.kind == vtUnicodeLooseMD5)
	}
	if v.kind == vtXXHash && (x.Type == shardkey.Text || x.Type == shardkey.Bytes) {
		return binary.LittleEndian.AppendUint64(b, xxhash.Sum64String(x.Str)), nil
	}
	var raw [64]byte
	text := vtSQLText(raw[:0], x)
	if v.kind == vtXXHash {
		return binary.LittleEndian.AppendUint64(b, xxhash.Sum64(text)), nil
	}
	sum := md5.Sum(text)
	return append(b, sum[:]...), nil
}

// vtUint64 converts x as the hash (signedOK) or numeric/reverse_bits
// vindexes do; ok is false where their Map returns DestinationNone.
func vtUint64(x shardkey.Value, signedOK bool) (uint64, bool) {
	switch x.Type {
	case shardkey.Int16, shardkey.Int32, shardkey.Int64:
		if x.Int < 0 && !signedOK {
			return 0, false
		}
		return uint64(x.Int), true
	case shardkey.Uint64:
		return x.Uint(), true
	case shardkey.Text, shardkey.Bytes:
		return vtParseUint64(x.Str)
	}
	return 0, false
}

// vtParseUint64 is fastparse.ParseUint64(s, 10) as ToCastUint64 calls it:
// optional surrounding whitespace, decimal digits, no sign, no overflow.
func vtParseUint64(s string) (uint64, bool) {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' }
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	j := i
	var d uint64
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		hi, lo := bits.Mul64(d, 10)
		lo, carry := bits.Add64(lo, uint64(s[i]-'0'), 0)
		if hi != 0 || carry != 0 {
			return 0, false
		}
		d = lo
	}
	if i == j {
		return 0, false
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return d, i == len(s)
}

// vtSQLText appends the bytes MySQL would send for x (see Vitess).
func vtSQLText(b []byte, x shardkey.Value) []byte {
	switch x.Type {
	case shardkey.Null:
		return b
	case shardkey.Text, shardkey.Bytes:
		return append(b, x.Str...)
	case shardkey.Float32:
		return strconv.AppendFloat(b, float64(float32(x.Float)), 'g', -1, 32)
	case shardkey.Float64:
		return strconv.AppendFloat(b, x.Float, 'g', -1, 64)
	case shardkey.Timestamp:
		return time.UnixMicro(x.Int).UTC().AppendFormat(b, "2006-01-02 15:04:05.999999")
	case shardkey.Date:
		return appendSQLDate(b, x.Int)
	}
	return x.AppendText(b) // integers in decimal, UUIDs 8-4-4-4-12
}

func (v Vitess) Layout(n int) (Layout, error) {
	if err := checkShards(n); err != nil {
		return nil, err
	}
	l := &VitessLayout{starts: make([]uint64, n), owner: make([]int32, n)}
	if n&(n-1) == 0 {
		for nn := uint64(n - 1); nn > 0; nn >>= 8 {
			l.width++
		}
		w := ^uint64(0)/uint64(n) + 1 // 2^64/n; 0 when n == 1, unused
		for i := range n {
			l.starts[i] = uint64(i) * w
			l.owner[i] = int32(i)
		}
		return l, nil
	}
	hexWidth := 2
	if n > 256 {
		hexWidth = 4
	}
	if n > 65536 {
		return nil, fmt.Errorf("%s: %d shards: Vitess generates at most 65536 uneven shards", v.Name(), n)
	}
	maxShards := float64(uint64(1) << (4 * hexWidth))
	l.width = hexWidth / 2
	for i := range n {
		l.starts[i] = uint64(float64(i)*maxShards/float64(n)) << (64 - 4*hexWidth)
		l.owner[i] = int32(i)
	}
	return l, nil
}

// Grow splits ranges until there are `to` shards (see Vitess).
func (v Vitess) Grow(l Layout, to int) (Layout, error) {
	vl, ok := l.(*VitessLayout)
	if !ok {
		return nil, fmt.Errorf("%s: cannot grow a %T", v.Name(), l)
	}
	if to < len(vl.starts) {
		return nil, fmt.Errorf("%s: cannot merge %d shards into %d", v.Name(), len(vl.starts), to)
	}
	g := &VitessLayout{
		starts: append([]uint64(nil), vl.starts...),
		owner:  append([]int32(nil), vl.owner...),
		width:  vl.width,
	}
	for len(g.starts) < to {
		j, half := 0, uint64(1)<<63 // one shard: split at 80
		if len(g.starts) > 1 {
			var widest uint64
			for i := range g.starts {
				if w := g.end(i) - g.starts[i]; w > widest {
					j, widest = i, w
				}
			}
			half = widest / 2
		}
		if half == 0 {
			return nil, fmt.Errorf("%s: cannot split a one-ksid range", v.Name())
		}
		g.starts = append(g.starts, 0)
		g.owner = append(g.owner, 0)
		copy(g.starts[j+2:], g.starts[j+1:])
		copy(g.owner[j+2:], g.owner[j+1:])
		g.starts[j+1] = g.starts[j] + half
		g.owner[j+1] = int32(len(g.starts) - 1)
	}
	return g, nil
}

// VitessLayout is a set of keyspace-id ranges: the range starting at
// starts[i] (up to starts[i+1], the last to the top) belongs to shard
// owner[i].
type VitessLayout struct {
	starts []uint64
	owner  []int32
	width  int // boundary bytes in shard names
}

func (l *VitessLayout) Shards() int { return len(l.starts) }

func (l *VitessLayout) Shard(p uint64) int {
	// The last start <= p (starts[0] is 0), by hand: sort.Search's
	// closure costs as much as the hash.
	lo, hi := 0, len(l.starts)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if l.starts[m] <= p {
			lo = m
		} else {
			hi = m
		}
	}
	return int(l.owner[lo])
}

// end returns the exclusive end of range i, 0 standing for 2^64 for the
// last one (so end - start is its width for every range but a lone one).
func (l *VitessLayout) end(i int) uint64 {
	if i+1 < len(l.starts) {
		return l.starts[i+1]
	}
	return 0
}

// ShardName returns shard i's Vitess name, "start-end" in hex with empty
// ends for the bottom and top of the keyspace ("-80", "40-80", "c0-").
func (l *VitessLayout) ShardName(i int) string {
	for j, o := range l.owner {
		if int(o) == i {
			return l.boundary(l.starts[j]) + "-" + l.boundary(l.end(j))
		}
	}
	return ""
}

func (l *VitessLayout) boundary(b uint64) string {
	if b == 0 {
		return ""
	}
	n := max(l.width, 8-bits.TrailingZeros64(b)/8)
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], b)
	return hex.EncodeToString(buf[:n])
}

// vtNoDestination is the error for a value a numeric vindex maps to
// DestinationNone, saying why (the vindex's Map in go/vt/vtgate/vindexes).
func vtNoDestination(v Vitess, x shardkey.Value) error {
	vindex := map[vtKind]string{vtHash: "hash", vtNumeric: "numeric", vtReverseBits: "reverse_bits"}[v.kind]
	var why string
	switch {
	case x.IsNull():
		why = "NULL"
	case x.Type.IsInt() && x.Type != shardkey.Timestamp && x.Int < 0:
		why = fmt.Sprintf("%d is negative", x.Int)
	case x.Type == shardkey.Text || x.Type == shardkey.Bytes:
		why = fmt.Sprintf("%q is not an unsigned 64-bit integer", x.Str)
	default:
		why = "a " + x.Type.String() + " value is not an unsigned 64-bit integer"
	}
	return errNoDestination("%s: the %s vindex maps unsigned integers only; %s: DestinationNone", v.Name(), vindex, why)
}
