package sqllog

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/progress"
)

// Options control log reading.
type Options struct {
	// Format is the log format (see Formats), or "" to detect it.
	Format string
	// Types fixes column types by name or table.column.
	Types map[string]shardkey.Type
	// Sample is the number of instances kept per statement shape and per
	// transaction shape (a seeded reservoir sample); 0 means 4096.
	Sample int
	// Workers is the number of goroutines parsing SQL; 0 means GOMAXPROCS.
	Workers int
	// Seed seeds the reservoir samples and the values drawn for
	// placeholders; 0 means the workload's Seed.
	Seed int64
	// MaxInstances bounds the operation instances kept over all
	// operation shapes, MaxTxnStatements the statements kept in
	// transaction samples over all transaction shapes (see bound.go);
	// 0 means 262144 and 131072.
	MaxInstances, MaxTxnStatements int
	// MaxCountedValues bounds the distinct values the key statistics'
	// counts hold exactly over all columns (traffic.go); 0 means 262144.
	MaxCountedValues int
	// IdleTimeout closes the open transaction of a session idle this
	// long (log time); 0 means 8 hours, negative never.
	IdleTimeout time.Duration
	// Stdin is the log ReadFile reads for the name "-"; nil means os.Stdin.
	Stdin io.Reader
	// Progress, when set, receives a progress bar (bytes, rate, time
	// left) once a read takes more than a second; nil draws none.
	Progress io.Writer
}

// Formats lists the values of Options.Format (and --log-format).
var Formats = []string{"stderr", "csvlog", "jsonlog", "pg_stat_statements", "mysql-general", "mysql-slow"}

var formatAliases = map[string]string{
	"stderr": "stderr", "postgresql": "stderr", "postgres": "stderr", "pg": "stderr",
	"csvlog": "csvlog", "csv": "csvlog",
	"jsonlog": "jsonlog", "json": "jsonlog",
	"pg_stat_statements": "pg_stat_statements", "pgss": "pg_stat_statements",
	"mysql-general": "mysql-general", "general": "mysql-general", "mariadb-general": "mysql-general",
	"mysql-slow": "mysql-slow", "slow": "mysql-slow", "mariadb-slow": "mysql-slow",
}

// ReadFile adds the statements of one log to w: tables and columns it
// names (created when absent), operations with rates, transactions by
// session. Problems that do not stop reading (unparsable statements,
// skipped lines) are appended to w.Warnings. Errors name the file and line.
//
// A regular file that ends before the size it had when opened (truncated
// or rotated while read) is an error, not a partial result.
// file is a path, "-" for Options.Stdin, a directory, or a glob pattern
// (*, ?, [...]): the files of a directory or pattern are one log (a
// rotated set), read in time order (see ordered), sessions and
// transactions continuing from file to file. Files compressed with gzip or
// zstd are decompressed, whatever their names.
func ReadFile(ctx context.Context, w *shardkey.Workload, file string, o Options) error {
	name, srcs, warns, err := fileSources(file, o)
	if err != nil {
		return err
	}
	w.Warnings = append(w.Warnings, warns...)
	return readSources(ctx, w, name, srcs, o)
}

// fileSources opens a --log value (ReadFile's file) as the sources of one
// log in time order, with the name its messages use (StdinName for "-")
// and the warnings of files left out (ordered).
func fileSources(file string, o Options) (string, []source, []error, error) {
	srcs, err := sources(file, o.Stdin)
	if err != nil {
		return "", nil, nil, err
	}
	srcs, warns, err := ordered(srcs, o)
	if err != nil {
		return "", nil, nil, err
	}
	if file == "-" {
		file = StdinName
	}
	return file, srcs, warns, nil
}

