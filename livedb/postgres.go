package livedb

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/shardkey/shardkey"
)

// Reading a PostgreSQL database runs no code of the database's users.
// A hostile table owner can attach code to many things a query touches:
// casts from their types (CREATE CAST ... WITH FUNCTION), operators and
// functions that shadow built-in ones through the search path, views,
// row-level security policies, foreign tables and their wrappers. So:
//
//   - Values are read in their own types, without casts: binary for the
//     types the reader decodes itself (integers, floats, booleans, bytea,
//     uuid, timestamps, dates), the server's text output for the rest. A
//     column is read only when its type's output and send functions (and
//     those of its element, subtype or fields) are written in C or built
//     in: such functions are installed by a superuser, never by a table
//     owner. Other columns are left out with a warning.
//   - search_path is pg_catalog, pg_temp for the whole transaction (after
//     one fully qualified call reads the schema to sample), and every
//     table name is schema-qualified, so no unqualified name resolves to a
//     user's function, operator or table.
//   - Only base and partitioned tables are sampled (not views), ONLY the
//     table itself for a base table; a partitioned table with a foreign
//     partition is skipped.
//   - row_security is off: a table whose policies would apply fails
//     instead of running them, and the reader skips it before asking.
//   - A superuser connection is reported loudly (a warning on stderr and
//     in the report); the same rules keep it from running user code.

// pgSession is a read-only, repeatable-read transaction on PostgreSQL.
type pgSession struct {
	conn      *pgx.Conn
	tx        *pgx.Conn // the connection, inside the transaction begin opened
	version   string
	dsn       string
	schema    string // the schema sampled: the connection's current_schema()
	user      string
	super     bool
	bypassRLS bool
	warns     []error
	safe      map[uint32]typeVerdict // by type oid
	colType   map[*shardkey.ColumnInfo]uint32
	tables    map[*shardkey.TableInfo]*pgTable
	// On a Citus coordinator: where the rows live (citus.go), and the
	// sessions opened on its workers (pushdown_citus.go), by host:port.
	citus     *citusPlacement
	workers   map[string]*pgSession
	workerErr map[string]error // workers that could not be opened
	lateNotes []error          // notes of the workers, opened after read's start
	rawDSN    string           // the DSN as given, to open the workers' sessions
	opts      Options
}

// typeVerdict is typeSafe's answer for one type.
type typeVerdict struct {
	base uint32 // the type the server sends (a domain's base type)
	why  string // "" when safe to read
}

// pgTable is what the reader keeps about a table beyond its TableInfo.
type pgTable struct {
	oid         uint32
	partitioned bool
	selectAll   bool // table-level SELECT: system columns (ctid) readable
	reltuples   float64
	relpages    int64
}

// pgParams are the DSN parameters that become server settings (pgx passes
// unknown ones to the server as startup parameters); any other is refused
// rather than sent. Connection parameters pgx itself reads (sslmode,
// connect_timeout, ...) are not server settings and are accepted.
// pgDial, when set, replaces the driver's dialer: the tests count the
// bytes the server sends through it.
var pgDial pgconn.DialFunc

var pgParams = map[string]bool{"application_name": true, "search_path": true}

func openPostgres(ctx context.Context, dsn string, o Options) (*pgSession, error) {
	return openPostgresAt(ctx, dsn, o, nil)
}

// retarget points cfg at node instead of the DSN's host(s): the main
// attempt and, of the fallbacks pgx made (the DSN's other hosts, and the
// plain attempt after TLS of sslmode=prefer or the TLS one after plain
// of allow), one per TLS mode other than the main's, all on the node;
// with TLS the name the certificate is checked against is the node's.
func retarget(cfg *pgx.ConnConfig, node *citusNode) {
	point := func(c *pgconn.FallbackConfig) {
		c.Host, c.Port = node.host, uint16(node.port)
		if c.TLSConfig != nil {
			c.TLSConfig = c.TLSConfig.Clone()
			c.TLSConfig.ServerName = node.host
		}
	}
	main := &pgconn.FallbackConfig{Host: cfg.Host, Port: cfg.Port, TLSConfig: cfg.TLSConfig}
	point(main)
	cfg.Host, cfg.Port, cfg.TLSConfig = main.Host, main.Port, main.TLSConfig
	var fbs []*pgconn.FallbackConfig
	seen := map[bool]bool{}
	for _, fb := range cfg.Fallbacks {
		plain := fb.TLSConfig == nil
		if seen[plain] || plain == (cfg.TLSConfig == nil) {
			continue
		}
		seen[plain] = true
		fb := *fb
		point(&fb)
		fbs = append(fbs, &fb)
	}
	cfg.Fallbacks = fbs
}

