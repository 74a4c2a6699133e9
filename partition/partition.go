// Package partition holds the partition functions of real systems, one file
// per system, each placing keys bit for bit as that system does and checked
// against vectors taken from the system's own tests (testdata/vectors).
//
// A placement has two steps, as in most sharded databases:
//
//	key (one shardkey.Value per key column)
//	  --Engine.Point-->  64-bit routing point (a hash, token, slot or keyspace-id prefix)
//	  --Layout.Shard-->  shard 0..n-1
//
// Engine.Hash returns the engine's own hash value for display (a Redis slot,
// a Cassandra token, a Vitess keyspace id in hex), which may carry more than
// the 64-bit point. Layout is the assignment of points to shards as the
// system creates it for n shards; engines that add a shard their own way
// (Redis slot migration, Cassandra new-node tokens, Vitess range splits)
// also implement Grower.
//
// Engines are safe for concurrent use; Layouts are immutable once built.
package partition

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/shardkey/shardkey"
)

// Engine is one system's partition function.
type Engine interface {
	// Name returns the --engine name, options included (e.g. "ring:vnodes=64").
	Name() string
	// Hash returns the engine's own hash value for key, one Value per key
	// column in key order. It fails with ErrNoDestination for keys the
	// system cannot place (a NULL where the system rejects it, a negative
	// value for Vitess numeric) and with an error naming the type for value
	// types the engine cannot serialise.
	Hash(key []shardkey.Value) (Hash, error)
	// Point returns the 64-bit routing point of key, the input of
	// Layout.Shard. It fails as Hash does.
	Point(key []shardkey.Value) (uint64, error)
	// Layout returns the placement of points on n shards (n >= 1) as the
	// system creates a fresh cluster, table or topic with n shards.
	Layout(n int) (Layout, error)
}

// Layout maps routing points to shards.
type Layout interface {
	// Shards returns the number of shards, n.
	Shards() int
	// Shard returns the shard of point p, in 0..n-1.
	Shard(p uint64) int
}

// Grower is implemented by engines that add shards their own way rather
// than by building a fresh Layout: Redis moves slots to the new master,
// Cassandra gives a new node its own tokens, Vitess splits a range.
// Grow returns the layout after growing l to `to` shards; the shards of l
// keep their indices.
type Grower interface {
	Grow(l Layout, to int) (Layout, error)
}

// Int64Pointer is implemented by engines with an allocation-free fast path
// for a single Int64 key column. PointInt64(v) equals
// Point([]shardkey.Value{shardkey.IntValue(v)}) for every v.
type Int64Pointer interface {
	PointInt64(v int64) uint64
}

// PointerMaker is implemented by engines whose Point takes scratch from a
// pool for each key (a hasher, buffers): NewPointer returns a Pointer
// with scratch of its own, for one goroutine's run of many keys (a memo's
// fill), whose Point equals the engine's for every key.
type PointerMaker interface {
	NewPointer() Pointer
}

// Pointer is an engine's Point with scratch of its own (PointerMaker):
// not safe for concurrent use. It may also be an Int64Pointer.
type Pointer interface {
	Point(key []shardkey.Value) (uint64, error)
}

// CanonicalPointer is implemented by engines whose point of any key is a
// function of the key's canonical encoding alone (AppendCanonicalRow) and
// that place every key, so that rows can be routed from their columns'
// bytes without building values: PointCanonical(enc) equals Point(key)
// when enc is key's encoding.
type CanonicalPointer interface {
	PointCanonical(enc []byte) uint64
}

// Pool is implemented by engines configured with a fixed pool of named
// servers (ketama and ring with the option servers=): their Layout(n)
// needs n = len(ServerNames()), and shard i is server ServerNames()[i].
type Pool interface {
	ServerNames() []string
}

// ErrNoDestination is returned for keys a system cannot place.
var ErrNoDestination = errors.New("no destination for key")

// noDestination is an ErrNoDestination that says why in its own words.
type noDestination struct{ msg string }

func (e noDestination) Error() string        { return e.msg }
func (e noDestination) Is(target error) bool { return target == ErrNoDestination }

// IsNoDestination reports whether err is ErrNoDestination.
func IsNoDestination(err error) bool { return errors.Is(err, ErrNoDestination) }

// errNoDestination returns an error that is ErrNoDestination (errors.Is)
// with the message fmt.Sprintf(format, args...).
func errNoDestination(format string, args ...any) error {
	return noDestination{fmt.Sprintf(format, args...)}
}

// HashKind says how a Hash is shown.
type HashKind uint8

const (
	Signed   HashKind = iota // Int holds a signed value (tokens, int32 hashes)
	Unsigned                 // Int holds the bits of an unsigned value (slots, uint64 digests)
	Hex                      // Hex holds a byte string in lowercase hex (Vitess keyspace ids)
)

// Hash is an engine's own hash value of a key: a Redis slot, a Cassandra
// token, a MongoDB hashed int64, a Vitess keyspace id. It marshals to JSON as
// an integer (exact, even for 64-bit values) or, for Hex, a string.
type Hash struct {
	Kind HashKind
	Int  int64
	Hex  string
}

// SignedHash, UnsignedHash and HexHash build Hash values.
func SignedHash(v int64) Hash    { return Hash{Kind: Signed, Int: v} }
func UnsignedHash(v uint64) Hash { return Hash{Kind: Unsigned, Int: int64(v)} }
func HexHash(b []byte) Hash      { return Hash{Kind: Hex, Hex: fmt.Sprintf("%x", b)} }

func (h Hash) String() string {
	switch h.Kind {
	case Unsigned:
		return strconv.FormatUint(uint64(h.Int), 10)
	case Hex:
		return h.Hex
	}
	return strconv.FormatInt(h.Int, 10)
}

// MarshalJSON writes integers as JSON numbers and Hex as a JSON string.
func (h Hash) MarshalJSON() ([]byte, error) {
	if h.Kind == Hex {
		return json.Marshal(h.Hex)
	}
	return []byte(h.String()), nil
}

// checkShards validates a shard count for Layout.
func checkShards(n int) error {
	if n < 1 {
		return fmt.Errorf("shard count %d: must be at least 1", n)
	}
	return nil
}
