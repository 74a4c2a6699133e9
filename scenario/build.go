package scenario

import (
	"fmt"
	"math"
	mrand "math/rand/v2"
	"slices"
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
		Shards: s.Shards, Capacity: s.Capacity, Seed: s.Seed, Candidates: s.Candidates}
	if variant != "" {
		w.Name += "/" + variant
	}
	if w.Shards == 0 {
		w.Shards = DefaultShards
	}
	if w.Shards < 1 || w.Shards > 1<<16 {
		return nil, shardkey.Errorf(b.file, 0, "shards", "%d: must be in 1..65536", s.Shards)
	}
	if w.Capacity < 0 || math.IsNaN(w.Capacity) || math.IsInf(w.Capacity, 0) {
		return nil, shardkey.Errorf(b.file, 0, "capacity", "%v: must be a non-negative number", s.Capacity)
	}
	if s.ParamSamples == 0 {
		s.ParamSamples = DefaultParamSamples
	}
	if s.ParamSamples < 1 || s.ParamSamples > 1<<22 {
		return nil, shardkey.Errorf(b.file, 0, "param_samples", "%d: must be in 1..4194304", s.ParamSamples)
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
		if _, err := shardkey.ParseDesign(c); err != nil {
			return nil, shardkey.Errorf(b.file, 0, "candidates", "%v", err)
		}
	}
	if err := w.Validate(); err != nil {
		return nil, shardkey.Errorf(b.file, 0, "", "%v", err)
	}
	return w, nil
}

// apply returns a copy of s with variant v's settings applied.
func (s *Spec) apply(v string) (*Spec, error) {
	if v == "" {
		return s, nil
	}
	vs, err := s.Variant(v)
	if err != nil {
		return nil, err
	}
	c := *s
	c.Tables = make([]*TableSpec, len(s.Tables))
	for i, t := range s.Tables {
		tc := *t
		tc.Columns = make([]*ColumnSpec, len(t.Columns))
		for j, col := range t.Columns {
			cc := *col
			tc.Columns[j] = &cc
		}
		c.Tables[i] = &tc
	}
	c.Operations = make([]*OpSpec, len(s.Operations))
	for i, o := range s.Operations {
		oc := *o
		c.Operations[i] = &oc
	}
	if len(vs.Candidates) > 0 {
		c.Candidates = vs.Candidates
	}
	keys := make([]string, 0, len(vs.Set))
	for k := range vs.Set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		node := vs.Set[k]
		if err := c.set(k, &node); err != nil {
			return nil, shardkey.Errorf(s.file, node.Line, "variants."+v+".set."+k, "%v", err)
		}
	}
	if vs.Description != "" {
		c.Description = strings.TrimSpace(s.Description + " Variant " + v + ": " + vs.Description)
	}
	return &c, nil
}

// set applies one variant setting: shards, capacity, TABLE.rows,
// TABLE.COLUMN.FIELD (celebrity, distinct, s, top_share) or
// op:NAME.rate.
func (s *Spec) set(key string, n *yaml.Node) error {
	f := func() (float64, error) {
		x, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a number", n.Value)
		}
		return x, nil
	}
	switch key {
	case "shards":
		x, err := f()
		s.Shards = int(x)
		return err
	case "capacity":
		x, err := f()
		s.Capacity = x
		return err
	}
	if name, ok := strings.CutPrefix(key, "op:"); ok {
		name, field, _ := strings.Cut(name, ".")
		for _, o := range s.Operations {
			if o.Name == name && field == "rate" {
				x, err := f()
				o.Rate = x
				return err
			}
		}
		return fmt.Errorf("no operation %q with field %q", name, field)
	}
	parts := strings.Split(key, ".")
	for _, t := range s.Tables {
		if t.Name != parts[0] {
			continue
		}
		if len(parts) == 2 && parts[1] == "rows" {
			x, err := f()
			t.Rows = int(x)
			return err
		}
		if len(parts) != 3 {
			break
		}
		for _, c := range t.Columns {
			if c.Name != parts[1] {
				continue
			}
			x, err := f()
			if err != nil {
				return err
			}
			switch parts[2] {
			case "celebrity":
				c.Celebrity = x
			case "distinct":
				c.Distinct = int(x)
			case "s":
				c.S = x
			case "top_share":
				c.TopShare = x
			default:
				return fmt.Errorf("cannot set %q (want celebrity, distinct, s or top_share)", parts[2])
			}
			return nil
		}
	}
	return fmt.Errorf("nothing to set at %q (want shards, capacity, TABLE.rows, TABLE.COLUMN.FIELD or op:NAME.rate)", key)
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
		return shardkey.Errorf(b.file, ts.Line, ts.Name+".rows", "%d: must be in 1..%d", ts.Rows, maxRows)
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

