package livedb

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// Statistics where the data lives (Options.Stats "db", the default).
//
// For each column of a type the reader knows (integers, text, uuid,
// bytea, dates and times, floats; PostgreSQL: the built-in types and
// domains over them), inside the same read-only transaction and under the
// same statement timeout as the rest of the read, over the whole table
// (no TABLESAMPLE: the counts are exact):
//
//  1. One GROUP BY on the column: the table's rows, the NULL rows, the
//     number of distinct non-NULL values (the number of groups) and the
//     ten largest groups with their exact row counts (ties by value).
//     Only the ten groups and three totals cross the network.
//  2. One aggregate per table: Pearson's correlation of each numeric or
//     time column with insert order. PostgreSQL: the row's physical
//     position, block + offset/65536 from its ctid (tables the role has
//     table-level SELECT on; pg_stats.correlation is the same idea on
//     the values' ranks over a sample). MySQL/MariaDB: the value of a
//     one-column AUTO_INCREMENT primary key (the order rows were
//     inserted in); no such key, no correlation.
//  3. With a placement engine whose hash the database has built in
//     (PostgreSQL, engines postgres and citus), in the same GROUP BY:
//     each group's stored bytes, then each distinct value hashed once
//     with the engine's function and its group's rows and bytes added to
//     its shard (a one-column primary key, unique by its constraint, is
//     not grouped: each row is hashed in one scan into one entry per
//     shard). postgres: PostgreSQL's own hash partitioning (partbounds.c
//     compute_partition_hash_value): the type's extended hash function
//     (hashint8extended, hashtextextended, ...) with HASH_PARTITION_SEED,
//     folded by hash_combine64 into an unsigned 64-bit row hash, modulo
//     the shard count, the unsigned arithmetic worked out exactly in int8
//     (pgShardExpr). citus: the 32-bit hash (hashint8, hashtext, ...,
//     what worker_hash returns) into shard_count uniform ranges of the
//     int32 space, shard i on node i mod nodes (see partition.Citus).
//     Bytes are pg_column_size of the whole row: its tuple header and
//     data as stored (compressed values compressed), without the line
//     pointer and the padding between rows. Other engines: per-shard
//     sums come from the row sample (the report says so).
//
// On a Citus coordinator the placement is the database's own (its
// pg_dist_shard intervals, whatever Options.Engine says), and a
// distributed table's figures are computed on the workers holding its
// shards (pushdown_citus.go). With Options.Stats "db:sample=P%" every
// query reads TABLESAMPLE SYSTEM (P) REPEATABLE (seed) instead of the
// whole table, and the counts become estimates (scaleSample).
//
// A statement that fails (the statement timeout on a table too large for
// it, a permission) leaves that column's figures to the row sample, with
// a warning. Nothing here calls a function of the database's users: only
// built-in aggregates and hash functions, schema-qualified, on columns of
// built-in base types, whose equality, ordering and hash are built in.

// Stats modes (Options.Stats).
const (
	StatsDB     = "db"     // statistics computed inside the database (default)
	StatsSample = "sample" // every statistic from the row sample
)

// StatsDBSample prefixes the bounded mode: "db:sample=P%" computes the
// statistics inside the database over TABLESAMPLE SYSTEM (P)
// REPEATABLE (seed), for tables too large for a whole-table GROUP BY
// under the statement timeout (PostgreSQL only; see scaleSample).
const StatsDBSample = "db:sample="

// CheckStats reports whether mode is a valid Options.Stats value: db,
// sample, or db:sample=P% with 0 < P <= 100.
func CheckStats(mode string) error {
	switch mode {
	case "", StatsDB, StatsSample:
		return nil
	}
	if strings.HasPrefix(mode, StatsDBSample) {
		if statsSample(mode) > 0 {
			return nil
		}
		return fmt.Errorf("--stats %q: want db:sample=P%% with a percentage P above 0 and at most 100 (e.g. db:sample=1%%)", mode)
	}
	return fmt.Errorf("--stats %q: want db, db:sample=P%% or sample", mode)
}

// statsSample returns the percentage of mode "db:sample=P%", or 0.
func statsSample(mode string) float64 {
	p, ok := strings.CutPrefix(mode, StatsDBSample)
	if !ok {
		return 0
	}
	p, ok = strings.CutSuffix(strings.TrimSpace(p), "%")
	if !ok {
		return 0
	}
	v, err := strconv.ParseFloat(p, 64)
	if err != nil || !(v > 0 && v <= 100) {
		return 0
	}
	return v
}

// fmtPct writes a percentage without trailing zeros.
func fmtPct(p float64) string { return strconv.FormatFloat(p, 'g', -1, 64) }

