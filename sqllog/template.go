package sqllog

import (
	"math"
	"math/big"
	"sort"
	"strconv"
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
	// folded, when set, is the shape's own template, whose constants
	// hide behind placeholders (scope.slotConst): each statement of the
	// shape is parsed as written instead (cache.analyze), this template
	// serving beyond maxRaw of them.
	folded *template
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
	// lazy says some of acc are scopes still to be built (access.lazy):
	// the part is resolved against the workload first (agg.resolvePart),
	// and its values are bound after that.
	lazy bool
}

// slotConst reports whether some access of t compares two values one of
// which is a placeholder for a literal (see scope.slotConst).
func (t *template) slotConst() bool {
	for _, p := range t.parts {
		for _, a := range p.acc {
			if a.slotConst || a.lazy != nil && a.lazy.slotConst {
				return true
			}
		}
	}
	return false
}

// dmlPart returns the part of a statement with the given accesses.
func dmlPart(acc []access) part {
	if len(acc) == 0 {
		return part{ctl: ctlIgnore}
	}
	p := part{ctl: ctlDML, acc: acc}
	for i := range acc {
		p.lazy = p.lazy || acc[i].lazy != nil || acc[i].star != nil
	}
	return p
}

// access is one table touched by a statement, with its bound columns.
type access struct {
	table string
	kind  shardkey.Kind
	preds []pred // sorted by column, at most one per column
	// joins are the join equalities between one of its columns and a
	// column of another table (col, other table, other column): how the
	// application relates tables, for the advisor's entity groups.
	joins [][3]string
	// lazy, when set, stands for the accesses of a query over several
	// tables whose unqualified columns need the workload to say which
	// table has them (see attribute.go); table, kind and preds are unset.
	lazy *scope
	// none says the statement asks this table for no row (its WHERE holds
	// for none: WHERE 1 = 0, id = NULL): routed to no shard.
	none bool
	// partial names columns an OR binds in some of its disjuncts only;
	// loose those compared in ways that bind no value.
	partial, loose []string
	// use and ignore are a Vitess vindex hint's names (see Access).
	use, ignore []string
	// slotConst: see scope.slotConst.
	slotConst bool
	// outer are its correlated equalities with an enclosing query's
	// columns (see scope.correlate).
	outer []outerEq
	// virtual marks a derived table's stand-in (see tref.virtual): no
	// table; dropped from what a statement touches.
	virtual bool
	// peers are the join equalities that carry values into it from the
	// other tables of its query block (see scope.correlate).
	peers []peerEq
	// star is an INSERT ... SELECT * whose columns the catalog gives
	// when the statement is resolved (see agg.expandStar).
	star *starInsert
	// sets, for an UPDATE, are the columns its SET clause assigns: each
	// an Eq pred of one arg, the new value (argUnique when it is an
	// expression or subquery, known only at run time). Their values
	// follow the preds' in a bound instance (bindInto); they are not part
	// of the shape (shardkey.Instance.Sets).
	sets []pred
}

// starInsert is INSERT INTO table [(cols)] SELECT * FROM src WHERE ...:
// the inserted columns take, in order, src's declared columns; preds are
// the SELECT's conditions on src's columns (Eq and IN).
type starInsert struct {
	src   string
	cols  []string
	preds []pred
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
	// argIntSlot is a placeholder for an integer literal written beside
	// +, - or * and another integer literal (3001 - 20): n is its index.
	// normalize puts such literals in placeholders, not in the shape
	// text, so that a shape does not stand for its constants.
	argIntSlot
	// argArith is integer arithmetic (+, -, *) over argIntSlot values,
	// integer literals and other argArith: x. It is folded when the
	// statement is bound, as foldArith folds literals.
	argArith
)

// arith is the operation of an argArith value: op ('+', '-' or '*') over
// a and b.
type arith struct {
	op   byte
	a, b arg
}

