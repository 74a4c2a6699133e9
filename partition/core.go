package partition

import (
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"strconv"
	"sync"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/crypto/blake2b"

	"github.com/shardkey/shardkey"
)

// Generic is shardkey's default partition function: XXH64 (seed 0) of the
// key's canonical bytes (see appendCanonical), modulo the shard count.
// The hash is shown as an unsigned 64-bit integer.
type Generic struct{}

var (
	_ Engine           = Generic{}
	_ Int64Pointer     = Generic{}
	_ CanonicalPointer = Generic{}
)

func (Generic) Name() string { return "generic" }

func (g Generic) Hash(key []shardkey.Value) (Hash, error) {
	p, err := g.Point(key)
	return UnsignedHash(p), err
}

func (g Generic) Point(key []shardkey.Value) (uint64, error) {
	if v, ok := singleInt64(key); ok {
		return g.PointInt64(v), nil
	}
	if s, ok := singleRaw(key); ok {
		return xxhash.Sum64String(s), nil // one part: its bytes, no length
	}
	var buf [64]byte
	return xxhash.Sum64(appendCanonical(buf[:0], key)), nil
}

// PointCanonical is Point of the key whose canonical encoding is enc: its
// xxhash64 (one Int64 part's encoding is its 8 bytes, as PointInt64 hashes
// them; one text part's is its bytes).
func (Generic) PointCanonical(enc []byte) uint64 { return xxhash.Sum64(enc) }

// PointInt64 is Point for one Int64 column, without allocation.
func (Generic) PointInt64(v int64) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(v))
	return xxhash.Sum64(b[:])
}

func (Generic) Layout(n int) (Layout, error) { return NewModulo(n) }

// Blake2b is the partition function of seed 000's simulator:
//
//	h(*parts) = int.from_bytes(blake2b("|".join(map(str, parts)).encode(),
//	            digest_size=8).digest(), "big") % M
//
// Values are joined in their Python str() form (shardkey.Value.String).
type Blake2b struct{}

var _ Engine = Blake2b{}

func (Blake2b) Name() string { return "blake2b" }

func (b Blake2b) Hash(key []shardkey.Value) (Hash, error) {
	p, err := b.Point(key)
	return UnsignedHash(p), err
}

func (Blake2b) Point(key []shardkey.Value) (uint64, error) {
	st := blakePool.Get().(*blakeState)
	p, err := st.Point(key)
	blakePool.Put(st)
	return p, err
}

// NewPointer returns Point with a hasher of its own, for one goroutine's
// run of many keys (a memo's fill): no pool taken and returned per key.
// The pointer also has PointInt64, for one Int64 (Int16, Int32) column.
func (Blake2b) NewPointer() Pointer { return newBlakeState() }

// blakeState is an 8-byte-digest BLAKE2b hasher with its scratch: building
// a hasher per key costs more than hashing it, and buffers of its own keep
// the key's text and the digest off the heap (a stack buffer passed to the
// hash.Hash interface escapes). Not safe for concurrent use.
type blakeState struct {
	h   hash.Hash
	buf [128]byte
	sum [8]byte
	// PointInt64's last value and its decimal text, dec[at:] (at 0: none
	// yet): a fill walks a column's values upwards, so the next value's
	// text is mostly the last one's plus a small difference.
	last int64
	at   int
	dec  [20]byte
	// lanes are Point4's and PointInt64x4's four messages.
	lanes blakeLanes
}

var (
	_ Pointer      = (*blakeState)(nil)
	_ Int64Pointer = (*blakeState)(nil)
)

func newBlakeState() *blakeState {
	h, err := blake2b.New(8, nil)
	if err != nil {
		panic(err) // size 8 with no key is always valid
	}
	return &blakeState{h: h}
}

var blakePool = sync.Pool{New: func() any { return newBlakeState() }}

// Point is Blake2b's Point of key.
func (st *blakeState) Point(key []shardkey.Value) (uint64, error) {
	return st.sum64(textKey(st.buf[:0], key, '|')), nil
}

// PointInt64 is Blake2b's Point of one Int64 column holding v: its
// decimal text's hash. A value from 0 to 99 above the last one (both not
// negative) is written by adding the difference to the last text's
// digits, a carry or two, rather than formatted afresh (formatInt64's
// division per two digits).
func (st *blakeState) PointInt64(v int64) uint64 {
	return st.sum64(st.int64Text(v))
}

// int64Text returns v's decimal text, by the step from the last value's
// when it is 0 to 99 above it (PointInt64), in st's scratch.
func (st *blakeState) int64Text(v int64) []byte {
	if c := uint64(v) - uint64(st.last); st.at > 0 && st.last >= 0 && v >= 0 && c < 100 {
		for i := len(st.dec) - 1; c > 0; i-- {
			x := c
			if i >= st.at {
				x += uint64(st.dec[i] - '0')
			} else {
				st.at = i // a new leading digit: 999 + 1
			}
			st.dec[i] = byte('0' + x%10)
			c = x / 10
		}
	} else {
		st.at = len(st.dec) - len(formatInt64(&st.dec, v))
	}
	st.last = v
	return st.dec[st.at:]
}

