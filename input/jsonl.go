package input

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
)

// maxLine bounds one JSONL line.
const maxLine = 64 << 20

// lineReader yields non-blank lines with their numbers.
type lineReader struct {
	sc   *bufio.Scanner
	line int
	file string
}

func newLineReader(r io.Reader, file string) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), maxLine)
	return &lineReader{sc: sc, file: file}
}

func (lr *lineReader) next() ([]byte, bool) {
	for lr.sc.Scan() {
		lr.line++
		b := lr.sc.Bytes()
		if lr.line == 1 {
			b = bytes.TrimPrefix(b, utf8BOM)
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		return b, true
	}
	return nil, false
}

func (lr *lineReader) err() error {
	if err := lr.sc.Err(); err != nil {
		return shardkey.Errorf(lr.file, lr.line+1, "", "%v", err)
	}
	return nil
}

// jsonErr turns a decoding error into a message with the byte offset.
func jsonErr(err error) error {
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

func decodeObject(b []byte) (map[string]json.RawMessage, error) {
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("want a JSON object, got %.20q", b)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, jsonErr(err)
	}
	return m, nil
}

// scalar is one JSON scalar: a number (its literal), a string, or null.
type scalar struct {
	num   string
	str   string
	isStr bool
	null  bool
	// isInt and i hold an integer literal parsed off the consumer's path.
	isInt bool
	i     int64
}

func parseScalar(raw json.RawMessage) (scalar, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return scalar{}, fmt.Errorf("missing value")
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return scalar{}, jsonErr(err)
		}
		return scalar{str: s, isStr: true}, nil
	case 'n':
		if string(raw) == "null" {
			return scalar{null: true}, nil
		}
	case 't', 'f':
		return scalar{}, fmt.Errorf("booleans are not supported as key values (%s)", raw)
	case '{', '[':
		return scalar{}, fmt.Errorf("want a number or string, got %.30s", raw)
	default:
		if _, err := strconv.ParseFloat(string(raw), 64); err == nil {
			return scalar{num: string(raw)}, nil
		}
	}
	return scalar{}, fmt.Errorf("invalid JSON value %.30q", raw)
}

// inferJSONType returns the type a first-seen scalar suggests.
func inferJSONType(s scalar) shardkey.Type {
	switch {
	case s.null:
		return shardkey.Null
	case s.isStr:
		t := shardkey.InferType([]string{s.str})
		if t == shardkey.Int64 || t == shardkey.Float64 {
			return shardkey.Text // a quoted number is text
		}
		return t
	case s.isInt:
		return shardkey.Int64
	}
	return shardkey.InferType([]string{s.num}) // int64, uint64 or float64
}

// toValue converts a scalar to type t.
func toValue(s scalar, t shardkey.Type) (shardkey.Value, error) {
	switch {
	case s.null:
		return shardkey.Value{}, nil
	case s.isStr:
		return shardkey.ParseValue(s.str, t)
	}
	if s.isInt {
		switch t {
		case shardkey.Int64:
			return shardkey.IntValue(s.i), nil
		case shardkey.Int16, shardkey.Int32, shardkey.Uint64, shardkey.Timestamp:
			return shardkey.ParseValue(strconv.FormatInt(s.i, 10), t)
		case shardkey.Float32, shardkey.Float64:
			return shardkey.Value{Type: t, Float: float64(s.i)}, nil
		default:
			s.num = strconv.FormatInt(s.i, 10)
		}
	}
	switch t {
	case shardkey.Text:
		return shardkey.TextValue(s.num), nil
	case shardkey.Int16, shardkey.Int32, shardkey.Int64, shardkey.Uint64:
		if strings.ContainsAny(s.num, ".eE") {
			f, err := strconv.ParseFloat(s.num, 64)
			if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<62 {
				return shardkey.Value{}, fmt.Errorf("%s is not an integer (column type %s)", s.num, t)
			}
			return shardkey.Value{Type: t, Int: int64(f)}, nil
		}
	}
	return shardkey.ParseValue(s.num, t)
}