// eval folds x with the statement's literals, as foldArith would have
// folded them written in the shape text: a decimal integer, or litNone
// when an operand is no integer (which normalize does not produce).
func (x *arith) eval(slots, params []lit) lit {
	la, lb := x.a.resolve(slots, params).lit, x.b.resolve(slots, params).lit
	if la.kind != litNum || lb.kind != litNum {
		return lit{kind: litNone}
	}
	p, perr := strconv.ParseInt(la.s, 10, 64)
	q, qerr := strconv.ParseInt(lb.s, 10, 64)
	if perr == nil && qerr == nil {
		// Within int64 without overflow: no allocation but the text.
		var r int64
		ok := true
		switch x.op {
		case '+':
			r = p + q
			ok = (r > p) == (q > 0)
		case '-':
			r = p - q
			ok = (r < p) == (q > 0)
		case '*':
			if p != 0 && q != 0 {
				r = p * q
				ok = r/q == p && !(p == -1 && q == math.MinInt64) && !(q == -1 && p == math.MinInt64)
			}
		}
		if ok {
			return lit{kind: litNum, s: strconv.FormatInt(r, 10)}
		}
	}
	y, ok1 := new(big.Int).SetString(la.s, 10)
	z, ok2 := new(big.Int).SetString(lb.s, 10)
	if !ok1 || !ok2 {
		return lit{kind: litNone}
	}
	switch x.op {
	case '+':
		y.Add(y, z)
	case '-':
		y.Sub(y, z)
	case '*':
		y.Mul(y, z)
	}
	return lit{kind: litNum, s: y.String()}
}

type arg struct {
	kind argKind
	n    int
	lit  lit
	x    *arith        // argArith: the operation
	neg  bool          // unary minus applied
	hint shardkey.Type // type named by a cast, Null for none
	// param marks a bind variable read as a value known at run time
	// (Vitess's :name), as argParam is one.
	param bool
	// array marks the right side of col = ANY(x) when x is a parameter
	// or a literal: its value is a PostgreSQL array, each element a
	// value of the IN list.
	array bool
	// us and usOK: for argNewest, the value is now() minus us
	// microseconds (now() - interval '1 day': 86400000000), usOK saying
	// the offset is known (a wall-clock function less a constant
	// interval; nextval, DEFAULT and CURRENT_DATE have none); for an
	// interval literal (interval '5 years', INTERVAL 5 DAY), us is its
	// length. See intervalMicros for the units.
	us   int64
	usOK bool
	// ivUnit, for argNewest, is the signed microseconds per unit of an
	// interval count in slot n-1 still to add to us when the statement
	// is bound (NOW() - INTERVAL 5 DAY, whose 5 normalize puts in a
	// slot: -86400000000); 0 for none.
	ivUnit int64
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
	// guess says the column was attributed to its table by a naming
	// heuristic or by default, not by what the workload or the statement
	// says (see attribute.go).
	guess bool
	// any (with op Range and no ends) says the values are unknown and
	// may be many: the rows an INSERT ... SELECT copies.
	any bool
	// selected says an INSERT ... SELECT's column takes the values its
	// SELECT's WHERE binds a column to: a NULL there matches no row, so
	// none is inserted.
	selected bool
	// star, for a SELECT * target, is the access of its one table (see
	// starInsert).
	star *access
	// via, when set, marks a predicate of another read of the same table
	// in the statement, carried in by an equality of that column of the
	// two reads (a unique vindex's, if the design makes it one: see
	// shardkey.Cond.Via); viaPrefer and viaSingle are Cond's, viaGroup
	// names Cond.ViaGroupBy's column.
	via       string
	viaPrefer int8
	viaSingle bool
	viaGroup  string
	// viaTable and viaTableCol, when set, name the other read's table and
	// column when it is another table (shardkey.Cond.ViaTable): the
	// predicate is on the other read's compared column, renamed to via.
	viaTable, viaTableCol string
}

// mentionOnly reports whether p, in an access of the given kind, only
// names its column (an outer join's ON): the table has the column, but no
// condition binds it. (An insert's unbounded range is a condition: the
// rows an INSERT ... SELECT copies hold any values.)
func (p *pred) mentionOnly(kind shardkey.Kind) bool { return p.any && kind != shardkey.Insert }

