package partition

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Options are the k=v options of an engine name ("ring(vnodes=64)").
type Options map[string]string

// Int returns option k as an int, or def when absent.
func (o Options) Int(k string, def int) (int, error) {
	s, ok := o[k]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("option %s=%q is not an integer", k, s)
	}
	return n, nil
}

// String returns option k, or def when absent.
func (o Options) String(k, def string) string {
	if s, ok := o[k]; ok {
		return s
	}
	return def
}

type entry struct {
	name string
	doc  string // one line for `shardkey place --help`
	new  func(Options) (Engine, error)
	opts []string // option names the constructor accepts
}

// engines is the registry of --engine names, one entry per engine; each
// engine's code is in its own file (redis.go, cassandra.go, ...).
var engines = []entry{
	// shardkey's own functions (core.go).
	{name: "generic", doc: "xxhash64 of the key's canonical bytes, mod shards (shardkey's own default)",
		new: func(Options) (Engine, error) { return Generic{}, nil }},
	{name: "blake2b", doc: "seed 000's h(): blake2b-64 of the key parts joined by '|', big-endian, mod shards",
		new: func(Options) (Engine, error) { return Blake2b{}, nil }},
	{name: "jump", doc: "jump consistent hash (Lamping & Veach 2014) of the integer key, or of xxhash64 for other keys",
		new: func(Options) (Engine, error) { return Jump{}, nil }},
	{name: "ring", doc: "consistent-hash ring of xxhash64 points with virtual nodes (options vnodes, default 128; servers=host:port:weight,... or @FILE)",
		new: newRing, opts: []string{"vnodes", "servers"}},
	// Real systems' partition functions.
	{name: "redis", doc: "Redis Cluster: CRC16/XMODEM of the key or its {hash tag} mod 16384 slots, redis-cli slot ranges",
		new: func(Options) (Engine, error) { return Redis{}, nil }},
	{name: "cassandra", doc: "Cassandra Murmur3Partitioner token (signed-tail quirk) on a vnode ring (options num_tokens, default 16; seed, default 1; allocate=rf3, the default, 4.0+'s shipped cassandra.yaml, or another rfN, Cassandra's token allocation algorithm for local RF N, or random, random tokens as without allocate_tokens_*)",
		new: newCassandra, opts: []string{"num_tokens", "seed", "allocate"}},
	{name: "mongodb", doc: "MongoDB hashed shard key: MD5-based int64 of the BSON value, initial chunks of calculateHashedSplitPoints",
		new: func(Options) (Engine, error) { return MongoDB{}, nil }},
	{name: "kafka", doc: "Kafka Java default partitioner: toPositive(murmur2(serialised key)) % partitions",
		new: func(Options) (Engine, error) { return Kafka{}, nil }},
	{name: "kafka-librdkafka", doc: "librdkafka default partitioner (consistent_random): CRC32(key) % partitions",
		new: func(Options) (Engine, error) { return KafkaLibrdkafka{}, nil }},
	{name: "ketama", doc: "libmemcached weighted ketama continuum over MD5 points (options servers=host:port:weight,... or @FILE; variant=spy for spymemcached names)",
		new: newKetama, opts: []string{"variant", "servers"}},
	{name: "postgres", doc: "PostgreSQL PARTITION BY HASH: lookup3 *extended hashes with HASH_PARTITION_SEED, hash_combine64, mod n",
		new: func(Options) (Engine, error) { return Postgres{}, nil }},
	{name: "citus", doc: "Citus hash distribution: PostgreSQL int32 hash in uniform shard ranges (option shard_count: shards round-robin on n nodes; split_points=P1,P2,... for split shards)",
		new: newCitus, opts: []string{"shard_count", "split_points"}},
	{name: "elasticsearch", doc: "Elasticsearch routing: murmur3 of the UTF-16 routing string, floorMod over routing shards (options number_of_routing_shards, routing_partition_size, function=classic|modulo)",
		new: newElasticsearch, opts: []string{"number_of_routing_shards", "routing_partition_size", "function", "routing_num_shards", "partition_size"}},
	{name: "yugabyte", doc: "YugabyteDB yb_hash_code: Jenkins lookup2-64 (seed 97) of the big-endian key, folded to 16 bits, tablet ranges",
		new: func(Options) (Engine, error) { return Yugabyte{}, nil }},
	{name: "vitess", doc: "Vitess hash vindex: DES (zero key) of the uint64 value, even keyspace-id ranges",
		new: func(Options) (Engine, error) { return Vitess{vtHash}, nil }},
	{name: "vitess-xxhash", doc: "Vitess xxhash vindex: XXH64 of the value's SQL text, even keyspace-id ranges",
		new: func(Options) (Engine, error) { return Vitess{vtXXHash}, nil }},
	{name: "vitess-binary-md5", doc: "Vitess binary_md5 vindex: MD5 of the value's bytes, even keyspace-id ranges",
		new: func(Options) (Engine, error) { return Vitess{vtBinaryMD5}, nil }},
	{name: "vitess-unicode-loose-md5", doc: "Vitess unicode_loose_md5 vindex: MD5 of the case/accent-insensitive collation key",
		new: func(Options) (Engine, error) { return Vitess{vtUnicodeLooseMD5}, nil }},
	{name: "vitess-unicode-loose-xxhash", doc: "Vitess unicode_loose_xxhash vindex: XXH64 of the case/accent-insensitive collation key",
		new: func(Options) (Engine, error) { return Vitess{vtUnicodeLooseXXHash}, nil }},
	{name: "vitess-numeric", doc: "Vitess numeric vindex: the uint64 value itself as the keyspace id",
		new: func(Options) (Engine, error) { return VitessNumeric{Vitess{vtNumeric}}, nil }},
	{name: "vitess-reverse-bits", doc: "Vitess reverse_bits vindex: the bit-reversed uint64 value as the keyspace id",
		new: func(Options) (Engine, error) { return VitessNumeric{Vitess{vtReverseBits}}, nil }},
	{name: "vitess-multicol", doc: "Vitess multicol vindex: each column's sub-vindex keyspace id, column_bytes of each concatenated (options column_count, column_vindex, column_bytes)",
		new: newVitessMultiCol, opts: []string{"column_count", "column_vindex", "column_bytes"}},
	{name: "cockroachdb", doc: "CockroachDB hash-sharded index bucket: mod(fnv32(md5(datums_to_bytes(key))), n) (option generation 1..3; unverified)",
		new: newCockroachDB, opts: []string{"generation"}},
}

