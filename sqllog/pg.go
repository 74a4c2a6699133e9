package sqllog

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/shardkey/shardkey"
)

// parsePostgres parses text (a shape text with slot placeholders, or an
// original statement) with PostgreSQL's own parser into a template.
func parsePostgres(text string) *template {
	res, err := pg.Parse(text)
	if err != nil {
		return &template{err: err, text: text}
	}
	t := &template{text: text}
	for _, rs := range res.Stmts {
		t.parts = append(t.parts, pgPart(rs.Stmt))
		if ts := rs.Stmt.GetTransactionStmt(); ts != nil && ts.Chain {
			// COMMIT or ROLLBACK AND CHAIN: the next transaction starts
			// at once.
			t.parts = append(t.parts, part{ctl: ctlBegin})
		}
	}
	return t
}

func pgPart(n *pg.Node) part {
	switch {
	case n.GetTransactionStmt() != nil:
		switch n.GetTransactionStmt().Kind {
		case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
			return part{ctl: ctlBegin}
		case pg.TransactionStmtKind_TRANS_STMT_COMMIT, pg.TransactionStmtKind_TRANS_STMT_PREPARE:
			return part{ctl: ctlCommit}
		case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
			return part{ctl: ctlRollback}
		}
		return part{ctl: ctlIgnore}
	case n.GetSelectStmt() != nil, n.GetInsertStmt() != nil, n.GetUpdateStmt() != nil, n.GetDeleteStmt() != nil:
		var acc []access
		pgStmt(n, &acc, nil)
		return dmlPart(acc)
	case n.GetExplainStmt() != nil:
		return part{ctl: ctlIgnore}
	}
	return part{ctl: ctlIgnore}
}

// pgStmt appends the accesses of a DML statement (and its subqueries).
func pgStmt(n *pg.Node, acc *[]access, ctes cteSet) {
	if n == nil {
		return
	}
	ctes = pgWith(n, acc, ctes)
	switch {
	case n.GetSelectStmt() != nil:
		pgSelect(n.GetSelectStmt(), acc, ctes)
	case n.GetInsertStmt() != nil:
		in := n.GetInsertStmt()
		name := in.Relation.GetRelname()
		var cols []string
		for _, c := range in.Cols {
			cols = append(cols, c.GetResTarget().GetName())
		}
		sel := in.SelectStmt.GetSelectStmt()
		if sel != nil && len(sel.ValuesLists) > 0 {
			var rows [][]*xexpr
			sc := &scope{}
			for _, vl := range sel.ValuesLists {
				var row []*xexpr
				for _, v := range vl.GetList().GetItems() {
					row = append(row, pgExpr(v, sc, acc, ctes))
				}
				rows = append(rows, row)
			}
			*acc = append(*acc, insertRows(name, cols, rows)...)
			return
		}
		if sel == nil {
			*acc = append(*acc, access{table: name, kind: shardkey.Insert})
			return
		}
		// INSERT ... SELECT: the inserted rows' values are the SELECT's
		// targets, bound where its WHERE binds them.
		at := len(*acc)
		*acc = append(*acc, access{table: name, kind: shardkey.Insert})
		(*acc)[at] = insertFromSelect(name, cols, pgSelect(sel, acc, ctes))
		(*acc)[at].none = returnsNoRow(*acc, at+1) // a SELECT of no row inserts none
	case n.GetUpdateStmt() != nil:
		up := n.GetUpdateStmt()
		sc := &scope{ctes: ctes}
		sc.add(up.Relation.GetRelname(), up.Relation.GetAlias().GetAliasname(), shardkey.Update)
		for _, f := range up.FromClause {
			pgFrom(f, sc, acc, ctes)
		}
		where := pgExpr(up.WhereClause, sc, acc, ctes)
		sc.where(where)
		var sets []pred
		for _, tl := range up.TargetList {
			x := pgExpr(tl.GetResTarget().GetVal(), sc, acc, ctes) // subqueries in SET
			if name := tl.GetResTarget().GetName(); name != "" && len(tl.GetResTarget().GetIndirection()) == 0 {
				sets = append(sets, setPred(name, x))
			}
		}
		own := sc.accesses()
		withSets(own, up.Relation.GetRelname(), sets)
		sc.merges(*acc, own, where)
		*acc = append(*acc, tables(own)...)
	case n.GetDeleteStmt() != nil:
		del := n.GetDeleteStmt()
		sc := &scope{ctes: ctes}
		sc.add(del.Relation.GetRelname(), del.Relation.GetAlias().GetAliasname(), shardkey.Delete)
		for _, f := range del.UsingClause {
			pgFrom(f, sc, acc, ctes)
		}
		where := pgExpr(del.WhereClause, sc, acc, ctes)
		sc.where(where)
		own := sc.accesses()
		sc.merges(*acc, own, where)
		*acc = append(*acc, tables(own)...)
	}
}

