package input

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"unsafe"

	"github.com/shardkey/shardkey"
)

// Streaming: with Builder.Sink set and every table given a row sample,
// ReadQueries and ReadTxns route each line as it is parsed, on the parsing
// goroutine, into the sink's batch, and keep nothing but the operations
// (name, table, kind, rate). Lines of the common shape (scalar equalities,
// integers without fraction or exponent, strings without escapes) are read
// by scan below, which makes no allocation; any other line goes through the
// fastjson parser, so both paths accept and reject the same input with the
// same messages.

// scanned is one line read by scan (or converted from a jline): its
// conditions, grouped (the where clause is one group; each write of a
// transaction is one), and its scalar fields. Strings are views of the
// line's bytes.
type scanned struct {
	conds  []jcond
	groups []span  // each group's conditions in conds
	set    []jcond // an update's new values (a line parseLine read)
	lineMeta
}

// span is a group's conditions, conds[lo:hi]. A write that repeats the
// previous one byte for byte shares its span (scan reads it once), so a
// group can be recognised as a repetition by its span.
type span struct{ lo, hi int }

// reset empties s for the next line. Fields are written only when they
// change: s lives on the heap, and rewriting its strings and slices
// whole for each of millions of lines cost write barriers while a
// collection marks (2.5% of seed 000's score).
func (s *scanned) reset() {
	s.conds = s.conds[:0]
	s.groups = s.groups[:0]
	s.set = s.set[:0]
	m := &s.lineMeta // every field (TestScannedReset)
	m.hasWhr, m.hasWr, m.hasWt, m.hasTbl, m.weight = false, false, false, false, 1
	if m.table != "" {
		m.table = ""
	}
	if m.kind != "" {
		m.kind = ""
	}
	if m.name != "" {
		m.name = ""
	}
	if m.latency != "" {
		m.latency = ""
	}
}

// group returns the conditions of group g.
func (s *scanned) group(g int) []jcond { return s.conds[s.groups[g].lo:s.groups[g].hi] }

// repeats reports whether group g is a byte-for-byte repetition of group
// g-1 (same conditions, read once).
func (s *scanned) repeats(g int) bool { return g > 0 && s.groups[g] == s.groups[g-1] }

// view returns b as a string without copying; b must not change while the
// string is in use (a batch's bytes never do).
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanStr reads a string without escapes or control characters at b[i]
// (its opening quote) and returns its contents and the index after it.
func scanStr(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return view(b[i+1 : j]), j + 1, true
		case c == '\\' || c < 0x20:
			return "", 0, false
		}
	}
	return "", 0, false
}

// scanScalar reads a condition value into v, which must be zero (a
// condition just appended): a plain string, an integer of at most 18
// digits, or null. (Zeroing it here again cost write barriers while a
// collection marks: 1% of seed 000's score.)
func scanScalar(v *scalar, b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		s, j, ok := scanStr(b, i)
		v.str, v.isStr = s, true
		return j, ok
	case c == 'n':
		if len(b)-i >= 4 && string(b[i:i+4]) == "null" {
			v.null = true
			return i + 4, true
		}
	case c == '-' || c >= '0' && c <= '9':
		n, j, ok := scanInt(b, i)
		if ok {
			v.isInt, v.i = true, n
		}
		return j, ok
	}
	return 0, false
}

// scanInt reads an integer of at most 18 digits, without fraction or
// exponent, at b[i] and returns it and the index after it.
func scanInt(b []byte, i int) (int64, int, bool) {
	j := i
	neg := j < len(b) && b[j] == '-'
	if neg {
		j++
	}
	start := j
	var n int64
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		n = n*10 + int64(b[j]-'0')
		j++
	}
	d := j - start
	if d == 0 || d > 18 || d > 1 && b[start] == '0' {
		return 0, 0, false
	}
	if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
		return 0, 0, false
	}
	if neg {
		n = -n
	}
	return n, j, true
}

