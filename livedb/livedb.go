// Package livedb reads a live PostgreSQL or MySQL/MariaDB database,
// read-only, into a shardkey.Workload.
//
// Read proceeds in five steps, all inside one read-only transaction whose
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
//     the workload's seed and drawn over the whole table: TABLESAMPLE
//     BERNOULLI (SYSTEM above ten million rows) REPEATABLE(seed) in
//     PostgreSQL, sized from the planner's estimate (EXPLAIN), WHERE
//     RAND(seed) < p in primary-key order in MySQL, sized from TABLE_ROWS;
//     no LIMIT, then a bottom-n reservoir on a seeded hash of each row's
//     identity (ctid; MySQL: its position). The sample becomes the
//     workload's table, every row of weight 1, in physical order; its size
//     and method go to w.Warnings and Catalog's TableInfo.SampleMethod.
//  4. Citus metadata, on a Citus coordinator: the design it runs
//     (Catalog.Distribution) and where its shards live (citus.go).
//     Then, unless Options.Stats is StatsSample, statistics computed
//     inside the database over the whole table (pushdown.go; over a
//     TABLESAMPLE with db:sample=P%): exact distinct, NULL and
//     top-value counts, the correlation with insert order, and per-shard
//     rows and bytes by the postgres or citus engine's hash (on a Citus
//     coordinator: by its own shard intervals, computed on its workers,
//     pushdown_citus.go), in each column's ColumnInfo.Measured.
//  5. Statement statistics, when the database keeps them
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
// ends in a rollback. No code of the database's users runs either: see
// postgres.go for how (values read in their own types without casts,
// schema-qualified names, search_path pg_catalog, row-level security off),
// and myConfig for MySQL's DSN parameters. A table or column the user may
// not read is left out with a warning. Every statement carries ownMark.
package livedb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"sort"
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
	// Notices, when not nil, also receives the warnings about the
	// connection itself (a superuser role) as soon as they are known, one
	// line each: they should not wait for the report.
	Notices io.Writer
	// NoStatements leaves out step 5, the statement statistics. Set it
	// when the same workload is also read from a query log of this
	// database: the statistics count the statements the log holds, and
	// the workload would count them twice. (A negative name so that the
	// zero Options keep reading them.)
	NoStatements bool
	// Stats chooses where column statistics are computed: StatsDB (or
	// "", the default) inside the database over the whole table as well
	// as on the sample (see pushdown.go), StatsSample from the row sample
	// alone.
	Stats string
	// StatsColumns, when not empty, limits the statistics computed inside
	// the database to these columns (COLUMN or TABLE.COLUMN): the key
	// columns of the designs scored. Empty: every column of a supported
	// type.
	StatsColumns []string
	// Engine and Shards are the placement the per-shard row and byte
	// sums are computed for inside the database (a partition engine's
	// name; only postgres and citus, whose hash PostgreSQL has built in).
	Engine string
	Shards int
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
	// notes returns warnings about the connection itself (a superuser
	// role), reported once per read.
	notes() []error
	// catalog lists the tables with columns, keys and row estimates.
	// Tables and columns the role may not read are left out with a
	// warning each.
	catalog(ctx context.Context) ([]*shardkey.TableInfo, []error, error)
	// stats fills the columns' planner statistics.
	stats(ctx context.Context, t *shardkey.TableInfo) error
	// sample reads t's row sample for a reservoir of n rows: it calls row
	// with each row the database's sampling method returns, in physical
	// order, one value per column of t (vals is reused between calls) and
	// the row's reservoir priority, a seeded hash of the row's identity.
	// It returns how the rows were drawn (for the report). An error
	// wrapping errSkip leaves the table out with a warning.
	sample(ctx context.Context, t *shardkey.TableInfo, n int, seed int64, row func(prio uint64, vals []shardkey.Value) error) (string, error)
	// statements returns statement statistics and the seconds they cover;
	// nil when the database keeps none.
	statements(ctx context.Context) ([]statement, float64, error)
	// measure computes the statistics of t's columns cols inside the
	// database (pushdown.go), setting each column's Measured; a failed
	// column becomes a warning and keeps its sample figures.
	measure(ctx context.Context, t *shardkey.TableInfo, cols []*shardkey.ColumnInfo, sp shardSpec) []error
	// exec runs one statement inside the session (tests use it to show
	// that writes fail).
	exec(ctx context.Context, sql string) error
	close()
}

// errSkip marks a per-table problem (no privilege, row-level security,
// a column type that could run user code) that leaves the table out of
// the workload with a warning instead of failing the read.
var errSkip = errors.New("skipped")

// skipError is a per-table problem; it wraps errSkip.
type skipError struct{ msg string }

func (e *skipError) Error() string { return e.msg }
func (e *skipError) Unwrap() error { return errSkip }

