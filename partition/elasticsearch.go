package partition

import (
	"fmt"
	"maps"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/shardkey/shardkey"
)

// Elasticsearch is Elasticsearch document routing, from elastic/elasticsearch:
// server/src/main/java/org/elasticsearch/cluster/routing/IndexRouting.java
// (hashToShardId, Partitioned), .../routing/Murmur3HashFunction.java and
// .../cluster/metadata/MetadataCreateIndexService.java
// (calculateNumRoutingShards).
//
// The routing value (_routing, else _id) is a Java string: its UTF-16 code
// units, each written low byte first (UTF-16LE), are hashed with
// MurmurHash3 x86_32, seed 0; Hash is that signed int32. Values that are
// not text route by their text form (Value.String: integers in decimal, as
// a client sends them), since routing values are strings.
//
// Shard functions (option function):
//
//   - classic (default; indices created by 7.0 up to MOD_ROUTING_FUNCTION):
//     floorMod(hash, R) / (R / n), with R = index.number_of_routing_shards,
//     by default n * 2^max(1, 10 - ceil(log2 n)) (1 -> 1024, 3 -> 768,
//     5 -> 640, 1000 -> 2000), or the option number_of_routing_shards.
//   - modulo (alias mod; indices created at or after IndexVersions.MOD_ROUTING_FUNCTION,
//     on Elasticsearch main): floorMod(hash, n). 6.x indices (R = n) route
//     the same way.
//
// Option routing_partition_size=p > 1 (index.routing_partition_size): the key
// is then two columns, (_routing, _id), and the hash is
// hash(_routing) + floorMod(hash(_id), p) with int32 overflow. Otherwise
// the key is one column. A NULL routing value has no destination here (the
// real cluster falls back to _id, which shardkey does not see).
//
// Point is the hash as uint32 bits. Grow models _split: when R is a
// multiple of the new count the routing shards are kept, so each key stays
// in a shard that descends from its old one; otherwise the index must be
// reindexed and Grow returns a fresh layout. Checked against the
// IndexRoutingTests and Murmur3HashFunctionTests vectors in
// testdata/vectors/elasticsearch_routing.json.
type Elasticsearch struct {
	mod           bool
	routingShards int // 0: the default for n
	partitionSize int // 1: not partitioned
}

var (
	_ Engine       = Elasticsearch{}
	_ Int64Pointer = Elasticsearch{}
	_ Grower       = Elasticsearch{}
)

// esOptionAliases maps the older option names to the index settings'.
var esOptionAliases = map[string]string{"routing_num_shards": "number_of_routing_shards", "partition_size": "routing_partition_size"}

func newElasticsearch(o Options) (Engine, error) {
	for old, name := range esOptionAliases {
		if v, ok := o[old]; ok {
			if _, both := o[name]; both {
				return nil, fmt.Errorf("elasticsearch: %s and %s are the same option", old, name)
			}
			o = maps.Clone(o)
			o[name] = v
		}
	}
	e := Elasticsearch{}
	switch f := o.String("function", "classic"); f {
	case "classic":
	case "modulo", "mod":
		e.mod = true
	default:
		return nil, fmt.Errorf("elasticsearch: function=%q must be classic or modulo", f)
	}
	var err error
	if e.routingShards, err = o.Int("number_of_routing_shards", 0); err != nil {
		return nil, fmt.Errorf("elasticsearch: %v", err)
	}
	if _, ok := o["number_of_routing_shards"]; ok && (e.routingShards < 1 || e.routingShards > 1<<30) {
		return nil, fmt.Errorf("elasticsearch: number_of_routing_shards=%d must be in 1..2^30", e.routingShards)
	}
	if e.partitionSize, err = o.Int("routing_partition_size", 1); err != nil {
		return nil, fmt.Errorf("elasticsearch: %v", err)
	}
	if e.partitionSize < 1 || e.partitionSize > 1<<20 {
		return nil, fmt.Errorf("elasticsearch: routing_partition_size=%d must be in 1..1048576", e.partitionSize)
	}
	return e, nil
}

// Partitioned reports whether the index has routing_partition_size > 1,
// so that a key is (_routing, _id).
func (e Elasticsearch) Partitioned() bool { return e.partitionSize > 1 }

func (e Elasticsearch) Name() string {
	var kvs []string
	if e.routingShards != 0 {
		kvs = append(kvs, "number_of_routing_shards="+strconv.Itoa(e.routingShards))
	}
	if e.partitionSize > 1 {
		kvs = append(kvs, "routing_partition_size="+strconv.Itoa(e.partitionSize))
	}
	if e.mod {
		kvs = append(kvs, "function=modulo")
	}
	return specName("elasticsearch", kvs...)
}

func (e Elasticsearch) Hash(key []shardkey.Value) (Hash, error) {
	h, err := e.hash(key)
	return SignedHash(int64(h)), err
}

func (e Elasticsearch) Point(key []shardkey.Value) (uint64, error) {
	h, err := e.hash(key)
	return uint64(uint32(h)), err
}