// scanObject reads {"col": scalar, ...} at b[i] into s.conds as one group,
// sorted by column name as parseWhere sorts it.
func scanObject(s *scanned, b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '{' {
		return 0, false
	}
	start := len(s.conds)
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		s.groups = append(s.groups, span{start, start})
		return i + 1, true
	}
	for {
		col, j, ok := scanStr(b, i)
		if !ok {
			return 0, false
		}
		i = skipWS(b, j)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		// The condition is filled in place: no copies of the structs.
		// It is zero, as scanScalar wants.
		s.conds = append(s.conds, jcond{})
		c := &s.conds[len(s.conds)-1]
		c.col, c.op = col, shardkey.Eq
		j, ok = scanScalar(&c.one, b, skipWS(b, i+1))
		if !ok {
			return 0, false
		}
		i = skipWS(b, j)
		if i >= len(b) {
			return 0, false
		}
		if b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		if b[i] != '}' {
			return 0, false
		}
		i++
		break
	}
	g := s.conds[start:]
	for k := 1; k < len(g); k++ { // insertion sort: a handful of columns
		for m := k; m > 0 && g[m].col < g[m-1].col; m-- {
			g[m], g[m-1] = g[m-1], g[m]
		}
	}
	for k := 1; k < len(g); k++ {
		if g[k].col == g[k-1].col {
			return 0, false // a repeated column: the slow path decides
		}
	}
	s.groups = append(s.groups, span{start, len(s.conds)})
	return i, true
}

// scan reads a query (txns false) or transaction line of the common shape
// into s. It reports false for anything else, which the caller then parses
// with fastjson: unknown or repeated fields, IN lists and ranges, floats,
// escapes, and every malformed line.
func scan(s *scanned, b []byte, txns bool) bool {
	s.reset()
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipWS(b, i+1) == len(b)
	}
	for {
		key, j, ok := scanStr(b, i)
		if !ok {
			return false
		}
		i = skipWS(b, j)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		switch {
		case key == "where" && !txns && !s.hasWhr:
			s.hasWhr = true
			if i, ok = scanObject(s, b, i); !ok {
				return false
			}
		case key == "writes" && txns && !s.hasWr:
			s.hasWr = true
			if i >= len(b) || b[i] != '[' {
				return false
			}
			i = skipWS(b, i+1)
			if i < len(b) && b[i] == ']' {
				i++
				break
			}
			prev := []byte(nil) // the previous write's bytes
			for {
				if n := len(prev); n > 0 && len(b)-i >= n && string(b[i:i+n]) == string(prev) {
					// The same bytes as the previous write: a JSON
					// object ends at its own closing brace, so these
					// bytes are that same complete object. Transactions
					// repeat writes keyed alike (an order's lines); one
					// reading serves them all.
					s.groups = append(s.groups, s.groups[len(s.groups)-1])
					i += n
				} else {
					start := i
					if i, ok = scanObject(s, b, i); !ok {
						return false
					}
					prev = b[start:i]
				}
				i = skipWS(b, i)
				if i < len(b) && b[i] == ',' {
					i = skipWS(b, i+1)
					continue
				}
				if i >= len(b) || b[i] != ']' {
					return false
				}
				i++
				break
			}
		case key == "weight" && !s.hasWt:
			j := i
			for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '-' || b[j] == '+' || b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
				j++
			}
			f, ok := exactFloat(view(b[i:j]))
			var err error
			if !ok {
				f, err = strconv.ParseFloat(view(b[i:j]), 64)
			}
			if err != nil || i == j || b[i] == '+' || b[i] == '.' {
				return false
			}
			s.weight, s.hasWt, i = f, true, j
		case key == "table" && !s.hasTbl:
			if s.table, i, ok = scanStr(b, i); !ok {
				return false
			}
			s.hasTbl = true
		case key == "name" && s.name == "":
			if s.name, i, ok = scanStr(b, i); !ok || s.name == "" {
				return false
			}
		case key == "kind" && !txns && s.kind == "":
			if s.kind, i, ok = scanStr(b, i); !ok || s.kind == "" {
				return false
			}
		case key == "latency" && !txns && s.latency == "":
			if s.latency, i, ok = scanStr(b, i); !ok || s.latency == "" {
				return false
			}
		default:
			return false
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return false
		}
		if b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		if b[i] != '}' {
			return false
		}
		return skipWS(b, i+1) == len(b)
	}
}