// Read is ReadFile for an open reader (plain or compressed); name is used
// in messages.
//
// Bounds: a line of at most shardkey.MaxLineBytes, a CSV record (csvlog,
// pg_stat_statements) of at most shardkey.MaxRecordBytes; past either the
// read stops with an error naming the file and line.
func Read(ctx context.Context, w *shardkey.Workload, r io.Reader, name string, o Options) error {
	return readSources(ctx, w, name, []source{{name: name, r: r, size: -1}}, o)
}

// testHookOpened, when set, is called after a file of a log has been
// opened and measured (tests truncate it there).
var testHookOpened func(file string)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += int64(k)
	return k, err
}

// readSources reads the files of one log, in order, as one stream.
func readSources(ctx context.Context, w *shardkey.Workload, name string, srcs []source, o Options) (err error) {
	total := int64(0)
	for _, s := range srcs {
		if s.size < 0 {
			total = -1
			break
		}
		total += s.size
	}
	bar := progress.Bytes(o.Progress, total, "reading "+name)
	defer bar.Finish()
	var (
		format string
		a      *agg
		p      *pipeline
		rs     *readState
	)
	defer func() {
		if p != nil {
			if perr := p.close(); err == nil {
				err = perr
			}
		}
	}()
	for i := range srcs {
		s := &srcs[i]
		raw, err := s.open()
		if err != nil {
			return err
		}
		if testHookOpened != nil {
			testHookOpened(s.name)
		}
		rerr := func() error {
			defer raw.Close()
			cr := &countingReader{r: raw}
			dec, closeDec, err := decompress(bufio.NewReaderSize(bar.Reader(cr), 64<<10), s.name)
			if err != nil {
				return err
			}
			defer closeDec()
			bound := &shardkey.BoundedReader{R: dec, File: s.name, What: "log", MaxLine: shardkey.MaxLineBytes}
			br := bufio.NewReaderSize(bound, 1<<20)
			f, err := formatOf(br, s.name, o.Format, compressionOf(dec))
			if err != nil {
				return err
			}
			if f == "csvlog" || f == "pg_stat_statements" {
				bound.ResetRecord()
				bound.MaxRecord = shardkey.MaxRecordBytes
			}
			if p == nil {
				format = f
				if w.Dialect == "" {
					w.Dialect = dialectOf(format).String()
				}
				a = newAgg(w, name, o)
				a.weighted = format == "pg_stat_statements"
				p = newPipeline(ctx, dialectOf(format), o.Workers, a, nil)
				rs = &readState{p: p}
			} else if f != format {
				return shardkey.Errorf(s.name, 1, "", "a %s log, but %s is a %s log: one --log reads one log (give a pattern that names one format, e.g. '*.csv')", f, srcs[0].name, format)
			}
			rs.file, rs.line, rs.bound = s.name, 0, bound
			if err := readFormat(format, br, rs); err != nil {
				return err
			}
			// A regular file that ends before the size it had when
			// opened was truncated or rotated while read: an error, not
			// a partial result.
			if _, err := io.Copy(io.Discard, br); err != nil {
				return err
			}
			if s.size >= 0 && cr.n < s.size {
				return shardkey.Errorf(s.name, 0, "", "the file changed (was truncated?) while it was being read: %d of its %d bytes read; read it again", cr.n, s.size)
			}
			return nil
		}()
		if rerr != nil {
			return rerr
		}
	}
	if err := rs.flush(); err != nil {
		return err
	}
	perr := p.close()
	p = nil
	if perr != nil {
		return perr
	}
	if testHookDrained != nil {
		testHookDrained()
	}
	if rs.entries == 0 {
		return shardkey.Errorf(rs.file, rs.line, "", "no statements found in this %s log (PostgreSQL needs log_statement = 'all' or log_min_duration_statement = 0; MySQL the general or slow log with long_query_time = 0)", format)
	}
	if err := a.noneParsed(dialectOf(format)); err != nil {
		return err
	}
	for _, wn := range rs.warnings() {
		a.warn(wn)
	}
	if line, msg := rs.prep.unknownWarning(); msg != "" {
		a.warn(shardkey.Errorf(rs.file, line, "", "%s", msg))
	}
	return a.finish()
}

