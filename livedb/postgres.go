package livedb

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shardkey/shardkey"
)

// pgSession is a read-only, repeatable-read transaction on PostgreSQL.
type pgSession struct {
	conn    *pgx.Conn
	tx      pgx.Tx
	version string
	dsn     string
}

func openPostgres(ctx context.Context, dsn string, o Options) (*pgSession, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("DSN %s: %v", Redact(dsn), redactErr(err, dsn))
	}
	ms := strconv.FormatInt(o.StatementTimeout.Milliseconds(), 10)
	// Startup parameters: every transaction of this connection is read-only
	// and bounded before the first statement is sent.
	cfg.RuntimeParams["default_transaction_read_only"] = "on"
	cfg.RuntimeParams["statement_timeout"] = ms
	cfg.RuntimeParams["lock_timeout"] = ms
	cfg.RuntimeParams["idle_in_transaction_session_timeout"] = strconv.FormatInt(4*o.StatementTimeout.Milliseconds(), 10)
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "shardkey"
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %v", Redact(dsn), redactErr(err, dsn))
	}
	s := &pgSession{conn: conn, dsn: Redact(dsn)}
	s.tx, err = conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err == nil {
		_, err = s.tx.Exec(ctx, "SET LOCAL statement_timeout = "+ms)
	}
	if err == nil {
		err = s.tx.QueryRow(ctx, "SELECT current_setting('server_version')").Scan(&s.version)
	}
	if err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("%s: opening a read-only transaction: %w", s.dsn, err)
	}
	return s, nil
}

func (s *pgSession) engine() string { return "postgresql " + s.version }

func (s *pgSession) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.tx.Rollback(ctx)
	_ = s.conn.Close(ctx)
}

func (s *pgSession) exec(ctx context.Context, sql string) error {
	_, err := s.tx.Exec(ctx, sql)
	return err
}

