package livedb

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shardkey/shardkey"
)

// myConfig translates mysql://user:pass@host:port/db?param=value into the
// driver's configuration. Query parameters are passed on as session
// variables, except socket (a Unix socket path) and tls (the driver's).
func myConfig(u *url.URL) (*mysql.Config, error) {
	cfg := mysql.NewConfig()
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	if cfg.DBName == "" || strings.Contains(cfg.DBName, "/") {
		return nil, fmt.Errorf("want the database in the path: mysql://user:pass@host:port/DATABASE")
	}
	cfg.Net, cfg.Addr = "tcp", u.Host
	if u.Port() == "" {
		host := u.Hostname()
		if host == "" {
			host = "127.0.0.1"
		}
		cfg.Addr = net.JoinHostPort(host, "3306")
	}
	q := u.Query()
	if sock := q.Get("socket"); sock != "" {
		cfg.Net, cfg.Addr = "unix", sock
		q.Del("socket")
	}
	if tls := q.Get("tls"); tls != "" {
		cfg.TLSConfig = tls
		q.Del("tls")
	}
	for k := range q {
		if cfg.Params == nil {
			cfg.Params = map[string]string{}
		}
		cfg.Params[k] = q.Get(k)
	}
	cfg.Timeout = 10 * time.Second
	cfg.ReadTimeout = 0
	return cfg, nil
}

// mySession is a read-only transaction on MySQL or MariaDB, on one
// connection.
type mySession struct {
	db      *sql.DB
	conn    *sql.Conn
	version string
	mariadb bool
	dsn     string
}