func (b *builder) op(o *OpSpec) error {
	ctx := "operations." + o.Name
	if o.Name == "" {
		return shardkey.Errorf(b.file, o.Line, "operations", "operation without a name")
	}
	ti, kind, err := b.tableKind(o.Line, ctx, o.Table, o.Kind, shardkey.Read)
	if err != nil {
		return err
	}
	if o.Rate < 0 || math.IsNaN(o.Rate) || math.IsInf(o.Rate, 0) || o.Rate > shardkey.MaxRate {
		return shardkey.Errorf(b.file, o.Line, ctx+".rate", "%v: must be a non-negative number of requests/s, at most %g", o.Rate, shardkey.MaxRate)
	}
	switch o.Latency {
	case "", "interactive", "batch":
	default:
		return shardkey.Errorf(b.file, o.Line, ctx+".latency", "%q: want interactive or batch", o.Latency)
	}
	where, err := b.where(ti, &o.Where, ctx)
	if err != nil {
		return err
	}
	if kind == shardkey.Insert && len(where) > 0 {
		return shardkey.Errorf(b.file, o.Line, ctx+".where", "an insert has no filter: its values come from the table's generators")
	}
	op := &shardkey.Operation{Name: o.Name, Table: ti, Kind: kind, Rate: o.Rate, Latency: o.Latency}
	if kind == shardkey.Insert {
		op.Instances = b.insertInstances(ti)
	} else {
		op.Instances = b.queryInstances(ti, where)
	}
	b.w.Ops = append(b.w.Ops, op)
	return nil
}

// insertInstances returns the instances of an insert into table ti: the
// one finite column enumerated exactly when there is one and nothing is
// inherited, else a joint sample of rows; fresh values for sequential,
// unbucketed time and uuid columns; the newest bucket for bucketed times.
func (b *builder) insertInstances(ti int) []shardkey.Instance {
	t := b.w.Tables[ti]
	gens := b.gens[ti]
	finite := -1
	nFinite, inherited := 0, false
	for ci, g := range gens {
		if g.inherited {
			inherited = true
		} else if g.finite() {
			finite = ci
			nFinite++
		}
	}
	base := func() []shardkey.Cond {
		var conds []shardkey.Cond
		for ci, g := range gens {
			if g.inherited || g.finite() {
				continue
			}
			if f := g.fresh(); f != shardkey.NotFresh {
				conds = append(conds, shardkey.Cond{Col: ci, Op: shardkey.Eq, Fresh: f})
			} else {
				conds = append(conds, shardkey.Cond{Col: ci, Op: shardkey.Eq, Val: b.max(ti, ci)})
			}
		}
		return conds
	}
	var out []shardkey.Instance
	if nFinite == 1 && !inherited {
		g := gens[finite]
		for i, v := range g.vals {
			conds := append(base(), shardkey.Cond{Col: finite, Op: shardkey.Eq, Val: v})
			sortConds(conds)
			out = append(out, shardkey.Instance{Weight: g.probs[i], Conds: conds})
		}
		return out
	}
	if nFinite == 0 && !inherited {
		conds := base()
		sortConds(conds)
		return []shardkey.Instance{{Weight: 1, Conds: conds}}
	}
	for k := 0; k < b.s.ParamSamples; k++ {
		r := b.rng.IntN(t.Rows)
		conds := base()
		for ci, g := range gens {
			if g.inherited || g.finite() {
				conds = append(conds, shardkey.Cond{Col: ci, Op: shardkey.Eq, Val: t.Columns[ci].Value(r)})
			}
		}
		sortConds(conds)
		out = append(out, shardkey.Instance{Weight: 1, Conds: conds})
	}
	return out
}

