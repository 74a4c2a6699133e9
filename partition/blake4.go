package partition

import (
	"encoding/binary"
	"math/bits"

	"github.com/shardkey/shardkey"
)

//go:generate go run ./internal/blake4gen -out blake4_amd64.s

// Pointer4 is implemented by Pointers that compute four keys' points at
// once faster than one by one (Blake2b's: four messages in the four 64-bit
// lanes of the AVX2 registers), for a memo's fill, which hashes every
// distinct key value of a row sample. Point4 sets out[i] to the Pointer's
// Point of keys[i]; when a key's point fails it returns the error and out
// is not set (the caller takes the keys one by one).
type Pointer4 interface {
	Point4(keys *[4][]shardkey.Value, out *[4]uint64) error
}

// Int64Pointer4 is Pointer4 for one Int64 (Int16, Int32) column:
// PointInt64x4 sets out[i] to PointInt64(vs[i]).
type Int64Pointer4 interface {
	PointInt64x4(vs *[4]int64, out *[4]uint64)
}

var (
	_ Pointer4      = (*blakeState)(nil)
	_ Int64Pointer4 = (*blakeState)(nil)
)

// blakeLanes are four single-block BLAKE2b messages (RFC 7693) laid out
// for blake4AVX2: word w of message l at m[w][l], little-endian, zero
// past the message; t[l] its length in bytes (the block counter of its
// one and last block).
type blakeLanes struct {
	m   [16][4]uint64
	t   [4]uint64
	out [4]uint64
}

// set puts text, at most 128 bytes, in lane l.
func (q *blakeLanes) set(l int, text []byte) {
	var buf [128]byte
	copy(buf[:], text)
	for w := range q.m {
		q.m[w][l] = binary.LittleEndian.Uint64(buf[8*w:])
	}
	q.t[l] = uint64(len(text))
}

// sum sets out to the four messages' points: the big-endian number of
// each 8-byte digest, whose bytes are the little-endian bytes of the
// final state's first word.
func (q *blakeLanes) sum(out *[4]uint64) {
	blake4AVX2(&q.m, &q.t, &q.out)
	for l, w := range q.out {
		out[l] = bits.ReverseBytes64(w)
	}
}

// PointInt64x4 is PointInt64 of four values (Int64Pointer4); texts by
// PointInt64's step from the last value, so values in ascending order
// (a fill's) are written by a carry or two.
func (st *blakeState) PointInt64x4(vs *[4]int64, out *[4]uint64) {
	if !useBlake4 {
		for l, v := range vs {
			out[l] = st.PointInt64(v)
		}
		return
	}
	for l, v := range vs {
		st.lanes.set(l, st.int64Text(v))
	}
	st.lanes.sum(out)
}

// Point4 is Point of four keys (Pointer4): their texts hashed side by
// side when each fits one block (128 bytes), else one by one.
func (st *blakeState) Point4(keys *[4][]shardkey.Value, out *[4]uint64) error {
	if useBlake4 {
		fits := true
		for l, key := range keys {
			text := textKey(st.buf[:0], key, '|')
			if len(text) > 128 {
				fits = false
				break
			}
			st.lanes.set(l, text)
		}
		if fits {
			st.lanes.sum(out)
			return nil
		}
	}
	for l, key := range keys {
		out[l] = st.sum64(textKey(st.buf[:0], key, '|'))
	}
	return nil
}
