package sqllog

import (
	"slices"
	"strings"
	"time"

	"github.com/shardkey/shardkey"
)

// Memory is bounded by what must be kept, whatever the log's length:
//
//   - Operation instances: each operation shape keeps a seeded reservoir
//     of at most Options.Sample instances (4096 by default), and all of
//     them together at most Options.MaxInstances (262,144 by default).
//     When a new instance would pass the total, every reservoir's cap is
//     halved (down to 1) and the fuller reservoirs are thinned to it by a
//     seeded random choice: a random part of a uniform sample is a uniform
//     sample, and the reservoir goes on with the smaller cap (Vitter's
//     algorithm R). Counts, and so rates, stay exact.
//   - Values of an operation's instances: a shape keeps at most
//     shapeValues (262,144) values over its sampled instances, so a shape
//     whose instances hold long IN lists (up to MaxListValues, 4,096,
//     each; longlist.go) keeps fewer of them: 64 of lists of 4,096. When
//     an instance holds more values than any before, the reservoir's cap
//     becomes shapeValues over that count and the reservoir is thinned
//     to it as above. Shapes of up to 64 values an instance keep
//     Options.Sample instances.
//   - Transactions: the same for transaction shapes, counted in
//     statements: at most Options.MaxTxnStatements (131,072 by default)
//     over all transaction samples. Every shape keeps at least one
//     sampled instance or transaction, so a log of more shapes than a
//     budget holds keeps one of each.
//   - Kept values are copied out of the statement text, so a sample does
//     not hold the whole statement (a multi-row INSERT's text) alive.
//   - Open transactions: a session idle for Options.IdleTimeout (8 hours by
//     default: MySQL's wait_timeout, after which the server closes the
//     connection and rolls the transaction back; PostgreSQL has no
//     default limit) has its open transaction closed and counted, as at a
//     disconnection. Without timestamps, and in any case beyond
//     maxOpenSessions sessions with state, the least recently active half
//     is closed the same way. An open transaction holds at most
//     maxTxnStmts statements.
//   - Value counts (traffic.go): each column of a table without a row
//     sample bound by = or IN counts every statement's values exactly, at
//     most 65,536 distinct values a column and Options.MaxCountedValues
//     (262,144 by default, about 28 MB) over all columns: when a new
//     value would pass the total, the per-column cap is halved and each
//     column's values first seen past it move to its k-minimum-values
//     sketch (1,024 hashes, 8 kB). Totals stay exact; a value first seen
//     past the cap is counted in the total and the distinct estimate, not
//     among the top values.
//   - Statement shapes: at most maxCached parsed templates (cache.go).
//     Integer arithmetic over literals (3001 - 20) is in placeholders, not
//     in the shape text (see normalize), so a client that writes computed
//     values into its SQL does not add a template per value.
const (
	defaultMaxInstances     = 1 << 18
	defaultMaxTxnStatements = 1 << 17
	defaultIdleTimeout      = 8 * time.Hour
	maxOpenSessions         = 1 << 16
)

// limits holds the current caps and what is kept.
type limits struct {
	sample                    int // Options.Sample
	opCap, txnCap             int // current cap of each reservoir
	maxInstances, maxTxnStmts int
	opKept, txnKept           int
	idle                      int64 // microseconds
	nextSweep, nextSeqSweep   int64
	idleClosed, crowdClosed   int
	// countCap is the current cap of values counted exactly per column,
	// countKept how many all columns hold (traffic.go).
	countCap, countKept, maxCounted int
}

func newLimits(o Options, sample int) limits {
	l := limits{sample: sample, opCap: sample, txnCap: sample,
		maxInstances: o.MaxInstances, maxTxnStmts: o.MaxTxnStatements,
		idle: int64(o.IdleTimeout / time.Microsecond), nextSeqSweep: maxOpenSessions}
	if l.maxInstances <= 0 {
		l.maxInstances = defaultMaxInstances
	}
	if l.maxTxnStmts <= 0 {
		l.maxTxnStmts = defaultMaxTxnStatements
	}
	l.countCap, l.maxCounted = exactValues, o.MaxCountedValues
	if l.maxCounted <= 0 {
		l.maxCounted = defaultMaxCountedValues
	}
	if o.IdleTimeout == 0 {
		l.idle = int64(defaultIdleTimeout / time.Microsecond)
	}
	return l
}

// detach returns vals with their strings copied into one new string, so
// that they no longer point into the statement's text.
func (l *limits) detach(vals []rv) []rv { return l.detachInto(nil, vals) }

