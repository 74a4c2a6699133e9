package partition

// enginesA lists the engines of engines_a's owner: redis, cassandra, mongodb,
// kafka, ketama.
var enginesA = []entry{
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
}
