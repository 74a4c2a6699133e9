// Package sim routes a workload through a sharding design and scores it:
// the cost model of shardkey.
//
// The flow, for one design (a key expression or TABLE:EXPR; ... over
// several tables, see shardkey.ParseDesign):
//
//  1. Compile resolves the design against the workload into a Scheme: per
//     table, the key's columns and the partition function (a
//     partition.Engine's placement, range boundaries at equal-weight
//     quantiles shared by the whole design, salt buckets, isolated values,
//     a directory), for N shards.
//  2. Run routes the workload's rows, operation instances and transactions
//     through the Scheme into a Partial: per-shard sums of row weight
//     (load) and of work (one unit per operation instance per shard it
//     touches), per-operation fan-out histograms, transaction counts by
//     shards touched. Partials of disjoint slices of the input Merge into
//     the Partial of their union, exactly, so one input is split across
//     cores (Run's workers), across time windows, or across machines.
//     Stream does the same for samples read straight from files.
//  3. Scheme.Report turns a Partial into a Candidate: the pinned figures
//     (requests_per_s, work_per_s, shard_work, work_ratio, fanout_mean,
//     fanout_p99, cross_shard_txn_fraction, load_ratio, ...), per operation
//     and per table, and the key's statistics (cardinality, top values,
//     monotonicity, entropy, the balls-into-bins expected max/mean).
//     Score does 1 to 3 in one call.
//
// Package advisor ranks Candidates into advice; package report holds the
// documents the commands print.
//
// The model of work (docs/product.md, "The model of work"): an operation
// instance costs one unit of work on every shard it touches; an equality
// on every key column touches one shard, an IN list the union of its
// values' shards, a range on a range key the ranges it overlaps, anything
// else every shard (scatter-gather); a write to a replicated (reference)
// table touches every shard and a read of it one. Rates are requests/s,
// work units/s, fractions 0..1, ratios max/mean over all shards (idle ones
// included).
package sim
