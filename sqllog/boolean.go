package sqllog

import (
	"math/big"
	"strings"
)

// This file reads a WHERE clause's boolean structure into what it implies
// for each column, the way the engines' routers do:
//
//   - Vitess (go/vt/vtgate/planbuilder/operators/sharded_routing.go,
//     tryImprove): the predicate is rewritten into conjunctive normal form
//     and ORs of equalities on one column become an IN list
//     (sqlparser.ExtractINFromOR, go/vt/sqlparser/predicate_rewriting.go);
//     constant expressions are folded by the evalengine before a value
//     routes (go/vt/vtgate/evalengine/translate.go).
//   - Citus (src/backend/distributed/planner/shard_pruning.c,
//     PruneShards): each disjunct of an OR prunes on its own and the
//     shards that remain are the union; a contradiction (a constant
//     false, col = NULL) prunes every shard.
//
// Both come to the same thing for a key column: an OR restricts the column
// when every disjunct does, to the union of their values; an AND to each
// of its conjuncts' restrictions; a disjunct that can hold for no row
// (FALSE, NULL, a comparison with NULL) drops out of its OR; a statement
// whose WHERE holds for no row asks no shard.

// implied is what a boolean expression implies for the rows it keeps: the
// conjunction conds, or, when never is set, that it keeps no row.
type implied struct {
	conds []cond
	never bool
	// partial are the columns an OR restricts in some of its disjuncts
	// but not in all (for explanations: they bind nothing).
	partial []*xexpr
	// loose are columns compared in ways that bind no value (<>, NOT IN),
	// for explanations.
	loose []*xexpr
}

// where records what e implies for the scope's rows: its conditions, or
// that the scope keeps no row.
func (s *scope) where(e *xexpr) {
	if e == nil {
		return
	}
	im := s.imply(e)
	if im.never && s.side[1] == 0 {
		// (An outer join's ON that holds for no row only leaves the
		// null-supplying side unmatched.)
		s.never = true
	}
	for _, c := range im.conds {
		s.record(c)
	}
	for _, c := range im.partial {
		s.partial = append(s.partial, c.col)
	}
	for _, c := range im.loose {
		s.loose = append(s.loose, c.col)
	}
}

// imply returns what e implies (see implied).
func (s *scope) imply(e *xexpr) implied {
	if e == nil {
		return implied{}
	}
	switch e.kind {
	case xVal:
		// A value as a condition (MySQL's WHERE 0, WHERE 1): true when a
		// non-zero number, false for zero or NULL (Vitess's
		// IsConstantBool through its evalengine).
		switch {
		case e.val.kind == argSlot:
			s.slotConst = true
		case e.val.kind == argLit:
			l := e.val.resolve(nil, nil).lit
			if l.kind == litNull {
				return implied{never: true}
			}
			if f, ok := new(big.Float).SetString(l.s); ok && l.kind == litNum {
				return implied{never: f.Sign() == 0}
			}
		}
	case xConst:
		// (subfalse: a subquery that returns no row, false; Vitess
		// merges its None route into the statement's only through AND.)
		return implied{never: e.op != "true"}
	case xNot:
		if len(e.kids) == 1 {
			return s.imply(negate(e.kids[0]))
		}
	case xAnd:
		var out implied
		for _, k := range e.kids {
			im := s.imply(k)
			out.never = out.never || im.never
			out.conds = append(out.conds, im.conds...)
			out.partial = append(out.partial, im.partial...)
			out.loose = append(out.loose, im.loose...)
		}
		return out
	case xOr:
		return s.implyOr(e.kids)
	case xCmp:
		return s.implyCmp(e)
	case xBetween:
		x, lo, hi := e.kids[0], e.kids[1], e.kids[2]
		if isNullVal(x) || isNullVal(lo) || isNullVal(hi) {
			return implied{never: true}
		}
		if x.kind == xCol && lo.kind == xVal && hi.kind == xVal {
			var out implied
			out.add(rangeCond(x, ">=", lo.val))
			out.add(rangeCond(x, "<=", hi.val))
			return out
		}
	case xIn:
		return s.implyIn(e)
	case xIsNull:
		// col IS NULL binds the key to NULL, which Vitess's vindexes map
		// to no keyspace id (planIsExpr in sharded_routing.go, then
		// DestinationNone) and a Citus distribution column never holds:
		// no row on any shard.
		if x := e.kids[0]; e.op == "" && x.kind == xCol {
			return implied{conds: []cond{{kind: condEq, col: x, args: []arg{{kind: argLit, lit: lit{kind: litNull}}}, isNull: true}}}
		}
	}
	return implied{}
}

