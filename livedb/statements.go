package livedb

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/shardkey/shardkey"
)

// Statement statistics hold normalised statements: constants replaced by
// placeholders ($1 in pg_stat_statements, ? in MySQL digests). A statement
// becomes an operation from its shape alone: its table, its kind, and the
// conditions of its WHERE clause that are conjunctions of
//
//	col = x, col IN (x, ...), col BETWEEN x AND y, col < x, ...
//
// A placeholder's value is unknown, so each of the operation's instances
// draws it from a random row of the table's sample: accesses spread like
// the rows. A range between placeholders has no known width and is left
// out (the operation then scatters under a key on that column: an upper
// bound on its cost). Joins, subqueries and ORs are not split into
// per-table work here; the query log (package sqllog) is the input that
// understands them. Statements on tables outside the sample (catalogs,
// other schemas) are skipped.

// instancesPerStatement is the number of instances drawn per operation.
const instancesPerStatement = 256

var (
	errNotData  = errors.New("not a data statement")
	errNoTable  = errors.New("table not in the sample")
	errTooHairy = errors.New("joins, subqueries and unions are not read from statement statistics")
)

// addStatement turns one statement into an operation of w.
func addStatement(w *shardkey.Workload, st statement, period float64, rng *rand.Rand) error {
	sh, err := parseShape(st.Text)
	if errors.Is(err, errNotData) {
		return nil
	}
	if err != nil {
		return err
	}
	ti := w.TableIndex(sh.table)
	if ti < 0 {
		return nil // a catalog or another schema's table
	}
	t := w.Tables[ti]
	rate := st.Calls
	if period > 0 {
		rate /= period
	}
	op := &shardkey.Operation{Name: shortSQL(st.Text), Table: ti, Kind: sh.kind, Rate: rate}
	n := instancesPerStatement
	if sh.params() == 0 || t.Rows == 0 {
		n = 1
	}
	if t.Rows == 0 && sh.params() > 0 {
		return fmt.Errorf("table %s has no sampled rows to draw parameters from", t.Name)
	}
	for i := 0; i < n; i++ {
		in := shardkey.Instance{Weight: 1}
		row := 0
		if t.Rows > 0 {
			row = rng.IntN(t.Rows)
		}
		for _, c := range sh.conds {
			col := t.ColumnIndex(c.col)
			if col < 0 {
				return fmt.Errorf("table %s has no column %s", t.Name, c.col)
			}
			typ := t.Columns[col].Type
			switch c.op {
			case shardkey.Eq:
				v, err := c.vals[0].value(t, col, typ, row)
				if err != nil {
					return err
				}
				cond := shardkey.Cond{Col: col, Op: shardkey.Eq, Val: v}
				if sh.kind == shardkey.Insert && c.vals[0].param && t.Monotonic[c.col] {
					cond = shardkey.Cond{Col: col, Op: shardkey.Eq, Fresh: shardkey.FreshNewest}
				}
				in.Conds = append(in.Conds, cond)
			case shardkey.In:
				cond := shardkey.Cond{Col: col, Op: shardkey.In}
				for j, x := range c.vals {
					r := row
					if j > 0 {
						r = rng.IntN(t.Rows)
					}
					v, err := x.value(t, col, typ, r)
					if err != nil {
						return err
					}
					cond.List = append(cond.List, v)
				}
				in.Conds = append(in.Conds, cond)
			case shardkey.Range:
				b := &shardkey.Bounds{}
				if c.lo != nil {
					v, err := shardkey.ParseValue(c.lo.lit, typ)
					if err != nil {
						return fmt.Errorf("column %s: %v", c.col, err)
					}
					b.Lo, b.HasLo, b.LoIncl = v, true, c.loIncl
				}
				if c.hi != nil {
					v, err := shardkey.ParseValue(c.hi.lit, typ)
					if err != nil {
						return fmt.Errorf("column %s: %v", c.col, err)
					}
					b.Hi, b.HasHi, b.HiIncl = v, true, c.hiIncl
				}
				in.Conds = append(in.Conds, shardkey.Cond{Col: col, Op: shardkey.Range, Bounds: b})
			}
		}
		op.Instances = append(op.Instances, in)
	}
	w.Ops = append(w.Ops, op)
	return nil
}