// fromJline fills s from a line parsed by parseLine.
func (s *scanned) fromJline(jl *jline) {
	s.reset()
	s.lineMeta = jl.lineMeta
	s.set = append(s.set, jl.set...)
	if jl.hasWhr {
		s.conds = append(s.conds, jl.where...)
		s.groups = append(s.groups, span{0, len(s.conds)})
	}
	for _, w := range jl.writes {
		lo := len(s.conds)
		s.conds = append(s.conds, w...)
		s.groups = append(s.groups, span{lo, len(s.conds)})
	}
}

// scanLine parses a line for the materialised reader: with scan when the
// line has the common shape (strings copied or interned, since the line's
// bytes are not kept), else with fastjson.
func scanLine(p *lineParser, b []byte, line int, txns bool) jline {
	s := &p.sc
	if !scan(s, b, txns) {
		return parseLine(p, b, line)
	}
	jl := jline{line: line, lineMeta: s.lineMeta}
	jl.table, jl.kind = strings.Clone(s.table), strings.Clone(s.kind)
	jl.name, jl.latency = strings.Clone(s.name), strings.Clone(s.latency)
	own := func(g []jcond) []jcond {
		out := make([]jcond, len(g))
		for i, c := range g {
			c.col = p.intern([]byte(c.col))
			if c.one.isStr {
				if len(c.one.str) <= 24 {
					c.one.str = p.intern([]byte(c.one.str)) // months, statuses, codes repeat
				} else {
					c.one.str = strings.Clone(c.one.str)
				}
			}
			out[i] = c
		}
		return out
	}
	if s.hasWhr {
		jl.where = own(s.group(0))
	}
	for g := 0; g < len(s.groups) && s.hasWr; g++ {
		if s.repeats(g) {
			jl.writes = append(jl.writes, jl.writes[g-1]) // read once, held once
			continue
		}
		jl.writes = append(jl.writes, own(s.group(g)))
	}
	return jl
}

// localOp is an operation as first used within one streamed batch.
type localOp struct {
	key     string // appendShapeKey
	ti      int
	kind    shardkey.Kind
	name    string
	latency string
	conds   []shardkey.Cond // Col and Op of the first instance, for ShapeName
	rate    float64
}

// streamState is one parsing goroutine's scratch for streaming.
type streamState struct {
	sc    scanned
	conds []shardkey.Cond
	stmts []shardkey.Stmt
	cols  []string
	key   []byte
	local map[string]int
	q     routeQueue
	// tm are the file's line templates (template.go); gen numbers the
	// batch being read, for their operations.
	tm    lineTmpl
	gen   uint64
	spans []span
}

// toucher is a batch that can load, ahead of routing a statement, the
// memory routing it will read (sim.StreamBatch: a costly engine's memo
// tables, several MB, where each statement's lookup misses the cache).
type toucher interface {
	Touches() bool
	Touch(table int, conds []shardkey.Cond, pass int)
	Load()
}

// queueLen is the number of lines routed together (routeQueue): enough
// for the cache misses of their lookups to overlap, few enough that what
// is touched is still cached when routed.
const queueLen = 16

// routeQueue holds a few parsed lines whose routing is deferred: touched
// together first (toucher), then routed in line order, so the result is
// the one of routing each line as it is read. Errors name the line that
// failed. Only lines read by the scanner (their text values are views of
// the batch's bytes, valid until the batch is merged) with plain equality
// conditions (no lists or bounds held in scratch) are queued.
type routeQueue struct {
	t     toucher
	items []queuedLine
	conds []shardkey.Cond
	stmts []shardkey.Stmt
}

