package advisor

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey/partition"
)

// The fixes' mechanisms in the terms of the engine in use.
//
// A fix is only useful if an engineer of the system that runs the key can
// act on it: under Citus a whale is isolated with
// isolate_tenant_to_new_shard, under MongoDB with zones, under Vitess by
// resharding keyspace-id ranges, and so on. shardkey's own notation
// (isolate(...), salt(...), "a directory override") is the re-simulated
// design; the sentences below say what it is in the engine's system, and
// name the system each term comes from. Engines that are hash functions
// rather than databases (generic, blake2b, jump, ring, ketama) get the
// standard term and the options across systems.

// engineFamily returns the system engine names, the key of the switches
// below: "citus", "vitess", "mongodb", "cassandra", "redis",
// "cockroachdb", "yugabyte", "kafka", "elasticsearch", "postgres", or ""
// for shardkey's own and client-side functions.
func engineFamily(engine string) string {
	e := engineBase(engine)
	switch {
	case partition.IsCitus(engine) || e == "citus":
		return "citus"
	case strings.HasPrefix(e, "vitess"):
		return "vitess"
	case strings.HasPrefix(e, "kafka"):
		return "kafka"
	}
	switch e {
	case "mongodb", "cassandra", "redis", "cockroachdb", "yugabyte", "elasticsearch", "postgres":
		return e
	}
	return ""
}

// literal writes a key value as printed in the statistics (v) as a SQL
// or shell literal: integers bare, anything else single-quoted.
func literal(v string) string {
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", "''") + "'"
}

// isolateHow says how the engine's system gives a whale value of col a
// shard (node) of its own, for "on dedicated shards with ...": table is
// the first table of the whale's group (the one Citus's call names), v
// the heaviest value as printed ("" when unknown).
func (a *analysis) isolateHow(table, col, v string) string {
	if v == "" {
		v = "VALUE"
	}
	switch engineFamily(a.engine) {
	case "citus":
		return fmt.Sprintf("Citus's tenant isolation: SELECT isolate_tenant_to_new_shard('%s', %s, 'CASCADE') for each value (a shard of its own in %s and, by CASCADE, in every co-located table), then citus_move_shard_placement to move each new shard to a node of its own (isolation leaves it on its node)", table, literal(v), table)
	case "vitess":
		return fmt.Sprintf("Vitess shards: a Reshard workflow with keyspace-id range boundaries cut just below and above each value's keyspace id (the hash vindex of %s = %s), so that its range is a shard of its own", col, v)
	case "mongodb":
		return fmt.Sprintf("MongoDB zones: a zone per value with a shard of its own, sh.addShardToZone(shard, zone), and sh.updateZoneKeyRange(namespace, min, max, zone) over the value's range of the shard key (for a hashed %s, from convertShardKeyToHashed(%s), a NumberLong, to that plus one); the balancer then moves its chunk there", col, v)
	case "redis":
		return fmt.Sprintf("Redis Cluster slots: move each value's hash slot (CLUSTER KEYSLOT of its key or {%s} hash tag) to a master of its own, CLUSTER SETSLOT slot NODE node-id or redis-cli --cluster reshard; the slot's few other keys move with it", v)
	case "cockroachdb":
		return fmt.Sprintf("CockroachDB ranges: ALTER TABLE %s SPLIT AT VALUES at the value's first key and at the next value's, so that its rows are ranges of their own, which the allocator's load-based rebalancing moves off the busy nodes (to pin them, PARTITION BY LIST (%s) with a zone configuration per partition: ALTER PARTITION ... CONFIGURE ZONE USING constraints)", table, col)
	case "yugabyte":
		return "YugabyteDB tablets: split the value's tablet at its yb_hash_code (yb-admin split_tablet; automatic tablet splitting does it by size) until its hash code is a tablet of its own, which the load balancer places (a tablet cannot split below one hash code)"
	case "kafka":
		return "a Kafka custom partitioner (partitioner.class, an org.apache.kafka.clients.producer.Partitioner) sending each value's records to a partition of its own and hashing the other keys over the rest"
	case "elasticsearch":
		return fmt.Sprintf("Elasticsearch: an index of its own for each value, reached through a filtered alias per value (routing by %s stays for the rest)", col)
	case "postgres":
		return fmt.Sprintf("PostgreSQL partitions: PARTITION BY LIST (%s) with a partition FOR VALUES IN (%s) for each value and the DEFAULT partition itself PARTITION BY HASH (%s)", col, literal(v), col)
	}
	return "a directory override, a value-to-shard map consulted before the hash (in Citus isolate_tenant_to_new_shard, in Vitess a lookup vindex or resharded keyspace-id ranges, in MongoDB zones with sh.updateZoneKeyRange)"
}