func sortConds(c []shardkey.Cond) { sort.Slice(c, func(i, j int) bool { return c[i].Col < c[j].Col }) }

// queryInstances returns the instances of a read, update or delete.
func (b *builder) queryInstances(ti int, where []whereEntry) []shardkey.Instance {
	t := b.w.Tables[ti]
	var params []whereEntry
	var fixed []shardkey.Cond
	for _, e := range where {
		if e.param {
			params = append(params, e)
		} else {
			fixed = append(fixed, e.cond)
		}
	}
	mk := func(extra ...shardkey.Cond) []shardkey.Cond {
		c := append(append([]shardkey.Cond(nil), fixed...), extra...)
		sortConds(c)
		return c
	}
	switch {
	case len(params) == 0:
		return []shardkey.Instance{{Weight: 1, Conds: mk()}}
	case len(params) == 1 && b.gens[ti][params[0].col].finite() && !b.gens[ti][params[0].col].inherited:
		g := b.gens[ti][params[0].col]
		out := make([]shardkey.Instance, 0, len(g.vals))
		for i, v := range g.vals {
			out = append(out, shardkey.Instance{Weight: g.probs[i], Conds: mk(shardkey.Cond{Col: params[0].col, Op: shardkey.Eq, Val: v})})
		}
		return out
	}
	out := make([]shardkey.Instance, 0, b.s.ParamSamples)
	for k := 0; k < b.s.ParamSamples; k++ {
		r := b.rng.IntN(t.Rows)
		var ps []shardkey.Cond
		for _, p := range params {
			ps = append(ps, shardkey.Cond{Col: p.col, Op: shardkey.Eq, Val: t.Columns[p.col].Value(r)})
		}
		out = append(out, shardkey.Instance{Weight: 1, Conds: mk(ps...)})
	}
	return out
}

