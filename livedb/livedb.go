// Package livedb reads a live PostgreSQL or MySQL/MariaDB database,
// read-only, into a shardkey.Workload.
//
// Read proceeds in four steps, all inside one read-only transaction whose
// every statement runs under a statement timeout:
//
//  1. Catalog: the tables of the current schema (PostgreSQL: the search
//     path's first schema, usually public; MySQL: the DSN's database), their
//     columns and types, primary and foreign keys, and the planner's row
//     estimate.
//  2. Planner statistics: PostgreSQL's pg_stats (null fraction, n_distinct,
//     most common values and their frequencies, correlation), MySQL's index
//     cardinalities. They are kept in a shardkey.Catalog attached to the
//     workload (Workload.Catalog).
//  3. A row sample per table, at most Options.SampleRows rows, seeded by
//     the workload's seed: TABLESAMPLE BERNOULLI (SYSTEM above ten million
//     rows) REPEATABLE(seed) in PostgreSQL, WHERE RAND(seed) < p in MySQL.
//     The sample becomes the workload's table, every row of weight 1.
//  4. Statement statistics, when the database keeps them
//     (pg_stat_statements; performance_schema statement digests), read by
//     the query-log reader's parsers (sqllog.ReadStatementStats: joins,
//     subqueries and unions included): each statement's accesses to the
//     sampled tables become operations whose rate is the calls per second
//     since the statistics were reset, and whose instances draw their
//     parameters from the row sample. Options.NoStatements skips
//     this step (a query log gives the statements instead).
//
// Nothing is ever written. The connection starts with
// default_transaction_read_only on (PostgreSQL) or SESSION TRANSACTION READ
// ONLY (MySQL), and the transaction is opened READ ONLY, so the server
// itself rejects a write even if one were attempted; the transaction always
// ends in a rollback.
package livedb

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sqllog"
)

// DefaultStatementTimeout bounds every statement when Options leaves it 0.
const DefaultStatementTimeout = 30 * time.Second

// Options control sampling.
type Options struct {
	// SampleRows bounds the rows sampled per table (default 100000).
	SampleRows int
	// StatementTimeout bounds every statement the reader runs; the server
	// cancels one that runs longer (default DefaultStatementTimeout).
	StatementTimeout time.Duration
	// Progress receives a progress bar once reading takes more than a
	// second; nil for none.
	Progress io.Writer
	// Seed makes the sample repeatable; 0 uses the workload's seed.
	Seed int64
	// NoStatements leaves out step 4, the statement statistics. Set it
	// when the same workload is also read from a query log of this
	// database: the statistics count the statements the log holds, and
	// the workload would count them twice. (A negative name so that the
	// zero Options keep reading them.)
	NoStatements bool
}

// Read adds the database at dsn (postgres://, postgresql:// or mysql://) to
// w: one table per database table holding its row sample, operations from
// statement statistics, and the catalog (Workload.Catalog). Warnings
// (tables skipped, statements not understood) go to w.Warnings. The
// password in dsn never appears in messages.
func Read(ctx context.Context, w *shardkey.Workload, dsn string, o Options) error {
	if o.SampleRows <= 0 {
		o.SampleRows = 100000
	}
	if o.StatementTimeout <= 0 {
		o.StatementTimeout = DefaultStatementTimeout
	}
	if o.Seed == 0 {
		o.Seed = w.Seed
	}
	s, err := open(ctx, dsn, o)
	if err != nil {
		return err
	}
	defer s.close()
	return read(ctx, s, w, Redact(dsn), o)
}

// CheckDSN reports, without connecting, whether dsn names a database
// shardkey can read: a URL with scheme postgres, postgresql, mysql or
// mariadb. The error does not show the password.
func CheckDSN(dsn string) error {
	_, err := parseDSN(dsn)
	return err
}

func parseDSN(dsn string) (*url.URL, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, fmt.Errorf("DSN %s: %v", Redact(dsn), redactErr(err, dsn))
	}
	switch u.Scheme {
	case "postgres", "postgresql", "mysql", "mariadb":
		return u, nil
	}
	return nil, fmt.Errorf("DSN %s: want postgres://... or mysql://...", Redact(dsn))
}

// open connects and opens the read-only transaction.
func open(ctx context.Context, dsn string, o Options) (session, error) {
	u, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "postgres" || u.Scheme == "postgresql" {
		return openPostgres(ctx, dsn, o)
	}
	return openMySQL(ctx, u, o)
}

// session is one read-only transaction on a database.
type session interface {
	// engine names the server ("postgresql 15.4").
	engine() string
	// catalog lists the tables with columns, keys and row estimates.
	catalog(ctx context.Context) ([]*shardkey.TableInfo, error)
	// stats fills the columns' planner statistics.
	stats(ctx context.Context, t *shardkey.TableInfo) error
	// sample calls row with each sampled row, one text cell per column of
	// t (timestamps as microseconds since the epoch, bytes in hex), a nil
	// cell for NULL. The slice is reused between calls.
	sample(ctx context.Context, t *shardkey.TableInfo, n int, seed int64, row func([]*string) error) error
	// statements returns statement statistics and the seconds they cover;
	// nil when the database keeps none.
	statements(ctx context.Context) ([]statement, float64, error)
	// exec runs one statement inside the session (tests use it to show
	// that writes fail).
	exec(ctx context.Context, sql string) error
	close()
}

