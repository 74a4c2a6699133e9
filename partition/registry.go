package partition

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Options are the k=v options of an engine name ("ring:vnodes=64,seed=7").
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
	{name: "ring", doc: "consistent-hash ring of xxhash64 points with virtual nodes (option vnodes, default 128)",
		new: newRing, opts: []string{"vnodes"}},
	// Real systems' partition functions.
	{name: "redis", doc: "Redis Cluster: CRC16/XMODEM of the key or its {hash tag} mod 16384 slots, redis-cli slot ranges",
		new: func(Options) (Engine, error) { return Redis{}, nil }},
	{name: "cassandra", doc: "Cassandra Murmur3Partitioner token (signed-tail quirk) on a vnode ring (options num_tokens, default 16, and seed, default 1)",
		new: newCassandra, opts: []string{"num_tokens", "seed"}},
	{name: "mongodb", doc: "MongoDB hashed shard key: MD5-based int64 of the BSON value, initial chunks of calculateHashedSplitPoints",
		new: func(Options) (Engine, error) { return MongoDB{}, nil }},
	{name: "kafka", doc: "Kafka Java default partitioner: toPositive(murmur2(serialised key)) % partitions",
		new: func(Options) (Engine, error) { return Kafka{}, nil }},
	{name: "kafka-librdkafka", doc: "librdkafka default partitioner (consistent_random): CRC32(key) % partitions",
		new: func(Options) (Engine, error) { return KafkaLibrdkafka{}, nil }},
	{name: "ketama", doc: "libmemcached weighted ketama continuum over MD5 points (option variant=spy for spymemcached names)",
		new: newKetama, opts: []string{"variant"}},
	{name: "postgres", doc: "PostgreSQL PARTITION BY HASH: lookup3 *extended hashes with HASH_PARTITION_SEED, hash_combine64, mod n",
		new: func(Options) (Engine, error) { return Postgres{}, nil }},
	{name: "citus", doc: "Citus hash distribution: PostgreSQL int32 hash in uniform shard ranges (option shard_count: shards round-robin on n nodes)",
		new: newCitus, opts: []string{"shard_count"}},
	{name: "elasticsearch", doc: "Elasticsearch routing: murmur3 of the UTF-16 routing string, floorMod over routing shards (options function, routing_num_shards, partition_size)",
		new: newElasticsearch, opts: []string{"function", "routing_num_shards", "partition_size"}},
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
	{name: "cockroachdb", doc: "CockroachDB hash-sharded index bucket: mod(fnv32(md5(datums_to_bytes(key))), n) (option generation 1..3; unverified)",
		new: newCockroachDB, opts: []string{"generation"}},
}

func registry() []entry { return engines }

// Lookup returns the engine named spec: a name from Names, optionally
// followed by ":k=v,k=v" options. The error lists the known names.
func Lookup(spec string) (Engine, error) {
	name, optText, _ := strings.Cut(strings.TrimSpace(spec), ":")
	opts := Options{}
	if optText != "" {
		for _, kv := range strings.Split(optText, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("engine %q: option %q is not k=v", spec, kv)
			}
			opts[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	for _, e := range registry() {
		if e.name != name {
			continue
		}
		for k := range opts {
			if !contains(e.opts, k) {
				return nil, fmt.Errorf("engine %s has no option %q (options: %s)", name, k, strings.Join(e.opts, ", "))
			}
		}
		return e.new(opts)
	}
	return nil, fmt.Errorf("unknown engine %q (known: %s)", name, strings.Join(Names(), ", "))
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