func (s *pgSession) catalog(ctx context.Context) ([]*shardkey.TableInfo, error) {
	rows, err := s.tx.Query(ctx, `
SELECT c.oid, c.relname, c.reltuples::float8
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
ORDER BY c.relname`)
	if err != nil {
		return nil, err
	}
	var tables []*shardkey.TableInfo
	var oids []uint32
	for rows.Next() {
		t := &shardkey.TableInfo{}
		var oid uint32
		if err := rows.Scan(&oid, &t.Name, &t.RowEstimate); err != nil {
			return nil, err
		}
		if t.RowEstimate < 0 {
			t.RowEstimate = -1
		}
		tables = append(tables, t)
		oids = append(oids, oid)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, t := range tables {
		if err := s.columns(ctx, oids[i], t); err != nil {
			return nil, fmt.Errorf("table %s: %w", t.Name, err)
		}
	}
	return tables, nil
}

func (s *pgSession) columns(ctx context.Context, oid uint32, t *shardkey.TableInfo) error {
	rows, err := s.tx.Query(ctx, `
SELECT a.attname, format_type(a.atttypid, a.atttypmod),
       CASE WHEN ty.typtype = 'd' THEN bt.typname ELSE ty.typname END
FROM pg_attribute a
JOIN pg_type ty ON ty.oid = a.atttypid
LEFT JOIN pg_type bt ON bt.oid = ty.typbasetype
WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum`, oid)
	if err != nil {
		return err
	}
	for rows.Next() {
		c := &shardkey.ColumnInfo{}
		var typname string
		if err := rows.Scan(&c.Name, &c.DBType, &typname); err != nil {
			return err
		}
		c.Type = pgType(typname)
		t.Columns = append(t.Columns, c)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = s.tx.Query(ctx, `
SELECT con.contype::text, coalesce(fc.relname, ''),
  ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(n, i)
        JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.i),
  ARRAY(SELECT a.attname::text FROM unnest(coalesce(con.confkey, '{}')) WITH ORDINALITY k(n, i)
        JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.i)
FROM pg_constraint con LEFT JOIN pg_class fc ON fc.oid = con.confrelid
WHERE con.conrelid = $1 AND con.contype IN ('p', 'f')
ORDER BY con.contype DESC, con.conname`, oid)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var typ, ref string
		var cols, refCols []string
		if err := rows.Scan(&typ, &ref, &cols, &refCols); err != nil {
			return err
		}
		if typ == "p" {
			t.PrimaryKey = cols
		} else {
			t.ForeignKeys = append(t.ForeignKeys, shardkey.ForeignKey{Columns: cols, RefTable: ref, RefColumns: refCols})
		}
	}
	return rows.Err()
}

// pgType maps a PostgreSQL type name to the shardkey type its values are
// read as; types with no closer match are read as text.
func pgType(typname string) shardkey.Type {
	switch typname {
	case "int2", "bool":
		return shardkey.Int16
	case "int4", "oid":
		return shardkey.Int32
	case "int8":
		return shardkey.Int64
	case "float4":
		return shardkey.Float32
	case "float8", "numeric", "money":
		return shardkey.Float64
	case "bytea":
		return shardkey.Bytes
	case "uuid":
		return shardkey.UUID
	case "timestamp", "timestamptz", "date":
		return shardkey.Timestamp
	}
	return shardkey.Text
}

func (s *pgSession) stats(ctx context.Context, t *shardkey.TableInfo) error {
	rows, err := s.tx.Query(ctx, `
SELECT attname::text, coalesce(null_frac, 0)::float8, coalesce(n_distinct, 0)::float8,
       coalesce(most_common_vals::text::text[], '{}'), coalesce(most_common_freqs, '{}')::float8[],
       correlation::float8
FROM pg_stats
WHERE schemaname = current_schema() AND tablename = $1 AND NOT inherited`, t.Name)
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

// pgExpr is the select-list expression that reads column c as text in the
// form cellValue expects.
func pgExpr(c *shardkey.ColumnInfo) string {
	q := quoteIdent(c.Name)
	switch {
	case c.Type == shardkey.Timestamp:
		return fmt.Sprintf("CASE WHEN isfinite(%s) THEN (extract(epoch FROM %s) * 1000000)::int8::text END", q, q)
	case c.DBType == "boolean":
		return q + "::int::text"
	case c.Type == shardkey.Bytes:
		return "encode(" + q + ", 'hex')"
	case c.Type == shardkey.Float64 && c.DBType == "money":
		return q + "::numeric::text"
	}
	return q + "::text"
}

// ownMark tags the reader's sample queries so that statement statistics
// read in the same or a later run leave them out.
const ownMark = "/* shardkey livedb */"

// pgSampleClause returns the TABLESAMPLE clause for a table of est rows.
func pgSampleClause(est float64, n int, seed int64) string {
	if est <= float64(n) {
		return "" // unknown or small: read up to n rows
	}
	pct := math.Min(100, 100*1.1*float64(n)/est)
	method := "BERNOULLI"
	if est > 1e7 {
		method = "SYSTEM" // whole pages: far cheaper, clustered
	}
	return fmt.Sprintf(" TABLESAMPLE %s (%.6f) REPEATABLE (%d)", method, pct, seed&0x7fffffff)
}

func (s *pgSession) sample(ctx context.Context, t *shardkey.TableInfo, n int, seed int64, row func([]*string) error) error {
	if len(t.Columns) == 0 {
		return nil
	}
	exprs := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		exprs[i] = pgExpr(c)
	}
	q := fmt.Sprintf("SELECT "+ownMark+" %s FROM %s%s LIMIT %d", strings.Join(exprs, ", "), quoteIdent(t.Name), pgSampleClause(t.RowEstimate, n, seed), n)
	rows, err := s.tx.Query(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	cells := make([]*string, len(t.Columns))
	dest := make([]any, len(cells))
	for i := range cells {
		dest[i] = &cells[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if err := row(cells); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (s *pgSession) statements(ctx context.Context) ([]statement, float64, error) {
	var n int
	if err := s.tx.QueryRow(ctx, `SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'`).Scan(&n); err != nil || n == 0 {
		return nil, 0, err
	}
	// The view fails when the library is not preloaded; a savepoint keeps
	// the transaction usable.
	if _, err := s.tx.Exec(ctx, "SAVEPOINT shardkey_statements"); err != nil {
		return nil, 0, err
	}
	stmts, period, err := s.readStatements(ctx)
	if err != nil {
		_, _ = s.tx.Exec(ctx, "ROLLBACK TO SAVEPOINT shardkey_statements")
		return nil, 0, fmt.Errorf("pg_stat_statements: %w", err)
	}
	return stmts, period, nil
}

func (s *pgSession) readStatements(ctx context.Context) ([]statement, float64, error) {
	var period float64
	err := s.tx.QueryRow(ctx, `
SELECT extract(epoch FROM now() - coalesce((SELECT stats_reset FROM pg_stat_statements_info), pg_postmaster_start_time()))::float8`).Scan(&period)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.tx.Query(ctx, `
SELECT query, sum(calls)::float8 FROM pg_stat_statements
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
			continue // this reader's own sample queries
		}
		out = append(out, st)
	}
	return out, period, rows.Err()
}