// pgWith adds the accesses of a statement's CTEs and returns the CTE names,
// which are not tables.
func pgWith(n *pg.Node, acc *[]access, ctes cteSet) cteSet {
	var w *pg.WithClause
	switch {
	case n.GetSelectStmt() != nil:
		w = n.GetSelectStmt().WithClause
	case n.GetInsertStmt() != nil:
		w = n.GetInsertStmt().WithClause
	case n.GetUpdateStmt() != nil:
		w = n.GetUpdateStmt().WithClause
	case n.GetDeleteStmt() != nil:
		w = n.GetDeleteStmt().WithClause
	}
	if w == nil {
		return ctes
	}
	m := cteSet{}
	for k, v := range ctes {
		m[k] = v
	}
	for _, c := range w.Ctes {
		m[c.GetCommonTableExpr().GetCtename()] = nil
	}
	for _, c := range w.Ctes {
		cte := c.GetCommonTableExpr()
		// A CTE that only filters one table and is referenced once is read
		// as that table where it is referenced, so the outer query's
		// conditions reach it, as PostgreSQL (12 and later) inlines it; its
		// accesses are added there. Any other is read here, as written
		// (PostgreSQL materialises a CTE referenced twice, or RECURSIVE,
		// or MATERIALIZED).
		body := cte.GetCtequery().GetSelectStmt()
		if _, plain := pgPlain(body, m); plain && !w.Recursive && cte.Ctematerialized != pg.CTEMaterialize_CTEMaterializeAlways &&
			pgRefs(n.ProtoReflect(), cte.Ctename) == 1 {
			m[cte.Ctename] = body
			continue
		}
		pgStmt(cte.GetCtequery(), acc, m)
	}
	return m
}

// pgRefs counts the table references (RangeVar) to name, unqualified, in
// a statement.
func pgRefs(m protoreflect.Message, name string) int {
	n := 0
	if rv, ok := m.Interface().(*pg.RangeVar); ok && rv.Relname == name && rv.Schemaname == "" {
		n++
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Message() == nil || fd.IsMap():
		case fd.IsList():
			for i, l := 0, v.List(); i < l.Len(); i++ {
				n += pgRefs(l.Get(i).Message(), name)
			}
		default:
			n += pgRefs(v.Message(), name)
		}
		return true
	})
	return n
}

func pgSelect(s *pg.SelectStmt, acc *[]access, ctes cteSet) []*pred {
	if s == nil {
		return nil
	}
	if s.Op != pg.SetOperation_SETOP_NONE && s.Op != pg.SetOperation_SET_OPERATION_UNDEFINED {
		l := pgSelect(s.Larg, acc, ctes)
		r := pgSelect(s.Rarg, acc, ctes)
		if s.Op == pg.SetOperation_SETOP_UNION {
			return unionTargets(l, r)
		}
		return l // INTERSECT, EXCEPT: some of the left arm's rows
	}
	if s.WithClause != nil {
		ctes = pgWith(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: s}}, acc, ctes)
	}
	if len(s.ValuesLists) > 0 {
		// VALUES (...), (...) (an arm of a UNION an INSERT copies): each
		// position returns the values its rows give, when all are known.
		var out []*pred
		sc := &scope{}
		for r, vl := range s.ValuesLists {
			for i, v := range vl.GetList().GetItems() {
				x := pgExpr(v, sc, acc, ctes)
				if r == 0 {
					out = append(out, &pred{op: shardkey.In})
				}
				if i >= len(out) || out[i] == nil {
					continue
				}
				if x.kind != xVal || x.val.kind == argUnknown {
					out[i] = nil
					continue
				}
				out[i].args = append(out[i].args, x.val)
			}
		}
		return out
	}
	sc := &scope{ctes: ctes}
	start := len(*acc)
	for _, f := range s.FromClause {
		pgFrom(f, sc, acc, ctes)
	}
	where := pgExpr(s.WhereClause, sc, acc, ctes)
	sc.where(where)
	var targets []*xexpr
	for _, t := range s.TargetList {
		if f := t.GetResTarget().GetVal().GetColumnRef().GetFields(); len(f) > 0 && f[len(f)-1].GetAStar() != nil {
			targets = append(targets, &xexpr{kind: xOther, op: "*"})
			continue
		}
		targets = append(targets, pgExpr(t.GetResTarget().GetVal(), sc, acc, ctes))
	}
	own := sc.accesses()
	sc.correlate((*acc)[start:], own)
	bound := sc.boundTargets(targets, own)
	sc.merges(*acc, own, where)
	*acc = append(*acc, tables(own)...)
	return bound
}

