package sqllog

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
)

var (
	errNoGeneral = errors.New("no general log entries found (want lines like '\\t\\t    12 Query\\tSELECT ...')")
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
	// seconds, when > 0, is the time rates are per (a window's length),
	// instead of the span of the log's timestamps.
	seconds float64

	infos    map[*access]*accInfo
	ops      map[string]*opAgg
	opList   []*opAgg
	txns     map[string]*txnAgg
	txnList  []*txnAgg
	sessions map[string]*session

	minTS, maxTS int64
	hasTS        bool
	noTS         int // statements without a timestamp
	stmts        float64
	system       float64               // statements left out: only PostgreSQL system catalogs
	joins        map[[4]string]float64 // table, column, other table, other column -> statements

	seq     int64 // entries read
	bad     map[string]*badShape
	badList []*badShape
	badN    int
	created map[int]bool // tables created by this log
	newCols map[[2]int]bool
	dropped int // values that did not convert to their column's type
	// firstDrop names the first of them: "table.column: why".
	firstDrop string
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
}

type accInfo struct {
	op   *opAgg
	cols []int // column index of each predicate
}

type opAgg struct {
	id      int
	table   int
	kind    shardkey.Kind
	name    string
	count   float64
	seen    int64
	samples []sample
}

// sample is one kept instance: the access (for its predicate layout) and
// its values; w is its weight among the operation's samples.
type sample struct {
	ai   *accInfo
	acc  *access
	vals []rv
	w    float64
}

type txnAgg struct {
	name    string
	count   float64
	seen    int64
	samples [][]sample
}

type session struct {
	inTxn         bool
	autocommitOff bool
	stmts         []sample
	// last is when the session last ran a statement: its timestamp
	// (microseconds) and its place in the log (entries read before it).
	last, lastSeq int64
}

type badShape struct {
	text  string
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
	return &agg{
		w: w, file: file, o: o, sample: n, lim: newLimits(o, n),
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
			if !a.hasTS || e.ts > a.maxTS {
				a.maxTS = e.ts
			}
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
				b = &badShape{text: r.t.text, line: e.line, err: r.t.err}
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
		s = &session{}
		a.sessions[id] = s
	}
	return s
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
			a.commit(s)
			s.inTxn = false
			if !s.autocommitOff {
				delete(a.sessions, sid)
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
				delete(a.sessions, sid)
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
		for i := range p.acc {
			if a.knownOnly && a.existing(p.acc[i].table) < 0 {
				continue
			}
			ai := a.info(&p.acc[i])
			sm := sample{ai: ai, acc: &p.acc[i], vals: vals[i], w: wt}
			a.offer(ai.op, sm, wt)
			stmt = append(stmt, sm)
		}
		a.stmtBuf = stmt
		if s := a.sessions[sid]; s != nil && (s.inTxn || s.autocommitOff) {
			s.last, s.lastSeq = e.ts, a.seq
			s.stmts = append(s.stmts, stmt...)
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
				a.txn(stmt, wt)
				break
			}
		}
	}
}

// offer adds an instance to op's reservoir (Vitter's algorithm R, seeded).
func (a *agg) offer(op *opAgg, sm sample, wt float64) {
	op.count += wt
	op.seen++
	if len(op.samples) < a.lim.opCap {
		sm.vals = a.lim.detach(sm.vals)
		op.samples = append(op.samples, sm)
		a.keptInstance()
		return
	}
	if j := a.rng.Int64N(op.seen); j < int64(a.lim.opCap) {
		sm.vals = a.lim.detach(sm.vals)
		op.samples[j] = sm
	}
}

func (a *agg) commit(s *session) {
	if len(s.stmts) > 0 {
		a.txn(s.stmts, 1)
	}
	s.stmts = s.stmts[:0] // txn copies what it keeps
}

func (a *agg) endSession(id string) {
	if s := a.sessions[id]; s != nil {
		a.commit(s)
		delete(a.sessions, id)
	}
}

