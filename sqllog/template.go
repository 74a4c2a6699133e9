package sqllog

import (
	"sort"
	"strings"

	"github.com/shardkey/shardkey"
)

// A template is what one statement text does, independent of its values:
// the tables it touches, how, and which columns it binds to which literal,
// placeholder or parameter. Statements of one shape share one template (see
// normalize), so each distinct shape is parsed once.
type template struct {
	parts []part
	err   error  // the statement could not be parsed
	text  string // shape text, for messages
}

// ctl is what a statement does to its session's transaction state.
type ctl uint8

const (
	ctlIgnore        ctl = iota // SET, DDL, SHOW, ...: no effect on the model
	ctlDML                      // reads or writes tables
	ctlBegin                    // BEGIN, START TRANSACTION
	ctlCommit                   // COMMIT, END
	ctlRollback                 // ROLLBACK, ABORT
	ctlAutocommitOff            // SET autocommit = 0 (MySQL): statements group until COMMIT
	ctlAutocommitOn             // SET autocommit = 1: commits an open transaction
)

// part is one statement of a template (a log entry may hold several,
// separated by semicolons).
type part struct {
	ctl ctl
	acc []access
}

// access is one table touched by a statement, with its bound columns.
type access struct {
	table string
	kind  shardkey.Kind
	preds []pred // sorted by column, at most one per column
}

// argKind says where a predicate's value comes from.
type argKind uint8

const (
	argUnknown argKind = iota // an expression or subquery: binds nothing
	argLit                    // a literal that stayed in the shape text
	argSlot                   // a literal replaced by a placeholder: n is its index
	argParam                  // a bind parameter ($n, ?): n is its 0-based index
	argNewest                 // now(), nextval(...), DEFAULT: a new value above all others
	argUnique                 // gen_random_uuid(), uuid(): a new unordered value
)

type arg struct {
	kind argKind
	n    int
	lit  lit
	neg  bool          // unary minus applied
	hint shardkey.Type // type named by a cast, Null for none
}

// pred binds one column: Eq (args[0]), In (args) or Range (args[0] the
// lower end if hasLo, args[1] the upper if hasHi).
type pred struct {
	col            string
	pos            int // for an INSERT without a column list: the column's position
	op             shardkey.Op
	args           []arg
	hasLo, hasHi   bool
	loIncl, hiIncl bool
}

// nvals returns how many values a bound instance of a holds.
func (a *access) nvals() int {
	n := 0
	for i := range a.preds {
		n += len(a.preds[i].args)
	}
	return n
}

// rv is one resolved value of an instance.
type rv struct {
	lit
	hint shardkey.Type
}

// bind resolves every value of part p from the statement's literals and
// parameters, accesses one after another, predicates in order.
func (p *part) bind(slots, params []lit) [][]rv {
	out := make([][]rv, len(p.acc))
	for i := range p.acc {
		a := &p.acc[i]
		vals := make([]rv, 0, a.nvals())
		for j := range a.preds {
			for _, g := range a.preds[j].args {
				vals = append(vals, g.resolve(slots, params))
			}
		}
		out[i] = vals
	}
	return out
}

func (g arg) resolve(slots, params []lit) rv {
	var l lit
	switch g.kind {
	case argLit:
		l = g.lit
	case argSlot:
		if g.n >= 0 && g.n < len(slots) {
			l = slots[g.n]
		} else {
			l = lit{kind: litNone}
		}
	case argParam:
		switch {
		case g.n < 0:
			l = lit{kind: litNone} // $0 is no parameter
		case g.n < len(params):
			l = params[g.n]
		default:
			l = lit{kind: litNoValue}
		}
	case argNewest:
		l = lit{kind: litNewest}
	case argUnique:
		l = lit{kind: litUnique}
	default:
		l = lit{kind: litNone}
	}
	if g.neg {
		switch {
		case l.kind == litNum && strings.HasPrefix(l.s, "-"):
			l.s = l.s[1:]
		case l.kind == litNum:
			l.s = "-" + l.s
		case l.kind == litStr:
			l.s = "-" + l.s // a quoted number negated; the type vote decides
		}
	}
	return rv{lit: l, hint: g.hint}
}

// ---- building templates from a neutral expression form ----

// xkind is the kind of a neutral expression node. Both dialects' trees are
// translated into this small form so that predicate extraction is written
// once.
type xkind uint8

const (
	xOther   xkind = iota // anything else
	xCol                  // a column reference
	xVal                  // a value (see arg)
	xAnd                  // kids: conjuncts
	xOr                   // kids: disjuncts
	xCmp                  // op, kids: left, right
	xIn                   // kids: left, then the list items
	xBetween              // kids: expr, lo, hi
	xRow                  // kids: row items
)

type xexpr struct {
	kind      xkind
	op        string // xCmp: "=", "<", "<=", ">", ">="
	qual, col string // xCol
	val       arg    // xVal
	kids      []*xexpr
}

