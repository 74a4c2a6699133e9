package shardkey

import (
	"fmt"
	"math"
	"strings"

	"github.com/shardkey/shardkey/internal/kmv"
)

// Workload is the one model every input produces and every command
// consumes: tables with a sample of rows, the operations run against them
// with their rates, the transactions that commit together, and the design
// parameters (candidate keys, shard count, per-shard capacity).
type Workload struct {
	Name        string
	Description string
	Source      string // file the workload was read from, for messages ("" if built in code)

	Tables []*Table
	Ops    []*Operation
	Txns   []Txn

	// Candidates are key expressions or designs (see ParseDesign) to score
	// when the user names none.
	Candidates []string
	// CandidateLines holds the line of each of Candidates in Source, by
	// its text (a scenario spec's candidates: list), for messages about
	// a candidate found when it is scored; absent when not known.
	CandidateLines map[string]int
	// Shards is the number of shards (>= 1); 0 means the command's default.
	Shards int
	// Nodes, when > 0, is the number of nodes the Shards are placed on as
	// logical shards (slots), contiguously: reports give per-node work
	// beside per-slot work. 0: each shard is its own node.
	Nodes int
	// Capacity is the work one shard can do, in units of work per second
	// (one unit = one operation instance on one shard). 0 means unknown.
	Capacity float64
	// Seed makes every random choice of readers and generators repeatable.
	Seed int64

	// Catalog is what the database's catalog says beyond the samples
	// (declared keys, foreign keys, row estimates, planner statistics):
	// filled by a live database (package livedb) or a schema file; nil
	// when neither was given. A copy of the Workload shares it.
	Catalog *Catalog

	// Dialect is the SQL dialect of the statements read (a log's:
	// "postgresql", or "mysql" for MySQL and MariaDB), for SQL the
	// reports write back; "" when no log was read (Catalog.Engine then
	// names a live database's or a schema file's).
	Dialect string

	// Joins are the join equalities the statements showed between
	// columns of two tables (a log's JOIN ... ON a.x = b.y), each once
	// per direction, with the number of statements: how the application
	// relates its tables. The advisor reads entity groups from them.
	Joins []Join

	// RolledBackTxns is the number of transactions a log showed ending in
	// ROLLBACK (ROLLBACK TO SAVEPOINT ends none). A sample of them is in
	// Txns, marked Txn.RolledBack: a rolled-back transaction commits
	// nothing, so it is no commit of cross_shard_txn_fraction, but one
	// that spans shards cost their coordination all the same (summed
	// apart); its statements are in Ops (they did their work).
	RolledBackTxns float64

	// RatesRelative reports that the operations' rates are counts over
	// an unknown span (a pg_stat_statements export: calls, no period):
	// only their shares and ratios hold; absolute rates and capacity
	// verdicts are unknown.
	RatesRelative bool
	// TxnsUnknown reports that the input does not say which statements
	// ran together (a pg_stat_statements export): Txns is empty, and the
	// cross-shard share of transactions is unknown, not 0.
	TxnsUnknown bool

	// Warnings are problems that did not stop reading (skipped lines,
	// unparsable statements), each naming its file and line.
	Warnings []error
}

// Join is one join equality: Table.Column = OtherTable.OtherColumn, seen
// in Statements statements (a weight where the log has counts).
type Join struct {
	Table, Column           string
	OtherTable, OtherColumn string
	Statements              float64
}