// openPostgresAt is openPostgres, connecting to node instead of the
// DSN's host and port when node is not nil (a Citus worker: the same
// user, password, database, TLS mode and every rule of the DSN's own
// connection; with TLS, the server name checked is the node's).
func openPostgresAt(ctx context.Context, dsn string, o Options, node *citusNode) (*pgSession, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("DSN %s: %v", Redact(dsn), redactErr(err, dsn))
	}
	if node != nil {
		retarget(cfg, node)
	}
	// PGTZ's timezone: the reader sets TimeZone to UTC itself.
	delete(cfg.RuntimeParams, "timezone")
	for k := range cfg.RuntimeParams {
		if !pgParams[k] {
			return nil, fmt.Errorf("DSN %s: parameter %q (from the DSN, or a PG* environment variable such as PGOPTIONS) is not accepted: "+
				"it would become a server setting (accepted: application_name, search_path, and connection parameters such as sslmode)", Redact(dsn), k)
		}
	}
	ms := strconv.FormatInt(o.StatementTimeout.Milliseconds(), 10)
	// Startup parameters: every transaction of this connection is read-only
	// and bounded before the first statement is sent.
	for k, v := range map[string]string{
		"default_transaction_read_only":       "on",
		"statement_timeout":                   ms,
		"lock_timeout":                        ms,
		"idle_in_transaction_session_timeout": strconv.FormatInt(4*o.StatementTimeout.Milliseconds(), 10),
		"row_security":                        "off", // fail rather than run a policy
		"synchronize_seqscans":                "off", // every scan starts at block 0
		"TimeZone":                            "UTC",
		"DateStyle":                           "ISO, YMD",
		"extra_float_digits":                  "3",
		"lc_monetary":                         "C",
		"bytea_output":                        "hex",
	} {
		cfg.RuntimeParams[k] = v
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "shardkey"
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	if pgDial != nil {
		cfg.DialFunc = pgDial
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %v", Redact(dsn), redactErr(err, dsn))
	}
	s := &pgSession{conn: conn, dsn: Redact(dsn), rawDSN: dsn, opts: o, safe: map[uint32]typeVerdict{},
		colType: map[*shardkey.ColumnInfo]uint32{}, tables: map[*shardkey.TableInfo]*pgTable{}}
	if err := s.begin(ctx, ms); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("%s: opening a read-only transaction: %w", s.dsn, err)
	}
	return s, nil
}