// txn generates ParamSamples instances of a transaction shape. Within one
// instance, columns of the same name hold the same value (an order's id in
// the order row and its line items; the same customer); fresh ids of a
// table's own sequential or uuid columns are new per statement and shared
// by name with the statements after it.
func (b *builder) txn(ts *TxnSpec) error {
	ctx := "transactions." + ts.Name
	if ts.Name == "" {
		return shardkey.Errorf(b.file, ts.Line, "transactions", "transaction without a name")
	}
	if ts.Rate < 0 || math.IsNaN(ts.Rate) || math.IsInf(ts.Rate, 0) || ts.Rate > shardkey.MaxRate {
		return shardkey.Errorf(b.file, ts.Line, ctx+".rate", "%v: must be a non-negative number of transactions/s, at most %g", ts.Rate, shardkey.MaxRate)
	}
	if len(ts.Steps) == 0 {
		return shardkey.Errorf(b.file, ts.Line, ctx+".steps", "a transaction needs at least one step")
	}
	type step struct {
		ti     int
		kind   shardkey.Kind
		where  []whereEntry
		lo, hi int             // repeat count range
		remote map[int]float64 // column index -> probability of another value
		vary   []string        // column names drawn anew per repetition
		prob   float64
	}
	var steps []step
	for i, st := range ts.Steps {
		sctx := fmt.Sprintf("%s.steps[%d]", ctx, i)
		ti, kind, err := b.tableKind(st.Line, sctx, st.Table, st.Kind, shardkey.Insert)
		if err != nil {
			return err
		}
		wh, err := b.where(ti, &st.Where, sctx)
		if err != nil {
			return err
		}
		if kind == shardkey.Insert && len(wh) > 0 {
			return shardkey.Errorf(b.file, st.Line, sctx+".where", "an insert has no filter")
		}
		lo, hi := 1, 1
		if st.Repeat != "" {
			a, z, isRange := strings.Cut(st.Repeat, "-")
			var err1, err2 error
			lo, err1 = strconv.Atoi(strings.TrimSpace(a))
			hi = lo
			if isRange {
				hi, err2 = strconv.Atoi(strings.TrimSpace(z))
			}
			if err1 != nil || err2 != nil || lo < 1 || hi < lo || hi > 1000 {
				return shardkey.Errorf(b.file, st.Line, sctx+".repeat", "%q: want N or LO-HI in 1..1000", st.Repeat)
			}
		}
		remote := map[int]float64{}
		for col, p := range st.Remote {
			ci := b.w.Tables[ti].ColumnIndex(col)
			if ci < 0 {
				return shardkey.Errorf(b.file, st.Line, sctx+".remote."+col, "table %s has no column %q", st.Table, col)
			}
			if p < 0 || p > 1 || math.IsNaN(p) {
				return shardkey.Errorf(b.file, st.Line, sctx+".remote."+col, "%v: want a probability in 0..1", p)
			}
			remote[ci] = p
		}
		if len(st.Vary) > 0 && hi < 2 {
			return shardkey.Errorf(b.file, st.Line, sctx+".vary", "vary applies to a repeated step (repeat: N or LO-HI above 1)")
		}
		for k, col := range st.Vary {
			ci := b.w.Tables[ti].ColumnIndex(col)
			if ci < 0 {
				return shardkey.Errorf(b.file, st.Line, sctx+".vary", "table %s has no column %q", st.Table, col)
			}
			if slices.Contains(st.Vary[:k], col) {
				return shardkey.Errorf(b.file, st.Line, sctx+".vary", "%s named twice", col)
			}
			if kind == shardkey.Insert && b.gens[ti][ci].inherited {
				return shardkey.Errorf(b.file, st.Line, sctx+".vary", "%s is copied from the parent row: varying it would detach the row from its parent", col)
			}
			if _, ok := st.Remote[col]; ok {
				return shardkey.Errorf(b.file, st.Line, sctx+".vary", "%s is both varied and remote: a varied value is already drawn anew", col)
			}
			used := false
			if kind == shardkey.Insert {
				// An insert draws its values; a new id is new anyway.
				used = b.gens[ti][ci].fresh() == shardkey.NotFresh
			}
			for _, e := range wh {
				used = used || e.param && e.col == ci
			}
			if !used {
				return shardkey.Errorf(b.file, st.Line, sctx+".vary", "%s: the step draws no value of it (vary names a filter's \"?\" column, or an insert's drawn column; a new id is new in every repetition anyway)", col)
			}
		}
		prob := 1.0
		if st.Prob != nil {
			prob = *st.Prob
			if prob < 0 || prob > 1 || math.IsNaN(prob) {
				return shardkey.Errorf(b.file, st.Line, sctx+".prob", "%v: want a probability in 0..1", prob)
			}
		}
		steps = append(steps, step{ti, kind, wh, lo, hi, remote, st.Vary, prob})
	}
	k := b.s.ParamSamples
	for n := 0; n < k; n++ {
		tx := shardkey.Txn{Name: ts.Name, Weight: ts.Rate / float64(k)}
		bound := map[string]shardkey.Cond{}
		boundBy := map[string]int{} // table whose fresh id a name was bound to
		var freshVar int32
		var remote map[int]float64
		draw := func(ti, ci int) shardkey.Cond {
			name := b.w.Tables[ti].Columns[ci].Name
			if c, ok := bound[name]; ok {
				if p := remote[ci]; p > 0 && c.Fresh == shardkey.NotFresh && b.rng.Float64() < p {
					return b.other(ti, ci, c)
				}
				c.Col = ci
				return c
			}
			g := b.gens[ti][ci]
			var c shardkey.Cond
			switch {
			case g.finite() && !g.inherited:
				c = shardkey.Cond{Op: shardkey.Eq, Val: g.draw(b.rng)}
			default:
				t := b.w.Tables[ti]
				c = shardkey.Cond{Op: shardkey.Eq, Val: t.Columns[ci].Value(b.rng.IntN(t.Rows))}
			}
			c.Col = ci
			bound[name] = c
			return c
		}
		for _, st := range steps {
			t := b.w.Tables[st.ti]
			remote = st.remote
			if st.prob < 1 && b.rng.Float64() >= st.prob {
				continue
			}
			reps := st.lo
			if st.hi > st.lo {
				reps = st.lo + b.rng.IntN(st.hi-st.lo+1)
			}
			// Varying columns: the shared value is set aside for the
			// step and each repetition draws its own.
			saved := map[string]shardkey.Cond{}
			for _, col := range st.vary {
				if c, ok := bound[col]; ok {
					saved[col] = c
				}
			}
			for r := 0; r < reps; r++ {
				for _, col := range st.vary {
					delete(bound, col)
				}
				var conds []shardkey.Cond
				if st.kind == shardkey.Insert {
					var own []shardkey.Cond
					for ci, g := range b.gens[st.ti] {
						name := t.Columns[ci].Name
						switch f := g.fresh(); {
						case g.inherited:
							conds = append(conds, draw(st.ti, ci))
						case f != shardkey.NotFresh && boundBy[name] != st.ti+1 && hasBinding(bound, name):
							// The id of a row another statement of this
							// transaction created (a message's id in its
							// inbox row).
							conds = append(conds, draw(st.ti, ci))
						case f != shardkey.NotFresh:
							freshVar++
							c := shardkey.Cond{Col: ci, Op: shardkey.Eq, Fresh: f, FreshVar: freshVar}
							conds = append(conds, c)
							own = append(own, c)
						case g.finite():
							conds = append(conds, draw(st.ti, ci))
						default:
							// The newest time bucket: shared by name, so an
							// order's lines carry its month.
							c, ok := bound[name]
							if !ok {
								c = shardkey.Cond{Op: shardkey.Eq, Val: b.max(st.ti, ci)}
								bound[name] = c
							}
							c.Col = ci
							conds = append(conds, c)
						}
					}
					for _, c := range own {
						name := t.Columns[c.Col].Name
						if _, ok := bound[name]; !ok || boundBy[name] == st.ti+1 {
							bound[name] = c
							boundBy[name] = st.ti + 1
						}
					}
				} else {
					for _, e := range st.where {
						if e.param {
							conds = append(conds, draw(st.ti, e.col))
						} else {
							conds = append(conds, e.cond)
						}
					}
				}
				sortConds(conds)
				tx.Stmts = append(tx.Stmts, shardkey.Stmt{Table: st.ti, Kind: st.kind, Conds: conds})
			}
			for _, col := range st.vary {
				delete(bound, col)
				if c, ok := saved[col]; ok {
					bound[col] = c
				}
			}
		}
		b.w.Txns = append(b.w.Txns, tx)
	}
	return nil
}

