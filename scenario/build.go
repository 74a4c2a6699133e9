package scenario

import (
	"fmt"
	"math"
	mrand "math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shardkey/shardkey"
)

// Defaults for fields a spec leaves out.
const (
	DefaultShards       = 8
	DefaultRows         = 10000
	DefaultParamSamples = 4096
	maxRows             = 50_000_000
)

// builder holds the state of one Build.
type builder struct {
	s      *Spec
	file   string
	w      *shardkey.Workload
	gens   [][]*colGen // by table, by column
	rng    *mrand.Rand
	tspecs []*TableSpec
	maxes  map[[2]int]shardkey.Value // memoised column maxima
	arena  shardkey.Arena            // the transactions' statements and conditions, in order
}

// max returns the largest value of column ci of table ti.
func (b *builder) max(ti, ci int) shardkey.Value {
	k := [2]int{ti, ci}
	if v, ok := b.maxes[k]; ok {
		return v
	}
	if b.maxes == nil {
		b.maxes = map[[2]int]shardkey.Value{}
	}
	t := b.w.Tables[ti]
	v := maxValue(t.Columns[ci], t.Rows)
	b.maxes[k] = v
	return v
}

// Build generates the workload of spec s with the named variant applied
// ("" for none). The same spec, variant and seed give the same workload.
// Errors name the file, line and field.
func Build(s *Spec, variant string) (*shardkey.Workload, error) {
	if err := s.checkEmpty(); err != nil {
		return nil, err
	}
	s, err := s.apply(variant)
	if err != nil {
		return nil, err
	}
	b := &builder{s: s, file: s.file}
	w := &shardkey.Workload{Name: s.Name, Description: s.Description, Source: s.file,
		Shards: s.Shards, Nodes: s.Nodes, Capacity: s.Capacity, Seed: s.Seed, Candidates: s.Candidates}
	if variant != "" {
		w.Name += "/" + variant
	}
	// An absent shards: takes the default; a written one (shards: 0 included)
	// is checked, as --shards 0 is: 0 written is a mistake, not "default".
	if w.Shards == 0 && s.line("shards") == 0 {
		w.Shards = DefaultShards
	}
	if w.Shards < 1 || w.Shards > shardkey.MaxShards {
		return nil, shardkey.Errorf(b.file, s.line("shards"), "shards", "%d: must be in 1..%d", s.Shards, shardkey.MaxShards)
	}
	if w.Nodes < 0 || w.Nodes > w.Shards || (w.Nodes == 0 && s.line("nodes") != 0) {
		return nil, shardkey.Errorf(b.file, s.line("nodes"), "nodes", "%d: must be in 1..shards (%d), the nodes the shards are placed on", s.Nodes, w.Shards)
	}
	if w.Capacity < 0 || math.IsNaN(w.Capacity) || math.IsInf(w.Capacity, 0) {
		return nil, shardkey.Errorf(b.file, s.line("capacity"), "capacity", "%v: must be a non-negative number", s.Capacity)
	}
	if s.ParamSamples == 0 {
		s.ParamSamples = DefaultParamSamples
	}
	if s.ParamSamples < 1 || s.ParamSamples > 1<<22 {
		return nil, shardkey.Errorf(b.file, s.line("param_samples"), "param_samples", "%d: must be in 1..4194304", s.ParamSamples)
	}
	if len(s.Tables) == 0 {
		return nil, shardkey.Errorf(b.file, 0, "tables", "a scenario needs at least one table")
	}

	b.w = w
	b.rng = mrand.New(mrand.NewPCG(uint64(s.Seed), 0x5eed))
	if err := b.tables(); err != nil {
		return nil, err
	}
	for _, o := range s.Operations {
		if err := b.op(o); err != nil {
			return nil, err
		}
	}
	for _, t := range s.Transactions {
		if err := b.txn(t); err != nil {
			return nil, err
		}
	}
	for _, c := range w.Candidates {
		if l := s.line("candidates:" + c); l > 0 {
			if w.CandidateLines == nil {
				w.CandidateLines = map[string]int{}
			}
			w.CandidateLines[c] = l
		}
		d, err := shardkey.ParseDesign(c)
		if err == nil {
			err = lookupColumns(w, d)
		}
		if err != nil {
			return nil, shardkey.Errorf(b.file, s.line("candidates:"+c), "candidates", "%v", err)
		}
	}
	if err := w.Validate(); err != nil {
		return nil, shardkey.Errorf(b.file, 0, "", "%v", err)
	}
	return w, nil
}