// readJSONLRows reads one JSON object per line into a table.
func readJSONLRows(r io.Reader, file, name string, o Options) (*shardkey.Table, error) {
	lr := newLineReader(r, file)
	type rec struct {
		m    map[string]json.RawMessage
		line int
	}
	var buf []rec
	var names []string
	seen := map[string]bool{}
	for len(buf) < InferRows {
		b, ok := lr.next()
		if !ok {
			break
		}
		m, err := decodeObject(b)
		if err != nil {
			return nil, shardkey.Errorf(file, lr.line, "", "%v", err)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
		buf = append(buf, rec{m, lr.line})
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	if len(buf) == 0 {
		return nil, shardkey.Errorf(file, 1, "", "empty file: want one JSON object per line")
	}
	t := &shardkey.Table{Name: name}
	cols := map[string]*shardkey.Column{}
	hasWeight := false
	for _, n := range names {
		if strings.EqualFold(n, "weight") {
			hasWeight = true
			continue
		}
		typ, ok := o.typeOf(name, n)
		if !ok {
			// Numbers are typed together, as CSV values are (int64,
			// uint64, float64, or text when no number type holds them
			// all exactly); strings by what they hold; a mix is text.
			var nums []string
			var numLines []int
			strTyp, firstStr, firstStrLine, strs := shardkey.Null, "", 0, 0
			for _, rc := range buf {
				raw, ok := rc.m[n]
				if !ok {
					continue
				}
				s, err := parseScalar(raw)
				if err != nil {
					return nil, shardkey.Errorf(file, rc.line, n, "%v", err)
				}
				switch {
				case s.null:
				case s.isStr && shardkey.IsNullText(s.str):
					// "", "NULL", "\N": NULL in a typed column, as in CSV
				case s.isStr:
					if strs == 0 {
						firstStr, firstStrLine = s.str, rc.line
					}
					strs++
					switch st := inferJSONType(s); {
					case strTyp == shardkey.Null:
						strTyp = st
					case strTyp != st:
						strTyp = shardkey.Text
					}
				default:
					nums = append(nums, s.num)
					numLines = append(numLines, rc.line)
				}
			}
			switch {
			case strs == 0 && len(nums) == 0:
				typ = shardkey.Text
			case strs == 0:
				var odd int
				var want shardkey.Type
				if typ, odd, want = shardkey.InferTypeOdd(nums); odd >= 0 {
					o.warn(oddValue(file, numLines[odd], n, nums[odd], typ, want, nums))
				}
			case len(nums) == 0:
				typ = strTyp
			default:
				typ = shardkey.Text
				if len(nums) >= 9*strs {
					want := shardkey.InferType(nums)
					o.warn(oddValue(file, firstStrLine, n, firstStr, typ, want, append(nums, firstStr)))
				}
			}
		}
		c := &shardkey.Column{Name: n, Type: typ}
		cols[n] = c
		t.Columns = append(t.Columns, c)
	}
	if hasWeight {
		t.Weights = []float64{}
	}
	add := func(m map[string]json.RawMessage, line int) error {
		for k := range m {
			if cols[k] == nil && !strings.EqualFold(k, "weight") {
				return shardkey.Errorf(file, line, k, "column not in the first %d rows; every row must have the same columns", InferRows)
			}
		}
		for _, c := range t.Columns {
			raw, ok := m[c.Name]
			var v shardkey.Value
			if ok {
				s, err := parseScalar(raw)
				if err != nil {
					return shardkey.Errorf(file, line, c.Name, "%v", err)
				}
				if v, err = toValue(s, c.Type); err != nil {
					return shardkey.Errorf(file, line, c.Name, "%v", err)
				}
			}
			if err := c.Append(v); err != nil {
				return shardkey.Errorf(file, line, c.Name, "%v", err)
			}
		}
		if hasWeight {
			w := 1.0
			nw := 0
			for k := range m {
				if strings.EqualFold(k, "weight") {
					if nw++; nw > 1 {
						return shardkey.Errorf(file, line, k, "a row has one weight (weight named twice, in another case)")
					}
				}
			}
			for k, raw := range m {
				if strings.EqualFold(k, "weight") {
					var err error
					if len(raw) > 0 && raw[0] == '"' {
						return shardkey.Errorf(file, line, k, "%s: a weight is a number, not a string", raw)
					}
					if w, err = parseWeight(string(raw)); err != nil {
						return shardkey.Errorf(file, line, k, "%v", err)
					}
				}
			}
			t.Weights = append(t.Weights, w)
		}
		t.Rows++
		return nil
	}
	for _, rc := range buf {
		if err := add(rc.m, rc.line); err != nil {
			return nil, err
		}
	}
	for {
		b, ok := lr.next()
		if !ok {
			break
		}
		m, err := decodeObject(b)
		if err != nil {
			return nil, shardkey.Errorf(file, lr.line, "", "%v", err)
		}
		if err := add(m, lr.line); err != nil {
			return nil, err
		}
	}
	return t, lr.err()
}

// Builder adds query and transaction samples to a workload, creating
// tables and columns for names it has not seen (when no row sample was
// given) and grouping query lines of one shape into one operation.
type Builder struct {
	W *shardkey.Workload
	O Options
	// Sink, when set, receives query instances and transactions as they
	// are read, on the parsing goroutines, instead of W keeping them; W
	// still gains the operations (name, table, kind, rate), without
	// instances. It applies only when every table of W has a row sample
	// (Frozen): otherwise lines may add tables and columns, and W keeps
	// them as usual.
	Sink   shardkey.Sink
	shapes map[string]*shardkey.Operation
	key    []byte
}

// NewBuilder returns a builder adding to w.
func NewBuilder(w *shardkey.Workload, o Options) *Builder {
	b := &Builder{W: w, O: o, shapes: map[string]*shardkey.Operation{}}
	for _, op := range w.Ops {
		if len(op.Instances) > 0 {
			b.shapes[string(appendShapeKey(nil, op.Table, op.Kind, "", op.Instances[0].Conds))] = op
		}
	}
	return b
}

// pickTable resolves the table of a line: its "table" field, else the only
// table, else the one table that has all the named columns.
func (b *Builder) pickTable(file string, jl *jline, cols []string) (int, error) {
	line := jl.line
	if jl.hasTbl {
		name := jl.table
		if name == "" {
			return 0, shardkey.Errorf(file, line, "table", "want a table name string")
		}
		if i := b.W.TableIndex(name); i >= 0 {
			return i, nil
		}
		if len(b.W.Tables) > 0 && b.W.Tables[0].Rows > 0 {
			return 0, shardkey.Errorf(file, line, "table", "no table %q (tables: %s)", name, strings.Join(names(b.W), ", "))
		}
		b.W.Tables = append(b.W.Tables, &shardkey.Table{Name: name})
		return len(b.W.Tables) - 1, nil
	}
	switch len(b.W.Tables) {
	case 0:
		b.W.Tables = append(b.W.Tables, &shardkey.Table{Name: "data"})
		return 0, nil
	case 1:
		return 0, nil
	}
	found := -1
	for i, t := range b.W.Tables {
		all := true
		for _, c := range cols {
			if t.Column(c) == nil {
				all = false
				break
			}
		}
		if all {
			if found >= 0 {
				return 0, shardkey.Errorf(file, line, "table", "columns %s are in tables %s and %s: say which with \"table\"", strings.Join(cols, ", "), b.W.Tables[found].Name, t.Name)
			}
			found = i
		}
	}
	if found < 0 {
		return 0, shardkey.Errorf(file, line, "table", "no table has columns %s (tables: %s)", strings.Join(cols, ", "), strings.Join(names(b.W), ", "))
	}
	return found, nil
}

func names(w *shardkey.Workload) []string {
	var n []string
	for _, t := range w.Tables {
		n = append(n, t.Name)
	}
	return n
}

// column returns the index of column name in table ti, creating it with the
// type the value suggests when the table has no rows (queries without a
// row sample).
func (b *Builder) column(file string, line int, ti int, name string, hint scalar) (int, error) {
	t := b.W.Tables[ti]
	if i := t.ColumnIndex(name); i >= 0 {
		return i, nil
	}
	if t.Rows > 0 {
		return 0, shardkey.Errorf(file, line, name, "table %s has no column %q (columns: %s)", t.Name, name, strings.Join(t.ColumnNames(), ", "))
	}
	typ, ok := b.O.typeOf(t.Name, name)
	if !ok {
		typ = inferJSONType(hint)
		if typ == shardkey.Null {
			typ = shardkey.Text
		}
	}
	return t.AddColumn(name, typ), nil
}

// resolve turns a parsed condition into a Cond on table ti.
func (b *Builder) resolve(file string, line, ti int, jc *jcond) (shardkey.Cond, error) {
	x := jc.x
	if x != nil && x.err != nil {
		return shardkey.Cond{}, shardkey.Errorf(file, line, x.errFld, "%v", x.err)
	}
	hint := scalar{null: true}
	switch {
	case jc.op == shardkey.Eq:
		hint = jc.one
	case x == nil:
	case len(x.vals) > 0:
		hint = x.vals[0]
	case x.bd.HasLo:
		hint = x.lo
	case x.bd.HasHi:
		hint = x.hi
	}
	ci, err := b.column(file, line, ti, jc.col, hint)
	if err != nil {
		return shardkey.Cond{}, err
	}
	typ := b.W.Tables[ti].Columns[ci].Type
	c := shardkey.Cond{Col: ci, Op: jc.op}
	switch jc.op {
	case shardkey.Eq:
		v, err := toValue(jc.one, typ)
		if err != nil {
			return shardkey.Cond{}, shardkey.Errorf(file, line, jc.col, "%v", err)
		}
		c.Val = v
	case shardkey.In:
		c.List = make([]shardkey.Value, len(x.vals))
		for k, s := range x.vals {
			v, err := toValue(s, typ)
			if err != nil {
				return shardkey.Cond{}, shardkey.Errorf(file, line, fmt.Sprintf("%s.in[%d]", jc.col, k), "%v", err)
			}
			c.List[k] = v
		}
	case shardkey.Range:
		bd := x.bd
		if bd.HasLo {
			if bd.Lo, err = toValue(x.lo, typ); err != nil {
				return shardkey.Cond{}, shardkey.Errorf(file, line, jc.col, "lower bound: %v", err)
			}
		}
		if bd.HasHi {
			if bd.Hi, err = toValue(x.hi, typ); err != nil {
				return shardkey.Cond{}, shardkey.Errorf(file, line, jc.col, "upper bound: %v", err)
			}
		}
		if bd.HasLo && bd.HasHi && !bd.Lo.IsNull() && !bd.Hi.IsNull() {
			if o := shardkey.Compare(bd.Lo, bd.Hi); o > 0 || o == 0 && !(bd.LoIncl && bd.HiIncl) {
				// Most likely the bounds swapped: an error, not a query
				// that asks no shard and makes any key look free.
				return shardkey.Cond{}, shardkey.Errorf(file, line, jc.col, "the range from %s to %s holds no value (bounds swapped?)", bd.Lo, bd.Hi)
			}
		}
		c.Bounds = &bd
	}
	return c, nil
}

func (b *Builder) resolveAll(file string, line, ti int, jcs []jcond) ([]shardkey.Cond, error) {
	return b.resolveInto(make([]shardkey.Cond, len(jcs)), file, line, ti, jcs)
}

// resolveInto resolves jcs into conds, which must be as long.
func (b *Builder) resolveInto(conds []shardkey.Cond, file string, line, ti int, jcs []jcond) ([]shardkey.Cond, error) {
	t := b.W.Tables[ti]
	for i := range jcs {
		jc := &jcs[i]
		if jc.op == shardkey.Eq && jc.x == nil && !jc.one.null {
			// The common case: an integer or a string equal to a value
			// of an existing column of its type.
			if ci := t.ColumnIndex(jc.col); ci >= 0 {
				switch typ := t.Columns[ci].Type; {
				case jc.one.isInt && typ == shardkey.Int64:
					conds[i] = shardkey.Cond{Col: ci, Op: shardkey.Eq, Val: shardkey.IntValue(jc.one.i)}
					continue
				case jc.one.isStr && typ == shardkey.Text:
					conds[i] = shardkey.Cond{Col: ci, Op: shardkey.Eq, Val: shardkey.TextValue(jc.one.str)}
					continue
				}
			}
		}
		c, err := b.resolve(file, line, ti, jc)
		if err != nil {
			return nil, err
		}
		conds[i] = c
	}
	return conds, nil
}

func condCols(jcs []jcond) []string {
	cols := make([]string, len(jcs))
	for i := range jcs {
		cols[i] = jcs[i].col
	}
	return cols
}

// inWrite names write i of a transaction in err's field ("customer_id" ->
// "writes[1].customer_id").
func inWrite(err error, i int) error {
	var ie *shardkey.InputError
	if errors.As(err, &ie) && !strings.HasPrefix(ie.Field, "writes") {
		c := *ie
		c.Field = fmt.Sprintf("writes[%d]", i)
		if ie.Field != "" {
			c.Field += "." + ie.Field
		}
		return &c
	}
	return err
}

// lineErr returns the error of a parsed line with its position.
func lineErr(file string, jl *jline, allowed ...string) error {
	if jl.err != nil {
		if fe, ok := jl.err.(fieldErr); ok {
			return shardkey.Errorf(file, jl.line, fe.field, "%s", fe.msg)
		}
		return shardkey.Errorf(file, jl.line, "", "%v", jl.err)
	}
	for _, f := range jl.fields {
		ok := false
		for _, a := range allowed {
			ok = ok || a == f
		}
		if !ok {
			return shardkey.Errorf(file, jl.line, f, "unknown field (want %s)", strings.Join(allowed, ", "))
		}
	}
	if jl.hasWt {
		if err := checkWeight(jl.weight); err != nil {
			return shardkey.Errorf(file, jl.line, "weight", "%v", err)
		}
	}
	return nil
}

// Frozen reports whether lines can only refer to W's existing tables and
// columns (every table has a row sample), so reading can stream into Sink.
func (b *Builder) Frozen() bool { return b.frozen() }

// frozen reports whether every table has a row sample: then no line can
// add a table or column, and resolving lines is read-only, so the parsing
// workers do it in parallel.
func (b *Builder) frozen() bool {
	if len(b.W.Tables) == 0 {
		return false
	}
	for _, t := range b.W.Tables {
		if t.Rows == 0 {
			return false
		}
	}
	return true
}

// parseResolved returns a line parser that also resolves each line's
// conditions when the tables are frozen.
func (b *Builder) parseResolved(file string, txns bool) func(p *lineParser, data []byte, line int) jline {
	frozen := b.frozen()
	return func(p *lineParser, data []byte, line int) jline {
		jl := scanLine(p, data, line, txns)
		if !frozen || jl.err != nil {
			return jl
		}
		jl.resolved = true
		if !txns {
			if !jl.hasWhr {
				return jl
			}
			if jl.ti, jl.rerr = b.pickTable(file, &jl, condCols(jl.where)); jl.rerr == nil {
				jl.conds, jl.rerr = b.resolveInto(p.takeConds(len(jl.where)), file, jl.line, jl.ti, jl.where)
			}
			return jl
		}
		jl.stmts = p.takeStmts(len(jl.writes))
		for i, wr := range jl.writes {
			var cols []string
			if len(b.W.Tables) > 1 && !jl.hasTbl {
				cols = condCols(wr) // only a choice between tables needs them
			}
			ti, err := b.pickTable(file, &jl, cols)
			if err != nil {
				jl.rerr = err
				return jl
			}
			conds, err := b.resolveInto(p.takeConds(len(wr)), file, jl.line, ti, wr)
			if err != nil {
				jl.rerr = inWrite(err, i)
				return jl
			}
			jl.stmts = append(jl.stmts, shardkey.Stmt{Table: ti, Kind: shardkey.Insert, Conds: conds})
		}
		return jl
	}
}

// ReadQueries reads a query sample file (see the package comment).
func (b *Builder) ReadQueries(file string) error {
	if b.Sink != nil && b.frozen() {
		return b.stream(file, false)
	}
	f, err := openInput(file)
	if err != nil {
		return err
	}
	defer f.Close()
	n := 0
	err = forEachLine(file, f, b.parseResolved(file, false), func(jl *jline) error {
		if err := lineErr(file, jl, queryFields...); err != nil {
			return err
		}
		if !jl.hasWhr {
			return shardkey.Errorf(file, jl.line, "where", `missing: want {"where": {"col": value}}`)
		}
		ti, conds, err := jl.ti, jl.conds, jl.rerr
		if !jl.resolved {
			if ti, err = b.pickTable(file, jl, condCols(jl.where)); err == nil {
				conds, err = b.resolveAll(file, jl.line, ti, jl.where)
			}
		}
		if err != nil {
			return err
		}
		kind := shardkey.Read
		if jl.kind != "" {
			if kind, err = shardkey.ParseKind(jl.kind); err != nil {
				return shardkey.Errorf(file, jl.line, "kind", "%v", err)
			}
		}
		if jl.latency != "" && jl.latency != "batch" && jl.latency != "interactive" {
			return shardkey.Errorf(file, jl.line, "latency", `want "interactive" or "batch"`)
		}
		b.addInstance(ti, kind, jl.name, jl.latency, conds, jl.weight)
		n++
		return nil
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return shardkey.Errorf(file, 1, "", "empty file: want one query per line")
	}
	return nil
}

// addInstance adds one instance to the operation of its shape.
func (b *Builder) addInstance(ti int, kind shardkey.Kind, name, latency string, conds []shardkey.Cond, w float64) {
	t := b.W.Tables[ti]
	b.key = appendShapeKey(b.key[:0], ti, kind, name, conds)
	op := b.shapes[string(b.key)]
	if op == nil {
		shape := ShapeName(t, kind, conds)
		if name == "" {
			name = shape
		}
		op = &shardkey.Operation{Name: name, Table: ti, Kind: kind, Latency: latency}
		b.shapes[string(b.key)] = op
		b.W.Ops = append(b.W.Ops, op)
	}
	op.Rate += w
	op.Instances = append(op.Instances, shardkey.Instance{Weight: w, Conds: conds})
}

// appendShapeKey encodes what makes two statements the same operation.
func appendShapeKey(b []byte, ti int, kind shardkey.Kind, name string, conds []shardkey.Cond) []byte {
	b = strconv.AppendInt(b, int64(ti), 10)
	b = append(b, byte('0'+kind), 0)
	b = append(b, name...)
	b = append(b, 0)
	if kind == shardkey.Insert {
		return b
	}
	for _, c := range conds {
		b = strconv.AppendInt(b, int64(c.Col), 10)
		b = append(b, byte('a'+c.Op), ',')
	}
	return b
}

// ShapeName describes a statement shape: "read orders where customer_id = ?
// and order_month in (?)".
func ShapeName(t *shardkey.Table, kind shardkey.Kind, conds []shardkey.Cond) string {
	var sb strings.Builder
	sb.WriteString(kind.String())
	sb.WriteString(" ")
	sb.WriteString(t.Name)
	if kind == shardkey.Insert {
		return sb.String()
	}
	if len(conds) == 0 {
		sb.WriteString(" (all rows)")
		return sb.String()
	}
	sb.WriteString(" where ")
	for i, c := range conds {
		if i > 0 {
			sb.WriteString(" and ")
		}
		sb.WriteString(t.Columns[c.Col].Name)
		switch c.Op {
		case shardkey.Eq:
			sb.WriteString(" = ?")
		case shardkey.In:
			sb.WriteString(" in (?)")
		case shardkey.Range:
			sb.WriteString(" in range")
		}
	}
	return sb.String()
}

// ReadTxns reads a transaction sample file (see the package comment).
func (b *Builder) ReadTxns(file string) error {
	if b.Sink != nil && b.frozen() {
		return b.stream(file, true)
	}
	f, err := openInput(file)
	if err != nil {
		return err
	}
	defer f.Close()
	n := 0
	err = forEachLine(file, f, b.parseResolved(file, true), func(jl *jline) error {
		if err := lineErr(file, jl, txnFields...); err != nil {
			return err
		}
		if !jl.hasWr {
			return shardkey.Errorf(file, jl.line, "writes", `missing: want {"writes": [{"col": value}, ...]}`)
		}
		if len(jl.writes) == 0 {
			return shardkey.Errorf(file, jl.line, "writes", "empty transaction")
		}
		if jl.resolved {
			if jl.rerr != nil {
				return jl.rerr
			}
			b.W.Txns = append(b.W.Txns, shardkey.Txn{Weight: jl.weight, Name: jl.name, Stmts: jl.stmts})
			n++
			return nil
		}
		tx := shardkey.Txn{Weight: jl.weight, Name: jl.name, Stmts: make([]shardkey.Stmt, 0, len(jl.writes))}
		for i, wr := range jl.writes {
			ti, err := b.pickTable(file, jl, condCols(wr))
			if err != nil {
				return err
			}
			conds, err := b.resolveAll(file, jl.line, ti, wr)
			if err != nil {
				return inWrite(err, i)
			}
			tx.Stmts = append(tx.Stmts, shardkey.Stmt{Table: ti, Kind: shardkey.Insert, Conds: conds})
		}
		b.W.Txns = append(b.W.Txns, tx)
		n++
		return nil
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return shardkey.Errorf(file, 1, "", "empty file: want one transaction per line")
	}
	return nil
}
