package partition

// HashOnly says why the engine named name (an Engine's Name) places keys
// only by hash, so that a range key is not something it can run; "" for
// an engine that can range-partition or that is shardkey's own.
func HashOnly(name string) string { return hashOnly[name] }

var hashOnly = map[string]string{
	"redis":            "Redis Cluster places every key by hash slot (CRC16 of the key or its hash tag, mod 16384)",
	"cassandra":        "Cassandra's default Murmur3Partitioner places partitions by token (the ordered partitioners are deprecated)",
	"kafka":            "Kafka's producer places a keyed record by murmur2 of the key, mod the partition count",
	"kafka-librdkafka": "librdkafka places a keyed record by a hash of the key, mod the partition count",
	"elasticsearch":    "Elasticsearch routes a document by murmur3 of its _routing value to a shard",
}
