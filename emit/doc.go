// Package emit writes a chosen design as the target engine's own
// configuration, so a user can apply the recommendation:
//
//   - VSchema: a Vitess VSchema (JSON) for one sharded keyspace, with notes
//     for what JSON cannot say (keyspace-id ranges of isolated values,
//     shard ranges of range keys: numeric for integers, binary for text
//     and bytes, both order-preserving; compromises made).
//   - Citus: SQL calling create_reference_table (first), then
//     create_distributed_table (parents before the tables whose foreign
//     keys reference them), and isolate_tenant_to_new_shard; a warning
//     for each declared foreign key Citus would reject.
//   - MongoDB: a mongosh script calling sh.enableSharding,
//     sh.shardCollection and, for isolated values, zones.
//   - CockroachDB: DDL for hash-sharded primary keys (or a bucket column
//     computed as CockroachDB computes its own), range splits.
//
// Every emitter works table by table in workload order (Citus: reference
// tables, then foreign-key parents, first). A table's key is
// Design.For(table); isolate and salt are unwrapped to the key they wrap,
// and their hot values are Options.Hot[table], or else the top=N values of
// the key's first column in the workload's row sample by summed row weight.
// A table the design does not place is left out, with a note saying so.
//
// Where an engine cannot say what the design says (a Vitess range key on
// a float or timestamp, a Citus compound key, a MongoDB reference collection), the emitter
// does the nearest thing the engine offers and says what and why: in notes
// for the VSchema, in comments for the scripts. The output is
// deterministic: same workload, design and options, same bytes.
//
// A hash key's placement in the emitted configuration is the placement
// shardkey scores with the matching --engine (vitess*, citus, mongodb,
// cockroachdb), so the isolated values' keyspace ids, hashed values and
// buckets printed here are those of the partition package.
package emit
