package partition

import (
	"encoding/binary"
	"math"
	"strconv"
	"time"

	"github.com/shardkey/shardkey"
)

// appendCanonical appends shardkey's own serialisation of key, used by the
// engines that are not a real system's (generic, ring, jump on non-integer
// keys). Integers of every width, timestamps and uint64 are 8 bytes
// little-endian of their 64-bit value, so the same number co-locates whatever
// its declared width; floats are their float64 bits; text, bytes and UUIDs
// are their raw bytes; NULL is empty. In a compound key each variable-length
// part is preceded by its length as a uvarint, so ("ab","c") != ("a","bc").
func appendCanonical(b []byte, key []shardkey.Value) []byte {
	for _, v := range key {
		b = appendCanonicalPart(b, v, len(key) > 1)
	}
	return b
}

// appendCanonicalPart appends one part of a key (multi: of a compound
// key) as appendCanonical encodes it.
func appendCanonicalPart(b []byte, v shardkey.Value, multi bool) []byte {
	switch v.Type {
	case shardkey.Int16, shardkey.Int32, shardkey.Int64, shardkey.Uint64, shardkey.Timestamp, shardkey.Date, shardkey.Bool:
		b = binary.LittleEndian.AppendUint64(b, uint64(v.Int))
	case shardkey.Float32:
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(float32(v.Float))))
	case shardkey.Float64:
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float))
	case shardkey.Null:
		if multi {
			b = append(b, 0)
		}
	default:
		if multi {
			b = binary.AppendUvarint(b, uint64(len(v.Str)))
		}
		b = append(b, v.Str...)
	}
	return b
}

// AppendCanonicalRow appends the canonical encoding (appendCanonical) of
// the key tuple of row i over cols, read straight from the columns, for
// engines that are CanonicalPointers.
func AppendCanonicalRow(b []byte, cols []*shardkey.Column, i int) []byte {
	for _, c := range cols {
		b = appendCanonicalPart(b, c.Value(i), len(cols) > 1)
	}
	return b
}

// asSQL returns v as a column of a SQL or CQL database holds it, for the
// engines of those systems, which have no ObjectId type: an ObjectID as
// its 12 bytes (a BINARY(12), bytea or blob column). Other values are
// returned unchanged; a Date is a SQL DATE there (see dateDays).
func asSQL(v shardkey.Value) shardkey.Value {
	if v.Type == shardkey.ObjectID {
		return shardkey.Value{Type: shardkey.Bytes, Str: v.Str}
	}
	return v
}

// dateDays returns the day of a Date value (milliseconds since the Unix
// epoch), counted from 1970-01-01 and floored: the SQL DATE of that
// instant in UTC, as the SQL and CQL engines take a date column.
func dateDays(ms int64) int64 { return floorDiv(ms, 86400000) }

// textKey appends the parts' text forms joined by sep: seed 000's
// "|".join(map(str, parts)). Integers are formatted by formatInt64, not
// through Value.AppendText's strconv.AppendInt (the same text: seed 000's
// blake2b hashes millions of ids; BenchmarkTextKey).
func textKey(b []byte, key []shardkey.Value, sep byte) []byte {
	for i, v := range key {
		if i > 0 {
			b = append(b, sep)
		}
		switch v.Type {
		case shardkey.Int16, shardkey.Int32, shardkey.Int64:
			var d [20]byte
			b = append(b, formatInt64(&d, v.Int)...)
		case shardkey.Text:
			b = append(b, v.Str...)
		default:
			b = v.AppendText(b)
		}
	}
	return b
}

// digitPairs holds "00" to "99", for formatting two digits per division.
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

// formatInt64 returns v in decimal, as strconv.FormatInt(v, 10), written
// at the end of buf. It is the Int64 fast path of engines that hash a
// key's decimal text (Redis, ketama, Elasticsearch, the Vitess xxhash and
// md5 vindexes, CockroachDB's first generation): about 40% faster than
// strconv.AppendInt into a stack buffer, which copies its result and
// costs as much as the hash of seven digits.
func formatInt64(buf *[20]byte, v int64) []byte {
	u := uint64(v)
	if v < 0 {
		u = -u
	}
	i := len(buf)
	for u >= 100 {
		q := u / 100
		r := (u - q*100) * 2
		i -= 2
		buf[i], buf[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
	if u >= 10 {
		i -= 2
		buf[i], buf[i+1] = digitPairs[u*2], digitPairs[u*2+1]
	} else {
		i--
		buf[i] = byte('0' + u)
	}
	if v < 0 {
		i--
		buf[i] = '-'
	}
	return buf[i:]
}

// appendSQLDate appends a Date's day as a SQL DATE's text, 2006-01-02
// (days outside years 0000..9999 as their count since the epoch).
func appendSQLDate(b []byte, ms int64) []byte {
	d := dateDays(ms)
	if d < -719528 || d > 2932896 {
		return strconv.AppendInt(b, d, 10)
	}
	return time.Unix(d*86400, 0).UTC().AppendFormat(b, "2006-01-02")
}