// isolateShort is isolateHow in a few words, for what to do as a whale
// grows.
func (a *analysis) isolateShort() string {
	switch engineFamily(a.engine) {
	case "citus":
		return "Citus's isolate_tenant_to_new_shard(table, value, 'CASCADE'), then citus_move_shard_placement"
	case "vitess":
		return "a Vitess Reshard with keyspace-id range boundaries around its keyspace id"
	case "mongodb":
		return "a MongoDB zone, sh.addShardToZone and sh.updateZoneKeyRange over its range of the shard key"
	case "redis":
		return "its Redis Cluster hash slot moved to a master of its own, CLUSTER SETSLOT"
	case "cockroachdb":
		return "CockroachDB's ALTER TABLE ... SPLIT AT VALUES around it, rebalanced by load"
	case "yugabyte":
		return "YugabyteDB's yb-admin split_tablet around its yb_hash_code"
	case "kafka":
		return "a Kafka custom partitioner (partitioner.class) sending it to a partition of its own"
	case "elasticsearch":
		return "an Elasticsearch index of its own behind a filtered alias"
	case "postgres":
		return "a PostgreSQL LIST partition of its own beside a hash-partitioned DEFAULT"
	}
	return "a directory override, isolate(...)"
}

// splitHow says how the engine's system splits one key value of col over
// several shards of its own by the next key by (a second key level), for
// the parenthesis after the split's design.
func (a *analysis) splitHow(col, by string) string {
	switch engineFamily(a.engine) {
	case "vitess":
		return fmt.Sprintf("in Vitess, a multicol vindex over (%s, %s) as the tables' primary vindex: the keyspace id's first bytes come from %s, the rest from %s, so a Reshard with range boundaries inside the value's keyspace-id prefix splits it over its own shards", col, by, col, by)
	case "mongodb":
		return fmt.Sprintf("in MongoDB, a compound shard key with %s after %s, {%s: 1, %s: \"hashed\"} when sharding (on a collection sharded by {%s: \"hashed\"}, refineCollectionShardKey can only add a suffix: {%s: \"hashed\", %s: 1}), so that the value's documents split into chunks by %s (with %s alone they are one chunk that cannot split, jumbo once over chunkSize); then a zone of its own shards, sh.addShardToZone for each and sh.updateZoneKeyRange(namespace, {%s: value, %s: MinKey}, {%s: value, %s: MaxKey}, zone), over which the balancer spreads its chunks", by, col, col, by, col, col, by, by, col, col, by, col, by)
	case "redis":
		return fmt.Sprintf("in Redis Cluster, the value's keys tagged by both keys ({value:%s} in place of {value}) so that they hash to many slots, those slots moved to masters of their own (CLUSTER SETSLOT); a multi-key command then needs its keys under one tag", by)
	case "cockroachdb":
		return fmt.Sprintf("in CockroachDB, %s after %s in the primary key: ranges split below one value of %s (ALTER TABLE ... SPLIT AT VALUES, or load-based splitting by itself), and the allocator spreads them over nodes", by, col, col)
	case "yugabyte":
		return fmt.Sprintf("YugabyteDB hashes the whole HASH part of a primary key for every row, so a second level for these values alone needs an application bucket column in it, PRIMARY KEY ((%s, bucket) HASH, ...), the bucket the hash of %s modulo K for the whale and 0 for every other value", col, by)
	case "kafka":
		return fmt.Sprintf("in Kafka, the value's records keyed by (%s, %s) so that the default partitioner hashes them over several partitions, ordering then holding per %s, not per %s", col, by, by, col)
	case "elasticsearch":
		return "in Elasticsearch, the value's documents in an index of its own with index.routing_partition_size = K (set at index creation), each routing value then going to K shards picked by the document _id"
	case "postgres":
		return fmt.Sprintf("in PostgreSQL, the value's LIST partition itself PARTITION BY HASH (%s) into K partitions (multi-level partitioning)", by)
	}
	return fmt.Sprintf("the compound key (%s, %s) for these values alone: in Vitess a multicol vindex, in MongoDB a compound shard key with zones, in Cassandra a bucket column; Citus's tenant isolation stops at one shard", col, by)
}