func (im *implied) add(c *cond) {
	if c != nil {
		im.conds = append(im.conds, *c)
	}
}

func isNullVal(x *xexpr) bool {
	return x != nil && x.kind == xVal && x.val.kind == argLit && x.val.lit.kind == litNull
}

func rangeCond(c *xexpr, op string, v arg) *cond {
	if v.kind == argUnknown {
		return nil
	}
	return &cond{kind: condRange, col: c, op: op, args: []arg{v}}
}

func (s *scope) implyCmp(e *xexpr) implied {
	l, r := e.kids[0], e.kids[1]
	op := e.op
	if l.kind == xVal && r.kind == xVal {
		if v, ok := compareConst(op, l.val, r.val); ok {
			return implied{never: v != "true"}
		}
		s.slotConst = s.slotConst || l.val.slotted() || r.val.slotted()
		return implied{}
	}
	if l.kind != xCol && r.kind == xCol {
		l, r = r, l
		op = flip(op)
	}
	if l.kind == xVal && r.kind == xOther && r.op == "cast" {
		l, r = r, l
	}
	if l.kind == xOther && l.op == "cast" && r.kind == xVal {
		// CAST(id AS CHAR) = '42': the cast's value, not the column's,
		// is compared: no condition on the column.
		return implied{loose: []*xexpr{l.kids[0]}}
	}
	if isNullVal(r) {
		// Any comparison with NULL is NULL: no row. (The column is kept,
		// so that the table has it.)
		if l.kind == xCol {
			return implied{never: true, conds: []cond{{kind: condEq, col: l, args: []arg{r.val}}}}
		}
		return implied{never: true}
	}
	if l.kind == xRow && r.kind == xRow && len(l.kids) == len(r.kids) && (op == "=" || op == "<>") {
		kids := make([]*xexpr, len(l.kids))
		for i := range l.kids {
			kids[i] = &xexpr{kind: xCmp, op: op, kids: []*xexpr{l.kids[i], r.kids[i]}}
		}
		if op == "=" {
			return s.imply(&xexpr{kind: xAnd, kids: kids})
		}
		return s.imply(&xexpr{kind: xOr, kids: kids})
	}
	if l.kind != xCol {
		return implied{}
	}
	if r.kind == xCol {
		if op == "=" {
			return implied{conds: []cond{{kind: condJoin, col: l, other: r}}}
		}
		return implied{}
	}
	if r.kind != xVal || r.val.kind == argUnknown {
		return implied{}
	}
	switch op {
	case "=":
		return implied{conds: []cond{{kind: condEq, col: l, args: []arg{r.val}}}}
	case "<", "<=", ">", ">=":
		var out implied
		out.add(rangeCond(l, op, r.val))
		return out
	case "<>":
		return implied{loose: []*xexpr{l}}
	}
	return implied{}
}

