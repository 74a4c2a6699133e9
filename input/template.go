package input

import (
	"github.com/shardkey/shardkey"
)

// Templates of a statement file's lines (streamLine). A sample file's
// lines are nearly all alike: the same fields, the same columns in the
// same order, the same spacing, only the values change
// ({"where": {"customer_id": 918006, "order_month": "2023-12"}}). As a
// log reader parses each statement's shape once and lexes only its
// values, a line that scan has read is kept as a template: the bytes
// around its values (keys, punctuation, spaces), which of them are
// integers and which strings, and the conditions they resolve to
// (column, table, operation). A later line that has the template's bytes
// around values of the same kinds is then read by comparing those bytes
// and lexing its values with scan's rules (an integer of at most 18
// digits without fraction or exponent, a string without escapes or
// control characters): what scan and resolveInto would give it, without
// them. Anything else (another column, order or spacing, a null, a
// float, an escape, another field) fails the comparison and the line
// goes the general way, which may add a template.
//
// Only lines with one field are templates: "where" for a query, "writes"
// for a transaction (its writes each matched against the object
// templates, a write that repeats the previous one's bytes shared as
// scan shares it). A query's kind is then a read and a transaction's
// writes inserts, the weight 1, the table of each object the one its
// columns pick.

// objTmpl is the template of one JSON object of conditions.
type objTmpl struct {
	// lits are the bytes before each value, then after the last one:
	// lits[0] opens the object ({"customer_id": ), the last closes it.
	lits [][]byte
	str  []bool // value k is a string (else an integer)
	at   []int  // value k's condition in conds (sorted by column)
	// conds are the resolved conditions in scan's order (by column
	// name), their values to fill.
	conds []shardkey.Cond
	ti    int
	// op is the operation of a query of this template in the batch
	// numbered gen (streamState.gen): 0 none yet.
	gen uint64
	op  int
}

// lineTmpl is a file's line template: the bytes before the first object
// ({"where":  or {"writes": [), between two writes (sep; nil until a
// line with two is seen) and after the last object to the line's end,
// and the objects' templates, most recently added first.
type lineTmpl struct {
	pre, sep, post []byte
	objs           []*objTmpl
	// failed counts lines from which no template could be made; after
	// maxTmplFails the reader stops trying.
	failed int
}

// lineTemplates enables templates; tests turn it off for the general
// path, their oracle.
var lineTemplates = true

const (
	maxObjTmpls  = 16
	maxTmplFails = 64
)

// hasAt reports whether b[i:] starts with lit.
func hasAt(b []byte, i int, lit []byte) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == string(lit)
}

// match reads one object at b[i] with o into conds (len(o.conds)) and
// returns the index after it.
func (o *objTmpl) match(b []byte, i int, conds []shardkey.Cond) (int, bool) {
	n := len(o.str)
	for k := 0; k < n; k++ {
		lit := o.lits[k]
		if !hasAt(b, i, lit) {
			return 0, false
		}
		i += len(lit)
		c := &conds[o.at[k]]
		*c = o.conds[o.at[k]]
		if o.str[k] {
			s, j, ok := scanStr(b, i)
			if !ok {
				return 0, false
			}
			c.Val, i = shardkey.TextValue(s), j
		} else {
			v, j, ok := scanInt(b, i)
			if !ok {
				return 0, false
			}
			c.Val, i = shardkey.IntValue(v), j
		}
	}
	if !hasAt(b, i, o.lits[n]) {
		return 0, false
	}
	return i + len(o.lits[n]), true
}

// object matches the object at b[i] against t's object templates into
// conds from index lo on (grown as needed), and returns its template and
// the index after it.
func (t *lineTmpl) object(b []byte, i int, conds *[]shardkey.Cond, lo int) (*objTmpl, int, bool) {
	for _, o := range t.objs {
		if cap(*conds) < lo+len(o.conds) {
			c := make([]shardkey.Cond, lo, 2*(lo+len(o.conds)))
			copy(c, *conds)
			*conds = c
		}
		if j, ok := o.match(b, i, (*conds)[lo:lo+len(o.conds)]); ok {
			*conds = (*conds)[:lo+len(o.conds)]
			return o, j, true
		}
	}
	return nil, 0, false
}

