package sqllog

import (
	"sort"
	"strconv"

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
	// usingSide is, for each of using, the refs an outer join's USING may
	// bind (see cond.side): none for an inner join.
	usingSide [][2]int
	// side, while an outer join's ON is read, is the refs it may bind.
	side [2]int
	// nullable marks the refs on an outer join's null-supplying side.
	nullable map[int]bool
	// arm, while the arms of a derived UNION are added, is their group
	// (see tref.group); groups counts the groups.
	arm, groups int
	ctes        cteSet
	// unqualified says some condition names a column without a qualifier.
	unqualified bool
	// never says the WHERE holds for no row (WHERE 1 = 0, id = NULL): the
	// scope's tables are asked nothing.
	never bool
	// partial names the columns an OR binds in some disjuncts only;
	// loose those compared in ways that bind no value (<>, NOT IN).
	partial, loose []string
	// slotConst says a comparison of two values has one whose literal
	// the shape text replaced: the template is read from the text as
	// written, where it folds (see cache.analyze).
	slotConst bool
	// links are comparisons of its columns with subqueries' (merge.go).
	links []mergeLink
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
	// use and ignore are the vindexes a Vitess hint names: USE VINDEX
	// (names), IGNORE VINDEX (names) (see Access).
	use, ignore []string
	// group, when non-zero, says the ref is one arm of a derived UNION
	// (FROM (SELECT ... UNION SELECT ...) alias): the outer query's
	// conditions on alias bind every arm of the group (see expandUnion).
	group int
	// virtual marks a derived table read as its own statement (it groups,
	// limits, ...): it is no table, but the columns its WHERE binds are
	// bound in every row it returns, and carry across the outer query's
	// join equalities (see addVirtual).
	virtual bool
	// src, for a virtual ref, is the read of a table each output column
	// returns, where one does (merge.go).
	src map[string]mergeSrc
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
	// side, when side[1] > 0, restricts an outer join's ON condition to
	// the refs in [side[0], side[1]), its null-supplying side: ON filters
	// which of that side's rows are read, never the preserved side's; a
	// join equality carries a value only into that side.
	side [2]int
	// isNull marks col IS NULL: on an outer join's null-supplying side
	// it holds for the rows the join adds with NULLs, so it binds nothing
	// there (and keeps the join an outer one).
	isNull bool
}

func (c *cond) binds(ref int) bool { return c.side[1] == 0 || ref >= c.side[0] && ref < c.side[1] }

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
	if s.arm > 0 {
		inner += "\x00" + strconv.Itoa(len(s.refs))
	}
	s.refs = append(s.refs, &tref{name: name, alias: alias, kind: shardkey.Read, inner: inner, rename: rename})
	for _, c := range conds {
		// Its own: they bind this ref only and are no WHERE of s's
		// (an outer join it is the null-supplying side of stays one).
		c.side = [2]int{len(s.refs) - 1, len(s.refs)}
		c.col = &xexpr{kind: xCol, qual: inner, col: c.col.col}
		if c.other != nil {
			c.other = &xexpr{kind: xCol, qual: inner, col: c.other.col}
		}
		s.conds = append(s.conds, c)
	}
}