func registry() []entry { return engines }

// Lookup returns the engine named spec: a name from Names, optionally with
// options in parentheses, "name(k=v, k=v)" (the form PRODUCT.md pins), or
// after a colon, "name:k=v,k=v" (the older form, still accepted). A value
// may itself hold commas when the pieces after them have no '=', as in
// servers=h1:11211:600,h2:11211:300. The error lists the known names, or
// says which option is wrong.
func Lookup(spec string) (Engine, error) {
	spec = strings.TrimSpace(spec)
	name, optText := spec, ""
	if i := strings.IndexAny(spec, "(:"); i >= 0 {
		name = strings.TrimSpace(spec[:i])
		if spec[i] == '(' {
			if !strings.HasSuffix(spec, ")") {
				return nil, fmt.Errorf("engine %q: options in parentheses end with ')'", spec)
			}
			optText = spec[i+1 : len(spec)-1]
		} else {
			optText = spec[i+1:]
		}
	}
	opts, err := ParseOptions(optText)
	if err != nil {
		return nil, fmt.Errorf("engine %q: %v", spec, err)
	}
	for _, e := range registry() {
		if e.name != name {
			continue
		}
		for k := range opts {
			if !contains(e.opts, k) {
				if len(e.opts) == 0 {
					return nil, fmt.Errorf("engine %s has no options (got %q)", name, k)
				}
				return nil, fmt.Errorf("engine %s has no option %q (options: %s)", name, k, strings.Join(e.opts, ", "))
			}
		}
		return e.new(opts)
	}
	return nil, fmt.Errorf("unknown engine %q (known: %s)", name, strings.Join(Names(), ", "))
}

// maxOptions bounds the length of an engine's option text.
const maxOptions = 1 << 20

