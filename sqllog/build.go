package sqllog

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
)

var (
	errNoGeneral = errors.New("no general log entries found (want lines as MariaDB and MySQL write them: a time, or blanks under a repeated one; a tab; a thread id and command such as '12 Query'; a tab; the statement)")
	errNoSlow    = errors.New("no slow log entries found (want '# User@Host:' and '# Query_time:' headers)")
)

// maxTxnStmts bounds an open transaction: a session that never commits
// has its statements counted as one transaction every this many (with a
// warning), so memory does not grow with the transaction.
const maxTxnStmts = 1000

// agg turns parsed entries, in log order, into operations and
// transactions of a workload. It runs on one goroutine.
type agg struct {
	w        *shardkey.Workload
	file     string
	o        Options
	sample   int
	rng      *rand.Rand
	weighted bool // pg_stat_statements: entries carry call counts
	// period is the seconds weighted call counts span (statement
	// statistics read from a server); 0: the counts are the rates.
	period float64
	// knownOnly skips accesses to tables w does not hold (statement
	// statistics cover the whole server, the sample only chosen tables).
	knownOnly bool

	line          int    // the line of the entry being added
	txnCuts       int    // open transactions counted in pieces of maxTxnStmts
	txnCutLine    int    // where the first was cut
	txnCutSession string // and its session
	// rolledBack counts the transactions (with statements on tables)
	// that ended in ROLLBACK; rolledBackFile and rolledBackLine are
	// where the first's ROLLBACK is (a file of a rotated set).
	rolledBack     int
	rolledBackFile string
	rolledBackLine int
	// midLog marks a window that ends before the log does (ReadWindows):
	// transactions open at its end go on in the next window, so they
	// are no sign of a log cut short (finish warns of those otherwise).
	midLog bool
	// seconds, when > 0, is the time rates are per (a window's length),
	// instead of the span of the log's timestamps.
	seconds float64
	// window marks the aggregate of one window of ReadWindows: with
	// seconds 0 the window is one instant, whose rates are unknown
	// (watch shows them so) rather than counts.
	window bool
	// short, when > 0, is the seconds a partial window's log covers,
	// under the minimum (seconds) for a window of length seconds (see
	// minCovered): rates unknown.
	short, length, minimum float64

	infos    map[*access]*accInfo
	infoArgs int // the arguments of the accesses in infos
	ops      map[string]*opAgg
	opList   []*opAgg
	txns     map[string]*txnAgg
	txnList  []*txnAgg
	sessions map[string]*session

	minTS, maxTS int64
	res          int32 // the coarsest resolution of the statements' timestamps (entry.res)
	hasTS        bool
	noTS         int // statements without a timestamp
	stmts        float64
	system       float64               // statements left out: only PostgreSQL system catalogs
	joins        map[[4]string]float64 // table, column, other table, other column -> statements
	// gap is the longest stretch (microseconds) with no statement between
	// two in log order, gapFile and gapLine the statement after it;
	// idle is the sum of such stretches of idleGap or more, idleN their
	// number (see spanWarnings).
	gap, idle int64
	idleN     int
	gapFile   string
	gapLine   int

	seq     int64 // entries read
	bad     map[string]*badShape
	badList []*badShape
	badN    int
	created map[int]bool // tables created by this log
	newCols map[[2]int]bool
	dropped int // values that did not convert to their column's type
	// firstDrop names the first of them: "table.column: why".
	firstDrop string
	// offered numbers the instances offered to the operations'
	// reservoirs, in log order, from seqBase+1: seqBase is the largest
	// Seq of the instances earlier logs put in the workload (see
	// shardkey.Instance.Seq).
	offered, seqBase int64
	// sure holds the columns this log created that a statement attributed
	// for certain (see attribute.go); resolved the lazy parts built so
	// far; cat the workload's catalog (an empty one when it has none).
	sure     map[[2]int]bool
	resolved map[*part]*part
	cat      *shardkey.Catalog
	opIDKey  []byte
	cum      map[*shardkey.Table][]float64 // cumulative row weights, for drawRow
	lim      limits                        // bounds on what is kept (bound.go)
	stmtBuf  []sample                      // scratch for part
	txnBuf   []sample                      // scratch for txnRows
	// joinBuf, peerBuf and partBuf: part's scratch for a statement's
	// joins (sample.join).
	joinBuf []sampleJoin
	peerBuf []peerSample
	partBuf []sample
	// condChunk is what conds carves instances' conditions from.
	condChunk []shardkey.Cond
	// peerConds is the scratch slice peers converts a join peer's
	// conditions into before it keeps some.
	peerConds []shardkey.Cond
	// freeSessions are dropped sessions kept for their buffers.
	freeSessions []*session
	// counts count every statement's values by column (traffic.go).
	counts    map[[2]int]*colCount
	countList []*colCount
	// asyncCounts: the values are counted on the pipeline's counting
	// goroutine (pipeline.countLoop), queued in pending with each batch;
	// valCols, the columns holding values counted exactly, and the
	// counters' values and lim's countCap and countKept are that
	// goroutine's until the pipeline is closed.
	asyncCounts bool
	pending     []countRec
	valCols     []*colCount
	countSeq    int64 // statements countValues has seen, numbering them for colCount.stmt
}