// tables generates every table's rows, parents before children.
func (b *builder) tables() error {
	byName := map[string]*TableSpec{}
	for _, t := range b.s.Tables {
		if t.Name == "" {
			return shardkey.Errorf(b.file, t.Line, "tables", "table without a name")
		}
		if byName[t.Name] != nil {
			return shardkey.Errorf(b.file, t.Line, t.Name, "table defined twice")
		}
		byName[t.Name] = t
	}
	// Order: a parent before its children; detect cycles.
	var order []*TableSpec
	state := map[string]int{}
	var visit func(t *TableSpec) error
	visit = func(t *TableSpec) error {
		switch state[t.Name] {
		case 1:
			return shardkey.Errorf(b.file, t.Line, t.Name+".parent", "parent cycle")
		case 2:
			return nil
		}
		state[t.Name] = 1
		if t.Parent != "" {
			p := byName[t.Parent]
			if p == nil {
				return shardkey.Errorf(b.file, t.Line, t.Name+".parent", "no table %q", t.Parent)
			}
			if err := visit(p); err != nil {
				return err
			}
		}
		state[t.Name] = 2
		order = append(order, t)
		return nil
	}
	for _, t := range b.s.Tables {
		if err := visit(t); err != nil {
			return err
		}
	}
	// Workload tables keep the spec's order.
	b.gens = make([][]*colGen, len(b.s.Tables))
	b.tspecs = b.s.Tables
	for _, ts := range b.s.Tables {
		b.w.Tables = append(b.w.Tables, &shardkey.Table{Name: ts.Name, Monotonic: map[string]bool{}})
	}
	for _, ts := range order {
		if err := b.table(ts); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) tableIndex(name string) int { return b.w.TableIndex(name) }

func (b *builder) table(ts *TableSpec) error {
	ti := b.tableIndex(ts.Name)
	t := b.w.Tables[ti]
	var parent *shardkey.Table
	pi := -1
	if ts.Parent != "" {
		pi = b.tableIndex(ts.Parent)
		parent = b.w.Tables[pi]
	}
	if len(ts.Columns) == 0 && parent == nil {
		return shardkey.Errorf(b.file, ts.Line, ts.Name, "table has no columns")
	}
	seen := map[string]bool{}
	var gens []*colGen
	// Inherited columns first, in the parent's order.
	if parent != nil {
		for ci, pc := range parent.Columns {
			own := false
			for _, c := range ts.Columns {
				if c.Name == pc.Name {
					own = true
				}
			}
			if own {
				continue
			}
			g := *b.gens[pi][ci]
			g.inherited = true
			gens = append(gens, &g)
			t.Columns = append(t.Columns, &shardkey.Column{Name: pc.Name, Type: pc.Type})
			seen[pc.Name] = true
			if parent.Monotonic[pc.Name] {
				t.Monotonic[pc.Name] = true
			}
		}
	}
	for _, c := range ts.Columns {
		if seen[c.Name] {
			return shardkey.Errorf(b.file, c.Line, ts.Name+"."+c.Name, "column defined twice")
		}
		seen[c.Name] = true
		g, err := newColGen(b.file, ts.Name, c)
		if err != nil {
			return err
		}
		gens = append(gens, g)
		t.Columns = append(t.Columns, &shardkey.Column{Name: c.Name, Type: g.typ})
		if g.fresh() == shardkey.FreshNewest || g.kind == gTime {
			t.Monotonic[c.Name] = true
		}
		if g.kind == gSequential || g.kind == gUUID {
			// Each row draws a value of its own (an inherited column is
			// the parent's, repeated per child row: not here).
			if t.Unique == nil {
				t.Unique = map[string]bool{}
			}
			t.Unique[c.Name] = true
		}
	}
	b.gens[ti] = gens
	// Rows.
	if parent != nil {
		lo, hi := 1, 1
		if ts.PerParent != "" {
			a, z, isRange := strings.Cut(ts.PerParent, "-")
			var err1, err2 error
			lo, err1 = strconv.Atoi(strings.TrimSpace(a))
			hi = lo
			if isRange {
				hi, err2 = strconv.Atoi(strings.TrimSpace(z))
			}
			if err1 != nil || err2 != nil || lo < 0 || hi < lo || hi > 10000 {
				return shardkey.Errorf(b.file, ts.Line, ts.Name+".per_parent", "%q: want N or LO-HI (0..10000)", ts.PerParent)
			}
		}
		if ts.Rows != 0 {
			return shardkey.Errorf(b.file, ts.Line, ts.Name+".rows", "a table with a parent gets per_parent rows per parent row; leave rows out")
		}
		i := 0
		for pr := 0; pr < parent.Rows; pr++ {
			k := lo
			if hi > lo {
				k = lo + b.rng.IntN(hi-lo+1)
			}
			for j := 0; j < k; j++ {
				if i >= maxRows {
					return shardkey.Errorf(b.file, ts.Line, ts.Name, "more than %d rows", maxRows)
				}
				for ci, g := range gens {
					var v shardkey.Value
					if g.inherited {
						v = parent.Column(t.Columns[ci].Name).Value(pr)
					} else {
						v = g.row(i, b.rng)
					}
					t.Columns[ci].Append(v)
				}
				i++
			}
		}
		t.Rows = i
		if lo == hi && lo > 0 {
			// A fixed count per parent row: each value of a column
			// unique in the parent (or of fixed rows per value there)
			// is lo (lo x k) rows here.
			for ci, g := range gens {
				if !g.inherited {
					continue
				}
				name := t.Columns[ci].Name
				k := parent.PerValue[name]
				if parent.Unique[name] {
					k = 1
				}
				if k > 0 {
					if t.PerValue == nil {
						t.PerValue = map[string]int{}
					}
					t.PerValue[name] = lo * k
				}
			}
		}
		return nil
	}
	if ts.PerParent != "" {
		return shardkey.Errorf(b.file, ts.Line, ts.Name+".per_parent", "per_parent needs parent")
	}
	n := ts.Rows
	if n == 0 {
		n = DefaultRows
	}
	if n < 1 || n > maxRows {
		line := ts.RowsLine
		if line == 0 {
			line = ts.Line
		}
		return shardkey.Errorf(b.file, line, ts.Name+".rows", "%d: must be in 1..%d", ts.Rows, maxRows)
	}
	for i := 0; i < n; i++ {
		for ci, g := range gens {
			t.Columns[ci].Append(g.row(i, b.rng))
		}
	}
	t.Rows = n
	return nil
}

// tableKind resolves the table and kind of an operation or transaction
// step; kind defaults to def.
func (b *builder) tableKind(line int, ctx, table, kind string, def shardkey.Kind) (int, shardkey.Kind, error) {
	ti := b.tableIndex(table)
	if ti < 0 {
		return 0, 0, shardkey.Errorf(b.file, line, ctx+".table", "no table %q", table)
	}
	if kind == "" {
		return ti, def, nil
	}
	k, err := shardkey.ParseKind(kind)
	if err != nil {
		return 0, 0, shardkey.Errorf(b.file, line, ctx+".kind", "%v", err)
	}
	return ti, k, nil
}

// whereEntry is one parsed filter of an operation or step.
type whereEntry struct {
	col   int
	param bool          // "?"
	cond  shardkey.Cond // literal, recent, in, range
	line  int
	name  string
}

func (b *builder) where(ti int, n *yaml.Node, ctx string) ([]whereEntry, error) {
	if n.Kind == 0 {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, shardkey.Errorf(b.file, n.Line, ctx+".where", "want a mapping of column: filter")
	}
	t := b.w.Tables[ti]
	var out []whereEntry
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		field := ctx + ".where." + k.Value
		ci := t.ColumnIndex(k.Value)
		if ci < 0 {
			return nil, shardkey.Errorf(b.file, k.Line, field, "table %s has no column %q (columns: %s)", t.Name, k.Value, strings.Join(t.ColumnNames(), ", "))
		}
		col := t.Columns[ci]
		e := whereEntry{col: ci, line: k.Line, name: k.Value}
		e.cond.Col = ci
		switch {
		case v.Kind == yaml.ScalarNode && v.Value == "?":
			e.param = true
		case v.Kind == yaml.ScalarNode && (v.Value == "recent" || strings.HasPrefix(v.Value, "recent:")):
			if t.Rows == 0 {
				return nil, shardkey.Errorf(b.file, v.Line, field, "recent needs rows")
			}
			if v.Value == "recent" {
				e.cond.Op = shardkey.Range
				e.cond.Bounds = &shardkey.Bounds{Lo: maxValue(col, t.Rows), HasLo: true, LoIncl: true}
			} else {
				k, err := strconv.Atoi(strings.TrimPrefix(v.Value, "recent:"))
				if err != nil || k < 1 || k > 1000 {
					return nil, shardkey.Errorf(b.file, v.Line, field, "%q: want recent:K with K in 1..1000", v.Value)
				}
				e.cond.Op = shardkey.In
				e.cond.List = newestDistinct(col, t.Rows, k)
			}
		case v.Kind == yaml.ScalarNode:
			val, err := shardkey.ParseValue(v.Value, col.Type)
			if err != nil {
				return nil, shardkey.Errorf(b.file, v.Line, field, "%v", err)
			}
			e.cond.Op, e.cond.Val = shardkey.Eq, val
		case v.Kind == yaml.MappingNode:
			bd := &shardkey.Bounds{}
			for j := 0; j+1 < len(v.Content); j += 2 {
				op, arg := v.Content[j].Value, v.Content[j+1]
				switch op {
				case "in":
					if arg.Kind != yaml.SequenceNode {
						return nil, shardkey.Errorf(b.file, arg.Line, field+".in", "want a list")
					}
					e.cond.Op = shardkey.In
					for _, it := range arg.Content {
						val, err := shardkey.ParseValue(it.Value, col.Type)
						if err != nil {
							return nil, shardkey.Errorf(b.file, it.Line, field+".in", "%v", err)
						}
						e.cond.List = append(e.cond.List, val)
					}
				case "gte", "gt", "lte", "lt":
					val, err := shardkey.ParseValue(arg.Value, col.Type)
					if err != nil {
						return nil, shardkey.Errorf(b.file, arg.Line, field+"."+op, "%v", err)
					}
					e.cond.Op, e.cond.Bounds = shardkey.Range, bd
					if op[0] == 'g' {
						bd.Lo, bd.HasLo, bd.LoIncl = val, true, op == "gte"
					} else {
						bd.Hi, bd.HasHi, bd.HiIncl = val, true, op == "lte"
					}
				default:
					return nil, shardkey.Errorf(b.file, v.Content[j].Line, field+"."+op, "unknown filter (want in, gte, gt, lte, lt)")
				}
			}
		default:
			return nil, shardkey.Errorf(b.file, v.Line, field, `want "?", recent, recent:K, a value, {in: [...]} or {gte: a, lt: b}`)
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].col < out[j].col })
	return out, nil
}