// statement is one normalised statement with its call count.
type statement = sqllog.StatementStat

func read(ctx context.Context, s session, w *shardkey.Workload, source string, o Options) error {
	start := time.Now()
	tables, err := s.catalog(ctx)
	if err != nil {
		return fmt.Errorf("%s: catalog: %w", source, err)
	}
	cat := &shardkey.Catalog{Source: source, Engine: s.engine(), Tables: tables}
	bar := newProgress(o.Progress, start, len(tables), "sampling "+source)
	for _, ti := range tables {
		if w.Table(ti.Name) != nil {
			return fmt.Errorf("%s: table %q is already in the workload", source, ti.Name)
		}
		if err := s.stats(ctx, ti); err != nil {
			return fmt.Errorf("%s: table %s: statistics: %w", source, ti.Name, err)
		}
		t, err := sampleTable(ctx, s, ti, o)
		if err != nil {
			return fmt.Errorf("%s: table %s: sample: %w", source, ti.Name, err)
		}
		ti.SampleRows = t.Rows
		markMonotonic(t, ti)
		w.Tables = append(w.Tables, t)
		bar.step()
	}
	bar.done()
	var stmts []statement
	var period float64
	if !o.NoStatements {
		stmts, period, err = s.statements(ctx)
		if err != nil {
			w.Warnings = append(w.Warnings, fmt.Errorf("%s: statement statistics: %w", source, err))
		}
	}
	if len(stmts) > 0 {
		// Read by the log reader's parsers (package sqllog), so that a
		// statement reads the same from the server's statistics as from
		// a log or a pg_stat_statements export.
		d := sqllog.Postgres
		if e := s.engine(); strings.HasPrefix(e, "mysql") || strings.HasPrefix(e, "mariadb") {
			d = sqllog.MySQL
		}
		if err := sqllog.ReadStatementStats(ctx, w, stmts, d, period, source+": statement statistics", sqllog.Options{Seed: o.Seed}); err != nil {
			w.Warnings = append(w.Warnings, err)
		}
	}
	w.Catalog = cat
	return nil
}

// sampleTable reads t's row sample into a new table.
func sampleTable(ctx context.Context, s session, ti *shardkey.TableInfo, o Options) (*shardkey.Table, error) {
	t := &shardkey.Table{Name: ti.Name}
	for _, c := range ti.Columns {
		t.Columns = append(t.Columns, &shardkey.Column{Name: c.Name, Type: c.Type})
	}
	err := s.sample(ctx, ti, o.SampleRows, o.Seed, func(cells []*string) error {
		for i, c := range t.Columns {
			v, err := cellValue(cells[i], c.Type)
			if err != nil {
				return fmt.Errorf("row %d: column %s: %v", t.Rows+1, c.Name, err)
			}
			if err := c.Append(v); err != nil {
				return fmt.Errorf("row %d: %v", t.Rows+1, err)
			}
		}
		t.Rows++
		return nil
	})
	return t, err
}

// cellValue converts one sampled cell.
func cellValue(s *string, t shardkey.Type) (shardkey.Value, error) {
	switch {
	case s == nil:
		return shardkey.Value{}, nil
	case t == shardkey.Timestamp:
		us, err := strconv.ParseInt(*s, 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(*s, 64)
			if ferr != nil {
				return shardkey.Value{}, fmt.Errorf("%q is not microseconds since the epoch", *s)
			}
			us = int64(f)
		}
		return shardkey.TimeValue(us), nil
	case t == shardkey.Text:
		return shardkey.TextValue(*s), nil
	}
	return shardkey.ParseValue(*s, t)
}

// markMonotonic flags integer and timestamp columns that the planner sees
// as unique and in physical (insert) order: serial ids, creation times.
func markMonotonic(t *shardkey.Table, ti *shardkey.TableInfo) {
	for _, c := range ti.Columns {
		st := c.Stats
		if st == nil || !st.HasCorrelation || st.Correlation < 0.99 || !c.Type.IsInt() {
			continue
		}
		if st.NDistinct > -0.9 && (ti.RowEstimate <= 0 || st.Distinct(ti.RowEstimate) < 0.9*ti.RowEstimate) {
			continue
		}
		if t.Monotonic == nil {
			t.Monotonic = map[string]bool{}
		}
		t.Monotonic[c.Name] = true
	}
}

// Redact returns dsn with its password replaced by xxxxx.
func Redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		if i := strings.LastIndex(dsn, "@"); i >= 0 {
			return "xxxxx" + dsn[i:]
		}
		return dsn
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	return u.String()
}

// redactErr removes the DSN's password from an error message.
func redactErr(err error, dsn string) error {
	if err == nil {
		return nil
	}
	u, perr := url.Parse(dsn)
	if perr != nil || u.User == nil {
		return err
	}
	if p, ok := u.User.Password(); ok && p != "" && strings.Contains(err.Error(), p) {
		return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), p, "xxxxx"))
	}
	return err
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteMySQL quotes a MySQL identifier.
func quoteMySQL(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
