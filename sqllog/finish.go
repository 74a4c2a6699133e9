package sqllog

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shardkey/shardkey"
)

// Finishing: once every entry is read, the aggregated shapes become the
// workload's column types, conditions, operations and transactions.

// logSpan is the seconds a log's statements span: stamped from first to
// last (microseconds) with timestamps of resolution res (microseconds),
// they ran in [first, last + res), so the span is last - first + res. A
// log of whole seconds (MySQL, MariaDB, PostgreSQL's %t) would otherwise
// lose up to a second, and overstate its rates (by a quarter over 5 s).
// Statements all stamped with one instant of a finer resolution have no
// span (0): rates are then counts, with a warning.
func logSpan(first, last int64, res int32) float64 {
	if last == first && res < 1e6 {
		return 0
	}
	return float64(last-first+int64(res)) / 1e6
}

// coarseSpans: a log spanning fewer timestamp resolutions than this (10
// s of whole-second timestamps) has rates uncertain by more than a tenth
// (spanWarnings).
const coarseSpans = 10

// idleGap is the shortest stretch with no statement that spanWarnings
// counts as idle time: sessions' statements a few seconds apart are a
// quiet workload, a minute with none a pause (or a log missing).
const idleGap = time.Minute

// spanWarnings warns when the log's span (seconds), the denominator of
// every rate Read gives, cannot support them: under MinCovered, the
// least part of a window watch takes a rate over (a rate over less is
// an extrapolation from a moment), or mostly idle (stretches of idleGap
// or more with no statement over half the span, one stretch or several
// between bursts of 10 statements or more on average: rotated files
// years apart, a log paused for hours): the rates then average the busy
// stretches with the idle ones, and say neither's rate. A workload of a statement
// a minute has stretches as long, one per statement: it is quiet, not
// idle, and its rate is right.
func (a *agg) spanWarnings(span float64) {
	secs := fmtSpan(int64(math.Round(span * 1e6)))
	if span < MinCovered.Seconds() {
		a.warn(shardkey.Errorf(a.file, 0, "", "the log spans only %s (first statement to last; under %s, the least watch takes a rate over): its rates are the statements counted over %s, an extrapolation that is unreliable, and so are capacity verdicts; shares and ratios are of the statements counted: capture a longer log for rates",
			secs, fmtSpan(MinCovered.Microseconds()), secs))
	} else if res := float64(a.res) / 1e6; span < coarseSpans*res {
		// Timestamps of whole seconds (MySQL's, MariaDB's, PostgreSQL's
		// %t): the statements stamped first and last ran anywhere in
		// their seconds, so the span is known to a second either way,
		// a large part of a short log's (a megabyte of a busy log is a
		// second or two).
		a.warn(shardkey.Errorf(a.file, 0, "", "the log spans only %s at timestamps of %s resolution: the time its statements took is known only to within %s either way (%.0f%% of the span), and so are its rates and capacity verdicts; shares and ratios are of the statements counted: capture a longer log for rates",
			secs, fmtSpan(int64(a.res)), fmtSpan(int64(a.res)), 100*res/span))
	}
	half := span / 2 * 1e6
	if a.idle == 0 || float64(a.gap) <= half && (float64(a.idle) <= half || a.stmts < 10*float64(a.idleN)) {
		return
	}
	first, last := time.UnixMicro(a.minTS).UTC(), time.UnixMicro(a.maxTS).UTC()
	a.warn(shardkey.Errorf(a.gapFile, a.gapLine, "", "the log's statements span %s (%s to %s), the time every rate is over, but %s of it had no statement (stretches of %s or more; the longest, %s, ends at this statement): the rates average the busy stretches with the idle time, below what the database served while busy; read the busy stretches on their own, or with shardkey watch",
		secs, first.Format(time.RFC3339), last.Format(time.RFC3339), fmtSpan(a.idle), fmtSpan(idleGap.Microseconds()), fmtSpan(a.gap)))
}

// fmtSpan writes us microseconds for a warning: seconds under a minute
// (0.784 s), a duration under 48 hours (2h30m0s), else days.
func fmtSpan(us int64) string {
	switch {
	case us < 60e6:
		return strconv.FormatFloat(float64(us)/1e6, 'f', -1, 64) + " s"
	case us < 48*3600e6:
		return (time.Duration(us) * time.Microsecond).Round(time.Second).String()
	}
	return strconv.FormatFloat(float64(us)/86400e6, 'f', 1, 64) + " days"
}

