// Package shardkey is the domain model of shardkey, a tool that tells a
// database team which shard key to choose from their own workload, before
// any data moves.
//
// Every input (a scenario spec, row/query/transaction samples, query logs,
// a live database's catalog and sample) is read into one Workload:
//
//	Workload
//	├── Tables      columns (typed Values) and rows with weights (share of requests)
//	├── Ops         operations: table, kind (read/insert/update/delete), rate
//	│               (requests/s) and instances with predicates (Cond: =, IN, range)
//	├── Txns        transactions: statements committed together, with weights
//	└── Catalog     what the database says beyond the samples: declared and
//	                foreign keys, row estimates, planner statistics (or nil)
//
// A Design (ParseDesign) is the sharding scheme under test: per table a key
// expression (hash, range, salt, isolate, directory) or replicate (a
// reference table).
//
// The pipeline, one package per stage (docs/architecture.md):
//
//	input, sqllog, livedb, scenario   read files, logs, databases, specs -> Workload
//	partition                         real engines' partition functions, bit for bit
//	sim                               route a Workload under a Design -> Partial -> Candidate
//	advisor                           candidates generated, scored, ranked, fixed -> Advice
//	report                            the documents commands print, one model each
//	cmd/shardkey, internal/web        parse arguments, call the library, render
//
// This package imports only the standard library. Comments cite "seed
// NNN": the four documents the product was created from, kept in
// docs/seeds/, whose numbers are acceptance tests; docs/product.md pins the
// commands, JSON names and the model of work.
package shardkey
