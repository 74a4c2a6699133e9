package partition

import (
	"encoding/binary"
	"math"

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
		switch v.Type {
		case shardkey.Int16, shardkey.Int32, shardkey.Int64, shardkey.Uint64, shardkey.Timestamp:
			b = binary.LittleEndian.AppendUint64(b, uint64(v.Int))
		case shardkey.Float32:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(float32(v.Float))))
		case shardkey.Float64:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float))
		case shardkey.Null:
			if len(key) > 1 {
				b = append(b, 0)
			}
		default:
			if len(key) > 1 {
				b = binary.AppendUvarint(b, uint64(len(v.Str)))
			}
			b = append(b, v.Str...)
		}
	}
	return b
}

// textKey appends the parts' text forms joined by sep: seed 000's
// "|".join(map(str, parts)).
func textKey(b []byte, key []shardkey.Value, sep byte) []byte {
	for i, v := range key {
		if i > 0 {
			b = append(b, sep)
		}
		b = v.AppendText(b)
	}
	return b
}
