package sqllog

import (
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/shardkey/shardkey"
	"vitess.io/vitess/go/vt/sqlparser"
)

// This file ties two reads of one table compared on one of its columns
// (music.id IN (SELECT music.id FROM music WHERE user_id IN (1, 2, 3)), a
// join ON other.id = music.id with a derived table or the table itself):
// each read gets the other's = and IN predicates, marked pred.via with
// the column, which bind it when the design makes that column a unique
// vindex, as Vitess merges the two routes (see shardkey.Cond.Via).

// mergeSrc is the read of a table a subquery's or derived table's column
// returns: the access's index in the statement's accesses, its table
// and column (a column, or MAX or MIN of one), whether that query
// limits or aggregates across rows (single) and the column it groups by.
type mergeSrc struct {
	inner        int
	table, col   string
	single       bool
	group        string
	fromSubquery bool
}

// mergeLink is a comparison of a column of one of a scope's tables with
// a mergeSrc: node is the comparison (col IN (subquery), col =
// (subquery)), which ties the two reads only as a conjunct of the WHERE
// (a subquery elsewhere is not used for routing: subquery_planning.go,
// mergeShardedRouting on !TopLevel).
type mergeLink struct {
	col  *xexpr
	node *xexpr
	src  mergeSrc
}

// viaCopy appends to dst the = and IN predicates of src, another read
// of the same table, marked as carried through column col.
func viaCopy(dst, src *access, col string, prefer int8, single bool, group string) {
	n := len(dst.preds)
	for _, q := range src.preds {
		if q.via != "" || q.any || q.col == "" || q.op != shardkey.Eq && q.op != shardkey.In {
			continue
		}
		cp := q
		cp.via, cp.viaPrefer, cp.viaSingle, cp.viaGroup = col, prefer, single, group
		cp.guess = false
		dst.preds = append(dst.preds, cp)
	}
	if len(dst.preds) > n {
		sort.SliceStable(dst.preds, func(i, j int) bool { return dst.preds[i].col < dst.preds[j].col })
	}
}

// viaCopyCol appends to dst the = and IN predicates src, a read of
// another table, has on its column from, renamed to dst's column to and
// marked as carried through it from srcTable.from (Cond.ViaTable).
func viaCopyCol(dst, src *access, from, to, srcTable string, prefer int8, single bool, group string) {
	n := len(dst.preds)
	for _, q := range src.preds {
		if q.via != "" || q.any || !strings.EqualFold(q.col, from) || q.op != shardkey.Eq && q.op != shardkey.In {
			continue
		}
		cp := q
		cp.col = to
		cp.via, cp.viaPrefer, cp.viaSingle, cp.viaGroup = to, prefer, single, group
		cp.viaTable, cp.viaTableCol = srcTable, from
		cp.guess = false
		dst.preds = append(dst.preds, cp)
	}
	if len(dst.preds) > n {
		sort.SliceStable(dst.preds, func(i, j int) bool { return dst.preds[i].col < dst.preds[j].col })
	}
}

// conjunct reports whether node is where or one of its top-level
// conjuncts.
func conjunct(where, node *xexpr) bool {
	if where == node {
		return true
	}
	if where != nil && where.kind == xAnd {
		for _, k := range where.kids {
			if k == node {
				return true
			}
		}
	}
	return false
}