// nvals returns how many values a bound instance of a holds.
func (a *access) nvals() int {
	n := 0
	for i := range a.preds {
		n += len(a.preds[i].args)
	}
	return n + len(a.sets)
}

// rv is one resolved value of an instance.
//
// An rv is 40 bytes (a string, its kind, a pointer and three small
// fields): the parser writes one a value bound and the aggregator reads
// it, so its size is memory traffic on the read path (it was 64 with
// elems a slice).
type rv struct {
	lit
	// elems, for an array argument whose value is an array literal,
	// points to its elements (perhaps none); an array argument whose
	// value is not one binds nothing (lit kind litNone). nil for any
	// other value; elemList reads it.
	elems *[]lit
	hint  shardkey.Type
	// unknownLen marks a list whose length is unknown too: an array
	// parameter without its value (= ANY($1)), a Vitess list bind
	// variable (IN ::list). It binds the column to a list of values known
	// only at run time (shardkey.Cond.Unknown -1).
	unknownLen bool
	// param says the value is a bind parameter's ($1, ?, :name).
	param bool
}

// elemList returns the elements of an array value (see rv.elems), nil
// for any other.
func (v *rv) elemList() []lit {
	if v.elems == nil {
		return nil
	}
	return *v.elems
}

// bind resolves every value of part p from the statement's literals and
// parameters, accesses one after another, predicates in order.
func (p *part) bind(slots, params []lit) [][]rv {
	return p.bindInto(make([][]rv, len(p.acc)), slots, params, nil)
}

// bindInto is bind writing into out, which holds len(p.acc) slices, the
// values taken from vs when it is not nil (else allocated).
func (p *part) bindInto(out [][]rv, slots, params []lit, vs *chunks[rv]) [][]rv {
	for i := range p.acc {
		a := &p.acc[i]
		var vals []rv
		if vs != nil {
			vals = vs.takeDirty(a.nvals(), 1024)[:0] // every element appended
		} else {
			vals = make([]rv, 0, a.nvals())
		}
		for j := range a.preds {
			args := a.preds[j].args
			for k := range args {
				g := &args[k]
				if (g.kind == argSlot || g.kind == argIntSlot) && !g.neg && !g.array && uint(g.n) < uint(len(slots)) {
					// resolve's commonest case, without copying the
					// arg: a literal of the statement as it is.
					vals = append(vals, rv{lit: slots[g.n], hint: g.hint, param: g.param})
					continue
				}
				vals = append(vals, g.resolve(slots, params))
			}
		}
		for j := range a.sets {
			vals = append(vals, a.sets[j].args[0].resolve(slots, params))
		}
		clear(vals[len(vals):cap(vals)]) // none, unless nvals overcounts: no earlier batch's value kept
		out[i] = vals
	}
	return out
}

