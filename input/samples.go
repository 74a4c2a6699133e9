package input

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
)

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
		var sets []shardkey.Cond
		if len(jl.set) > 0 {
			if kind != shardkey.Update {
				return shardkey.Errorf(file, jl.line, "set", `only an update ("kind": "update") sets values`)
			}
			if sets, err = b.resolveAll(file, jl.line, ti, jl.set); err != nil {
				return err
			}
		}
		b.addInstance(ti, kind, jl.name, jl.latency, conds, sets, jl.weight)
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
func (b *Builder) addInstance(ti int, kind shardkey.Kind, name, latency string, conds, sets []shardkey.Cond, w float64) {
	t := b.W.Tables[ti]
	b.key = appendShapeKey(b.key[:0], ti, kind, name, conds)
	op := b.shapes[string(b.key)]
	if op == nil {
		shape := shardkey.ShapeName(t, kind, conds)
		if name == "" {
			name = shape
		}
		op = &shardkey.Operation{Name: name, Table: ti, Kind: kind, Latency: latency}
		b.shapes[string(b.key)] = op
		b.W.Ops = append(b.W.Ops, op)
	}
	op.Rate += w
	op.Instances = append(op.Instances, shardkey.Instance{Weight: w, Conds: conds, Sets: sets})
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
