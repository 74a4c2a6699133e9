package partition

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/shardkey/shardkey"
)

// Ketama is libmemcached's weighted ketama consistent hashing
// (MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA with KETAMA_WEIGHTED;
// awesomized/libmemcached src/libmemcached/hosts.cc update_continuum, test
// vectors in test/fixtures/ketama.hpp), and with variant=spy its
// spymemcached-compatible variant (MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA_SPY).
//
// A key's hash is the first 4 bytes of MD5(key) read little-endian. Each
// server with weight w out of total W among s servers gets
//
//	pointer_per_server = floor(float32(w/W) * 160/4 * s + 1e-10) * 4
//
// continuum points (float32 arithmetic, so equal weights may give 156
// rather than 160, as for 25 servers): for i in 0..pointer_per_server/4-1, MD5 of
// "<host>-<i>" (port 11211) or "<host>:<port>-<i>" (other ports; the spy
// variant always uses "/<host>:<port>-<i>") gives 4 points, its digest
// bytes 4x..4x+3 little-endian. A key goes to the server of the first point
// >= its hash, wrapping to the first point.
//
// Key bytes are what a client sends (see appendClientKey). Hash and Point
// are the 32-bit key hash. Layout(n) is n servers of weight 1 named
// 10.0.0.<i+1>:11211 (server i is shard i; names past 10.0.0.255 are not
// addresses but hash the same way); NewKetamaLayout builds any pool. Growing
// adds servers with their own points; the others keep theirs only while
// pointer_per_server stays the same, so nearly all moved keys go to the new
// server.
//
// The option servers=host:port:weight,... (or servers=@FILE, one server a
// line) names the pool instead, as memcached_server_add_with_weight does:
// Layout(n) then needs n equal to the number of servers, shard i is the
// i-th server, and the pool does not grow by count.
type Ketama struct {
	spy     bool
	pool    []KetamaServer
	poolArg string // the servers option as given, for Name
}

var (
	_ Engine       = Ketama{}
	_ Int64Pointer = Ketama{}
	_ Grower       = Ketama{}
)

func newKetama(o Options) (Engine, error) {
	var k Ketama
	switch v := o.String("variant", "libmemcached"); v {
	case "libmemcached":
	case "spy":
		k.spy = true
	default:
		return nil, fmt.Errorf("ketama: variant=%q: want libmemcached or spy", v)
	}
	if arg, ok := o["servers"]; ok {
		pool, err := ParseServers(arg, 11211)
		if err != nil {
			return nil, fmt.Errorf("ketama: %v", err)
		}
		for _, s := range pool {
			k.pool = append(k.pool, KetamaServer{Host: s.Host, Port: s.Port, Weight: s.Weight})
		}
		k.poolArg = arg
	}
	return k, nil
}

func (k Ketama) Name() string {
	var kvs []string
	if k.spy {
		kvs = append(kvs, "variant=spy")
	}
	if k.pool != nil {
		kvs = append(kvs, "servers="+k.poolArg)
	}
	return specName("ketama", kvs...)
}

// ServerNames returns the named pool's servers as host:port, or nil.
func (k Ketama) ServerNames() []string {
	var names []string
	for _, s := range k.pool {
		names = append(names, s.Host+":"+strconv.Itoa(s.Port))
	}
	return names
}

func (k Ketama) Hash(key []shardkey.Value) (Hash, error) {
	p, err := k.Point(key)
	return UnsignedHash(p), err
}

func (k Ketama) Point(key []shardkey.Value) (uint64, error) {
	if v, ok := singleInt64(key); ok {
		return k.PointInt64(v), nil
	}
	var buf [64]byte
	b, err := appendClientKey(buf[:0], key, "ketama")
	if err != nil {
		return 0, err
	}
	return uint64(KetamaKeyHash(b)), nil
}

// PointInt64 is Point for one Int64 column (its decimal text), without
// allocation.
func (Ketama) PointInt64(v int64) uint64 {
	var buf [20]byte
	return uint64(KetamaKeyHash(formatInt64(&buf, v)))
}

// KetamaKeyHash returns the ketama hash of key: MD5's first 4 bytes, LE.
func KetamaKeyHash(key []byte) uint32 {
	sum := md5.Sum(key)
	return binary.LittleEndian.Uint32(sum[:4])
}