func (s *scope) implyIn(e *xexpr) implied {
	l := e.kids[0]
	items := e.kids[1:]
	if e.op == "<>" { // NOT IN: binds nothing; NULL in the list keeps no row
		for _, it := range items {
			if isNullVal(it) {
				return implied{never: true}
			}
		}
		if l.kind == xCol {
			return implied{loose: []*xexpr{l}}
		}
		return implied{}
	}
	if l.kind == xVal {
		// 1 IN ('aa', 'bb'): folded like a comparison.
		res := "false"
		for _, it := range items {
			if it.kind != xVal {
				return implied{}
			}
			v, ok := compareConst("=", l.val, it.val)
			if !ok {
				s.slotConst = s.slotConst || l.val.slotted() || it.val.slotted()
				return implied{}
			}
			if v == "true" {
				res = "true"
				break
			}
		}
		return implied{never: res != "true"}
	}
	nulls := 0
	for _, it := range items {
		if isNullVal(it) {
			nulls++
		}
	}
	if nulls == len(items) && nulls > 0 {
		return implied{never: true} // x IN (NULL): no row (Vitess: NoneRouting)
	}
	if l.kind == xOther && l.op == "cast" && len(l.kids) == 1 {
		// CAST(id AS CHAR) IN ('4', '5'), login COLLATE utf8mb4_bin IN
		// (...): the cast's value is compared, as for = (implyCmp).
		return implied{loose: []*xexpr{l.kids[0]}}
	}
	if l.kind == xCol {
		var args []arg
		for _, it := range items {
			if it.kind != xVal || it.val.kind == argUnknown {
				return implied{}
			}
			if isNullVal(it) {
				continue // x IN (NULL, 2) is x = 2
			}
			args = append(args, it.val)
		}
		return implied{conds: []cond{{kind: condIn, col: l, args: args}}}
	}
	if l.kind == xRow {
		// (a, b) IN ((1, 2), (3, 4)): each column gets the list of its
		// values (exact for a key of one of the columns; for a key of
		// several it routes to the product of the lists).
		if len(items) == 1 && items[0].kind == xVal && items[0].val.array {
			// (a, b) IN ::vals, a Vitess list bind variable of tuples:
			// each column is bound to a list known when the statement
			// runs, its length too (planCompositeInOpArg routes it
			// MultiEqual on a vindex column's position,
			// go/vt/vtgate/planbuilder/operators/sharded_routing.go).
			var out implied
			for _, c := range l.kids {
				if c.kind == xCol {
					out.conds = append(out.conds, cond{kind: condIn, col: c, args: []arg{items[0].val}})
				}
			}
			return out
		}
		cols := make([][]arg, len(l.kids))
		for _, it := range items {
			if it.kind != xRow || len(it.kids) != len(l.kids) {
				return implied{}
			}
			for i, v := range it.kids {
				if v.kind != xVal || v.val.kind == argUnknown {
					cols[i] = nil
					continue
				}
				cols[i] = append(cols[i], v.val)
			}
		}
		var out implied
		for i, c := range l.kids {
			if c.kind == xCol && len(cols[i]) == len(items) {
				if len(items) == 1 {
					out.conds = append(out.conds, cond{kind: condEq, col: c, args: cols[i]})
				} else {
					out.conds = append(out.conds, cond{kind: condIn, col: c, args: cols[i]})
				}
			}
		}
		return out
	}
	return implied{}
}

// implyOr returns what an OR of kids implies: the disjuncts that can keep
// a row each restrict a column to a set of values (an equality or an IN
// list); a column every one of them restricts is restricted to the union.
func (s *scope) implyOr(kids []*xexpr) implied {
	var live []implied
	for _, k := range kids {
		if k.kind == xConst && k.op == "subfalse" {
			return implied{}
		}
		im := s.imply(k)
		if !im.never {
			live = append(live, im)
		}
	}
	switch len(live) {
	case 0:
		return implied{never: true}
	case 1:
		return live[0]
	}
	var out implied
	for _, c := range live[0].conds {
		if c.kind != condEq && c.kind != condIn {
			continue
		}
		args := append([]arg(nil), c.args...)
		all := true
		for _, o := range live[1:] {
			oc := s.findSet(o.conds, c.col)
			if oc == nil {
				all = false
				break
			}
			args = append(args, oc.args...)
		}
		if all && !s.hasSet(out.conds, c.col) {
			out.conds = append(out.conds, cond{kind: condIn, col: c.col, args: args})
		}
	}
	for _, im := range live {
		out.partial = append(out.partial, im.partial...)
		for _, c := range im.conds {
			if (c.kind == condEq || c.kind == condIn) && !s.hasSet(out.conds, c.col) {
				out.partial = append(out.partial, c.col)
			}
		}
	}
	return out
}