// Table returns the table named name, or nil.
func (w *Workload) Table(name string) *Table {
	for _, t := range w.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// TableIndex returns the index of table name in w.Tables, or -1.
func (w *Workload) TableIndex(name string) int {
	for i, t := range w.Tables {
		if t.Name == name {
			return i
		}
	}
	return -1
}

// Validate checks the workload's internal consistency: shard count and
// capacity in range, every operation's table and columns present, finite
// non-negative weights and rates. Readers call it before returning.
func (w *Workload) Validate() error {
	if w.Shards < 0 || w.Shards > MaxShards {
		return fmt.Errorf("shards: %d must be in 1..%d", w.Shards, MaxShards)
	}
	if w.Nodes < 0 || w.Shards > 0 && w.Nodes > w.Shards {
		return fmt.Errorf("nodes: %d must be in 1..shards (%d)", w.Nodes, w.Shards)
	}
	if w.Capacity < 0 || math.IsNaN(w.Capacity) || math.IsInf(w.Capacity, 0) {
		return fmt.Errorf("capacity: %v must be a non-negative number", w.Capacity)
	}
	seen := map[string]bool{}
	for _, t := range w.Tables {
		if seen[t.Name] {
			return fmt.Errorf("table %q defined twice", t.Name)
		}
		seen[t.Name] = true
		if err := t.Validate(); err != nil {
			return err
		}
	}
	for _, op := range w.Ops {
		if op.Table < 0 || op.Table >= len(w.Tables) {
			return fmt.Errorf("operation %q: no table %d", op.Name, op.Table)
		}
		if !finiteNonNeg(op.Rate) {
			return fmt.Errorf("operation %q: rate %v must be a finite non-negative number", op.Name, op.Rate)
		}
		t := w.Tables[op.Table]
		for i := range op.Instances {
			in := &op.Instances[i]
			if !finiteNonNeg(in.Weight) {
				return fmt.Errorf("operation %q: instance %d: weight %v must be a finite non-negative number", op.Name, i, in.Weight)
			}
			for _, c := range in.Conds {
				if c.Col < 0 || c.Col >= len(t.Columns) {
					return fmt.Errorf("operation %q: column index %d out of range for table %s", op.Name, c.Col, t.Name)
				}
			}
		}
	}
	for i, tx := range w.Txns {
		if !finiteNonNeg(tx.Weight) {
			return fmt.Errorf("transaction %d: weight %v must be a finite non-negative number", i, tx.Weight)
		}
		for _, st := range tx.Stmts {
			if st.Table < 0 || st.Table >= len(w.Tables) {
				return fmt.Errorf("transaction %d: no table %d", i, st.Table)
			}
		}
	}
	return nil
}

func finiteNonNeg(f float64) bool { return f >= 0 && !math.IsInf(f, 1) && !math.IsNaN(f) }

// Table is a table with a sample of its rows, held column by column.
type Table struct {
	Name    string
	Columns []*Column
	// Weights holds each row's weight: its share of requests (seed 000).
	// nil means every row weighs 1.
	Weights []float64
	// Rows is the number of sample rows.
	Rows int
	// Monotonic names columns whose new values always exceed every
	// existing one (auto-increment ids, insert timestamps), as declared by
	// a generator or detected by a reader.
	Monotonic map[string]bool
	// Unique names columns each of whose values is one row of the table
	// (of the whole table, not only of the sample), as declared by a
	// generator: a spec's sequential and uuid columns. A catalog's
	// primary and unique keys are in Catalog, not here.
	Unique map[string]bool
	// PerValue names columns each of whose values holds exactly that many
	// rows of the table (of the whole table), as a spec declares it: a
	// column inherited from a parent in which it is unique (or itself
	// PerValue k) by a fixed per_parent n holds n (n x k) rows per value
	// (TPC-C's district: 10 rows for each w_id). Every value then has the
	// same share of the table's rows.
	PerValue map[string]int
	// Traffic, when set, counts by column name the values every
	// statement of a log bound to the column by equality (see
	// ValueCounts): a log reader keeps only a sample of the statements as
	// Instances, but counts all of them here, for the key statistics of a
	// table read only from a log. nil for other inputs.
	Traffic map[string]*ValueCounts
}

// ValueCounts counts the values the statements of a log bind to one
// column by equality (col = v, and each value of col IN (...) for
// 1/len of the statement, NULLs and values the log does not hold left
// out), weighted as operations are: requests per second over the log's
// time span (pg_stat_statements: calls). Values holds the first
// Exact distinct values in the order they were first seen (operation
// shape by shape, then statement by statement, as a sample that kept
// every statement lists them) and Weights their requests per second;
// values first seen once Exact were held are not listed but counted in
// Total and in Sketch, the k-minimum-values sketch (internal/kmv) of the
// hashes of their text as the statements wrote it. Counted operations
// (Operation.Counted) are the ones whose values are counted here.
type ValueCounts struct {
	Values  []Value
	Weights []float64
	// Sketch is nil while every distinct value is in Values.
	Sketch []uint64
	// Total is the weight of every value counted, listed or not.
	Total float64
	// Statements is the number of statements that bound the column to a
	// value counted here, each once whatever its weight or list length:
	// how many observations the shares rest on (the whale test's n).
	Statements int
}

// Distinct returns the distinct values counted: exact while Sketch is
// nil, else len(Values) plus the sketch's estimate (estimated true).
func (vc *ValueCounts) Distinct() (n int, estimated bool) {
	if len(vc.Sketch) == 0 {
		return len(vc.Values), false
	}
	return len(vc.Values) + kmv.Estimate(vc.Sketch), true
}

// Weight returns the weight of row i.
func (t *Table) Weight(i int) float64 {
	if t.Weights == nil {
		return 1
	}
	return t.Weights[i]
}

// Column returns the column named name, or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// ColumnIndex returns the index of column name, or -1.
func (t *Table) ColumnIndex(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// AddColumn appends an empty column and returns its index. If the column
// exists, it returns the existing index.
func (t *Table) AddColumn(name string, typ Type) int {
	if i := t.ColumnIndex(name); i >= 0 {
		return i
	}
	t.Columns = append(t.Columns, &Column{Name: name, Type: typ})
	return len(t.Columns) - 1
}

// ColumnNames returns the names of t's columns in order.
func (t *Table) ColumnNames() []string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return names
}

// Validate checks that every column holds Rows values and that weights are
// finite and non-negative.
func (t *Table) Validate() error {
	for _, c := range t.Columns {
		if c.Len() != t.Rows {
			return fmt.Errorf("table %s: column %s has %d values for %d rows", t.Name, c.Name, c.Len(), t.Rows)
		}
	}
	if t.Weights != nil {
		if len(t.Weights) != t.Rows {
			return fmt.Errorf("table %s: %d weights for %d rows", t.Name, len(t.Weights), t.Rows)
		}
		for i, w := range t.Weights {
			if !finiteNonNeg(w) {
				return fmt.Errorf("table %s: row %d: weight %v must be a finite non-negative number", t.Name, i+1, w)
			}
		}
	}
	return nil
}

// Column is one column of a table's row sample. Values are stored by
// representation: Ints for integer types, Uint64, Timestamp, Date and Bool,
// Floats for floating types, Strs for Text, Bytes, UUID, ObjectID and
// ExtJSON. Nulls, when non-nil, marks
// NULL cells.
type Column struct {
	Name   string
	Type   Type
	Ints   []int64
	Floats []float64
	Strs   []string
	Nulls  []bool
}

// Len returns the number of values.
func (c *Column) Len() int {
	switch {
	case c.Type == Float32 || c.Type == Float64:
		return len(c.Floats)
	case c.Type.IsStr():
		return len(c.Strs)
	case c.Type == Null:
		return len(c.Nulls)
	}
	return len(c.Ints)
}

// Value returns the value of row i.
func (c *Column) Value(i int) Value {
	if c.Nulls != nil && c.Nulls[i] {
		return Value{}
	}
	switch c.Type {
	case Float32, Float64:
		return Value{Type: c.Type, Float: c.Floats[i]}
	case Text, Bytes, UUID, ObjectID, ExtJSON:
		return Value{Type: c.Type, Str: c.Strs[i]}
	case Null:
		return Value{}
	}
	return Value{Type: c.Type, Int: c.Ints[i]}
}

// Append adds v, which must be NULL or of the column's type (integer types
// of other widths are accepted by an integer column).
func (c *Column) Append(v Value) error {
	n := c.Len()
	if v.Type == Null {
		if c.Nulls == nil {
			c.Nulls = make([]bool, n, n+1)
		}
		c.Nulls = append(c.Nulls, true)
		switch c.Type {
		case Float32, Float64:
			c.Floats = append(c.Floats, 0)
		case Text, Bytes, UUID, ObjectID, ExtJSON:
			c.Strs = append(c.Strs, "")
		case Null:
		default:
			c.Ints = append(c.Ints, 0)
		}
		return nil
	}
	if v.Type != c.Type && !(v.Type.IsInt() && c.Type.IsInt() && v.Type != Timestamp && c.Type != Timestamp) {
		return fmt.Errorf("column %s: %s value %s in a %s column", c.Name, v.Type, v, c.Type)
	}
	switch c.Type {
	case Float32, Float64:
		c.Floats = append(c.Floats, v.Float)
	case Text, Bytes, UUID, ObjectID, ExtJSON:
		c.Strs = append(c.Strs, v.Str)
	default:
		c.Ints = append(c.Ints, v.Int)
	}
	if c.Nulls != nil {
		c.Nulls = append(c.Nulls, false)
	}
	return nil
}

// Kind is what an operation does.
type Kind uint8

const (
	Read Kind = iota
	Insert
	Update
	Delete
)

var kindNames = [...]string{Read: "read", Insert: "insert", Update: "update", Delete: "delete"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// IsWrite reports whether k changes data.
func (k Kind) IsWrite() bool { return k != Read }

// ParseKind returns the Kind named s ("read", "select", "insert", "write",
// "update", "delete").
func ParseKind(s string) (Kind, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "read", "select", "query", "get":
		return Read, nil
	case "insert", "write", "create":
		return Insert, nil
	case "update":
		return Update, nil
	case "delete":
		return Delete, nil
	}
	return Read, fmt.Errorf("unknown operation kind %q (want read, insert, update or delete)", s)
}

// Operation is one statement shape run at a rate: a read, insert, update or
// delete on one table, with instances that each bind concrete values.
//
// An instance's share of the operation's rate is its Weight over the sum of
// weights. The cost model (seed 000/001): each instance costs one unit of
// work on every shard it touches.
type Operation struct {
	Name  string
	Table int  // index in Workload.Tables
	Kind  Kind // read, insert, update or delete
	// Rate is the operation's requests per second, summed over instances.
	Rate float64
	// Instances bind the operation's parameters; at least one.
	Instances []Instance
	// Latency says how the operation is served: "interactive" (default) or
	// "batch" (reports, exports), for the advisor.
	Latency string
	// UseVindex and IgnoreVindex are the statement's Vitess vindex hint on
	// the table, as in Access: a scheme whose key's vindex the hint
	// excludes routes the operation without its conditions.
	UseVindex, IgnoreVindex []string
	// Counted reports that every statement's equality values are counted
	// in the table's Traffic (a log's operation): the Instances are a
	// sample of them, for routing.
	Counted bool
}

// Instance is one execution of an operation with its bound conditions.
type Instance struct {
	Weight float64
	Conds  []Cond
	// Seq is the instance's place in its source's order, from 1: a log's
	// statements (each table a statement reads or writes, each row of a
	// multi-row INSERT) numbered as read, continuing from one log to the
	// next read into the same workload. A reservoir that keeps an
	// instance in place of another keeps its Seq, so sorting the
	// instances by Seq gives their order in the log whatever the
	// sample's order. 0 when the source has no order (a scenario, a
	// queries file): the instances are then in their operation's order.
	// The monotonicity of inserted values ranks them by it.
	Seq int64
	// Peers are the tables the same statement joins to this one by an
	// equality on one of its columns, with what the statement binds on
	// them (nil for most instances). Routing ignores them: a router
	// routes a join by the conditions on each table's own key, and
	// readers carry a bound join column into Conds already. The advisor
	// reads them when it carries a root key into a child table (the
	// child then routes by the root value its joined parent binds, once
	// the statement joins on the carried column too).
	Peers []Peer
	// Sets, for an UPDATE, are the columns its SET clause assigns (nil
	// for other kinds, and for columns the workload does not otherwise
	// know), each an Eq condition on the column: Val the new value when
	// the statement gives it (a literal, a bind parameter with its value),
	// else Fresh FreshUnique, a value known only at run time (Param for a
	// bind parameter, false for an expression or subquery). Routing does
	// not use them; a Vitess owned lookup vindex on a SET column costs a
	// delete of the old value's lookup row and an insert of the new one's
	// (sim, lookup.go).
	Sets []Cond
	// Parts, on the access that counts a multi-table statement's request
	// (a SELECT's first table's read: a join, a subquery the statement
	// carries; or the one write of a statement that also reads other
	// tables: INSERT ... SELECT, UPDATE ... FROM, DELETE ... USING; or
	// the first row of a multi-row INSERT ... VALUES), are the
	// statement's other tables' reads and its other rows, each with the
	// conditions and join peers it routes by (as its own instance's).
	// The statement is one request, whatever the engine (a Citus router
	// or multi-shard query, a Vitess route or join, a multi-row insert
	// Vitess splits by shard): its fan-out is the union of its own and
	// its parts' shards (sim). nil for other instances.
	Parts []Part
	// Rider marks a read or inserted row that is one of those other
	// parts (in some instance's Parts): its work and its own fan-out
	// count, but it is no request of its own (the statement's first
	// read, its write, or its first row counts it).
	Rider bool
}

// Part is one table's read of a multi-table statement (Instance.Parts),
// or one more row of a multi-row INSERT: the table (index in
// Workload.Tables), its conditions and join peers as that access's own
// instance has them, and its kind (Read, the zero value, or Insert: a
// row routed as an insert is, e.g. to one salt bucket, not every one).
type Part struct {
	Table int
	Conds []Cond
	Peers []Peer
	Kind  Kind
}

// Peer is one join equality of an instance's statement: column Col of
// the instance's table equals column OtherCol of table Table (indexes in
// Workload.Tables and that table's Columns), and Conds are the
// statement's = and IN conditions on that table (as that table's Conds,
// values known when read; fresh values left out).
type Peer struct {
	Col, Table, OtherCol int
	Conds                []Cond
}

// Op is a condition's comparison.
type Op uint8

const (
	Eq    Op = iota // column = Val (an insert's column values are Eq conditions)
	In              // column IN List
	Range           // Lo <= column < Hi, bounds as flagged
)

// Shard-count limits, shared by every command, the spec reader and the
// playground.
const (
	// MaxShards is the most shards a workload is scored on (score, demo,
	// advise, explain, a spec's shards, salt buckets): scoring keeps
	// per-shard sums and histograms for every operation and key, so the
	// bound keeps their memory small (64 Ki shards x 8 bytes per figure).
	MaxShards = 1 << 16
	// MaxPlaceShards is the most shards `place` maps values to: placement
	// keeps nothing per shard (a Redis Cluster has 16,384 slots; a Vitess
	// keyspace-id range split this fine is already one value per shard
	// for most samples).
	MaxPlaceShards = 1 << 20
)

// MaxRate bounds a weight or rate a reader accepts (requests/s or a
// share), so that the sums of work stay finite: a billion of them times a
// fan-out of a million shards is still below 1e216.
const MaxRate = 1e200

// Fresh marks an equality on a value the sample does not hold yet: the id
// or timestamp of a row being inserted.
type Fresh uint8

const (
	NotFresh    Fresh = iota
	FreshUnique       // a new, unique, unordered value (a random UUID): hashes uniformly
	FreshNewest       // a new value above every existing one (auto-increment, now()): the last range
)

// Cond is one condition of an instance on a column of the operation's table.
type Cond struct {
	// The fields are ordered by size, small ones first, so that a
	// Cond stays small: reservoirs of a big log keep many of them.
	Col   int   // column index in the table
	Op    Op    // Eq, In or Range
	Fresh Fresh // for Eq: the value is new (Val unused)
	// Param says a value known only at run time (Fresh FreshUnique, or
	// In's Unknown values) is a bind parameter's ($1, ?, :name), not a
	// subquery's result: for explanations.
	Param bool
	// IsNull says an In with no values is col IS NULL (not a value
	// outside the column's type or = NULL): no row holds a NULL key, but
	// rows with a NULL in a lookup column exist, on any shard (a NULL has
	// no lookup row).
	IsNull bool
	// ViaPrefer says which routes when this table's own condition on the
	// column and a Via one both bind it: the better one (= before IN)
	// and on a tie this table's (-1) or the Via one (+1), as Vitess picks
	// the cheapest vindex option and, of equal ones, the later route's;
	// or always this table's own (-2) or the Via one (+2), as a join of
	// two routes on the same vindex keeps its left-hand route's choice
	// (join_merging.go, mergeShardedRouting).
	ViaPrefer int8
	// ViaSingle says the merge holds only when the Via conditions so
	// marked route to one shard: the other route limits, aggregates or
	// groups across its rows (subquery_planning.go, isMergeable), which
	// only one shard can do within a merged route; unless ViaGroupBy,
	// when non-zero, is column ViaGroupBy-1 of the table, which the
	// other route groups by, and it is a unique vindex (the table's key
	// or a unique lookup): each group is then on one shard.
	ViaSingle bool
	// FreshVar identifies a fresh value within a transaction: conditions
	// with the same non-zero FreshVar hold the same new value (an order's
	// id in the order row and in its line items).
	FreshVar int32
	// Via, when non-zero, marks a condition of another route of the same
	// statement, carried here by an equality between column Via-1 of
	// this table and the same column of the same table in that route
	// (music.id IN (SELECT music.id FROM music WHERE user_id IN (1, 2,
	// 3)), a join or derived table on it): it binds this table only when
	// that column is a unique lookup of the table (a value is on one row
	// and one shard, so both routes' rows are on the same shards), as
	// Vitess merges two routes compared on one unique vindex
	// (go/vt/vtgate/planbuilder/operators/route_planning.go,
	// canMergeOnFilter; subquery_planning.go, mergeSubqueryInputs) and
	// routes the merged route by the best of both routes' vindex
	// predicates (sharded_routing.go, PickBestAvailableVindex). The
	// router resolves it (sim, router.merged); readers set it.
	Via        int32
	ViaGroupBy int32
	// ViaTable and ViaTableCol, when non-zero, say the other route reads
	// another table, table ViaTable-1 of the workload, compared on its
	// column ViaTableCol-1 with column Via-1 of this one (user.id IN
	// (SELECT user_id FROM user_extra WHERE user_id = 6)): the condition
	// is on that column, renamed to this table's, and binds this table
	// only when both columns are the keys of their tables by the same
	// vindex (one VSchema vindex, co-located tables), as Vitess merges
	// routes whose compared columns have the very same unique vindex
	// (canMergeOnFilter, route_planning.go: rVindex == lVindex).
	ViaTable, ViaTableCol int32
	// Unknown, for In, counts the list's values known only at run time
	// beyond List (bind parameters without values: IN ($1, $2), IN (?, ?)
	// of a pg_stat_statements or MySQL digest text); -1 says the list's
	// length is unknown too (Vitess's list bind variable IN ::list, a
	// PostgreSQL array parameter = ANY($1) without its value). Each
	// unknown value is on a shard the router cannot name: the statement
	// asks at most len(List)+Unknown shards.
	Unknown int32
	Val     Value   // Eq: the value
	List    []Value // In: the values
	Bounds  *Bounds // Range: the bounds
	// Outside, for an In with no values, is the condition as the
	// statement wrote it when its values are all outside the column's
	// type ("= 'abc'", "IN ('a', 'b')"), for explanations; "" otherwise.
	Outside string
}

// Bounds are the ends of a range condition. A missing end is unbounded.
type Bounds struct {
	Lo, Hi         Value
	HasLo, HasHi   bool
	LoIncl, HiIncl bool
	// LoNow and HiNow mark an end known only at run time, near the
	// newest values (created_at > now() - interval '1 day'): HasLo or
	// HasHi is then false and Lo or Hi unused.
	LoNow, HiNow bool
	// LoAgo and HiAgo are how far before now such an end is, in
	// microseconds (now() - interval '1 day': 86400000000; negative for
	// now() + interval), when LoAgoOK or HiAgoOK says it is known (a
	// wall-clock time less a constant interval). Routing places the end
	// relative to the newest value of the column in the row sample.
	LoAgo, HiAgo     int64
	LoAgoOK, HiAgoOK bool
}

// Txn is one transaction: the statements that commit together. Its weight
// is its share among transactions (or its rate, where the input has rates).
type Txn struct {
	Name   string
	Weight float64
	Stmts  []Stmt
	// RolledBack marks a transaction a log showed ending in ROLLBACK: it
	// committed nothing, but under a design where it spans shards it
	// still cost the coordination (a two-phase commit's prepare then
	// abort, or at least locks held on several shards until the
	// rollback). The simulator sums such transactions apart from the
	// committed ones (sim.Candidate.RolledBackCrossShardFraction); what
	// reads the transactions as the workload's commits skips them
	// (Committed).
	RolledBack bool
}

// Committed reports whether tx is a committed transaction of the
// workload (not one that rolled back: Txn.RolledBack).
func (tx *Txn) Committed() bool { return !tx.RolledBack }

// Requests counts the statements of transaction tx that are requests of
// their own: not riders (Stmt.Rider), which the statement they ride in
// counts, as an operation's requests do (Instance.Rider).
func (tx *Txn) Requests() int {
	n := 0
	for i := range tx.Stmts {
		if !tx.Stmts[i].Rider {
			n++
		}
	}
	return n
}

// Stmt is one statement of a transaction.
type Stmt struct {
	Table int
	Kind  Kind
	Conds []Cond
	// UseVindex and IgnoreVindex: a Vitess vindex hint, as in Operation.
	UseVindex, IgnoreVindex []string
	// Sets: an UPDATE's SET columns, as in Instance.
	Sets []Cond
	// Rider marks an access that is no request of its own, as
	// Instance.Rider does (a join's other table, a multi-row INSERT's
	// rows after its first): routed with the transaction all the same,
	// but not counted among its requests.
	Rider bool
}

// Access is one table one SQL statement touches, as a router sees it: the
// statement's kind and conditions on the table (a Stmt: Conds index the
// table's columns) and what routing and its explanation need beyond them.
// Package sqllog produces Accesses from SQL text; sim.Scheme routes them.
type Access struct {
	Table int // index in Workload.Tables
	Kind  Kind
	Conds []Cond
	// None says the statement asks the table for no row: its WHERE holds
	// for none (WHERE 1 = 0, id = NULL); Conds are then an empty IN list
	// on every column.
	None bool
	// Partial names columns an OR binds in some of its disjuncts but not
	// all (they bind nothing; for explanations).
	Partial []string
	// Loose names columns compared in ways that bind no value (<>, NOT
	// IN), for explanations.
	Loose []string
	// UseVindex and IgnoreVindex are the names of a Vitess vindex hint on
	// the table (USE VINDEX (...), IGNORE VINDEX (...)): the planner
	// considers only, or never, the vindexes named.
	UseVindex, IgnoreVindex []string
	// Sets: an UPDATE's SET columns, as in Instance.
	Sets []Cond
	// Peers: the tables the statement joins to this one, as in
	// Instance (a read merged with a joined table's lookup route).
	Peers []Peer
}

// Arena keeps the statements and conditions of many transactions in a
// few large blocks, each slice handed out with its capacity equal to its
// length (an append copies it away). A reader building transactions one
// by one into an Arena lays them out in memory in order, so that a pass
// over Workload.Txns (one per candidate key) reads memory sequentially
// rather than chasing one small allocation per statement; it also
// allocates far less. The zero Arena is ready to use.
type Arena struct {
	conds []Cond
	stmts []Stmt
}

// arenaBlock is the length of a block (conditions or statements): a block
// of conditions is 2 MiB.
const arenaBlock = 1 << 14

// Conds returns a copy of cs in the arena.
func (a *Arena) Conds(cs []Cond) []Cond {
	if len(cs) == 0 {
		return nil
	}
	if cap(a.conds)-len(a.conds) < len(cs) {
		a.conds = make([]Cond, 0, max(arenaBlock, len(cs)))
	}
	i := len(a.conds)
	a.conds = append(a.conds, cs...)
	return a.conds[i:len(a.conds):len(a.conds)]
}

// Stmts returns a copy of ss in the arena.
func (a *Arena) Stmts(ss []Stmt) []Stmt {
	if len(ss) == 0 {
		return nil
	}
	if cap(a.stmts)-len(a.stmts) < len(ss) {
		a.stmts = make([]Stmt, 0, max(arenaBlock, len(ss)))
	}
	i := len(a.stmts)
	a.stmts = append(a.stmts, ss...)
	return a.stmts[i:len(a.stmts):len(a.stmts)]
}
