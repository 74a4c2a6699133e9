package livedb

import (
	"context"
	"fmt"
	"time"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sqllog"
)

// Poller reads a database's statement statistics (pg_stat_statements;
// MySQL's performance_schema digests) again and again and turns the calls
// made between two polls into a workload: the live form of a query log's
// window, for shardkey watch --from. Each poll opens its own read-only
// session with a statement timeout and closes it, so no transaction stays
// open between polls. It is not safe for concurrent use.
type Poller struct {
	dsn    string
	o      Options
	tables []*shardkey.Table
	seed   int64
	prev   map[string]float64
	prevAt time.Time
	n      int64 // polls taken: each draws its parameters with seed + n
	// dialect is the server's SQL dialect, from the first reading.
	dialect sqllog.Dialect
}

// NewPoller returns a Poller of dsn whose windows share base's tables (a
// workload Read with NoStatements: catalog and row samples, which draw
// the statements' parameters), and takes the first reading: the baseline
// the first window is counted from.
func NewPoller(ctx context.Context, base *shardkey.Workload, dsn string, o Options) (*Poller, error) {
	if o.StatementTimeout <= 0 {
		o.StatementTimeout = DefaultStatementTimeout
	}
	p := &Poller{dsn: dsn, o: o, tables: base.Tables, seed: base.Seed}
	stmts, at, err := p.read(ctx)
	if err != nil {
		return nil, err
	}
	if stmts == nil {
		return nil, fmt.Errorf("%s: no statement statistics (PostgreSQL: CREATE EXTENSION pg_stat_statements, with pg_stat_statements in shared_preload_libraries; MySQL: performance_schema = ON)", Redact(dsn))
	}
	p.prev, p.prevAt = calls(stmts), at
	return p, nil
}

// read takes one reading in a session of its own.
func (p *Poller) read(ctx context.Context) ([]statement, time.Time, error) {
	s, err := open(ctx, p.dsn, p.o)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer s.close()
	p.dialect = dialectOf(s)
	at := time.Now()
	stmts, _, err := s.statements(ctx)
	if err != nil {
		return nil, at, fmt.Errorf("%s: statement statistics: %w", Redact(p.dsn), err)
	}
	return stmts, at, nil
}

func calls(stmts []statement) map[string]float64 {
	m := make(map[string]float64, len(stmts))
	for _, st := range stmts {
		m[st.Text] += st.Calls
	}
	return m
}

// Poll takes a reading and returns the workload of the calls made since
// the previous one, with rates per second over the time between the two
// readings ([start, end)). A statement's calls are the difference of its
// counts; a count that went down (the statistics were reset, or the entry
// was evicted and came back) counts from zero, with a warning. Statements
// are turned into operations as Read turns them (sqllog.ReadStatementStats).
func (p *Poller) Poll(ctx context.Context) (w *shardkey.Workload, start, end time.Time, err error) {
	stmts, at, err := p.read(ctx)
	if err != nil {
		return nil, time.Time{}, time.Time{}, err
	}
	start, end = p.prevAt, at
	secs := end.Sub(start).Seconds()
	w = &shardkey.Workload{Tables: p.tables, Seed: p.seed}
	p.n++
	cur := calls(stmts)
	reset := 0
	var deltas []statement
	for _, st := range stmts {
		if _, dup := cur[st.Text]; !dup {
			continue // a second row of the same text: counted once, below
		}
		n := cur[st.Text]
		delete(cur, st.Text) // keep the first occurrence's order
		d := n - p.prev[st.Text]
		if d < 0 {
			d = n
			reset++
		}
		if d > 0 {
			deltas = append(deltas, statement{Text: st.Text, Calls: d})
		}
	}
	if err := sqllog.ReadStatementStats(ctx, w, deltas, p.dialect, secs, Redact(p.dsn)+": statement statistics", sqllog.Options{Seed: p.seed + p.n}); err != nil {
		w.Warnings = append(w.Warnings, err)
	}
	if reset > 0 {
		w.Warnings = append(w.Warnings, fmt.Errorf("%s: %d statement count(s) went down since the last poll (statistics reset or entries evicted): counted from zero", Redact(p.dsn), reset))
	}
	p.prev, p.prevAt = calls(stmts), at
	return w, start, end, nil
}