// dialectOf returns the SQL dialect of a log format.
func dialectOf(format string) Dialect {
	if strings.HasPrefix(format, "mysql") {
		return MySQL
	}
	return Postgres
}

// readBody reads br in format into rs's pipeline and closes the pipeline.
func readBody(br *bufio.Reader, format string, rs *readState) error {
	rerr := readFormat(format, br, rs)
	if rerr == nil {
		rerr = rs.flush()
	}
	perr := rs.p.close()
	if rerr != nil {
		return rerr
	}
	return perr
}

// detect names the format of a log from its first bytes, or "".
func detect(head []byte) string {
	lines := bytes.Split(head, []byte("\n"))
	if len(lines) > 1 {
		lines = lines[:len(lines)-1] // the last may be cut
	}
	first := ""
	for _, l := range lines {
		if s := strings.TrimSpace(string(l)); s != "" {
			first = s
			break
		}
	}
	if first == "" {
		return ""
	}
	if strings.HasPrefix(first, "{") && strings.Contains(first, `"error_severity"`) {
		return "jsonlog"
	}
	for _, l := range lines {
		s := string(l)
		if strings.HasPrefix(s, "# User@Host:") || strings.HasPrefix(s, "# Query_time:") || strings.HasPrefix(s, "# Time:") {
			return "mysql-slow"
		}
	}
	if strings.Contains(first, ", Version: ") || strings.HasPrefix(first, "Time ") {
		return "mysql-general"
	}
	for _, l := range lines {
		if _, ok := parseGeneralHead(l); ok {
			return "mysql-general"
		}
	}
	if hdr := splitCSVHeader(first); hdr["query"] && hdr["calls"] {
		return "pg_stat_statements"
	}
	if isDigit(first[0]) && csvLevel(first) {
		return "csvlog"
	}
	for _, l := range lines {
		if _, _, ok := pgLevel(l); ok {
			return "stderr"
		}
	}
	return ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func splitCSVHeader(s string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		m[strings.ToLower(strings.Trim(strings.TrimSpace(f), `"`))] = true
	}
	return m
}

// entry is one statement (or session event) read from a log.
type entry struct {
	file      string // the file of a rotated set it is in
	line      int
	ts        int64 // microseconds since the epoch
	hasTS     bool
	res       int32 // ts's resolution in microseconds (1e6: whole seconds; see tsRes)
	session   string
	sql       string
	params    string // PostgreSQL "parameters: ..." detail
	hasParams bool
	prepare   string  // PostgreSQL "prepare: PREPARE ..." detail of an EXECUTE
	weight    float64 // pg_stat_statements calls; 0 means 1
	end       bool    // the session ended
}

// readState is what format readers share: the pipeline to feed and
// warnings about skipped lines.
type readState struct {
	file  string
	p     *pipeline
	batch []entry
	// batchText is the bytes of statement text in batch.
	batchText int
	line      int
	entries   int
	warn      []error
	skipped   int
	// moreLine is the line of the first skipped line not listed (the
	// sixth), 0 for none.
	moreLine int
	prep     *prepared // SQL-level prepared statements by session (prepare.go)
	cuts     listCuts  // statements whose long IN lists were cut (longlist.go)
	clock    clock     // timestamps going backwards (clock.go)
	bound    *shardkey.BoundedReader
	// cut, when set, sees every entry before it is queued (windows.go).
	cut  func(e *entry) error
	cutE entry // the entry cut sees
	// text holds the statements' text the reader hands on (arena.go).
	text textArena
	// probe: only find the first timestamp (firstTime), then stop.
	probe    bool
	firstTS  int64
	hasFirst bool
}