// tref is one table reference of a query scope.
type tref struct {
	name, alias string
	kind        shardkey.Kind
	preds       map[string]*pred
}

// scope collects the tables and conditions of one query block.
type scope struct {
	refs  []*tref
	edges [][2]colRef // equalities between columns (join conditions)
	ctes  map[string]bool
}

type colRef struct {
	ref int
	col string
}

func (s *scope) add(name, alias string, kind shardkey.Kind) {
	if s.ctes[name] {
		return
	}
	s.refs = append(s.refs, &tref{name: name, alias: alias, kind: kind, preds: map[string]*pred{}})
}

// resolve finds the table a column belongs to: the one whose alias or name
// is the qualifier, else the first table of the scope (an unqualified
// column in a join is taken to be the first table's, without a catalog to
// say otherwise).
func (s *scope) resolve(qual string) int {
	if len(s.refs) == 0 {
		return -1
	}
	if qual == "" {
		return 0
	}
	for i, r := range s.refs {
		if r.alias == qual {
			return i
		}
	}
	for i, r := range s.refs {
		if r.alias == "" && r.name == qual {
			return i
		}
	}
	for i, r := range s.refs {
		if r.name == qual {
			return i
		}
	}
	return -1
}

// where adds the conjuncts of e.
func (s *scope) where(e *xexpr) {
	if e == nil {
		return
	}
	switch e.kind {
	case xAnd:
		for _, k := range e.kids {
			s.where(k)
		}
	case xCmp:
		l, r := e.kids[0], e.kids[1]
		op := e.op
		if l.kind != xCol && r.kind == xCol {
			l, r = r, l
			op = flip(op)
		}
		if l.kind == xRow && r.kind == xRow && op == "=" && len(l.kids) == len(r.kids) {
			for i := range l.kids {
				s.where(&xexpr{kind: xCmp, op: "=", kids: []*xexpr{l.kids[i], r.kids[i]}})
			}
			return
		}
		if l.kind != xCol {
			return
		}
		if r.kind == xCol {
			if op == "=" {
				a, b := s.resolve(l.qual), s.resolve(r.qual)
				if a >= 0 && b >= 0 && a != b {
					s.edges = append(s.edges, [2]colRef{{a, l.col}, {b, r.col}})
				}
			}
			return
		}
		if r.kind != xVal {
			return
		}
		switch op {
		case "=":
			s.bindEq(l, r.val)
		case "<", "<=", ">", ">=":
			s.bindRange(l, op, r.val)
		}
	case xBetween:
		x, lo, hi := e.kids[0], e.kids[1], e.kids[2]
		if x.kind == xCol && lo.kind == xVal && hi.kind == xVal {
			s.bindRange(x, ">=", lo.val)
			s.bindRange(x, "<=", hi.val)
		}
	case xIn:
		l := e.kids[0]
		items := e.kids[1:]
		if l.kind == xCol {
			var args []arg
			for _, it := range items {
				if it.kind != xVal {
					return
				}
				args = append(args, it.val)
			}
			s.bindIn(l, args)
			return
		}
		if l.kind == xRow {
			// (a, b) IN ((1, 2), (3, 4)): each column gets the list of
			// its values (exact for a key of one of the columns; for a key
			// of several it routes to the product of the lists).
			cols := make([][]arg, len(l.kids))
			for _, it := range items {
				if it.kind != xRow || len(it.kids) != len(l.kids) {
					return
				}
				for i, v := range it.kids {
					if v.kind != xVal {
						cols[i] = nil
						continue
					}
					cols[i] = append(cols[i], v.val)
				}
			}
			for i, c := range l.kids {
				if c.kind == xCol && len(cols[i]) == len(items) {
					if len(items) == 1 {
						s.bindEq(c, cols[i][0])
					} else {
						s.bindIn(c, cols[i])
					}
				}
			}
		}
	case xOr:
		// a = 1 OR a = 2 OR a IN (3): an IN list on a. Anything else
		// binds nothing.
		var col *xexpr
		var args []arg
		for _, k := range e.kids {
			var c *xexpr
			switch {
			case k.kind == xCmp && k.op == "=" && k.kids[0].kind == xCol && k.kids[1].kind == xVal:
				c = k.kids[0]
				args = append(args, k.kids[1].val)
			case k.kind == xCmp && k.op == "=" && k.kids[1].kind == xCol && k.kids[0].kind == xVal:
				c = k.kids[1]
				args = append(args, k.kids[0].val)
			case k.kind == xIn && k.kids[0].kind == xCol:
				c = k.kids[0]
				for _, it := range k.kids[1:] {
					if it.kind != xVal {
						return
					}
					args = append(args, it.val)
				}
			default:
				return
			}
			if col != nil && (col.col != c.col || s.resolve(col.qual) != s.resolve(c.qual)) {
				return
			}
			col = c
		}
		if col != nil {
			s.bindIn(col, args)
		}
	}
}