// pgFrom adds one FROM item: a table, a join (its ON condition joins the
// WHERE clause's conjuncts), or a subquery (its own scope).
func pgFrom(n *pg.Node, sc *scope, acc *[]access, ctes cteSet) {
	switch {
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		if body, ok := ctes[rv.Relname].(*pg.SelectStmt); ok && rv.Schemaname == "" {
			// A CTE read as its one table (see pgWith); the body's own
			// table is not in scope of the CTE's name.
			alias := rv.GetAlias().GetAliasname()
			if alias == "" {
				alias = rv.Relname
			}
			inner := cteSet{}
			for k, v := range ctes {
				if k != rv.Relname {
					inner[k] = v
				}
			}
			if pgInline(body, alias, sc, acc, inner) {
				return
			}
		}
		sc.add(rv.Relname, rv.GetAlias().GetAliasname(), shardkey.Read)
	case n.GetJoinExpr() != nil:
		j := n.GetJoinExpr()
		start := len(sc.refs)
		pgFrom(j.Larg, sc, acc, ctes)
		mid := len(sc.refs)
		pgFrom(j.Rarg, sc, acc, ctes)
		on := pgExpr(j.Quals, sc, acc, ctes)
		var side [2]int
		switch j.Jointype {
		case pg.JoinType_JOIN_INNER:
		case pg.JoinType_JOIN_LEFT:
			side = [2]int{mid, len(sc.refs)}
		case pg.JoinType_JOIN_RIGHT:
			side = [2]int{start, mid}
		}
		if !sc.join(on, side, j.Jointype == pg.JoinType_JOIN_INNER) {
			return
		}
		if len(j.UsingClause) > 0 && len(sc.refs) >= 2 {
			a, b := len(sc.refs)-2, len(sc.refs)-1
			for _, u := range j.UsingClause {
				c := u.GetString_().GetSval()
				sc.using = append(sc.using, [2]colRef{{a, c}, {b, c}})
				sc.usingSide = append(sc.usingSide, side)
			}
		}
	case n.GetRangeSubselect() != nil:
		rs := n.GetRangeSubselect()
		if a := rs.GetAlias(); a != nil && len(a.Colnames) == 0 && !rs.Lateral && pgInline(rs.Subquery.GetSelectStmt(), a.Aliasname, sc, acc, ctes) {
			return
		}
		if a := rs.GetAlias(); a != nil && len(a.Colnames) == 0 && !rs.Lateral && pgUnionInline(rs.Subquery.GetSelectStmt(), a.Aliasname, sc, acc, ctes) {
			return
		}
		if sel, a := rs.Subquery.GetSelectStmt(), rs.GetAlias(); sel != nil && a != nil && len(a.Colnames) == 0 && !rs.Lateral {
			from := len(*acc)
			bound := pgSelect(sel, acc, ctes)
			first := sel
			for first.Larg != nil && first.Op != pg.SetOperation_SETOP_NONE && first.Op != pg.SetOperation_SET_OPERATION_UNDEFINED {
				first = first.Larg
			}
			var names []string
			for _, t := range first.TargetList {
				rt := t.GetResTarget()
				name := rt.Name
				if f := rt.GetVal().GetColumnRef().GetFields(); name == "" && len(f) > 0 {
					name = f[len(f)-1].GetString_().GetSval()
				}
				names = append(names, name)
			}
			sc.addVirtual(a.Aliasname, names, bound)
			if k := len(*acc) - 1; k >= from && len(sc.refs) > 0 && sc.refs[len(sc.refs)-1].virtual {
				// The reads of a table its columns return (merge.go).
				for _, n := range names {
					if src, ok := pgMergeTarget(sel, n); ok && n != "" {
						src.inner = k
						if sc.refs[len(sc.refs)-1].src == nil {
							sc.refs[len(sc.refs)-1].src = map[string]mergeSrc{}
						}
						sc.refs[len(sc.refs)-1].src[n] = src
					}
				}
			}
			return
		}
		pgStmt(rs.Subquery, acc, ctes)
	}
}