// detachInto is detach copying the values into reuse when it has room:
// the values of an instance the reservoir drops for this one, which
// nothing else holds (a reservoir's values are its own copies).
func (l *limits) detachInto(reuse, vals []rv) []rv {
	n := 0
	for i := range vals {
		n += len(vals[i].s)
		for _, e := range vals[i].elemList() {
			n += len(e.s)
		}
	}
	var out []rv
	if vals != nil && reuse != nil && cap(reuse) >= len(vals) {
		out = reuse[:len(vals):len(vals)]
		copy(out, vals)
	} else {
		out = slices.Clone(vals)
	}
	if n == 0 {
		return out
	}
	var sb strings.Builder
	sb.Grow(n)
	for i := range out {
		sb.WriteString(out[i].s)
		for _, e := range out[i].elemList() {
			sb.WriteString(e.s)
		}
	}
	buf := sb.String()
	for i := range out {
		out[i].s, buf = buf[:len(out[i].s)], buf[len(out[i].s):]
		if out[i].elems != nil {
			elems := slices.Clone(*out[i].elems)
			for k := range elems {
				e := &elems[k]
				e.s, buf = buf[:len(e.s)], buf[len(e.s):]
			}
			out[i].elems = &elems
		}
	}
	return out
}

// detachStmts copies a transaction's statements and detaches their
// values, all of them into one slice of values and one string (the
// transaction is kept or replaced whole).
func (l *limits) detachStmts(stmts []sample) []sample { return l.detachStmtsInto(nil, stmts) }

// detachStmtsInto is detachStmts reusing the statements and values of
// reuse, a transaction the reservoir drops for this one (which nothing
// else holds), where they have room: the statements' slice when it holds
// as many, each statement's values where the dropped one at its place
// had as many or more.
func (l *limits) detachStmtsInto(reuse, stmts []sample) []sample {
	if stmts == nil {
		return nil
	}
	reusing := reuse != nil && cap(reuse) >= len(stmts)
	var out []sample
	if reusing {
		out = reuse[:len(stmts)]
	} else {
		out = make([]sample, len(stmts))
	}
	// inPlace: the dropped statement at i has room for i's values.
	inPlace := func(i int) bool {
		return reusing && out[i].vals != nil && cap(out[i].vals) >= len(stmts[i].vals)
	}
	nv, ns := 0, 0
	for i := range stmts {
		if !inPlace(i) {
			nv += len(stmts[i].vals)
		}
		for _, v := range stmts[i].vals {
			ns += len(v.s)
			for _, e := range v.elemList() {
				ns += len(e.s)
			}
		}
	}
	var vals []rv
	if nv > 0 {
		vals = make([]rv, 0, nv)
	}
	var sb strings.Builder
	sb.Grow(ns)
	for i := range stmts {
		for _, v := range stmts[i].vals {
			sb.WriteString(v.s)
			for _, e := range v.elemList() {
				sb.WriteString(e.s)
			}
		}
	}
	buf := sb.String()
	for i := range stmts {
		sv := stmts[i].vals
		var dst []rv
		switch {
		case sv == nil:
			// nil stays nil, as slices.Clone keeps it
		case inPlace(i):
			dst = out[i].vals[:len(sv):len(sv)]
		default:
			n := len(vals)
			vals = vals[:n+len(sv)]
			dst = vals[n : n+len(sv) : n+len(sv)]
		}
		out[i] = stmts[i]
		for k, v := range sv {
			v.s, buf = buf[:len(v.s)], buf[len(v.s):]
			if v.elems != nil {
				elems := slices.Clone(*v.elems)
				for k := range elems {
					e := &elems[k]
					e.s, buf = buf[:len(e.s)], buf[len(e.s):]
				}
				v.elems = &elems
			}
			dst[k] = v
		}
		out[i].vals = dst
	}
	return out
}

// expandCap is how many instances expand may draw for one operation of
// nops: the sample size, within the instance budget.
func (l *limits) expandCap(nops int) int {
	return min(l.sample, max(1, l.maxInstances/max(1, nops)))
}

// shapeValues bounds the values an operation's sampled instances hold in
// all (see opCapOf).
const shapeValues = 1 << 18

// opCapOf returns the cap of op's reservoir: the current cap, or less when
// its instances hold so many values that the cap would keep more than
// shapeValues of them.
func (a *agg) opCapOf(op *opAgg) int {
	k := a.lim.opCap
	if op.maxVals > 0 {
		k = min(k, max(1, shapeValues/op.maxVals))
	}
	return k
}

// sampleValues returns the values an instance holds: its own, its
// peers' and its parts' (a multi-row INSERT's other rows), an array's
// elements each one.
func sampleValues(sm *sample) int {
	n := rvCount(sm.vals)
	for _, pe := range sm.peers() {
		n += rvCount(pe.sib.vals)
	}
	for _, p := range sm.parts() {
		n += rvCount(p.vals)
	}
	return n
}

func rvCount(vals []rv) int {
	n := len(vals)
	for i := range vals {
		n += len(vals[i].elemList())
	}
	return n
}

// keptInstance counts a new instance kept and thins the reservoirs when
// the total passes the budget.
func (a *agg) keptInstance() {
	a.lim.opKept++
	for a.lim.opKept > a.lim.maxInstances && a.lim.opCap > 1 {
		a.lim.opCap /= 2
		for _, op := range a.opList {
			for _, res := range [...]*opAgg{op, op.riderRes} {
				if res != nil && len(res.samples) > a.lim.opCap {
					a.lim.opKept -= len(res.samples) - a.lim.opCap
					res.samples = thin(a, res.samples, a.lim.opCap)
				}
			}
		}
	}
}