func (g arg) resolve(slots, params []lit) rv {
	var l lit
	switch g.kind {
	case argLit:
		l = g.lit
	case argSlot, argIntSlot:
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
	case argArith:
		l = g.x.eval(slots, params)
	case argNewest:
		l = lit{kind: litNewest}
		us, ok := g.us, g.usOK
		if ok && g.ivUnit != 0 {
			ok = false
			if g.n >= 1 && g.n <= len(slots) && slots[g.n-1].kind == litNum {
				if f, err := strconv.ParseFloat(slots[g.n-1].s, 64); err == nil {
					us, ok = us-int64(f*float64(g.ivUnit)), true
				}
			}
		}
		if ok {
			l.s = strconv.FormatInt(us, 10) // the offset before now, read by nowOffset
		}
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
	if g.array {
		switch l.kind {
		case litStr:
			if elems, ok := parseArray(l.s); ok {
				return rv{lit: l, hint: g.hint, elems: &elems}
			}
			return rv{lit: lit{kind: litNone}}
		case litNoValue, litUnique:
			// An array whose value the log does not hold
			// (pg_stat_statements, no parameters logged), or a list
			// bind variable: values known only at run time, how many
			// unknown too (not one value drawn from the rows).
			return rv{lit: lit{kind: l.kind}, hint: g.hint, unknownLen: true, param: g.kind == argParam || g.param}
		default:
			// A number or NULL is no array.
			return rv{lit: lit{kind: litNone}}
		}
	}
	return rv{lit: l, hint: g.hint, param: g.kind == argParam || g.param}
}

// parseArray reads a one-dimensional PostgreSQL array literal such as
// {1,2,3} or {"a b",NULL,c} (the text form of array_out: elements
// separated by commas, double-quoted when they hold special characters,
// with backslash escapes; an unquoted NULL is NULL). Unquoted elements
// that read as numbers are numbers. It reports false for anything else,
// nested arrays included.
func parseArray(s string) ([]lit, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, false
	}
	body := s[1 : len(s)-1]
	elems := []lit{}
	if strings.TrimSpace(body) == "" {
		return elems, true
	}
	i := 0
	for {
		for i < len(body) && body[i] == ' ' {
			i++
		}
		if i >= len(body) {
			return nil, false
		}
		var e lit
		switch body[i] {
		case '{', '}':
			return nil, false
		case '"':
			var b strings.Builder
			i++
			for {
				if i >= len(body) {
					return nil, false
				}
				c := body[i]
				if c == '"' {
					i++
					break
				}
				if c == '\\' && i+1 < len(body) {
					i++
					c = body[i]
				}
				b.WriteByte(c)
				i++
			}
			e = lit{s: b.String(), kind: litStr}
		default:
			j := i
			for j < len(body) && body[j] != ',' {
				if body[j] == '"' || body[j] == '{' || body[j] == '}' || body[j] == '\\' {
					return nil, false
				}
				j++
			}
			v := strings.TrimSpace(body[i:j])
			i = j
			switch {
			case strings.EqualFold(v, "NULL"):
				e = lit{kind: litNull}
			case v == "":
				return nil, false
			case isNumber(v):
				e = lit{s: v, kind: litNum}
			default:
				e = lit{s: v, kind: litStr}
			}
		}
		elems = append(elems, e)
		for i < len(body) && body[i] == ' ' {
			i++
		}
		if i == len(body) {
			return elems, true
		}
		if body[i] != ',' {
			return nil, false
		}
		i++
	}
}

// isNumber reports whether s is a decimal number: digits with an optional
// sign, point and exponent.
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r == '-' || r == '+' || r == '.' || r == 'e' || r == 'E')
	}) < 0
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
	xNot                  // kids: the negated expression
	xConst                // a constant truth value: op "true", "false", "null" or "subfalse" (see returnsNoRow)
	xIsNull               // kids: the expression tested; op "not" for IS NOT NULL
)

type xexpr struct {
	kind      xkind
	op        string // xCmp: "=", "<>", "<", "<=", ">", ">="; xIn: "" or "<>" (NOT IN); xConst
	qual, col string // xCol
	val       arg    // xVal
	kids      []*xexpr
}

// insertFromSelect returns the access of INSERT INTO table (cols) SELECT,
// whose targets bound binds (see scope.boundTargets): an inserted column
// takes the values its target is bound to (the rows the SELECT reads hold
// them, so the rows it inserts do). A target bound to nothing (an
// expression, a column the SELECT leaves free) gives the column an
// unbounded range: the rows may hold any values, so as many as the SELECT
// returns may land on every shard.
func insertFromSelect(table string, cols []string, bound []*pred) access {
	a := access{table: table, kind: shardkey.Insert}
	if len(bound) == 1 && bound[0] != nil && bound[0].star != nil {
		// SELECT *: the columns are known once the catalog is.
		si := &starInsert{src: bound[0].star.table, cols: cols}
		for _, p := range bound[0].star.preds {
			if p.via == "" && (p.op == shardkey.Eq || p.op == shardkey.In) {
				si.preds = append(si.preds, p)
			}
		}
		a.star = si
		return a
	}
	seen := map[string]bool{}
	for i, b := range bound {
		col, use, more := insertColumn(cols, i, seen)
		if !more {
			break
		}
		if !use {
			continue
		}
		p := pred{col: col, pos: i, op: shardkey.Range, args: []arg{{}, {}}, any: true}
		if b != nil {
			p.op, p.any, p.args, p.selected = b.op, false, b.args, b.col != ""
		}
		a.preds = append(a.preds, p) // without a column list: by position (see agg.info)
	}
	sort.SliceStable(a.preds, func(i, j int) bool { return a.preds[i].col < a.preds[j].col })
	return a
}

