package sqllog

import (
	"encoding/hex"
	"math/big"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
	"vitess.io/vitess/go/vt/sqlparser"
)

var mysqlParser = func() *sqlparser.Parser {
	p, err := sqlparser.New(sqlparser.Options{MySQLServerVersion: "8.0.40"})
	if err != nil {
		panic(err) // a constant version string: a programmer error
	}
	return p
}()

// parseMySQL parses text with Vitess's MySQL parser into a template.
func parseMySQL(text string) *template {
	stmts, err := mysqlParser.ParseMultiple(text)
	if err != nil {
		if parts := myTxnWords(text); parts != nil {
			return &template{text: text, parts: parts}
		}
		return &template{err: err, text: text}
	}
	t := &template{text: text}
	for _, st := range stmts {
		t.parts = append(t.parts, myPart(st))
	}
	return t
}

// myTxnWords returns the parts of a transaction statement in MySQL's
// grammar that Vitess's parser refuses (BEGIN WORK; COMMIT or ROLLBACK
// with WORK, AND [NO] CHAIN or [NO] RELEASE), nil for any other text.
// AND CHAIN starts the next transaction at once: a BEGIN part follows.
// RELEASE disconnects, which the log shows as the session's end.
func myTxnWords(text string) []part {
	w := strings.Fields(strings.ToUpper(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), ";"))))
	if len(w) == 2 && w[0] == "BEGIN" && w[1] == "WORK" {
		return []part{{ctl: ctlBegin}}
	}
	if len(w) == 0 || w[0] != "COMMIT" && w[0] != "ROLLBACK" {
		return nil
	}
	end := part{ctl: ctlCommit}
	if w[0] == "ROLLBACK" {
		end.ctl = ctlRollback
	}
	w = w[1:]
	if len(w) > 0 && w[0] == "WORK" {
		w = w[1:]
	}
	chain := false
	switch {
	case len(w) >= 3 && w[0] == "AND" && w[1] == "NO" && w[2] == "CHAIN":
		w = w[3:]
	case len(w) >= 2 && w[0] == "AND" && w[1] == "CHAIN":
		chain, w = true, w[2:]
	}
	switch {
	case len(w) == 2 && w[0] == "NO" && w[1] == "RELEASE", len(w) == 1 && w[0] == "RELEASE":
		w = nil
	}
	if len(w) != 0 {
		return nil // ROLLBACK TO s, or not a transaction statement
	}
	if chain {
		return []part{end, {ctl: ctlBegin}}
	}
	return []part{end}
}

func myPart(st sqlparser.Statement) part {
	switch s := st.(type) {
	case *sqlparser.Begin:
		return part{ctl: ctlBegin}
	case *sqlparser.Commit:
		return part{ctl: ctlCommit}
	case *sqlparser.Rollback:
		return part{ctl: ctlRollback}
	case *sqlparser.Set:
		for _, e := range s.Exprs {
			if e.Var != nil && e.Var.Name.Lowered() == "autocommit" {
				v := strings.ToLower(sqlparser.String(e.Expr))
				switch strings.Trim(v, "'") {
				case "0", "off", "false":
					return part{ctl: ctlAutocommitOff}
				case "1", "on", "true":
					return part{ctl: ctlAutocommitOn}
				}
			}
		}
		return part{ctl: ctlIgnore}
	case *sqlparser.Select, *sqlparser.Union, *sqlparser.Insert, *sqlparser.Update, *sqlparser.Delete:
		var acc []access
		myStmt(st, &acc, nil)
		return dmlPart(acc)
	}
	return part{ctl: ctlIgnore}
}

func myWith(w *sqlparser.With, root sqlparser.SQLNode, acc *[]access, ctes cteSet) cteSet {
	if w == nil {
		return ctes
	}
	m := cteSet{}
	for k, v := range ctes {
		m[k] = v
	}
	for _, c := range w.CTEs {
		m[c.ID.String()] = nil
	}
	for _, c := range w.CTEs {
		// As pgWith: a plain filter of one table referenced once is read
		// as that table where it is referenced (MySQL merges it into the
		// outer query as it merges a derived table).
		if body, ok := c.Subquery.(*sqlparser.Select); ok && !w.Recursive && len(c.Columns) == 0 {
			if _, plain := myPlain(body, m); plain && myRefs(root, c.ID.String()) == 1 {
				m[c.ID.String()] = body
				continue
			}
		}
		myStmt(c.Subquery, acc, m)
	}
	return m
}

