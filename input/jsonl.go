package input

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
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
		b := bytes.TrimSpace(lr.sc.Bytes())
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
	case strings.ContainsAny(s.num, ".eE"):
		return shardkey.Float64
	}
	return shardkey.Int64
}

// toValue converts a scalar to type t.
func toValue(s scalar, t shardkey.Type) (shardkey.Value, error) {
	switch {
	case s.null:
		return shardkey.Value{}, nil
	case s.isStr:
		return shardkey.ParseValue(s.str, t)
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
			typ = shardkey.Null
			for _, rc := range buf {
				raw, ok := rc.m[n]
				if !ok {
					continue
				}
				s, err := parseScalar(raw)
				if err != nil {
					return nil, shardkey.Errorf(file, rc.line, n, "%v", err)
				}
				st := inferJSONType(s)
				switch {
				case st == shardkey.Null:
				case typ == shardkey.Null:
					typ = st
				case typ == shardkey.Int64 && st == shardkey.Float64, typ == shardkey.Float64 && st == shardkey.Int64:
					typ = shardkey.Float64
				case typ != st:
					typ = shardkey.Text
				}
			}
			if typ == shardkey.Null {
				typ = shardkey.Text
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
			for k, raw := range m {
				if strings.EqualFold(k, "weight") {
					var err error
					if w, err = strconv.ParseFloat(string(bytes.TrimSpace(raw)), 64); err != nil {
						return shardkey.Errorf(file, line, k, "%s is not a number", raw)
					}
				}
			}
			if err := checkWeight(w); err != nil {
				return shardkey.Errorf(file, line, "weight", "%v", err)
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
	W      *shardkey.Workload
	O      Options
	shapes map[string]*shardkey.Operation
	fresh  int32
}

// NewBuilder returns a builder adding to w.
func NewBuilder(w *shardkey.Workload, o Options) *Builder {
	b := &Builder{W: w, O: o, shapes: map[string]*shardkey.Operation{}}
	for _, op := range w.Ops {
		b.shapes[op.Name] = op
	}
	return b
}

// pickTable resolves the table of a line: its "table" field, else the only
// table, else the one table that has all the named columns.
func (b *Builder) pickTable(file string, line int, m map[string]json.RawMessage, cols []string) (int, error) {
	if raw, ok := m["table"]; ok {
		var name string
		if err := json.Unmarshal(raw, &name); err != nil || name == "" {
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

// cond parses one "col": value of a where clause.
func (b *Builder) cond(file string, line, ti int, col string, raw json.RawMessage) (shardkey.Cond, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		return shardkey.Cond{}, shardkey.Errorf(file, line, col, `a list is ambiguous: write {"in": [...]}`)
	}
	if len(raw) > 0 && raw[0] == '{' {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return shardkey.Cond{}, shardkey.Errorf(file, line, col, "%v", jsonErr(err))
		}
		if len(m) == 0 {
			return shardkey.Cond{}, shardkey.Errorf(file, line, col, `empty condition: want a value, {"in": [...]} or {"gte": a, "lt": b}`)
		}
		if lst, ok := m["in"]; ok {
			if len(m) != 1 {
				return shardkey.Cond{}, shardkey.Errorf(file, line, col, `"in" cannot be combined with other comparisons`)
			}
			var items []json.RawMessage
			if err := json.Unmarshal(lst, &items); err != nil {
				return shardkey.Cond{}, shardkey.Errorf(file, line, col+".in", "want a JSON list: %v", err)
			}
			c := shardkey.Cond{Op: shardkey.In}
			for k, it := range items {
				s, err := parseScalar(it)
				if err != nil {
					return shardkey.Cond{}, shardkey.Errorf(file, line, fmt.Sprintf("%s.in[%d]", col, k), "%v", err)
				}
				ci, err := b.column(file, line, ti, col, s)
				if err != nil {
					return shardkey.Cond{}, err
				}
				c.Col = ci
				v, err := toValue(s, b.W.Tables[ti].Columns[ci].Type)
				if err != nil {
					return shardkey.Cond{}, shardkey.Errorf(file, line, fmt.Sprintf("%s.in[%d]", col, k), "%v", err)
				}
				c.List = append(c.List, v)
			}
			if len(items) == 0 {
				ci, err := b.column(file, line, ti, col, scalar{null: true})
				if err != nil {
					return shardkey.Cond{}, err
				}
				c.Col = ci
			}
			return c, nil
		}
		if eq, ok := m["eq"]; ok && len(m) == 1 {
			return b.cond(file, line, ti, col, eq)
		}
		bd := &shardkey.Bounds{}
		c := shardkey.Cond{Op: shardkey.Range, Bounds: bd}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			s, err := parseScalar(m[k])
			if err != nil {
				return shardkey.Cond{}, shardkey.Errorf(file, line, col+"."+k, "%v", err)
			}
			ci, err := b.column(file, line, ti, col, s)
			if err != nil {
				return shardkey.Cond{}, err
			}
			c.Col = ci
			v, err := toValue(s, b.W.Tables[ti].Columns[ci].Type)
			if err != nil {
				return shardkey.Cond{}, shardkey.Errorf(file, line, col+"."+k, "%v", err)
			}
			switch k {
			case "gte", "gt":
				if bd.HasLo {
					return shardkey.Cond{}, shardkey.Errorf(file, line, col, "two lower bounds")
				}
				bd.Lo, bd.HasLo, bd.LoIncl = v, true, k == "gte"
			case "lte", "lt":
				if bd.HasHi {
					return shardkey.Cond{}, shardkey.Errorf(file, line, col, "two upper bounds")
				}
				bd.Hi, bd.HasHi, bd.HiIncl = v, true, k == "lte"
			default:
				return shardkey.Cond{}, shardkey.Errorf(file, line, col+"."+k, `unknown comparison %q (want in, eq, gte, gt, lte, lt)`, k)
			}
		}
		return c, nil
	}
	s, err := parseScalar(raw)
	if err != nil {
		return shardkey.Cond{}, shardkey.Errorf(file, line, col, "%v", err)
	}
	ci, err := b.column(file, line, ti, col, s)
	if err != nil {
		return shardkey.Cond{}, err
	}
	v, err := toValue(s, b.W.Tables[ti].Columns[ci].Type)
	if err != nil {
		return shardkey.Cond{}, shardkey.Errorf(file, line, col, "%v", err)
	}
	return shardkey.Cond{Col: ci, Op: shardkey.Eq, Val: v}, nil
}

// where parses a where object into conditions on table ti (sorted by column).
func (b *Builder) where(file string, line, ti int, raw json.RawMessage, field string) ([]shardkey.Cond, error) {
	m, err := decodeObject(bytes.TrimSpace(raw))
	if err != nil {
		return nil, shardkey.Errorf(file, line, field, "%v", err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	conds := make([]shardkey.Cond, 0, len(keys))
	for _, k := range keys {
		c, err := b.cond(file, line, ti, k, m[k])
		if err != nil {
			return nil, err
		}
		conds = append(conds, c)
	}
	return conds, nil
}

func whereCols(raw json.RawMessage) []string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	var cols []string
	for k := range m {
		cols = append(cols, k)
	}
	sort.Strings(cols)
	return cols
}

// ReadQueries reads a query sample file (see the package comment).
func (b *Builder) ReadQueries(file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	lr := newLineReader(f, file)
	n := 0
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		m, err := decodeObject(line)
		if err != nil {
			return shardkey.Errorf(file, lr.line, "", "%v", err)
		}
		for k := range m {
			switch k {
			case "where", "weight", "table", "kind", "name", "latency":
			default:
				return shardkey.Errorf(file, lr.line, k, `unknown field (want where, weight, table, kind, name, latency)`)
			}
		}
		raw, ok := m["where"]
		if !ok {
			return shardkey.Errorf(file, lr.line, "where", `missing: want {"where": {"col": value}}`)
		}
		ti, err := b.pickTable(file, lr.line, m, whereCols(raw))
		if err != nil {
			return err
		}
		conds, err := b.where(file, lr.line, ti, raw, "where")
		if err != nil {
			return err
		}
		w, err := weightField(file, lr.line, m)
		if err != nil {
			return err
		}
		kind := shardkey.Read
		if raw, ok := m["kind"]; ok {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return shardkey.Errorf(file, lr.line, "kind", "want a string")
			}
			if kind, err = shardkey.ParseKind(s); err != nil {
				return shardkey.Errorf(file, lr.line, "kind", "%v", err)
			}
		}
		name := ""
		if raw, ok := m["name"]; ok {
			if err := json.Unmarshal(raw, &name); err != nil {
				return shardkey.Errorf(file, lr.line, "name", "want a string")
			}
		}
		latency := ""
		if raw, ok := m["latency"]; ok {
			if err := json.Unmarshal(raw, &latency); err != nil || (latency != "batch" && latency != "interactive") {
				return shardkey.Errorf(file, lr.line, "latency", `want "interactive" or "batch"`)
			}
		}
		b.addInstance(ti, kind, name, latency, conds, w)
		n++
	}
	if err := lr.err(); err != nil {
		return err
	}
	if n == 0 {
		return shardkey.Errorf(file, 1, "", "empty file: want one query per line")
	}
	return nil
}

func weightField(file string, line int, m map[string]json.RawMessage) (float64, error) {
	raw, ok := m["weight"]
	if !ok {
		return 1, nil
	}
	w, err := strconv.ParseFloat(string(bytes.TrimSpace(raw)), 64)
	if err != nil {
		return 0, shardkey.Errorf(file, line, "weight", "%s is not a number", raw)
	}
	if err := checkWeight(w); err != nil {
		return 0, shardkey.Errorf(file, line, "weight", "%v", err)
	}
	return w, nil
}

// addInstance adds one instance to the operation of its shape.
func (b *Builder) addInstance(ti int, kind shardkey.Kind, name, latency string, conds []shardkey.Cond, w float64) {
	t := b.W.Tables[ti]
	shape := ShapeName(t, kind, conds)
	if name == "" {
		name = shape
	}
	key := name + "\x00" + shape
	op := b.shapes[key]
	if op == nil {
		op = &shardkey.Operation{Name: name, Table: ti, Kind: kind, Latency: latency}
		b.shapes[key] = op
		b.W.Ops = append(b.W.Ops, op)
	}
	op.Rate += w
	op.Instances = append(op.Instances, shardkey.Instance{Weight: w, Conds: conds})
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
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	lr := newLineReader(f, file)
	n := 0
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		m, err := decodeObject(line)
		if err != nil {
			return shardkey.Errorf(file, lr.line, "", "%v", err)
		}
		for k := range m {
			switch k {
			case "writes", "weight", "table", "name":
			default:
				return shardkey.Errorf(file, lr.line, k, `unknown field (want writes, weight, table, name)`)
			}
		}
		raw, ok := m["writes"]
		if !ok {
			return shardkey.Errorf(file, lr.line, "writes", `missing: want {"writes": [{"col": value}, ...]}`)
		}
		var writes []json.RawMessage
		if err := json.Unmarshal(raw, &writes); err != nil {
			return shardkey.Errorf(file, lr.line, "writes", "want a list of objects: %v", jsonErr(err))
		}
		if len(writes) == 0 {
			return shardkey.Errorf(file, lr.line, "writes", "empty transaction")
		}
		w, err := weightField(file, lr.line, m)
		if err != nil {
			return err
		}
		tx := shardkey.Txn{Weight: w}
		if raw, ok := m["name"]; ok {
			_ = json.Unmarshal(raw, &tx.Name)
		}
		for k, wr := range writes {
			field := fmt.Sprintf("writes[%d]", k)
			ti, err := b.pickTable(file, lr.line, m, whereCols(wr))
			if err != nil {
				return err
			}
			conds, err := b.where(file, lr.line, ti, wr, field)
			if err != nil {
				return err
			}
			tx.Stmts = append(tx.Stmts, shardkey.Stmt{Table: ti, Kind: shardkey.Insert, Conds: conds})
		}
		b.W.Txns = append(b.W.Txns, tx)
		n++
	}
	if err := lr.err(); err != nil {
		return err
	}
	if n == 0 {
		return shardkey.Errorf(file, 1, "", "empty file: want one transaction per line")
	}
	return nil
}