// A batch of entries is handed to the parsers at batchSize entries or
// once its statements' text passes batchBytes, so that the batches in
// flight (4 per worker and 7 more) hold a few MB each whatever the
// statements' length: a batch of 512 statements with IN lists cut to
// MaxListValues values holds 20 MB of text and 2 million bound values
// (TestLongInList_ManyBounded: 560 MB of live heap, 72 MB at 256 kB).
// A batch of 512 statements of a TPC-C client is under 256 kB.
const (
	batchSize  = 512
	batchBytes = 256 << 10
)

// OwnMark is the comment package livedb puts in every statement it sends
// (shardkey --from): a log captured while or after shardkey read the
// database holds them, and they are not the workload.
const OwnMark = "/* shardkey livedb */"

func (rs *readState) emit(e entry) error {
	if rs.probe {
		if e.hasTS {
			rs.firstTS, rs.hasFirst = e.ts, true
			return errProbeDone
		}
		return nil
	}
	if !e.end && strings.Contains(e.sql, OwnMark) {
		return nil
	}
	e.file = rs.file
	if rs.p.dialect == Postgres {
		if rs.prep == nil {
			rs.prep = &prepared{}
		}
		e = rs.prep.rewrite(e)
	}
	if rs.cut != nil {
		// Through rs.cutE, so that e does not escape to the heap.
		rs.cutE = e
		err := rs.cut(&rs.cutE)
		e, rs.cutE = rs.cutE, entry{}
		if err != nil {
			return err
		}
	}
	rs.clock.see(&e) // after cut: a window's warning counts its own statements
	// After cut: a statement opening a window (watch) is noted in it.
	if sql, lists, longest := cutLists(e.sql, rs.p.dialect, MaxListValues); lists > 0 {
		rs.cuts.note(e.file, e.line, sql, rs.p.dialect, lists, longest)
		e.sql = sql
	}
	if e.sql != "" {
		rs.entries++
	}
	if rs.batch == nil {
		rs.batch = rs.p.entries()
	}
	rs.batch = append(rs.batch, e)
	rs.batchText += len(e.sql) + len(e.params)
	if len(rs.batch) >= batchSize || rs.batchText >= batchBytes {
		return rs.flush()
	}
	return nil
}

func (rs *readState) flush() error {
	if len(rs.batch) == 0 {
		return nil
	}
	err := rs.p.send(rs.batch)
	rs.batch = rs.p.entries()
	rs.batchText = 0
	return err
}

// cutShort warns that the statement starting at line is left out: the
// log's last line, which it reaches, has no newline after it. A server
// ends every line it writes with one, so the statement may be cut short
// (a file copied while it was being written: "... FROM i" would read as
// a table i); csvlog and jsonlog records are left out alike.
func (rs *readState) cutShort(line int) {
	rs.warn = append(rs.warn, shardkey.Errorf(rs.file, line, "", "the log ends inside this statement (no newline after its last line; a file copied while it was being written?): the statement is left out"))
}

// skip records a line the reader could not use. The first few are
// listed in a warning; the rest are counted.
func (rs *readState) skip(line int, format string, args ...any) {
	rs.skipped++
	if rs.skipped <= 5 {
		rs.warn = append(rs.warn, shardkey.Errorf(rs.file, line, "", format, args...))
	} else if rs.skipped == 6 {
		rs.moreLine = line
	}
}

// warnings returns the reader's warnings, with, when more than five lines
// were skipped, how many more were (from the sixth's line on), and
// one for each shape of statement whose IN lists were cut (longlist.go).
func (rs *readState) warnings() []error {
	out := rs.warn
	if err := rs.clock.warning(); err != nil {
		out = append(out, err)
	}
	if rs.moreLine != 0 {
		out = append(out, shardkey.Errorf(rs.file, rs.moreLine, "", "%d more lines skipped from here on, like those above (%d skipped in all)", rs.skipped-5, rs.skipped))
	}
	return append(out, rs.cuts.warnings(rs.file)...)
}

