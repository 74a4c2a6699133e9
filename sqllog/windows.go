package sqllog

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"time"

	"github.com/shardkey/shardkey"
)

// A Window is the part of a log whose statements carry timestamps in
// [Start, End), read into a workload of its own (see ReadWindows).
type Window struct {
	// Start and End bound the window: End - Start is the window length,
	// and windows are aligned to multiples of it since the Unix epoch (a
	// 10s window starts at :00, :10, ...), as Prometheus and Grafana align
	// steps.
	Start, End time.Time
	// First and Last are the timestamps of the window's first and last
	// statement.
	First, Last time.Time
	// Seconds is the time the workload's rates are per: the window's
	// length, except that the log's first window starts at its first
	// statement and, when the log has ended (Final), its last window ends
	// at its last statement plus the resolution of its timestamps (a
	// statement stamped with the whole second t ran in [t, t+1s); see
	// Resolution), but not past End (both Partial). 0 when the whole log
	// is one instant of a resolution finer than a second: rates are then
	// statement counts (and a warning says so). A later window that holds
	// one instant is not: it starts at Start.
	Seconds float64
	// Partial reports that the log covers only part of the window: it
	// starts inside the log's first window, or ends inside its last one
	// (Final); Seconds is then the part covered, shorter than End -
	// Start, or 0 when that part is too short for a rate (see Covered).
	// False for a log of one instant (Seconds 0).
	Partial bool
	// Covered is the seconds of the window the log covers: Seconds,
	// except in a partial window covering less than MinCovered (or
	// MinCoveredShare of a window under 10 s), whose Seconds is 0: its
	// rates are unknown (the workload says why in a warning), as a log
	// of one instant's are. A rate over so short a part is not
	// supportable: one statement in the last millisecond of a 10 s
	// window is not 1,000 statements/s, and nor is it 0.1/s (the log may
	// be cut there, or be the live end that --follow reads). Its shares
	// and ratios stand.
	Covered float64
	// Resolution is the coarsest resolution of the window's statements'
	// timestamps: 1s for whole seconds (MySQL and MariaDB logs,
	// PostgreSQL's %t), 1ms for PostgreSQL's %m, %n, csvlog and jsonlog.
	Resolution time.Duration
	// Statements is the number of SQL statements read in the window
	// (transaction control and statements on no table included).
	Statements int
	// Final reports whether the log ended in this window.
	Final bool
	// Workload holds the window's operations (rates per second over
	// Seconds) and transactions, exactly as Read makes them from the
	// window's lines alone; its Warnings are the window's.
	Workload *shardkey.Workload
}

// windowStart is the start of the window of length d that holds the
// time us (microseconds since the Unix epoch): the latest multiple of d
// since the epoch not after it, floor(us/d)*d, as Prometheus and Grafana
// align steps. (time.Time.Truncate aligns to multiples of d since the
// zero Time, January 1 of year 1, 719,162 days before the epoch: the
// same windows for a length that divides a day, others for 7s.)
func windowStart(us int64, d time.Duration) time.Time {
	if us > math.MinInt64/1000 && us < math.MaxInt64/1000 {
		ns := us * 1000
		r := ns % int64(d)
		if r < 0 {
			r += int64(d)
		}
		return time.Unix(0, ns-r).UTC()
	}
	// More than 292 years from the epoch: nanoseconds overflow int64.
	n := new(big.Int).Mul(big.NewInt(us), big.NewInt(1000))
	dn := big.NewInt(int64(d))
	q := new(big.Int).Div(n, dn) // Euclidean: the floor, as d > 0
	n.Mul(q, dn)
	sec, nsec := new(big.Int).DivMod(n, big.NewInt(1e9), new(big.Int))
	return time.Unix(sec.Int64(), nsec.Int64()).UTC()
}

// A partial window has rates only when the log covers at least
// MinCovered of it, or MinCoveredShare of it when that is shorter (a
// window under 10 s): below that, Window.Seconds is 0 (rates unknown).
const (
	MinCovered      = time.Second
	MinCoveredShare = 0.1
)

// minCovered is the least part of a window of length d a log must cover
// for a partial window to have rates: MinCovered, or MinCoveredShare of
// d when that is shorter.
func minCovered(d time.Duration) time.Duration {
	return min(MinCovered, time.Duration(MinCoveredShare*float64(d)))
}

// MinWindow is the shortest window ReadWindows accepts.
const MinWindow = time.Millisecond