// sum64 is the big-endian number of text's 8-byte BLAKE2b digest.
func (st *blakeState) sum64(text []byte) uint64 {
	st.h.Reset()
	st.h.Write(text)
	return binary.BigEndian.Uint64(st.h.Sum(st.sum[:0]))
}

func (Blake2b) Layout(n int) (Layout, error) { return NewModulo(n) }

// Modulo places point p on shard p mod n: hash-mod-N sharding. Adding a
// shard moves about n/(n+1) of the keys.
type Modulo struct{ n uint64 }

// NewModulo returns the modulo layout on n shards.
func NewModulo(n int) (Modulo, error) {
	if err := checkShards(n); err != nil {
		return Modulo{}, err
	}
	return Modulo{uint64(n)}, nil
}

func (m Modulo) Shards() int        { return int(m.n) }
func (m Modulo) Shard(p uint64) int { return int(p % m.n) }

// Jump is jump consistent hash (John Lamping and Eric Veach, "A Fast,
// Minimal Memory, Consistent Hash Algorithm", 2014; Guava's
// Hashing.consistentHash is the same function). An integer key is its own
// 64-bit input (two's complement for negatives); other keys are first hashed
// with XXH64 of their canonical bytes, a step the algorithm leaves open.
// Growing n to n+1 moves ~1/(n+1) of keys, all to the new bucket.
type Jump struct{}

var (
	_ Engine       = Jump{}
	_ Int64Pointer = Jump{}
	_ Grower       = Jump{}
)

func (Jump) Name() string { return "jump" }

func (j Jump) Hash(key []shardkey.Value) (Hash, error) {
	p, err := j.Point(key)
	return UnsignedHash(p), err
}

func (Jump) Point(key []shardkey.Value) (uint64, error) {
	if len(key) == 1 && (key[0].Type.IsInt() || key[0].Type == shardkey.Uint64) {
		return uint64(key[0].Int), nil
	}
	return Generic{}.Point(key)
}

func (Jump) PointInt64(v int64) uint64 { return uint64(v) }

func (Jump) Layout(n int) (Layout, error) {
	if err := checkShards(n); err != nil {
		return nil, err
	}
	return JumpLayout{n}, nil
}

// Grow returns the jump layout on `to` buckets: jump hash needs no state.
func (j Jump) Grow(_ Layout, to int) (Layout, error) { return j.Layout(to) }

// JumpLayout maps points with jump consistent hash onto N buckets.
type JumpLayout struct{ N int }

func (l JumpLayout) Shards() int        { return l.N }
func (l JumpLayout) Shard(p uint64) int { return JumpHash(p, l.N) }

// JumpHash returns the bucket of key among n buckets (n >= 1), in 0..n-1.
func JumpHash(key uint64, n int) int {
	var b, j int64 = -1, 0
	for j < int64(n) {
		b = j
		key = key*2862933555777941757 + 1
		j = int64(float64(b+1) * (float64(int64(1)<<31) / float64((key>>33)+1)))
	}
	return int(b)
}

// Ring is a consistent-hash ring with virtual nodes: each of n nodes owns
// vnodes points on the 64-bit ring at XXH64("node-<i>-<v>"), and a key
// (XXH64 of its canonical bytes) belongs to the node of the first point
// clockwise at or after it, wrapping past the top (Karger et al. 1997; the
// scheme of Dynamo and Cassandra's vnodes, with shardkey's own point names).
// Adding a node moves ~1/(n+1) of keys, all to the new node, with a spread
// that shrinks as vnodes grows.
//
// The option servers=host:port:weight,... (or @FILE) names the nodes
// instead: node i is the i-th server, its points are at
// XXH64("<host>:<port>-<v>") for v < round(vnodes * weight * servers /
// total weight) (at least 1), Layout(n) needs n equal to the number of
// servers, and the pool does not grow by count.
type Ring struct {
	vnodes  int
	pool    []Server
	poolArg string
}

var (
	_ Engine       = Ring{}
	_ Int64Pointer = Ring{}
	_ Grower       = Ring{}
)

func newRing(o Options) (Engine, error) {
	v, err := o.Int("vnodes", 128)
	if err != nil {
		return nil, err
	}
	if v < 1 || v > 1<<16 {
		return nil, fmt.Errorf("ring: vnodes=%d must be in 1..65536", v)
	}
	r := Ring{vnodes: v}
	if arg, ok := o["servers"]; ok {
		if r.pool, err = ParseServers(arg, 0); err != nil {
			return nil, fmt.Errorf("ring: %v", err)
		}
		r.poolArg = arg
		total := 0
		for _, s := range r.pool {
			total += s.Weight
		}
		points := 0
		for _, s := range r.pool {
			points += r.points(s.Weight, total)
		}
		if points > 1<<24 {
			return nil, fmt.Errorf("ring: servers= and vnodes=%d make %d points; at most %d", v, points, 1<<24)
		}
	}
	return r, nil
}