// lineReader returns lines without their newline; the slice is valid until
// the next call. Lines longer than the buffer are assembled.
type lineReader struct {
	r    *bufio.Reader
	n    int
	long []byte
	// noNL: the line returned last ends the input without a newline
	// (its last line, perhaps cut short).
	noNL bool
}

func (lr *lineReader) next() ([]byte, bool, error) {
	if cap(lr.long) > 4<<20 {
		lr.long = nil // a rare long line: its buffer is not kept for the rest of the log
	}
	b, err := lr.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		lr.long = append(lr.long[:0], b...)
		for err == bufio.ErrBufferFull {
			b, err = lr.r.ReadSlice('\n')
			lr.long = append(lr.long, b...)
			if len(lr.long) > 256<<20 {
				return nil, false, fmt.Errorf("line %d longer than 256 MiB", lr.n+1)
			}
		}
		b = lr.long
	}
	if len(b) == 0 && err != nil {
		if err == io.EOF {
			return nil, false, nil
		}
		return nil, false, err
	}
	if err != nil && err != io.EOF {
		return nil, false, err
	}
	lr.n++
	lr.noNL = len(b) == 0 || b[len(b)-1] != '\n'
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	return b, true, nil
}

// ---- the pipeline: one reader, parser workers, one aggregator ----

// pipeline parses batches of entries on several goroutines and hands the
// results to the aggregator in log order, so per-session order (and with
// it transactions) and the seeded samples do not depend on scheduling.
type pipeline struct {
	ctx     context.Context
	work    chan *job
	order   chan *job
	done    chan error
	cache   *cache
	free    chan *batchMem // batches' memory for reuse
	freeE   chan []entry   // batches' entries for reuse
	dialect Dialect
	closed  bool
	err     error
	// counted carries aggregated batches to the counting goroutine
	// (countLoop), which counts their values (traffic.go) and then
	// releases them.
	counted chan *job
}

type job struct {
	entries []entry
	results []result
	mem     *batchMem
	ready   chan struct{}
}

// result is a parsed entry: its template's parts, each with its values.
// A lazy part has no values yet: slots and params keep what binds them.
type result struct {
	t             *template
	vals          [][][]rv // by part, by access
	slots, params []lit
}

// newPipeline starts a pipeline feeding a; c is the template cache to
// share (nil: a new one).
func newPipeline(ctx context.Context, d Dialect, workers int, a *agg, c *cache) *pipeline {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if c == nil {
		c = &cache{}
	}
	// Batches in flight: those queued in order, the one being
	// aggregated and the one being filled. The pools of their memory hold
	// as many, so that in the steady state every batch reuses one (with
	// workers+1, most batches allocated theirs afresh: 200 MB per 100 MB
	// of log).
	// The aggregator hands each batch on to a goroutine that counts its
	// values (traffic.go): the counts are most of the aggregator's work
	// on a log whose tables have no row sample, and they need nothing
	// else of it but the batch's values, in log order.
	const counting = 4
	inFlight := workers*4 + 2 + counting + 1
	p := &pipeline{ctx: ctx, work: make(chan *job, workers*2), order: make(chan *job, workers*4), done: make(chan error, 1), cache: c, dialect: d, free: make(chan *batchMem, inFlight), freeE: make(chan []entry, inFlight), counted: make(chan *job, counting)}
	for range workers {
		go p.worker()
	}
	a.asyncCounts = true
	var aggErr error
	go func() {
		for j := range p.order {
			<-j.ready
			if aggErr == nil {
				aggErr = a.add(j.entries, j.results)
			}
			// The batch's memory takes the values to count with it
			// and gives its last batch's (counted) buffer back.
			j.mem.counts, a.pending = a.pending, j.mem.counts[:0]
			p.counted <- j
		}
		close(p.counted)
	}()
	go func() {
		for j := range p.counted {
			for i := range j.mem.counts {
				a.countValues(&j.mem.counts[i])
			}
			clear(j.mem.counts) // drop the values' references
			p.release(j)
		}
		// The aggregator is done (it closed p.counted after its last
		// write of aggErr).
		for len(p.free) > 0 { // the workers are done: let it go
			<-p.free
		}
		for len(p.freeE) > 0 {
			<-p.freeE
		}
		p.done <- aggErr
	}()
	return p
}