// ErrNoTimestamps is returned by ReadWindows for a log whose statements
// carry no time (a pg_stat_statements export; a PostgreSQL log whose
// log_line_prefix has no %m, %t or %n).
var ErrNoTimestamps = errors.New("the log's statements carry no timestamps: windows need them (PostgreSQL: %m, %t or %n in log_line_prefix; MySQL general and slow logs have them)")

// ReadWindows reads a log as Read does, cut into windows of length d by
// the statements' own timestamps, and calls fn with each window that has
// statements, in time order, as soon as the log moves past it (or ends).
// Each window's workload is what Read makes of that window's lines alone,
// starting from newW() (a workload with the seed and any tables to share):
// a transaction still open at a window's end is closed there, as the end
// of a log closes it, and the next window reads its later statements on
// their own. Only SQL-level prepared statements (PREPARE, which name a
// statement for the whole session) carry over. A statement whose
// timestamp is earlier than its window's start (log lines of concurrent
// sessions are written slightly out of order) stays in the current
// window; a window only ever ends at a later statement.
//
// Memory is bounded as Read's: by statement shapes and open transactions,
// per window. fn's error stops reading and is returned. A window shorter
// than MinWindow, or than the resolution of the log's first timestamp (1s
// windows at least for a log of whole seconds), is a usage error.
func ReadWindows(ctx context.Context, r io.Reader, name string, o Options, d time.Duration, newW func() *shardkey.Workload, fn func(*Window) error) error {
	return readWindowSources(ctx, name, []source{{name: name, r: r, size: -1}}, nil, o, d, newW, fn, false)
}

// ReadWindowsFile is ReadWindows for a --log value as ReadFile takes it:
// a path, "-" for Options.Stdin, a directory or a glob pattern, whose
// files are one log read in time order (see ordered), decompressed
// whatever their names. A file left out as a copy of another is said in
// the first window's warnings.
func ReadWindowsFile(ctx context.Context, file string, o Options, d time.Duration, newW func() *shardkey.Workload, fn func(*Window) error) error {
	if d < MinWindow {
		return windowTooShort(d)
	}
	name, srcs, warns, err := fileSources(file, o)
	if err != nil {
		return err
	}
	return readWindowSources(ctx, name, srcs, warns, o, d, newW, fn, true)
}

// windowTooShort is the usage error of a window shorter than MinWindow.
func windowTooShort(d time.Duration) error {
	return &shardkey.UsageError{Msg: fmt.Sprintf("window length %v: must be at least %v (log timestamps are at best in microseconds, PostgreSQL's in milliseconds)", d, MinWindow)}
}