// sameCol reports whether two column references name the same column of
// the scope.
func (s *scope) sameCol(a, b *xexpr) bool {
	return a.col == b.col && (a.qual == b.qual || s.resolve(a.qual) == s.resolve(b.qual))
}

// findSet returns the first equality or IN condition of conds on col,
// preferring an equality.
func (s *scope) findSet(conds []cond, col *xexpr) *cond {
	var in *cond
	for i := range conds {
		c := &conds[i]
		if !s.sameCol(c.col, col) {
			continue
		}
		if c.kind == condEq {
			return c
		}
		if c.kind == condIn && in == nil {
			in = c
		}
	}
	return in
}

func (s *scope) hasSet(conds []cond, col *xexpr) bool { return s.findSet(conds, col) != nil }

// negate returns NOT e, pushed down to its atoms (De Morgan; NOT a = b is
// a <> b; NOT BETWEEN is a pair of ranges), as SQL's three-valued logic
// allows: NOT of NULL stays NULL, which keeps no row.
func negate(e *xexpr) *xexpr {
	if e == nil {
		return &xexpr{}
	}
	switch e.kind {
	case xNot:
		if len(e.kids) == 1 {
			return e.kids[0]
		}
	case xConst:
		switch e.op {
		case "subfalse":
			return &xexpr{}
		case "true":
			return &xexpr{kind: xConst, op: "false"}
		case "false":
			return &xexpr{kind: xConst, op: "true"}
		}
		return e // NULL
	case xAnd, xOr:
		x := &xexpr{kind: xOr}
		if e.kind == xOr {
			x.kind = xAnd
		}
		for _, k := range e.kids {
			x.kids = append(x.kids, negate(k))
		}
		return x
	case xCmp:
		op := map[string]string{"=": "<>", "<>": "=", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}[e.op]
		if op != "" {
			return &xexpr{kind: xCmp, op: op, kids: e.kids}
		}
	case xIsNull:
		op := "not"
		if e.op == "not" {
			op = ""
		}
		return &xexpr{kind: xIsNull, op: op, kids: e.kids}
	case xIn:
		op := "<>"
		if e.op == "<>" {
			op = ""
		}
		return &xexpr{kind: xIn, op: op, kids: e.kids}
	case xBetween:
		return &xexpr{kind: xOr, kids: []*xexpr{
			{kind: xCmp, op: "<", kids: []*xexpr{e.kids[0], e.kids[1]}},
			{kind: xCmp, op: ">", kids: []*xexpr{e.kids[0], e.kids[2]}},
		}}
	}
	return &xexpr{}
}

