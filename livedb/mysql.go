package livedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shardkey/shardkey"
)

// myConfig translates mysql://user:pass@host:port/db?param=value into the
// driver's configuration. The only parameters accepted are socket (a Unix
// socket path) and tls (the driver's TLS setting): the driver would send
// any other as a SET statement before the session is made read-only, and
// a value such as (SELECT f()) would run f.
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
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, fmt.Errorf("query parameters: %v", err)
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if len(q[k]) != 1 {
			return nil, fmt.Errorf("parameter %q given %d times", k, len(q[k]))
		}
		switch v := q.Get(k); k {
		case "socket":
			cfg.Net, cfg.Addr = "unix", v
		case "tls":
			cfg.TLSConfig = v
		default:
			return nil, fmt.Errorf("parameter %q is not accepted (accepted: socket, tls): the driver would send it to the server as a statement", k)
		}
	}
	cfg.Params = nil
	cfg.MultiStatements = false
	cfg.AllowAllFiles = false
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
	dbName  string
	warns   []error
}

func openMySQL(ctx context.Context, u *url.URL, o Options) (*mySession, error) {
	red := Redact(u.String())
	cfg, err := myConfig(u)
	if err != nil {
		return nil, fmt.Errorf("DSN %s: %v", red, redactErr(err, u.String()))
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("DSN %s: %v", red, redactErr(err, u.String()))
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	s := &mySession{db: db, dsn: red, dbName: cfg.DBName}
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
// writes nothing. Every statement carries ownMark, so that query logs
// captured later leave them out.
func (s *mySession) begin(ctx context.Context, timeout time.Duration) error {
	if err := s.conn.QueryRowContext(ctx, ownMark+" SELECT VERSION()").Scan(&s.version); err != nil {
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
		if _, err := s.conn.ExecContext(ctx, ownMark+" "+q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	// A user with SUPER (ALL PRIVILEGES includes it) is reported, as a
	// PostgreSQL superuser is. (Quotes doubled, not backslashed: the
	// server may run with NO_BACKSLASH_ESCAPES.)
	var super int
	if err := s.conn.QueryRowContext(ctx, ownMark+` SELECT COUNT(*) FROM information_schema.USER_PRIVILEGES
WHERE PRIVILEGE_TYPE = 'SUPER' AND GRANTEE = CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(), '@', 1), '''@''', SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')`).Scan(&super); err != nil {
		return err
	}
	if super > 0 {
		var user string
		_ = s.conn.QueryRowContext(ctx, ownMark+" SELECT CURRENT_USER()").Scan(&user)
		s.warns = append(s.warns, fmt.Errorf("SUPERUSER CONNECTION: %s has the SUPER privilege. shardkey sent no DSN "+
			"parameter to the server, only reads with built-in functions and schema-qualified names inside a READ ONLY "+
			"transaction, but connect as a user that can only read (GRANT SELECT ON db.* TO a new user)", user))
	}
	return nil
}

func (s *mySession) engine() string {
	if s.mariadb {
		return "mariadb " + s.version
	}
	return "mysql " + s.version
}

func (s *mySession) notes() []error { return s.warns }

func (s *mySession) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if s.conn != nil {
		_, _ = s.conn.ExecContext(ctx, ownMark+" ROLLBACK")
		_ = s.conn.Close()
	}
	_ = s.db.Close()
}

func (s *mySession) exec(ctx context.Context, q string) error {
	_, err := s.conn.ExecContext(ctx, q)
	return err
}

func (s *mySession) catalog(ctx context.Context) ([]*shardkey.TableInfo, []error, error) {
	// TABLE_ROWS is the storage engine's estimate (InnoDB's persistent
	// statistics); 0 for a table that has data is statistics missing.
	rows, err := s.conn.QueryContext(ctx, ownMark+`
SELECT TABLE_NAME, CASE WHEN TABLE_ROWS IS NULL OR TABLE_ROWS = 0 AND COALESCE(DATA_LENGTH, 0) > 16384 THEN -1 ELSE TABLE_ROWS END
FROM information_schema.TABLES
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME`)
	if err != nil {
		return nil, nil, err
	}
	var tables []*shardkey.TableInfo
	for rows.Next() {
		t := &shardkey.TableInfo{}
		if err := rows.Scan(&t.Name, &t.RowEstimate); err != nil {
			rows.Close()
			return nil, nil, err
		}
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	var out []*shardkey.TableInfo
	var warns []error
	for _, t := range tables {
		if err := s.columns(ctx, t); err != nil {
			return nil, nil, fmt.Errorf("table %s: %w", t.Name, err)
		}
		if len(t.Columns) == 0 {
			warns = append(warns, fmt.Errorf("table %s skipped: permission denied: no SELECT privilege on any of its columns", t.Name))
			continue
		}
		out = append(out, t)
	}
	return out, warns, nil
}

func (s *mySession) columns(ctx context.Context, t *shardkey.TableInfo) error {
	rows, err := s.conn.QueryContext(ctx, ownMark+`
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
	rows, err = s.conn.QueryContext(ctx, ownMark+`
SELECT CONSTRAINT_NAME, COLUMN_NAME, COALESCE(REFERENCED_TABLE_NAME, ''), COALESCE(REFERENCED_COLUMN_NAME, '')
FROM information_schema.KEY_COLUMN_USAGE
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?
ORDER BY CONSTRAINT_NAME, ORDINAL_POSITION`, t.Name)
	if err != nil {
		return err
	}
	defer rows.Close()
	fks, uks := map[string]int{}, map[string]int{}
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
		default:
			// KEY_COLUMN_USAGE lists primary, unique and foreign
			// keys: a constraint without a reference is a unique key.
			i, ok := uks[name]
			if !ok {
				i = len(t.UniqueKeys)
				uks[name] = i
				t.UniqueKeys = append(t.UniqueKeys, nil)
			}
			t.UniqueKeys[i] = append(t.UniqueKeys[i], col)
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
	rows, err := s.conn.QueryContext(ctx, ownMark+`
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

// mySampleWhere returns the filter that draws about 1.2 n rows from a
// table of about est rows (the reservoir then keeps n), and its
// description; "" to read every row. RAND(seed) gives the same sequence
// for a seed, one value per row in the order the rows are read: a seeded
// Bernoulli sample in one pass over the table without a sort (ORDER BY
// RAND() would sort the whole table).
func mySampleWhere(est float64, n int, seed int64) (string, string) {
	if est < 0 {
		return "", "every row (no row estimate: statistics missing)"
	}
	if est <= 1.2*float64(n) {
		return "", "every row"
	}
	p := 1.2 * float64(n) / est
	return fmt.Sprintf(" WHERE RAND(%d) < %.9f", seed&0x7fffffff, p),
		fmt.Sprintf("WHERE RAND(%d) < %.3g over ~%.0f rows (TABLE_ROWS estimate)", seed&0x7fffffff, p, est)
}

// myOwnAlias is the sample query's table alias: performance_schema's
// statement digests drop comments, and keep it.
const myOwnAlias = "shardkey_livedb"

// mySkipCodes are the errors that mean the user may not read a table or
// column (ER_TABLEACCESS_DENIED_ERROR, ER_COLUMNACCESS_DENIED_ERROR).
var mySkipCodes = map[uint16]bool{1142: true, 1143: true}

func (s *mySession) sample(ctx context.Context, t *shardkey.TableInfo, n int, seed int64, row func(uint64, []shardkey.Value) error) (string, error) {
	exprs := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		exprs[i] = myExpr(c)
	}
	where, method := mySampleWhere(t.RowEstimate, n, seed)
	// In primary-key order (InnoDB's clustered order, so no sort): rows
	// reach RAND() in the same order whichever index the optimizer would
	// rather scan.
	order := ""
	if len(t.PrimaryKey) > 0 {
		keys := make([]string, len(t.PrimaryKey))
		for i, k := range t.PrimaryKey {
			keys[i] = quoteMySQL(k)
		}
		order = " ORDER BY " + strings.Join(keys, ", ")
	}
	// The alias marks the query in performance_schema's digests, which
	// drop comments.
	q := fmt.Sprintf("%s SELECT %s FROM %s.%s AS %s%s%s", ownMark, strings.Join(exprs, ", "), quoteMySQL(s.dbName), quoteMySQL(t.Name), myOwnAlias, where, order)
	rows, err := s.conn.QueryContext(ctx, q)
	var me *mysql.MySQLError
	if errors.As(err, &me) && mySkipCodes[me.Number] {
		return "", skipf("permission denied: %s", me.Message)
	}
	if err != nil {
		return "", err
	}
	defer rows.Close()
	raw := make([]sql.NullString, len(t.Columns))
	dest := make([]any, len(raw))
	for i := range raw {
		dest[i] = &raw[i]
	}
	vals := make([]shardkey.Value, len(raw))
	var seq uint64
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return "", err
		}
		for i := range raw {
			var cell *string
			if raw[i].Valid {
				cell = &raw[i].String
			}
			v, err := cellValue(cell, t.Columns[i].Type)
			if err != nil {
				return "", fmt.Errorf("column %s: %v", t.Columns[i].Name, err)
			}
			vals[i] = v
		}
		if err := row(rowPriority(seed, seq), vals); err != nil {
			return "", err
		}
		seq++
	}
	return method, rows.Err()
}

func (s *mySession) statements(ctx context.Context) ([]statement, float64, error) {
	var on string
	if err := s.conn.QueryRowContext(ctx, ownMark+" SELECT @@GLOBAL.performance_schema").Scan(&on); err != nil || (on != "1" && !strings.EqualFold(on, "ON")) {
		return nil, 0, nil
	}
	rows, err := s.conn.QueryContext(ctx, ownMark+`
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
		if strings.Contains(st.Text, myOwnAlias) || strings.Contains(st.Text, ownMark) {
			continue // this reader's own queries
		}
		out = append(out, st)
	}
	return out, math.Max(1, last-first), rows.Err()
}