type accInfo struct {
	op   *opAgg
	cols []int // column index of each predicate
	// vias is, for each predicate, the column index + 1 of its via
	// column (pred.via), 0 for none.
	vias []int
	// viaTabs is, for each predicate, its pred.viaTable's table index
	// + 1 and pred.viaTableCol's column index + 1 in it; zero for none.
	viaTabs [][2]int
	// counts is, for each predicate, the counter of the values it binds
	// (traffic.go), nil for none; nil when no predicate's are counted.
	counts []*colCount
}

type opAgg struct {
	id      int
	table   int
	kind    shardkey.Kind
	name    string
	count   float64
	seen    int64
	samples []sample
	// riders is the part of count that rode in another access's request
	// (sample.rider: a join's other reads, a multi-row INSERT's rows
	// after its first): finish weighs the sampled riders and the others
	// each to their own exact rate, so that the requests counted are the
	// statements logged, not an estimate from the sample's mix.
	riders float64
	// riderRes holds the sampled riders, a reservoir of their own (its
	// samples, resSeen and maxVals), so that the rarer kind is sampled
	// too: 20 INSERTs of 10,000 rows offer 20 first rows among 200,000,
	// and one reservoir of 4,096 kept none (no request counted). nil
	// until a rider comes.
	riderRes *opAgg
	// resSeen counts the instances offered to this reservoir: every one
	// but the riders (op.seen counts those too).
	resSeen int64
	// use and ignore are its statements' Vitess vindex hint (part of its
	// name, so that hinted statements are an operation of their own).
	use, ignore []string
	// counted: its instances' values are counted (traffic.go).
	counted bool
	// maxVals is the most values an instance of it held (see
	// shapeValues).
	maxVals int
	// kept is len(samples) when finish converted and released them.
	kept int
}

// sample is one kept instance: the access (for its predicate layout) and
// its values; w is its weight among the operation's samples.
type sample struct {
	ai   *accInfo
	acc  *access
	vals []rv
	w    float64
	// seq is the instance's place in the log (shardkey.Instance.Seq),
	// set when an operation's reservoir is offered it.
	seq int64
	// join holds what only an operation's instance of a statement of
	// several tables has (its join peers, its parts, whether it rides):
	// nil for every other instance and in transactions, so that the
	// sample every statement is stays small (the reservoirs and the
	// sessions' open transactions hold many).
	join *sampleJoin
	// rides is join.rider kept once join is cleared: a transaction's
	// statement that is no request of its own (shardkey.Stmt.Rider).
	rides bool
}

// sampleJoin is a sample's statement's other tables (sample.join).
type sampleJoin struct {
	// peers are the other tables of the statement joined to this one
	// by an equality (access.peers) that bind a value: each with its
	// own sample (for shardkey.Instance.Peers).
	peers []peerSample
	// parts, on the first table's read of a multi-table SELECT, are the
	// statement's other tables' reads (shardkey.Instance.Parts); rider
	// marks those others (shardkey.Instance.Rider).
	parts []sample
	rider bool
}

// peers returns the sample's join peers (sampleJoin.peers).
func (s *sample) peers() []peerSample {
	if s.join == nil {
		return nil
	}
	return s.join.peers
}

// parts returns the sample's statement parts (sampleJoin.parts).
func (s *sample) parts() []sample {
	if s.join == nil {
		return nil
	}
	return s.join.parts
}

