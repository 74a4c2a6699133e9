package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shardkey/shardkey/internal/buildinfo"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
	"github.com/shardkey/shardkey/sqllog"
)

func runExplain(e *env, args []string) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var c common
	c.register(fs, true)
	fs.Lookup("format").Usage = "output `format`: table or json"
	dialect := fs.String("dialect", "", "SQL `dialect`: mysql or postgresql (default: detected from the statement)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: shardkey explain [inputs] -k KEY [--dialect mysql|postgresql] "SQL"

Shows which shards one statement touches under KEY, and why, in the manner
of vtexplain. Inputs (--workload, --rows, --log, ...) give the tables, their
columns and types, and the row sample that range and isolate keys need;
without inputs the statement's own tables and columns are used.

--format json prints {"shards": [0-based indices], "scatter": bool,
"reason": "...", "route": "single|multi|scatter|none|any_shard"} (and
"any_shard": true, "warnings": [...] when they apply). A statement
touching several tables (a join, a subquery, UNION arms) or rows (a
multi-row INSERT) lists the union of their shards. The routing rules
(boolean structure, statements matching no row, pushdown, joins, hints)
and the engine sources they follow are in docs/own-database.md, section 4.

Examples:
  shardkey explain -k 'hash(user_id)' "SELECT * FROM posts WHERE user_id = 42"
  shardkey explain -k 'hash(user_id)' --shards 16 --format json \
      "SELECT * FROM posts WHERE user_id IN (1, 2, 3)"
  shardkey explain --workload social.yaml -k 'posts:hash(user_id); users:replicate' \
      "SELECT p.* FROM posts p JOIN users u ON u.id = p.user_id WHERE p.user_id = 7"

Flags:
`)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	c.formats = []string{"table", "json"}
	if err := c.validate(fs); err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErr("give the SQL statement to explain, e.g. shardkey explain -k 'hash(user_id)' \"SELECT * FROM posts WHERE user_id = 42\"")
	}
	if len(pos) > 1 {
		return usageErr("give the statement as one argument, quoted (got %d arguments): shardkey explain -k KEY \"SELECT ...\"", len(pos))
	}
	sql := pos[0]
	if len(c.keys) != 1 {
		return usageErr("give one key with -k (got %d)", len(c.keys))
	}
	d, err := sqllog.ParseDialect(*dialect)
	if err != nil {
		return usageErr("--dialect: %v", err)
	}
	st, err := sqllog.ParseStatement(sql, d)
	if err != nil {
		return fmt.Errorf("parsing the statement: %w", err)
	}
	types, err := columnTypes(c.colTypes)
	if err != nil {
		return err
	}
	var w *shardkey.Workload
	var opts sim.Options
	if c.hasInputs() {
		l, err := c.load(e, nil)
		if err != nil {
			return err
		}
		w, opts = l.w, l.opts
	} else {
		w = &shardkey.Workload{Name: "the statement", Seed: c.seed, Shards: c.shards}
		if w.Shards == 0 {
			w.Shards = 8
		}
		eng, err := partition.Lookup(c.engine)
		if err != nil {
			return usageErr("--engine: %v", err)
		}
		opts = sim.Options{Shards: w.Shards, Engine: eng, Workers: c.workers}
	}
	design, err := shardkey.ParseDesign(c.keys[0])
	if err != nil {
		return usageErr("-k: %v", err)
	}
	bare := func() *shardkey.Workload { return &shardkey.Workload{Name: w.Name, Seed: w.Seed, Shards: w.Shards} }
	var fresh *shardkey.Workload
	if !c.hasInputs() {
		fresh = bare()
	}
	accs, err := st.Bind(w, types)
	if err != nil {
		return fmt.Errorf("%s statement: %w", st.Dialect, err)
	}
	if st.Dialect == sqllog.MySQL {
		foldKeyColumns(design, w)
	}
	if !c.hasInputs() {
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
			return fmt.Errorf("%s statement: %w", st.Dialect, err)
		}
		addKeyColumns(w, design, accs[0].Table)
		scheme, err = sim.Compile(w, design, opts)
	}
	if err != nil {
		return keyErr(err)
	}

	rt, err := scheme.ExplainStatement(accs)
	if err != nil {
		return err
	}
	if err := movedRows(&rt, scheme, w, design, accs, sql, st.Dialect); err != nil {
		return err
	}
	for _, wn := range st.Warnings {
		fmt.Fprintf(e.stderr, "warning: %v\n", wn)
		rt.Warnings = append(rt.Warnings, wn.Error())
	}
	if c.format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false) // reasons quote SQL: keep > and < readable
		return enc.Encode(struct {
			sim.Route
			Version string `json:"version"`
		}{rt, buildinfo.Version()})
	}
	fmt.Fprintf(e.stdout, "dialect: %s (%s)\n", st.Dialect, st.How)
	fmt.Fprintf(e.stdout, "key:     %s, %d shards, engine %s\n", design.Text, scheme.N, scheme.Engine.Name())
	switch {
	case rt.Scatter:
		fmt.Fprintf(e.stdout, "shards:  all %d (scatter-gather)\n", scheme.N)
	case rt.AnyShard:
		fmt.Fprintf(e.stdout, "shards:  any one (a copy on every shard)\n")
	case len(rt.Shards) == 0 && rt.Route == sim.RouteNone:
		fmt.Fprintf(e.stdout, "shards:  none (no row matches)\n")
	case len(rt.Shards) == 0 && rt.Route == sim.RouteSingle:
		fmt.Fprintf(e.stdout, "shards:  one, known only at run time\n")
	case len(rt.Shards) == 0:
		fmt.Fprintf(e.stdout, "shards:  none listed\n")
	default:
		fmt.Fprintf(e.stdout, "shards:  %s\n", joinInts(rt.Shards))
	}
	if rt.Route != "" {
		fmt.Fprintf(e.stdout, "route:   %s\n", rt.Route)
	}
	fmt.Fprintf(e.stdout, "reason:  %s\n", rt.Reason)
	for _, wn := range scheme.Warnings {
		fmt.Fprintf(e.stderr, "warning: %v\n", wn)
	}
	return nil
}

func joinInts(xs []int) string {
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
	}
	if d.Default == nil {
		return
	}
	cols := d.Default.Columns()
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

// foldKeyColumns renames the design's key columns to the workload's
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
		for _, c := range e.Columns() {
			if _, ok := types[c]; !ok {
				types[c] = shardkey.Int64
				changed = true
			}
		}
	}
	return changed
}

// hasInputs reports whether any input flag was given.
func (c *common) hasInputs() bool {
	return c.workload != "" || len(c.rows)+len(c.queries)+len(c.txns)+len(c.logs) > 0 || c.from != ""
}

// columnTypes parses --column-type flags.
func columnTypes(flags []string) (map[string]shardkey.Type, error) {
	types := map[string]shardkey.Type{}
	for _, ct := range flags {
		col, typ, ok := strings.Cut(ct, "=")
		if !ok || col == "" {
			return nil, usageErr("--column-type %q: want COL=TYPE", ct)
		}
		t, err := shardkey.ParseType(typ)
		if err != nil {
			return nil, usageErr("--column-type %s: %v", ct, err)
		}
		types[col] = t
	}
	return types, nil
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
			rt.Reason += fmt.Sprintf("; SET changes the key column %s, so the row moves to shard %s: a delete on its old shard and an insert on the new one, a cross-shard write", strings.Join(changed, ", "), joinInts(to.Shards))
		} else {
			rt.Reason += fmt.Sprintf("; SET changes the key column %s, but the new value lands on the same shard", strings.Join(changed, ", "))
		}
	}
	return nil
}
