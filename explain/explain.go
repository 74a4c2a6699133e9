// Package explain routes one SQL statement under a sharding design as the
// engines' routers do, and says why: the shards it touches (0-based), the
// route kind (single, multi, scatter, none, any_shard), the reason, and,
// for an UPDATE that assigns a key column, where the row moves. The rules
// are sim.Scheme.ExplainStatement's (docs/own-database.md, section 4).
package explain

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
	"github.com/shardkey/shardkey/sqllog"
)

// Options configure Statement.
type Options struct {
	// Sim is the shard count, engine and workers the design is compiled
	// with.
	Sim sim.Options
	// Types fixes column types by name or TABLE.COLUMN.
	Types map[string]shardkey.Type
	// Inputs says the workload holds the user's tables (read from their
	// inputs); without them it holds only what the statement shows, and
	// the design's key columns are added to its tables.
	Inputs bool
	// Schema is the --schema file w's catalog was read from ("" for
	// none). A table the statement touches that it does not declare, and
	// that no other input has, is an error naming the table and the file:
	// routed from the statement's columns alone, its verdict (one shard,
	// say) would rest on a table the schema says does not exist.
	Schema string
}

// KeyError is a design that cannot be compiled against the statement's
// tables (a column no table has, a key the engine cannot place).
type KeyError struct{ Err error }

func (e *KeyError) Error() string { return e.Err.Error() }
func (e *KeyError) Unwrap() error { return e.Err }