// keptStatements counts n statements more kept in transaction samples and
// thins the reservoirs when the total passes the budget.
func (a *agg) keptStatements(n int) {
	a.lim.txnKept += n
	for a.lim.txnKept > a.lim.maxTxnStmts && a.lim.txnCap > 1 {
		a.lim.txnCap /= 2
		for _, t := range a.txnList {
			if len(t.samples) > a.lim.txnCap {
				for _, x := range t.samples {
					a.lim.txnKept -= len(x)
				}
				t.samples = thin(a, t.samples, a.lim.txnCap)
				for _, x := range t.samples {
					a.lim.txnKept += len(x)
				}
			}
		}
	}
}

// thin keeps k of s chosen uniformly at random (seeded), in their order.
func thin[T any](a *agg, s []T, k int) []T {
	keep := make([]bool, len(s))
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	for i := 0; i < k; i++ { // partial Fisher-Yates
		j := i + a.rng.IntN(len(idx)-i)
		idx[i], idx[j] = idx[j], idx[i]
		keep[idx[i]] = true
	}
	out := s[:0]
	for i, v := range s {
		if keep[i] {
			out = append(out, v)
		}
	}
	clear(s[len(out):])
	return out
}

// sweep closes, as at a disconnection, the open transactions of sessions
// idle longer than the idle timeout (when entries have times) and, when
// too many sessions hold state, of the least recently active half.
func (a *agg) sweep(now int64, hasTS bool) {
	if hasTS {
		a.lim.nextSweep = now + 60e6 // once a minute of log time
		if a.lim.idle > 0 {
			var idle []string
			for id, s := range a.sessions {
				if s.last != 0 && now-s.last > a.lim.idle {
					idle = append(idle, id)
				}
			}
			slices.Sort(idle)
			for _, id := range idle {
				if len(a.sessions[id].stmts) > 0 {
					a.lim.idleClosed++
				}
				a.endSession(id)
			}
		}
	}
	a.lim.nextSeqSweep = a.seq + maxOpenSessions
	if len(a.sessions) <= maxOpenSessions {
		return
	}
	type idSeq struct {
		id  string
		seq int64
	}
	all := make([]idSeq, 0, len(a.sessions))
	for id, s := range a.sessions {
		all = append(all, idSeq{id, s.lastSeq})
	}
	slices.SortFunc(all, func(x, y idSeq) int {
		if x.seq != y.seq {
			return int(x.seq - y.seq)
		}
		return strings.Compare(x.id, y.id)
	})
	for _, x := range all[:len(all)/2] {
		if len(a.sessions[x.id].stmts) > 0 {
			a.lim.crowdClosed++
		}
		a.endSession(x.id)
	}
}

// limitWarnings reports what the bounds changed.
func (a *agg) limitWarnings() {
	if a.lim.opCap < a.sample {
		a.warn(shardkey.Errorf(a.file, 0, "", "the log has more statement shapes than the instance budget holds at %d instances each: operations keep at most %d sampled instances (of %d in all; rates count every statement)", a.sample, a.lim.opCap, a.lim.maxInstances))
	}
	for _, op := range a.opList {
		if k := a.opCapOf(op); k < a.lim.opCap && op.resSeen > int64(k) {
			// (Its riders, in a reservoir of their own, are not these.)
			a.warn(shardkey.Errorf(a.file, 0, "", "operation %s keeps %d sampled instances of its %d, not %d: each holds up to %d values, and an operation's sample holds at most %d values (its rate counts every statement)", op.name, op.kept, op.resSeen, min(int64(a.lim.opCap), op.resSeen), op.maxVals, shapeValues))
		}
	}
	if a.lim.txnCap < a.sample {
		a.warn(shardkey.Errorf(a.file, 0, "", "transaction shapes keep at most %d sampled transactions each (a budget of %d statements in all; rates count every transaction)", a.lim.txnCap, a.lim.maxTxnStmts))
	}
	if a.lim.countCap < exactValues {
		a.warn(shardkey.Errorf(a.file, 0, "", "the log binds more distinct values than the value budget holds at %d a column: the key statistics count at most %d distinct values of a column exactly (of %d in all) and estimate the rest (their shares are in the totals, not among the top values)", exactValues, a.lim.countCap, a.lim.maxCounted))
	}
	if a.lim.idleClosed > 0 {
		a.warn(shardkey.Errorf(a.file, 0, "", "%d open transactions of sessions idle for more than %s were closed and counted, as the server closes an idle connection", a.lim.idleClosed, time.Duration(a.lim.idle)*time.Microsecond))
	}
	if a.lim.crowdClosed > 0 {
		a.warn(shardkey.Errorf(a.file, 0, "", "%d open transactions were closed and counted early: more than %d sessions were open at once", a.lim.crowdClosed, maxOpenSessions))
	}
}
