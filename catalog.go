package shardkey

// Catalog is what a live database says about its tables beyond the row
// sample: declared keys, the planner's row estimate and its per-column
// statistics. Package livedb fills it; the advisor can use it to judge a
// key on the whole table rather than the sample (a most-common value's
// share, a column's distinct count, whether it grows with insert order).
type Catalog struct {
	Source string // the database, password redacted
	Engine string // "postgresql", "mysql" or "mariadb", with the server version
	Tables []*TableInfo
	// Distribution is the design the database runs, when it keeps one
	// (a Citus coordinator's metadata); nil otherwise.
	Distribution *Distribution
}

// Distribution is the sharding a database runs today, read from its own
// metadata, as a design shardkey can score.
type Distribution struct {
	// System names the metadata read ("citus 12.1-1: pg_dist_partition,
	// pg_dist_shard").
	System string
	// Design is the design text, "TABLE:hash(col); TABLE:replicate; ...",
	// tables in name order; tables the metadata leaves undistributed are
	// not named (unsharded, as a design leaves them).
	Design string
	// Shards is the shard count of the hash-distributed tables (of the
	// shard intervals Ranges lists); 0 when no table is hash-distributed.
	Shards int
	// Ranges are those shards' intervals of the int32 hash space
	// (pg_dist_shard's shardminvalue and shardmaxvalue, inclusive), in
	// ascending order.
	Ranges [][2]int32
	// Warnings name what the design cannot express (tables distributed
	// by range or append, tables of another shard count, tables outside
	// the sampled schema).
	Warnings []string
	// Placed counts, per table of the sampled schema, the shards the
	// metadata lists for it (pg_dist_shard rows): on a coordinator such a
	// table's own relation is an empty shell, its rows on the shards.
	Placed map[string]int
}

// Table returns the table named name, or nil.
func (c *Catalog) Table(name string) *TableInfo {
	for _, t := range c.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// TableInfo is one table of a Catalog.
type TableInfo struct {
	Name string
	// RowEstimate is the planner's row count (pg_class.reltuples, summed
	// over the leaf partitions of a partitioned table;
	// information_schema.TABLES.TABLE_ROWS); -1 when the table has no
	// statistics: never analyzed, or analyzed while empty and filled since
	// (PostgreSQL), or no estimate (MySQL).
	RowEstimate float64
	// SampleRows is the number of rows sampled into the workload's table.
	SampleRows int
	// SampleMethod says how they were drawn ("TABLESAMPLE BERNOULLI
	// (2.5%) REPEATABLE (7) ...", "every row").
	SampleMethod string
	PrimaryKey   []string
	// UniqueKeys are the declared unique keys besides the primary key
	// (UNIQUE constraints and unique indexes), each its columns in order:
	// a column that is one alone names at most one row, so a lookup by it
	// (a Vitess lookup_unique vindex) routes to one shard.
	UniqueKeys  [][]string
	ForeignKeys []ForeignKey
	Columns     []*ColumnInfo
}

// ForeignKey is a declared reference from Columns to RefTable's RefColumns:
// the usual co-location candidates.
type ForeignKey struct {
	Columns    []string
	RefTable   string
	RefColumns []string
}

// ColumnInfo is one column of a table: its declared type, the shardkey type
// it was read as, and the planner's statistics when the database has them.
type ColumnInfo struct {
	Name   string
	DBType string // the database's own type name (int4, varchar(64), ...)
	Type   Type
	Stats  *ColumnStats // nil when the planner has none
	// Measured are the column's statistics computed by queries inside
	// the database (livedb with Options.Stats "db"); nil when they were
	// not computed (--stats sample, a type they are not computed for, a
	// statement that timed out).
	Measured *MeasuredStats
}

// MeasuredStats are one column's statistics computed inside the live
// database over the whole table (no sampling): exact counts, not
// estimates, unless Sampled says they were estimated from a sample drawn
// inside the database (--stats db:sample=P%). On a Citus coordinator
// they are computed on its workers and merged (Method names them). Package livedb fills them; sim reports them in place of the
// row sample's figures for a one-column key, and says so.
type MeasuredStats struct {
	// Method says how they were computed, for the report ("whole table,
	// GROUP BY inside postgresql 16.4").
	Method string
	// Rows is the table's row count; Nulls the rows where the column is
	// NULL; Distinct the number of distinct non-NULL values.
	Rows, Nulls, Distinct int64
	// Top are the most frequent non-NULL values (at most 10) with their
	// exact row counts, most frequent first, ties by value.
	Top []ValueCount
	// Correlation is Pearson's correlation (-1..1) of the column's value
	// with the row's insert order, as CorrelationDef states it (PostgreSQL:
	// physical position, ctid; MySQL/MariaDB: the auto-increment primary
	// key). HasCorrelation says whether it was computed (numeric and time
	// columns with a known insert order; a constant column has none).
	Correlation    float64
	HasCorrelation bool
	CorrelationDef string
	// ShardEngine, Shards: the placement the per-shard sums were computed
	// for (a partition engine's name: postgres, citus); ShardRows and
	// ShardBytes the rows and stored bytes on each shard, NULL keys
	// included where the engine places them; ShardMethod says how.
	// Empty when the database has no function for the engine's hash.
	ShardEngine string
	Shards      int
	ShardRows   []int64
	ShardBytes  []int64
	ShardMethod string
	// Sampled, when not empty, says the figures are estimates from a
	// sample drawn inside the database (--stats db:sample=P%): its size
	// and the estimators; empty for exact whole-table counts.
	Sampled string
}

// ValueCount is one value, in its text form, and its exact row count.
type ValueCount struct {
	Value string
	Rows  int64
}

// ColumnStats are a column's planner statistics, as PostgreSQL's pg_stats
// holds them (MySQL provides only a distinct count, for indexed columns).
type ColumnStats struct {
	// NullFrac is the fraction of rows that are NULL.
	NullFrac float64
	// NDistinct is the number of distinct values when positive; when
	// negative, minus the number of distinct values divided by the number
	// of rows (-1: unique), which scales with the table; 0 when unknown.
	NDistinct float64
	// MostCommon are the most common values, in their text form, and
	// MostCommonFreqs their shares of all rows (0..1), most common first.
	MostCommon      []string
	MostCommonFreqs []float64
	// Correlation is the correlation between the column's order and the
	// rows' physical order (-1..1); near 1 for values that grow with insert
	// order. HasCorrelation says whether it is known.
	Correlation    float64
	HasCorrelation bool
}

// Distinct returns the estimated number of distinct values in a table of
// rows rows, or 0 when unknown.
func (s *ColumnStats) Distinct(rows float64) float64 {
	if s.NDistinct < 0 {
		return -s.NDistinct * rows
	}
	return s.NDistinct
}