// Statement routes st under design on w (which it may extend with the
// statement's tables and the key's columns) and returns the route, with
// the statement's warnings in Route.Warnings, and the compiled scheme
// (its Warnings those of the design that concern the statement: a
// table's lookup warnings, sim.LookupWarning, only for a statement of
// that table).
// A design that does not compile is a *KeyError.
func Statement(st *sqllog.Statement, w *shardkey.Workload, design *shardkey.Design, o Options) (sim.Route, *sim.Scheme, error) {
	types, opts := o.Types, o.Sim
	bare := func() *shardkey.Workload { return &shardkey.Workload{Name: w.Name, Seed: w.Seed, Shards: w.Shards} }
	var fresh *shardkey.Workload
	if !o.Inputs {
		fresh = bare()
	}
	known := len(w.Tables)
	accs, err := st.Bind(w, types)
	if err != nil {
		return sim.Route{}, nil, fmt.Errorf("%s statement: %w", st.Dialect, err)
	}
	if o.Schema != "" && w.Catalog != nil {
		var missing []string
		for _, a := range accs {
			name := w.Tables[a.Table].Name
			if (a.Table >= known || !o.Inputs) && w.Catalog.Table(name) == nil && !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			var declared []string
			for _, t := range w.Catalog.Tables {
				declared = append(declared, t.Name)
			}
			what := "table " + missing[0] + " is"
			if len(missing) > 1 {
				what = "tables " + strings.Join(missing, ", ") + " are"
			}
			return sim.Route{}, nil, fmt.Errorf("%s not in --schema %s (it declares %s)%s: check the name, or add its CREATE TABLE to the schema",
				what, o.Schema, listTables(declared), inputsNote(o.Inputs))
		}
	}
	var unknown []string
	var inputsHave string
	if o.Inputs {
		// A table none of the inputs has: its columns and types are the
		// statement's own guess, and it holds no rows (a misspelt name,
		// or an input that is not the application's).
		for _, t := range w.Tables[known:] {
			unknown = append(unknown, t.Name)
		}
		var have []string
		for _, t := range w.Tables[:known] {
			have = append(have, t.Name)
		}
		inputsHave = listTables(have)
	}
	if st.Dialect == sqllog.MySQL {
		foldKeyColumns(design, w)
	}
	if !o.Inputs {
		addSetColumns(w, design, types, st.SQL, st.Dialect)
		addKeyColumns(w, design, accs[0].Table)
	}
	scheme, err := sim.Compile(w, design, opts)
	if err != nil && fresh != nil && errors.Is(err, partition.ErrNoDestination) && retypeKeys(types, design) {
		// The statement's values typed a key column as the engine cannot
		// place it (id = 'abc' under Vitess's hash vindex, whose domain is
		// integers): read the key columns as integers, the engine's
		// domain, so that such a value matches no row and other values
		// still route, as the engine does.
		w = fresh
		st.Warnings = nil
		if accs, err = st.Bind(w, types); err != nil {
			return sim.Route{}, nil, fmt.Errorf("%s statement: %w", st.Dialect, err)
		}
		addKeyColumns(w, design, accs[0].Table)
		scheme, err = sim.Compile(w, design, opts)
	}
	if err != nil {
		return sim.Route{}, nil, &KeyError{err}
	}
	updateSets(accs, w, st.SQL, st.Dialect)
	rt, err := scheme.ExplainStatement(accs)
	if err != nil {
		return sim.Route{}, nil, err
	}
	// A warning about one table's lookup concerns only statements of
	// that table: a statement of another shows none.
	touched := map[string]bool{}
	for _, a := range accs {
		touched[w.Tables[a.Table].Name] = true
	}
	scheme.Warnings = slices.DeleteFunc(slices.Clone(scheme.Warnings), func(e error) bool {
		var lw *sim.LookupWarning
		return errors.As(e, &lw) && !touched[lw.Table]
	})
	if err := movedRows(&rt, scheme, w, design, accs, st.SQL, st.Dialect); err != nil {
		return sim.Route{}, nil, err
	}
	for _, wn := range st.Warnings {
		msg := wn.Error()
		hashKeyed := false // the value dropped is of a table the hash vindex places
		for _, a := range accs {
			hashKeyed = hashKeyed || scheme.KeyEngine(a.Table) == "vitess" && strings.Contains(msg, "(the first, "+w.Tables[a.Table].Name+".")
		}
		if hashKeyed && strings.Contains(msg, "do not convert to their column's type") {
			// Vitess's hash vindex takes a signed integer by its 64-bit
			// pattern and casts anything else to an unsigned 64-bit
			// integer; a value that does not cast maps to no keyspace
			// id (Hash.Map, Hash.Hash in go/vt/vtgate/vindexes/hash.go).
			msg = strings.Replace(msg, " is not an int64)", " is not a 64-bit integer)", 1) +
				" (Vitess's hash vindex maps unsigned 64-bit integers, 0 to 18446744073709551615, and a negative one by its 64-bit pattern; a larger number, or a text that is not such a number, maps to no shard: Hash.Map in go/vt/vtgate/vindexes/hash.go)"
		}
		rt.Warnings = append(rt.Warnings, msg)
	}
	for _, a := range accs {
		names, ok := scheme.VindexNamesOf(a.Table)
		if !ok {
			continue
		}
		for _, h := range append(append([]string(nil), a.UseVindex...), a.IgnoreVindex...) {
			if !slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, h) }) {
				// Vitess checks every hinted name against the table's
				// column vindexes when it plans the statement
				// (checkValidVindexHints, go/vt/vtgate/semantics/
				// table_collector.go) and refuses an unknown one.
				rt.Warnings = append(rt.Warnings, fmt.Sprintf("%s: Vitess refuses the statement: Vindex '%s' does not exist in table '%s' (VT09021; the table's vindexes: %s); the route shown applies the hint as written", w.Tables[a.Table].Name, h, w.Tables[a.Table].Name, strings.Join(names, ", ")))
			}
		}
	}
	for _, tn := range st.MultipleVindexHints() {
		// Vitess refuses a table with two vindex hints before it routes
		// anything (checkAliasedTableExpr, go/vt/vtgate/semantics/
		// check_invalid.go).
		rt.Warnings = append(rt.Warnings, fmt.Sprintf("%s: Vitess refuses the statement: can not use multiple vindex hints for table %s (VT09020); the route shown applies every hint as written", tn, tn))
	}
	if len(unknown) > 0 {
		what := "table " + unknown[0] + " is"
		if len(unknown) > 1 {
			what = "tables " + strings.Join(unknown, ", ") + " are"
		}
		rt.Warnings = append(rt.Warnings, fmt.Sprintf("%s not in the workload %s (its tables: %s): routed with the columns and types the statement shows, holding no rows (check the name, or give the input that has them)", what, w.Name, inputsHave))
	}
	return rt, scheme, nil
}