// scaleSample turns the counts of a database-side sample of pct percent
// of the table's blocks (TABLESAMPLE SYSTEM: each block kept with
// probability pct/100, every row of a kept block read) into estimates of
// the table's, and says so in m.Method and m.Sampled. pct 0: nothing.
//
//   - Rows, NULL rows, the top values' rows and the per-shard rows and
//     bytes are divided by f = pct/100 (the Horvitz-Thompson estimate:
//     unbiased whatever the rows' order, since every row's block is kept
//     with probability f), rounded. A one-column primary key's top values
//     keep their one row (unique by the constraint). When the planner
//     has a row count (est > 0: pg_class.reltuples, counted by ANALYZE),
//     f is instead the rows read over it (a ratio estimate): the rows a
//     SYSTEM sample reads stray far from P% on a table of few blocks,
//     and the planner's count does not.
//   - Distinct values: PostgreSQL's own estimator, ANALYZE's Haas-Stokes
//     Duj1 (src/backend/commands/analyze.c, compute_distinct_stats):
//     n*d / (n - f1 + f1*n/N), with n the non-NULL rows sampled, d their
//     distinct values, f1 the values seen once and N the non-NULL rows
//     estimated in the table, clamped to [d, N]; a unique key's is N.
//     Block sampling makes it low for values clustered in blocks (a
//     value inserted in runs), as ANALYZE's is.
//   - The top values are the sample's most frequent: a value frequent in
//     the table is frequent in the sample, but the order of close ones
//     may differ.
//
// Not used when the estimates would be worse than what the row sample
// knows: a table whose row sample is every row (livedb.go's Read keeps
// its exact figures), a sample too small (sampleTooSmall).
func scaleSample(m *shardkey.MeasuredStats, pct float64, ones int64, unique bool, est float64) {
	if pct <= 0 || m == nil {
		return
	}
	f := pct / 100
	how := "1/" + strconv.FormatFloat(f, 'g', -1, 64)
	if est > 0 && m.Rows > 0 {
		// The planner's row count (reltuples, from ANALYZE's own sample)
		// over the rows read: a SYSTEM sample keeps whole blocks, so on a
		// table of few blocks the share of rows it reads strays far from
		// P% (30% of the blocks of a 5,000-row table read 2,144 rows), and
		// 1/P would carry that error into every count.
		f = float64(m.Rows) / est
		how = fmt.Sprintf("the planner's %.0f rows over the %d read", est, m.Rows)
	}
	scale := func(x int64) int64 { return int64(math.Round(float64(x) / f)) }
	n, d := m.Rows-m.Nulls, m.Distinct
	m.Sampled = fmt.Sprintf("%d rows read from %s%% of the blocks; rows, NULL, top-value and per-shard counts scaled by %s, distinct values by ANALYZE's Haas-Stokes estimator (f1 = %d values seen once)",
		m.Rows, fmtPct(pct), how, ones)
	m.Rows, m.Nulls = scale(m.Rows), scale(m.Nulls)
	big := m.Rows - m.Nulls
	switch {
	case unique:
		m.Distinct = big
	case n <= 0:
		m.Distinct = 0
	default:
		fn, fd, f1, fN := float64(n), float64(d), float64(ones), float64(big)
		est := fn * fd / ((fn - f1) + f1*fn/fN)
		m.Distinct = int64(math.Round(max(fd, min(fN, est))))
	}
	if !unique {
		for i := range m.Top {
			m.Top[i].Rows = scale(m.Top[i].Rows)
		}
	}
	for i := range m.ShardRows {
		m.ShardRows[i] = scale(m.ShardRows[i])
	}
	for i := range m.ShardBytes {
		m.ShardBytes[i] = scale(m.ShardBytes[i])
	}
	if m.ShardMethod != "" {
		m.ShardMethod += fmt.Sprintf("; estimated from a %s%% TABLESAMPLE SYSTEM, scaled by %s", fmtPct(pct), how)
	}
}

// sampleTooSmall returns, for a database-side sample (--stats
// db:sample=P%, pct > 0) that drew rows rows of table t, why its
// estimates are not used, or "". The rule: a sample that read no row
// estimates nothing (every count scaled from 0 is 0, not the table's),
// and one that read fewer rows than the row sample (t.SampleRows, a
// uniform sample of rows rather than of blocks) knows less than it; in
// both cases the column's figures stay the row sample's.
func sampleTooSmall(t *shardkey.TableInfo, pct float64, rows int64) string {
	switch {
	case pct <= 0:
		return ""
	case rows == 0:
		return fmt.Sprintf("the database's TABLESAMPLE SYSTEM (%s%%) read no row, so it estimates nothing", fmtPct(pct))
	case rows < int64(t.SampleRows):
		return fmt.Sprintf("the database's TABLESAMPLE SYSTEM (%s%%) read %d rows, fewer than the row sample's %d", fmtPct(pct), rows, t.SampleRows)
	}
	return ""
}

// shardSpec is the placement the per-shard sums are computed for.
type shardSpec struct {
	engine     string // the partition engine's name, as sim compares it
	kind       string // "postgres" or "citus"; "" for none
	nodes      int    // shards (postgres) or nodes (citus)
	shardCount int    // citus shard intervals (nodes when 0)
	// lows, for citus: the database's own shard intervals' lower
	// bounds, ascending (pg_dist_shard); nodes is their number.
	lows []int64
}