// pgInline adds s, a derived table seen as alias, to sc as its one table
// when s is a plain filter of one table: SELECT columns or * FROM table
// [WHERE ...], with no grouping, DISTINCT, LIMIT, window or set operation,
// so that every row the outer query keeps is a row of the table with the
// same values (see scope.inline). The table may itself be such a derived
// table or CTE, at any depth, as PostgreSQL's planner pulls up simple
// subqueries (pull_up_subqueries, src/backend/optimizer/prep/prepjointree.c)
// and Vitess's pushes predicates through derived tables. It reports false,
// adding nothing, for any other SELECT.
func pgInline(s *pg.SelectStmt, alias string, sc *scope, acc *[]access, ctes cteSet) bool {
	rename, ok := pgPlain(s, ctes)
	if !ok || alias == "" {
		return false
	}
	in := &scope{ctes: ctes}
	pgFrom(s.FromClause[0], in, acc, ctes)
	in.where(pgExpr(s.WhereClause, in, acc, ctes))
	return sc.inline(in, alias, rename)
}

// pgUnionInline adds a derived UNION (or UNION ALL) whose arms are each a
// plain filter of one table (see pgInline) to sc as one derived table
// per arm, a group that the outer query's conditions on alias bind arm by
// arm, by position (see scope.expandUnion). It reports false, adding
// nothing, for any other set operation.
func pgUnionInline(s *pg.SelectStmt, alias string, sc *scope, acc *[]access, ctes cteSet) bool {
	var leaves []*pg.SelectStmt
	var walk func(x *pg.SelectStmt) bool
	walk = func(x *pg.SelectStmt) bool {
		switch {
		case x == nil:
			return false
		case x.Op == pg.SetOperation_SETOP_UNION:
			return len(x.SortClause) == 0 && x.LimitCount == nil && x.LimitOffset == nil && x.WithClause == nil && walk(x.Larg) && walk(x.Rarg)
		case x.Op != pg.SetOperation_SETOP_NONE && x.Op != pg.SetOperation_SET_OPERATION_UNDEFINED:
			return false
		}
		if _, ok := pgPlain(x, ctes); !ok {
			return false
		}
		for _, t := range x.TargetList {
			if f := t.GetResTarget().GetVal().GetColumnRef().GetFields(); len(f) > 0 && f[len(f)-1].GetAStar() != nil {
				return false // SELECT *: positions unknown without the catalog
			}
		}
		leaves = append(leaves, x)
		return true
	}
	if alias == "" || s == nil || s.Op != pg.SetOperation_SETOP_UNION || !walk(s) {
		return false
	}
	// The UNION's columns are named by its first arm.
	var names []string
	for _, t := range leaves[0].TargetList {
		rt := t.GetResTarget()
		name := rt.Name
		if f := rt.GetVal().GetColumnRef().GetFields(); name == "" && len(f) > 0 {
			name = f[len(f)-1].GetString_().GetSval()
		}
		names = append(names, name)
	}
	sc.groups++
	sc.arm = sc.groups
	defer func() { sc.arm = 0 }()
	for _, leaf := range leaves {
		rename := map[string]string{}
		for k, t := range leaf.TargetList {
			f := t.GetResTarget().GetVal().GetColumnRef().GetFields()
			if k < len(names) && names[k] != "" && len(f) > 0 {
				rename[names[k]] = f[len(f)-1].GetString_().GetSval()
			}
		}
		in := &scope{ctes: ctes}
		pgFrom(leaf.FromClause[0], in, acc, ctes)
		in.where(pgExpr(leaf.WhereClause, in, acc, ctes))
		sc.inline(in, alias, rename)
	}
	return true
}