// merges ties the reads the scope compares on a column of one table
// (see this file's comment), once its accesses own are built: the
// subqueries' (links; their accesses are in acc) and the joins of its
// own tables with each other or with derived tables (tref.src). In a
// subquery's merge the outer query's predicate wins a tie (the later
// route's, sharded_routing.go PickBestAvailableVindex); in a join's the
// left-hand table's, when both bind (join_merging.go,
// mergeShardedRouting). where is the scope's WHERE.
func (s *scope) merges(acc []access, own []access, where *xexpr) {
	if len(own) != len(s.refs) {
		return // a lazy scope: its columns are not attributed yet
	}
	same := func(a, b string) bool { return strings.EqualFold(a, b) }
	colOf := func(x *xexpr) (int, string) {
		if x == nil || x.kind != xCol {
			return -1, ""
		}
		r := s.resolve(x.qual)
		if r < 0 || x.qual == "" && len(s.refs) != 1 {
			return -1, ""
		}
		c, ok := s.refs[r].column(x.qual, x.col)
		if !ok {
			return -1, ""
		}
		return r, c
	}
	innerOK := func(src mergeSrc) *access {
		if src.inner < 0 || src.inner >= len(acc) {
			return nil
		}
		a := &acc[src.inner]
		if a.lazy != nil || a.virtual || !same(a.table, src.table) {
			return nil
		}
		return a
	}
	for _, l := range s.links {
		r, c := colOf(l.col)
		if r < 0 || s.refs[r].virtual || !conjunct(where, l.node) {
			continue
		}
		if !same(s.refs[r].name, l.src.table) {
			// Another table compared on a column: tied when both
			// columns are their tables' keys by one vindex (the
			// router decides, Cond.ViaTable).
			in := innerOK(l.src)
			if in == nil || in.kind != shardkey.Read || own[r].kind != shardkey.Read {
				continue
			}
			viaCopyCol(&own[r], in, l.src.col, c, in.table, -1, l.src.single, l.src.group)
			if !l.src.single {
				viaCopyCol(in, &own[r], c, l.src.col, s.refs[r].name, +1, false, "")
			}
			continue
		}
		if !same(c, l.src.col) {
			continue
		}
		in := innerOK(l.src)
		if in == nil {
			continue
		}
		viaCopy(&own[r], in, c, -1, l.src.single, l.src.group)
		if !l.src.single {
			viaCopy(in, &own[r], l.src.col, +1, false, "")
		}
	}
	for _, cd := range s.conds {
		if cd.kind != condJoin || cd.side[1] != 0 || cd.other == nil {
			continue
		}
		a, ac := colOf(cd.col)
		b, bc := colOf(cd.other)
		if a < 0 || b < 0 || a == b {
			continue
		}
		if a > b {
			a, ac, b, bc = b, bc, a, ac
		}
		ra, rb := s.refs[a], s.refs[b]
		switch {
		case !ra.virtual && !rb.virtual:
			// Two reads of one table joined on one column.
			if same(ra.name, rb.name) && same(ac, bc) {
				viaCopy(&own[a], &own[b], ac, -2, false, "")
				viaCopy(&own[b], &own[a], bc, +2, false, "")
			}
		case ra.virtual != rb.virtual:
			// A derived table read as its own statement, joined with
			// a table on the column it returns.
			v, vc, t, tc, left := a, ac, b, bc, true
			if rb.virtual {
				v, vc, t, tc, left = b, bc, a, ac, false
			}
			src, ok := s.refs[v].src[vc]
			if !ok || !same(s.refs[t].name, src.table) || !same(tc, src.col) {
				continue
			}
			in := innerOK(src)
			if in == nil {
				continue
			}
			pin, pt := int8(-2), int8(+2) // the derived table is the left-hand route
			if !left {
				pin, pt = +2, -2
			}
			viaCopy(&own[t], in, tc, pt, src.single, src.group)
			if !src.single {
				viaCopy(in, &own[t], src.col, pin, false, "")
			}
		}
	}
}

// myMergeTarget returns the read of a table that a MySQL query's output
// column name ("" for its only column) returns: a column of its one
// table, MAX or MIN of one (the extremum of a column is one of its
// values: route_planning.go, getColName), through derived tables
// (SELECT * FROM (SELECT music.id ...) t). single says some level limits
// or aggregates across rows (isMergeable, subquery_planning.go), group
// the column it groups by, if one. inner is left to the caller.
func myMergeTarget(st sqlparser.TableStatement, name string) (mergeSrc, bool) {
	sel, ok := st.(*sqlparser.Select)
	if !ok || sel.SelectExprs == nil || len(sel.From) != 1 || len(sel.Windows) > 0 || sel.With != nil {
		return mergeSrc{}, false
	}
	at, ok := sel.From[0].(*sqlparser.AliasedTableExpr)
	if !ok {
		return mergeSrc{}, false
	}
	var expr sqlparser.Expr
	star := false
	exprs := sel.SelectExprs.Exprs
	if name == "" && len(exprs) != 1 {
		return mergeSrc{}, false
	}
	for _, e := range exprs {
		switch x := e.(type) {
		case *sqlparser.StarExpr:
			star = true
		case *sqlparser.AliasedExpr:
			n := x.As.Lowered()
			if c, ok := x.Expr.(*sqlparser.ColName); ok && n == "" {
				n = c.Name.Lowered()
			}
			if name == "" || n == name {
				expr = x.Expr
			}
		}
	}
	if expr != nil {
		star = false
	} else if !star {
		return mergeSrc{}, false
	}
	var src mergeSrc
	if !star {
		switch x := expr.(type) {
		case *sqlparser.Max:
			if x.OverClause != nil {
				return mergeSrc{}, false
			}
			expr = x.Arg
		case *sqlparser.Min:
			if x.OverClause != nil {
				return mergeSrc{}, false
			}
			expr = x.Arg
		}
		c, ok := expr.(*sqlparser.ColName)
		if !ok {
			return mergeSrc{}, false
		}
		src.col = c.Name.Lowered()
	}
	switch e := at.Expr.(type) {
	case sqlparser.TableName:
		if star {
			if name == "" {
				return mergeSrc{}, false
			}
			src.col = name
		}
		src.table = e.Name.String()
	case *sqlparser.DerivedTable:
		in := name
		if !star {
			in = src.col
		}
		inner, ok := myMergeTarget(e.Select, in)
		if !ok {
			return mergeSrc{}, false
		}
		src.table, src.col, src.single, src.group = inner.table, inner.col, inner.single, inner.group
	default:
		return mergeSrc{}, false
	}
	grouped := sel.GroupBy != nil && len(sel.GroupBy.Exprs) > 0
	if sel.Limit != nil || grouped || sqlparser.ContainsAggregation(sel.SelectExprs) || sel.Having != nil {
		src.single = true
	}
	if grouped && src.group == "" {
		for _, g := range sel.GroupBy.Exprs {
			if c, ok := g.(*sqlparser.ColName); ok {
				src.group = c.Name.Lowered()
				break
			}
		}
	}
	return src, true
}