// citusSpec is the placement a Citus coordinator runs: its shard
// intervals (the design's, Distribution.Ranges), one node a shard, named
// as partition.CitusEngine names it (the engine -k @from scores with).
func citusSpec(ranges [][2]int32) shardSpec {
	name, err := partition.CitusEngine(ranges)
	if err != nil {
		return shardSpec{}
	}
	r := append([][2]int32(nil), ranges...)
	sort.Slice(r, func(i, j int) bool { return r[i][0] < r[j][0] })
	sp := shardSpec{engine: name, kind: "citus", nodes: len(r)}
	for _, x := range r {
		sp.lows = append(sp.lows, int64(x[0]))
	}
	return sp
}

// parseShardSpec reads Options.Engine and Options.Shards: the engines
// whose hash PostgreSQL has built in (postgres, citus,
// citus(shard_count=N)); any other leaves kind empty.
func parseShardSpec(engine string, shards int) shardSpec {
	sp := shardSpec{engine: engine, nodes: shards}
	if shards <= 0 {
		return sp
	}
	switch {
	case engine == "postgres":
		sp.kind = "postgres"
	case engine == "citus":
		sp.kind = "citus"
	case strings.HasPrefix(engine, "citus(shard_count=") && strings.HasSuffix(engine, ")"):
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(engine, "citus(shard_count="), ")"))
		if err == nil && n >= 1 && n <= 64000 {
			sp.kind, sp.shardCount = "citus", n
		}
	}
	return sp
}

// wantColumn reports whether Options.StatsColumns asks for column c of
// table t (all columns when it is empty).
func wantColumn(o Options, t, c string) bool {
	if len(o.StatsColumns) == 0 {
		return true
	}
	for _, s := range o.StatsColumns {
		if s == c || s == t+"."+c {
			return true
		}
	}
	return false
}

// measureTable computes the pushed-down statistics of t's columns (see
// above) and returns the warnings for the columns left to the sample.
func measureTable(ctx context.Context, s session, ti *shardkey.TableInfo, o Options) []error {
	var cols []*shardkey.ColumnInfo
	for _, c := range ti.Columns {
		if wantColumn(o, ti.Name, c.Name) {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	return s.measure(ctx, ti, cols, parseShardSpec(o.Engine, o.Shards))
}

// pearson returns the correlation of n pairs from their sums, and whether
// it is defined (neither variable constant).
func pearson(n, sx, sy, sxx, syy, sxy float64) (float64, bool) {
	if n < 2 {
		return 0, false
	}
	vx := sxx - sx*sx/n
	vy := syy - sy*sy/n
	if vx <= 0 || vy <= 0 {
		return 0, false
	}
	r := (sxy - sx*sy/n) / math.Sqrt(vx*vy)
	return max(-1, min(1, r)), true
}

// measuredNote says, for the report, which figures were computed inside
// the database and which come from the row sample; "" when none was.
// workers names, for the tables measured on Citus workers, the workers.
func measuredNote(cat *shardkey.Catalog, o Options, workers map[string]string) string {
	var cols, shards, onWorkers []string
	var engine string
	var n int
	for _, t := range cat.Tables {
		for _, c := range t.Columns {
			if c.Measured == nil {
				continue
			}
			cols = append(cols, t.Name+"."+c.Name)
			if c.Measured.ShardRows != nil {
				shards = append(shards, t.Name+"."+c.Name)
				engine, n = c.Measured.ShardEngine, c.Measured.Shards
			}
		}
		if w := workers[t.Name]; w != "" {
			onWorkers = append(onWorkers, t.Name+" on "+w)
		}
	}
	if len(cols) == 0 {
		return ""
	}
	var b strings.Builder
	if pct := statsSample(o.Stats); pct > 0 {
		fmt.Fprintf(&b, "statistics estimated inside the database from its own sample, TABLESAMPLE SYSTEM (%s%%) REPEATABLE (%d) (--stats %s; counts scaled by 1/%s, distinct values by ANALYZE's Haas-Stokes estimator): distinct values, top values, NULL share and correlation with insert order of %s",
			fmtPct(pct), o.Seed, o.Stats, strconv.FormatFloat(pct/100, 'g', -1, 64), strings.Join(cols, ", "))
	} else {
		fmt.Fprintf(&b, "statistics computed inside the database over the whole table (--stats db): distinct values, top values, NULL share and correlation with insert order of %s", strings.Join(cols, ", "))
	}
	if len(onWorkers) > 0 {
		fmt.Fprintf(&b, " (Citus: %s, over their shard tables, merged)", strings.Join(onWorkers, "; "))
	}
	if len(shards) > 0 {
		fmt.Fprintf(&b, "; rows and bytes per shard under engine %s on %d shards, by the engine's hash in SQL, for keys on %s", engine, n, strings.Join(shards, ", "))
	} else {
		fmt.Fprintf(&b, "; per-shard sums from the row sample (engine %s: the database has no built-in function of its hash)", o.Engine)
	}
	b.WriteString("; entropy, work, fan-out and load per shard from the row sample")
	return b.String()
}