// mySelect appends the accesses of a SELECT and returns its targets (a
// star or other non-expression target is nil), columns qualified by the
// table that holds them where the names say (scope.tableTargets).
func mySelect(s *sqlparser.Select, acc *[]access, ctes cteSet) []*pred {
	ctes = myWith(s.With, s, acc, ctes)
	sc := &scope{ctes: ctes}
	start := len(*acc)
	for _, f := range s.From {
		myFrom(f, sc, acc, ctes)
	}
	var where *xexpr
	if s.Where != nil {
		where = myExpr(s.Where.Expr, sc, acc, ctes)
		sc.where(where)
	}
	var targets []*xexpr
	if s.SelectExprs != nil {
		for _, e := range s.SelectExprs.Exprs {
			var x *xexpr
			if ae, ok := e.(*sqlparser.AliasedExpr); ok {
				x = myExpr(ae.Expr, sc, acc, ctes)
			} else if _, ok := e.(*sqlparser.StarExpr); ok {
				x = &xexpr{kind: xOther, op: "*"} // see scope.boundTargets
			}
			targets = append(targets, x)
		}
	}
	own := sc.accesses()
	sc.correlate((*acc)[start:], own)
	bound := sc.boundTargets(targets, own)
	sc.merges(*acc, own, where)
	*acc = append(*acc, tables(own)...)
	return bound
}

// myTargets appends the accesses of a SELECT or UNION and returns its
// bound targets (see scope.boundTargets).
func myTargets(st sqlparser.TableStatement, acc *[]access, ctes cteSet) []*pred {
	switch s := st.(type) {
	case *sqlparser.Select:
		return mySelect(s, acc, ctes)
	case *sqlparser.Union:
		ctes = myWith(s.With, s, acc, ctes)
		l := myTargets(s.Left, acc, ctes)
		r := myTargets(s.Right, acc, ctes)
		return unionTargets(l, r)
	}
	myStmt(st, acc, ctes)
	return nil
}

func myStmt(st sqlparser.SQLNode, acc *[]access, ctes cteSet) {
	switch s := st.(type) {
	case *sqlparser.Select:
		mySelect(s, acc, ctes)
	case *sqlparser.Union:
		ctes = myWith(s.With, s, acc, ctes)
		myStmt(s.Left, acc, ctes)
		myStmt(s.Right, acc, ctes)
	case *sqlparser.Insert:
		name := ""
		if tn, ok := s.Table.Expr.(sqlparser.TableName); ok {
			name = tn.Name.String()
		}
		var cols []string
		for _, c := range s.Columns {
			cols = append(cols, c.Lowered())
		}
		switch rows := s.Rows.(type) {
		case sqlparser.Values:
			sc := &scope{}
			var xs [][]*xexpr
			for _, vt := range rows {
				var row []*xexpr
				for _, v := range vt {
					row = append(row, myExpr(v, sc, acc, ctes))
				}
				xs = append(xs, row)
			}
			*acc = append(*acc, insertRows(name, cols, xs)...)
		case *sqlparser.Select, *sqlparser.Union:
			// INSERT ... SELECT: the inserted rows' values are the
			// SELECT's targets, bound where its WHERE binds them.
			at := len(*acc)
			*acc = append(*acc, access{table: name, kind: shardkey.Insert})
			(*acc)[at] = insertFromSelect(name, cols, myTargets(rows.(sqlparser.TableStatement), acc, ctes))
			(*acc)[at].none = returnsNoRow(*acc, at+1) // a SELECT of no row inserts none
		default:
			*acc = append(*acc, access{table: name, kind: shardkey.Insert})
			myStmt(rows, acc, ctes)
		}
	case *sqlparser.Update:
		ctes = myWith(s.With, s, acc, ctes)
		sc := &scope{ctes: ctes}
		for _, f := range s.TableExprs {
			myFrom(f, sc, acc, ctes)
		}
		if len(sc.refs) > 0 {
			sc.refs[0].kind = shardkey.Update
		}
		var where *xexpr
		if s.Where != nil {
			where = myExpr(s.Where.Expr, sc, acc, ctes)
			sc.where(where)
		}
		own := sc.accesses()
		if len(sc.refs) == 1 {
			// The SET clause's values (shardkey.Instance.Sets); its
			// subqueries are not read as accesses (a scratch list).
			var sets []pred
			var scratch []access
			for _, ue := range s.Exprs {
				sets = append(sets, setPred(ue.Name.Name.Lowered(), myExpr(ue.Expr, sc, &scratch, ctes)))
			}
			withSets(own, sc.refs[0].name, sets)
		}
		sc.merges(*acc, own, where)
		*acc = append(*acc, tables(own)...)
	case *sqlparser.Delete:
		ctes = myWith(s.With, s, acc, ctes)
		sc := &scope{ctes: ctes}
		for _, f := range s.TableExprs {
			myFrom(f, sc, acc, ctes)
		}
		if len(sc.refs) > 0 {
			sc.refs[0].kind = shardkey.Delete
		}
		var where *xexpr
		if s.Where != nil {
			where = myExpr(s.Where.Expr, sc, acc, ctes)
			sc.where(where)
		}
		own := sc.accesses()
		sc.merges(*acc, own, where)
		*acc = append(*acc, tables(own)...)
	}
}