func flip(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

func (s *scope) predFor(c *xexpr) *tref {
	i := s.resolve(c.qual)
	if i < 0 {
		return nil
	}
	return s.refs[i]
}

func (s *scope) bindEq(c *xexpr, v arg) {
	r := s.predFor(c)
	if r == nil || v.kind == argUnknown {
		return
	}
	r.preds[c.col] = &pred{col: c.col, op: shardkey.Eq, args: []arg{v}}
}

func (s *scope) bindIn(c *xexpr, vs []arg) {
	r := s.predFor(c)
	if r == nil {
		return
	}
	if p := r.preds[c.col]; p != nil && p.op == shardkey.Eq {
		return
	}
	r.preds[c.col] = &pred{col: c.col, op: shardkey.In, args: vs}
}

func (s *scope) bindRange(c *xexpr, op string, v arg) {
	r := s.predFor(c)
	if r == nil || v.kind == argUnknown {
		return
	}
	p := r.preds[c.col]
	if p != nil && p.op != shardkey.Range {
		return
	}
	if p == nil {
		p = &pred{col: c.col, op: shardkey.Range, args: []arg{{}, {}}}
		r.preds[c.col] = p
	}
	switch op {
	case ">", ">=":
		p.args[0], p.hasLo, p.loIncl = v, true, op == ">="
	case "<", "<=":
		p.args[1], p.hasHi, p.hiIncl = v, true, op == "<="
	}
}

// carry copies equality and IN bindings across join equalities: in
// a JOIN b ON a.x = b.y WHERE a.x = 5, b.y is 5 too.
func (s *scope) carry() {
	for range len(s.edges) {
		changed := false
		for _, e := range s.edges {
			for k := 0; k < 2; k++ {
				from, to := e[k], e[1-k]
				fp := s.refs[from.ref].preds[from.col]
				if fp == nil || (fp.op != shardkey.Eq && fp.op != shardkey.In) {
					continue
				}
				tp := s.refs[to.ref].preds[to.col]
				if tp != nil && (tp.op == shardkey.Eq || tp.op == shardkey.In && fp.op == shardkey.In) {
					continue
				}
				cp := *fp
				cp.col = to.col
				s.refs[to.ref].preds[to.col] = &cp
				changed = true
			}
		}
		if !changed {
			return
		}
	}
}

// accesses returns the scope's table accesses, predicates sorted by column.
func (s *scope) accesses() []access {
	s.carry()
	out := make([]access, 0, len(s.refs))
	for _, r := range s.refs {
		a := access{table: r.name, kind: r.kind}
		cols := make([]string, 0, len(r.preds))
		for c := range r.preds {
			cols = append(cols, c)
		}
		sort.Strings(cols)
		for _, c := range cols {
			p := r.preds[c]
			if p.op == shardkey.Range {
				// Keep the two ends in args even when one is missing.
				if !p.hasLo {
					p.args[0] = arg{}
				}
				if !p.hasHi {
					p.args[1] = arg{}
				}
			}
			a.preds = append(a.preds, *p)
		}
		out = append(out, a)
	}
	return out
}

// insertRows returns one insert access per VALUES row.
func insertRows(table string, cols []string, rows [][]*xexpr) []access {
	out := make([]access, 0, len(rows))
	for _, row := range rows {
		a := access{table: table, kind: shardkey.Insert}
		seen := map[string]bool{}
		for i, v := range row {
			col := ""
			if i < len(cols) {
				col = cols[i]
			} else if len(cols) > 0 {
				break
			}
			if col != "" && seen[col] {
				continue
			}
			seen[col] = true
			if v.kind != xVal || v.val.kind == argUnknown {
				continue
			}
			a.preds = append(a.preds, pred{col: col, pos: i, op: shardkey.Eq, args: []arg{v.val}})
		}
		sort.SliceStable(a.preds, func(i, j int) bool { return a.preds[i].col < a.preds[j].col })
		out = append(out, a)
	}
	if len(rows) == 0 {
		out = append(out, access{table: table, kind: shardkey.Insert})
	}
	return out
}

// freshFunc classifies a function call used as a value.
func freshFunc(name string) argKind {
	switch strings.ToLower(name) {
	case "now", "current_timestamp", "localtimestamp", "statement_timestamp", "transaction_timestamp",
		"clock_timestamp", "sysdate", "utc_timestamp", "current_date", "curdate", "nextval",
		"unix_timestamp", "last_insert_id":
		return argNewest
	case "gen_random_uuid", "uuid_generate_v4", "uuid", "uuid_short", "uuid_generate_v1", "uuidv4", "uuidv7", "uuid_generate_v7":
		return argUnique
	}
	return argUnknown
}