func shortSQL(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// shape is what a statement does, without its values.
type shape struct {
	kind  shardkey.Kind
	table string
	conds []shapeCond
}

func (s *shape) params() int {
	n := 0
	for _, c := range s.conds {
		for _, v := range c.vals {
			if v.param {
				n++
			}
		}
	}
	return n
}

// shapeCond is one usable condition: Eq and In carry vals, Range carries
// literal bounds.
type shapeCond struct {
	col            string
	op             shardkey.Op
	vals           []operand
	lo, hi         *operand
	loIncl, hiIncl bool
}

// operand is a placeholder or a literal.
type operand struct {
	param bool
	lit   string
}

// value returns the operand's value: the literal, or the column's value in
// sample row row.
func (o operand) value(t *shardkey.Table, col int, typ shardkey.Type, row int) (shardkey.Value, error) {
	if o.param {
		return t.Columns[col].Value(row), nil
	}
	v, err := shardkey.ParseValue(o.lit, typ)
	if err != nil {
		return v, fmt.Errorf("column %s: %v", t.Columns[col].Name, err)
	}
	return v, nil
}

// token kinds.
const (
	tkWord  = iota // keyword or unquoted identifier (lower-cased)
	tkIdent        // quoted identifier
	tkParam        // $n or ?
	tkLit          // number or string literal (string unquoted)
	tkPunct        // operators and punctuation
)

type token struct {
	kind int
	s    string
}

// tokenize splits a normalised statement into tokens.
func tokenize(q string) ([]token, error) {
	var out []token
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return nil, fmt.Errorf("unterminated comment")
			}
			i += j + 4
		case c == '"' || c == '`' || c == '\'':
			var b strings.Builder
			j := i + 1
			for ; j < len(q); j++ {
				if q[j] == c {
					if j+1 < len(q) && q[j+1] == c {
						b.WriteByte(c)
						j++
						continue
					}
					break
				}
				b.WriteByte(q[j])
			}
			if j >= len(q) {
				return nil, fmt.Errorf("unterminated quote")
			}
			kind := tkIdent
			if c == '\'' {
				kind = tkLit
			}
			out = append(out, token{kind, b.String()})
			i = j + 1
		case c == '?':
			out = append(out, token{tkParam, "?"})
			i++
		case c == '$' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			out = append(out, token{tkParam, q[i:j]})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			j := i
			for j < len(q) && (q[j] >= '0' && q[j] <= '9' || q[j] == '.' || q[j] == 'e' || q[j] == 'E') {
				j++
			}
			out = append(out, token{tkLit, q[i:j]})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
			j := i
			for j < len(q) && (q[j] == '_' || q[j] == '$' || q[j] >= 'a' && q[j] <= 'z' || q[j] >= 'A' && q[j] <= 'Z' || q[j] >= '0' && q[j] <= '9' || q[j] >= 0x80) {
				j++
			}
			out = append(out, token{tkWord, strings.ToLower(q[i:j])})
			i = j
		default:
			j := i + 1
			if j < len(q) && strings.Contains("<>=!:|", string(q[j])) && strings.Contains("<>=!:|", string(c)) {
				j++
			}
			out = append(out, token{tkPunct, q[i:j]})
			i = j
		}
	}
	return out, nil
}

// parser walks the tokens of one statement.
type parser struct {
	t []token
	i int
}

func (p *parser) peek() token {
	if p.i < len(p.t) {
		return p.t[p.i]
	}
	return token{kind: tkPunct, s: ""}
}

func (p *parser) next() token { t := p.peek(); p.i++; return t }

func (p *parser) isWord(words ...string) bool {
	t := p.peek()
	if t.kind != tkWord {
		return false
	}
	for _, w := range words {
		if t.s == w {
			return true
		}
	}
	return false
}

// name reads a possibly qualified name and returns its last part.
func (p *parser) name() (string, bool) {
	t := p.next()
	if t.kind != tkWord && t.kind != tkIdent {
		return "", false
	}
	name := t.s
	for p.peek().s == "." {
		p.next()
		t = p.next()
		if t.kind != tkWord && t.kind != tkIdent {
			return "", false
		}
		name = t.s
	}
	return name, true
}

var clauseEnd = map[string]bool{
	"group": true, "order": true, "limit": true, "for": true, "having": true, "union": true,
	"returning": true, "offset": true, "window": true, "lock": true, "fetch": true,
}