func (p *pipeline) worker() {
	var buf []byte
	var fx fastIndex
	for j := range p.work {
		m := p.mem(len(j.entries))
		j.mem = m
		j.results = m.results
		for i := range j.entries {
			e := &j.entries[i]
			if e.sql == "" {
				continue
			}
			var t *template
			var slots []lit
			t, slots, buf = p.cache.analyze(e.sql, p.dialect, buf, &m.ls, &fx)
			if testHookAnalyze != nil {
				testHookAnalyze(p.cache, e.sql, p.dialect)
			}
			r := result{t: t}
			if t.err == nil {
				var params []lit
				if e.hasParams {
					params, _ = pgParams(e.params)
				}
				r.vals = m.sl.parts(len(t.parts))
				for k := range t.parts {
					switch {
					case t.parts[k].ctl != ctlDML:
						r.vals[k] = nil
					case t.parts[k].lazy:
						r.vals[k] = nil
						// Bound by the aggregator once it has resolved
						// the part's columns against the workload.
						r.slots, r.params = slots, params
					default:
						r.vals[k] = t.parts[k].bindInto(m.sl.accs(len(t.parts[k].acc)), slots, params, &m.rvs)
					}
				}
			}
			j.results[i] = r
		}
		close(j.ready)
	}
}

// testHookAnalyze, when set (by tests), sees every statement a worker
// analyzed, with the worker's cache; it may be called concurrently.
var testHookAnalyze func(c *cache, sql string, d Dialect)

// batchMem is the memory a batch's parsing takes from (results, slice
// headers, literals, bound values), handed back to the pipeline once the
// aggregator has added the batch and reused for a later one: nothing the
// aggregator keeps points into it (reservoirs keep detached copies,
// limits.detach; an open transaction copies its values into its
// session's own buffer, agg.part).
type batchMem struct {
	results []result
	sl      slabs
	ls      litSlab
	rvs     chunks[rv]
	// counts are the instances whose values the counting goroutine
	// counts once the batch is aggregated (agg.count).
	counts []countRec
}

// mem returns a batch's memory for n entries, a recycled one when there
// is one.
func (p *pipeline) mem(n int) *batchMem {
	var m *batchMem
	select {
	case m = <-p.free:
		m.sl.p.reset()
		m.sl.a.reset()
		m.ls.reset()
		m.rvs.reset()
	default:
		m = &batchMem{}
	}
	if cap(m.results) < n {
		m.results = make([]result, n)
	} else {
		m.results = m.results[:n] // zero: release cleared them
	}
	return m
}

// release hands a batch's memory back for reuse once it is aggregated.
// Its results and entries are cleared and its slabs scrubbed first: kept
// for a later batch, they hold no value older than this batch's (whose
// statements' text, textArena, they keep alive until reused).
func (p *pipeline) release(j *job) {
	if j.mem != nil {
		clear(j.mem.results)
		j.mem.sl.p.scrub()
		j.mem.sl.a.scrub()
		j.mem.rvs.scrub()
		j.mem.ls.scrub()
		select {
		case p.free <- j.mem:
		default:
		}
	}
	clear(j.entries)
	select {
	case p.freeE <- j.entries[:0]:
	default:
	}
	j.mem, j.results, j.entries = nil, nil, nil
}

// entries returns an empty batch of entries, a recycled one when there is
// one.
func (p *pipeline) entries() []entry {
	select {
	case b := <-p.freeE:
		return b
	default:
		return make([]entry, 0, batchSize)
	}
}

// slabs hands out the slice headers of one batch's results from a few
// large allocations instead of two per statement.
type slabs struct {
	p chunks[[][]rv]
	a chunks[[]rv]
}