func skipf(format string, args ...any) error { return &skipError{fmt.Sprintf(format, args...)} }

// dialectOf returns the SQL dialect of s's server.
func dialectOf(s session) sqllog.Dialect {
	if e := s.engine(); strings.HasPrefix(e, "mysql") || strings.HasPrefix(e, "mariadb") {
		return sqllog.MySQL
	}
	return sqllog.Postgres
}

// statement is one normalised statement with its call count.
type statement = sqllog.StatementStat

func read(ctx context.Context, s session, w *shardkey.Workload, source string, o Options) error {
	start := time.Now()
	for _, n := range s.notes() {
		err := fmt.Errorf("%s: %w", source, n)
		w.Warnings = append(w.Warnings, err)
		if o.Notices != nil {
			fmt.Fprintf(o.Notices, "warning: %v\n", err)
		}
	}
	tables, warns, err := s.catalog(ctx)
	if err != nil {
		return fmt.Errorf("%s: catalog: %w", source, err)
	}
	for _, wn := range warns {
		w.Warnings = append(w.Warnings, fmt.Errorf("%s: %w", source, wn))
	}
	cat := &shardkey.Catalog{Source: source, Engine: s.engine()}
	bar := newProgress(o.Progress, start, len(tables), "sampling "+source)
	var methods []string
	// whole holds the tables whose row sample is every row of the table
	// (in this transaction's snapshot): exact figures.
	whole := map[*shardkey.TableInfo]bool{}
	for _, ti := range tables {
		if w.Table(ti.Name) != nil {
			return fmt.Errorf("%s: table %q is already in the workload", source, ti.Name)
		}
		if err := s.stats(ctx, ti); err != nil {
			return fmt.Errorf("%s: table %s: statistics: %w", source, ti.Name, err)
		}
		t, method, all, err := sampleTable(ctx, s, ti, o)
		if errors.Is(err, errSkip) {
			w.Warnings = append(w.Warnings, fmt.Errorf("%s: table %s skipped: %w", source, ti.Name, err))
			bar.step()
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: table %s: sample: %w", source, ti.Name, err)
		}
		if ti.RowEstimate < 0 {
			w.Warnings = append(w.Warnings, fmt.Errorf("%s: table %s has no statistics (never analysed, or analysed while empty: run ANALYZE): "+
				"its row count, distinct counts and correlations are unknown; the sample is drawn over the whole table from its size", source, ti.Name))
		}
		ti.SampleRows = t.Rows
		ti.SampleMethod = method
		whole[ti] = all
		methods = append(methods, fmt.Sprintf("%s %d rows: %s", ti.Name, t.Rows, method))
		markMonotonic(t, ti)
		w.Tables = append(w.Tables, t)
		cat.Tables = append(cat.Tables, ti)
		bar.step()
	}
	bar.done()
	if len(methods) > 0 {
		// Not a problem, but the figures rest on it: every output format
		// shows warnings, so the sample's size and method travel with the
		// report.
		w.Warnings = append(w.Warnings, fmt.Errorf("%s: row sample (seed %d, at most %d rows a table): %s",
			source, o.Seed, o.SampleRows, strings.Join(methods, "; ")))
	}
	// The Citus metadata comes before the statistics computed inside the
	// database: on a coordinator they are computed on the workers, and
	// the per-shard sums for the placement it runs.
	var d *shardkey.Distribution
	if ps, ok := s.(*pgSession); ok {
		if d, err = ps.distribution(ctx, cat.Tables); err != nil {
			return fmt.Errorf("%s: Citus metadata: %w", source, err)
		}
	}
	measure := o.Stats != StatsSample
	if statsSample(o.Stats) > 0 && dialectOf(s) == sqllog.MySQL {
		// MySQL and MariaDB have no TABLESAMPLE (nor any block sampling
		// a query can ask for).
		w.Warnings = append(w.Warnings, fmt.Errorf("%s: --stats %s: %s has no TABLESAMPLE, so no bounded sample can be drawn inside the database: every statistic comes from the row sample (--stats db computes them exactly over the whole table, under the statement timeout)", source, o.Stats, s.engine()))
		measure = false
	}
	if measure {
		bar := newProgress(o.Progress, time.Now(), len(cat.Tables), "statistics inside "+source)
		for _, ti := range cat.Tables {
			if pct := statsSample(o.Stats); pct > 0 && whole[ti] && !citusSharded(s, ti) {
				// The row sample is the table: its figures are exact,
				// the database sample's would be estimates.
				w.Warnings = append(w.Warnings, fmt.Errorf("%s: table %s: the row sample read every one of its %d rows, so its exact figures are used, not estimates from the database's TABLESAMPLE SYSTEM (%s%%) (--stats %s)",
					source, ti.Name, ti.SampleRows, fmtPct(pct), o.Stats))
				bar.step()
				continue
			}
			for _, wn := range measureTable(ctx, s, ti, o) {
				w.Warnings = append(w.Warnings, fmt.Errorf("%s: %w", source, wn))
			}
			if statsSample(o.Stats) > 0 {
				floorDistinct(ti, w.Table(ti.Name))
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			bar.step()
		}
		bar.done()
	}
	if ps, ok := s.(*pgSession); ok {
		for _, n := range ps.lateNotes {
			err := fmt.Errorf("%s: %w", source, n)
			w.Warnings = append(w.Warnings, err)
			if o.Notices != nil {
				fmt.Fprintf(o.Notices, "warning: %v\n", err)
			}
		}
	}
	if d != nil {
		cat.Distribution = d
		onWorkers, why := map[string]bool{}, ""
		if ps, ok := s.(*pgSession); ok {
			onWorkers = ps.measuredOnWorkers(cat)
			if ps.citus != nil {
				why = ps.citus.why
			}
		}
		if err := emptyShells(w, cat, d, onWorkers, why); err != nil {
			w.Warnings = append(w.Warnings, fmt.Errorf("%s: %w", source, err))
		}
		for _, wn := range d.Warnings {
			w.Warnings = append(w.Warnings, fmt.Errorf("%s: Citus metadata: %s", source, wn))
		}
		if d.Design != "" {
			w.Warnings = append(w.Warnings, fmt.Errorf("%s: Citus metadata (%s): the design in use is %s, %d shards; score it with -k @from", source, d.System, d.Design, d.Shards))
		} else {
			w.Warnings = append(w.Warnings, fmt.Errorf("%s: Citus metadata (%s): no table of the sampled schema is distributed or a reference table", source, d.System))
		}
	}
	if measure {
		var workers map[string]string
		if ps, ok := s.(*pgSession); ok {
			workers = ps.workerNames()
		}
		if note := measuredNote(cat, o, workers); note != "" {
			w.Warnings = append(w.Warnings, fmt.Errorf("%s: %s", source, note))
		}
	}
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
		if err := sqllog.ReadStatementStats(ctx, w, stmts, dialectOf(s), period, source+": statement statistics", sqllog.Options{Seed: o.Seed}); err != nil {
			w.Warnings = append(w.Warnings, err)
		}
	}
	w.Catalog = cat
	return nil
}