// JoinInts writes shard numbers as "0, 3, 5".
func JoinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

// addKeyColumns gives the statement's tables the key columns the
// statement does not name (with no inputs, the tables are only what the
// statement shows): a bare key goes to the first table when no table has
// all its columns, a TABLE:KEY to its table (created when the statement
// does not touch it). The added columns hold no
// values, so a statement that leaves them out scatters, as it would.
func addKeyColumns(w *shardkey.Workload, d *shardkey.Design, first int) {
	add := func(t *shardkey.Table, cols []string) {
		for _, c := range cols {
			if t.Column(c) == nil && !slices.ContainsFunc(t.ColumnNames(), func(n string) bool { return strings.EqualFold(n, c) }) {
				// (A column the statement names in another case is not
				// added: the key then fails to compile, naming the
				// statement's columns, instead of silently scattering.)
				t.AddColumn(c, shardkey.Int64)
			}
		}
	}
	for _, name := range d.Order {
		e, ok := d.Tables[name]
		if !ok {
			continue
		}
		t := w.Table(name)
		if t == nil { // a table of the design the statement does not touch
			t = &shardkey.Table{Name: name}
			w.Tables = append(w.Tables, t)
		}
		add(t, e.Columns())
		for _, l := range d.Lookups[name] { // lookup(col)'s column, likewise
			add(t, []string{l.Col})
		}
	}
	if d.Default == nil {
		return
	}
	cols := d.Default.Columns()
	if w.Catalog != nil {
		// A table the schema (--schema) declares with every key column
		// is sharded by them, as score shards it, whether or not the
		// statement names them: a join that binds them on another table
		// only scatters to this one's shards.
		for _, t := range w.Tables {
			ti := w.Catalog.Table(t.Name)
			if ti == nil {
				continue
			}
			all := true
			for _, c := range cols {
				all = all && slices.ContainsFunc(ti.Columns, func(ci *shardkey.ColumnInfo) bool { return strings.EqualFold(ci.Name, c) })
			}
			if all {
				add(t, cols)
			}
		}
	}
	for _, t := range w.Tables {
		all := true
		for _, c := range cols {
			all = all && t.Column(c) != nil
		}
		if all {
			return
		}
	}
	add(w.Tables[first], cols)
}

// foldKeyColumns renames the design's key and lookup columns to the workload's
// columns of the same name in another case: MySQL's column names are
// case-insensitive (a VSchema's "Id" is the statement's id).
func foldKeyColumns(d *shardkey.Design, w *shardkey.Workload) {
	fold := func(c string) string {
		for _, t := range w.Tables {
			if t.Column(c) != nil {
				return c
			}
		}
		for _, t := range w.Tables {
			for _, tc := range t.Columns {
				if strings.EqualFold(tc.Name, c) {
					return tc.Name
				}
			}
		}
		return c
	}
	var walk func(e shardkey.Expr)
	walk = func(e shardkey.Expr) {
		switch x := e.(type) {
		case *shardkey.HashExpr:
			for i := range x.Cols {
				x.Cols[i] = fold(x.Cols[i])
			}
		case *shardkey.RangeExpr:
			for i := range x.Cols {
				x.Cols[i] = fold(x.Cols[i])
			}
			if x.Hashed != "" {
				x.Hashed = fold(x.Hashed)
			}
		case *shardkey.SaltExpr:
			walk(x.Inner)
		case *shardkey.IsolateExpr:
			walk(x.Inner)
		case *shardkey.DirectoryExpr:
			x.Col = fold(x.Col)
		}
	}
	if d.Default != nil {
		walk(d.Default)
	}
	for _, e := range d.Tables {
		walk(e)
	}
	for _, ls := range d.Lookups { // lookup(col)'s column, likewise
		for i := range ls {
			ls[i].Col = fold(ls[i].Col)
		}
	}
}