// rider reports whether the sample rides in another table's read's
// request (sampleJoin.rider).
func (s *sample) rider() bool { return s.join != nil && s.join.rider }

// peerSample is one join equality of a sample's statement with the
// joined table's sample (its values its own copies once kept).
type peerSample struct {
	eq  peerEq
	sib sample
}

type txnAgg struct {
	name string
	// rolledBack: the transactions of this shape ended in ROLLBACK
	// (shardkey.Txn.RolledBack); a shape's committed and rolled-back
	// transactions are two aggregates.
	rolledBack bool
	count      float64
	seen       int64
	samples    [][]sample
}

type session struct {
	inTxn         bool
	autocommitOff bool
	stmts         []sample
	// vals holds the values of stmts: the parser's are reused once their
	// batch is aggregated (pipeline.release).
	vals []rv
	// last is when the session last ran a statement: its timestamp
	// (microseconds) and its place in the log (entries read before it).
	last, lastSeq int64
}

type badShape struct {
	text  string
	file  string // where it was first seen
	sql   string // as it was first seen (clipped), for noneParsed
	line  int
	count int
	err   error
}

func newAgg(w *shardkey.Workload, file string, o Options) *agg {
	n := o.Sample
	if n <= 0 {
		n = 4096
	}
	seed := o.Seed
	if seed == 0 {
		seed = w.Seed
	}
	var base int64
	for _, op := range w.Ops {
		for i := range op.Instances {
			base = max(base, op.Instances[i].Seq)
		}
	}
	return &agg{
		w: w, file: file, o: o, sample: n, lim: newLimits(o, n), seqBase: base,
		rng:   rand.New(rand.NewPCG(uint64(seed), 0x5eed10c)),
		infos: map[*access]*accInfo{}, ops: map[string]*opAgg{}, txns: map[string]*txnAgg{},
		sessions: map[string]*session{}, bad: map[string]*badShape{}, created: map[int]bool{},
		newCols: map[[2]int]bool{}, sure: map[[2]int]bool{}, resolved: map[*part]*part{},
	}
}

func (a *agg) warn(err error) { a.w.Warnings = append(a.w.Warnings, err) }

// add processes one batch of entries and their parses.
func (a *agg) add(entries []entry, results []result) error {
	for i := range entries {
		e := &entries[i]
		a.seq++
		if e.hasTS && e.ts >= a.lim.nextSweep || a.seq >= a.lim.nextSeqSweep {
			a.sweep(e.ts, e.hasTS)
		}
		if e.end {
			a.endSession(e.session)
			continue
		}
		r := &results[i]
		a.line = e.line
		if r.t == nil {
			continue
		}
		if e.hasTS {
			if !a.hasTS || e.ts < a.minTS {
				a.minTS = e.ts
			}
			if a.hasTS && e.ts > a.maxTS {
				d := e.ts - a.maxTS
				if d > a.gap {
					a.gap, a.gapFile, a.gapLine = d, e.file, e.line
				}
				if d >= idleGap.Microseconds() {
					a.idle += d
					a.idleN++
				}
			}
			if !a.hasTS || e.ts > a.maxTS {
				a.maxTS = e.ts
			}
			a.res = max(a.res, e.res)
			a.hasTS = true
		} else {
			a.noTS++
		}
		wt := e.weight
		if wt == 0 {
			wt = 1
		}
		if r.t.err != nil {
			a.badN++
			b := a.bad[r.t.text]
			if b == nil {
				if len(a.bad) >= 1000 {
					continue
				}
				b = &badShape{text: r.t.text, sql: strings.Clone(clip(e.sql, 80)), file: e.file, line: e.line, err: r.t.err}
				a.bad[r.t.text] = b
				a.badList = append(a.badList, b)
			}
			b.count++
			continue
		}
		for k := range r.t.parts {
			p, vals := &r.t.parts[k], r.vals[k]
			if p.lazy {
				p = a.resolvePart(p, r.t.text, e.line)
				vals = p.bind(r.slots, r.params)
			}
			a.part(e, p, vals, wt)
		}
	}
	// part's scratch holds values of this batch's statements: cleared
	// once a batch, so that no stale value holds its statement's text
	// (textArena) alive once the batch is released.
	clear(a.stmtBuf[:cap(a.stmtBuf)])
	clear(a.peerBuf[:cap(a.peerBuf)])
	clear(a.partBuf[:cap(a.partBuf)])
	clear(a.joinBuf[:cap(a.joinBuf)])
	if testHookAdd != nil {
		testHookAdd()
	}
	return nil
}

