package sqllog

import (
	"sort"

	"github.com/shardkey/shardkey"
)

// cteSet holds the names of the CTEs in scope, which are not tables. A
// name's value is nil, or, for a PostgreSQL CTE read as its one table
// where it is referenced (see pgWith), its *pg.SelectStmt.
type cteSet map[string]any

// A scope collects the tables and conditions of one query block.
//
// Conditions are recorded as written, with their columns' qualifiers
// unresolved, and turned into accesses by build once every table of the
// block is known. In a block over one table, or where every column is
// qualified, the names alone say which table each column is in, and the
// template holds the built accesses. In a block over several tables with
// an unqualified column (FROM customer, warehouse WHERE w_id = ? AND
// c_w_id = w_id) only the tables' columns can say, so the template keeps
// the scope (access.lazy) and the aggregator builds it against the
// workload (attribute.go).
type scope struct {
	refs  []*tref
	conds []cond
	using [][2]colRef // JOIN ... USING (col): equalities between two refs
	ctes  cteSet
	// unqualified says some condition names a column without a qualifier.
	unqualified bool
}

// tref is one table reference of a query scope.
type tref struct {
	name, alias string
	kind        shardkey.Kind
	// A derived table (FROM (SELECT ... FROM name WHERE ...) alias, or a
	// CTE of that shape) is read as its one table: inner is the
	// qualifier its own WHERE's conditions are recorded under (no SQL
	// name can be it), and rename maps the columns it shows to the
	// table's (nil: SELECT *, the same names).
	inner  string
	rename map[string]string
}

// column returns the table column that qual.col names in r: through r's
// rename for a derived table's outer name, as is otherwise; false for an
// outer name the derived table computes (no column to bind).
func (r *tref) column(qual, col string) (string, bool) {
	if r.rename == nil || (r.inner != "" && qual == r.inner) {
		return col, true
	}
	c, ok := r.rename[col]
	return c, ok
}

type colRef struct {
	ref int
	col string
}

// condKind is what a recorded condition does to its column.
type condKind uint8

const (
	condEq      condKind = iota // col = args[0]
	condIn                      // col IN args
	condRange                   // col op args[0], op one of <, <=, >, >=
	condJoin                    // col = other (a join equality)
	condMention                 // the column is named but bound to nothing (an outer join's ON)
)

// cond is one condition of a scope, as written.
type cond struct {
	kind       condKind
	col, other *xexpr // xCol nodes; other only for condJoin
	op         string
	args       []arg
}

// colResolver returns the index in scope.refs of the table that holds the
// column qual.col (-1 for none) and whether that is a guess (see
// pred.guess).
type colResolver func(qual, col string) (ref int, guess bool)

// addDerived adds a derived table over table name, seen as alias, whose
// columns rename shows (nil: all, as named), with the conditions of its
// own WHERE, conds, recorded in a scope of its own over that one table:
// they join this scope's, so that the outer query's conditions on the
// derived table's columns bind the table's columns, as a planner pushes
// them down.
func (s *scope) addDerived(name, alias string, rename map[string]string, conds []cond) {
	inner := "\x00" + alias
	s.refs = append(s.refs, &tref{name: name, alias: alias, kind: shardkey.Read, inner: inner, rename: rename})
	for _, c := range conds {
		c.col = &xexpr{kind: xCol, qual: inner, col: c.col.col}
		if c.other != nil {
			c.other = &xexpr{kind: xCol, qual: inner, col: c.other.col}
		}
		s.conds = append(s.conds, c)
	}
}

func (s *scope) add(name, alias string, kind shardkey.Kind) {
	if _, ok := s.ctes[name]; ok {
		return
	}
	s.refs = append(s.refs, &tref{name: name, alias: alias, kind: kind})
}