// begin opens the transaction and makes it safe: the schema to sample is
// read by a fully qualified call before search_path is pinned, and nothing
// after that resolves a name outside pg_catalog.
func (s *pgSession) begin(ctx context.Context, ms string) error {
	// BEGIN by hand rather than pgx's BeginTx, so that it too carries
	// ownMark and a query log leaves the whole session out.
	s.tx = s.conn
	if _, err := s.tx.Exec(ctx, ownMark+" BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); err != nil {
		return err
	}
	var schema *string
	if err := s.tx.QueryRow(ctx, ownMark+" SELECT pg_catalog.current_schema()").Scan(&schema); err != nil {
		return err
	}
	if schema == nil {
		return fmt.Errorf("no current schema: none of the search_path's schemas exists (name one with ?search_path=)")
	}
	s.schema = *schema
	for _, q := range []string{
		"SET LOCAL search_path = pg_catalog, pg_temp",
		"SET LOCAL statement_timeout = " + ms,
		"SET LOCAL row_security = off",
		"SET LOCAL synchronize_seqscans = off",
	} {
		if _, err := s.tx.Exec(ctx, ownMark+" "+q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	err := s.tx.QueryRow(ctx, ownMark+` SELECT current_setting('server_version'), r.rolname::text, r.rolsuper, r.rolbypassrls
FROM pg_roles r WHERE r.rolname = current_user`).Scan(&s.version, &s.user, &s.super, &s.bypassRLS)
	if err != nil {
		return err
	}
	if s.super {
		s.warns = append(s.warns, fmt.Errorf("SUPERUSER CONNECTION: role %q is a superuser. shardkey ran only built-in "+
			"functions (values read in their own types without casts, names schema-qualified, search_path pg_catalog, pg_temp, "+
			"row-level security off, base tables only, inside a READ ONLY transaction), but a mistake here could do anything a "+
			"superuser can: connect as a role that can only read (GRANT pg_read_all_data TO a new role)", s.user))
	}
	return nil
}

func (s *pgSession) engine() string { return "postgresql " + s.version }

func (s *pgSession) notes() []error { return s.warns }

func (s *pgSession) close() {
	for _, ws := range s.workers {
		ws.close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = s.conn.Exec(ctx, ownMark+" ROLLBACK")
	_ = s.conn.Close(ctx)
}

func (s *pgSession) exec(ctx context.Context, sql string) error {
	_, err := s.tx.Exec(ctx, sql)
	return err
}

func (s *pgSession) catalog(ctx context.Context) ([]*shardkey.TableInfo, []error, error) {
	rows, err := s.tx.Query(ctx, ownMark+`
SELECT c.oid, c.relname::text, c.relkind = 'p', c.reltuples::float8, c.relpages::int8,
       has_schema_privilege(n.oid, 'USAGE'), has_table_privilege(c.oid, 'SELECT'),
       c.relrowsecurity AND (c.relforcerowsecurity OR NOT pg_has_role(c.relowner, 'USAGE')),
       c.relkind = 'p' AND EXISTS (SELECT 1 FROM pg_partition_tree(c.oid) pt JOIN pg_class pc ON pc.oid = pt.relid WHERE pc.relkind = 'f'),
       CASE WHEN c.relkind = 'p' THEN (SELECT coalesce(sum(greatest(pc.reltuples, 0)), 0)::float8 FROM pg_partition_tree(c.oid) pt
                 JOIN pg_class pc ON pc.oid = pt.relid WHERE pt.isleaf) ELSE c.reltuples::float8 END,
       CASE WHEN c.relkind = 'p' THEN (SELECT coalesce(bool_or(pc.reltuples < 0), false) FROM pg_partition_tree(c.oid) pt
                 JOIN pg_class pc ON pc.oid = pt.relid WHERE pt.isleaf) ELSE c.reltuples < 0 END
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition
ORDER BY c.relname`, s.schema)
	if err != nil {
		return nil, nil, err
	}
	type cand struct {
		t                            *shardkey.TableInfo
		pt                           *pgTable
		usage, sel, rls, foreign, na bool
	}
	var cands []cand
	for rows.Next() {
		c := cand{t: &shardkey.TableInfo{}, pt: &pgTable{}}
		var est float64
		if err := rows.Scan(&c.pt.oid, &c.t.Name, &c.pt.partitioned, &c.pt.reltuples, &c.pt.relpages,
			&c.usage, &c.sel, &c.rls, &c.foreign, &est, &c.na); err != nil {
			rows.Close()
			return nil, nil, err
		}
		c.t.RowEstimate = est
		if c.na {
			c.t.RowEstimate = -1 // never analysed
		}
		cands = append(cands, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	var tables []*shardkey.TableInfo
	var warns []error
	for _, c := range cands {
		name := c.t.Name
		switch {
		case !c.usage:
			warns = append(warns, fmt.Errorf("table %s skipped: permission denied: no USAGE privilege on schema %s", name, s.schema))
			continue
		case c.foreign:
			warns = append(warns, fmt.Errorf("table %s skipped: a partition is a foreign table, and reading it would run its foreign-data wrapper", name))
			continue
		case c.rls && !s.super && !s.bypassRLS:
			warns = append(warns, fmt.Errorf("table %s skipped: row-level security applies to role %s, and its policies can call "+
				"any function; shardkey runs no user code (connect as the table's owner, or a role with BYPASSRLS, to sample it)", name, s.user))
			continue
		}
		cw, err := s.columns(ctx, c.pt.oid, c.t, c.sel)
		if err != nil {
			return nil, nil, fmt.Errorf("table %s: %w", name, err)
		}
		if len(c.t.Columns) == 0 {
			reason := "permission denied: no SELECT privilege on the table or any of its columns"
			if len(cw) > 0 {
				reason = "no column can be read safely"
				warns = append(warns, cw...)
			}
			warns = append(warns, fmt.Errorf("table %s skipped: %s", name, reason))
			continue
		}
		warns = append(warns, cw...)
		c.pt.selectAll = c.sel
		s.tables[c.t] = c.pt
		tables = append(tables, c.t)
	}
	return tables, warns, nil
}

func (s *pgSession) columns(ctx context.Context, oid uint32, t *shardkey.TableInfo, tableSelect bool) ([]error, error) {
	rows, err := s.tx.Query(ctx, ownMark+`
SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), a.atttypid, has_column_privilege(a.attrelid, a.attnum, 'SELECT')
FROM pg_attribute a
WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum`, oid)
	if err != nil {
		return nil, err
	}
	type col struct {
		c    *shardkey.ColumnInfo
		typ  uint32
		priv bool
	}
	var cols []col
	for rows.Next() {
		c := col{c: &shardkey.ColumnInfo{}}
		if err := rows.Scan(&c.c.Name, &c.c.DBType, &c.typ, &c.priv); err != nil {
			rows.Close()
			return nil, err
		}
		cols = append(cols, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var warns []error
	var denied []string
	for _, c := range cols {
		if !tableSelect && !c.priv {
			denied = append(denied, c.c.Name)
			continue
		}
		base, why, err := s.typeSafe(ctx, c.typ, 0)
		if err != nil {
			return nil, err
		}
		if why != "" {
			warns = append(warns, fmt.Errorf("table %s: column %s (%s) left out: %s", t.Name, c.c.Name, c.c.DBType, why))
			continue
		}
		c.c.Type = pgType(base)
		s.colType[c.c] = base
		t.Columns = append(t.Columns, c.c)
	}
	if len(denied) > 0 && len(t.Columns) > 0 {
		warns = append(warns, fmt.Errorf("table %s: column(s) %s left out: permission denied (no SELECT privilege)", t.Name, strings.Join(denied, ", ")))
	}
	rows, err = s.tx.Query(ctx, ownMark+`
SELECT con.contype::text, coalesce(fc.relname::text, ''),
  ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(n, i)
        JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.i),
  ARRAY(SELECT a.attname::text FROM unnest(coalesce(con.confkey, '{}')) WITH ORDINALITY k(n, i)
        JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.i)
FROM pg_constraint con LEFT JOIN pg_class fc ON fc.oid = con.confrelid
WHERE con.conrelid = $1 AND con.contype IN ('p', 'u', 'f')
ORDER BY con.contype DESC, con.conname`, oid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var typ, ref string
		var cols, refCols []string
		if err := rows.Scan(&typ, &ref, &cols, &refCols); err != nil {
			return nil, err
		}
		switch typ {
		case "p":
			t.PrimaryKey = cols
		case "u":
			t.UniqueKeys = append(t.UniqueKeys, cols)
		default:
			t.ForeignKeys = append(t.ForeignKeys, shardkey.ForeignKey{Columns: cols, RefTable: ref, RefColumns: refCols})
		}
	}
	return warns, rows.Err()
}

// typeSafe reports whether values of type oid can be read without running
// a user's code, and the built-in type the server sends them as (a
// domain's base type). It returns why not when they cannot: the type's
// output or send function, or that of its array element, range subtype
// or composite fields, is written in a language a table owner can write
// (SQL, PL/pgSQL, ...) rather than C or built in. (A base type's I/O
// functions take cstring, which only C can; the check does not rely on
// it.)
func (s *pgSession) typeSafe(ctx context.Context, oid uint32, depth int) (uint32, string, error) {
	if depth > 16 {
		return 0, "its type nests too deeply", nil
	}
	if v, ok := s.safe[oid]; ok {
		return v.base, v.why, nil
	}
	var typname, typtype, category string
	var base, elem, relid, subtype uint32
	var ioSafe bool
	err := s.tx.QueryRow(ctx, ownMark+`
SELECT t.typname::text, t.typtype::text, t.typcategory::text, t.typbasetype, t.typelem, t.typrelid,
       coalesce((SELECT r.rngsubtype FROM pg_range r WHERE r.rngtypid = t.oid
                 UNION ALL SELECT r.rngtypid FROM pg_range r WHERE r.rngmultitypid = t.oid LIMIT 1), 0),
       (SELECT bool_and(l.lanname IN ('internal', 'c')) FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
        WHERE p.oid IN (t.typoutput, t.typsend)) IS TRUE
FROM pg_type t WHERE t.oid = $1`, oid).Scan(&typname, &typtype, &category, &base, &elem, &relid, &subtype, &ioSafe)
	if err != nil {
		return 0, "", fmt.Errorf("type %d: %w", oid, err)
	}
	if typtype == "d" {
		b, why, err := s.typeSafe(ctx, base, depth+1)
		if err == nil {
			s.safe[oid] = typeVerdict{b, why}
		}
		return b, why, err
	}
	why := ""
	switch {
	case !ioSafe:
		why = fmt.Sprintf("type %s's output or send function is user code (not C or built in), and reading the column would run it", typname)
	case category == "A" && elem != 0:
		if _, w, err := s.typeSafe(ctx, elem, depth+1); err != nil {
			return 0, "", err
		} else if w != "" {
			why = "its element " + w
		}
	case subtype != 0:
		if _, w, err := s.typeSafe(ctx, subtype, depth+1); err != nil {
			return 0, "", err
		} else if w != "" {
			why = "its subtype " + w
		}
	case typtype == "c" && relid != 0:
		rows, err := s.tx.Query(ctx, ownMark+` SELECT a.atttypid FROM pg_attribute a WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped`, relid)
		if err != nil {
			return 0, "", err
		}
		var fields []uint32
		for rows.Next() {
			var f uint32
			if err := rows.Scan(&f); err != nil {
				rows.Close()
				return 0, "", err
			}
			fields = append(fields, f)
		}
		rows.Close()
		for _, f := range fields {
			if _, w, err := s.typeSafe(ctx, f, depth+1); err != nil {
				return 0, "", err
			} else if w != "" {
				why = "a field's " + w
				break
			}
		}
	case typtype == "p":
		why = "pseudo-type " + typname
	}
	s.safe[oid] = typeVerdict{oid, why}
	return oid, why, nil
}

// Built-in type OIDs (pg_type.dat; fixed across versions).
const (
	oidBool        = 16
	oidBytea       = 17
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidOID         = 26
	oidFloat4      = 700
	oidFloat8      = 701
	oidMoney       = 790
	oidDate        = 1082
	oidTimestamp   = 1114
	oidTimestamptz = 1184
	oidNumeric     = 1700
	oidUUID        = 2950
)

// pgType maps a PostgreSQL type (a domain's base type) to the shardkey
// type its values are read as; types with no closer match are read as
// text.
func pgType(oid uint32) shardkey.Type {
	switch oid {
	case oidInt2, oidBool:
		return shardkey.Int16
	case oidInt4:
		return shardkey.Int32
	case oidInt8, oidOID:
		return shardkey.Int64
	case oidFloat4:
		return shardkey.Float32
	case oidFloat8, oidNumeric, oidMoney:
		return shardkey.Float64
	case oidBytea:
		return shardkey.Bytes
	case oidUUID:
		return shardkey.UUID
	case oidTimestamp, oidTimestamptz, oidDate:
		return shardkey.Timestamp
	}
	return shardkey.Text
}

// pgBinary reports whether the reader decodes type oid's binary form; the
// others are read as the server's text output.
func pgBinary(oid uint32) bool {
	switch oid {
	case oidBool, oidBytea, oidInt8, oidInt2, oidInt4, oidOID, oidFloat4, oidFloat8, oidUUID, oidDate, oidTimestamp, oidTimestamptz:
		return true
	}
	return false
}

func (s *pgSession) stats(ctx context.Context, t *shardkey.TableInfo) error {
	pt := s.tables[t]
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name // only the columns that are safe to read: most_common_vals is printed by the type's output function
	}
	rows, err := s.tx.Query(ctx, ownMark+`
SELECT attname::text, coalesce(null_frac, 0)::float8, coalesce(n_distinct, 0)::float8,
       coalesce(most_common_vals::text::text[], '{}'), coalesce(most_common_freqs, '{}')::float8[],
       correlation::float8
FROM pg_stats
WHERE schemaname = $1 AND tablename = $2 AND inherited = $3 AND attname = ANY ($4::text[])`, s.schema, t.Name, pt != nil && pt.partitioned, names)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		st := &shardkey.ColumnStats{}
		var corr *float64
		if err := rows.Scan(&name, &st.NullFrac, &st.NDistinct, &st.MostCommon, &st.MostCommonFreqs, &corr); err != nil {
			return err
		}
		if corr != nil {
			st.Correlation, st.HasCorrelation = *corr, true
		}
		for _, c := range t.Columns {
			if c.Name == name {
				c.Stats = st
			}
		}
	}
	return rows.Err()
}

// ownMark tags every statement the reader sends, so that statement
// statistics read in the same or a later run, and the query-log readers
// (package sqllog), leave them out.
const ownMark = "/* shardkey livedb */"

// pgSampleClause returns the TABLESAMPLE clause that draws about 1.2 n rows
// from a table of about est rows (the reservoir then keeps n), and its
// description; "" to read every row.
func pgSampleClause(est float64, n int, seed int64) (string, string) {
	if est <= 1.2*float64(n) {
		return "", "every row"
	}
	pct := 100 * 1.2 * float64(n) / est
	method, how := "bernoulli", ""
	if est > 1e7 {
		method, how = "system", ": whole pages, rows clustered by page"
	}
	return fmt.Sprintf(" TABLESAMPLE pg_catalog.%s (%.6f) REPEATABLE (%d)", method, pct, seed&0x7fffffff),
		fmt.Sprintf("TABLESAMPLE %s (%.3g%%) REPEATABLE (%d)%s", strings.ToUpper(method), pct, seed&0x7fffffff, how)
}

// pgEstimate is the planner's row count for a scan of the table: its
// pg_class.reltuples scaled to the table's current size, or, never
// analysed, a count from its current pages and its columns' widths. On a
// Citus coordinator the scan of a distributed or reference table is Citus'
// custom scan, whose own row count is a constant, not an estimate (see
// citusEstimate); cit then describes the estimate used instead.
func (s *pgSession) pgEstimate(ctx context.Context, from string) (est float64, cit *citusScan, err error) {
	var plan string
	if err := s.tx.QueryRow(ctx, ownMark+" EXPLAIN (FORMAT JSON) SELECT 1 FROM "+from).Scan(&plan); err != nil {
		return 0, nil, err
	}
	return planEstimate(plan)
}

// citusScan is what Citus' EXPLAIN of a distributed scan says: its tasks
// (one a shard) and the worker's estimate for the one task it shows.
type citusScan struct {
	tasks    int
	taskRows float64
}

// planEstimate reads the row estimate of EXPLAIN (FORMAT JSON) output.
//
// Citus plans a scan of a distributed or reference table as a Custom Scan
// ("Custom Plan Provider": "Citus Adaptive") whose "Plan Rows" is a
// constant whatever the table holds: 100000 for a scan of many shards
// (citusdata/citus src/backend/distributed/planner/
// combine_query_planner.c, CreateCitusCustomScanPath:
// "path->custom_path.path.rows = 100000"), 0 for a reference table's one
// task on Citus 12.1.12 (testdata/citus_explain_*.json). Its EXPLAIN shows
// under "Distributed Query" the "Task Count" (one task a shard) and one
// task's "Remote Plan", the worker's own plan of that shard with that
// worker's estimate (citus.explain_all_tasks off, the default, shows the
// first). The table's estimate is then tasks x that shard's rows: a
// planner estimate from one shard's statistics, which the real cluster of
// docs/own-database.md put within 20% of the count for its tables (a
// skewed table's first shard can be far from the mean).
func planEstimate(plan string) (float64, *citusScan, error) {
	type node struct {
		Rows     float64 `json:"Plan Rows"`
		Provider string  `json:"Custom Plan Provider"`
		Dist     *struct {
			Job struct {
				Count int `json:"Task Count"`
				Tasks []struct {
					Remote [][]struct {
						Plan struct {
							Rows float64 `json:"Plan Rows"`
						} `json:"Plan"`
					} `json:"Remote Plan"`
				} `json:"Tasks"`
			} `json:"Job"`
		} `json:"Distributed Query"`
	}
	var p []struct {
		Plan node `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(plan), &p); err != nil || len(p) == 0 {
		return 0, nil, fmt.Errorf("reading the planner's estimate: %v", err)
	}
	top := p[0].Plan
	if !strings.HasPrefix(top.Provider, "Citus") || top.Dist == nil {
		return top.Rows, nil, nil
	}
	job := top.Dist.Job
	if job.Count < 1 || len(job.Tasks) == 0 || len(job.Tasks[0].Remote) == 0 || len(job.Tasks[0].Remote[0]) == 0 {
		return 0, nil, fmt.Errorf("reading Citus' estimate: the plan of a distributed scan shows no task's remote plan")
	}
	c := &citusScan{tasks: job.Count, taskRows: job.Tasks[0].Remote[0][0].Plan.Rows}
	return float64(c.tasks) * c.taskRows, c, nil
}

func (s *pgSession) sample(ctx context.Context, t *shardkey.TableInfo, n int, seed int64, row func(uint64, []shardkey.Value) error) (string, error) {
	pt := s.tables[t]
	if pt == nil {
		return "", fmt.Errorf("table %s is not in the catalog read", t.Name)
	}
	// A savepoint keeps the transaction usable when the table cannot be
	// read (a privilege revoked, row-level security after all).
	if _, err := s.tx.Exec(ctx, ownMark+" SAVEPOINT shardkey_table"); err != nil {
		return "", err
	}
	method, err := s.sampleRows(ctx, t, pt, n, seed, row)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42501" { // insufficient_privilege
		if _, rerr := s.tx.Exec(ctx, ownMark+" ROLLBACK TO SAVEPOINT shardkey_table"); rerr != nil {
			return "", rerr
		}
		return "", skipf("permission denied: %s", pe.Message)
	}
	if err != nil {
		return "", err
	}
	_, err = s.tx.Exec(ctx, ownMark+" RELEASE SAVEPOINT shardkey_table")
	return method, err
}

func (s *pgSession) sampleRows(ctx context.Context, t *shardkey.TableInfo, pt *pgTable, n int, seed int64, row func(uint64, []shardkey.Value) error) (string, error) {
	from := quoteIdent(s.schema) + "." + quoteIdent(t.Name)
	if !pt.partitioned {
		from = "ONLY " + from // inheritance children are tables of their own
	}
	est, cit, err := s.pgEstimate(ctx, from)
	if err != nil {
		return "", err
	}
	if cit == nil && !pt.partitioned && pt.reltuples == 0 && pt.relpages == 0 && est > 0 {
		// Analysed (or vacuumed) while empty, filled since: the planner's
		// statistics describe an empty table.
		t.RowEstimate = -1
	}
	clause, method := pgSampleClause(est, n, seed)
	source := "planner estimate"
	switch {
	case cit != nil:
		// The coordinator's table is an empty shell whose pg_class says
		// nothing of the rows (never analysed there, or 0): the workers'
		// estimate stands for it.
		t.RowEstimate = est
		source = fmt.Sprintf("Citus' planner estimate: %d x %.0f rows, the shard count times one shard's estimate on its worker", cit.tasks, cit.taskRows)
	case t.RowEstimate < 0:
		source = "planner estimate from its size: never analysed"
	}
	method = fmt.Sprintf("%s over ~%.0f rows (%s)", method, est, source)

	// A row's identity (tableoid, ctid) makes its reservoir priority
	// independent of the order rows arrive in. Reading system columns
	// needs table-level SELECT; without it, the priority hashes the
	// row's position in the scan (block order: synchronized scans off).
	var exprs []string
	var formats pgx.QueryResultFormats
	ids := 0
	if pt.selectAll {
		exprs = []string{"tableoid", "ctid"}
		formats = pgx.QueryResultFormats{pgx.BinaryFormatCode, pgx.BinaryFormatCode}
		ids = 2
	}
	oids := make([]uint32, len(t.Columns))
	for i, c := range t.Columns {
		exprs = append(exprs, quoteIdent(c.Name))
		oids[i] = s.colType[c]
		f := int16(pgx.TextFormatCode)
		if pgBinary(oids[i]) {
			f = pgx.BinaryFormatCode
		}
		formats = append(formats, f)
	}
	q := ownMark + " SELECT " + strings.Join(exprs, ", ") + " FROM " + from + clause
	rows, err := s.tx.Query(ctx, q, pgx.QueryExecModeDescribeExec, formats)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	fds := rows.FieldDescriptions()
	if len(fds) != len(formats) {
		rows.Close()
		if err := rows.Err(); err != nil {
			return "", err
		}
		return "", fmt.Errorf("the server returned %d columns; want %d", len(fds), len(formats))
	}
	for i, fd := range fds[ids:] {
		if fd.DataTypeOID != oids[i] || fd.Format != formats[i+ids] {
			return "", fmt.Errorf("column %s: the server sent type %d in format %d; want type %d in format %d",
				t.Columns[i].Name, fd.DataTypeOID, fd.Format, oids[i], formats[i+ids])
		}
	}
	vals := make([]shardkey.Value, len(t.Columns))
	var seq uint64
	for rows.Next() {
		raw := rows.RawValues()
		id := seq
		seq++
		if ids > 0 {
			if len(raw[0]) != 4 || len(raw[1]) != 6 {
				return "", fmt.Errorf("unexpected row identity (tableoid %d bytes, ctid %d bytes)", len(raw[0]), len(raw[1]))
			}
			id = rowIdentity(raw, cit != nil)
		}
		for i, b := range raw[ids:] {
			v, err := pgValue(b, oids[i])
			if err != nil {
				return "", fmt.Errorf("column %s: %v", t.Columns[i].Name, err)
			}
			vals[i] = v
		}
		if err := row(rowPriority(seed, id), vals); err != nil {
			return "", err
		}
	}
	return method, rows.Err()
}

// rowIdentity is a row's identity for its reservoir priority, from its
// tableoid and ctid (raw[0], raw[1]) and, through Citus, its values too
// (raw[2:]): a Citus coordinator answers a distributed table's scan with
// the rows of all its shards, each with the shell's tableoid and the ctid
// it has in its shard, so rows at the same position of different shards
// share both (a real 5,000-row table of 32 shards gave 2,590 distinct
// pairs). Two such rows differ in their distribution column (equal values
// are in one shard, where ctids are unique), so the values make the
// identity unique again, and it stays independent of the order the
// workers' rows arrive in.
func rowIdentity(raw [][]byte, citus bool) uint64 {
	id := uint64(binary.BigEndian.Uint32(raw[1]))<<16 | uint64(binary.BigEndian.Uint16(raw[1][4:]))
	id ^= uint64(binary.BigEndian.Uint32(raw[0])) * 0x9e3779b97f4a7c15
	if citus {
		h := fnv.New64a()
		var n [4]byte
		for _, b := range raw[2:] {
			l := uint32(len(b))
			if b == nil {
				l = 1<<32 - 1 // NULL, unlike an empty value
			}
			binary.BigEndian.PutUint32(n[:], l)
			h.Write(n[:])
			h.Write(b)
		}
		id ^= h.Sum64() * 0xbf58476d1ce4e5b9
	}
	return id
}

func (s *pgSession) statements(ctx context.Context) ([]statement, float64, error) {
	var schema *string
	if err := s.tx.QueryRow(ctx, ownMark+` SELECT (SELECT n.nspname::text FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
WHERE e.extname = 'pg_stat_statements')`).Scan(&schema); err != nil || schema == nil {
		return nil, 0, err
	}
	// The view fails when the library is not preloaded; a savepoint keeps
	// the transaction usable.
	if _, err := s.tx.Exec(ctx, ownMark+" SAVEPOINT shardkey_statements"); err != nil {
		return nil, 0, err
	}
	stmts, period, err := s.readStatements(ctx, quoteIdent(*schema))
	if err != nil {
		_, _ = s.tx.Exec(ctx, ownMark+" ROLLBACK TO SAVEPOINT shardkey_statements")
		return nil, 0, fmt.Errorf("pg_stat_statements: %w", err)
	}
	return stmts, period, nil
}

func (s *pgSession) readStatements(ctx context.Context, schema string) ([]statement, float64, error) {
	var period float64
	err := s.tx.QueryRow(ctx, ownMark+`
SELECT extract(epoch FROM now() - coalesce((SELECT stats_reset FROM `+schema+`.pg_stat_statements_info), pg_postmaster_start_time()))::float8`).Scan(&period)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.tx.Query(ctx, ownMark+`
SELECT query, sum(calls)::float8 FROM `+schema+`.pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
GROUP BY query ORDER BY 2 DESC, 1`)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []statement
	for rows.Next() {
		var st statement
		if err := rows.Scan(&st.Text, &st.Calls); err != nil {
			return nil, 0, err
		}
		if strings.Contains(st.Text, ownMark) {
			continue // this reader's own queries
		}
		out = append(out, st)
	}
	return out, period, rows.Err()
}