// queuedLine is one deferred line: a query (op, ti, kind; its conditions
// conds[lo:hi]) or a transaction (its statements stmts[lo:hi]).
type queuedLine struct {
	line   int
	txn    bool
	op, ti int
	kind   shardkey.Kind
	w      float64
	lo, hi int
}

// queueable reports whether conds can be copied and routed later.
func queueable(conds []shardkey.Cond) bool {
	for i := range conds {
		c := &conds[i]
		if c.Op != shardkey.Eq || c.Via != 0 || c.List != nil || c.Bounds != nil {
			return false
		}
	}
	return true
}

// addQuery queues a query line.
func (q *routeQueue) addQuery(line, op, ti int, kind shardkey.Kind, conds []shardkey.Cond, w float64) {
	lo := len(q.conds)
	q.conds = append(q.conds, conds...)
	q.items = append(q.items, queuedLine{line: line, op: op, ti: ti, kind: kind, w: w, lo: lo, hi: len(q.conds)})
}

// addTxn queues a transaction line; a statement repeated (sharing its
// predecessor's conditions) shares the copy too, as the router expects.
func (q *routeQueue) addTxn(line int, stmts []shardkey.Stmt, w float64) {
	lo := len(q.stmts)
	for k, st := range stmts {
		if k > 0 && len(st.Conds) > 0 && len(st.Conds) == len(stmts[k-1].Conds) && &st.Conds[0] == &stmts[k-1].Conds[0] {
			st.Conds = q.stmts[len(q.stmts)-1].Conds
		} else {
			c := len(q.conds)
			q.conds = append(q.conds, st.Conds...)
			st.Conds = q.conds[c:len(q.conds):len(q.conds)]
		}
		q.stmts = append(q.stmts, st)
	}
	q.items = append(q.items, queuedLine{line: line, txn: true, w: w, lo: lo, hi: len(q.stmts)})
}

// flush touches the queued lines, then routes them in order into sb; it
// returns the first error, with its line.
func (q *routeQueue) flush(sb shardkey.Batch, file string) error {
	if len(q.items) == 0 {
		return nil
	}
	for pass := range 2 {
		for i := range q.items {
			it := &q.items[i]
			if it.txn {
				for k := it.lo; k < it.hi; k++ {
					if c := q.stmts[k].Conds; k == it.lo || len(c) == 0 || &c[0] != &q.stmts[k-1].Conds[0] {
						q.t.Touch(q.stmts[k].Table, c, pass)
					}
				}
			} else {
				q.t.Touch(it.ti, q.conds[it.lo:it.hi], pass)
			}
		}
		q.t.Load()
	}
	var err error
	for i := range q.items {
		it := &q.items[i]
		if it.txn {
			if e := sb.Txn(q.stmts[it.lo:it.hi], it.w); e != nil {
				err = shardkey.Errorf(file, it.line, "writes", "%v", e)
				break
			}
		} else if e := sb.Instance(it.op, it.ti, it.kind, q.conds[it.lo:it.hi], nil, it.w); e != nil {
			err = shardkey.Errorf(file, it.line, "where", "%v", e)
			break
		}
	}
	q.items, q.stmts = q.items[:0], q.stmts[:0]
	// The copies are overwritten from now on; the batch holds none (a
	// router keeps no conditions between calls).
	q.conds = q.conds[:0]
	return err
}

// colsOf returns the columns of conds when the line's table is to be
// chosen among several (multi), else none: only that choice needs them.
func (st *streamState) colsOf(multi bool, conds []jcond) []string {
	st.cols = st.cols[:0]
	if multi {
		for k := range conds {
			st.cols = append(st.cols, conds[k].col)
		}
	}
	return st.cols
}