// NewRing returns a ring engine with vnodes points per node (1..65536).
func NewRing(vnodes int) (Ring, error) {
	e, err := newRing(Options{"vnodes": fmt.Sprint(vnodes)})
	if err != nil {
		return Ring{}, err
	}
	return e.(Ring), nil
}

func (r Ring) Name() string {
	var kvs []string
	if r.vnodes != 128 && r.vnodes != 0 {
		kvs = append(kvs, fmt.Sprintf("vnodes=%d", r.vnodes))
	}
	if r.pool != nil {
		kvs = append(kvs, "servers="+r.poolArg)
	}
	return specName("ring", kvs...)
}

// points returns the number of points of a server of weight w in a pool
// of total weight total.
func (r Ring) points(w, total int) int {
	vn := r.vnodes
	if vn == 0 {
		vn = 128
	}
	return max(1, int(math.Round(float64(vn)*float64(w)*float64(len(r.pool))/float64(total))))
}

// ServerNames returns the named pool's servers (host:port, or host when
// no port was given), or nil.
func (r Ring) ServerNames() []string {
	var names []string
	for _, s := range r.pool {
		names = append(names, ringServerName(s))
	}
	return names
}

func ringServerName(s Server) string {
	if s.Port == 0 {
		return s.Host
	}
	return s.Host + ":" + strconv.Itoa(s.Port)
}

func (r Ring) Hash(key []shardkey.Value) (Hash, error) {
	p, err := r.Point(key)
	return UnsignedHash(p), err
}

func (Ring) Point(key []shardkey.Value) (uint64, error) { return Generic{}.Point(key) }
func (Ring) PointInt64(v int64) uint64                  { return Generic{}.PointInt64(v) }

func (r Ring) Layout(n int) (Layout, error) {
	if err := checkShards(n); err != nil {
		return nil, err
	}
	vn := r.vnodes
	if vn == 0 {
		vn = 128
	}
	if r.pool != nil {
		if n != len(r.pool) {
			return nil, fmt.Errorf("ring: servers= names %d servers, not %d", len(r.pool), n)
		}
		total := 0
		for _, s := range r.pool {
			total += s.Weight
		}
		counts := make([]int, n)
		names := make([]string, n)
		for i, s := range r.pool {
			counts[i], names[i] = r.points(s.Weight, total), ringServerName(s)
		}
		return newTokenRingCounts(counts, func(node, i int) uint64 {
			return xxhash.Sum64String(names[node] + "-" + strconv.Itoa(i))
		}), nil
	}
	return cachedRing(vn, n), nil
}

// ringCache keeps the last few default rings built (a ring of 16,384
// nodes of 128 points is 2 M points, 24 MB): every candidate's growth
// figures ask for the same ring of N and N+1 nodes. A TokenRing is never
// modified once built, so one can be shared.
var ringCache struct {
	sync.Mutex
	keys [4][2]int
	vals [4]*TokenRing
	next int
}

// cachedRing returns the default ring of n nodes with vn points each,
// node k's point i at xxhash64("node-k-i").
func cachedRing(vn, n int) *TokenRing {
	small := n*vn < 1<<16
	if !small {
		ringCache.Lock()
		for i, k := range ringCache.keys {
			if k == [2]int{vn, n} && ringCache.vals[i] != nil {
				r := ringCache.vals[i]
				ringCache.Unlock()
				return r
			}
		}
		ringCache.Unlock()
	}
	buf := make([]byte, 0, 32)
	r := NewTokenRing(n, func(node, i int) uint64 {
		buf = append(buf[:0], "node-"...)
		buf = strconv.AppendInt(buf, int64(node), 10)
		buf = append(buf, '-')
		buf = strconv.AppendInt(buf, int64(i), 10)
		return xxhash.Sum64(buf)
	}, vn)
	if !small {
		ringCache.Lock()
		ringCache.keys[ringCache.next], ringCache.vals[ringCache.next] = [2]int{vn, n}, r
		ringCache.next = (ringCache.next + 1) % len(ringCache.keys)
		ringCache.Unlock()
	}
	return r
}

// Grow adds nodes with their own points; existing points stay. A named
// pool does not grow by count.
func (r Ring) Grow(_ Layout, to int) (Layout, error) {
	if r.pool != nil {
		return nil, fmt.Errorf("ring: a named server pool grows by adding servers to servers=, not to %d", to)
	}
	return r.Layout(to)
}