// myInline is pgInline for MySQL: s, a derived table seen as alias, is
// added to sc as its one table when it is a plain filter of one table (at
// any depth of derived tables), as MySQL merges a derived table into the
// outer query.
func myInline(s *sqlparser.Select, alias string, sc *scope, acc *[]access, ctes cteSet) bool {
	rename, plain := myPlain(s, ctes)
	if !plain || alias == "" {
		return false
	}
	in := &scope{ctes: ctes}
	myFrom(s.From[0], in, acc, ctes)
	if s.Where != nil {
		in.where(myExpr(s.Where.Expr, in, acc, ctes))
	}
	return sc.inline(in, alias, rename)
}

// myUnionInline is pgUnionInline for MySQL.
func myUnionInline(u *sqlparser.Union, alias string, sc *scope, acc *[]access, ctes cteSet) bool {
	var leaves []*sqlparser.Select
	var walk func(x sqlparser.TableStatement) bool
	walk = func(x sqlparser.TableStatement) bool {
		switch s := x.(type) {
		case *sqlparser.Union:
			return s.With == nil && s.Limit == nil && len(s.OrderBy) == 0 && walk(s.Left) && walk(s.Right)
		case *sqlparser.Select:
			if _, ok := myPlain(s, ctes); !ok {
				return false
			}
			for _, e := range s.SelectExprs.Exprs {
				if _, star := e.(*sqlparser.StarExpr); star {
					return false
				}
			}
			leaves = append(leaves, s)
			return true
		}
		return false
	}
	if alias == "" || !walk(u) {
		return false
	}
	var names []string
	for _, e := range leaves[0].SelectExprs.Exprs {
		name := ""
		if ae, ok := e.(*sqlparser.AliasedExpr); ok {
			if !ae.As.IsEmpty() {
				name = ae.As.Lowered()
			} else if c, ok := ae.Expr.(*sqlparser.ColName); ok {
				name = c.Name.Lowered()
			}
		}
		names = append(names, name)
	}
	sc.groups++
	sc.arm = sc.groups
	defer func() { sc.arm = 0 }()
	for _, leaf := range leaves {
		rename := map[string]string{}
		for k, e := range leaf.SelectExprs.Exprs {
			if ae, ok := e.(*sqlparser.AliasedExpr); ok && k < len(names) && names[k] != "" {
				if c, ok := ae.Expr.(*sqlparser.ColName); ok {
					rename[names[k]] = c.Name.Lowered()
				}
			}
		}
		in := &scope{ctes: ctes}
		myFrom(leaf.From[0], in, acc, ctes)
		if leaf.Where != nil {
			in.where(myExpr(leaf.Where.Expr, in, acc, ctes))
		}
		sc.inline(in, alias, rename)
	}
	return true
}