// retypeKeys types as int64 the design's key columns that types does not
// name, reporting whether it typed any.
func retypeKeys(types map[string]shardkey.Type, d *shardkey.Design) bool {
	changed := false
	var exprs []shardkey.Expr
	if d.Default != nil {
		exprs = append(exprs, d.Default)
	}
	for _, name := range d.Order {
		exprs = append(exprs, d.Tables[name])
	}
	for _, e := range exprs {
		if vt := shardkey.KeyVindex(e); vt != "" && !shardkey.VindexIntegers(vt) {
			// Placed by its own vindex, which maps any value (a
			// VSchema's unicode_loose_md5 on a text column): the
			// statement's types stand.
			continue
		}
		for _, c := range e.Columns() {
			if _, ok := types[c]; !ok {
				types[c] = shardkey.Int64
				changed = true
			}
		}
	}
	return changed
}

// addSetColumns adds to w's tables the design's lookup columns that an
// UPDATE in sql assigns and the table does not have yet, typed by types
// (table.column, then column) or else by the literal assigned, as a log
// reader types a column by its values (shardkey.InferType): the new
// value's lookup shard is then where score puts it, not unknown for
// want of a type (addKeyColumns would type the column int64).
func addSetColumns(w *shardkey.Workload, d *shardkey.Design, types map[string]shardkey.Type, sql string, dialect sqllog.Dialect) {
	sets, err := sqllog.UpdateSets(sql, dialect)
	if err != nil {
		return
	}
	for _, t := range w.Tables {
		set := sets[strings.ToLower(t.Name)]
		if len(set) == 0 {
			continue
		}
		for _, lk := range d.LookupsFor(t.Name, func(string) bool { return true }) {
			v, ok := set[strings.ToLower(lk.Col)]
			if !ok || !v.Known || slices.ContainsFunc(t.ColumnNames(), func(n string) bool { return strings.EqualFold(n, lk.Col) }) {
				continue
			}
			typ, ok := types[t.Name+"."+lk.Col]
			if !ok {
				typ, ok = types[lk.Col]
			}
			if !ok {
				typ = shardkey.InferType([]string{v.Text})
			}
			t.AddColumn(lk.Col, typ)
		}
	}
}

// updateSets fills the Sets of accs, the accesses of an UPDATE, from
// its SET clause (sqllog.UpdateSets): each assigned column the table has
// (the workload's, the statement's or the design's key and lookup
// columns) with its new value when the statement gives it as a literal of
// the column's type, else a value known only at run time. sim routes an
// UPDATE that assigns an owned lookup's column with the lookup's rows
// rewritten, as score does (sim, updateLookups).
func updateSets(accs []sqllog.Access, w *shardkey.Workload, sql string, dialect sqllog.Dialect) {
	sets, err := sqllog.UpdateSets(sql, dialect)
	if err != nil || len(sets) == 0 {
		return
	}
	for i := range accs {
		a := &accs[i]
		if a.Kind != shardkey.Update {
			continue
		}
		t := w.Tables[a.Table]
		set := sets[strings.ToLower(t.Name)]
		for ci, c := range t.Columns {
			v, ok := set[strings.ToLower(c.Name)]
			if !ok {
				continue
			}
			cd := shardkey.Cond{Col: ci, Op: shardkey.Eq, Fresh: shardkey.FreshUnique}
			if v.Null {
				cd = shardkey.Cond{Col: ci, Op: shardkey.Eq, Val: shardkey.Value{Type: shardkey.Null}}
			}
			if v.Known {
				if val, err := shardkey.ParseValue(v.Text, c.Type); err == nil {
					cd = shardkey.Cond{Col: ci, Op: shardkey.Eq, Val: val}
				}
			}
			a.Sets = append(a.Sets, cd)
		}
	}
}