func openMySQL(ctx context.Context, u *url.URL, o Options) (*mySession, error) {
	red := Redact(u.String())
	cfg, err := myConfig(u)
	if err != nil {
		return nil, fmt.Errorf("DSN %s: %v", red, err)
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("DSN %s: %v", red, redactErr(err, u.String()))
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	s := &mySession{db: db, dsn: red}
	if s.conn, err = db.Conn(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connecting to %s: %v", red, redactErr(err, u.String()))
	}
	if err := s.begin(ctx, o.StatementTimeout); err != nil {
		s.close()
		return nil, fmt.Errorf("%s: opening a read-only transaction: %w", red, err)
	}
	return s, nil
}

// begin bounds every statement, makes the session's transactions
// read-only and starts one. Session variables are not data: setting them
// writes nothing.
func (s *mySession) begin(ctx context.Context, timeout time.Duration) error {
	if err := s.conn.QueryRowContext(ctx, "SELECT VERSION()").Scan(&s.version); err != nil {
		return err
	}
	s.mariadb = strings.Contains(strings.ToLower(s.version), "mariadb")
	limit := fmt.Sprintf("SET SESSION max_execution_time = %d", timeout.Milliseconds())
	if s.mariadb {
		limit = fmt.Sprintf("SET SESSION max_statement_time = %.3f", timeout.Seconds())
	}
	for _, q := range []string{
		limit,
		"SET SESSION time_zone = '+00:00'",
		"SET SESSION TRANSACTION READ ONLY",
		"START TRANSACTION READ ONLY",
	} {
		if _, err := s.conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

func (s *mySession) engine() string {
	if s.mariadb {
		return "mariadb " + s.version
	}
	return "mysql " + s.version
}

func (s *mySession) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if s.conn != nil {
		_, _ = s.conn.ExecContext(ctx, "ROLLBACK")
		_ = s.conn.Close()
	}
	_ = s.db.Close()
}

func (s *mySession) exec(ctx context.Context, q string) error {
	_, err := s.conn.ExecContext(ctx, q)
	return err
}

func (s *mySession) catalog(ctx context.Context) ([]*shardkey.TableInfo, error) {
	rows, err := s.conn.QueryContext(ctx, `
SELECT TABLE_NAME, COALESCE(TABLE_ROWS, -1) FROM information_schema.TABLES
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME`)
	if err != nil {
		return nil, err
	}
	var tables []*shardkey.TableInfo
	for rows.Next() {
		t := &shardkey.TableInfo{}
		if err := rows.Scan(&t.Name, &t.RowEstimate); err != nil {
			rows.Close()
			return nil, err
		}
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, t := range tables {
		if err := s.columns(ctx, t); err != nil {
			return nil, fmt.Errorf("table %s: %w", t.Name, err)
		}
	}
	return tables, nil
}

func (s *mySession) columns(ctx context.Context, t *shardkey.TableInfo) error {
	rows, err := s.conn.QueryContext(ctx, `
SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, t.Name)
	if err != nil {
		return err
	}
	for rows.Next() {
		c := &shardkey.ColumnInfo{}
		var dataType string
		if err := rows.Scan(&c.Name, &dataType, &c.DBType); err != nil {
			rows.Close()
			return err
		}
		c.Type = myType(strings.ToLower(dataType), strings.ToLower(c.DBType))
		t.Columns = append(t.Columns, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = s.conn.QueryContext(ctx, `
SELECT CONSTRAINT_NAME, COLUMN_NAME, COALESCE(REFERENCED_TABLE_NAME, ''), COALESCE(REFERENCED_COLUMN_NAME, '')
FROM information_schema.KEY_COLUMN_USAGE
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?
ORDER BY CONSTRAINT_NAME, ORDINAL_POSITION`, t.Name)
	if err != nil {
		return err
	}
	defer rows.Close()
	fks := map[string]int{}
	for rows.Next() {
		var name, col, ref, refCol string
		if err := rows.Scan(&name, &col, &ref, &refCol); err != nil {
			return err
		}
		switch {
		case name == "PRIMARY":
			t.PrimaryKey = append(t.PrimaryKey, col)
		case ref != "":
			i, ok := fks[name]
			if !ok {
				i = len(t.ForeignKeys)
				fks[name] = i
				t.ForeignKeys = append(t.ForeignKeys, shardkey.ForeignKey{RefTable: ref})
			}
			fk := &t.ForeignKeys[i]
			fk.Columns = append(fk.Columns, col)
			fk.RefColumns = append(fk.RefColumns, refCol)
		}
	}
	return rows.Err()
}

// myType maps a MySQL data type to the shardkey type its values are read
// as; types with no closer match are read as text.
func myType(dataType, columnType string) shardkey.Type {
	unsigned := strings.Contains(columnType, "unsigned")
	switch dataType {
	case "tinyint", "smallint", "year", "bit":
		return shardkey.Int16
	case "mediumint", "int", "integer":
		if unsigned && dataType != "mediumint" {
			return shardkey.Int64
		}
		return shardkey.Int32
	case "bigint":
		if unsigned {
			return shardkey.Uint64
		}
		return shardkey.Int64
	case "float":
		return shardkey.Float32
	case "double", "real", "decimal", "numeric":
		return shardkey.Float64
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob":
		return shardkey.Bytes
	case "datetime", "timestamp", "date":
		return shardkey.Timestamp
	case "uuid": // MariaDB 10.7+
		return shardkey.UUID
	}
	return shardkey.Text
}

func (s *mySession) stats(ctx context.Context, t *shardkey.TableInfo) error {
	// MySQL's optimizer statistics are index cardinalities: the distinct
	// count of each index's leading column.
	rows, err := s.conn.QueryContext(ctx, `
SELECT COLUMN_NAME, MAX(COALESCE(CARDINALITY, 0)) FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND SEQ_IN_INDEX = 1
GROUP BY COLUMN_NAME`, t.Name)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var card float64
		if err := rows.Scan(&name, &card); err != nil {
			return err
		}
		if card <= 0 {
			continue
		}
		for _, c := range t.Columns {
			if c.Name == name {
				c.Stats = &shardkey.ColumnStats{NDistinct: card}
				if len(t.PrimaryKey) == 1 && t.PrimaryKey[0] == name {
					c.Stats.NDistinct = -1
				}
			}
		}
	}
	return rows.Err()
}

// myExpr is the select-list expression that reads column c in the form
// cellValue expects.
func myExpr(c *shardkey.ColumnInfo) string {
	q := quoteMySQL(c.Name)
	switch c.Type {
	case shardkey.Timestamp:
		return "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', " + q + ")"
	case shardkey.Bytes:
		return "HEX(" + q + ")"
	}
	if strings.HasPrefix(c.DBType, "bit") {
		return "CAST(" + q + " AS UNSIGNED)"
	}
	return q
}

func (s *mySession) sample(ctx context.Context, t *shardkey.TableInfo, n int, seed int64, row func([]*string) error) error {
	if len(t.Columns) == 0 {
		return nil
	}
	exprs := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		exprs[i] = myExpr(c)
	}
	where := ""
	if t.RowEstimate > float64(n) {
		// A Bernoulli sample: one pass, no sort (ORDER BY RAND() sorts the
		// whole table). RAND(seed) repeats its sequence for a seed.
		p := math.Min(1, 1.1*float64(n)/t.RowEstimate)
		where = fmt.Sprintf(" WHERE RAND(%d) < %.9f", seed&0x7fffffff, p)
	}
	q := fmt.Sprintf("SELECT %s FROM %s%s LIMIT %d", strings.Join(exprs, ", "), quoteMySQL(t.Name), where, n)
	rows, err := s.conn.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	raw := make([]sql.NullString, len(t.Columns))
	dest := make([]any, len(raw))
	for i := range raw {
		dest[i] = &raw[i]
	}
	cells := make([]*string, len(raw))
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		for i := range raw {
			cells[i] = nil
			if raw[i].Valid {
				cells[i] = &raw[i].String
			}
		}
		if err := row(cells); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (s *mySession) statements(ctx context.Context) ([]statement, float64, error) {
	var on string
	if err := s.conn.QueryRowContext(ctx, "SELECT @@GLOBAL.performance_schema").Scan(&on); err != nil || (on != "1" && !strings.EqualFold(on, "ON")) {
		return nil, 0, nil
	}
	rows, err := s.conn.QueryContext(ctx, `
SELECT DIGEST_TEXT, COUNT_STAR, UNIX_TIMESTAMP(FIRST_SEEN), UNIX_TIMESTAMP(LAST_SEEN)
FROM performance_schema.events_statements_summary_by_digest
WHERE SCHEMA_NAME = DATABASE() AND DIGEST_TEXT IS NOT NULL
ORDER BY COUNT_STAR DESC, DIGEST_TEXT`)
	if err != nil {
		return nil, 0, fmt.Errorf("performance_schema statement digests: %w", err)
	}
	defer rows.Close()
	var out []statement
	first, last := math.Inf(1), math.Inf(-1)
	for rows.Next() {
		var st statement
		var f, l float64
		if err := rows.Scan(&st.Text, &st.Calls, &f, &l); err != nil {
			return nil, 0, err
		}
		first, last = math.Min(first, f), math.Max(last, l)
		out = append(out, st)
	}
	return out, math.Max(1, last-first), rows.Err()
}