// sampleTable reads t's row sample into a new table: the n rows of lowest
// priority among those the session's sampling method returns (a bottom-n
// reservoir: a uniform sample of them that depends on neither their order
// nor their number), kept in the order the database returned them.
// It returns the sampling method, for the report, and whether the sample
// is every row of the table: read without sampling (the sessions'
// methods say "every row") and every row read kept.
func sampleTable(ctx context.Context, s session, ti *shardkey.TableInfo, o Options) (*shardkey.Table, string, bool, error) {
	t := &shardkey.Table{Name: ti.Name}
	for _, c := range ti.Columns {
		t.Columns = append(t.Columns, &shardkey.Column{Name: c.Name, Type: c.Type})
	}
	r := &reservoir{n: o.SampleRows}
	method, err := s.sample(ctx, ti, o.SampleRows, o.Seed, r.offer)
	if err != nil {
		return nil, "", false, err
	}
	seen := r.seen
	rows := r.sorted()
	for i, row := range rows {
		for j, c := range t.Columns {
			if err := c.Append(row.vals[j]); err != nil {
				return nil, "", false, fmt.Errorf("row %d: %v", i+1, err)
			}
		}
		t.Rows++
	}
	all := strings.HasPrefix(method, "every row") && seen == len(rows)
	if seen > len(rows) {
		method += fmt.Sprintf(", then a seeded reservoir of %d of the %d drawn", len(rows), seen)
	}
	return t, method, all, nil
}

// floorDistinct raises each estimated distinct count of ti's columns
// (--stats db:sample=P%) to the row sample's t: the values the row sample
// holds are in the table, so the table has at least as many (a block
// sample misses values clustered in the blocks it skips, and
// Haas-Stokes is then low). The estimated non-NULL rows stay above it:
// the database sample read at least the row sample's rows
// (sampleTooSmall), and its rows are scaled up from those.
func floorDistinct(ti *shardkey.TableInfo, t *shardkey.Table) {
	if t == nil {
		return
	}
	for _, c := range ti.Columns {
		m, col := c.Measured, t.Column(c.Name)
		if m == nil || m.Sampled == "" || col == nil {
			continue
		}
		seen := map[shardkey.Value]bool{}
		for i := 0; i < t.Rows; i++ {
			if v := col.Value(i); !v.IsNull() {
				seen[v.Canonical()] = true
			}
		}
		if d := int64(len(seen)); d > m.Distinct {
			m.Distinct = d
			m.Sampled += fmt.Sprintf("; distinct values raised to the row sample's %d (a lower bound: those values are in the table)", d)
		}
	}
}