// txn counts one transaction of the given statements.
func (a *agg) txn(stmts []sample, wt float64) {
	key := a.opIDKey[:0]
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
		t = &txnAgg{name: strings.Join(names, "; ")}
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
		t.samples[j] = a.lim.detachStmts(stmts)
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
		if p.mentionOnly(acc.kind) {
			continue // not part of the shape
		}
		conds = append(conds, shardkey.Cond{Col: ci, Op: p.op})
	}
	name := shardkey.ShapeName(t, acc.kind, conds)
	if acc.none {
		// Its own shape: it asks no shard, unlike the full scans whose
		// conditions it would otherwise share.
		name = fmt.Sprintf("%s %s (matches no row)", acc.kind, t.Name)
	}
	op := a.ops[name]
	if op == nil {
		op = &opAgg{id: len(a.opList), table: ti, kind: acc.kind, name: name}
		a.ops[name] = op
		a.opList = append(a.opList, op)
	}
	ai.op = op
	a.infos[acc] = ai
	return ai
}

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

// existing returns the index of the workload's table name (unquoted MySQL
// names may differ in case), or -1.
func (a *agg) existing(name string) int {
	if i := a.w.TableIndex(name); i >= 0 {
		return i
	}
	for i, t := range a.w.Tables {
		if strings.EqualFold(t.Name, name) {
			return i
		}
	}
	return -1
}

// table returns the index of table name, creating it at first sight.
func (a *agg) table(name string) int {
	if i := a.existing(name); i >= 0 {
		return i
	}
	a.w.Tables = append(a.w.Tables, &shardkey.Table{Name: name})
	ti := len(a.w.Tables) - 1
	a.created[ti] = true
	return ti
}

// ---- finishing: types, conditions, operations, transactions ----

func (a *agg) finish() error {
	a.endSessionSorted()
	span := 1.0
	switch {
	case a.seconds > 0:
		span = a.seconds
	case a.weighted && a.period > 0:
		span = a.period // statement statistics read from a server
	case a.weighted:
		// pg_stat_statements: calls over the statistics period, which the
		// export does not hold: rates are the call counts.
	case a.hasTS && a.maxTS > a.minTS:
		span = float64(a.maxTS-a.minTS) / 1e6
	case a.stmts > 0:
		a.warn(shardkey.Errorf(a.file, 0, "", "the log has no time span (timestamps missing or all equal): rates are statement counts"))
	}
	a.setTypes()
	used := map[string]bool{}
	for _, op := range a.w.Ops {
		used[op.Name] = true
	}
	for _, op := range a.opList {
		rate := op.count / span
		name := op.name
		for k := 2; used[name]; k++ {
			name = fmt.Sprintf("%s #%d", op.name, k)
		}
		used[name] = true
		o := &shardkey.Operation{Name: name, Table: op.table, Kind: op.kind, Rate: rate}
		samples := a.expand(op)
		sum := 0.0
		for _, s := range samples {
			sum += s.w
		}
		fv := int32(0)
		for _, s := range samples {
			o.Instances = append(o.Instances, shardkey.Instance{Weight: rate * s.w / sum, Conds: a.conds(s, &fv)})
		}
		a.w.Ops = append(a.w.Ops, o)
	}
	for _, t := range a.txnList {
		rate := t.count / span
		for _, stmts := range t.samples {
			tx := shardkey.Txn{Name: t.name, Weight: rate / float64(len(t.samples))}
			fv := int32(0)
			for _, s := range stmts {
				tx.Stmts = append(tx.Stmts, shardkey.Stmt{Table: s.ai.op.table, Kind: s.ai.op.kind, Conds: a.conds(s, &fv)})
			}
			a.w.Txns = append(a.w.Txns, tx)
		}
	}
	a.fillRows()
	if a.txnCuts > 0 {
		a.warn(shardkey.Errorf(a.file, a.txnCutLine, "", "a transaction ran past %d statements without COMMIT (session %s; %d times in all): counted as transactions of %d statements each, so its cross-shard share is a lower bound", maxTxnStmts, clip(a.txnCutSession, 40), a.txnCuts, maxTxnStmts))
	}
	a.limitWarnings()
	if a.badN > 0 {
		sort.SliceStable(a.badList, func(i, j int) bool { return a.badList[i].count > a.badList[j].count })
		var parts []string
		for i, b := range a.badList {
			if i == 10 {
				parts = append(parts, fmt.Sprintf("and %d more shapes", len(a.badList)-10))
				break
			}
			parts = append(parts, fmt.Sprintf("%q (%d×, first at line %d: %v)", clip(b.text, 80), b.count, b.line, b.err))
		}
		what := "statements could not be parsed and were"
		if a.badN == 1 {
			what = "statement could not be parsed and was"
		}
		a.warn(shardkey.Errorf(a.file, 0, "", "%d %s left out, by shape: %s", a.badN, what, strings.Join(parts, "; ")))
	}
	for k, n := range a.joins {
		a.w.Joins = append(a.w.Joins, shardkey.Join{Table: k[0], Column: k[1], OtherTable: k[2], OtherColumn: k[3], Statements: n})
	}
	sort.Slice(a.w.Joins, func(i, j int) bool {
		key := func(x shardkey.Join) string {
			return x.Table + "\x00" + x.Column + "\x00" + x.OtherTable + "\x00" + x.OtherColumn
		}
		return key(a.w.Joins[i]) < key(a.w.Joins[j])
	})
	if a.system > 0 {
		what := "statements that only read PostgreSQL's system catalogs (pg_*) were"
		if a.system == 1 {
			what = "statement that only reads PostgreSQL's system catalogs (pg_*) was"
		}
		a.warn(shardkey.Errorf(a.file, 0, "", "%s %s left out: a client's own queries, not the application's", strconv.FormatFloat(a.system, 'f', -1, 64), what))
	}
	if a.dropped > 0 {
		a.warn(shardkey.Errorf(a.file, 0, "", "%d sampled values did not convert to their column's type (the first, %s); an equality or IN list value that does not convert matches no row, other conditions were left out", a.dropped, a.firstDrop))
	}
	return nil
}

