package sqllog

import (
	"context"
	"fmt"
	"math"

	"github.com/shardkey/shardkey"
)

// StatementStat is one entry of a server's statement statistics
// (PostgreSQL's pg_stat_statements, MySQL's and MariaDB's
// performance_schema.events_statements_summary_by_digest): a normalised
// statement, its constants replaced by placeholders ($1 or ?), and the
// number of times it ran.
type StatementStat struct {
	Text  string
	Calls float64
}

// ReadStatementStats adds statement statistics to w as a
// pg_stat_statements export is read (ReadFile): each statement parsed by
// d's parser (joins, subqueries, unions and all), grouped into operations
// by shape, transactions of one statement, placeholders bound to values
// drawn from the table's row sample (seeded by w.Seed), so accesses spread
// like the rows. Rates are Calls/period, period being the seconds the
// counts span (0: the rates are the call counts). Statements on tables
// that w does not hold (catalogs, other schemas, tables not sampled) are
// skipped: the statistics cover the whole server. source names the
// statistics in messages and warnings; unparsable statements (a digest cut
// short by the server, say) become warnings.
func ReadStatementStats(ctx context.Context, w *shardkey.Workload, stats []StatementStat, d Dialect, period float64, source string, o Options) error {
	if period < 0 || math.IsNaN(period) || math.IsInf(period, 0) {
		return fmt.Errorf("%s: statistics period %v: want seconds >= 0", source, period)
	}
	if w.Dialect == "" {
		w.Dialect = d.String()
	}
	a := newAgg(w, source, o)
	a.weighted, a.period, a.knownOnly = true, period, true
	p := newPipeline(ctx, d, o.Workers, a, nil)
	rs := &readState{file: source, p: p}
	var rerr error
	for i, st := range stats {
		if st.Calls <= 0 || math.IsNaN(st.Calls) || math.IsInf(st.Calls, 0) || st.Text == "" {
			continue
		}
		if rerr = rs.emit(entry{line: i + 1, session: fmt.Sprint("stmt", i), sql: st.Text, weight: st.Calls}); rerr != nil {
			break
		}
	}
	if rerr == nil {
		rerr = rs.flush()
	}
	perr := p.close()
	if rerr != nil {
		return rerr
	}
	if perr != nil {
		return perr
	}
	for _, wn := range rs.warnings() {
		a.warn(wn)
	}
	return a.finish()
}