// lineEnd returns the index after t.post at b[j] when the line ends
// there: at the end of b or at a newline (b may run on past the line:
// stream walks a batch's bytes without cutting them into lines first).
// What follows a template line must be its end: a space or a carriage
// return after it fails, and the line goes the general way, which trims
// it (and may match it then).
func (t *lineTmpl) lineEnd(b []byte, j int) (int, bool) {
	e := j + len(t.post)
	if !hasAt(b, j, t.post) || e < len(b) && b[e] != '\n' {
		return 0, false
	}
	return e, true
}

// query matches a query line at the start of b: its template, conditions
// and length (see lineEnd).
func (t *lineTmpl) query(b []byte, conds *[]shardkey.Cond) (*objTmpl, []shardkey.Cond, int, bool) {
	if !lineTemplates || len(t.objs) == 0 || !hasAt(b, 0, t.pre) {
		return nil, nil, 0, false
	}
	o, j, ok := t.object(b, len(t.pre), conds, 0)
	if !ok {
		return nil, nil, 0, false
	}
	e, ok := t.lineEnd(b, j)
	if !ok {
		return nil, nil, 0, false
	}
	return o, (*conds)[:len(o.conds)], e, true
}

// txn matches a transaction line at the start of b into stmts (inserts;
// a write that repeats the previous one's bytes shares its conditions, as
// scan and streamLine share them), its conditions in *conds, and returns
// the line's length (see lineEnd).
func (t *lineTmpl) txn(b []byte, conds *[]shardkey.Cond, stmts []shardkey.Stmt, spans *[]span) ([]shardkey.Stmt, int, bool) {
	if !lineTemplates || len(t.objs) == 0 || !hasAt(b, 0, t.pre) {
		return nil, 0, false
	}
	i := len(t.pre)
	sp := (*spans)[:0]
	var prev []byte
	stmts = stmts[:0]
	for {
		if n := len(prev); n > 0 && hasAt(b, i, prev) {
			sp = append(sp, sp[len(sp)-1])
			stmts = append(stmts, stmts[len(stmts)-1])
			i += n
		} else {
			lo := 0
			if len(sp) > 0 {
				lo = sp[len(sp)-1].hi
			}
			o, j, ok := t.object(b, i, conds, lo)
			if !ok {
				*spans = sp
				return nil, 0, false
			}
			sp = append(sp, span{lo, lo + len(o.conds)})
			stmts = append(stmts, shardkey.Stmt{Table: o.ti, Kind: shardkey.Insert})
			prev = b[i:j]
			i = j
		}
		if t.sep != nil && hasAt(b, i, t.sep) {
			i += len(t.sep)
			continue
		}
		break
	}
	*spans = sp
	e, ok := t.lineEnd(b, i)
	if !ok {
		return nil, 0, false
	}
	// The conditions are all in place now (*conds no longer moves).
	for k := range stmts {
		stmts[k].Conds = (*conds)[sp[k].lo:sp[k].hi:sp[k].hi]
		if k > 0 && sp[k] == sp[k-1] {
			stmts[k].Conds = stmts[k-1].Conds
		}
	}
	return stmts, e, true
}

// learn makes templates from line data, which scan read and streamLine
// resolved and routed without error (learnLine checks its shape again).
func (b *Builder) learn(t *lineTmpl, data []byte, txns bool) {
	if !lineTemplates || t.failed >= maxTmplFails {
		return
	}
	if !b.learnLine(t, data, txns) {
		t.failed++
	}
}

// learnLine walks line data as scan does, recording where each value is,
// and adds the templates it makes; false when it makes none.
func (b *Builder) learnLine(t *lineTmpl, data []byte, txns bool) bool {
	want := "where"
	if txns {
		want = "writes"
	}
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipWS(data, i+1)
	key, j, ok := scanStr(data, i)
	if !ok || key != want {
		return false
	}
	i = skipWS(data, j)
	if i >= len(data) || data[i] != ':' {
		return false
	}
	i = skipWS(data, i+1)
	if txns {
		if i >= len(data) || data[i] != '[' {
			return false
		}
		i = skipWS(data, i+1)
	}
	pre := data[:i]
	var sep []byte
	var objs []*objTmpl
	for {
		o, j, ok := b.learnObj(data, i)
		if !ok {
			return false
		}
		objs = append(objs, o)
		i = j
		if !txns {
			break
		}
		k := skipWS(data, i)
		if k >= len(data) || data[k] != ',' {
			break
		}
		k = skipWS(data, k+1)
		if sep == nil {
			sep = data[i:k]
		} else if string(sep) != string(data[i:k]) {
			return false
		}
		i = k
	}
	post := data[i:]
	k := skipWS(data, i)
	if txns {
		if k >= len(data) || data[k] != ']' {
			return false
		}
		k = skipWS(data, k+1)
	}
	if k >= len(data) || data[k] != '}' || skipWS(data, k+1) != len(data) {
		return false
	}
	if len(t.objs) == 0 {
		t.pre, t.post = clone(pre), clone(post)
	} else if string(t.pre) != string(pre) || string(t.post) != string(post) {
		return false
	}
	if t.sep == nil && sep != nil {
		t.sep = clone(sep)
	} else if sep != nil && string(t.sep) != string(sep) {
		return false
	}
	added := false
	for _, o := range objs {
		if len(t.objs) >= maxObjTmpls {
			break
		}
		if !t.has(o) {
			t.objs = append([]*objTmpl{o}, t.objs...)
			added = true
		}
	}
	return added
}

