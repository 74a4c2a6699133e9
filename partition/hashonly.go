package partition

import "strings"

// HashOnly says why the engine named name (an Engine's Name, options
// included: "citus(shard_count=32)") places keys only by hash, so that a
// range key is not something it can run; "" for an engine that can
// range-partition or that is shardkey's own.
func HashOnly(name string) string {
	if i := strings.IndexAny(name, "(:"); i >= 0 {
		name = name[:i]
	}
	return hashOnly[strings.TrimSpace(name)]
}

var hashOnly = map[string]string{
	"redis":            "Redis Cluster places every key by hash slot (CRC16 of the key or its hash tag, mod 16384)",
	"cassandra":        "Cassandra's default Murmur3Partitioner places partitions by token (the ordered partitioners are deprecated)",
	"kafka":            "Kafka's producer places a keyed record by murmur2 of the key, mod the partition count",
	"kafka-librdkafka": "librdkafka places a keyed record by a hash of the key, mod the partition count",
	"elasticsearch":    "Elasticsearch routes a document by murmur3 of its _routing value to a shard",
	// citusdata/citus src/backend/distributed/commands/
	// create_distributed_table.c: CreateCitusTable creates shards
	// (CreateHashDistributedTableShards) only for a hash-distributed
	// table; one created with distribution_type 'range' or 'append' gets
	// none, its shards and their min/max values made by hand
	// (master_create_empty_shard, pg_dist_shard), and
	// create_distributed_table_concurrently refuses any method but hash
	// ("only hash-distributed tables can be distributed without blocking
	// writes"). The citus engine models hash distribution only.
	"citus": "Citus's create_distributed_table makes shards only for hash distribution (range shards are made by hand)",
}