// citusSharded reports whether t is a Citus distributed table whose
// statistics are computed on the workers (its coordinator table an
// empty shell, whose row sample is not the table).
func citusSharded(s session, t *shardkey.TableInfo) bool {
	ps, ok := s.(*pgSession)
	return ok && ps.citus != nil && len(ps.citus.shards[t.Name]) > 0
}

// reservoir keeps the n offered rows of lowest priority (a max-heap on
// priority); memory is n rows.
type reservoir struct {
	n    int
	seen int
	heap []keptRow
}

type keptRow struct {
	prio uint64
	seq  int
	vals []shardkey.Value
}

func (r *reservoir) offer(prio uint64, vals []shardkey.Value) error {
	seq := r.seen
	r.seen++
	if len(r.heap) < r.n {
		r.heap = append(r.heap, keptRow{prio, seq, append([]shardkey.Value(nil), vals...)})
		r.up(len(r.heap) - 1)
		return nil
	}
	top := &r.heap[0]
	if !r.less(keptRow{prio: prio, seq: seq}, *top) {
		return nil
	}
	top.prio, top.seq = prio, seq
	copy(top.vals, vals)
	r.down(0)
	return nil
}

// less orders rows by priority, ties by arrival.
func (r *reservoir) less(a, b keptRow) bool {
	if a.prio != b.prio {
		return a.prio < b.prio
	}
	return a.seq < b.seq
}

func (r *reservoir) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !r.less(r.heap[p], r.heap[i]) {
			return
		}
		r.heap[p], r.heap[i] = r.heap[i], r.heap[p]
		i = p
	}
}

func (r *reservoir) down(i int) {
	for {
		l, big := 2*i+1, i
		if l < len(r.heap) && r.less(r.heap[big], r.heap[l]) {
			big = l
		}
		if l+1 < len(r.heap) && r.less(r.heap[big], r.heap[l+1]) {
			big = l + 1
		}
		if big == i {
			return
		}
		r.heap[i], r.heap[big] = r.heap[big], r.heap[i]
		i = big
	}
}

// sorted returns the kept rows in arrival order.
func (r *reservoir) sorted() []keptRow {
	sort.Slice(r.heap, func(i, j int) bool { return r.heap[i].seq < r.heap[j].seq })
	return r.heap
}

// rowPriority is a row's reservoir priority: a seeded 64-bit mix
// (SplitMix64's finaliser) of its identity.
func rowPriority(seed int64, id uint64) uint64 {
	z := id + uint64(seed)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// cellValue converts one cell in text form.
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

// Redact returns dsn with every secret replaced by xxxxx: the password of
// a URL's user:pass@, the value of any query parameter whose name holds
// "password" (password, sslpassword), and in a key=value connection string
// (host=... password=...) the value of every such key.
func Redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		s := kvSecret.ReplaceAllString(dsn, "${1}xxxxx")
		if err != nil {
			if i := strings.LastIndex(s, "@"); i >= 0 {
				return "xxxxx" + s[i:]
			}
		}
		return s
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			k, _, _ := strings.Cut(p, "=")
			if name, err := url.QueryUnescape(k); err != nil || secretKey(name) {
				parts[i] = k + "=xxxxx"
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	return u.String()
}

// kvSecret finds the value of a password key in a key=value connection
// string: bare, or single-quoted with backslash escapes (libpq's syntax).
var kvSecret = regexp.MustCompile(`(?i)(\b[a-z_]*password\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s]*)`)

// secretKey reports whether a DSN parameter named k holds a secret.
func secretKey(k string) bool { return strings.Contains(strings.ToLower(k), "password") }

// secrets returns the secret values in dsn (as Redact finds them), longest
// first, so that messages quoting them can be cleaned.
func secrets(dsn string) []string {
	var out []string
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" {
		if u.User != nil {
			if p, ok := u.User.Password(); ok {
				out = append(out, p)
			}
		}
		for k, vs := range u.Query() {
			if secretKey(k) {
				out = append(out, vs...)
			}
		}
	} else {
		for _, m := range kvSecret.FindAllStringSubmatch(dsn, -1) {
			out = append(out, strings.Trim(m[2], "'"))
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// redactErr removes the DSN's secrets from an error message.
func redactErr(err error, dsn string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	changed := false
	for _, p := range secrets(dsn) {
		if p != "" && strings.Contains(msg, p) {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
			changed = true
		}
	}
	if !changed {
		return err
	}
	return errors.New(msg)
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteMySQL quotes a MySQL identifier.
func quoteMySQL(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