// endSessionSorted commits the open transactions of every session at the
// end of the log, in session order (deterministic).
func (a *agg) endSessionSorted() {
	ids := make([]string, 0, len(a.sessions))
	for id := range a.sessions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		a.endSession(id)
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// expand returns op's samples. When its values are unknown (a
// pg_stat_statements shape, or $n without parameters) and its table has a
// row sample, it draws min(count, sample) instances so that each can take
// values from the rows (see conds).
func (a *agg) expand(op *opAgg) []sample {
	t := a.w.Tables[op.table]
	if t.Rows == 0 || len(op.samples) == 0 || float64(len(op.samples)) >= op.count || len(op.samples) >= a.sample {
		return op.samples
	}
	noValue := false
	for _, s := range op.samples {
		for _, v := range s.vals {
			noValue = noValue || v.kind == litNoValue
		}
	}
	if !noValue {
		return op.samples
	}
	n := int(math.Min(op.count, float64(a.lim.expandCap(len(a.opList)))))
	out := make([]sample, 0, n)
	for i := range n {
		s := op.samples[i%len(op.samples)]
		s.w = op.samples[i%len(op.samples)].w / math.Ceil(float64(n)/float64(len(op.samples)))
		out = append(out, s)
	}
	return out
}

// typeVote accumulates the kinds of values seen for one column.
type typeVote struct {
	typ  shardkey.Type
	seen bool
	hint shardkey.Type
	mix  bool
}

func (v *typeVote) add(t shardkey.Type) {
	switch {
	case !v.seen:
		v.typ, v.seen = t, true
	case v.typ == t:
	case v.typ == shardkey.Int64 && t == shardkey.Float64, v.typ == shardkey.Float64 && t == shardkey.Int64:
		v.typ = shardkey.Float64
	default:
		v.typ = shardkey.Text
	}
}

// classify returns the type a value suggests, or Null for none.
func classify(l lit) shardkey.Type {
	switch l.kind {
	case litNum:
		if strings.ContainsAny(l.s, ".eE") {
			return shardkey.Float64
		}
		// An integer: int64, else uint64, else text (a float64 would
		// round it, and distinct ids would merge).
		return shardkey.InferType([]string{l.s})
	case litStr:
		return shardkey.InferType([]string{l.s})
	case litNewest:
		return shardkey.Null
	case litUnique:
		return shardkey.Null
	}
	return shardkey.Null
}

// setTypes gives the columns this log created a type: the one named in
// Options.Types, else a cast's, else the kind of the sampled values
// (integers, numbers, UUIDs, timestamps, else text).
func (a *agg) setTypes() {
	votes := map[[2]int]*typeVote{}
	vote := func(s sample) {
		k := 0
		for i, p := range s.acc.preds {
			key := [2]int{s.ai.op.table, s.ai.cols[i]}
			for range p.args {
				vs := elemValues(s.vals[k : k+1])
				k++
				if !a.newCols[key] {
					continue
				}
				for _, v := range vs {
					tv := votes[key]
					if tv == nil {
						tv = &typeVote{}
						votes[key] = tv
					}
					if v.hint != shardkey.Null {
						if tv.hint != shardkey.Null && tv.hint != v.hint {
							tv.mix = true
						}
						tv.hint = v.hint
					}
					if t := classify(v.lit); t != shardkey.Null {
						tv.add(t)
					}
				}
			}
		}
	}
	for _, op := range a.opList {
		for _, s := range op.samples {
			vote(s)
		}
	}
	for _, t := range a.txnList {
		for _, stmts := range t.samples {
			for _, s := range stmts {
				vote(s)
			}
		}
	}
	keys := make([][2]int, 0, len(a.newCols))
	for k := range a.newCols {
		keys = append(keys, k)
	}
	for _, k := range keys {
		t := a.w.Tables[k[0]]
		c := t.Columns[k[1]]
		if typ, ok := a.o.Types[t.Name+"."+c.Name]; ok {
			c.Type = typ
			continue
		}
		if typ, ok := a.o.Types[c.Name]; ok {
			c.Type = typ
			continue
		}
		tv := votes[k]
		switch {
		case tv == nil:
			c.Type = shardkey.Text
		case !tv.seen && tv.hint == shardkey.Null:
			c.Type = shardkey.Int64 // only values the database assigns (a sequence, now()): numbers
		case tv.hint != shardkey.Null && !tv.mix:
			c.Type = tv.hint
		default:
			c.Type = tv.typ
		}
	}
}

// conds converts a sample's values into conditions on its table.
func (a *agg) conds(s sample, fv *int32) []shardkey.Cond {
	t := a.w.Tables[s.ai.op.table]
	if s.acc.none {
		return noRows(t)
	}
	out := make([]shardkey.Cond, 0, len(s.acc.preds))
	k := 0
	for i, p := range s.acc.preds {
		vals := s.vals[k : k+len(p.args)]
		k += len(p.args)
		col := s.ai.cols[i]
		if col < 0 {
			continue // see info
		}
		if p.mentionOnly(s.ai.op.kind) {
			continue
		}
		typ := t.Columns[col].Type
		c := shardkey.Cond{Col: col, Op: p.op}
		switch p.op {
		case shardkey.Eq:
			if vals[0].kind == litNull && (s.ai.op.kind != shardkey.Insert || p.selected) {
				// col = NULL is never true in SQL: it matches no row, as
				// an empty IN list does (IS NULL is another predicate).
				c.Op = shardkey.In
				out = append(out, c)
				continue
			}
			v, fresh, ok := a.value(t, col, typ, vals[0])
			if !ok {
				if vals[0].kind == litNum || vals[0].kind == litStr {
					// A value outside the column's type: no row holds
					// it (Vitess's hash vindex maps it to no keyspace id,
					// DestinationNone; PostgreSQL rejects the statement).
					c.Op = shardkey.In
					out = append(out, c)
				}
				continue
			}
			if len(vals) > 1 && fresh == shardkey.NotFresh && !v.IsNull() {
				// Several equalities on the column: they all hold only
				// when they agree; otherwise no row matches.
				agree := true
				for _, x := range vals[1:] {
					if w, f, ok := a.value(t, col, typ, x); ok && f == shardkey.NotFresh && shardkey.Compare(v, w) != 0 {
						agree = false
					}
				}
				if !agree {
					c.Op = shardkey.In
					out = append(out, c)
					continue
				}
			}
			if fresh != shardkey.NotFresh {
				*fv++
				c.Fresh, c.FreshVar = fresh, *fv
			} else {
				c.Val = v
			}
		case shardkey.In:
			ok := true
			for _, x := range elemValues(vals) {
				if x.kind == litNull {
					continue // x IN (NULL, 2) is x = 2: NULL equals no value
				}
				v, fresh, ok1 := a.value(t, col, typ, x)
				if !ok1 && (x.kind == litNum || x.kind == litStr) {
					continue // outside the column's type: matches no row (see Eq)
				}
				if !ok1 || fresh != shardkey.NotFresh {
					ok = false
					break
				}
				c.List = append(c.List, v)
			}
			if !ok {
				continue
			}
		case shardkey.Range:
			b := &shardkey.Bounds{}
			if p.hasLo {
				if v, fresh, ok := a.value(t, col, typ, vals[0]); ok && fresh == shardkey.NotFresh && !v.IsNull() {
					b.Lo, b.HasLo, b.LoIncl = v, true, p.loIncl
				}
			}
			if p.hasHi {
				if v, fresh, ok := a.value(t, col, typ, vals[1]); ok && fresh == shardkey.NotFresh && !v.IsNull() {
					b.Hi, b.HasHi, b.HiIncl = v, true, p.hiIncl
				}
			}
			if !b.HasLo && !b.HasHi && !p.any {
				continue
			}
			c.Bounds = b
		}
		out = append(out, c)
	}
	return out
}

// elemValues returns vals with each array value replaced by its elements
// (see rv.elems).
func elemValues(vals []rv) []rv {
	arrays := false
	for _, v := range vals {
		arrays = arrays || v.elems != nil
	}
	if !arrays {
		return vals
	}
	var out []rv
	for _, v := range vals {
		if v.elems == nil {
			out = append(out, v)
			continue
		}
		for _, e := range v.elems {
			out = append(out, rv{lit: e, hint: v.hint})
		}
	}
	return out
}

// value converts one resolved value to the column's type. A value the log
// does not hold is drawn from the table's row sample when there is one
// (so the rows give the skew), else it is a fresh unknown value.
func (a *agg) value(t *shardkey.Table, col int, typ shardkey.Type, v rv) (shardkey.Value, shardkey.Fresh, bool) {
	switch v.kind {
	case litNone:
		return shardkey.Value{}, 0, false
	case litNull:
		return shardkey.Value{}, shardkey.NotFresh, true
	case litNewest:
		return shardkey.Value{}, shardkey.FreshNewest, true
	case litUnique:
		return shardkey.Value{}, shardkey.FreshUnique, true
	case litNoValue:
		if t.Rows > 0 && col < len(t.Columns) && t.Columns[col].Len() == t.Rows {
			return t.Columns[col].Value(a.drawRow(t)), shardkey.NotFresh, true
		}
		return shardkey.Value{}, shardkey.FreshUnique, true
	}
	s := v.s
	if typ.IsNumeric() && v.kind == litNum && typ != shardkey.Float32 && typ != shardkey.Float64 {
		if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && strings.ContainsAny(s, ".eE") {
			s = strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	if typ == shardkey.Bytes && v.kind == litStr {
		return shardkey.Value{Type: shardkey.Bytes, Str: s}, shardkey.NotFresh, true
	}
	val, err := shardkey.ParseValue(s, typ)
	if err != nil {
		a.dropped++
		if a.firstDrop == "" {
			a.firstDrop = fmt.Sprintf("%s.%s: %v", t.Name, t.Columns[col].Name, err)
		}
		return shardkey.Value{}, 0, false
	}
	return val, shardkey.NotFresh, true
}

// drawRow picks a row of t by weight, seeded.
func (a *agg) drawRow(t *shardkey.Table) int {
	if t.Weights == nil {
		return a.rng.IntN(t.Rows)
	}
	cum := a.cum[t]
	if cum == nil {
		cum = make([]float64, t.Rows)
		total := 0.0
		for i, w := range t.Weights {
			total += w
			cum[i] = total
		}
		if a.cum == nil {
			a.cum = map[*shardkey.Table][]float64{}
		}
		a.cum[t] = cum
	}
	x := a.rng.Float64() * cum[len(cum)-1]
	return min(sort.SearchFloat64s(cum, x), t.Rows-1)
}

// fillRows gives the columns this log added to a table with a row sample
// a NULL for every row, so the table stays consistent.
func (a *agg) fillRows() {
	for k := range a.newCols {
		t := a.w.Tables[k[0]]
		c := t.Columns[k[1]]
		for c.Len() < t.Rows {
			_ = c.Append(shardkey.Value{})
		}
	}
}

// noRows returns the conditions of an access that matches no row: an
// empty IN list on every column of t, so that whatever its key, the
// statement asks no shard.
func noRows(t *shardkey.Table) []shardkey.Cond {
	out := make([]shardkey.Cond, len(t.Columns))
	for i := range out {
		out[i] = shardkey.Cond{Col: i, Op: shardkey.In, List: []shardkey.Value{}}
	}
	return out
}