func hasBinding(m map[string]shardkey.Cond, name string) bool {
	_, ok := m[name]
	return ok
}

// With returns a copy of s with settings applied, as a variant's `set`
// would apply them: shards, capacity, TABLE.rows, TABLE.COLUMN.FIELD
// (celebrity, distinct, s, top_share) or op:NAME.rate, each value a
// number. The playground's controls use it.
func (s *Spec) With(settings map[string]string) (*Spec, error) {
	const name = "\x00with"
	v := VariantSpec{Name: name, Set: map[string]yaml.Node{}}
	for k, val := range settings {
		v.Set[k] = yaml.Node{Kind: yaml.ScalarNode, Value: val}
	}
	c := *s
	c.Variants = append(append([]VariantSpec(nil), s.Variants...), v)
	out, err := c.apply(name)
	if err != nil {
		return nil, err
	}
	out.Variants = s.Variants
	out.Description = s.Description
	return out, nil
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

// other returns an equality on column ci of table ti with a value other
// than c's: drawn from the column's distribution (or its rows), retried a
// few times to differ, as TPC-C picks a remote warehouse.
func (b *builder) other(ti, ci int, c shardkey.Cond) shardkey.Cond {
	g := b.gens[ti][ci]
	t := b.w.Tables[ti]
	v := c.Val
	for try := 0; try < 32 && v == c.Val; try++ {
		if g.finite() && !g.inherited {
			v = g.draw(b.rng)
		} else {
			v = t.Columns[ci].Value(b.rng.IntN(t.Rows))
		}
	}
	return shardkey.Cond{Col: ci, Op: shardkey.Eq, Val: v}
}