// pgPlain reports whether s is a plain filter of one table (see
// pgInline), and returns how its output columns map to the names its FROM
// shows (nil: SELECT *, the same names).
func pgPlain(s *pg.SelectStmt, ctes cteSet) (rename map[string]string, ok bool) {
	if s == nil || (s.Op != pg.SetOperation_SETOP_NONE && s.Op != pg.SetOperation_SET_OPERATION_UNDEFINED) ||
		len(s.FromClause) != 1 ||
		len(s.DistinctClause) > 0 || s.LimitCount != nil || s.LimitOffset != nil || len(s.WindowClause) > 0 ||
		s.WithClause != nil || len(s.ValuesLists) > 0 || s.IntoClause != nil || len(s.LockingClause) > 0 {
		return nil, false
	}
	switch f := s.FromClause[0]; {
	case f.GetRangeVar() != nil:
		rv := f.GetRangeVar()
		if body, cte := ctes[rv.Relname]; cte && rv.Schemaname == "" {
			b, inl := body.(*pg.SelectStmt)
			if !inl {
				return nil, false
			}
			inner := cteSet{}
			for k, v := range ctes {
				if k != rv.Relname {
					inner[k] = v
				}
			}
			if _, ok := pgPlain(b, inner); !ok {
				return nil, false
			}
		}
	case f.GetRangeSubselect() != nil:
		rs := f.GetRangeSubselect()
		if a := rs.GetAlias(); a == nil || len(a.Colnames) > 0 || rs.Lateral {
			return nil, false
		}
		if _, ok := pgPlain(rs.Subquery.GetSelectStmt(), ctes); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	// GROUP BY: a condition on a grouping column is pushed below the
	// grouping (PostgreSQL's subquery_push_qual, optimizer/path/allpaths.c,
	// puts it in HAVING, which the planner moves to WHERE as it has no
	// aggregate): only grouping columns are shown as the table's.
	grouped := len(s.GroupClause) > 0 || s.HavingClause != nil
	var groupCols map[string]bool
	if grouped {
		groupCols = map[string]bool{}
		for _, g := range s.GroupClause {
			if f := g.GetColumnRef().GetFields(); len(f) > 0 {
				groupCols[f[len(f)-1].GetString_().GetSval()] = true
			} else if c := g.GetAConst(); c != nil && c.GetIval() != nil {
				if k := int(c.GetIval().Ival) - 1; k >= 0 && k < len(s.TargetList) {
					if f := s.TargetList[k].GetResTarget().GetVal().GetColumnRef().GetFields(); len(f) > 0 {
						groupCols[f[len(f)-1].GetString_().GetSval()] = true
					}
				}
			}
		}
	}
	rename = map[string]string{}
	for _, t := range s.TargetList {
		rt := t.GetResTarget()
		f := rt.GetVal().GetColumnRef().GetFields()
		if fc := rt.GetVal().GetFuncCall(); fc != nil && fc.Over == nil && (fc.AggStar || pgAggregate(pgName(fc.Funcname))) {
			if grouped {
				continue // an aggregate of a group: its outer name is no column
			}
			return nil, false // an aggregate: one row of many
		}
		if len(f) == 0 {
			continue // an expression (a window function's too): its outer name is no column
		}
		if f[len(f)-1].GetAStar() != nil {
			if len(s.TargetList) != 1 || grouped {
				return nil, false
			}
			return nil, true // SELECT *: the table's names
		}
		col := f[len(f)-1].GetString_().GetSval()
		if col == "" {
			return nil, false
		}
		if grouped && !groupCols[col] {
			continue
		}
		out := rt.Name
		if out == "" {
			out = col
		}
		rename[out] = col
	}
	return rename, true
}

// pgAggregate reports whether name is one of PostgreSQL's common
// aggregate functions.
func pgAggregate(name string) bool {
	switch strings.ToLower(name) {
	case "count", "sum", "min", "max", "avg", "array_agg", "string_agg", "bool_and", "bool_or", "every",
		"json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg", "stddev", "variance", "bit_and", "bit_or":
		return true
	}
	return false
}

// sameTypeCast reports whether a cast to type name (as pg_query gives it:
// int8, int4, ...) is taken for a cast of a key column to its own type,
// which PostgreSQL's parser drops (coerce_type in parser/parse_coerce.c
// returns the expression unchanged): bigint, the usual key type. Other
// casts of a column are expressions.
func sameTypeCast(name string) bool {
	return name == "int8" || name == "bigint"
}

func pgName(nodes []*pg.Node) string {
	if len(nodes) == 0 {
		return ""
	}
	return nodes[len(nodes)-1].GetString_().GetSval()
}

// pgExpr translates an expression into the neutral form. Subqueries are
// walked for their own accesses and bind nothing in sc.
func pgExpr(n *pg.Node, sc *scope, acc *[]access, ctes cteSet) *xexpr {
	if n == nil {
		return nil
	}
	switch {
	case n.GetColumnRef() != nil:
		f := n.GetColumnRef().Fields
		if len(f) == 0 || f[len(f)-1].GetString_() == nil {
			return &xexpr{}
		}
		x := &xexpr{kind: xCol, col: f[len(f)-1].GetString_().GetSval()}
		if len(f) >= 2 {
			x.qual = f[len(f)-2].GetString_().GetSval()
		}
		return x
	case n.GetAConst() != nil:
		c := n.GetAConst()
		switch {
		case c.Isnull:
			return &xexpr{kind: xVal, val: arg{kind: argLit, lit: lit{kind: litNull}}}
		case c.GetBoolval() != nil:
			if c.GetBoolval().Boolval {
				return &xexpr{kind: xConst, op: "true"}
			}
			return &xexpr{kind: xConst, op: "false"}
		case c.GetIval() != nil:
			return &xexpr{kind: xVal, val: arg{kind: argLit, lit: lit{kind: litNum, s: itoa(int64(c.GetIval().Ival))}}}
		case c.GetFval() != nil:
			return &xexpr{kind: xVal, val: arg{kind: argLit, lit: lit{kind: litNum, s: c.GetFval().Fval}}}
		case c.GetSval() != nil:
			return &xexpr{kind: xVal, val: arg{kind: argLit, lit: lit{kind: litStr, s: c.GetSval().Sval}}}
		}
		return &xexpr{}
	case n.GetParamRef() != nil:
		num := int(n.GetParamRef().Number)
		if num > 2*slotBase {
			return &xexpr{kind: xVal, val: arg{kind: argIntSlot, n: num - 2*slotBase - 1}}
		}
		if num > slotBase {
			return &xexpr{kind: xVal, val: arg{kind: argSlot, n: num - slotBase - 1}}
		}
		return &xexpr{kind: xVal, val: arg{kind: argParam, n: num - 1}}
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		x := pgExpr(tc.Arg, sc, acc, ctes)
		if x != nil && x.kind == xCol && !sameTypeCast(pgName(tc.TypeName.GetNames())) {
			// An explicit cast of a column (id::text = '42') is an
			// expression, not the column: Citus prunes only on a Var
			// compared with a Const once implicit coercions are stripped
			// (strip_implicit_coercions in PrunableExpressionsWalker,
			// planner/shard_pruning.c), so it asks every shard.
			return castExpr(x)
		}
		if x != nil && x.kind == xVal && pgName(tc.TypeName.GetNames()) == "interval" && x.val.kind == argLit {
			// interval '5 years': its length, for now() - interval.
			x.val.us, x.val.usOK = pgInterval(x.val.lit.s)
			return x
		}
		if x != nil && x.kind == xVal {
			if t, err := shardkey.ParseType(pgName(tc.TypeName.GetNames())); err == nil {
				switch t {
				case shardkey.Date:
					// A SQL DATE is read as a timestamp, as the catalogs
					// (livedb) read date columns.
					x.val.hint = shardkey.Timestamp
				case shardkey.Bool, shardkey.ObjectID, shardkey.ExtJSON:
					// no hint: booleans and BSON types are not key types of SQL logs
				default:
					x.val.hint = t
				}
			}
		}
		return x
	case n.GetSetToDefault() != nil:
		return &xexpr{kind: xVal, val: arg{kind: argNewest}}
	case n.GetSqlvalueFunction() != nil:
		g := arg{kind: argNewest}
		switch n.GetSqlvalueFunction().Op {
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N,
			pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
			g.usOK = true // now, offset 0
		}
		return &xexpr{kind: xVal, val: g}
	case n.GetFuncCall() != nil:
		fc := n.GetFuncCall()
		var args []*xexpr
		for _, a := range fc.Args {
			args = append(args, pgExpr(a, sc, acc, ctes))
		}
		if k := freshFunc(pgName(fc.Funcname)); k == argNewest {
			return &xexpr{kind: xVal, val: nowArg(pgName(fc.Funcname))}
		} else if k != argUnknown {
			return &xexpr{kind: xVal, val: arg{kind: k}}
		}
		if fc.Over == nil && !fc.AggStar && len(fc.AggOrder) == 0 {
			if foldable(pgName(fc.Funcname)) && slotArgs(args) {
				sc.slotConst = true // read as written, where it folds
			}
			return foldFunc(pgName(fc.Funcname), args)
		}
		return &xexpr{}
	case n.GetRowExpr() != nil:
		x := &xexpr{kind: xRow}
		for _, a := range n.GetRowExpr().Args {
			x.kids = append(x.kids, pgExpr(a, sc, acc, ctes))
		}
		return x
	case n.GetBoolExpr() != nil:
		b := n.GetBoolExpr()
		x := &xexpr{}
		switch b.Boolop {
		case pg.BoolExprType_AND_EXPR:
			x.kind = xAnd
		case pg.BoolExprType_OR_EXPR:
			x.kind = xOr
		case pg.BoolExprType_NOT_EXPR:
			x.kind = xNot
		}
		for _, a := range b.Args {
			k := pgExpr(a, sc, acc, ctes)
			if k == nil {
				k = &xexpr{}
			}
			x.kids = append(x.kids, k)
		}
		return x
	case n.GetCoalesceExpr() != nil, n.GetMinMaxExpr() != nil:
		name, list := "coalesce", n.GetCoalesceExpr().GetArgs()
		if mm := n.GetMinMaxExpr(); mm != nil {
			name, list = "least", mm.Args
			if mm.Op == pg.MinMaxOp_IS_GREATEST {
				name = "greatest"
			}
		}
		var args []*xexpr
		for _, a := range list {
			args = append(args, pgExpr(a, sc, acc, ctes))
		}
		if slotArgs(args) {
			sc.slotConst = true
		}
		return foldFunc(name, args)
	case n.GetNullTest() != nil:
		nt := n.GetNullTest()
		x := &xexpr{kind: xIsNull, kids: []*xexpr{orOther(pgExpr(nt.Arg, sc, acc, ctes))}}
		if nt.Nulltesttype == pg.NullTestType_IS_NOT_NULL {
			x.op = "not"
		}
		return x
	case n.GetSubLink() != nil:
		from := len(*acc)
		sl := n.GetSubLink()
		pgStmt(sl.Subselect, acc, ctes)
		empty := returnsNoRow(*acc, from)
		switch sl.SubLinkType {
		case pg.SubLinkType_EXPR_SUBLINK:
			if empty {
				return &xexpr{kind: xVal, val: arg{kind: argLit, lit: lit{kind: litNull}}} // no row: NULL
			}
			return runtimeValue()
		case pg.SubLinkType_ANY_SUBLINK, pg.SubLinkType_EXISTS_SUBLINK:
			if empty {
				return &xexpr{kind: xConst, op: "subfalse"} // x IN (no row), EXISTS (no row)
			}
		}
		x := &xexpr{}
		if sl.SubLinkType == pg.SubLinkType_ANY_SUBLINK && (len(sl.OperName) == 0 || pgName(sl.OperName) == "=") {
			// col IN (subquery): tied to the read of a table the
			// subquery returns (merge.go).
			pgLink(x, sl.Testexpr, sl.Subselect, from, sc, acc, ctes)
		}
		return x
	case n.GetAExpr() != nil:
		return pgAExpr(n.GetAExpr(), sc, acc, ctes)
	}
	return &xexpr{}
}

func pgAExpr(e *pg.A_Expr, sc *scope, acc *[]access, ctes cteSet) *xexpr {
	op := pgName(e.Name)
	switch e.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		if e.Lexpr == nil && op == "+" { // unary plus
			return pgExpr(e.Rexpr, sc, acc, ctes)
		}
		if e.Lexpr == nil && op == "-" { // unary minus
			x := pgExpr(e.Rexpr, sc, acc, ctes)
			if x != nil && x.kind == xVal {
				x.val.neg = !x.val.neg
				return x
			}
			return &xexpr{}
		}
		from := len(*acc)
		l, r := pgExpr(e.Lexpr, sc, acc, ctes), pgExpr(e.Rexpr, sc, acc, ctes)
		if l == nil || r == nil {
			return &xexpr{}
		}
		switch op {
		case "=", "<", "<=", ">", ">=":
			x := &xexpr{kind: xCmp, op: op, kids: []*xexpr{l, r}}
			if sl := e.Rexpr.GetSubLink(); op == "=" && sl != nil && sl.SubLinkType == pg.SubLinkType_EXPR_SUBLINK {
				pgLink(x, e.Lexpr, sl.Subselect, from, sc, acc, ctes)
			}
			return x
		case "<>", "!=":
			return &xexpr{kind: xCmp, op: "<>", kids: []*xexpr{l, r}}
		case "+", "-", "*", "/", "%":
			return foldArith(op, l, r, false)
		}
	case pg.A_Expr_Kind_AEXPR_OP_ANY:
		// col = ANY(ARRAY[...]) is an IN list; so is col = ANY($1) or
		// col = ANY('{1,2}') (the array drivers such as pgx send for a
		// list), whose value's elements are split when it is bound.
		l := pgExpr(e.Lexpr, sc, acc, ctes)
		if op == "=" && l != nil && e.Rexpr.GetAArrayExpr() != nil {
			x := &xexpr{kind: xIn, kids: []*xexpr{l}}
			for _, it := range e.Rexpr.GetAArrayExpr().Elements {
				x.kids = append(x.kids, pgExpr(it, sc, acc, ctes))
			}
			return x
		}
		r := pgExpr(e.Rexpr, sc, acc, ctes)
		if op == "=" && l != nil && r != nil && r.kind == xVal && (r.val.kind == argParam || r.val.slotted() || r.val.kind == argLit) {
			r.val.array = true
			return &xexpr{kind: xIn, kids: []*xexpr{l, r}}
		}
	case pg.A_Expr_Kind_AEXPR_IN:
		l := pgExpr(e.Lexpr, sc, acc, ctes)
		if op != "=" && op != "<>" || l == nil {
			return &xexpr{}
		}
		x := &xexpr{kind: xIn, kids: []*xexpr{l}}
		if op == "<>" {
			x.op = "<>" // NOT IN
		}
		for _, it := range e.Rexpr.GetList().GetItems() {
			x.kids = append(x.kids, pgExpr(it, sc, acc, ctes))
		}
		return x
	case pg.A_Expr_Kind_AEXPR_BETWEEN:
		l := pgExpr(e.Lexpr, sc, acc, ctes)
		items := e.Rexpr.GetList().GetItems()
		if l == nil || len(items) != 2 {
			return &xexpr{}
		}
		return &xexpr{kind: xBetween, kids: []*xexpr{l, pgExpr(items[0], sc, acc, ctes), pgExpr(items[1], sc, acc, ctes)}}
	default:
		pgExpr(e.Lexpr, sc, acc, ctes)
		pgExpr(e.Rexpr, sc, acc, ctes)
	}
	return &xexpr{}
}