// readWindowSources reads the files of one log, in order, as one stream cut
// into windows (ReadWindows); warns go into the first window's warnings.
// decompressed: each file is decompressed as ReadFile's are.
func readWindowSources(ctx context.Context, name string, srcs []source, warns []error, o Options, d time.Duration, newW func() *shardkey.Workload, fn func(*Window) error, decompressed bool) error {
	if d < MinWindow {
		return windowTooShort(d)
	}
	// next opens the next file of the log: its reader and its format.
	var closeCur func()
	defer func() {
		if closeCur != nil {
			closeCur()
		}
	}()
	next := func(s *source) (*bufio.Reader, string, error) {
		if closeCur != nil {
			closeCur()
			closeCur = nil
		}
		raw, err := s.open()
		if err != nil {
			return nil, "", err
		}
		var dec io.Reader = raw
		closeDec := func() {}
		if decompressed {
			if dec, closeDec, err = decompress(bufio.NewReaderSize(raw, 64<<10), s.name); err != nil {
				raw.Close()
				return nil, "", err
			}
		}
		closeCur = func() { closeDec(); raw.Close() }
		br := bufio.NewReaderSize(dec, 1<<20)
		f, err := formatOf(br, s.name, o.Format, compressionOf(dec))
		return br, f, err
	}
	br, format, err := next(&srcs[0])
	dialect := dialectOf(format)
	if err != nil {
		return err
	}
	if format == "pg_stat_statements" {
		return fmt.Errorf("%s: %w", name, ErrNoTimestamps)
	}
	cache := &cache{}
	rs := &readState{file: srcs[0].name, warn: warns}
	var (
		cur      *Window
		a        *agg
		first    = true
		statedTS bool // a statement with a timestamp has been seen
	)
	open := func() {
		nw := newW()
		if nw.Dialect == "" {
			nw.Dialect = dialect.String()
		}
		a = newAgg(nw, name, o)
		a.window = true
		rs.p = newPipeline(ctx, dialect, o.Workers, a, cache)
		rs.entries = 0
	}
	// finish finishes the current window, whose pipeline is closed, and
	// hands it to fn.
	finish := func(a *agg, entries int, final bool) error {
		if cur == nil || entries == 0 {
			return nil
		}
		cur.Final = final
		cur.Statements = entries
		from, to := cur.Start, cur.End
		if first {
			from = cur.First
		}
		if final {
			to = cur.Last.Add(cur.Resolution)
			if to.After(cur.End) {
				to = cur.End
			}
			if first && cur.Last.Equal(cur.First) && cur.Resolution < time.Second {
				// The whole log is one instant: no span (logSpan). A
				// later window has a known start, its own: its span
				// runs from there to the log's last timestamp plus
				// the resolution.
				to = from
			}
		}
		cur.Seconds = to.Sub(from).Seconds()
		if cur.Seconds <= 0 {
			cur.Seconds = 0
		}
		// A log of one instant is that, not partial: it has no span.
		cur.Partial = cur.Seconds > 0 && (from.After(cur.Start) || to.Before(cur.End))
		cur.Covered = cur.Seconds
		if d := cur.End.Sub(cur.Start); cur.Partial && to.Sub(from) < minCovered(d) {
			a.short, a.length, a.minimum = cur.Seconds, d.Seconds(), minCovered(d).Seconds()
			cur.Seconds = 0
		}
		a.seconds = cur.Seconds
		for _, wn := range rs.warn {
			a.warn(wn)
		}
		rs.warn = nil
		if err := rs.clock.warning(); err != nil {
			a.warn(err)
		}
		for _, wn := range rs.cuts.warnings(name) {
			a.warn(wn)
		}
		rs.cuts = listCuts{}
		a.midLog = !final
		if err := a.finish(); err != nil {
			return err
		}
		cur.Workload = a.w
		first = false
		return fn(cur)
	}
	rs.cut = func(e *entry) error {
		if e.sql == "" {
			return nil
		}
		if !e.hasTS {
			return nil
		}
		statedTS = true
		t := time.UnixMicro(e.ts).UTC()
		res := time.Duration(e.res) * time.Microsecond
		if cur == nil && d < res {
			return &shardkey.UsageError{Msg: fmt.Sprintf("window length %v is shorter than the resolution of the log's timestamps (%v): most windows would be empty and the rest hold a whole %v; use a window of at least %v", d, res, res, res)}
		}
		if cur != nil && e.ts < cur.End.UnixMicro() {
			if t.After(cur.Last) {
				cur.Last = t
			}
			cur.Resolution = max(cur.Resolution, res)
			return nil
		}
		if cur != nil {
			if err := rs.flush(); err != nil {
				return err
			}
			if err := rs.p.close(); err != nil {
				return err
			}
			done, entries := a, rs.entries
			open() // before fn runs: readBody closes rs.p whatever fn returns
			if err := finish(done, entries, false); err != nil {
				return err
			}
		}
		start := windowStart(e.ts, d)
		cur = &Window{Start: start, End: start.Add(d), First: t, Last: t, Resolution: res}
		return nil
	}
	open()
	// The files of a rotated set are one stream: sessions, transactions
	// and windows go on from one file to the next.
	for i := 1; i < len(srcs); i++ {
		if err := readFormat(format, br, rs); err != nil {
			rs.p.close()
			return err
		}
		s := &srcs[i]
		var f string
		if br, f, err = next(s); err == nil && f != format {
			err = shardkey.Errorf(s.name, 1, "", "a %s log, but %s is a %s log: one --log reads one log (give a pattern that names one format, e.g. '*.csv')", f, srcs[0].name, format)
		}
		if err != nil {
			rs.p.close()
			return err
		}
		rs.file, rs.line = s.name, 0
	}
	if err := readBody(br, format, rs); err != nil {
		return err
	}
	if !statedTS {
		if rs.entries == 0 {
			return shardkey.Errorf(name, rs.line, "", "no statements found in this %s log (PostgreSQL needs log_statement = 'all' or log_min_duration_statement = 0; MySQL the general or slow log with long_query_time = 0)", format)
		}
		return fmt.Errorf("%s: %w", name, ErrNoTimestamps)
	}
	// readBody closed the last window's pipeline.
	return finish(a, rs.entries, true)
}