// replicaHow names the read copies of a shard in the engine's system:
// "read replicas (...)", the parenthesis saying what they are there.
func (a *analysis) replicaHow() string {
	switch engineFamily(a.engine) {
	case "citus":
		return "read replicas (Citus: PostgreSQL streaming standbys of the worker registered with citus_add_secondary_node, read through a coordinator with citus.use_secondary_nodes = 'always')"
	case "vitess":
		return "read replicas (Vitess: replica tablets of the shard, read with @replica, USE keyspace@replica)"
	case "mongodb":
		return "read replicas (MongoDB: secondaries of the shard's replica set, read with readPreference secondary or nearest, possibly stale)"
	case "cassandra":
		return "read replicas (Cassandra: a higher replication factor, reads at consistency level ONE)"
	case "redis":
		return "read replicas (Redis Cluster: replicas of the master, read after READONLY on the client's connection, possibly stale)"
	case "cockroachdb":
		return "read replicas (CockroachDB: follower reads from the range's other replicas, AS OF SYSTEM TIME follower_read_timestamp(), slightly stale; more of them by num_replicas in the zone configuration)"
	case "yugabyte":
		return "read replicas (YugabyteDB: follower reads, yb_read_from_followers in read-only transactions, or a read replica cluster)"
	case "kafka":
		return "read replicas (Kafka: follower replicas consumers fetch from, KIP-392: replica.selector.class on the brokers, client.rack on the consumers)"
	case "elasticsearch":
		return "read replicas (Elasticsearch: replica shards, index.number_of_replicas, any copy serving a search)"
	case "postgres":
		return "read replicas (PostgreSQL: streaming standbys with hot_standby taking the reads)"
	}
	return "read replicas (copies of the shard that apply its writes and serve reads: a PostgreSQL standby, a MongoDB secondary, a Vitess replica tablet)"
}

// maxReplicas is the most read replicas of one shard that replicasFor
// proposes: past a handful, each standby's apply work, the primary's
// WAL senders (or oplog readers) and the failover set to manage make
// replicas the wrong tool, and a cache or a read model is the fix.
const maxReplicas = 5