func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	neg := n < 0
	u := uint64(n)
	if neg {
		u = uint64(-n)
	}
	for {
		i--
		b[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// pgParams parses a DETAIL "parameters: $1 = '42', $2 = NULL" list into
// values by parameter number.
func pgParams(s string) ([]lit, bool) {
	s = strings.TrimPrefix(s, "parameters: ")
	var out []lit
	for len(s) > 0 {
		if s[0] != '$' {
			return out, false
		}
		i := 1
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		n := 0
		for _, c := range s[1:i] {
			n = n*10 + int(c-'0')
			if n > 65536 {
				return out, false
			}
		}
		if n < 1 || !strings.HasPrefix(s[i:], " = ") {
			return out, false
		}
		s = s[i+3:]
		var v lit
		switch {
		case strings.HasPrefix(s, "NULL"):
			v = lit{kind: litNull}
			s = s[4:]
		case strings.HasPrefix(s, "'"):
			str, k, ok := readString(s, '\'', false)
			if !ok {
				return out, false
			}
			v = lit{kind: litStr, s: str}
			s = s[k:]
			if strings.HasPrefix(s, "...") { // truncated by log_parameter_max_length
				v = lit{kind: litNoValue}
				s = s[3:]
			}
		default:
			return out, false
		}
		for len(out) < n {
			out = append(out, lit{kind: litNoValue})
		}
		out[n-1] = v
		s = strings.TrimPrefix(s, ", ")
	}
	return out, true
}