// compareConst folds a comparison of two literals written in the
// statement: "true", "false" or "null"; false when it cannot tell (a
// placeholder, a value of the log).
func compareConst(op string, a, b arg) (string, bool) {
	if a.kind != argLit || b.kind != argLit || a.array || b.array {
		return "", false
	}
	la, lb := a.resolve(nil, nil), b.resolve(nil, nil)
	if la.kind == litNull || lb.kind == litNull {
		return "null", true
	}
	var c int
	fa, aok := new(big.Float).SetString(la.s)
	fb, bok := new(big.Float).SetString(lb.s)
	switch {
	case (la.kind == litNum || lb.kind == litNum) && aok && bok:
		c = fa.Cmp(fb)
	case la.kind == litNum && lb.kind == litStr || la.kind == litStr && lb.kind == litNum:
		// A number and a string that is no number: MySQL compares the
		// string's numeric prefix (0 when none; Vitess's evalengine
		// does the same), PostgreSQL rejects the statement (no row).
		if !aok {
			fa = numPrefix(la.s)
		}
		if !bok {
			fb = numPrefix(lb.s)
		}
		c = fa.Cmp(fb)
	case la.kind == litStr && lb.kind == litStr:
		c = strings.Compare(la.s, lb.s)
	default:
		return "", false
	}
	var v bool
	switch op {
	case "=":
		v = c == 0
	case "<>":
		v = c != 0
	case "<":
		v = c < 0
	case "<=":
		v = c <= 0
	case ">":
		v = c > 0
	case ">=":
		v = c >= 0
	default:
		return "", false
	}
	if v {
		return "true", true
	}
	return "false", true
}

// foldable reports whether foldFunc folds calls of name.
func foldable(name string) bool {
	switch strings.ToLower(name) {
	case "abs", "lower", "lcase", "upper", "ucase", "coalesce", "ifnull", "least", "greatest":
		return true
	}
	return false
}

// slotArgs reports whether some of args is a literal the shape text
// replaced by a placeholder.
func slotArgs(args []*xexpr) bool {
	for _, a := range args {
		if a != nil && a.kind == xVal && a.val.kind == argSlot {
			return true
		}
	}
	return false
}

// foldFunc folds a call of an immutable function over literals written in
// the statement, as PostgreSQL's eval_const_expressions and Vitess's
// evalengine do before routing: abs, lower, upper, coalesce, least and
// greatest of integers. Anything else is no value.
func foldFunc(name string, args []*xexpr) *xexpr {
	lits := make([]lit, len(args))
	for i, a := range args {
		if a == nil || a.kind != xVal || a.val.kind != argLit || a.val.array {
			return &xexpr{}
		}
		lits[i] = a.val.resolve(nil, nil).lit
	}
	val := func(l lit) *xexpr { return &xexpr{kind: xVal, val: arg{kind: argLit, lit: l}} }
	ints := func() ([]*big.Int, bool) {
		out := make([]*big.Int, len(lits))
		for i, l := range lits {
			n, ok := new(big.Int).SetString(l.s, 10)
			if l.kind != litNum || !ok {
				return nil, false
			}
			out[i] = n
		}
		return out, len(out) > 0
	}
	switch strings.ToLower(name) {
	case "abs":
		if ns, ok := ints(); ok && len(ns) == 1 {
			return val(lit{kind: litNum, s: ns[0].Abs(ns[0]).String()})
		}
	case "lower", "lcase":
		if len(lits) == 1 && lits[0].kind == litStr {
			return val(lit{kind: litStr, s: strings.ToLower(lits[0].s)})
		}
	case "upper", "ucase":
		if len(lits) == 1 && lits[0].kind == litStr {
			return val(lit{kind: litStr, s: strings.ToUpper(lits[0].s)})
		}
	case "coalesce", "ifnull":
		for _, l := range lits {
			if l.kind != litNull {
				return val(l)
			}
		}
		return val(lit{kind: litNull})
	case "least", "greatest":
		if ns, ok := ints(); ok {
			best := ns[0]
			for _, n := range ns[1:] {
				if c := n.Cmp(best); c < 0 && name == "least" || c > 0 && name == "greatest" {
					best = n
				}
			}
			return val(lit{kind: litNum, s: best.String()})
		}
	}
	return &xexpr{}
}

// numPrefix returns the number a string's numeric prefix spells, 0 for
// none ('12abc' is 12, 'aa' is 0), as MySQL converts it.
func numPrefix(s string) *big.Float {
	s = strings.TrimSpace(s)
	for n := len(s); n > 0; n-- {
		if f, ok := new(big.Float).SetString(s[:n]); ok {
			return f
		}
	}
	return new(big.Float)
}