// replicasFor says how many read replicas serve a value's reads reads/s
// when it also takes writes writes/s and one shard (copy) does capacity
// units/s: every replica applies every write, so each has capacity -
// writes left for reads, and ceil(reads / (capacity - writes)) of them
// serve all the reads (the primary keeps the writes). When the writes
// alone reach capacity no number of replicas helps (each would be as busy
// as the primary with the writes alone): n is 0 and the text says so.
// The text is a clause with its connector, to follow "cache its reads in
// front of the shard": ", or serve them from N read replicas (...): ..."
// or "; read replicas (...) cannot help: ...". More than maxReplicas
// are not proposed: the text leads with a read model then, and says
// how many replicas it would take.
func (a *analysis) replicasFor(reads, writes, capacity float64) (n int, text string) {
	how := a.replicaHow()
	if writes >= capacity {
		return 0, fmt.Sprintf("; %s cannot help: each applies all of its ~%s writes/s, which alone reach the %s units/s one shard can do", how, fmtF(writes), fmtF(capacity))
	}
	n = int(math.Ceil(reads/(capacity-writes) - 1e-9))
	n = max(n, 1)
	if n > maxReplicas {
		return n, fmt.Sprintf(", or serve them from a read model fed asynchronously (a table keyed for them, off the serving shards); read replicas cannot practically carry them: each applies all ~%s writes/s, leaving %s - %s = %s units/s for reads, so ceil(%s / %s) = %d would be needed, more than the %d copies of one shard it is practical to run",
			fmtF(writes), fmtF(capacity), fmtF(writes), fmtF(capacity-writes), fmtF(reads), fmtF(capacity-writes), n, maxReplicas)
	}
	how = strings.Replace(how, "read replicas", fmt.Sprintf("%d read replicas", n), 1)
	return n, fmt.Sprintf(", or serve them from %s: each applies all ~%s writes/s, leaving %s - %s = %s units/s for reads, so ceil(%s / %s) = %d serve its ~%s reads/s, the primary keeping the writes",
		how, fmtF(writes), fmtF(capacity), fmtF(writes), fmtF(capacity-writes), fmtF(reads), fmtF(capacity-writes), n, fmtF(reads))
}

// packingHow names, for the capacity headline, a directory that places
// values by their load in the engine's system.
func (a *analysis) packingHow() string {
	switch engineFamily(a.engine) {
	case "citus":
		return "Citus's tenant isolation (isolate_tenant_to_new_shard) with citus_move_shard_placement"
	case "vitess":
		return "a Vitess lookup vindex, or keyspace-id range boundaries resharded by load"
	case "mongodb":
		return "MongoDB zones (sh.updateZoneKeyRange)"
	case "redis":
		return "Redis Cluster slots moved by load (CLUSTER SETSLOT)"
	case "cockroachdb":
		return "CockroachDB's load-based splitting and rebalancing"
	case "kafka":
		return "a Kafka custom partitioner"
	}
	return "a Vitess lookup vindex, Citus's tenant isolation with the rebalancer, MongoDB zones"
}

// monotonicHow says, after the bucket-prefix fix for a monotonic key col
// (range(bucket, col) with b buckets), what it is in the engine's
// system; "" where the system has nothing of its own to name.
func (a *analysis) monotonicHow(col string, b int) string {
	switch engineFamily(a.engine) {
	case "cockroachdb":
		return fmt.Sprintf(" In CockroachDB the bucket prefix is a hash-sharded index: PRIMARY KEY (%s) USING HASH WITH (bucket_count = %d).", col, b)
	case "mongodb":
		return fmt.Sprintf(" In MongoDB: a hashed shard key {%s: \"hashed\"} spreads inserts (a range query on %s then asks every shard), or a compound key led by an entity, {entity: 1, %s: 1}.", col, col, col)
	case "cassandra":
		return fmt.Sprintf(" In Cassandra: the bucket in the partition key, PRIMARY KEY ((bucket), %s), or a time bucket with the entity, PRIMARY KEY ((entity, day), %s).", col, col)
	case "yugabyte":
		return fmt.Sprintf(" In YugabyteDB: PRIMARY KEY ((bucket) HASH, %s ASC), or %s HASH alone if scans by it are rare.", col, col)
	case "citus":
		return fmt.Sprintf(" In Citus: distribute by an entity column (create_distributed_table hashes it) and range-partition each table by %s with PostgreSQL partitions (create_time_partitions).", col)
	}
	return ""
}
