package livedb

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/shardkey/shardkey"
)

// PostgreSQL's hash partitioning in SQL (see pushdown.go): constants of
// src/include/catalog/partition.h (HASH_PARTITION_SEED, as a signed int8)
// and src/include/common/hashfn.h (hash_combine64's 0x49a0f4dd15e5a8e3).
const (
	pgSeedSQL = "8816678312871386365" // HASH_PARTITION_SEED 0x7A5B22367996DCFD
	// pgCombineConst is hash_combine64's constant: hash_combine64(0, h)
	// is h + 0x49a0f4dd15e5a8e3 mod 2^64 (the shifts of a = 0 vanish).
	pgCombineConst = 0x49a0f4dd15e5a8e3
)

// Base types whose statistics are computed inside the database: built-in
// types whose equality, ordering and hashing are built in.
const (
	oidText    = 25
	oidBpchar  = 1042
	oidVarchar = 1043
)

// pgMeasurable reports whether columns of base type oid get pushed-down
// statistics.
func pgMeasurable(oid uint32) bool {
	switch oid {
	case oidBool, oidInt2, oidInt4, oidInt8, oidOID, oidFloat4, oidFloat8, oidNumeric,
		oidText, oidBpchar, oidVarchar, oidBytea, oidUUID, oidDate, oidTimestamp, oidTimestamptz:
		return true
	}
	return false
}

// pgHashFuncs returns the extended (64-bit, seeded) and the 32-bit hash
// support functions of base type oid that partition.Postgres and
// partition.Citus replicate (the type's hash opclass, pg_amproc.dat);
// "" when the type has none they replicate (numeric's hash_numeric hashes
// its digits, the engines its float8 value; date and timestamptz would
// need a cast first).
func pgHashFuncs(oid uint32) (ext, h32 string) {
	switch oid {
	case oidInt2:
		return "hashint2extended", "hashint2"
	case oidInt4:
		return "hashint4extended", "hashint4"
	case oidInt8:
		return "hashint8extended", "hashint8"
	case oidText, oidVarchar:
		return "hashtextextended", "hashtext"
	case oidBytea:
		return "hashvarlenaextended", "hashvarlena"
	case oidUUID:
		return "uuid_hash_extended", "uuid_hash"
	case oidTimestamp:
		return "timestamp_hash_extended", "timestamp_hash"
	case oidFloat4:
		return "hashfloat4extended", "hashfloat4"
	case oidFloat8:
		return "hashfloat8extended", "hashfloat8"
	}
	return "", ""
}

// pgNumeric returns an expression giving column q as float8 for the
// correlation, or "" for a type without an order on numbers.
func pgNumeric(oid uint32, q string) string {
	switch oid {
	case oidInt2, oidInt4, oidInt8, oidFloat4, oidFloat8, oidNumeric, oidOID:
		return q + "::pg_catalog.float8"
	case oidDate, oidTimestamp, oidTimestamptz:
		return "pg_catalog.date_part('epoch', " + q + ")"
	}
	return ""
}