// Layout returns the continuum of n weight-1 servers 10.0.0.<i+1>:11211,
// or of the named pool, which must have n servers.
func (k Ketama) Layout(n int) (Layout, error) {
	if err := checkShards(n); err != nil {
		return nil, err
	}
	if k.pool != nil {
		if n != len(k.pool) {
			return nil, fmt.Errorf("ketama: servers= names %d servers, not %d", len(k.pool), n)
		}
		return NewKetamaLayout(k.pool, k.spy)
	}
	servers := make([]KetamaServer, n)
	for i := range servers {
		servers[i] = KetamaServer{Host: "10.0.0." + strconv.Itoa(i+1), Port: 11211, Weight: 1}
	}
	return NewKetamaLayout(servers, k.spy)
}

// Grow returns the layout of `to` servers: servers keep their names, hence
// their points (see Ketama).
func (k Ketama) Grow(l Layout, to int) (Layout, error) {
	if k.pool != nil {
		return nil, fmt.Errorf("ketama: a named server pool grows by adding servers to servers=, not to %d", to)
	}
	if to < l.Shards() {
		return nil, fmt.Errorf("ketama: cannot grow %d servers to %d", l.Shards(), to)
	}
	return k.Layout(to)
}

// KetamaServer is one memcached server of a ketama pool.
type KetamaServer struct {
	Host   string
	Port   int // 11211 leaves the port out of the point names (libmemcached)
	Weight int // > 0
}

// KetamaLayout is a ketama continuum; shard i is server i of the pool.
type KetamaLayout struct {
	servers []KetamaServer
	points  []uint32 // sorted ascending
	owner   []int32  // owner[j] is the server of points[j]
}

// NewKetamaLayout builds the weighted continuum of servers as libmemcached's
// update_continuum does, the spymemcached-compatible names when spy is set.
// Weights must be positive.
func NewKetamaLayout(servers []KetamaServer, spy bool) (*KetamaLayout, error) {
	if len(servers) == 0 {
		return nil, fmt.Errorf("ketama: no servers")
	}
	total := 0
	for _, s := range servers {
		if s.Weight <= 0 {
			return nil, fmt.Errorf("ketama: server %s:%d has weight %d, must be positive", s.Host, s.Port, s.Weight)
		}
		total += s.Weight
	}
	type pt struct {
		v uint32
		s int32
	}
	var all []pt
	live := float32(len(servers))
	for si, s := range servers {
		pct := float32(s.Weight) / float32(total)
		x := float32(float32(float32(pct*160)/4) * live)
		perServer := int(math.Floor(float64(float32(float64(x)+0.0000000001)))) * 4
		var name []byte
		for i := 0; i < perServer/4; i++ {
			name = name[:0]
			switch {
			case spy:
				name = append(name, '/')
				name = append(name, s.Host...)
				name = append(name, ':')
				name = strconv.AppendInt(name, int64(s.Port), 10)
			case s.Port == 11211:
				name = append(name, s.Host...)
			default:
				name = append(name, s.Host...)
				name = append(name, ':')
				name = strconv.AppendInt(name, int64(s.Port), 10)
			}
			name = append(name, '-')
			name = strconv.AppendInt(name, int64(i), 10)
			sum := md5.Sum(name)
			for x := 0; x < 4; x++ {
				all = append(all, pt{binary.LittleEndian.Uint32(sum[4*x:]), int32(si)})
			}
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].v != all[j].v {
			return all[i].v < all[j].v
		}
		return all[i].s < all[j].s
	})
	l := &KetamaLayout{servers: append([]KetamaServer(nil), servers...),
		points: make([]uint32, len(all)), owner: make([]int32, len(all))}
	for i, p := range all {
		l.points[i], l.owner[i] = p.v, p.s
	}
	return l, nil
}

func (l *KetamaLayout) Shards() int { return len(l.servers) }

// Shard returns the server of point p (a 32-bit key hash; higher bits are
// ignored).
func (l *KetamaLayout) Shard(p uint64) int {
	s, _ := l.Locate(uint32(p))
	return s
}

// Locate returns the server of key hash h and the continuum point it lands
// on: the first point >= h, or the first point when h is above all.
func (l *KetamaLayout) Locate(h uint32) (server int, point uint32) {
	i := sort.Search(len(l.points), func(i int) bool { return l.points[i] >= h })
	if i == len(l.points) {
		i = 0
	}
	return int(l.owner[i]), l.points[i]
}

// Server returns server i of the pool.
func (l *KetamaLayout) Server(i int) KetamaServer { return l.servers[i] }