// parseShape reads a statement's table, kind and usable conditions.
func parseShape(q string) (*shape, error) {
	toks, err := tokenize(q)
	if err != nil {
		return nil, err
	}
	p := &parser{t: toks}
	sh := &shape{}
	switch {
	case p.isWord("select"):
		sh.kind = shardkey.Read
		depth := 0
		for p.i < len(p.t) && !(depth == 0 && p.isWord("from")) {
			switch p.next().s {
			case "(":
				depth++
			case ")":
				depth--
			}
		}
		if p.i >= len(p.t) {
			return nil, errNotData // SELECT 1, SELECT now()
		}
		p.next()
		if p.peek().s == "(" {
			return nil, errTooHairy
		}
		if sh.table, err = p.tableRef(); err != nil {
			return nil, err
		}
	case p.isWord("update"):
		sh.kind = shardkey.Update
		p.next()
		if sh.table, err = p.tableRef(); err != nil {
			return nil, err
		}
		if !p.isWord("set") {
			return nil, fmt.Errorf("want SET after UPDATE %s", sh.table)
		}
		p.skipTo("where")
	case p.isWord("delete"):
		sh.kind = shardkey.Delete
		p.next()
		if !p.isWord("from") {
			return nil, fmt.Errorf("want FROM after DELETE")
		}
		p.next()
		if sh.table, err = p.tableRef(); err != nil {
			return nil, err
		}
	case p.isWord("insert", "replace"):
		sh.kind = shardkey.Insert
		p.next()
		for p.isWord("into", "ignore", "low_priority", "delayed", "high_priority") {
			p.next()
		}
		return p.insert(sh)
	default:
		return nil, errNotData
	}
	if p.isWord("where") {
		p.next()
		conds, err := p.where()
		if err != nil {
			return nil, err
		}
		sh.conds = conds
	}
	return sh, nil
}

// tableRef reads "table [AS] [alias]" and rejects joins and lists.
func (p *parser) tableRef() (string, error) {
	name, ok := p.name()
	if !ok {
		return "", fmt.Errorf("want a table name")
	}
	if p.isWord("as") {
		p.next()
	}
	if t := p.peek(); (t.kind == tkWord || t.kind == tkIdent) && !isClauseWord(t.s) {
		p.next()
	}
	if p.peek().s == "," || p.isWord("join", "inner", "left", "right", "full", "cross", "natural", "straight_join") {
		return "", errTooHairy
	}
	return name, nil
}

func isClauseWord(s string) bool {
	switch s {
	case "where", "set", "join", "inner", "left", "right", "full", "cross", "natural", "on", "using", "tablesample", "straight_join":
		return true
	}
	return clauseEnd[s]
}

// skipTo advances to the keyword at parenthesis depth 0, or the end.
func (p *parser) skipTo(word string) {
	depth := 0
	for p.i < len(p.t) {
		if depth == 0 && p.isWord(word) {
			return
		}
		switch p.next().s {
		case "(":
			depth++
		case ")":
			depth--
		}
	}
}

// where reads the conjuncts of a WHERE clause. A top-level OR makes the
// clause unusable: the statement scatters.
func (p *parser) where() ([]shapeCond, error) {
	var conds []shapeCond
	for p.i < len(p.t) && !clauseEnd[p.peek().s] && p.peek().s != ";" {
		start := p.i
		c, ok := p.cond()
		if !ok {
			// Skip this conjunct; a subquery makes the statement too hairy.
			p.i = start
			depth := 0
			for p.i < len(p.t) {
				t := p.peek()
				if depth == 0 && (t.kind == tkWord && (t.s == "and" || t.s == "or" || clauseEnd[t.s]) || t.s == ";") {
					break
				}
				if t.kind == tkWord && t.s == "select" {
					return nil, errTooHairy
				}
				switch t.s {
				case "(":
					depth++
				case ")":
					depth--
				}
				p.i++
			}
		} else if c != nil {
			conds = append(conds, *c)
		}
		switch {
		case p.isWord("and"):
			p.next()
		case p.isWord("or"):
			return nil, nil
		}
	}
	return conds, nil
}