// pgShardExpr returns the SQL expression of the shard (node) a row's
// column q goes to under sp, for a column of base type oid, or "".
func pgShardExpr(sp shardSpec, oid uint32, q string) string {
	ext, h32 := pgHashFuncs(oid)
	switch {
	case ext == "":
		return ""
	case sp.kind == "postgres":
		// The row hash is u = h + 0x49a0f4dd15e5a8e3 mod 2^64 with h the
		// int8 the extended function returns read as unsigned; the shard
		// is u mod N. In int8 arithmetic, without overflow: with r = h
		// mod N (floor), K = 2^64 mod N and C' = 0x49a0f4dd15e5a8e3 mod
		// N, u mod N = (r + C' + K) mod N when h < -0x49a0f4dd15e5a8e3
		// (h negative, so unsigned it is h + 2^64, and the sum does not
		// reach 2^64 again), else (r + C') mod N (h >= 0: no wrap; h
		// negative and the sum wraps: the two 2^64 cancel). Numeric
		// arithmetic gives the same and is three times slower.
		n := uint64(sp.nodes)
		k := (^uint64(0)%n + 1) % n // 2^64 mod n
		c := pgCombineConst % n
		h := fmt.Sprintf("pg_catalog.%s(%s, %s)", ext, q, pgSeedSQL)
		// NULL skips hash_combine64: row hash 0, remainder 0.
		return fmt.Sprintf("coalesce(((%s %% %d + %d) %% %d + %d + CASE WHEN %s < -%d THEN %d ELSE 0 END) %% %d, 0)::pg_catalog.int4",
			h, n, n, n, c, h, pgCombineConst, k, n)
	case sp.kind == "citus" && len(sp.lows) > 0:
		// The database's own intervals (pg_dist_shard): the shard is the
		// interval whose lower bound is the greatest not above the hash;
		// shard i is node i (one node a shard).
		lows := make([]string, len(sp.lows))
		for i, l := range sp.lows {
			lows[i] = strconv.FormatInt(l, 10)
		}
		return fmt.Sprintf("coalesce(pg_catalog.width_bucket(pg_catalog.%s(%s)::pg_catalog.int8, '{%s}'::pg_catalog.int8[]) - 1, -1)::pg_catalog.int4",
			h32, q, strings.Join(lows, ","))
	case sp.kind == "citus":
		s := sp.shardCount
		if s == 0 {
			s = sp.nodes
		}
		inc := (int64(1) << 32) / int64(s)
		// NULL: Citus refuses the row; -1 keeps it out of every shard.
		return fmt.Sprintf("coalesce(least((pg_catalog.%s(%s)::pg_catalog.int8 + 2147483648) / %d, %d) %% %d, -1)::pg_catalog.int4",
			h32, q, inc, s-1, sp.nodes)
	}
	return ""
}

// sampleClause is the TABLESAMPLE clause of the bounded mode
// (Options.Stats db:sample=P%), to follow a table's alias; "" otherwise.
// SYSTEM samples whole blocks (PostgreSQL's tsm_system.c), REPEATABLE
// with the workload's seed draws the same blocks again.
func (s *pgSession) sampleClause() string {
	pct := statsSample(s.opts.Stats)
	if pct <= 0 {
		return ""
	}
	return fmt.Sprintf(" TABLESAMPLE SYSTEM (%s) REPEATABLE (%d)", fmtPct(pct), s.opts.Seed)
}

// pgGuard runs f under a savepoint, so that a failed statement leaves
// the transaction usable.
func (s *pgSession) pgGuard(ctx context.Context, f func() error) error {
	if _, err := s.tx.Exec(ctx, ownMark+" SAVEPOINT shardkey_measure"); err != nil {
		return err
	}
	if err := f(); err != nil {
		if _, rerr := s.tx.Exec(ctx, ownMark+" ROLLBACK TO SAVEPOINT shardkey_measure"); rerr != nil {
			return rerr
		}
		return &measureError{err}
	}
	_, err := s.tx.Exec(ctx, ownMark+" RELEASE SAVEPOINT shardkey_measure")
	return err
}

// measureError is a statement of the pushed-down statistics that failed
// and was rolled back: a warning, not a failed read.
type measureError struct{ err error }

func (e *measureError) Error() string { return e.err.Error() }
func (e *measureError) Unwrap() error { return e.err }