// testHookAdd, when set (by tests), runs after each batch is aggregated;
// testHookDrained once every batch is, before the workload is finished.
var testHookAdd, testHookDrained func()

func (a *agg) sess(id string) *session {
	s := a.sessions[id]
	if s == nil {
		if n := len(a.freeSessions); n > 0 {
			s, a.freeSessions = a.freeSessions[n-1], a.freeSessions[:n-1]
		} else {
			s = &session{}
		}
		a.sessions[id] = s
	}
	return s
}

// drop forgets session id, whose transaction is committed, keeping its
// buffers for a later session (a client's sessions come and go).
func (a *agg) drop(id string, s *session) {
	delete(a.sessions, id)
	if len(a.freeSessions) < 64 && cap(s.stmts) <= 4096 && cap(s.vals) <= 16384 {
		*s = session{stmts: s.stmts[:0], vals: s.vals[:0]}
		a.freeSessions = append(a.freeSessions, s)
	}
}

func (a *agg) part(e *entry, p *part, vals [][]rv, wt float64) {
	sid := e.session
	switch p.ctl {
	case ctlBegin:
		s := a.sess(sid)
		a.commit(s)
		s.inTxn = true
		s.last, s.lastSeq = e.ts, a.seq
	case ctlCommit, ctlRollback:
		if s := a.sessions[sid]; s != nil {
			if p.ctl == ctlRollback {
				a.rollback(s, e.file)
			} else {
				a.commit(s)
			}
			s.inTxn = false
			if !s.autocommitOff {
				a.drop(sid, s)
			}
		}
	case ctlAutocommitOff:
		s := a.sess(sid)
		s.autocommitOff = true
		s.last, s.lastSeq = e.ts, a.seq
	case ctlAutocommitOn:
		if s := a.sessions[sid]; s != nil {
			a.commit(s)
			s.autocommitOff = false
			if !s.inTxn {
				a.drop(sid, s)
			}
		}
	case ctlDML:
		if systemOnly(p.acc) {
			// A client's look at PostgreSQL's own catalogs (pgbench and
			// psql ask pg_class at start): not the application's work.
			a.system += wt
			return
		}
		a.stmts += wt
		for i := range p.acc {
			for _, j := range p.acc[i].joins {
				if a.joins == nil {
					a.joins = map[[4]string]float64{}
				}
				a.joins[[4]string{p.acc[i].table, j[0], j[1], j[2]}] += wt
			}
		}
		stmt := a.stmtBuf[:0] // copied by whatever keeps it (session, txn)
		// The statement's joins are built in scratch (joinBuf, peerBuf,
		// partBuf), which offer copies for a sample it keeps: most are
		// not kept.
		if len(p.acc) > 1 && cap(a.joinBuf) < len(p.acc) {
			a.joinBuf = make([]sampleJoin, len(p.acc))
		}
		peerBuf := a.peerBuf[:0]
		for i := range p.acc {
			if a.knownOnly && a.lookup(p.acc[i].table) < 0 {
				continue
			}
			ai := a.info(&p.acc[i])
			sm := sample{ai: ai, acc: &p.acc[i], vals: vals[i], w: wt}
			if len(p.acc[i].peers) > 0 && !a.knownOnly {
				n := len(peerBuf)
				peerBuf = a.peerSamples(peerBuf, p, vals, i)
				if len(peerBuf) > n {
					j := &a.joinBuf[len(stmt)]
					*j = sampleJoin{peers: peerBuf[n:len(peerBuf):len(peerBuf)]}
					sm.join = j
				}
			}
			stmt = append(stmt, sm)
		}
		a.peerBuf = peerBuf
		if lead := oneRequest(stmt); lead >= 0 {
			// A statement of several tables is one request: its
			// write, or a SELECT's first table's read, counts it, with
			// the others' reads as its parts (their fan-out joins its
			// own); the others ride.
			parts := a.partBuf[:0]
			for k := range stmt {
				if k != lead && !stmt[k].acc.virtual && stmt[k].acc.lazy == nil {
					parts = append(parts, stmt[k]) // its peers (its rider mark is not read)
					if stmt[k].join == nil {
						a.joinBuf[k] = sampleJoin{}
						stmt[k].join = &a.joinBuf[k]
					}
					stmt[k].join.rider = true
				}
			}
			a.partBuf = parts
			if stmt[lead].join == nil {
				a.joinBuf[lead] = sampleJoin{}
				stmt[lead].join = &a.joinBuf[lead]
			}
			stmt[lead].join.parts = parts
		}
		for k := range stmt {
			a.offer(stmt[k].ai.op, stmt[k], wt)
			// Operations' only: a transaction's statements route alone.
			stmt[k].rides = stmt[k].rider()
			stmt[k].join = nil
		}
		a.stmtBuf = stmt
		// A transaction routes a multi-row INSERT by a few of its rows
		// (txnRows): a 1,000-row INSERT is one statement of it, not past
		// maxTxnStmts, nor 1,000 statements of its sample.
		stmt = a.txnRows(stmt)
		if s := a.sessions[sid]; s != nil && (s.inTxn || s.autocommitOff) {
			s.last, s.lastSeq = e.ts, a.seq
			for _, sm := range stmt {
				n := len(s.vals)
				s.vals = append(s.vals, sm.vals...)
				sm.vals = s.vals[n:len(s.vals):len(s.vals)]
				s.stmts = append(s.stmts, sm)
			}
			if len(s.stmts) >= maxTxnStmts {
				if a.txnCuts == 0 {
					a.txnCutLine, a.txnCutSession = a.line, sid
				}
				a.txnCuts++
				a.commit(s)
			}
			return
		}
		// An autocommit write is a transaction of its own; an autocommit
		// read is an operation (its fan-out counts), not a transaction.
		for _, sm := range stmt {
			if sm.ai.op.kind.IsWrite() {
				a.txn(stmt, wt, false)
				break
			}
		}
	}
}