// movedRows adds to rt what an UPDATE that assigns a key column does: the
// row leaves its shard for the new value's shard, a delete there and an
// insert here (a cross-shard move, unless both land on one shard).
func movedRows(rt *sim.Route, s *sim.Scheme, w *shardkey.Workload, d *shardkey.Design, accs []sqllog.Access, sql string, dialect sqllog.Dialect) error {
	sets, err := sqllog.UpdateSets(sql, dialect)
	if err != nil || len(sets) == 0 {
		return nil // the statement parsed already; no SET to read
	}
	for _, a := range accs {
		if a.Kind != shardkey.Update {
			continue
		}
		t := w.Tables[a.Table]
		set := sets[strings.ToLower(t.Name)]
		e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
		if e == nil || len(set) == 0 {
			continue
		}
		var changed []string
		conds := map[int]shardkey.Cond{}
		for _, c := range a.Conds {
			if c.Op == shardkey.Eq {
				conds[c.Col] = c
			}
		}
		known := true
		for _, col := range e.Columns() {
			v, ok := set[strings.ToLower(col)]
			if !ok {
				continue
			}
			changed = append(changed, col)
			ci := t.ColumnIndex(col)
			if !v.Known || ci < 0 {
				known = false
				continue
			}
			val, err := shardkey.ParseValue(v.Text, t.Columns[ci].Type)
			if err != nil {
				return fmt.Errorf("SET %s = %s: %w", col, v.Text, err)
			}
			conds[ci] = shardkey.Cond{Col: ci, Op: shardkey.Eq, Val: val}
		}
		if len(changed) == 0 {
			continue
		}
		if strings.HasPrefix(s.Engine.Name(), "vitess") {
			// Vitess refuses to change a primary vindex column when it
			// plans the UPDATE (buildChangedVindexesValues,
			// go/vt/vtgate/planbuilder/operators/update.go): no row
			// moves; the statement is routed as its WHERE routes.
			vt := "VT12001: unsupported: you cannot UPDATE primary vindex columns"
			if name := s.KeyVindexName(a.Table); name != "" {
				vt += "; invalid update on vindex: " + name
			}
			msg := fmt.Sprintf("SET changes the key column %s, the primary vindex's: Vitess refuses the statement when it plans it (%s), so no row moves; routed here as its WHERE routes", strings.Join(changed, ", "), vt)
			rt.Reason += "; " + msg
			rt.Warnings = append(rt.Warnings, "UPDATE "+t.Name+": "+msg)
			continue
		}
		if !known {
			rt.Reason += fmt.Sprintf("; SET changes the key column %s to a value known only at run time: the row may move to another shard (a delete here and an insert there)", strings.Join(changed, ", "))
			continue
		}
		var cs []shardkey.Cond
		for _, c := range conds {
			cs = append(cs, c)
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].Col < cs[j].Col })
		to, err := s.Explain(a.Table, shardkey.Insert, cs)
		if err != nil {
			return err
		}
		moved := false
		for _, sh := range to.Shards {
			if !slices.Contains(rt.Shards, sh) {
				rt.Shards = append(rt.Shards, sh)
				moved = true
			}
		}
		sort.Ints(rt.Shards)
		if moved {
			rt.Reason += fmt.Sprintf("; SET changes the key column %s, so the row moves to shard %s: a delete on its old shard and an insert on the new one, a cross-shard write", strings.Join(changed, ", "), JoinInts(to.Shards))
		} else {
			rt.Reason += fmt.Sprintf("; SET changes the key column %s, but the new value lands on the same shard", strings.Join(changed, ", "))
		}
	}
	return nil
}

// listTables names tables for a message: all of them up to 10, else the
// first 10 and how many more; "no table" for none.
func listTables(names []string) string {
	switch {
	case len(names) == 0:
		return "no table"
	case len(names) > 10:
		return fmt.Sprintf("%s and %d more", strings.Join(names[:10], ", "), len(names)-10)
	}
	return strings.Join(names, ", ")
}

// inputsNote says, when other inputs were given, that they lack the
// table too.
func inputsNote(inputs bool) string {
	if inputs {
		return " nor in the other inputs"
	}
	return ""
}