func (s *pgSession) measure(ctx context.Context, t *shardkey.TableInfo, cols []*shardkey.ColumnInfo, sp shardSpec) []error {
	if s.citus != nil && len(s.citus.ranges) > 0 {
		// A Citus coordinator: the per-shard sums are for the placement
		// the database runs, whatever --engine says.
		sp = citusSpec(s.citus.ranges)
	}
	if s.citus != nil && len(s.citus.shards[t.Name]) > 0 {
		return s.measureWorkers(ctx, t, cols, sp)
	}
	pt := s.tables[t]
	if pt == nil {
		return []error{fmt.Errorf("table %s is not in the catalog read", t.Name)}
	}
	from := quoteIdent(s.schema) + "." + quoteIdent(t.Name)
	if !pt.partitioned {
		from = "ONLY " + from
	}
	from += " t" + s.sampleClause()
	method := "whole table, inside " + s.engine()
	if pct := statsSample(s.opts.Stats); pct > 0 {
		method = fmt.Sprintf("TABLESAMPLE SYSTEM (%s%%) REPEATABLE (%d), inside %s", fmtPct(pct), s.opts.Seed, s.engine())
	}
	// Grouping a large table spills to disk under the default 4MB; 64MB
	// for this transaction (twice that for hash tables, hash_mem_multiplier)
	// keeps a few million groups in memory.
	if _, err := s.tx.Exec(ctx, ownMark+" SET LOCAL work_mem = '64MB'"); err != nil {
		return []error{err}
	}
	var warns []error
	warn := func(c *shardkey.ColumnInfo, what string, err error) bool {
		var me *measureError
		if errors.As(err, &me) {
			warns = append(warns, fmt.Errorf("table %s: column %s: %s inside the database failed (%v); its figures come from the row sample", t.Name, c.Name, what, me.err))
			return true
		}
		return false
	}
	var corrCols []*shardkey.ColumnInfo
	for _, c := range cols {
		oid := s.colType[c]
		if !pgMeasurable(oid) {
			continue
		}
		var m *shardkey.MeasuredStats
		var ones int64
		unique := len(t.PrimaryKey) == 1 && t.PrimaryKey[0] == c.Name
		err := s.pgGuard(ctx, func() error {
			var err error
			if unique {
				m, err = s.pgUnique(ctx, from, c, oid, sp, pt.selectAll)
				if m != nil {
					ones = m.Distinct
				}
			} else {
				m, ones, err = s.pgGroups(ctx, from, c, oid, sp, pt.selectAll)
			}
			return err
		})
		if warn(c, "GROUP BY", err) {
			continue
		}
		if err != nil {
			return append(warns, err)
		}
		if why := sampleTooSmall(t, statsSample(s.opts.Stats), m.Rows); why != "" {
			warns = append(warns, fmt.Errorf("table %s: column %s: %s: its figures come from the row sample", t.Name, c.Name, why))
			continue
		}
		m.Method = method
		scaleSample(m, statsSample(s.opts.Stats), ones, unique, t.RowEstimate)
		c.Measured = m
		if pt.selectAll && pgNumeric(oid, "x") != "" {
			corrCols = append(corrCols, c)
		}
	}
	if len(corrCols) > 0 {
		err := s.pgGuard(ctx, func() error { return s.pgCorrelation(ctx, from, corrCols) })
		var me *measureError
		if errors.As(err, &me) {
			names := make([]string, len(corrCols))
			for i, c := range corrCols {
				names[i] = c.Name
			}
			return append(warns, fmt.Errorf("table %s: the correlation of %s with physical order inside the database failed (%v); monotonicity comes from the row sample",
				t.Name, strings.Join(names, ", "), me.err))
		}
		if err != nil {
			return append(warns, err)
		}
	}
	return warns
}

// pgGroups runs steps 1 and 3 for column c in one GROUP BY of the table
// on the column: the groups (value, rows and, with a placement, their
// stored bytes) are kept once (a CTE used more than once is materialised)
// and read three times: the ten largest by a top-N sort, the totals by
// one aggregate, and, with a placement (sp.kind set), the per-shard sums,
// hashing each distinct value once and adding up its group's rows and
// bytes. The totals and the per-shard arrays ride on every top row; a
// FULL JOIN keeps them when there is no non-NULL group.
func (s *pgSession) pgGroups(ctx context.Context, from string, c *shardkey.ColumnInfo, oid uint32, sp shardSpec, bytes bool) (*shardkey.MeasuredStats, int64, error) {
	return s.pgGroupsOf(ctx, pgGroupBody(from, c, pgShardExpr(sp, oid, "g.v") != "", bytes), oid, sp, bytes)
}