// parts and accs return n elements that may hold an earlier batch's
// values: the worker sets every one (a part's, nil for one it does not
// bind; bindInto each access's).
func (s *slabs) parts(n int) [][][]rv { return s.p.takeDirty(n, 256) }

func (s *slabs) accs(n int) [][]rv { return s.a.takeDirty(n, 512) }

// chunks hands out slices from a list of large arrays, kept for reuse
// by a later batch after reset. What a batch wrote stays until the batch
// is released, when scrub zeroes what an earlier batch wrote and this one
// did not overwrite: the memory then holds no value older than its last
// batch (whose statements' text it keeps alive until it is reused,
// bounded by the batches in flight), at the cost of zeroing only the
// difference, not every chunk.
type chunks[T any] struct {
	// list holds the chunks, each sliced to the elements this use took
	// (its cap the chunk's size).
	list [][]T
	// dirty[k]: the elements of list[k] from dirty[k] on are zero.
	dirty []int
	i     int // the chunk being handed out
}

// take returns n zeroed elements (len n, cap n); a new chunk holds at
// least minChunk elements.
func (c *chunks[T]) take(n, minChunk int) []T {
	out, old := c.grab(n, minChunk)
	clear(out[:min(n, max(old, 0))])
	return out
}

// takeDirty is take without zeroing: the elements may hold what an
// earlier batch left, for a caller that overwrites every one of them
// (appending to out[:0]).
func (c *chunks[T]) takeDirty(n, minChunk int) []T {
	out, _ := c.grab(n, minChunk)
	return out
}

// grab returns the next n elements of the chunks and how many of them,
// from the first, may hold what an earlier use wrote (the rest are zero).
func (c *chunks[T]) grab(n, minChunk int) ([]T, int) {
	for len(c.list) == 0 || cap(c.list[c.i])-len(c.list[c.i]) < n {
		if c.i+1 < len(c.list) && cap(c.list[c.i+1]) >= n {
			c.i++
			continue
		}
		ch := make([]T, 0, max(n, minChunk))
		if len(c.list) == 0 {
			c.list, c.dirty, c.i = append(c.list, ch), append(c.dirty, 0), 0
			continue
		}
		// Insert after the current chunk, so that reset reuses it.
		c.list = slices.Insert(c.list, c.i+1, ch)
		c.dirty = slices.Insert(c.dirty, c.i+1, 0)
		c.i++
	}
	ch := c.list[c.i]
	m, d := len(ch), c.dirty[c.i]
	c.list[c.i] = ch[:m+n]
	c.dirty[c.i] = max(d, m+n)
	return ch[m : m+n : m+n], d - m
}

// scrub zeroes the elements an earlier use wrote and this one did not
// take.
func (c *chunks[T]) scrub() {
	for k, ch := range c.list {
		if d := c.dirty[k]; d > len(ch) {
			clear(ch[len(ch):d])
			c.dirty[k] = len(ch)
		}
	}
}

// reset makes the chunks the last use took free for reuse and drops the
// rest (so that what is kept follows the recent batches, not the largest
// ever seen).
func (c *chunks[T]) reset() {
	if len(c.list) > 0 {
		clear(c.list[c.i+1:])
		c.list, c.dirty = c.list[:c.i+1], c.dirty[:c.i+1]
	}
	for k := range c.list {
		c.list[k] = c.list[k][:0]
	}
	c.i = 0
}

func (p *pipeline) send(entries []entry) error {
	if err := p.ctx.Err(); err != nil {
		return err
	}
	j := &job{entries: entries, ready: make(chan struct{})}
	p.order <- j
	p.work <- j
	return nil
}

// close waits for the queued batches and returns the aggregator's error.
// Closing twice returns the first close's result.
func (p *pipeline) close() error {
	if p.closed {
		return p.err
	}
	p.closed = true
	close(p.work)
	close(p.order)
	p.err = <-p.done
	return p.err
}
