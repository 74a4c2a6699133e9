package advisor

import (
	"fmt"
	"strings"

	"github.com/shardkey/shardkey/sim"
)

// keyMoveEngine says what engine (its --engine name, options removed)
// does with an UPDATE that assigns a row's shard key: refuses reports
// that it is an error there, why says what it does, in the engine's words
// where it has them.
func keyMoveEngine(engine string) (refuses bool, why string) {
	if i := strings.IndexAny(engine, "(:"); i >= 0 {
		engine = engine[:i]
	}
	engine = strings.TrimSpace(engine)
	switch {
	case engine == "citus":
		// citusdata/citus src/backend/distributed/planner/
		// multi_router_planner.c: an UPDATE whose target list assigns the
		// distribution column a value other than the one its WHERE binds
		// (TargetEntryChangesValue) is a DeferredError
		// "modifying the partition value of rows is not allowed".
		return true, `Citus refuses it ("modifying the partition value of rows is not allowed"): the application must delete the row and insert it again`
	case engine == "cassandra":
		// apache/cassandra cql3/statements/UpdateStatement.java,
		// ParsedUpdate.prepareInternal: a PARTITION_KEY or
		// CLUSTERING_COLUMN in the SET throws InvalidRequestException
		// "PRIMARY KEY part %s found in SET part".
		return true, `Cassandra refuses it ("PRIMARY KEY part ... found in SET part": a primary key column cannot be updated): the application must delete the row and insert it again`
	case strings.HasPrefix(engine, "vitess"):
		// vitessio/vitess go/vt/vtgate/planbuilder/operators/update.go:
		// a changed vindex value on the table's first (primary) vindex
		// is vterrors.VT12001 "you cannot UPDATE primary vindex columns;
		// invalid update on vindex: %v"; only owned lookup vindexes may
		// change (engine/update.go, updateVindexEntries). The older
		// planner said "unsupported: You can't update primary vindex
		// columns" (planbuilder/update.go).
		return true, `Vitess refuses it ("VT12001: unsupported: you cannot UPDATE primary vindex columns"): the application must delete the row and insert it again, on two shards`
	case engine == "mongodb":
		// https://www.mongodb.com/docs/current/core/sharding-change-shard-key-value/
		// ("Change a Document's Shard Key Value"): since 4.2, on a
		// mongos, in a transaction or as a retryable write, with an
		// equality on the full shard key in the query filter; the
		// document moves to the new value's shard.
		return false, "MongoDB (4.2 and later) moves the document to its new shard only when the update runs in a transaction or as a retryable write through mongos and its filter has an equality on the full shard key; otherwise it is refused"
	case engine == "cockroachdb", engine == "yugabyte":
		// YugabyteDB YSQL: yugabyte/yugabyte-db#659, "[YSQL] Support
		// updating primary key columns" (commit 3f3bf49c): an UPDATE of a
		// primary key column is a "replace", deleting the row and
		// inserting a new one (YBCExecuteUpdateReplace, executor/
		// ybModifyTable.h). CockroachDB stores the row under its primary
		// key in the KV layer, so a changed key is a delete of the old
		// KV pairs and a write of the new in the statement's
		// transaction; its 2015 sql/update.go still refused ("primary
		// key column ... cannot be updated"), current versions do not
		// (not confirmed here from its source: an assumption).
		name := map[string]string{"cockroachdb": "CockroachDB", "yugabyte": "YugabyteDB"}[engine]
		return false, name + " moves the row: a delete at the old key and a write at the new one, in one distributed transaction"
	case engine == "postgres":
		// PostgreSQL 11 and later move a row whose partition key an
		// UPDATE changes to its new partition (commit 2f178441, "Allow
		// UPDATE to move rows between partitions"): a delete and an insert.
		return false, "PostgreSQL (11 and later) moves the row to its new partition: a delete and an insert"
	}
	return false, "the row must move: a delete on the old shard and an insert on the new one, one cross-shard write"
}

// keyMoves appends to as the reasons (and, where the engine refuses such
// an update, the rejection) of the design's key-changing updates: each
// operation of c that assigns a table's key (sim.OpScore.KeyMovesPerS).
func (a *analysis) keyMoves(as *Assessment, c *sim.Candidate) {
	refuses, why := keyMoveEngine(a.engine)
	for _, op := range c.Operations {
		if op.KeyMovesPerS <= 0 {
			continue
		}
		col := "its key"
		for _, tk := range c.Tables {
			if tk.Table == op.Table {
				col = strings.Join(tk.Columns, ", ")
				break
			}
		}
		text := fmt.Sprintf("%s sets %s, the shard key of %s, at %s/s: each moves its row, a delete on the old shard and an insert on the new (%s more units of work/s), %s of them to another shard, a cross-shard write; %s",
			op.Name, col, op.Table, fmtF(op.KeyMovesPerS), fmtF(op.KeyMovesPerS), pct(op.KeyMoveCrossFraction), why)
		as.Reasons = append(as.Reasons, text)
		if refuses && as.Viable {
			as.Viable = false
			as.Rejection = fmt.Sprintf("%s sets %s, the shard key of %s, at %s/s, and %s", op.Name, col, op.Table, fmtF(op.KeyMovesPerS), strings.SplitN(why, ": the application", 2)[0])
		}
	}
}