func maxValue(c *shardkey.Column, n int) shardkey.Value {
	best := c.Value(0)
	for i := 1; i < n; i++ {
		if v := c.Value(i); shardkey.Compare(v, best) > 0 {
			best = v
		}
	}
	return best
}

func newestDistinct(c *shardkey.Column, n, k int) []shardkey.Value {
	var out []shardkey.Value
	seen := map[shardkey.Value]bool{}
	vals := make([]shardkey.Value, n)
	for i := range vals {
		vals[i] = c.Value(i)
	}
	sort.Slice(vals, func(i, j int) bool { return shardkey.Compare(vals[i], vals[j]) > 0 })
	for _, v := range vals {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
			if len(out) == k {
				break
			}
		}
	}
	return out
}

// File returns the file name the spec was read from.
func (s *Spec) File() string { return s.file }

// checkEmpty rejects empty list entries ("- " with nothing after it), which
// YAML decodes as nil.
func (s *Spec) checkEmpty() error {
	for i, t := range s.Tables {
		if t == nil {
			return shardkey.Errorf(s.file, 0, fmt.Sprintf("tables[%d]", i), "empty entry")
		}
		for j, c := range t.Columns {
			if c == nil {
				return shardkey.Errorf(s.file, t.Line, fmt.Sprintf("%s.columns[%d]", t.Name, j), "empty entry")
			}
		}
	}
	for i, o := range s.Operations {
		if o == nil {
			return shardkey.Errorf(s.file, 0, fmt.Sprintf("operations[%d]", i), "empty entry")
		}
	}
	for i, t := range s.Transactions {
		if t == nil {
			return shardkey.Errorf(s.file, 0, fmt.Sprintf("transactions[%d]", i), "empty entry")
		}
		for j, st := range t.Steps {
			if st == nil {
				return shardkey.Errorf(s.file, t.Line, fmt.Sprintf("transactions.%s.steps[%d]", t.Name, j), "empty entry")
			}
		}
	}
	return nil
}