// inline adds the one table of in, a derived table's own scope (its
// FROM's table, itself perhaps derived, and its WHERE's conditions), to s
// as a derived table seen as alias that shows the columns rename maps to
// the names in's table shows (nil: all of them): its conditions, in the
// table's own column names, join s's (see addDerived). A WHERE that holds
// for no row makes s hold none. It reports false, adding nothing, when in
// has not exactly one table.
func (s *scope) inline(in *scope, alias string, rename map[string]string) bool {
	if len(in.refs) != 1 {
		return false
	}
	r0 := in.refs[0]
	rn := r0.rename
	if rename != nil {
		rn = map[string]string{}
		for out, col := range rename {
			if tc, ok := r0.column("", col); ok {
				rn[out] = tc
			}
		}
	}
	var conds []cond
	for _, c := range in.conds {
		col, ok := r0.column(c.col.qual, c.col.col)
		if !ok || in.resolve(c.col.qual) != 0 {
			continue
		}
		c.col = &xexpr{kind: xCol, col: col}
		if c.other != nil {
			ocol, ok := r0.column(c.other.qual, c.other.col)
			if !ok || in.resolve(c.other.qual) != 0 {
				continue
			}
			c.other = &xexpr{kind: xCol, col: ocol}
		}
		conds = append(conds, c)
	}
	s.addDerived(r0.name, alias, rn, conds)
	s.refs[len(s.refs)-1].group = s.arm
	s.never = s.never || in.never
	s.partial = append(s.partial, in.partial...)
	s.loose = append(s.loose, in.loose...)
	s.slotConst = s.slotConst || in.slotConst
	return true
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
		case t.kind == xOther && t.op == "*":
			// SELECT * from one table: its columns, expanded from the
			// catalog when an INSERT copies them (starInsert).
			if len(targets) == 1 && len(own) == 1 && len(s.refs) == 1 && own[0].lazy == nil {
				out[i] = &pred{star: &own[0]}
			}
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
				if p := &own[r].preds[j]; p.col == col && p.via == "" && (p.op == shardkey.Eq || p.op == shardkey.In) {
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

// join reads a join's ON condition: an inner join's as WHERE; an outer
// join's (side: its null-supplying refs) binding that side only (see
// cond.side), as a planner does: Vitess keeps LEFT JOIN's ON with the
// right-hand route (go/vt/vtgate/planbuilder/operators/join.go, AddJoinPredicate),
// PostgreSQL pushes it to the nullable rel only (distribute_qual_to_rels,
// src/backend/optimizer/plan/initsplan.c). A FULL join's binds neither,
// and only names columns. It reports whether USING equalities may follow.
func (s *scope) join(on *xexpr, side [2]int, inner bool) bool {
	switch {
	case inner:
		s.where(on)
	case side[1] > side[0]:
		if s.nullable == nil {
			s.nullable = map[int]bool{}
		}
		for r := side[0]; r < side[1]; r++ {
			s.nullable[r] = true
		}
		s.side = side
		s.where(on)
		s.side = [2]int{}
	default:
		s.mention(on)
		return false
	}
	return true
}

func (s *scope) record(c cond) {
	if c.side[1] == 0 {
		c.side = s.side
	}
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

// edge is one end of a join equality, resolved.
type edge struct {
	ref   int
	col   string
	guess bool
	// oneWay, on an equality's first end, says values are carried from
	// it to the other end only (an outer join's ON, see cond.side).
	oneWay bool
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
	// strict marks the refs a WHERE condition binds: it rejects the rows
	// an outer join would add with NULLs, so that join is an inner one
	// (PostgreSQL's reduce_outer_joins, src/backend/optimizer/prep/prepjointree.c):
	// its equalities carry values both ways.
	strict := make([]bool, len(s.refs))
	outer := make([][]outerEq, len(s.refs))
	for _, c := range s.expandUnion(res) {
		ref, guess := res(c.col.qual, c.col.col)
		if c.kind == condJoin && c.side[1] == 0 {
			// A correlated equality: one end is a column of an
			// enclosing query (see scope.correlate).
			oref, _ := res(c.other.qual, c.other.col)
			switch {
			case ref >= 0 && oref < 0 && c.other.qual != "":
				if col, ok := s.refs[ref].column(c.col.qual, c.col.col); ok {
					outer[ref] = append(outer[ref], outerEq{col: col, qual: c.other.qual, ocol: c.other.col})
				}
			case ref < 0 && oref >= 0 && c.col.qual != "":
				if ocol, ok := s.refs[oref].column(c.other.qual, c.other.col); ok {
					outer[oref] = append(outer[oref], outerEq{col: ocol, qual: c.col.qual, ocol: c.col.col})
				}
			}
		}
		if ref < 0 {
			continue
		}
		col, ok := s.refs[ref].column(c.col.qual, c.col.col)
		if !ok {
			continue
		}
		if c.isNull && c.side[1] == 0 && s.nullable[ref] {
			continue // see cond.isNull
		}
		m := preds[ref]
		kind := c.kind
		if kind != condJoin && !c.binds(ref) {
			kind = condMention // an outer join's ON on its preserved side
		}
		if c.side[1] == 0 && (kind == condEq || kind == condIn || kind == condRange) {
			strict[ref] = true
		}
		switch kind {
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
			if p == nil || p.any {
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
			if oref >= 0 {
				// (Within one table too: t.id = t.col AND t.col = 5
				// binds t.id.)
				if ocol, ok := s.refs[oref].column(c.other.qual, c.other.col); ok && (oref != ref || ocol != col) {
					// Both ends are columns of their tables.
					if m[col] == nil {
						m[col] = &pred{col: col, op: shardkey.Range, args: []arg{{}, {}}, any: true, guess: guess}
					}
					if om := preds[oref]; om[ocol] == nil {
						om[ocol] = &pred{col: ocol, op: shardkey.Range, args: []arg{{}, {}}, any: true, guess: oguess}
					}
					e := [2]edge{{ref, col, guess, false}, {oref, ocol, oguess, false}}
					switch a, b := c.binds(ref), c.binds(oref); {
					case a && b:
					case b: // preserved -> null-supplying only
						e[0].oneWay = true
					case a:
						e = [2]edge{e[1], e[0]}
						e[0].oneWay = true
					default:
						continue
					}
					edges = append(edges, e)
				}
			}
		}
	}
	for i, u := range s.using {
		// USING names the columns as each side shows them: a derived
		// table's through its renaming.
		a, aok := s.refs[u[0].ref].column("", u[0].col)
		b, bok := s.refs[u[1].ref].column("", u[1].col)
		if aok && bok {
			e := [2]edge{{u[0].ref, a, false, false}, {u[1].ref, b, false, false}}
			c := cond{side: s.usingSide[i]}
			switch x, y := c.binds(u[0].ref), c.binds(u[1].ref); {
			case x && y:
			case y:
				e[0].oneWay = true
			case x:
				e = [2]edge{e[1], e[0]}
				e[0].oneWay = true
			}
			edges = append(edges, e)
		}
	}
	for i := range edges {
		if edges[i][0].oneWay && strict[edges[i][1].ref] {
			edges[i][0].oneWay = false
		}
	}
	carry(preds, edges)
	// Each table's position among the scope's tables (virtual refs are
	// dropped from a statement's accesses), for peers.
	pos := make([]int, len(s.refs))
	n := 0
	for i, r := range s.refs {
		pos[i] = n
		if !r.virtual {
			n++
		}
	}
	peers := make([][]peerEq, len(s.refs))
	for _, e := range edges {
		a, b := e[0], e[1]
		if s.refs[a.ref].virtual || s.refs[b.ref].virtual || a.ref == b.ref {
			continue
		}
		peers[b.ref] = append(peers[b.ref], peerEq{col: b.col, off: pos[a.ref] - pos[b.ref], pcol: a.col})
		if !a.oneWay {
			peers[a.ref] = append(peers[a.ref], peerEq{col: a.col, off: pos[b.ref] - pos[a.ref], pcol: b.col})
		}
	}
	out := make([]access, 0, len(s.refs))
	for i, r := range s.refs {
		a := access{table: r.name, kind: r.kind, none: s.never, partial: s.partial, loose: s.loose, use: r.use, ignore: r.ignore, slotConst: s.slotConst, outer: outer[i], virtual: r.virtual, peers: peers[i]}
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
				if k == 1 && e[0].oneWay {
					break
				}
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