// txnRiders is the most rows after its first a multi-row INSERT keeps in
// its transaction's statements (txnRows).
const txnRiders = 16

// txnRows returns stmt, the accesses of one statement, for its
// transaction: a multi-row INSERT's riders cut to txnRiders, evenly
// spaced from its second row to its last (a bulk load sorted by its key
// spans its ranges from first to last row). Whether the statement
// crosses shards is what the transaction needs of it: 17 rows tell,
// unless many rows share one shard, which its other rows do not change
// much (the operations' instances keep every row's work). stmt itself
// when it has no more riders than that; else a.txnBuf.
func (a *agg) txnRows(stmt []sample) []sample {
	riders := 0
	for i := range stmt {
		if stmt[i].rides {
			riders++
		}
	}
	if riders <= txnRiders {
		return stmt
	}
	out := a.txnBuf[:0]
	k := 0 // riders seen
	next := 0
	for i := range stmt {
		if !stmt[i].rides {
			out = append(out, stmt[i])
			continue
		}
		// Keep rider k when it is the next of txnRiders positions
		// spaced evenly over 0..riders-1, first and last included.
		if k == next*(riders-1)/(txnRiders-1) {
			out = append(out, stmt[i])
			next++
		}
		k++
	}
	a.txnBuf = out
	return out
}

// peerSamples appends to out the join peers of access i of statement
// part p (values vals) that bind = or IN on a column of their own other
// than the joined one: those say which rows of theirs the join reaches.
func (a *agg) peerSamples(out []peerSample, p *part, vals [][]rv, i int) []peerSample {
	for _, pe := range p.acc[i].peers {
		j := i + pe.off
		if j < 0 || j >= len(p.acc) || j == i || p.acc[j].virtual || p.acc[j].lazy != nil {
			continue
		}
		binds := false
		for _, q := range p.acc[j].preds {
			if q.via == "" && q.col != "" && !strings.EqualFold(q.col, pe.pcol) && (q.op == shardkey.Eq || q.op == shardkey.In) {
				binds = true
			}
		}
		if !binds {
			continue
		}
		out = append(out, peerSample{eq: pe, sib: sample{ai: a.info(&p.acc[j]), acc: &p.acc[j], vals: vals[j]}})
	}
	return out
}