// stream reads file into b.Sink (see the comment at the top of this file).
func (b *Builder) stream(file string, txns bool) error {
	f, err := openInput(file)
	if err != nil {
		return err
	}
	defer f.Close()
	what := "query"
	if txns {
		what = "transaction"
	}
	work := func(p *lineParser, bt *batch) {
		if p.st == nil {
			p.st = &streamState{local: map[string]int{}}
		}
		st := p.st
		clear(st.local)
		st.gen++
		bt.sb = b.Sink.NewBatch()
		// Nothing is left queued from a batch whose work a fault of
		// its mapped bytes cut short (forEachBatch recovers it; the
		// read fails, and this parser goes on to other batches).
		st.q.t, st.q.items, st.q.stmts, st.q.conds = nil, st.q.items[:0], st.q.stmts[:0], st.q.conds[:0]
		if t, ok := bt.sb.(toucher); ok && t.Touches() {
			st.q.t = t
		}
		first := max(bt.first, 1) // lines counted from the batch's first when not known
		// The batch's lines as split cuts them (each to its newline,
		// trimmed; blank ones counted), walked without cutting them
		// first: a line of a known template is matched where it starts
		// and ends at its newline (streamTemplate), so the common line
		// is read once rather than searched for its end and trimmed
		// before.
		data := bt.buf
		i := 0
		for ; len(data) > 0; i++ {
			n, ok, err := b.streamTemplate(p, bt, file, data, first+i, txns)
			if !ok {
				l := data
				if k := bytes.IndexByte(data, '\n'); k >= 0 {
					l, data = data[:k], data[k+1:]
				} else {
					data = nil
				}
				l = bytes.TrimSpace(l)
				if len(l) == 0 {
					continue
				}
				err = b.streamLine(p, bt, file, l[:len(l):len(l)], first+i, txns)
			} else if data = data[n:]; len(data) > 0 {
				data = data[1:] // the newline
			}
			if err != nil {
				// A queued line before this one fails first.
				if qerr := st.q.flush(bt.sb, file); qerr != nil {
					err = qerr
				}
				bt.err = err
				return
			}
			bt.n++
		}
		bt.nlines = i
		if err := st.q.flush(bt.sb, file); err != nil {
			bt.err = err
		}
	}
	n := 0
	next := 1 // line number of the next batch's first line
	var opIdx map[*shardkey.Operation]int
	err = forEachBatch(file, f, true, work, func(bt *batch) error {
		if bt.err != nil {
			if ie := (*shardkey.InputError)(nil); bt.first == 0 && errors.As(bt.err, &ie) && ie.File == file && ie.Line > 0 {
				ie.Line += next - 1 // numbered within the batch
			}
			return bt.err
		}
		next += bt.nlines
		ops := make([]int, len(bt.ops))
		for i := range bt.ops {
			lo := &bt.ops[i]
			op := b.shapes[lo.key]
			if op == nil {
				name := lo.name
				if name == "" {
					name = shardkey.ShapeName(b.W.Tables[lo.ti], lo.kind, lo.conds)
				}
				op = &shardkey.Operation{Name: name, Table: lo.ti, Kind: lo.kind, Latency: lo.latency}
				b.shapes[lo.key] = op
				b.W.Ops = append(b.W.Ops, op)
			}
			if opIdx == nil {
				opIdx = map[*shardkey.Operation]int{}
				for k, o := range b.W.Ops {
					opIdx[o] = k
				}
			}
			k, ok := opIdx[op]
			if !ok {
				k = len(b.W.Ops) - 1
				opIdx[op] = k
			}
			op.Rate += lo.rate
			ops[i] = k
		}
		b.Sink.Merge(bt.sb, ops)
		bt.sb = nil
		n += bt.n
		return nil
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return shardkey.Errorf(file, 1, "", "empty file: want one %s per line", what)
	}
	return nil
}

// The fields a query line and a transaction line may have.
var (
	queryFields = []string{"where", "set", "weight", "table", "kind", "name", "latency"}
	txnFields   = []string{"writes", "weight", "table", "name"}
)

// streamTemplate reads and routes the line at the start of data when it
// is of a known template (template.go) and ends at a newline or at the
// end of data: ok true, with the line's length and its routing error.
func (b *Builder) streamTemplate(p *lineParser, bt *batch, file string, data []byte, line int, txns bool) (int, bool, error) {
	st := p.st
	if !txns {
		if o, conds, n, ok := st.tm.query(data, &st.conds); ok {
			// A read of weight 1, its operation found once a batch.
			op := o.op
			if o.gen != st.gen {
				op = st.localOp(bt, o.ti, shardkey.Read, "", "", conds)
				o.gen, o.op = st.gen, op
			}
			bt.ops[op].rate++
			return n, true, st.routeQuery(bt, file, line, op, o.ti, shardkey.Read, conds, nil, 1, true)
		}
	} else if stmts, n, ok := st.tm.txn(data, &st.conds, st.stmts, &st.spans); ok {
		st.stmts = stmts
		return n, true, st.routeTxn(bt, file, line, stmts, 1, true)
	}
	return 0, false, nil
}

// streamLine parses, checks, resolves and routes one line.
func (b *Builder) streamLine(p *lineParser, bt *batch, file string, data []byte, line int, txns bool) error {
	if _, ok, err := b.streamTemplate(p, bt, file, data, line, txns); ok {
		return err
	}
	st := p.st
	sc := &st.sc
	allowed := queryFields
	if txns {
		allowed = txnFields
	}
	scanned := scan(sc, data, txns)
	if !scanned {
		jl := parseLine(p, data, line)
		if err := lineErr(file, &jl, allowed...); err != nil {
			return err
		}
		sc.fromJline(&jl)
	} else if sc.hasWt {
		if err := checkWeight(sc.weight); err != nil {
			return shardkey.Errorf(file, line, "weight", "%v", err)
		}
	}
	at := jline{line: line, lineMeta: lineMeta{table: sc.table, hasTbl: sc.hasTbl}}
	multi := len(b.W.Tables) > 1 && !sc.hasTbl
	if !txns {
		if !sc.hasWhr {
			return shardkey.Errorf(file, line, "where", `missing: want {"where": {"col": value}}`)
		}
		where := sc.group(0)
		ti, err := b.pickTable(file, &at, st.colsOf(multi, where))
		if err != nil {
			return err
		}
		conds, err := b.resolveInto(grow(&st.conds, len(where)), file, line, ti, where)
		if err != nil {
			return err
		}
		kind := shardkey.Read
		if sc.kind != "" {
			if kind, err = shardkey.ParseKind(sc.kind); err != nil {
				return shardkey.Errorf(file, line, "kind", "%v", err)
			}
		}
		if sc.latency != "" && sc.latency != "batch" && sc.latency != "interactive" {
			return shardkey.Errorf(file, line, "latency", `want "interactive" or "batch"`)
		}
		op := st.localOp(bt, ti, kind, sc.name, sc.latency, conds)
		var sets []shardkey.Cond
		if len(sc.set) > 0 {
			if kind != shardkey.Update {
				return shardkey.Errorf(file, line, "set", `only an update ("kind": "update") sets values`)
			}
			if sets, err = b.resolveAll(file, line, ti, sc.set); err != nil {
				return err
			}
		}
		bt.ops[op].rate += sc.weight
		if err := st.routeQuery(bt, file, line, op, ti, kind, conds, sets, sc.weight, scanned); err != nil {
			return err
		}
		if scanned {
			b.learn(&st.tm, data, txns)
		}
		return nil
	}
	if !sc.hasWr {
		return shardkey.Errorf(file, line, "writes", `missing: want {"writes": [{"col": value}, ...]}`)
	}
	nw := len(sc.groups)
	if nw == 0 {
		return shardkey.Errorf(file, line, "writes", "empty transaction")
	}
	conds := grow(&st.conds, len(sc.conds))
	stmts := st.stmts[:0]
	for g := 0; g < nw; g++ {
		if sc.repeats(g) {
			// The same write again: the same table and conditions,
			// resolved once (the router recognises the shared Conds).
			stmts = append(stmts, stmts[g-1])
			continue
		}
		wr := sc.group(g)
		ti, err := b.pickTable(file, &at, st.colsOf(multi, wr))
		if err != nil {
			return err
		}
		c, err := b.resolveInto(conds[sc.groups[g].lo:sc.groups[g].hi], file, line, ti, wr)
		if err != nil {
			return inWrite(err, g)
		}
		stmts = append(stmts, shardkey.Stmt{Table: ti, Kind: shardkey.Insert, Conds: c})
	}
	st.stmts = stmts
	if err := st.routeTxn(bt, file, line, stmts, sc.weight, scanned); err != nil {
		return err
	}
	if scanned {
		b.learn(&st.tm, data, txns)
	}
	return nil
}

// localOp returns the batch's number of the operation of a query (table
// ti, kind, name, latency, its conditions' columns and operators),
// adding it to the batch on first use.
func (st *streamState) localOp(bt *batch, ti int, kind shardkey.Kind, name, latency string, conds []shardkey.Cond) int {
	st.key = appendShapeKey(st.key[:0], ti, kind, name, conds)
	op, ok := st.local[string(st.key)]
	if !ok {
		op = len(bt.ops)
		key := string(st.key)
		st.local[key] = op
		lc := make([]shardkey.Cond, len(conds))
		for k, c := range conds {
			lc[k] = shardkey.Cond{Col: c.Col, Op: c.Op}
		}
		// Copies: the consumer must not read the line's bytes.
		bt.ops = append(bt.ops, localOp{key: key, ti: ti, kind: kind, name: strings.Clone(name), latency: strings.Clone(latency), conds: lc})
	}
	return op
}

// routeQuery routes a query line (operation op) into the batch, or
// queues it (routeQueue) when it was read by scan or a template
// (scanned: its values are views of the batch's bytes).
func (st *streamState) routeQuery(bt *batch, file string, line, op, ti int, kind shardkey.Kind, conds, sets []shardkey.Cond, w float64, scanned bool) error {
	if q := &st.q; q.t != nil {
		if scanned && sets == nil && queueable(conds) {
			q.addQuery(line, op, ti, kind, conds, w)
			if len(q.items) < queueLen {
				return nil
			}
			return q.flush(bt.sb, file)
		}
		if err := q.flush(bt.sb, file); err != nil {
			return err
		}
	}
	if err := bt.sb.Instance(op, ti, kind, conds, sets, w); err != nil {
		return shardkey.Errorf(file, line, "where", "%v", err)
	}
	return nil
}

// routeTxn routes a transaction line into the batch, or queues it (see
// routeQuery).
func (st *streamState) routeTxn(bt *batch, file string, line int, stmts []shardkey.Stmt, w float64, scanned bool) error {
	if q := &st.q; q.t != nil {
		queue := scanned
		for k := 0; queue && k < len(stmts); k++ {
			queue = queueable(stmts[k].Conds)
		}
		if queue {
			q.addTxn(line, stmts, w)
			if len(q.items) < queueLen {
				return nil
			}
			return q.flush(bt.sb, file)
		}
		if err := q.flush(bt.sb, file); err != nil {
			return err
		}
	}
	if err := bt.sb.Txn(stmts, w); err != nil {
		return shardkey.Errorf(file, line, "writes", "%v", err)
	}
	return nil
}

// grow returns (*s)[:n], reallocating when it is too short.
func grow[T any](s *[]T, n int) []T {
	if cap(*s) < n {
		*s = make([]T, n, max(n, 2*cap(*s)))
	}
	return (*s)[:n]
}