// insertColumn names the column an INSERT's i-th value goes to: cols[i],
// or "" (known by position only) when the INSERT lists no columns. It
// reports use false for a column listed twice before (seen records the
// columns), and more false past the end of the list.
func insertColumn(cols []string, i int, seen map[string]bool) (col string, use, more bool) {
	if i < len(cols) {
		col = cols[i]
	} else if len(cols) > 0 {
		return "", false, false
	}
	if col != "" && seen[col] {
		return col, false, true
	}
	seen[col] = true
	return col, true, true
}

// insertRows returns one insert access per VALUES row.
func insertRows(table string, cols []string, rows [][]*xexpr) []access {
	out := make([]access, 0, len(rows))
	for _, row := range rows {
		a := access{table: table, kind: shardkey.Insert}
		seen := map[string]bool{}
		for i, v := range row {
			col, use, more := insertColumn(cols, i, seen)
			if !more {
				break
			}
			if !use || v.kind != xVal || v.val.kind == argUnknown {
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

// runtimeValue is a scalar subquery's result used as a value: one value,
// known only when the statement runs. Vitess pulls the subquery out and
// routes the outer query by its result (go/vt/vtgate/planbuilder/operators/
// subquery.go, a PulloutValue feeding an EqualUnique route):
// one shard, which one known at run time, as a new unordered value's.
// (In an IN list or a comparison other than = it binds nothing.)
// castExpr is a cast of column col: an expression (xOther) that binds
// nothing, compared with a value it marks the column loose, so that the
// reason names the cast.
func castExpr(col *xexpr) *xexpr { return &xexpr{kind: xOther, op: "cast", kids: []*xexpr{col}} }

func runtimeValue() *xexpr { return &xexpr{kind: xVal, val: arg{kind: argUnique}} }

// setPred is the pred of an UPDATE's SET col = x: x's value when x is one
// (a literal, a placeholder, a parameter), else a value known only at run
// time (argUnique: an expression, a subquery, a column).
func setPred(col string, x *xexpr) pred {
	g := arg{kind: argUnique}
	if x != nil && x.kind == xVal && x.val.kind != argUnknown && !x.val.array {
		g = x.val
	}
	return pred{col: col, op: shardkey.Eq, args: []arg{g}}
}

// withSets gives the UPDATE access of own on table (the one access of
// that kind and table that is not lazy) the SET clause's preds.
func withSets(own []access, table string, sets []pred) {
	if len(sets) == 0 {
		return
	}
	at := -1
	for i := range own {
		if own[i].kind == shardkey.Update && own[i].lazy == nil && strings.EqualFold(own[i].table, table) {
			if at >= 0 {
				return // two: which one the SET assigns is unclear
			}
			at = i
		}
	}
	if at >= 0 {
		own[at].sets = sets
	}
}

// returnsNoRow reports whether the accesses acc[from:] (a subquery's) all ask
// for no row, so that the subquery returns none.
func returnsNoRow(acc []access, from int) bool {
	if from >= len(acc) {
		return false
	}
	for _, a := range acc[from:] {
		if a.lazy != nil && !a.lazy.never || a.lazy == nil && !a.none {
			return false
		}
	}
	return true
}

// nowArg is the value of a function call name that freshFunc reads as
// argNewest: a wall-clock time (now(), CURRENT_TIMESTAMP, SYSDATE) has a
// known offset from now, 0; nextval, CURRENT_DATE (midnight, up to a day
// before now) and the others do not.
func nowArg(name string) arg {
	g := arg{kind: argNewest}
	switch strings.ToLower(name) {
	case "now", "current_timestamp", "localtimestamp", "statement_timestamp", "transaction_timestamp",
		"clock_timestamp", "sysdate", "utc_timestamp", "localtime":
		g.usOK = true
	}
	return g
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