// offer adds an instance to op's reservoir (Vitter's algorithm R, seeded).
func (a *agg) offer(op *opAgg, sm sample, wt float64) {
	op.count += wt
	op.seen++
	a.offered++
	sm.seq = a.seqBase + a.offered
	if sm.ai.counts != nil {
		a.count(&sm, op, wt)
	}
	res := op // the reservoir: riders have one of their own
	if sm.rider() {
		op.riders += wt
		if op.riderRes == nil {
			op.riderRes = &opAgg{}
		}
		res = op.riderRes
	}
	res.resSeen++
	if nv := sampleValues(&sm); nv > res.maxVals {
		res.maxVals = nv
		if k := a.opCapOf(res); len(res.samples) > k {
			a.lim.opKept -= len(res.samples) - k
			res.samples = thin(a, res.samples, k)
		}
	}
	k := a.opCapOf(res)
	if len(res.samples) < k {
		sm.vals = a.lim.detach(sm.vals)
		sm.join = a.detachJoin(sm.join)
		res.samples = append(res.samples, sm)
		a.keptInstance()
		return
	}
	if j := a.rng.Int64N(res.resSeen); j < int64(k) {
		sm.vals = a.lim.detachInto(res.samples[j].vals, sm.vals)
		sm.join = a.detachJoin(sm.join)
		res.samples[j] = sm
	}
}

// oneRequest returns the index in stmt of the access that counts a
// multi-table statement's request, or -1. A statement that writes one
// table and reads others (INSERT ... SELECT, UPDATE ... FROM, DELETE ...
// USING, a write with subqueries) is one request at its write; a SELECT
// of several tables one at its first table's read; a multi-row INSERT
// ... VALUES (one insert access a row, all into one table) one at its
// first row, its other rows riding as parts (the statement is sent once;
// the engine writes each row on its row's shard: Vitess's insert plan
// groups the rows by shard, go/vt/vtgate/engine/insert.go; Citus's
// router planner too, GroupInsertValuesByShardId in
// multi_router_planner.c). -1: fewer than two
// accesses (derived tables and lazily built subqueries, read as
// statements of their own, left out), or a statement that writes
// several tables, or one table otherwise than by inserts, or writes
// through a lazily built access (each of its accesses stays a request
// of its own).
func oneRequest(stmt []sample) int {
	first, write, n := -1, -1, 0
	for k := range stmt {
		isWrite := stmt[k].ai.op.kind != shardkey.Read
		if stmt[k].acc.virtual || stmt[k].acc.lazy != nil {
			if isWrite {
				return -1
			}
			continue
		}
		n++
		switch {
		case isWrite && write >= 0 && stmt[k].ai.op.kind == shardkey.Insert && stmt[write].ai.op.kind == shardkey.Insert &&
			stmt[k].ai.op.table == stmt[write].ai.op.table:
			// Another row of a multi-row INSERT: a part of the first.
		case isWrite && write >= 0:
			return -1
		case isWrite:
			write = k
		case first < 0:
			first = k
		}
	}
	if n < 2 {
		return -1
	}
	if write >= 0 {
		return write
	}
	return first
}

// detachJoin returns a kept sample's join of its own: the scratch it was
// built in (agg.part) is reused, and the parser's values too.
func (a *agg) detachJoin(j *sampleJoin) *sampleJoin {
	if j == nil {
		return nil
	}
	return &sampleJoin{peers: a.detachPeers(j.peers), parts: a.detachParts(j.parts), rider: j.rider}
}

// detachParts returns a kept sample's parts with values (and peers'
// values) of their own, as detachPeers does for peers.
func (a *agg) detachParts(ps []sample) []sample {
	if len(ps) == 0 {
		return nil
	}
	ps = slices.Clone(ps)
	for k := range ps {
		ps[k].vals = a.lim.detach(ps[k].vals)
		peers := a.detachPeers(ps[k].peers())
		ps[k].join = nil
		if peers != nil {
			ps[k].join = &sampleJoin{peers: peers}
		}
	}
	return ps
}

// detachPeers returns a kept sample's peers with values of their own:
// the parser's buffers are reused, as for the sample's own values.
func (a *agg) detachPeers(ps []peerSample) []peerSample {
	if len(ps) == 0 {
		return nil
	}
	ps = slices.Clone(ps)
	for k := range ps {
		ps[k].sib.vals = a.lim.detach(ps[k].sib.vals)
	}
	return ps
}

func (a *agg) commit(s *session) {
	if len(s.stmts) > 0 {
		a.txn(s.stmts, 1, false)
	}
	// txn copies what it keeps; the buffers are reused, their values
	// cleared so that none holds its statement's text (textArena) alive.
	clear(s.stmts)
	clear(s.vals)
	s.stmts = s.stmts[:0]
	s.vals = s.vals[:0]
}