// foldArith folds op (+, -, *, /, %, div) over two numeric literals
// written in the statement, as the engines fold constant expressions
// before routing (Vitess's evalengine; PostgreSQL's
// eval_const_expressions). Integer operands give an integer (division
// truncating toward zero, as both engines' integer division); anything
// else, or a division MySQL would make a decimal, is not folded.
func foldArith(op string, a, b *xexpr, mysql bool) *xexpr {
	if a == nil || b == nil || a.kind != xVal || b.kind != xVal {
		return &xexpr{}
	}
	if a.val.kind == argNewest && (op == "+" || op == "-") && b.val.kind != argNewest {
		// now() - interval '1 day', CURRENT_DATE + 1: a time known at
		// run time, near the newest values (a range bound on it routes
		// to the ranges it reaches back to). The offset is kept when
		// both are known: a wall-clock time less or plus an interval
		// literal.
		g := arg{kind: argNewest}
		if a.val.usOK && b.val.usOK && b.val.kind == argLit {
			g.usOK = true
			g.us = a.val.us + b.val.us
			if op == "+" {
				g.us = a.val.us - b.val.us
			}
		}
		return &xexpr{kind: xVal, val: g}
	}
	if a.val.kind != argLit || b.val.kind != argLit {
		return foldSlots(op, a.val, b.val)
	}
	la, lb := a.val.resolve(nil, nil), b.val.resolve(nil, nil)
	if la.kind == litNull || lb.kind == litNull {
		return &xexpr{kind: xVal, val: arg{kind: argLit, lit: lit{kind: litNull}}}
	}
	if la.kind != litNum || lb.kind != litNum || strings.ContainsAny(la.s+lb.s, ".eE") {
		return &xexpr{}
	}
	x, ok1 := new(big.Int).SetString(la.s, 10)
	y, ok2 := new(big.Int).SetString(lb.s, 10)
	if !ok1 || !ok2 {
		return &xexpr{}
	}
	z := new(big.Int)
	switch strings.ToLower(op) {
	case "+":
		z.Add(x, y)
	case "-":
		z.Sub(x, y)
	case "*":
		z.Mul(x, y)
	case "/", "div":
		if y.Sign() == 0 || op == "/" && mysql {
			return &xexpr{}
		}
		z.Quo(x, y)
	case "%", "mod":
		if y.Sign() == 0 {
			return &xexpr{}
		}
		z.Rem(x, y)
	default:
		return &xexpr{}
	}
	return &xexpr{kind: xVal, val: arg{kind: argLit, lit: lit{kind: litNum, s: z.String()}}}
}

// foldSlots folds op over integer literals of which one at least is in a
// placeholder (argIntSlot, see normalize) when the statement is bound:
// an argArith value. Other operands (a parameter, a string, a decimal, a
// placeholder of another literal) and other operators fold to nothing, as
// foldArith does.
func foldSlots(op string, a, b arg) *xexpr {
	intArg := func(g arg) bool {
		switch g.kind {
		case argIntSlot, argArith:
			return !g.array
		case argLit:
			return g.lit.kind == litNum && !g.array && strings.TrimPrefix(g.lit.s, "-") != "" && strings.Trim(strings.TrimPrefix(g.lit.s, "-"), "0123456789") == ""
		}
		return false
	}
	if !intArg(a) || !intArg(b) || len(op) != 1 || !strings.Contains("+-*", op) {
		return &xexpr{}
	}
	return &xexpr{kind: xVal, val: arg{kind: argArith, x: &arith{op: op[0], a: a, b: b}}}
}

// slotted reports whether g's value comes from a placeholder of a literal.
func (g arg) slotted() bool {
	return g.kind == argSlot || g.kind == argIntSlot || g.kind == argArith
}