// cond reads one conjunct it understands; ok is false otherwise.
func (p *parser) cond() (*shapeCond, bool) {
	col, ok := p.name()
	if !ok {
		return nil, false
	}
	c := &shapeCond{col: col}
	t := p.next()
	switch {
	case t.s == "=":
		v, ok := p.operand()
		if !ok {
			return nil, false
		}
		c.op, c.vals = shardkey.Eq, []operand{v}
	case t.kind == tkWord && t.s == "in":
		if p.next().s != "(" {
			return nil, false
		}
		c.op = shardkey.In
		for {
			if p.peek().s == "." || p.peek().s == "..." { // MySQL digests: IN (...)
				return nil, false
			}
			v, ok := p.operand()
			if !ok {
				return nil, false
			}
			c.vals = append(c.vals, v)
			if s := p.next().s; s == ")" {
				break
			} else if s != "," {
				return nil, false
			}
		}
	case t.kind == tkWord && t.s == "between":
		lo, ok1 := p.operand()
		if !p.isWord("and") {
			return nil, false
		}
		p.next()
		hi, ok2 := p.operand()
		if !ok1 || !ok2 {
			return nil, false
		}
		if lo.param || hi.param {
			return nil, true // a range of unknown width: left out
		}
		c.op, c.lo, c.hi, c.loIncl, c.hiIncl = shardkey.Range, &lo, &hi, true, true
	case t.s == "<" || t.s == "<=" || t.s == ">" || t.s == ">=":
		v, ok := p.operand()
		if !ok {
			return nil, false
		}
		if v.param {
			return nil, true
		}
		c.op = shardkey.Range
		if t.s[0] == '>' {
			c.lo, c.loIncl = &v, t.s == ">="
		} else {
			c.hi, c.hiIncl = &v, t.s == "<="
		}
	default:
		return nil, false
	}
	// The conjunct must end here: "a = $1 + 1" is not an equality on a.
	if n := p.peek(); !(n.s == "" || n.s == ";" || n.s == ")" || n.kind == tkWord && (n.s == "and" || n.s == "or" || clauseEnd[n.s])) {
		return nil, false
	}
	return c, true
}

// operand reads a placeholder or literal, with an optional cast
// ($1::int4) or sign.
func (p *parser) operand() (operand, bool) {
	neg := false
	if p.peek().s == "-" {
		p.next()
		neg = true
	}
	t := p.next()
	var o operand
	switch t.kind {
	case tkParam:
		o.param = true
	case tkLit:
		o.lit = t.s
		if neg {
			o.lit = "-" + o.lit
		}
	default:
		return o, false
	}
	for p.peek().s == "::" {
		p.next()
		if _, ok := p.name(); !ok {
			return o, false
		}
	}
	return o, true
}

// insert reads INSERT INTO t (cols) VALUES (...) and uses the first row.
func (p *parser) insert(sh *shape) (*shape, error) {
	name, ok := p.name()
	if !ok {
		return nil, fmt.Errorf("want a table after INSERT INTO")
	}
	sh.table = name
	if p.next().s != "(" {
		return nil, fmt.Errorf("INSERT INTO %s without a column list", name)
	}
	var cols []string
	for {
		c, ok := p.name()
		if !ok {
			return nil, fmt.Errorf("INSERT INTO %s: bad column list", name)
		}
		cols = append(cols, c)
		if s := p.next().s; s == ")" {
			break
		} else if s != "," {
			return nil, fmt.Errorf("INSERT INTO %s: bad column list", name)
		}
	}
	if !p.isWord("values", "value") {
		return nil, errTooHairy // INSERT ... SELECT
	}
	p.next()
	if p.next().s != "(" {
		return nil, fmt.Errorf("INSERT INTO %s: want VALUES (...)", name)
	}
	for i := 0; ; i++ {
		start := p.i
		v, ok := p.operand()
		if end := p.peek().s; !ok || end != "," && end != ")" {
			// An expression (now(), DEFAULT, nextval(...)): no condition.
			p.i = start
			depth := 0
			for p.i < len(p.t) && !(depth == 0 && (p.peek().s == "," || p.peek().s == ")")) {
				switch p.next().s {
				case "(":
					depth++
				case ")":
					depth--
				}
			}
		} else if i < len(cols) {
			sh.conds = append(sh.conds, shapeCond{col: cols[i], op: shardkey.Eq, vals: []operand{v}})
		}
		if s := p.next().s; s == ")" {
			break
		} else if s != "," {
			return nil, fmt.Errorf("INSERT INTO %s: bad VALUES list", name)
		}
	}
	return sh, nil
}