// resolve finds the table a qualifier names: the one whose alias or name
// it is. An empty qualifier gives the first table of the scope, which is
// right when the scope has one table; with several, see attribute.go.
func (s *scope) resolve(qual string) int {
	if len(s.refs) == 0 {
		return -1
	}
	if qual == "" {
		return 0
	}
	for i, r := range s.refs {
		if r.alias == qual || r.inner != "" && r.inner == qual {
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

// byName is the resolver of a scope whose columns are all qualified or
// which has one table.
func (s *scope) byName(qual, _ string) (int, bool) { return s.resolve(qual), false }

// boundTargets returns, for each of a SELECT's targets, the predicate
// that binds the values it returns, or nil when nothing does: a literal
// binds itself; a column binds what its own table's access (own, this
// scope's accesses, one per table) binds it to with an equality or an IN
// list, through a derived table's renaming. Reads of the same table
// elsewhere (a subquery, a self-join's other side) bind nothing here.
func (s *scope) boundTargets(targets []*xexpr, own []access) []*pred {
	out := make([]*pred, len(targets))
	for i, t := range targets {
		switch {
		case t == nil:
		case t.kind == xVal && t.val.kind != argUnknown:
			out[i] = &pred{op: shardkey.Eq, args: []arg{t.val}}
		case t.kind == xCol:
			if len(own) != len(s.refs) || t.qual == "" && len(s.refs) != 1 {
				continue // a lazy scope, or no table to look in
			}
			r := s.resolve(t.qual)
			if r < 0 {
				continue
			}
			col, ok := s.refs[r].column(t.qual, t.col)
			if !ok {
				continue
			}
			for j := range own[r].preds {
				if p := &own[r].preds[j]; p.col == col && (p.op == shardkey.Eq || p.op == shardkey.In) {
					out[i] = p
				}
			}
		}
	}
	return out
}

// unionTargets combines the bound targets of a set operation's two arms:
// a position both bind returns the values of either (an IN list of both);
// any other binds nothing.
func unionTargets(a, b []*pred) []*pred {
	if len(a) != len(b) {
		return nil
	}
	out := make([]*pred, len(a))
	for i := range a {
		if a[i] != nil && b[i] != nil {
			out[i] = &pred{op: shardkey.In, args: append(append([]arg(nil), a[i].args...), b[i].args...)}
		}
	}
	return out
}

// accesses returns the scope's table accesses, predicates sorted by
// column; for a scope that needs the workload to attribute its columns,
// one lazy access standing for them.
func (s *scope) accesses() []access {
	if len(s.refs) > 1 && s.unqualified {
		return []access{{lazy: s}}
	}
	return s.build(s.byName)
}

func (s *scope) record(c cond) {
	if c.col.qual == "" || c.kind == condJoin && c.other.qual == "" {
		s.unqualified = true
	}
	s.conds = append(s.conds, c)
}

// mention records every column e names as bound to nothing: the table
// has the column (the statement says so), but no value follows.
func (s *scope) mention(e *xexpr) {
	if e == nil {
		return
	}
	if e.kind == xCol {
		s.record(cond{kind: condMention, col: e})
		return
	}
	for _, k := range e.kids {
		s.mention(k)
	}
}

// where records the conjuncts of e.
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
				s.record(cond{kind: condJoin, col: l, other: r})
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
			if col != nil && (col.col != c.col || col.qual != c.qual && s.resolve(col.qual) != s.resolve(c.qual)) {
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

func (s *scope) bindEq(c *xexpr, v arg) {
	if v.kind == argUnknown {
		return
	}
	s.record(cond{kind: condEq, col: c, args: []arg{v}})
}

func (s *scope) bindIn(c *xexpr, vs []arg) {
	s.record(cond{kind: condIn, col: c, args: vs})
}

func (s *scope) bindRange(c *xexpr, op string, v arg) {
	if v.kind == argUnknown {
		return
	}
	s.record(cond{kind: condRange, col: c, op: op, args: []arg{v}})
}

// edge is one end of a join equality, resolved.
type edge struct {
	ref   int
	col   string
	guess bool
}

// build resolves the scope's conditions with res and returns its accesses,
// predicates sorted by column: at most one per column (an equality wins
// over an IN list, either over a range; the two ends of a range merge), and
// equality and IN bindings carried across join equalities. It does not
// change s, so a template's scope can be built by several aggregators.
func (s *scope) build(res colResolver) []access {
	preds := make([]map[string]*pred, len(s.refs))
	for i := range preds {
		preds[i] = map[string]*pred{}
	}
	var edges [][2]edge
	for _, c := range s.conds {
		ref, guess := res(c.col.qual, c.col.col)
		if ref < 0 {
			continue
		}
		col, ok := s.refs[ref].column(c.col.qual, c.col.col)
		if !ok {
			continue
		}
		m := preds[ref]
		switch c.kind {
		case condEq:
			if p := m[col]; p != nil && p.op == shardkey.Eq {
				// a = 1 AND a = 2: every equality must hold (conds
				// binds the column only when the values agree).
				p.args = append(p.args[:len(p.args):len(p.args)], c.args...)
				continue
			}
			m[col] = &pred{col: col, op: shardkey.Eq, args: c.args, guess: guess}
		case condIn:
			if p := m[col]; p != nil && p.op == shardkey.Eq {
				continue
			}
			m[col] = &pred{col: col, op: shardkey.In, args: c.args, guess: guess}
		case condRange:
			p := m[col]
			if p != nil && p.op != shardkey.Range {
				continue
			}
			if p == nil {
				p = &pred{col: col, op: shardkey.Range, args: []arg{{}, {}}, guess: guess}
				m[col] = p
			}
			switch c.op {
			case ">", ">=":
				p.args[0], p.hasLo, p.loIncl = c.args[0], true, c.op == ">="
			case "<", "<=":
				p.args[1], p.hasHi, p.hiIncl = c.args[0], true, c.op == "<="
			}
		case condMention:
			if m[col] == nil {
				m[col] = &pred{col: col, op: shardkey.Range, args: []arg{{}, {}}, any: true, guess: guess}
			}
		case condJoin:
			oref, oguess := res(c.other.qual, c.other.col)
			if oref >= 0 && oref != ref {
				if ocol, ok := s.refs[oref].column(c.other.qual, c.other.col); ok {
					edges = append(edges, [2]edge{{ref, col, guess}, {oref, ocol, oguess}})
				}
			}
		}
	}
	for _, u := range s.using {
		// USING names the columns as each side shows them: a derived
		// table's through its renaming.
		a, aok := s.refs[u[0].ref].column("", u[0].col)
		b, bok := s.refs[u[1].ref].column("", u[1].col)
		if aok && bok {
			edges = append(edges, [2]edge{{u[0].ref, a, false}, {u[1].ref, b, false}})
		}
	}
	carry(preds, edges)
	out := make([]access, 0, len(s.refs))
	for i, r := range s.refs {
		a := access{table: r.name, kind: r.kind}
		cols := make([]string, 0, len(preds[i]))
		for c := range preds[i] {
			cols = append(cols, c)
		}
		sort.Strings(cols)
		for _, c := range cols {
			p := preds[i][c]
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
		for _, e := range edges {
			for k := 0; k < 2; k++ {
				if e[k].ref == i && s.refs[e[1-k].ref].name != r.name {
					a.joins = append(a.joins, [3]string{e[k].col, s.refs[e[1-k].ref].name, e[1-k].col})
				}
			}
		}
		out = append(out, a)
	}
	return out
}

// carry copies equality and IN bindings across join equalities: in
// a JOIN b ON a.x = b.y WHERE a.x = 5, b.y is 5 too.
func carry(preds []map[string]*pred, edges [][2]edge) {
	for range len(edges) {
		changed := false
		for _, e := range edges {
			for k := 0; k < 2; k++ {
				from, to := e[k], e[1-k]
				fp := preds[from.ref][from.col]
				if fp == nil || (fp.op != shardkey.Eq && fp.op != shardkey.In) {
					continue
				}
				tp := preds[to.ref][to.col]
				if tp != nil && (tp.op == shardkey.Eq || tp.op == shardkey.In && fp.op == shardkey.In) {
					continue
				}
				cp := *fp
				cp.col = to.col
				cp.guess = to.guess
				preds[to.ref][to.col] = &cp
				changed = true
			}
		}
		if !changed {
			return
		}
	}
}