// lookupColumns checks that every lookup(col) of candidate d names a
// column of a table it follows (the table's own, or for a bare key's
// lookup one of the tables the key places), as sim.Compile will: a
// misspelt lookup column is the spec's error at its line, not a
// candidate dropped later.
func lookupColumns(w *shardkey.Workload, d *shardkey.Design) error {
	tables := make([]string, 0, len(d.Lookups))
	for table := range d.Lookups {
		tables = append(tables, table)
	}
	sort.Strings(tables) // the same error for the same spec
	for _, table := range tables {
		for _, l := range d.Lookups[table] {
			ok := false
			var placed []string
			for _, t := range w.Tables {
				has := func(c string) bool { return t.Column(c) != nil }
				if table != "" && t.Name != table {
					continue
				}
				if _, own := d.Tables[t.Name]; table == "" && (own || d.Default == nil || d.For(t.Name, has) == nil) {
					continue
				}
				placed = append(placed, t.Name)
				ok = ok || has(l.Col)
			}
			if ok {
				continue
			}
			if table != "" {
				return fmt.Errorf("key %q: %s: table %s has no column %q", d.Text, l, table, l.Col)
			}
			return fmt.Errorf("key %q: %s: no table %s places has a column %q (tables it places: %s)", d.Text, l, d.Default, l.Col, strings.Join(placed, ", "))
		}
	}
	return nil
}