// pgGroupBody is the query of the groups of column c in from: v, n and,
// with a placement (shard), b, the group's stored bytes.
func pgGroupBody(from string, c *shardkey.ColumnInfo, shard, bytes bool) string {
	size := ""
	if shard {
		size = ", NULL::pg_catalog.int8 AS b"
		if bytes {
			size = ", pg_catalog.sum(pg_catalog.pg_column_size(t.*))::pg_catalog.int8 AS b"
		}
	}
	return `SELECT t.` + quoteIdent(c.Name) + ` AS v, pg_catalog.count(*) AS n` + size + ` FROM ` + from + ` GROUP BY 1`
}

// pgGroupsOf is pgGroups over the groups query body (v, n[, b]). It
// also returns the number of non-NULL values on one row each (f1 of the
// distinct-value estimator, pushdown.go's scaleSample).
func (s *pgSession) pgGroupsOf(ctx context.Context, body string, oid uint32, sp shardSpec, bytes bool) (*shardkey.MeasuredStats, int64, error) {
	shard := pgShardExpr(sp, oid, "g.v")
	shards := "NULL::pg_catalog.int4[], NULL::pg_catalog.int8[], NULL::pg_catalog.int8[]"
	if shard != "" {
		shards = `(SELECT pg_catalog.array_agg(x.s ORDER BY x.s) FROM x), (SELECT pg_catalog.array_agg(x.n ORDER BY x.s) FROM x), (SELECT pg_catalog.array_agg(x.b ORDER BY x.s) FROM x)`
	}
	q := ownMark + ` WITH g AS (` + body + `)`
	if shard != "" {
		q += `, x AS (SELECT ` + shard + ` AS s, pg_catalog.sum(g.n)::pg_catalog.int8 AS n, pg_catalog.sum(g.b)::pg_catalog.int8 AS b FROM g GROUP BY 1)`
	}
	q += `
SELECT a.v, a.n, b.groups, b.total, b.nulls, sh.ss, sh.sn, sh.sb, b.ones FROM
  (SELECT g.v, g.n FROM g WHERE g.v IS NOT NULL ORDER BY g.n DESC, g.v LIMIT 10) a
  FULL JOIN (SELECT pg_catalog.count(*) AS groups, coalesce(pg_catalog.sum(g.n), 0)::pg_catalog.int8 AS total,
    coalesce(pg_catalog.sum(g.n) FILTER (WHERE g.v IS NULL), 0)::pg_catalog.int8 AS nulls,
    pg_catalog.count(*) FILTER (WHERE g.v IS NOT NULL AND g.n = 1) AS ones FROM g) b ON true
  CROSS JOIN (SELECT ` + shards + `) sh(ss, sn, sb)
ORDER BY a.n DESC, a.v`
	f := int16(pgx.TextFormatCode)
	if pgBinary(oid) {
		f = pgx.BinaryFormatCode
	}
	bin, txt := int16(pgx.BinaryFormatCode), int16(pgx.TextFormatCode)
	rows, err := s.tx.Query(ctx, q, pgx.QueryExecModeDescribeExec, pgx.QueryResultFormats{f, bin, bin, bin, bin, txt, txt, txt, bin})
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	m := &shardkey.MeasuredStats{}
	groups, ones := int64(0), int64(0)
	var arrays [3][]byte
	for rows.Next() {
		raw := rows.RawValues()
		fds := rows.FieldDescriptions()
		if len(raw) != 9 || fds[0].DataTypeOID != oid || len(raw[8]) != 8 {
			return nil, 0, fmt.Errorf("unexpected result shape")
		}
		var ints [4]int64
		for i := range ints {
			if i == 0 && raw[1] == nil {
				continue // no non-NULL group
			}
			if len(raw[i+1]) != 8 {
				return nil, 0, fmt.Errorf("unexpected count (%d bytes)", len(raw[i+1]))
			}
			ints[i] = int64(binary.BigEndian.Uint64(raw[i+1]))
		}
		groups, m.Rows, m.Nulls = ints[1], ints[2], ints[3]
		ones = int64(binary.BigEndian.Uint64(raw[8]))
		for i := range arrays {
			arrays[i] = append(arrays[i][:0], raw[5+i]...)
		}
		if raw[0] == nil {
			continue // no non-NULL group: the totals alone
		}
		v, err := pgValue(raw[0], oid)
		if err != nil {
			return nil, 0, err
		}
		m.Top = append(m.Top, shardkey.ValueCount{Value: v.String(), Rows: ints[0]})
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	m.Distinct = groups
	if m.Nulls > 0 {
		m.Distinct--
	}
	if shard != "" {
		var vals [3][]int64
		for i, a := range arrays {
			v, err := pgIntArray(a)
			if err != nil {
				return nil, 0, err
			}
			vals[i] = v
		}
		if err := pgSetShards(m, sp, oid, bytes, vals); err != nil {
			return nil, 0, err
		}
	}
	return m, ones, nil
}

// pgUnique is pgGroups for a one-column primary key, whose values the
// constraint makes unique and never NULL: the distinct count is the row
// count, the top values are the ten smallest (one row each, ties by
// value: the index's first entries), and the per-shard sums hash every
// row in one scan into a hash table of one entry per shard. The same
// figures as pgGroups, without grouping millions of values.
func (s *pgSession) pgUnique(ctx context.Context, from string, c *shardkey.ColumnInfo, oid uint32, sp shardSpec, bytes bool) (*shardkey.MeasuredStats, error) {
	m := &shardkey.MeasuredStats{}
	q := quoteIdent(c.Name)
	f := int16(pgx.TextFormatCode)
	if pgBinary(oid) {
		f = pgx.BinaryFormatCode
	}
	rows, err := s.tx.Query(ctx, ownMark+" SELECT t."+q+" FROM "+from+" ORDER BY t."+q+" LIMIT 10", pgx.QueryExecModeDescribeExec, pgx.QueryResultFormats{f})
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		raw := rows.RawValues()
		if len(raw) != 1 || rows.FieldDescriptions()[0].DataTypeOID != oid {
			rows.Close()
			return nil, fmt.Errorf("unexpected result shape")
		}
		v, err := pgValue(raw[0], oid)
		if err != nil {
			rows.Close()
			return nil, err
		}
		m.Top = append(m.Top, shardkey.ValueCount{Value: v.String(), Rows: 1})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	shard := pgShardExpr(sp, oid, "t."+q)
	if shard == "" {
		if err := s.tx.QueryRow(ctx, ownMark+" SELECT pg_catalog.count(*), pg_catalog.count(t."+q+") FROM "+from).Scan(&m.Rows, &m.Distinct); err != nil {
			return nil, err
		}
		m.Nulls = m.Rows - m.Distinct
		return m, nil
	}
	size := "NULL::pg_catalog.int8"
	if bytes {
		size = "pg_catalog.sum(pg_catalog.pg_column_size(t.*))::pg_catalog.int8"
	}
	rows, err = s.tx.Query(ctx, ownMark+" SELECT "+shard+", pg_catalog.count(*), pg_catalog.count(t."+q+"), "+size+" FROM "+from+" GROUP BY 1")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var arrays [3][]int64
	for rows.Next() {
		var sh int32
		var n, nonNull int64
		var b *int64
		if err := rows.Scan(&sh, &n, &nonNull, &b); err != nil {
			return nil, err
		}
		m.Rows += n
		m.Distinct += nonNull
		arrays[0] = append(arrays[0], int64(sh))
		arrays[1] = append(arrays[1], n)
		if b == nil {
			arrays[2] = append(arrays[2], -1)
		} else {
			arrays[2] = append(arrays[2], *b)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	m.Nulls = m.Rows - m.Distinct
	if err := pgSetShards(m, sp, oid, bytes, arrays); err != nil {
		return nil, err
	}
	m.ShardMethod = strings.Replace(m.ShardMethod, "of each distinct value", "of each row (a one-column primary key: every value distinct)", 1)
	return m, nil
}

// pgSetShards fills m's per-shard sums from three parallel lists (shard
// numbers, rows, bytes) and says how they were computed.
func pgSetShards(m *shardkey.MeasuredStats, sp shardSpec, oid uint32, bytes bool, vals [3][]int64) error {
	if len(vals[1]) != len(vals[0]) || len(vals[2]) != len(vals[0]) {
		return fmt.Errorf("per-shard arrays of different lengths")
	}
	m.ShardRows = make([]int64, sp.nodes)
	if bytes {
		m.ShardBytes = make([]int64, sp.nodes)
	}
	for i, sh := range vals[0] {
		if sh < 0 {
			continue // NULL keys under citus: refused, on no shard
		}
		if sh >= int64(sp.nodes) {
			return fmt.Errorf("shard %d out of range", sh)
		}
		m.ShardRows[sh] = vals[1][i]
		if bytes {
			m.ShardBytes[sh] = vals[2][i]
		}
	}
	m.ShardEngine, m.Shards = sp.engine, sp.nodes
	h, h32 := pgHashFuncs(oid)
	switch sp.kind {
	case "postgres":
		m.ShardMethod = fmt.Sprintf("PostgreSQL's hash partition of each distinct value: %s(value, HASH_PARTITION_SEED) combined by hash_combine64, modulo %d (unsigned 64-bit, in int8 arithmetic)", h, sp.nodes)
	case "citus":
		n := sp.shardCount
		if n == 0 {
			n = sp.nodes
		}
		if len(sp.lows) > 0 {
			m.ShardMethod = fmt.Sprintf("Citus' shard of each distinct value as the database places it: %s(value) in the %d hash intervals pg_dist_shard lists (engine %s)", h32, sp.nodes, sp.engine)
			break
		}
		m.ShardMethod = fmt.Sprintf("Citus' shard of each distinct value: %s(value) in %d uniform int32 hash ranges, shard i on node i mod %d", h32, n, sp.nodes)
	}
	if bytes {
		m.ShardMethod += "; bytes are pg_column_size(row): tuple header and data as stored, without line pointer and padding"
	} else {
		m.ShardMethod += "; bytes unknown (no table-level SELECT for the whole row)"
	}
	return nil
}

// pgIntArray parses an integer array's text output ({1,2,NULL}); NULL
// elements read as -1. A NULL array (no bytes: array_agg over no group, an
// empty table or a TABLESAMPLE that drew no row, as a real Citus worker's
// small shard tables did) is no element.
func pgIntArray(b []byte) ([]int64, error) {
	s := string(b)
	if len(s) == 0 {
		return nil, nil
	}
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, fmt.Errorf("unexpected array %q", s)
	}
	if s == "{}" {
		return nil, nil
	}
	parts := strings.Split(s[1:len(s)-1], ",")
	out := make([]int64, len(parts))
	for i, p := range parts {
		if p == "NULL" {
			out[i] = -1
			continue
		}
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("unexpected array element %q", p)
		}
		out[i] = v
	}
	return out, nil
}

// pgCorrelation runs step 2 for cols: one scan, corr() per column against
// the row's physical position from its ctid.
func (s *pgSession) pgCorrelation(ctx context.Context, from string, cols []*shardkey.ColumnInfo) error {
	const pos = "((t.ctid::pg_catalog.text::pg_catalog.point)[0] + (t.ctid::pg_catalog.text::pg_catalog.point)[1] / 65536.0)"
	exprs := make([]string, len(cols))
	for i, c := range cols {
		exprs[i] = "pg_catalog.corr(" + pgNumeric(s.colType[c], "t."+quoteIdent(c.Name)) + ", " + pos + ")"
	}
	vals := make([]*float64, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	if err := s.tx.QueryRow(ctx, ownMark+" SELECT "+strings.Join(exprs, ", ")+" FROM "+from).Scan(dest...); err != nil {
		return err
	}
	for i, c := range cols {
		c.Measured.CorrelationDef = "Pearson's r of the value with the row's physical position (ctid: block + offset/65536)"
		if v := vals[i]; v != nil && *v == *v {
			c.Measured.Correlation, c.Measured.HasCorrelation = max(-1, min(1, *v)), true
		}
	}
	return nil
}