// rollback ends s's transaction without committing it: its statements
// did their work (each was counted among the operations as it ran), but
// nothing committed, so it is no commit of cross_shard_txn_fraction's;
// it is kept, marked rolled back, in the transactions' bounded sample
// (txn), since one that spans shards cost their coordination all the
// same, and rolledBack counts it. ROLLBACK TO SAVEPOINT is not this: it
// parses as ctlIgnore (the transaction goes on).
func (a *agg) rollback(s *session, file string) {
	if len(s.stmts) > 0 {
		if a.rolledBack == 0 {
			a.rolledBackFile, a.rolledBackLine = file, a.line
		}
		a.rolledBack++
		a.txn(s.stmts, 1, true)
	}
	clear(s.stmts) // as commit does
	clear(s.vals)
	s.stmts = s.stmts[:0]
	s.vals = s.vals[:0]
}

func (a *agg) endSession(id string) {
	if s := a.sessions[id]; s != nil {
		a.commit(s)
		a.drop(id, s)
	}
}

// txn counts one transaction of the given statements, rolled back or
// committed.
func (a *agg) txn(stmts []sample, wt float64, rolledBack bool) {
	key := a.opIDKey[:0]
	if rolledBack {
		key = append(key, 'R')
	}
	for _, s := range stmts {
		key = strconv.AppendInt(key, int64(s.ai.op.id), 10)
		key = append(key, ',')
	}
	a.opIDKey = key
	t := a.txns[string(key)]
	if t == nil {
		names := make([]string, 0, len(stmts))
		for i, s := range stmts {
			if i == 8 {
				names = append(names, fmt.Sprintf("... %d more", len(stmts)-8))
				break
			}
			names = append(names, s.ai.op.name)
		}
		t = &txnAgg{name: strings.Join(names, "; "), rolledBack: rolledBack}
		a.txns[string(key)] = t
		a.txnList = append(a.txnList, t)
	}
	t.count += wt
	t.seen++
	if len(t.samples) < a.lim.txnCap {
		t.samples = append(t.samples, a.lim.detachStmts(stmts))
		a.keptStatements(len(stmts))
		return
	}
	if j := a.rng.Int64N(t.seen); j < int64(a.lim.txnCap) {
		a.lim.txnKept += len(stmts) - len(t.samples[j])
		t.samples[j] = a.lim.detachStmtsInto(t.samples[j], stmts)
		a.keptStatements(0)
	}
}