// ParseOptions parses "k=v, k=v" (spaces around keys and values are
// trimmed). A piece with no '=' continues the previous value after a
// comma (servers=h1:1:1,h2:1:1). It fails on an empty key or value, a
// piece before any key, and a key given twice.
func ParseOptions(text string) (Options, error) {
	opts := Options{}
	if strings.TrimSpace(text) == "" {
		return opts, nil
	}
	if len(text) > maxOptions {
		return nil, fmt.Errorf("options of %d bytes: at most %d", len(text), maxOptions)
	}
	last := ""
	for _, piece := range strings.Split(text, ",") {
		piece = strings.TrimSpace(piece)
		k, v, ok := strings.Cut(piece, "=")
		if !ok {
			if last == "" || piece == "" {
				return nil, fmt.Errorf("option %q is not k=v", piece)
			}
			opts[last] += "," + piece
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "" || v == "" {
			return nil, fmt.Errorf("option %q is not k=v", piece)
		}
		if _, dup := opts[k]; dup {
			return nil, fmt.Errorf("option %s given twice", k)
		}
		opts[k] = v
		last = k
	}
	return opts, nil
}

// specName formats an engine's name with its options as Lookup reads
// them back: "name(k=v, k=v)", or the bare name without options.
func specName(name string, kvs ...string) string {
	if len(kvs) == 0 {
		return name
	}
	return name + "(" + strings.Join(kvs, ", ") + ")"
}

// Names returns the engine names, sorted.
func Names() []string {
	var names []string
	for _, e := range registry() {
		names = append(names, e.name)
	}
	sort.Strings(names)
	return names
}

// Doc returns the one-line description of engine name, or "".
func Doc(name string) string {
	for _, e := range registry() {
		if e.name == name {
			return e.doc
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Server is one server of a named pool (the option servers=).
type Server struct {
	Host   string
	Port   int
	Weight int // > 0; 1 when not given
}

// maxServers bounds a named pool, and maxServersFile the file it is read
// from.
const (
	maxServers     = 100000
	maxServersFile = 16 << 20
)

// ParseServers parses a server pool: host:port:weight entries separated by
// commas (host:port has weight 1, host alone the port defPort; the form
// "host:port weight" of libmemcached's tests is accepted too), or @FILE,
// a file of such entries, one or more a line, with # comments. Weights
// are positive integers; a host:port named twice is an error.
func ParseServers(arg string, defPort int) ([]Server, error) {
	arg = strings.TrimSpace(arg)
	what := "servers="
	text := arg
	if strings.HasPrefix(arg, "@") {
		path := arg[1:]
		fi, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("servers=@%s: %v", path, err)
		}
		if fi.IsDir() {
			return nil, fmt.Errorf("servers=@%s is a directory, not a file of servers", path)
		}
		if fi.Size() > maxServersFile {
			return nil, fmt.Errorf("servers=@%s: %d bytes, at most %d", path, fi.Size(), maxServersFile)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("servers=@%s: %v", path, err)
		}
		var lines []string
		for _, l := range strings.Split(string(data), "\n") {
			if i := strings.IndexByte(l, '#'); i >= 0 {
				l = l[:i]
			}
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
		text, what = strings.Join(lines, ","), "servers=@"+path
	}
	var pool []Server
	seen := map[string]bool{}
	for _, e := range strings.Split(text, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			return nil, fmt.Errorf("%s: empty server entry", what)
		}
		s := Server{Port: defPort, Weight: 1}
		addr, w, spaced := strings.Cut(e, " ")
		parts := strings.Split(addr, ":")
		if spaced {
			if len(parts) > 2 {
				return nil, fmt.Errorf("%s: server %q: want host:port weight", what, e)
			}
			parts = append(parts[:len(parts):len(parts)], strings.TrimSpace(w))
			if len(parts) == 2 {
				return nil, fmt.Errorf("%s: server %q: want host:port weight", what, e)
			}
		}
		if len(parts) > 3 || parts[0] == "" {
			return nil, fmt.Errorf("%s: server %q: want host:port:weight", what, e)
		}
		s.Host = parts[0]
		var err error
		if len(parts) >= 2 {
			if s.Port, err = strconv.Atoi(parts[1]); err != nil || s.Port < 1 || s.Port > 65535 {
				return nil, fmt.Errorf("%s: server %q: port %q is not in 1..65535", what, e, parts[1])
			}
		}
		if len(parts) == 3 {
			if s.Weight, err = strconv.Atoi(parts[2]); err != nil || s.Weight < 1 || s.Weight > 1<<20 {
				return nil, fmt.Errorf("%s: server %q: weight %q is not an integer in 1..1048576", what, e, parts[2])
			}
		}
		key := s.Host + ":" + strconv.Itoa(s.Port)
		if seen[key] {
			return nil, fmt.Errorf("%s: server %s named twice", what, key)
		}
		seen[key] = true
		if pool = append(pool, s); len(pool) > maxServers {
			return nil, fmt.Errorf("%s: more than %d servers", what, maxServers)
		}
	}
	return pool, nil
}