// PointInt64 is Point for one Int64 column (its decimal text), without
// allocation. It is not defined for partitioned indices, whose keys have
// two columns.
func (e Elasticsearch) PointInt64(v int64) uint64 {
	var buf [20]byte
	return uint64(uint32(ESMurmur3(string(formatInt64(&buf, v)))))
}

func (e Elasticsearch) hash(key []shardkey.Value) (int32, error) {
	if e.partitionSize > 1 {
		if len(key) != 2 {
			return 0, fmt.Errorf("elasticsearch: routing_partition_size=%d needs the key (_routing, _id), not %d columns", e.partitionSize, len(key))
		}
		r, err := esRoutingHash(key[0])
		if err != nil {
			return 0, err
		}
		id, err := esRoutingHash(key[1])
		if err != nil {
			return 0, err
		}
		return r + esFloorMod(id, int32(e.partitionSize)), nil
	}
	if len(key) != 1 {
		return 0, fmt.Errorf("elasticsearch: routing is one value, not %d columns", len(key))
	}
	return esRoutingHash(key[0])
}

func esRoutingHash(v shardkey.Value) (int32, error) {
	switch v.Type {
	case shardkey.Null:
		return 0, errNoDestination("elasticsearch: a NULL routing value routes by _id, which is not given")
	case shardkey.Text:
		return ESMurmur3(v.Str), nil
	}
	var buf [64]byte
	return ESMurmur3(string(v.AppendText(buf[:0]))), nil
}

func esFloorMod(x, m int32) int32 {
	r := x % m
	if r < 0 {
		r += m
	}
	return r
}

// ESRoutingShards returns Elasticsearch's default
// index.number_of_routing_shards for n shards:
// n * 2^max(1, 10 - ceil(log2 n)).
func ESRoutingShards(n int) int {
	log2n := bits.Len(uint(n - 1)) // ceil(log2 n)
	return n << max(1, 10-log2n)
}

func (e Elasticsearch) Layout(n int) (Layout, error) {
	if err := checkShards(n); err != nil {
		return nil, err
	}
	if e.mod {
		return ESLayout{n: n, r: n}, nil
	}
	r := e.routingShards
	if r == 0 {
		if n > 1<<20 {
			return nil, fmt.Errorf("elasticsearch: %d shards is more than the routing shards can express", n)
		}
		r = ESRoutingShards(n)
	}
	if r%n != 0 {
		return nil, fmt.Errorf("elasticsearch: number_of_routing_shards=%d is not a multiple of %d shards", r, n)
	}
	return ESLayout{n: n, r: r}, nil
}

// Grow keeps the routing shards when `to` divides them (an index _split),
// else builds a fresh layout (a reindex).
func (e Elasticsearch) Grow(l Layout, to int) (Layout, error) {
	if el, ok := l.(ESLayout); ok && !e.mod && to >= 1 && el.r%to == 0 {
		return ESLayout{n: to, r: el.r}, nil
	}
	return e.Layout(to)
}

// ESLayout is floorMod(hash, R) / (R / n) on the int32 hash held in the low
// 32 bits of a point; R = n gives floorMod(hash, n).
type ESLayout struct{ n, r int }

func (l ESLayout) Shards() int { return l.n }

func (l ESLayout) Shard(p uint64) int {
	return int(esFloorMod(int32(uint32(p)), int32(l.r))) / (l.r / l.n)
}

// RoutingShards returns R, the routing shard count of the layout.
func (l ESLayout) RoutingShards() int { return l.r }

// ESMurmur3 returns Murmur3HashFunction.hash(s): MurmurHash3 x86_32 (seed
// 0) of the UTF-16LE code units of s, decoded as UTF-8 (invalid bytes
// become U+FFFD, as Java's decoder makes them). It does not allocate.
func ESMurmur3(s string) int32 {
	var m esMurmur
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			m.unit(uint32(c))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			r -= 0x10000
			m.unit(uint32(0xd800 + r>>10))
			m.unit(uint32(0xdc00 + r&0x3ff))
		} else {
			m.unit(uint32(r))
		}
	}
	return m.sum()
}

// esMurmur is MurmurHash3 x86_32 fed two bytes (one UTF-16 code unit) at
// a time.
type esMurmur struct {
	h, units, pend uint32
}

const esC1, esC2 = 0xcc9e2d51, 0x1b873593

func (m *esMurmur) unit(u uint32) {
	if m.units&1 == 0 {
		m.pend = u
		m.units++
		return
	}
	m.units++
	k := m.pend | u<<16
	k *= esC1
	k = bits.RotateLeft32(k, 15)
	k *= esC2
	m.h ^= k
	m.h = bits.RotateLeft32(m.h, 13)
	m.h = m.h*5 + 0xe6546b64
}

func (m *esMurmur) sum() int32 {
	h := m.h
	if m.units&1 == 1 {
		k := m.pend * esC1
		k = bits.RotateLeft32(k, 15)
		k *= esC2
		h ^= k
	}
	h ^= m.units * 2
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return int32(h)
}