// info resolves a template access against the workload (creating the
// table and columns at first sight) and finds its operation.
func (a *agg) info(acc *access) *accInfo {
	if ai := a.infos[acc]; ai != nil {
		return ai
	}
	ti := a.table(acc.table)
	t := a.w.Tables[ti]
	ai := &accInfo{cols: make([]int, len(acc.preds))}
	conds := make([]shardkey.Cond, 0, len(acc.preds))
	for i, p := range acc.preds {
		name := p.col
		if name == "" { // INSERT without a column list: by position
			if cols := a.catalogColumns(t.Name); p.pos < len(cols) {
				// The catalog (--from, --schema) gives the table's
				// columns in their declared order.
				name = cols[p.pos]
			} else if len(cols) > 0 && p.any {
				ai.cols[i] = -1
				continue
			} else if p.pos < len(t.Columns) {
				name = t.Columns[p.pos].Name
			} else if p.any {
				// Values an INSERT ... SELECT copies into a column the
				// workload does not know: no column to say anything of.
				ai.cols[i] = -1
				continue
			} else {
				name = fmt.Sprintf("column%d", p.pos+1)
			}
		}
		ci := t.ColumnIndex(name)
		if ci < 0 {
			ci = t.AddColumn(name, shardkey.Null)
			a.newCols[[2]int{ti, ci}] = true
		}
		if !p.guess && p.col != "" {
			a.sure[[2]int{ti, ci}] = true
		}
		ai.cols[i] = ci
		if p.via != "" {
			// Another read's condition (see pred.via): not part of the
			// shape; its tying column, a column of the table.
			vi := t.ColumnIndex(p.via)
			if vi < 0 {
				vi = t.AddColumn(p.via, shardkey.Null)
				a.newCols[[2]int{ti, vi}] = true
			}
			if ai.vias == nil {
				ai.vias = make([]int, len(acc.preds))
			}
			ai.vias[i] = vi + 1
			if p.viaTable != "" {
				oi := a.table(p.viaTable)
				ot := a.w.Tables[oi]
				oc := ot.ColumnIndex(p.viaTableCol)
				if oc < 0 {
					oc = ot.AddColumn(p.viaTableCol, shardkey.Null)
					a.newCols[[2]int{oi, oc}] = true
				}
				if ai.viaTabs == nil {
					ai.viaTabs = make([][2]int, len(acc.preds))
				}
				ai.viaTabs[i] = [2]int{oi + 1, oc + 1}
			}
			continue
		}
		if p.mentionOnly(acc.kind) {
			continue // not part of the shape
		}
		conds = append(conds, shardkey.Cond{Col: ci, Op: p.op})
	}
	name := shardkey.ShapeName(t, acc.kind, conds)
	if len(conds) == 0 && acc.kind == shardkey.Read && len(acc.joins) > 0 {
		// Not every row: the rows the join reaches.
		var on []string
		for _, j := range acc.joins {
			if o := j[1] + " on " + j[0]; !slices.Contains(on, o) {
				on = append(on, o)
			}
		}
		name = fmt.Sprintf("read %s joined to %s", t.Name, strings.Join(on, ", "))
	}
	if acc.none {
		// Its own shape: it asks no shard, unlike the full scans whose
		// conditions it would otherwise share.
		name = fmt.Sprintf("%s %s (matches no row)", acc.kind, t.Name)
	}
	for _, p := range acc.preds {
		if p.via != "" {
			// Compared on a column with another read of the table (see
			// pred.via): routed with it where that column is a unique
			// vindex, so an operation of its own.
			if p.viaTable != "" {
				name += fmt.Sprintf(" (%s tied to %s.%s)", p.via, p.viaTable, p.viaTableCol)
			} else {
				name += fmt.Sprintf(" (%s tied to another read of %s)", p.via, t.Name)
			}
			break
		}
	}
	if len(acc.use) > 0 {
		name += " (USE VINDEX (" + strings.Join(acc.use, ", ") + "))"
	}
	if len(acc.ignore) > 0 {
		name += " (IGNORE VINDEX (" + strings.Join(acc.ignore, ", ") + "))"
	}
	op := a.ops[name]
	if op == nil {
		op = &opAgg{id: len(a.opList), table: ti, kind: acc.kind, name: name, use: acc.use, ignore: acc.ignore}
		a.ops[name] = op
		a.opList = append(a.opList, op)
	}
	ai.op = op
	a.setCounters(ai, acc, ti)
	// infos is a memo (an access's info is the same whenever it is made),
	// and its keys hold their templates alive: those of statements whose
	// shape is not cached (past maxCached or maxLongCost, cache.go) are
	// new each time. Past maxInfos accesses or maxInfoArgs of their
	// arguments it starts afresh, so that it holds a few MB of templates,
	// not one a statement (a log of IN lists of every length up to 4,096:
	// 750 MB).
	n := 0
	for i := range acc.preds {
		n += len(acc.preds[i].args)
	}
	if len(a.infos) >= maxInfos || a.infoArgs+n > maxInfoArgs {
		clear(a.infos)
		a.infoArgs = 0
	}
	a.infoArgs += n
	a.infos[acc] = ai
	return ai
}

// maxInfos and maxInfoArgs bound agg.infos (see agg.info).
const (
	maxInfos    = 1 << 17
	maxInfoArgs = 1 << 18
)

// systemOnly reports whether every table a statement accesses is one of
// PostgreSQL's system catalogs (pg_class, pg_namespace, ...: the pg_
// prefix is reserved for them).
func systemOnly(acc []access) bool {
	if len(acc) == 0 {
		return false
	}
	for i := range acc {
		if !strings.HasPrefix(strings.ToLower(acc[i].table), "pg_") {
			return false
		}
	}
	return true
}

// table returns the index of table name, creating it at first sight.
func (a *agg) table(name string) int {
	if i := a.lookup(name); i >= 0 {
		return i
	}
	a.w.Tables = append(a.w.Tables, &shardkey.Table{Name: name})
	ti := len(a.w.Tables) - 1
	a.created[ti] = true
	return ti
}
