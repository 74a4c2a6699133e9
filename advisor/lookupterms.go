package advisor

import (
	"fmt"
	"strings"
)

// A design's lookup(col) is a secondary routing table: a table from col
// to the row's key, sharded by col, read before the row and written with
// it (a global secondary index). Vitess has it built in, as a lookup
// vindex, and its advice says so in Vitess's terms; under another engine
// the advice says it in the standard terms, naming the system a term or
// a fact comes from (lookupSystem).

// vitessTerms reports whether engine is a Vitess vindex's, whose advice
// names lookups as Vitess lookup vindexes.
func vitessTerms(engine string) bool { return strings.HasPrefix(engine, "vitess") }

// lookupKind returns what a lookup on col is, for a parenthesis after
// "a lookup table sharded by col that maps each col to the key": under
// Vitess "a global secondary index; a Vitess VINDEX vindex", elsewhere
// "a secondary index table keyed by col, a global index" and what the
// engine's system has of one.
func lookupKind(engine, col, vindex string) string {
	if vitessTerms(engine) {
		return fmt.Sprintf("a global secondary index; a Vitess %s vindex", vindex)
	}
	s := fmt.Sprintf("a secondary index table keyed by %s, a global index", col)
	if sys := lookupSystem(engine, col); sys != "" {
		s += "; " + sys
	}
	return s
}

// lookupSystem says what engine's system offers for a global index on
// col, "" when nothing is worth saying (generic placement functions, and
// systems with no secondary indexes of their own to compare with).
func lookupSystem(engine, col string) string {
	switch engineFamily(engine) { // citus(shard_count=...) is Citus too
	case "redis":
		return fmt.Sprintf("Redis Cluster has no secondary indexes: the application keeps a key per %s value holding the row's key", col)
	case "mongodb":
		return fmt.Sprintf("MongoDB's indexes are local to each shard: the application keeps a mapping collection sharded by %s", col)
	case "citus":
		return fmt.Sprintf("Citus's indexes are local to each shard: the application keeps a table distributed by %s", col)
	case "cassandra":
		return fmt.Sprintf("Cassandra's secondary indexes are local to each node: the application keeps a table partitioned by %s", col)
	case "cockroachdb":
		return fmt.Sprintf("CockroachDB's secondary indexes are global, in ranges of their own: CREATE INDEX on %s is one", col)
	case "yugabyte":
		return fmt.Sprintf("YugabyteDB's secondary indexes are global, sharded by their own key: CREATE INDEX on %s is one", col)
	}
	return ""
}

// lookupApart is how a lookup's rows stay out of its owner's
// transactions, in the words of the system that does it.
const lookupApart = "writing the lookup rows apart, before the transaction's own commit, as Vitess's consistent_lookup vindex does, keeps those single-shard at the price of orphan lookup rows that reads must check against the rows"

// lookupTxnText says that lookup rows written in a transaction join it,
// frac (a percentage) of transactions crossing shards only for them.
func lookupTxnText(engine, frac string) string {
	if vitessTerms(engine) {
		return fmt.Sprintf("lookup rows written in a transaction join it (Vitess: CommitOrder_NORMAL): %s of transactions cross shards only because a lookup table's shard is not their rows' (a consistent_lookup vindex commits its writes apart instead)", frac)
	}
	return fmt.Sprintf("lookup rows written in a transaction join it: %s of transactions cross shards only because a lookup table's shard is not their rows' (%s)", frac, lookupApart)
}