// pgMergeTarget is myMergeTarget for a PostgreSQL query.
func pgMergeTarget(s *pg.SelectStmt, name string) (mergeSrc, bool) {
	if s == nil || s.Op != pg.SetOperation_SETOP_NONE && s.Op != pg.SetOperation_SET_OPERATION_UNDEFINED ||
		len(s.FromClause) != 1 || len(s.WindowClause) > 0 || s.WithClause != nil || len(s.ValuesLists) > 0 {
		return mergeSrc{}, false
	}
	if name == "" && len(s.TargetList) != 1 {
		return mergeSrc{}, false
	}
	colName := func(n *pg.Node) (string, bool) {
		f := n.GetColumnRef().GetFields()
		if len(f) == 0 || f[len(f)-1].GetString_() == nil {
			return "", false
		}
		return f[len(f)-1].GetString_().GetSval(), true
	}
	var expr *pg.Node
	star := false
	aggr := false
	for _, t := range s.TargetList {
		rt := t.GetResTarget()
		v := rt.GetVal()
		if f := v.GetColumnRef().GetFields(); len(f) > 0 && f[len(f)-1].GetAStar() != nil {
			star = true
			continue
		}
		if fc := v.GetFuncCall(); fc != nil && pgAggregate(pgName(fc.Funcname)) {
			aggr = true
		}
		n := rt.Name
		if c, ok := colName(v); ok && n == "" {
			n = c
		}
		if name == "" || n == name {
			expr = v
		}
	}
	var src mergeSrc
	if expr != nil {
		if fc := expr.GetFuncCall(); fc != nil {
			fn := strings.ToLower(pgName(fc.Funcname))
			if fn != "max" && fn != "min" || fc.Over != nil || len(fc.Args) != 1 {
				return mergeSrc{}, false
			}
			expr = fc.Args[0]
		}
		c, ok := colName(expr)
		if !ok {
			return mergeSrc{}, false
		}
		src.col = c
		star = false
	} else if !star {
		return mergeSrc{}, false
	}
	from := s.FromClause[0]
	switch {
	case from.GetRangeVar() != nil:
		if star {
			if name == "" {
				return mergeSrc{}, false
			}
			src.col = name
		}
		src.table = from.GetRangeVar().Relname
	case from.GetRangeSubselect() != nil && !from.GetRangeSubselect().Lateral:
		in := name
		if !star {
			in = src.col
		}
		inner, ok := pgMergeTarget(from.GetRangeSubselect().Subquery.GetSelectStmt(), in)
		if !ok {
			return mergeSrc{}, false
		}
		src.table, src.col, src.single, src.group = inner.table, inner.col, inner.single, inner.group
	default:
		return mergeSrc{}, false
	}
	if s.LimitCount != nil || len(s.GroupClause) > 0 || aggr || s.HavingClause != nil {
		src.single = true
	}
	if src.group == "" {
		for _, g := range s.GroupClause {
			if c, ok := colName(g); ok {
				src.group = c
				break
			}
		}
	}
	return src, true
}

// pgLink records in sc the tie of node, a comparison of the column col
// with subquery sub (col IN (sub), col = (sub)) whose accesses begin at
// from, to the read of a table sub returns (see mergeLink).
func pgLink(node *xexpr, col, sub *pg.Node, from int, sc *scope, acc *[]access, ctes cteSet) {
	if sc == nil || col.GetColumnRef() == nil || len(*acc) <= from {
		return
	}
	l := pgExpr(col, sc, acc, ctes)
	if l == nil || l.kind != xCol {
		return
	}
	if src, ok := pgMergeTarget(sub.GetSelectStmt(), ""); ok {
		src.inner = len(*acc) - 1
		sc.links = append(sc.links, mergeLink{col: l, node: node, src: src})
	}
}