// finish turns what was aggregated into the workload: column types, the
// operations with their rates and sampled instances, the transactions, and
// the warnings of what was left out.
func (a *agg) finish() error {
	openAtEnd, openSession := 0, ""
	if !a.midLog {
		openAtEnd, openSession = a.openTxns()
	}
	a.endSessionSorted()
	if openAtEnd > 0 {
		a.openAtEndWarning(openAtEnd, openSession)
	}
	span := 1.0
	switch {
	case a.seconds > 0:
		span = a.seconds
	case a.short > 0:
		a.warn(shardkey.Errorf(a.file, 0, "", "the log covers only %s s of this window's %s s (less than %s s): a rate over so short a part is not supportable, so its rates are unknown; its shares and ratios are of the statements counted",
			strconv.FormatFloat(a.short, 'f', -1, 64), strconv.FormatFloat(a.length, 'f', -1, 64), strconv.FormatFloat(a.minimum, 'f', -1, 64)))
	case a.weighted && a.period > 0:
		span = a.period // statement statistics read from a server
	case a.weighted:
		// pg_stat_statements: calls over the statistics period, which the
		// export does not hold: rates are the call counts, so only their
		// shares hold; nor does it say which statements ran together.
		a.w.RatesRelative, a.w.TxnsUnknown = true, true
		a.warn(shardkey.Errorf(a.file, 0, "", "a pg_stat_statements export holds call counts, with no time span and no transactions: absolute rates and capacity verdicts are unknown (the figures printed per second are the calls counted over the export's whole period, not rates), and so is which statements ran together (no cross-shard transaction share)"))
	case a.hasTS && (a.maxTS > a.minTS || a.res >= 1e6):
		span = logSpan(a.minTS, a.maxTS, a.res)
		a.spanWarnings(span)
	case a.window && a.stmts > 0:
		a.warn(shardkey.Errorf(a.file, 0, "", "the window is one instant (every statement at one timestamp): it has no duration, so its rates are unknown; its shares and ratios are of the statements counted"))
	case a.stmts > 0:
		a.warn(shardkey.Errorf(a.file, 0, "", "the log has no time span (timestamps missing or all equal): rates are statement counts"))
	}
	a.setTypes()
	a.finishCounts(span)
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
		o := &shardkey.Operation{Name: name, Table: op.table, Kind: op.kind, Rate: rate, UseVindex: op.use, IgnoreVindex: op.ignore, Counted: op.counted}
		samples := a.expand(op)
		if op.riderRes != nil {
			samples = slices.Concat(samples, op.riderRes.samples)
		}
		sum, riderSum := 0.0, 0.0
		for _, s := range samples {
			sum += s.w
			if s.rider() {
				riderSum += s.w
			}
		}
		// Riders and the others each weigh their own exact rate when
		// the sample holds both (opAgg.riders), else all weigh the
		// operation's rate by the sample's mix.
		leadRate, leadSum, riderRate, riderTotal := rate, sum, rate, sum
		if riderSum > 0 && riderSum < sum && op.riders > 0 && op.riders < op.count {
			leadRate, leadSum = (op.count-op.riders)/span, sum-riderSum
			riderRate, riderTotal = op.riders/span, riderSum
		}
		fv := int32(0)
		if len(samples) > 0 {
			o.Instances = make([]shardkey.Instance, 0, len(samples))
		}
		for _, s := range samples {
			wt := leadRate * s.w / leadSum
			if s.rider() {
				wt = riderRate * s.w / riderTotal
			}
			o.Instances = append(o.Instances, shardkey.Instance{Weight: wt, Seq: s.seq, Conds: a.conds(s, &fv), Peers: a.peers(s), Sets: a.sets(s), Parts: a.parts(s, &fv), Rider: s.rider()})
		}
		a.w.Ops = append(a.w.Ops, o)
		// The reservoir is converted: release it, so that the
		// collections finish runs into (the heap is near the memory
		// limit by now) free its memory for the instances that follow.
		op.kept, op.samples = len(op.samples), nil
		if op.riderRes != nil {
			op.riderRes.samples = nil
		}
	}
	for _, t := range a.txnList {
		if a.w.TxnsUnknown {
			break // statements of one call each, not transactions
		}
		rate := t.count / span
		samples := a.expandTxn(t)
		for _, stmts := range samples {
			tx := shardkey.Txn{Name: t.name, Weight: rate / float64(len(samples)), RolledBack: t.rolledBack}
			fv := int32(0)
			if len(stmts) > 0 {
				tx.Stmts = make([]shardkey.Stmt, 0, len(stmts))
			}
			for _, s := range stmts {
				tx.Stmts = append(tx.Stmts, shardkey.Stmt{Table: s.ai.op.table, Kind: s.ai.op.kind, Conds: a.conds(s, &fv), UseVindex: s.ai.op.use, IgnoreVindex: s.ai.op.ignore, Sets: a.sets(s), Rider: s.rides})
			}
			a.w.Txns = append(a.w.Txns, tx)
		}
		t.samples = nil // converted: released, as an operation's
	}
	a.fillRows()
	if a.txnCuts > 0 {
		a.warn(shardkey.Errorf(a.file, a.txnCutLine, "", "a transaction ran past %d statements without COMMIT (session %s; %d times in all): counted as transactions of %d statements each, so its cross-shard share is a lower bound", maxTxnStmts, clip(a.txnCutSession, 40), a.txnCuts, maxTxnStmts))
	}
	if a.rolledBack > 0 {
		a.w.RolledBackTxns += float64(a.rolledBack)
		msg := "%d transactions ended in ROLLBACK (the first here): their statements count as requests and work, but they committed nothing, so cross_shard_txn_fraction (a share of commits) leaves them out; the share of them that crossed shards before rolling back (a distributed transaction's prepare and abort, or locks held on several shards) is rolled_back_cross_shard_fraction"
		if a.rolledBack == 1 {
			msg = "%d transaction ended in ROLLBACK here: its statements count as requests and work, but it committed nothing, so cross_shard_txn_fraction (a share of commits) leaves it out; whether it crossed shards before rolling back (a distributed transaction's prepare and abort, or locks held on several shards) is rolled_back_cross_shard_fraction"
		}
		a.warn(shardkey.Errorf(a.rolledBackFile, a.rolledBackLine, "", msg, a.rolledBack))
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
			parts = append(parts, fmt.Sprintf("%q (%d×, first at line %d: %v)", clip(shapeShown(b.text), 80), b.count, b.line, b.err))
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

// noneParsed returns an error when statements were read but none of them
// parsed (in dialect d) and no operation came of the log: a workload of no
// operations is not what the log holds, and the parse errors, otherwise
// one warning among others, are the answer. It names the file and line of
// the first unparsable statement and lists the first three shapes' errors,
// each at its file:line.
func (a *agg) noneParsed(d Dialect) error {
	if a.badN == 0 || len(a.opList) > 0 || len(a.txnList) > 0 {
		return nil
	}
	var parts []string
	for i, b := range a.badList {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more shapes", len(a.badList)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("%s:%d: %v (%q)", b.file, b.line, b.err, b.sql))
	}
	what := fmt.Sprintf("none of its %d statements", a.badN)
	if a.badN == 1 {
		what = "its one statement"
	}
	first := a.badList[0]
	return shardkey.Errorf(first.file, first.line, "", "no statement could be read: %s could be parsed as %s SQL: %s", what, map[Dialect]string{Postgres: "PostgreSQL", MySQL: "MySQL"}[d], strings.Join(parts, "; "))
}

// openTxns counts the sessions whose transaction (after BEGIN, or with
// autocommit off) has statements on tables and no COMMIT or ROLLBACK
// yet, and names the first of them by session id.
func (a *agg) openTxns() (n int, first string) {
	for id, s := range a.sessions {
		if len(s.stmts) > 0 && (s.inTxn || s.autocommitOff) {
			n++
			if first == "" || id < first {
				first = id
			}
		}
	}
	return n, first
}

// openFloor is the share of the transactions counted, open ones
// included, that transactions still open at the log's end must reach for
// a warning: a log copied while the server wrote it ends inside one
// transaction a session, which in a busy log is noise; in a short one
// (the first megabyte of a log) it is a visible part of the share.
const openFloor = 0.01

// openAtEndWarning warns that n transactions were still open when the
// log ended, when they are at least openFloor of those counted: they
// are counted as committed with the statements the log holds, which
// may be fewer than they ran (the log cut short) and may include ones
// that rolled back after it.
func (a *agg) openAtEndWarning(n int, session string) {
	total := 0
	for _, t := range a.txnList {
		total += int(t.seen)
	}
	if total == 0 || float64(n) < openFloor*float64(total) {
		return
	}
	were := "were"
	if n == 1 {
		were = "was"
	}
	a.warn(shardkey.Errorf(a.file, 0, "", "%d of the %d transactions counted %s still open when the log ended (BEGIN, or autocommit off, with no COMMIT or ROLLBACK; session %s the first by id): counted as committed with the statements the log holds, so if the log was cut while they ran, statements of theirs are missing and cross_shard_txn_fraction may be understated; read a log that ends between transactions, or a longer one",
		n, total, were, clip(session, 40)))
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
	count := op.count - op.riders // its riders' samples are apart (opAgg.riderRes)
	if t.Rows == 0 || len(op.samples) == 0 || float64(len(op.samples)) >= count || len(op.samples) >= a.sample {
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
	n := int(math.Min(count, float64(a.lim.expandCap(len(a.opList)))))
	out := make([]sample, 0, n)
	for i := range n {
		s := op.samples[i%len(op.samples)]
		s.w = op.samples[i%len(op.samples)].w / math.Ceil(float64(n)/float64(len(op.samples)))
		out = append(out, s)
	}
	return out
}

// expandTxn returns t's samples. As expand does for an operation: when
// a statement's values are unknown (a pg_stat_statements shape, or $n
// without parameters) and its table has a row sample, it draws
// min(count, sample) transactions (within the statement budget,
// Options.MaxTxnStatements shared by the shapes), each taking its own
// values from the rows (see conds). One kept sample would otherwise give
// every call of the shape the same drawn values: the transaction would
// cross shards always or never, whatever the share of its calls that do.
func (a *agg) expandTxn(t *txnAgg) [][]sample {
	if len(t.samples) == 0 || float64(len(t.samples)) >= t.count || len(t.samples) >= a.sample {
		return t.samples
	}
	noValue, stmts := false, 0
	for _, stmt := range t.samples {
		stmts = max(stmts, len(stmt))
		for _, s := range stmt {
			if a.w.Tables[s.ai.op.table].Rows == 0 {
				continue
			}
			for _, v := range s.vals {
				noValue = noValue || v.kind == litNoValue
			}
		}
	}
	if !noValue {
		return t.samples
	}
	budget := max(1, a.lim.maxTxnStmts/max(1, len(a.txnList))/max(1, stmts))
	n := int(math.Min(t.count, float64(min(a.sample, budget))))
	if n <= len(t.samples) {
		return t.samples
	}
	out := make([][]sample, 0, n)
	for i := range n {
		out = append(out, t.samples[i%len(t.samples)])
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
	if t, ok := classifyQuick(l); ok {
		return t
	}
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

// classifyQuick is classify for the commonest values, without trying
// every type (shardkey.InferType parses a value as each type in turn, and
// setTypes classifies every sampled value): a number of at most 18 digits,
// perhaps negative, is an Int64 (strconv.ParseInt takes it); a string that
// starts with an ASCII letter and ends with a printable ASCII character is
// Text, being no integer or float (ParseFloat takes words only for
// infinities and NaN, which InferType refuses), no UUID (not 36 bytes
// with a dash at 8) and no timestamp (shorter than 10 bytes or no dash at
// 4). ok is false for the rest.
func classifyQuick(l lit) (shardkey.Type, bool) {
	s := l.s
	switch l.kind {
	case litNum:
		d := s
		if len(d) > 0 && d[0] == '-' {
			d = d[1:]
		}
		if len(d) == 0 || len(d) > 18 {
			return 0, false
		}
		for i := 0; i < len(d); i++ {
			if !isDigit(d[i]) {
				return 0, false
			}
		}
		return shardkey.Int64, true
	case litStr:
		if len(s) == 0 || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
			return 0, false
		}
		if e := s[len(s)-1]; e <= ' ' || e >= 0x7f {
			return 0, false
		}
		if len(s) == 36 && s[8] == '-' || len(s) >= 10 && s[4] == '-' {
			return 0, false
		}
		return shardkey.Text, true
	}
	return 0, false
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
			if !a.newCols[key] {
				k += len(p.args)
				continue
			}
			var tv *typeVote // looked up once per predicate
			for range p.args {
				vs := elemValues(s.vals[k : k+1])
				k++
				for _, v := range vs {
					if tv == nil {
						tv = votes[key]
						if tv == nil {
							tv = &typeVote{}
							votes[key] = tv
						}
					}
					if v.hint != shardkey.Null {
						if tv.hint != shardkey.Null && tv.hint != v.hint {
							tv.mix = true
						}
						tv.hint = v.hint
					}
					if tv.seen && tv.typ == shardkey.Text {
						continue // Text whatever comes (typeVote.add)
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
		if op.riderRes != nil {
			for _, s := range op.riderRes.samples {
				vote(s)
			}
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

// condSlice returns an empty slice with room for n conditions, carved
// from a chunk shared with other instances' conditions (one allocation
// per 1024 instead of one per instance); appending past n allocates, as
// appending to a slice of capacity n does.
func (a *agg) condSlice(n int) []shardkey.Cond {
	if n == 0 || n > 64 {
		return make([]shardkey.Cond, 0, n)
	}
	if len(a.condChunk)+n > cap(a.condChunk) {
		a.condChunk = make([]shardkey.Cond, 0, 1024)
	}
	at := len(a.condChunk)
	a.condChunk = a.condChunk[:at+n]
	return a.condChunk[at : at : at+n]
}

// conds converts a sample's values into conditions on its table.
func (a *agg) conds(s sample, fv *int32) []shardkey.Cond {
	if s.acc.none {
		return noRows(a.w.Tables[s.ai.op.table])
	}
	return a.condsInto(a.condSlice(len(s.acc.preds)), s, fv)
}

// condsInto is conds appending to out, an empty slice (unless s matches
// no row: noRows).
func (a *agg) condsInto(out []shardkey.Cond, s sample, fv *int32) []shardkey.Cond {
	t := a.w.Tables[s.ai.op.table]
	if s.acc.none {
		return noRows(t)
	}
	k := 0
	// via marks the condition pred i appended, if any, as another
	// read's (pred.via, shardkey.Cond.Via).
	prev, prevLen := -1, 0
	via := func() {
		if prev >= 0 && len(out) > prevLen && s.ai.vias != nil && s.ai.vias[prev] > 0 {
			p := &s.acc.preds[prev]
			c := &out[len(out)-1]
			c.Via, c.ViaPrefer, c.ViaSingle = int32(s.ai.vias[prev]), p.viaPrefer, p.viaSingle
			if p.viaGroup != "" {
				c.ViaGroupBy = int32(t.ColumnIndex(p.viaGroup) + 1)
			}
			if s.ai.viaTabs != nil {
				c.ViaTable, c.ViaTableCol = int32(s.ai.viaTabs[prev][0]), int32(s.ai.viaTabs[prev][1])
			}
		}
	}
	defer via()
	for i, p := range s.acc.preds {
		via()
		prev, prevLen = i, len(out)
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
				// an empty IN list does; col IS NULL (the only NULL
				// equality left here) matches no row by a key, but a
				// lookup cannot route it (Cond.IsNull).
				c.Op = shardkey.In
				c.IsNull = true
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
					c.Outside = "= " + litText(vals[0].lit)
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
				c.Fresh, c.FreshVar, c.Param = fresh, *fv, vals[0].param
			} else {
				c.Val = v
			}
		case shardkey.In:
			ok := true
			xs := elemValues(vals)
			for i, x := range xs {
				if x.kind == litNull {
					continue // x IN (NULL, 2) is x = 2: NULL equals no value
				}
				if x.unknownLen {
					c.Unknown = -1 // IN ::list, = ANY($1): how many, unknown
					c.Param = c.Param || x.param
					continue
				}
				v, fresh, ok1 := a.value(t, col, typ, x)
				if !ok1 && (x.kind == litNum || x.kind == litStr) {
					// Outside the column's type: matches no row (see Eq).
					if c.Outside == "" {
						c.Outside = "IN (" + litText(x.lit)
					} else if len(c.Outside) < 200 {
						c.Outside += ", " + litText(x.lit)
					}
					continue
				}
				if !ok1 {
					ok = false
					break
				}
				if fresh != shardkey.NotFresh {
					// A value known only at run time (a bind parameter
					// the log holds no value for, and no row sample to
					// draw one from): one more shard at most.
					if c.Unknown >= 0 {
						c.Unknown++
					}
					c.Param = c.Param || x.param
					continue
				}
				if c.List == nil {
					c.List = make([]shardkey.Value, 0, len(xs)-i) // room for the rest
				}
				c.List = append(c.List, v)
			}
			if !ok {
				continue
			}
			if c.Outside != "" {
				if len(c.List) > 0 || c.Unknown != 0 {
					c.Outside = ""
				} else {
					c.Outside += ")"
				}
			}
			if c.Unknown == 1 && len(c.List) == 0 {
				// IN ($1): one value, as = $1 (Vitess plans a one-value
				// tuple as an equality: planInOp in
				// go/vt/vtgate/planbuilder/operators/sharded_routing.go).
				*fv++
				c = shardkey.Cond{Col: col, Op: shardkey.Eq, Fresh: shardkey.FreshUnique, FreshVar: *fv, Param: c.Param}
			}
		case shardkey.Range:
			b := &shardkey.Bounds{}
			if p.hasLo {
				if v, fresh, ok := a.value(t, col, typ, vals[0]); ok && fresh == shardkey.NotFresh && !v.IsNull() {
					b.Lo, b.HasLo, b.LoIncl = v, true, p.loIncl
				} else if vals[0].kind == litNewest {
					b.LoNow, b.LoIncl = true, p.loIncl // > now() - interval '1 day'
					b.LoAgo, b.LoAgoOK = nowOffset(vals[0].lit)
				}
			}
			if p.hasHi {
				if v, fresh, ok := a.value(t, col, typ, vals[1]); ok && fresh == shardkey.NotFresh && !v.IsNull() {
					b.Hi, b.HasHi, b.HiIncl = v, true, p.hiIncl
				} else if vals[1].kind == litNewest {
					b.HiNow, b.HiIncl = true, p.hiIncl
					b.HiAgo, b.HiAgoOK = nowOffset(vals[1].lit)
				}
			}
			if !b.HasLo && !b.HasHi && !b.LoNow && !b.HiNow && !p.any {
				continue
			}
			c.Bounds = b
		}
		out = append(out, c)
	}
	return out
}

// litText is a literal as a statement writes it: a string quoted.
func litText(l lit) string {
	if l.kind != litStr {
		return l.s
	}
	plain := utf8.ValidString(l.s)
	for i := 0; i < len(l.s) && plain; i++ {
		plain = l.s[i] >= 0x20 && l.s[i] != 0x7f
	}
	if plain {
		return "'" + strings.ReplaceAll(l.s, "'", "''") + "'"
	}
	// Control characters or bytes that are no UTF-8 (the binary string
	// of b'101' or X'04') would garble the reason's line: written as an
	// escape string, E'\x05', as sim writes such values.
	var b strings.Builder
	b.WriteString("E'")
	for i := 0; i < len(l.s); {
		r, n := utf8.DecodeRuneInString(l.s[i:])
		switch {
		case r == utf8.RuneError && n <= 1 || r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, l.s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\'':
			b.WriteString(`''`)
		default:
			b.WriteString(l.s[i : i+n])
		}
		i += n
	}
	b.WriteString("'")
	return b.String()
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
		for _, e := range *v.elems {
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
		// (ContainsAny first: most values are integers, and ParseFloat
		// is the dearer test.)
		if strings.ContainsAny(s, ".eE") {
			if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) {
				s = strconv.FormatFloat(f, 'f', -1, 64)
			}
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

// sets returns s's SET columns (shardkey.Instance.Sets): those of the
// access's SET clause that the table has, typed, each with its new value
// when the statement gives one of the column's type, else a value known
// only at run time (a bind parameter without its value, an expression,
// a value that does not convert). Unlike a condition's, a bind
// parameter's missing value is not drawn from the rows (the samples'
// draws stay as they were) and a value that does not convert is not
// counted among the dropped ones: routing does not use them.
func (a *agg) sets(s sample) []shardkey.Cond {
	if len(s.acc.sets) == 0 || s.acc.none {
		return nil
	}
	t := a.w.Tables[s.ai.op.table]
	k := len(s.vals) - len(s.acc.sets)
	if k < 0 {
		return nil
	}
	var out []shardkey.Cond
	for j := range s.acc.sets {
		col := t.ColumnIndex(s.acc.sets[j].col)
		if col < 0 || t.Columns[col].Type == shardkey.Null {
			continue // a column no statement binds or inserts: no key, no lookup
		}
		if out == nil {
			out = a.condSlice(len(s.acc.sets))
		}
		v := s.vals[k+j]
		c := shardkey.Cond{Col: col, Op: shardkey.Eq, Fresh: shardkey.FreshUnique, Param: v.param}
		switch v.kind {
		case litNull:
			c.Fresh = shardkey.NotFresh
		case litNum, litStr:
			typ := t.Columns[col].Type
			if typ == shardkey.Bytes && v.kind == litStr {
				c.Fresh, c.Val = shardkey.NotFresh, shardkey.Value{Type: shardkey.Bytes, Str: v.s}
			} else if val, err := shardkey.ParseValue(v.s, typ); err == nil {
				c.Fresh, c.Val = shardkey.NotFresh, val
			}
		}
		if c.Fresh == shardkey.NotFresh {
			c.Param = false // a logged parameter's value: known
		}
		out = append(out, c)
	}
	return out
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

// parts returns s's statement parts (shardkey.Instance.Parts).
func (a *agg) parts(s sample, fv *int32) []shardkey.Part {
	ps := s.parts()
	if len(ps) == 0 {
		return nil
	}
	out := make([]shardkey.Part, 0, len(ps))
	for _, p := range ps {
		out = append(out, shardkey.Part{Table: p.ai.op.table, Conds: a.conds(p, fv), Peers: a.peers(p), Kind: p.ai.op.kind})
	}
	return out
}

// peers returns s's join peers (shardkey.Instance.Peers): each joined
// table's = and IN conditions with known values, and the columns the
// join equality ties.
func (a *agg) peers(s sample) []shardkey.Peer {
	var out []shardkey.Peer
	t := a.w.Tables[s.ai.op.table]
	for _, p := range s.peers() {
		ot := p.sib.ai.op.table
		col, ocol := t.ColumnIndex(p.eq.col), a.w.Tables[ot].ColumnIndex(p.eq.pcol)
		if col < 0 || ocol < 0 {
			continue
		}
		var fv int32
		// The sibling's conditions go to a scratch slice (most are
		// left out) and the kept ones to a slice of their number.
		all := a.condsInto(a.peerConds[:0], p.sib, &fv)
		if !p.sib.acc.none {
			a.peerConds = all[:0]
		}
		n := 0
		for _, c := range all {
			if peerCond(c, ocol) {
				n++
			}
		}
		if n == 0 {
			continue
		}
		conds := a.condSlice(n)
		for _, c := range all {
			if peerCond(c, ocol) {
				conds = append(conds, c)
			}
		}
		out = append(out, shardkey.Peer{Col: col, Table: ot, OtherCol: ocol, Conds: conds})
	}
	return out
}

// peerCond reports whether c, a condition of a join peer on its column
// other than ocol (the column the join equality ties), is one of its
// Peer.Conds: an = or IN with known values, the peer's own.
func peerCond(c shardkey.Cond, ocol int) bool {
	return c.Via == 0 && c.Col != ocol && (c.Op == shardkey.Eq && c.Fresh == shardkey.NotFresh || c.Op == shardkey.In && c.Unknown == 0 && len(c.List) > 0)
}

// shapeShown returns a shape's text as a user reads it: the placeholders
// that stand for its literals ($100001 and up, slotBase) written "?"; a
// statement's own $n parameters are left as they are.
func shapeShown(text string) string {
	if !strings.Contains(text, "$") {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] == '$' {
			j := i + 1
			for j < len(text) && text[j] >= '0' && text[j] <= '9' {
				j++
			}
			if n, err := strconv.Atoi(text[i+1 : j]); err == nil && n > slotBase {
				b.WriteByte('?')
				i = j - 1
				continue
			}
		}
		b.WriteByte(text[i])
	}
	return b.String()
}