// myPlain is pgPlain for MySQL: whether s is a plain filter of one table
// (a table, or a derived table or CTE that is one), and how s's output
// columns map to the names its FROM shows (nil: SELECT *).
func myPlain(s *sqlparser.Select, ctes cteSet) (rename map[string]string, ok bool) {
	if s == nil || s.Distinct || s.With != nil || len(s.From) != 1 ||
		len(s.Windows) > 0 || s.Limit != nil || s.Into != nil || s.Lock != sqlparser.NoLock || s.SelectExprs == nil {
		return nil, false
	}
	at, ok := s.From[0].(*sqlparser.AliasedTableExpr)
	if !ok {
		return nil, false
	}
	switch e := at.Expr.(type) {
	case sqlparser.TableName:
		if body, cte := ctes[e.Name.String()]; cte && e.Qualifier.IsEmpty() {
			b, inl := body.(*sqlparser.Select)
			if !inl {
				return nil, false
			}
			inner := cteSet{}
			for k, v := range ctes {
				if k != e.Name.String() {
					inner[k] = v
				}
			}
			if _, ok := myPlain(b, inner); !ok {
				return nil, false
			}
		}
	case *sqlparser.DerivedTable:
		sel, isSel := e.Select.(*sqlparser.Select)
		if !isSel || len(at.Columns) > 0 || e.Lateral || at.As.IsEmpty() {
			return nil, false
		}
		if _, ok := myPlain(sel, ctes); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	// GROUP BY: a condition on a grouping column is pushed below the
	// grouping (see pgPlain); only grouping columns are the table's.
	grouped := s.GroupBy != nil || s.Having != nil
	groupCols := map[string]bool{}
	if s.GroupBy != nil {
		for _, g := range s.GroupBy.Exprs {
			if c, ok := g.(*sqlparser.ColName); ok {
				groupCols[c.Name.Lowered()] = true
			}
		}
	}
	rename = map[string]string{}
	for _, e := range s.SelectExprs.Exprs {
		switch x := e.(type) {
		case *sqlparser.StarExpr:
			if len(s.SelectExprs.Exprs) != 1 || grouped {
				return nil, false
			}
			return nil, true
		case *sqlparser.AliasedExpr:
			if _, agg := x.Expr.(sqlparser.AggrFunc); agg {
				if grouped {
					continue // an aggregate of a group: its outer name is no column
				}
				return nil, false // an aggregate: one row of many
			}
			c, ok := x.Expr.(*sqlparser.ColName)
			if !ok {
				continue // an expression (a window function's too): its outer name is no column
			}
			if grouped && !groupCols[c.Name.Lowered()] {
				continue
			}
			out := c.Name.Lowered()
			if !x.As.IsEmpty() {
				out = x.As.Lowered()
			}
			rename[out] = c.Name.Lowered()
		default:
			return nil, false
		}
	}
	return rename, true
}

// myRefs counts the unqualified table references to name in a statement.
func myRefs(root sqlparser.SQLNode, name string) int {
	n := 0
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		// (Only FROM items: a column's qualifier is a TableName too.)
		if at, ok := node.(*sqlparser.AliasedTableExpr); ok {
			if tn, ok := at.Expr.(sqlparser.TableName); ok && tn.Qualifier.IsEmpty() && tn.Name.String() == name {
				n++
			}
		}
		return true, nil
	}, root)
	return n
}