// has reports whether t holds an object template with o's bytes and kinds.
func (t *lineTmpl) has(o *objTmpl) bool {
	for _, p := range t.objs {
		same := len(p.lits) == len(o.lits)
		for k := 0; same && k < len(o.lits); k++ {
			same = string(p.lits[k]) == string(o.lits[k])
		}
		for k := 0; same && k < len(o.str); k++ {
			same = p.str[k] == o.str[k]
		}
		if same {
			return true
		}
	}
	return false
}

func clone(b []byte) []byte { return append([]byte{}, b...) }

// learnObj makes the template of the object of conditions at data[i]: an
// integer or a string for each of its columns, each column of the table
// their names pick and of the value's type (what resolveInto resolves
// without resolve).
func (b *Builder) learnObj(data []byte, i int) (*objTmpl, int, bool) {
	if i >= len(data) || data[i] != '{' {
		return nil, 0, false
	}
	o := &objTmpl{}
	var cols []string
	from := i // the current literal's start
	i = skipWS(data, i+1)
	for {
		col, j, ok := scanStr(data, i)
		if !ok {
			return nil, 0, false
		}
		i = skipWS(data, j)
		if i >= len(data) || data[i] != ':' {
			return nil, 0, false
		}
		i = skipWS(data, i+1)
		o.lits = append(o.lits, clone(data[from:i]))
		if i < len(data) && data[i] == '"' {
			if _, j, ok = scanStr(data, i); !ok {
				return nil, 0, false
			}
			o.str = append(o.str, true)
		} else {
			if _, j, ok = scanInt(data, i); !ok {
				return nil, 0, false
			}
			o.str = append(o.str, false)
		}
		cols = append(cols, col)
		from, i = j, skipWS(data, j)
		if i >= len(data) {
			return nil, 0, false
		}
		if data[i] == ',' {
			i = skipWS(data, i+1)
			continue
		}
		if data[i] != '}' {
			return nil, 0, false
		}
		i++
		break
	}
	o.lits = append(o.lits, clone(data[from:i]))
	// scan's order: by column name (scanObject's insertion sort); a
	// column named twice is no template.
	sorted := append([]string(nil), cols...)
	for k := 1; k < len(sorted); k++ {
		for m := k; m > 0 && sorted[m] < sorted[m-1]; m-- {
			sorted[m], sorted[m-1] = sorted[m-1], sorted[m]
		}
	}
	for k := 1; k < len(sorted); k++ {
		if sorted[k] == sorted[k-1] {
			return nil, 0, false
		}
	}
	ti := 0
	if len(b.W.Tables) > 1 {
		var err error
		if ti, err = b.pickTable("", &jline{}, sorted); err != nil {
			return nil, 0, false
		}
	}
	t := b.W.Tables[ti]
	o.ti = ti
	o.conds = make([]shardkey.Cond, len(cols))
	o.at = make([]int, len(cols))
	for k, col := range cols {
		at := 0
		for sorted[at] != col {
			at++
		}
		ci := t.ColumnIndex(col)
		if ci < 0 {
			return nil, 0, false
		}
		want := shardkey.Int64
		if o.str[k] {
			want = shardkey.Text
		}
		if t.Columns[ci].Type != want {
			return nil, 0, false
		}
		o.at[k] = at
		o.conds[at] = shardkey.Cond{Col: ci, Op: shardkey.Eq}
	}
	return o, i, true
}