func myFrom(f sqlparser.TableExpr, sc *scope, acc *[]access, ctes cteSet) {
	switch t := f.(type) {
	case *sqlparser.AliasedTableExpr:
		switch e := t.Expr.(type) {
		case sqlparser.TableName:
			if e.Qualifier.IsEmpty() && strings.EqualFold(e.Name.String(), "dual") {
				return // MySQL's dummy table: no table at all
			}
			if body, ok := ctes[e.Name.String()].(*sqlparser.Select); ok && e.Qualifier.IsEmpty() {
				// A CTE read as its one table (see myWith).
				alias := t.As.String()
				if alias == "" {
					alias = e.Name.String()
				}
				inner := cteSet{}
				for k, v := range ctes {
					if k != e.Name.String() {
						inner[k] = v
					}
				}
				if myInline(body, alias, sc, acc, inner) {
					return
				}
			}
			sc.add(e.Name.String(), t.As.String(), shardkey.Read)
			if len(sc.refs) > 0 && sc.refs[len(sc.refs)-1].name == e.Name.String() {
				r := sc.refs[len(sc.refs)-1]
				for _, h := range t.Hints {
					var names []string
					for _, ix := range h.Indexes {
						names = append(names, ix.String())
					}
					switch h.Type {
					case sqlparser.UseVindexOp:
						r.use = append(r.use, names...)
					case sqlparser.IgnoreVindexOp:
						r.ignore = append(r.ignore, names...)
					}
				}
			}
		case *sqlparser.DerivedTable:
			if sel, ok := e.Select.(*sqlparser.Select); ok && len(t.Columns) == 0 && !e.Lateral && myInline(sel, t.As.String(), sc, acc, ctes) {
				return
			}
			if u, ok := e.Select.(*sqlparser.Union); ok && len(t.Columns) == 0 && !e.Lateral && myUnionInline(u, t.As.String(), sc, acc, ctes) {
				return
			}
			if len(t.Columns) == 0 && !e.Lateral && !t.As.IsEmpty() {
				from := len(*acc)
				bound := myTargets(e.Select, acc, ctes)
				first := e.Select
				for {
					u, ok := first.(*sqlparser.Union)
					if !ok {
						break
					}
					first = u.Left
				}
				var names []string
				if sel, ok := first.(*sqlparser.Select); ok && sel.SelectExprs != nil {
					for _, x := range sel.SelectExprs.Exprs {
						name := ""
						if ae, ok := x.(*sqlparser.AliasedExpr); ok {
							if !ae.As.IsEmpty() {
								name = ae.As.Lowered()
							} else if c, ok := ae.Expr.(*sqlparser.ColName); ok {
								name = c.Name.Lowered()
							}
						}
						names = append(names, name)
					}
				}
				sc.addVirtual(t.As.String(), names, bound)
				if k := len(*acc) - 1; k >= from && len(sc.refs) > 0 && sc.refs[len(sc.refs)-1].virtual {
					// The reads of a table its columns return (merge.go).
					for _, n := range names {
						if src, ok := myMergeTarget(e.Select, n); ok && n != "" {
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
			myStmt(e.Select, acc, ctes)
		}
	case *sqlparser.JoinTableExpr:
		start := len(sc.refs)
		myFrom(t.LeftExpr, sc, acc, ctes)
		mid := len(sc.refs)
		myFrom(t.RightExpr, sc, acc, ctes)
		var side [2]int
		inner := true
		switch t.Join {
		case sqlparser.NormalJoinType, sqlparser.StraightJoinType, sqlparser.NaturalJoinType:
		case sqlparser.LeftJoinType, sqlparser.NaturalLeftJoinType:
			side, inner = [2]int{mid, len(sc.refs)}, false
		case sqlparser.RightJoinType, sqlparser.NaturalRightJoinType:
			side, inner = [2]int{start, mid}, false
		default:
			inner = false
		}
		if t.Condition != nil {
			var on *xexpr
			if t.Condition.On != nil {
				on = myExpr(t.Condition.On, sc, acc, ctes)
			}
			if !sc.join(on, side, inner) {
				return
			}
			if len(t.Condition.Using) > 0 && len(sc.refs) >= 2 {
				a, b := len(sc.refs)-2, len(sc.refs)-1
				for _, u := range t.Condition.Using {
					sc.using = append(sc.using, [2]colRef{{a, u.Lowered()}, {b, u.Lowered()}})
					sc.usingSide = append(sc.usingSide, side)
				}
			}
		}
	case *sqlparser.ParenTableExpr:
		for _, e := range t.Exprs {
			myFrom(e, sc, acc, ctes)
		}
	}
}

func myExpr(e sqlparser.Expr, sc *scope, acc *[]access, ctes cteSet) *xexpr {
	switch x := e.(type) {
	case nil:
		return nil
	case *sqlparser.ColName:
		return &xexpr{kind: xCol, col: x.Name.Lowered(), qual: x.Qualifier.Name.String()}
	case *sqlparser.IntroducerExpr:
		// _binary 'abc', _utf8mb4 'x': a character set introducer names
		// the literal's character set; the value is the literal's
		// (MySQL, "Character Set Introducers"; Vitess keeps the literal
		// as the vindex value).
		return myExpr(x.Expr, sc, acc, ctes)
	case *sqlparser.CollateExpr:
		// _utf8mb4'x' COLLATE utf8mb4_general_ci: a value with a
		// collation is still the value; Vitess's planner translates it
		// (evalengine's CollateExpr, through makeEvalEngineExpr in
		// go/vt/vtgate/planbuilder/operators/sharded_routing.go) and
		// routes by the vindex of the column it is compared with. A
		// column with a COLLATE is no column the planner routes by
		// (planEqualOp and planInOp want a bare *sqlparser.ColName on
		// one side): compared as a cast of the column is, binding no
		// value (loose), so that the reason says so.
		in := myExpr(x.Expr, sc, acc, ctes)
		if in != nil && in.kind == xVal {
			return in
		}
		if in != nil && in.kind == xCol {
			return castExpr(in)
		}
		return &xexpr{}
	case *sqlparser.Literal:
		switch x.Type {
		case sqlparser.IntVal, sqlparser.FloatVal, sqlparser.DecimalVal:
			return &xexpr{kind: xVal, val: arg{kind: argLit, lit: lit{kind: litNum, s: x.Val}}}
		case sqlparser.StrVal:
			return &xexpr{kind: xVal, val: arg{kind: argLit, lit: lit{kind: litStr, s: x.Val}}}
		case sqlparser.HexVal:
			// X'616263': a binary string of the bytes the digits spell.
			// Vitess's planner routes by it as by any literal
			// (makeEvalEngineExpr in
			// go/vt/vtgate/planbuilder/operators/sharded_routing.go;
			// evalengine's NewLiteralBinaryFromHex, a VARBINARY of the
			// bytes), and the vindex maps those bytes: unicode_loose_md5
			// hashes them as the string 'abc' (vindexes/unicode.go,
			// unicodeHash of key.ToBytes()), hash parses them as a
			// decimal integer (vindexes/hash.go, Hash.Hash:
			// ToCastUint64, DestinationNone when they do not parse),
			// and a lookup looks them up as that string. So it is the
			// string literal of its bytes.
			if b, err := hex.DecodeString(x.Val); err == nil {
				return &xexpr{kind: xVal, val: arg{kind: argLit, lit: lit{kind: litStr, s: string(b)}}}
			}
		case sqlparser.HexNum:
			// 0x616263: a binary string too, as X'616263' (MySQL's hex
			// literals are binary strings, numbers only in a numeric
			// expression). vtgate routes by it as by X'...': evalengine's
			// translateLiteral makes a HexNum a VARBINARY of the bytes
			// its digits spell, an odd count padded with a leading 0
			// (NewLiteralBinaryFromHexNum, parseHexNumber in
			// go/vt/vtgate/evalengine/api_literal.go), so 0x35 is the
			// string "5" (hash: the keyspace id of 5, not of 53) and
			// 0x616263 is 'abc'.
			h := strings.TrimPrefix(strings.TrimPrefix(x.Val, "0x"), "0X")
			if len(h)%2 == 1 {
				h = "0" + h
			}
			if b, err := hex.DecodeString(h); err == nil {
				return &xexpr{kind: xVal, val: arg{kind: argLit, lit: lit{kind: litStr, s: string(b)}}}
			}
		case sqlparser.BitNum:
			// b'101', 0b101 (the parser gives both as "0b101"): a bit-value
			// literal is a binary string in MySQL, and vtgate routes by the
			// VARBINARY of its value's big-endian bytes, leading zero bytes
			// dropped (NewLiteralBinaryFromBit, parseBitNum: big.Int.Bytes,
			// go/vt/vtgate/evalengine/api_literal.go): b'101' is "\x05",
			// which Vitess's hash vindex cannot read as a number
			// (DestinationNone: no shard), b'00110101' is "5", and
			// b'011000010110001001100011' is 'abc'.
			bits := strings.TrimPrefix(strings.TrimPrefix(x.Val, "0b"), "0B")
			if n, ok := new(big.Int).SetString(bits, 2); ok && bits != "" {
				return &xexpr{kind: xVal, val: arg{kind: argLit, lit: lit{kind: litStr, s: string(n.Bytes())}}}
			}
		}
		return &xexpr{}
	case sqlparser.BoolVal:
		if x {
			return &xexpr{kind: xConst, op: "true"}
		}
		return &xexpr{kind: xConst, op: "false"}
	case *sqlparser.NotExpr:
		return &xexpr{kind: xNot, kids: []*xexpr{orOther(myExpr(x.Expr, sc, acc, ctes))}}
	case *sqlparser.BinaryExpr:
		l, r := myExpr(x.Left, sc, acc, ctes), myExpr(x.Right, sc, acc, ctes)
		switch x.Operator {
		case sqlparser.PlusOp:
			return foldArith("+", l, r, true)
		case sqlparser.MinusOp:
			return foldArith("-", l, r, true)
		case sqlparser.MultOp:
			return foldArith("*", l, r, true)
		case sqlparser.IntDivOp:
			return foldArith("div", l, r, true)
		case sqlparser.ModOp:
			return foldArith("%", l, r, true)
		}
		return &xexpr{}
	case *sqlparser.IsExpr:
		v := orOther(myExpr(x.Left, sc, acc, ctes))
		switch x.Right {
		case sqlparser.IsNullOp:
			return &xexpr{kind: xIsNull, kids: []*xexpr{v}}
		case sqlparser.IsNotNullOp:
			return &xexpr{kind: xIsNull, op: "not", kids: []*xexpr{v}}
		}
		return &xexpr{}
	case *sqlparser.NullVal:
		return &xexpr{kind: xVal, val: arg{kind: argLit, lit: lit{kind: litNull}}}
	case *sqlparser.Argument:
		if n, ok := strings.CutPrefix(x.Name, "ski"); ok {
			if i, err := strconv.Atoi(n); err == nil {
				return &xexpr{kind: xVal, val: arg{kind: argIntSlot, n: i}}
			}
		}
		if n, ok := strings.CutPrefix(x.Name, "sk"); ok {
			if i, err := strconv.Atoi(n); err == nil {
				return &xexpr{kind: xVal, val: arg{kind: argSlot, n: i}}
			}
		}
		if n, ok := strings.CutPrefix(x.Name, "v"); ok {
			if i, err := strconv.Atoi(n); err == nil && i >= 1 {
				return &xexpr{kind: xVal, val: arg{kind: argParam, n: i - 1}}
			}
		}
		if !strings.HasPrefix(x.Name, ":") {
			// :name: a value bound when the statement runs.
			return &xexpr{kind: xVal, val: arg{kind: argUnique, param: true}}
		}
		return &xexpr{}
	case sqlparser.ListArg:
		// IN ::list, a Vitess list bind variable: values known when the
		// statement runs, how many too (vtgate routes it IN by the key's
		// vindex: planInOp, go/vt/vtgate/planbuilder/operators/sharded_routing.go).
		return &xexpr{kind: xVal, val: arg{kind: argUnique, array: true, param: true}}
	case *sqlparser.UnaryExpr:
		v := myExpr(x.Expr, sc, acc, ctes)
		if x.Operator == sqlparser.UMinusOp && v != nil && v.kind == xVal {
			v.val.neg = !v.val.neg
			return v
		}
		if x.Operator == sqlparser.UPlusOp && v != nil && v.kind == xVal {
			return v
		}
		return &xexpr{}
	case *sqlparser.Default:
		return &xexpr{kind: xVal, val: arg{kind: argNewest}}
	case *sqlparser.CurTimeFuncExpr:
		return &xexpr{kind: xVal, val: nowArg(x.Name.Lowered())}
	case *sqlparser.FuncExpr:
		var args []*xexpr
		for _, a := range x.Exprs {
			args = append(args, myExpr(a, sc, acc, ctes))
		}
		if k := freshFunc(x.Name.Lowered()); k == argNewest {
			return &xexpr{kind: xVal, val: nowArg(x.Name.Lowered())}
		} else if k != argUnknown {
			return &xexpr{kind: xVal, val: arg{kind: k}}
		}
		if foldable(x.Name.Lowered()) && slotArgs(args) {
			sc.slotConst = true // read as written, where it folds
		}
		return foldFunc(x.Name.Lowered(), args)
	case *sqlparser.IntervalDateExpr:
		// NOW() - INTERVAL 1 DAY, DATE_SUB(NOW(), INTERVAL 1 DAY): a
		// time known at run time near the newest values (foldArith).
		if d := myExpr(x.Date, sc, acc, ctes); d != nil && d.kind == xVal && d.val.kind == argNewest {
			g := arg{kind: argNewest}
			sign := int64(-1) // adding to now: less before it
			switch x.Syntax {
			case sqlparser.IntervalDateExprDateSub, sqlparser.IntervalDateExprSubdate, sqlparser.IntervalDateExprBinarySub:
				sign = 1
			}
			if us, ok := myInterval(x.Interval, x.Unit); ok && d.val.usOK {
				g.usOK, g.us = true, d.val.us+sign*us
			} else if a, ok := x.Interval.(*sqlparser.Argument); ok && d.val.usOK && myUnits[x.Unit] != 0 {
				// INTERVAL 5 DAY normalized to INTERVAL :sk0 DAY: the
				// count is read from its slot when the statement is bound.
				if n, ok := strings.CutPrefix(strings.TrimPrefix(a.Name, "ski"), "sk"); ok || strings.HasPrefix(a.Name, "ski") {
					if i, err := strconv.Atoi(n); err == nil {
						g.usOK, g.us, g.n, g.ivUnit = true, d.val.us, i+1, -sign*myUnits[x.Unit]
					}
				}
			}
			return &xexpr{kind: xVal, val: g}
		}
		return &xexpr{}
	case *sqlparser.CastExpr:
		return castOf(myExpr(x.Expr, sc, acc, ctes))
	case *sqlparser.ConvertExpr:
		return castOf(myExpr(x.Expr, sc, acc, ctes))
	case sqlparser.ValTuple:
		r := &xexpr{kind: xRow}
		for _, it := range x {
			r.kids = append(r.kids, myExpr(it, sc, acc, ctes))
		}
		return r
	case *sqlparser.AndExpr:
		return flat(xAnd, orOther(myExpr(x.Left, sc, acc, ctes)), orOther(myExpr(x.Right, sc, acc, ctes)))
	case *sqlparser.OrExpr:
		return flat(xOr, orOther(myExpr(x.Left, sc, acc, ctes)), orOther(myExpr(x.Right, sc, acc, ctes)))
	case *sqlparser.Subquery:
		from := len(*acc)
		myStmt(x.Select, acc, ctes)
		if returnsNoRow(*acc, from) {
			return &xexpr{kind: xVal, val: arg{kind: argLit, lit: lit{kind: litNull}}} // no row: NULL
		}
		return runtimeValue()
	case *sqlparser.ExistsExpr:
		from := len(*acc)
		myStmt(x.Subquery.Select, acc, ctes)
		if returnsNoRow(*acc, from) {
			return &xexpr{kind: xConst, op: "subfalse"}
		}
		return &xexpr{}
	case *sqlparser.BetweenExpr:
		l, lo, hi := myExpr(x.Left, sc, acc, ctes), myExpr(x.From, sc, acc, ctes), myExpr(x.To, sc, acc, ctes)
		if !x.IsBetween || l == nil || lo == nil || hi == nil {
			return &xexpr{}
		}
		return &xexpr{kind: xBetween, kids: []*xexpr{l, lo, hi}}
	case *sqlparser.ComparisonExpr:
		from := len(*acc)
		l, r := myExpr(x.Left, sc, acc, ctes), myExpr(x.Right, sc, acc, ctes)
		if l == nil || r == nil {
			return &xexpr{}
		}
		// link ties col = (subquery) and col IN (subquery) to the read
		// of a table the subquery returns (merge.go).
		link := func(n *xexpr) *xexpr {
			sub, ok := x.Right.(*sqlparser.Subquery)
			if !ok || l.kind != xCol || sc == nil || len(*acc) <= from {
				return n
			}
			if src, ok := myMergeTarget(sub.Select, ""); ok {
				src.inner = len(*acc) - 1
				sc.links = append(sc.links, mergeLink{col: l, node: n, src: src})
			}
			return n
		}
		switch x.Operator {
		case sqlparser.EqualOp:
			return link(&xexpr{kind: xCmp, op: "=", kids: []*xexpr{l, r}})
		case sqlparser.LessThanOp:
			return &xexpr{kind: xCmp, op: "<", kids: []*xexpr{l, r}}
		case sqlparser.LessEqualOp:
			return &xexpr{kind: xCmp, op: "<=", kids: []*xexpr{l, r}}
		case sqlparser.GreaterThanOp:
			return &xexpr{kind: xCmp, op: ">", kids: []*xexpr{l, r}}
		case sqlparser.GreaterEqualOp:
			return &xexpr{kind: xCmp, op: ">=", kids: []*xexpr{l, r}}
		case sqlparser.NotEqualOp:
			return &xexpr{kind: xCmp, op: "<>", kids: []*xexpr{l, r}}
		case sqlparser.InOp, sqlparser.NotInOp:
			if _, sub := x.Right.(*sqlparser.Subquery); sub && isNullVal(r) {
				// IN a subquery that returns no row: false (NOT IN: true).
				if x.Operator == sqlparser.InOp {
					return &xexpr{kind: xConst, op: "subfalse"}
				}
				return &xexpr{}
			}
			if r.kind == xRow || r.kind == xVal && r.val.array {
				kids := []*xexpr{r}
				if r.kind == xRow {
					kids = r.kids
				}
				in := &xexpr{kind: xIn, kids: append([]*xexpr{l}, kids...)}
				if x.Operator == sqlparser.NotInOp {
					in.op = "<>"
				}
				return in
			}
			if x.Operator == sqlparser.InOp {
				return link(&xexpr{})
			}
		}
		return &xexpr{}
	}
	// Walk other expressions for subqueries.
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if sq, ok := n.(*sqlparser.Subquery); ok {
			myStmt(sq.Select, acc, ctes)
			return false, nil
		}
		return true, nil
	}, e)
	return &xexpr{}
}

func orOther(x *xexpr) *xexpr {
	if x == nil {
		return &xexpr{}
	}
	return x
}

// flat returns l op r (xAnd or xOr) with nested operands of the same kind
// spliced in: the parser's binary a OR b OR c becomes one OR of three.
func flat(kind xkind, l, r *xexpr) *xexpr {
	x := &xexpr{kind: kind}
	for _, k := range []*xexpr{l, r} {
		if k.kind == kind {
			x.kids = append(x.kids, k.kids...)
		} else {
			x.kids = append(x.kids, k)
		}
	}
	return x
}

// castOf is CAST(x AS t) or CONVERT(x, t): a value stays the value; a
// column becomes an expression, which binds no vindex (Vitess plans a
// vindex only for a comparison whose side is the column itself, a
// *sqlparser.ColName: planEqualOp in
// go/vt/vtgate/planbuilder/operators/sharded_routing.go), so CAST(id AS
// CHAR) = '42' scatters.
func castOf(x *xexpr) *xexpr {
	if x != nil && x.kind == xCol {
		return castExpr(x)
	}
	return x
}
