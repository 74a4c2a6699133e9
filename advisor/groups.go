package advisor

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/numfmt"
	"github.com/shardkey/shardkey/sim"
)

// Entity groups (seed 000, "Co-location and secondary indexes"): a root
// entity and everything that hangs off it. A child table that does not
// carry the root's key but references a parent that does (order_items
// references orders by order_id, and orders carries customer_id) can be
// co-located with it only by carrying the root key: the key is
// denormalised into the child (Citus's co-located tables need the
// distribution column in every table; Spanner's interleaved tables put the
// parent's key first in the child's primary key). The advisor scores the
// design with the key carried, on a copy of the workload in which the
// child's rows, queries and transaction statements hold the root value
// their parent row holds, and says what carrying it costs.

// link is a parent/child relation: column col of table child holds the
// values of column pcol of table parent, which identifies parent's rows
// (its primary key, or unique in its sample).
type link struct {
	child, col   int
	parent, pcol int
	source       string // why: "foreign key", "same column name and unique in orders", ...
}

// findLinks returns the parent/child relations the workload shows: the
// catalog's foreign keys (from --from or --schema), then columns of one
// class (the same name, or the same values in transactions) that are
// unique in exactly one table, the parent.
func (a *analysis) findLinks() []link {
	w := a.w
	var out []link
	seen := map[[2]int]bool{} // child, col
	add := func(l link) {
		if l.child == l.parent || seen[[2]int{l.child, l.col}] {
			return
		}
		seen[[2]int{l.child, l.col}] = true
		out = append(out, l)
	}
	if cat := shardkey.CatalogOf(w); cat != nil {
		for ti, t := range w.Tables {
			info := cat.Table(t.Name)
			if info == nil {
				continue
			}
			for _, fk := range info.ForeignKeys {
				if len(fk.Columns) != 1 || len(fk.RefColumns) != 1 {
					continue
				}
				pi := w.TableIndex(fk.RefTable)
				if pi < 0 {
					continue
				}
				ci, pc := t.ColumnIndex(fk.Columns[0]), w.Tables[pi].ColumnIndex(fk.RefColumns[0])
				if ci < 0 || pc < 0 {
					continue
				}
				add(link{child: ti, col: ci, parent: pi, pcol: pc,
					source: fmt.Sprintf("foreign key %s.%s -> %s.%s", t.Name, fk.Columns[0], fk.RefTable, fk.RefColumns[0])})
			}
		}
	}
	for _, cl := range a.classes {
		// The parent is the table the column identifies; when it is
		// unique in several (an order and its one payment), the table
		// named after it (order_id: orders), else the one whose first
		// column it is (where primary keys usually stand).
		var ids []colRef
		for _, r := range cl.cols {
			if a.identifies(r) {
				ids = append(ids, r)
			}
		}
		owner := pickOwner(w, ids)
		if owner < 0 {
			continue
		}
		var pcol int
		for _, r := range cl.cols {
			if r.table == owner {
				pcol = r.col
			}
		}
		for _, r := range cl.cols {
			if r.table == owner {
				continue
			}
			pt := w.Tables[owner]
			why := "same column name"
			if w.Tables[r.table].Columns[r.col].Name != pt.Columns[pcol].Name {
				why = "same values in transactions"
				if a.joined(r, colRef{owner, pcol}) {
					why = "joined on it"
				}
			}
			add(link{child: r.table, col: r.col, parent: owner, pcol: pcol,
				source: fmt.Sprintf("%s.%s holds %s.%s (%s; it identifies %s's rows)", w.Tables[r.table].Name, w.Tables[r.table].Columns[r.col].Name, pt.Name, pt.Columns[pcol].Name, why, pt.Name)})
		}
	}
	return out
}

// accessed reports whether table ti is read, updated or deleted by an
// operation or a transaction statement (binding column col by equality,
// when col >= 0).
func (a *analysis) accessed(ti, col int) bool {
	binds := func(conds []shardkey.Cond) bool {
		if col < 0 {
			return true
		}
		for _, c := range conds {
			if c.Col == col && (c.Op == shardkey.Eq || c.Op == shardkey.In) {
				return true
			}
		}
		return false
	}
	for _, op := range a.w.Ops {
		if op.Table == ti && op.Kind != shardkey.Insert && len(op.Instances) > 0 && binds(op.Instances[0].Conds) {
			return true
		}
	}
	for _, tx := range a.w.Txns {
		for _, st := range tx.Stmts {
			if st.Table == ti && st.Kind != shardkey.Insert && binds(st.Conds) {
				return true
			}
		}
	}
	return false
}

// pickOwner returns the table of ids that owns the column, or -1.
func pickOwner(w *shardkey.Workload, ids []colRef) int {
	if len(ids) == 1 {
		return ids[0].table
	}
	pick := func(ok func(colRef) bool) int {
		found := -1
		for _, r := range ids {
			if ok(r) {
				if found >= 0 {
					return -1
				}
				found = r.table
			}
		}
		return found
	}
	if t := pick(func(r colRef) bool {
		return namedAfter(w.Tables[r.table].Name, w.Tables[r.table].Columns[r.col].Name)
	}); t >= 0 {
		return t
	}
	return pick(func(r colRef) bool { return r.col == 0 })
}

// namedAfter reports whether table is named after id column col:
// orders/order for order_id, order_id or orderid; any table for "id".
func namedAfter(table, col string) bool {
	stem := strings.ToLower(col)
	for _, suf := range []string{"_id", "id"} {
		if strings.HasSuffix(stem, suf) && len(stem) > len(suf) {
			stem = strings.TrimSuffix(stem, suf)
			break
		}
	}
	t := strings.ToLower(table)
	return t == stem || t == stem+"s" || t == stem+"es" || strings.TrimSuffix(stem, "y")+"ies" == t
}

// joined reports whether the statements join column x to column y.
func (a *analysis) joined(x, y colRef) bool {
	w := a.w
	for _, j := range w.Joins {
		ti, oi := w.TableIndex(j.Table), w.TableIndex(j.OtherTable)
		if ti < 0 || oi < 0 {
			continue
		}
		p := colRef{ti, w.Tables[ti].ColumnIndex(j.Column)}
		q := colRef{oi, w.Tables[oi].ColumnIndex(j.OtherColumn)}
		if p == x && q == y || p == y && q == x {
			return true
		}
	}
	return false
}

// identifies reports whether column r identifies its table's rows: the
// catalog's one-column primary key, values unique in a row sample of at
// least 20 rows, or, without rows, fresh values on insert.
func (a *analysis) identifies(r colRef) bool {
	t := a.w.Tables[r.table]
	name := t.Columns[r.col].Name
	if cat := shardkey.CatalogOf(a.w); cat != nil {
		if info := cat.Table(t.Name); info != nil && len(info.PrimaryKey) > 0 {
			return len(info.PrimaryKey) == 1 && info.PrimaryKey[0] == name
		}
	}
	// A parent is read, updated or deleted, not only appended to (an
	// append-only history table's ids are unique but nothing hangs off
	// its rows).
	if !a.accessed(r.table, -1) {
		return false
	}
	if t.Rows >= 20 {
		return a.columnCard(r.table, name) == t.Rows
	}
	// Without rows, the column itself must be how the table is looked up.
	if !a.accessed(r.table, r.col) {
		return false
	}
	// No rows (a log): the values its inserts bind, when there are
	// enough of them and all differ.
	ins := map[shardkey.Value]bool{}
	n := 0
	note := func(conds []shardkey.Cond) {
		for _, c := range conds {
			if c.Col == r.col && c.Op == shardkey.Eq && c.Fresh == shardkey.NotFresh {
				ins[c.Val.Canonical()] = true
				n++
			}
		}
	}
	for _, tx := range a.w.Txns {
		for _, st := range tx.Stmts {
			if st.Table == r.table && st.Kind == shardkey.Insert {
				note(st.Conds)
			}
		}
	}
	if n >= 20 && len(ins) == n {
		return true
	}
	// A log's inserts are both operations and transaction statements:
	// count the operations' on their own.
	clear(ins)
	n = 0
	for _, op := range a.w.Ops {
		if op.Table == r.table && op.Kind == shardkey.Insert {
			for _, in := range op.Instances {
				note(in.Conds)
			}
		}
	}
	if n >= 20 && len(ins) == n {
		return true
	}
	for _, tx := range a.w.Txns {
		for _, st := range tx.Stmts {
			if st.Table != r.table || st.Kind != shardkey.Insert {
				continue
			}
			for _, c := range st.Conds {
				if c.Col == r.col && c.Fresh != shardkey.NotFresh {
					return true
				}
			}
		}
	}
	for _, op := range a.w.Ops {
		if op.Table != r.table || op.Kind != shardkey.Insert || len(op.Instances) == 0 {
			continue
		}
		for _, c := range op.Instances[0].Conds {
			if c.Col == r.col && c.Fresh != shardkey.NotFresh {
				return true
			}
		}
	}
	return false
}

// Carry is one table that carries the root key by denormalisation, with
// what it costs.
type Carry struct {
	Table  string `json:"table"`
	Column string `json:"column"`
	// Path is how the root value is found: the child's column and the
	// parent it references, hop by hop ("order_items.order_id ->
	// orders.order_id").
	Path []string `json:"path"`
	// Source says why the relation was assumed.
	Source string `json:"source"`
	// BytesPerRow is the added column's size; Rows the table's rows (the
	// database's estimate, else the sample's); Bytes their product.
	BytesPerRow float64 `json:"bytes_per_row"`
	Rows        float64 `json:"rows"`
	Bytes       float64 `json:"bytes"`
	Backfill    string  `json:"backfill"`
	Index       string  `json:"index"`
	// Unresolved is the share (0..1) of the sample's rows whose parent
	// row is not in the parent's sample (their root value is unknown).
	Unresolved float64 `json:"unresolved_share"`
}

// carryPaths returns, for root class e, how each table without a column
// of e reaches a table with one through parents (at most three hops),
// keyed by table index.
func (a *analysis) carryPaths(e *entity) map[int][]link {
	carries := map[int]int{} // table -> root column
	for _, r := range e.cols {
		if _, ok := carries[r.table]; !ok {
			carries[r.table] = r.col
		}
	}
	out := map[int][]link{}
	for ti := range a.w.Tables {
		if _, ok := carries[ti]; ok {
			continue
		}
		// Breadth first up the links, shortest path to a carrier.
		type state struct {
			t    int
			path []link
		}
		q := []state{{ti, nil}}
		visited := map[int]bool{ti: true}
		for len(q) > 0 {
			s := q[0]
			q = q[1:]
			if _, ok := carries[s.t]; ok && s.t != ti {
				out[ti] = s.path
				break
			}
			if len(s.path) >= 3 {
				continue
			}
			for _, l := range a.links {
				if l.child == s.t && !visited[l.parent] {
					visited[l.parent] = true
					q = append(q, state{l.parent, append(append([]link(nil), s.path...), l)})
				}
			}
		}
	}
	return out
}

// carried returns a copy of the workload in which every table reachable
// from a carrier of root class e holds e's column (named e.name) with the
// value its parent row holds, in its rows, in the queries that bind the
// reference to the parent and in the transaction statements (from the
// statement on the parent in the same transaction, else from the parent's
// rows); and the carries with their costs. It returns nil when no table
// needs the key carried.
func (a *analysis) carried(e *entity) (*shardkey.Workload, []Carry) {
	w := a.w
	paths := a.carryPaths(e)
	if len(paths) == 0 {
		return nil, nil
	}
	rootCol := map[int]int{}
	for _, r := range e.cols {
		if _, ok := rootCol[r.table]; !ok {
			rootCol[r.table] = r.col
		}
	}
	var typ shardkey.Type
	for _, r := range e.cols {
		typ = w.Tables[r.table].Columns[r.col].Type
		break
	}
	// A table that has a column of that name already (of another
	// meaning) cannot take it.
	for ti := range paths {
		if w.Tables[ti].Column(e.name) != nil {
			delete(paths, ti)
		}
	}
	if len(paths) == 0 {
		return nil, nil
	}
	// rootOf[t][v]: the root value of the row of t whose column c holds v,
	// for the (t, c) pairs the paths go through.
	type tc struct{ t, c int }
	lookups := map[tc]map[shardkey.Value]shardkey.Value{}
	var rowRoot func(t, row int) (shardkey.Value, bool)
	lookup := func(t, c int) map[shardkey.Value]shardkey.Value {
		k := tc{t, c}
		if m, ok := lookups[k]; ok {
			return m
		}
		m := map[shardkey.Value]shardkey.Value{}
		lookups[k] = m
		tb := w.Tables[t]
		for i := 0; i < tb.Rows; i++ {
			if v, ok := rowRoot(t, i); ok {
				m[tb.Columns[c].Value(i).Canonical()] = v
			}
		}
		// Statements that bind both (the parent's inserts in a log)
		// map the values the row sample does not hold.
		if rc, ok := rootCol[t]; ok {
			note := func(conds []shardkey.Cond) {
				k, ok1 := eqVal(conds, c)
				v, ok2 := eqVal(conds, rc)
				if ok1 && ok2 && !v.IsNull() {
					if _, dup := m[k.Canonical()]; !dup {
						m[k.Canonical()] = v
					}
				}
			}
			for _, tx := range w.Txns {
				for _, st := range tx.Stmts {
					if st.Table == t {
						note(st.Conds)
					}
				}
			}
			for _, op := range w.Ops {
				if op.Table == t {
					for _, in := range op.Instances {
						note(in.Conds)
					}
				}
			}
		}
		return m
	}
	rowRoot = func(t, row int) (shardkey.Value, bool) {
		if rc, ok := rootCol[t]; ok {
			v := w.Tables[t].Columns[rc].Value(row)
			return v, !v.IsNull()
		}
		p := paths[t]
		if len(p) == 0 {
			return shardkey.Value{}, false
		}
		l := p[0]
		v, ok := lookup(l.parent, l.pcol)[w.Tables[t].Columns[l.col].Value(row).Canonical()]
		return v, ok
	}
	// valueRoot maps a value of table t's first-hop column to its root.
	valueRoot := func(t int, v shardkey.Value) (shardkey.Value, bool) {
		l := paths[t][0]
		x, ok := lookup(l.parent, l.pcol)[v.Canonical()]
		return x, ok
	}
	dw := *w
	dw.Tables = append([]*shardkey.Table(nil), w.Tables...)
	newCol := map[int]int{}
	var carries []Carry
	tis := make([]int, 0, len(paths))
	for ti := range paths {
		tis = append(tis, ti)
	}
	sort.Ints(tis)
	for _, ti := range tis {
		t := w.Tables[ti]
		nt := *t
		nt.Columns = append(append([]*shardkey.Column(nil), t.Columns...), &shardkey.Column{Name: e.name, Type: typ})
		col := nt.Columns[len(nt.Columns)-1]
		missing := 0
		for i := 0; i < t.Rows; i++ {
			v, ok := rowRoot(ti, i)
			if !ok {
				v = shardkey.Value{}
				missing++
			}
			if err := col.Append(v); err != nil {
				_ = col.Append(shardkey.Value{})
			}
		}
		newCol[ti] = len(nt.Columns) - 1
		dw.Tables[ti] = &nt
		carries = append(carries, a.carryCost(e, ti, paths[ti], typ, missing))
	}
	// Queries: an instance binding the first hop's column learns the root.
	dw.Ops = make([]*shardkey.Operation, len(w.Ops))
	for i, op := range w.Ops {
		dw.Ops[i] = op
		nc, ok := newCol[op.Table]
		if !ok {
			continue
		}
		l := paths[op.Table][0]
		oc := *op
		oc.Instances = make([]shardkey.Instance, len(op.Instances))
		for j, in := range op.Instances {
			in.Conds = withRoot(in.Conds, l.col, nc, func(v shardkey.Value) (shardkey.Value, bool) { return valueRoot(op.Table, v) })
			oc.Instances[j] = in
		}
		dw.Ops[i] = &oc
	}
	// Transactions: the root value of a statement on a child comes from a
	// statement of the same transaction on its parent that binds the
	// reference (the order row inserted with its items), else from the
	// parent's rows.
	dw.Txns = make([]shardkey.Txn, len(w.Txns))
	for i, tx := range w.Txns {
		dw.Txns[i] = tx
		need := false
		for _, st := range tx.Stmts {
			if _, ok := newCol[st.Table]; ok {
				need = true
			}
		}
		if !need {
			continue
		}
		stmts := make([]shardkey.Stmt, len(tx.Stmts))
		copy(stmts, tx.Stmts)
		// Up to three passes: a grandchild learns its root from a child
		// that learnt it in the pass before.
		for pass := 0; pass < 3; pass++ {
			for si := range stmts {
				st := &stmts[si]
				nc, ok := newCol[st.Table]
				if !ok || hasCol(st.Conds, nc) {
					continue
				}
				l := paths[st.Table][0]
				st.Conds = withRoot(st.Conds, l.col, nc, func(v shardkey.Value) (shardkey.Value, bool) {
					for _, o := range stmts {
						if o.Table != l.parent {
							continue
						}
						rc, ok := rootCol[o.Table]
						if !ok {
							rc, ok = newCol[o.Table]
						}
						if !ok {
							continue
						}
						if pv, ok := eqVal(o.Conds, l.pcol); ok && pv.Canonical() == v.Canonical() {
							if rv, ok := eqVal(o.Conds, rc); ok {
								return rv, true
							}
						}
					}
					return valueRoot(st.Table, v)
				})
			}
		}
		dw.Txns[i].Stmts = stmts
	}
	if cat := shardkey.CatalogOf(w); cat != nil {
		shardkey.SetCatalog(&dw, cat)
	}
	return &dw, carries
}

// withRoot returns conds with an equality (or IN list) on column nc added
// where conds bind column col by equality (IN) to values root maps.
func withRoot(conds []shardkey.Cond, col, nc int, root func(shardkey.Value) (shardkey.Value, bool)) []shardkey.Cond {
	for _, c := range conds {
		switch {
		case c.Col != col:
		case c.Op == shardkey.Eq && c.Fresh == shardkey.NotFresh:
			if v, ok := root(c.Val); ok {
				return append(append([]shardkey.Cond(nil), conds...), shardkey.Cond{Col: nc, Op: shardkey.Eq, Val: v})
			}
		case c.Op == shardkey.In:
			var list []shardkey.Value
			for _, x := range c.List {
				v, ok := root(x)
				if !ok {
					return conds
				}
				list = append(list, v)
			}
			return append(append([]shardkey.Cond(nil), conds...), shardkey.Cond{Col: nc, Op: shardkey.In, List: list})
		}
	}
	return conds
}

func hasCol(conds []shardkey.Cond, col int) bool {
	for _, c := range conds {
		if c.Col == col {
			return true
		}
	}
	return false
}

func eqVal(conds []shardkey.Cond, col int) (shardkey.Value, bool) {
	for _, c := range conds {
		if c.Col == col && c.Op == shardkey.Eq && c.Fresh == shardkey.NotFresh {
			return c.Val, true
		}
	}
	return shardkey.Value{}, false
}

// carryCost describes carrying root column e.name into table ti through
// path: bytes per row x rows, the backfill statement and the index.
func (a *analysis) carryCost(e *entity, ti int, path []link, typ shardkey.Type, missing int) Carry {
	w := a.w
	t := w.Tables[ti]
	c := Carry{Table: t.Name, Column: e.name, Source: path[0].source}
	for _, l := range path {
		c.Path = append(c.Path, fmt.Sprintf("%s.%s -> %s.%s", w.Tables[l.child].Name, w.Tables[l.child].Columns[l.col].Name, w.Tables[l.parent].Name, w.Tables[l.parent].Columns[l.pcol].Name))
	}
	switch typ {
	case shardkey.Int16:
		c.BytesPerRow = 2
	case shardkey.Int32, shardkey.Float32:
		c.BytesPerRow = 4
	case shardkey.UUID:
		c.BytesPerRow = 16
	case shardkey.Text, shardkey.Bytes:
		// The root column's mean length, plus a length byte.
		n, sum := 0, 0
		for _, r := range e.cols {
			col := w.Tables[r.table].Columns[r.col]
			for i := 0; i < len(col.Strs) && i < 10000; i++ {
				sum += len(col.Strs[i])
				n++
			}
		}
		c.BytesPerRow = 1
		if n > 0 {
			c.BytesPerRow += float64(sum) / float64(n)
		}
	default:
		c.BytesPerRow = 8
	}
	c.Rows = float64(t.Rows)
	if cat := shardkey.CatalogOf(w); cat != nil {
		if info := cat.Table(t.Name); info != nil && info.RowEstimate > c.Rows {
			c.Rows = info.RowEstimate
		}
	}
	c.Bytes = c.BytesPerRow * c.Rows
	if t.Rows > 0 {
		c.Unresolved = float64(missing) / float64(t.Rows)
	}
	// UPDATE child SET root = p.root FROM parent p WHERE p.pcol = child.col,
	// joined hop by hop.
	last := path[len(path)-1]
	var from, where []string
	prev := t.Name
	for i, l := range path {
		alias := fmt.Sprintf("p%d", i+1)
		from = append(from, fmt.Sprintf("%s %s", w.Tables[l.parent].Name, alias))
		where = append(where, fmt.Sprintf("%s.%s = %s.%s", alias, w.Tables[l.parent].Columns[l.pcol].Name, prev, w.Tables[l.child].Columns[l.col].Name))
		prev = alias
	}
	rootName := e.name
	for _, r := range e.cols {
		if r.table == last.parent {
			rootName = w.Tables[r.table].Columns[r.col].Name
		}
	}
	c.Backfill = fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s; UPDATE %s SET %s = %s.%s FROM %s WHERE %s (in batches, while new writes set it)",
		t.Name, e.name, sqlType(typ), t.Name, e.name, prev, rootName, strings.Join(from, ", "), strings.Join(where, " AND "))
	c.Index = fmt.Sprintf("(%s, %s) on %s, and %s in every unique key of %s (Citus requires the distribution column in unique constraints)",
		e.name, t.Columns[path[0].col].Name, t.Name, e.name, t.Name)
	return c
}

// sqlType is the PostgreSQL type of a carried column of type t.
func sqlType(t shardkey.Type) string {
	switch t {
	case shardkey.Int16:
		return "smallint"
	case shardkey.Int32:
		return "integer"
	case shardkey.UUID:
		return "uuid"
	case shardkey.Text:
		return "text"
	case shardkey.Bytes:
		return "bytea"
	case shardkey.Timestamp:
		return "timestamptz"
	case shardkey.Float32:
		return "real"
	case shardkey.Float64:
		return "double precision"
	case shardkey.Uint64:
		return "numeric(20)"
	}
	return "bigint"
}

// carryText is the one-line description of a design's carried columns.
func carryText(cs []Carry) string {
	var ts []string
	for _, c := range cs {
		ts = append(ts, c.Table)
	}
	if len(cs) == 0 {
		return ""
	}
	return fmt.Sprintf("%s carried into %s", cs[0].Column, strings.Join(ts, ", "))
}

func distinctTables(cols []colRef) int {
	seen := map[int]bool{}
	for _, r := range cols {
		seen[r.table] = true
	}
	return len(seen)
}

// carriedCandidates scores, for each root entity some tables reach only
// through a parent, the design with the root key carried into them.
func (a *analysis) carriedCandidates(list []*Assessment, o sim.Options, adv *Advice) []*Assessment {
	var out []*Assessment
	for i, e := range a.entities {
		if i >= maxEntities {
			break
		}
		dw, carries := a.carried(e)
		if dw == nil {
			continue
		}
		da := analyse(dw, a.shards)
		var de *entity
		for _, x := range da.entities {
			if x.name == e.name {
				de = x
			}
		}
		if de == nil {
			continue
		}
		key := da.complete(da.entityDesign(de, "hash"))
		c, err := sim.Score(dw, key, o)
		if err != nil {
			adv.Warnings = append(adv.Warnings, fmt.Sprintf("candidate %s with %s skipped: %v", key, carryText(carries), err))
			continue
		}
		origin := fmt.Sprintf("%s is the root of an entity group: %s reach it through their parents (%s)", e.name, tableList(carries), carryPathText(carries))
		as := da.assess(key, origin, c, a.shards)
		as.w, as.an, as.Carry = dw, da, carries
		out = append(out, as)
	}
	return out
}

// compareCarried tells, for each design with a carried key, how the same
// root scores without carrying it, and which the numbers favour.
func (a *analysis) compareCarried(list []*Assessment) {
	for _, as := range list {
		if len(as.Carry) == 0 {
			continue
		}
		col := as.Carry[0].Column
		var without *Assessment
		for _, x := range list {
			if len(x.Carry) > 0 || x.Score == nil {
				continue
			}
			d, err := shardkey.ParseDesign(x.Key)
			if err != nil || d.Default == nil || !slices.Equal(d.Default.Columns(), []string{col}) {
				continue
			}
			if _, ok := baseExpr(d.Default).(*shardkey.HashExpr); ok {
				without = x
				break
			}
		}
		if without == nil {
			continue
		}
		favour := "the numbers favour carrying it"
		if better(without, as) {
			favour = "the numbers do not favour carrying it"
		}
		as.Reasons = append(as.Reasons, fmt.Sprintf("with %s: %s single-shard and local, %s of transactions cross shards, busiest shard %s/s; without (%s): %s single-shard and local, %s of transactions cross shards, busiest shard %s/s; %s",
			carryText(as.Carry), pct(as.Criteria.Local), pct(as.Criteria.CrossShardTxn), fmtF(as.Criteria.MaxShardWork),
			without.Key, pct(without.Criteria.Local), pct(without.Criteria.CrossShardTxn), fmtF(without.Criteria.MaxShardWork), favour))
		for _, c := range as.Carry {
			size := fmt.Sprintf("%s x %s rows = %s", bytesText(c.BytesPerRow), numText(c.Rows), bytesText(c.Bytes))
			if c.Rows == 0 {
				size = fmt.Sprintf("%s per row (the table's row count is unknown: no row sample or catalog)", bytesText(c.BytesPerRow))
			}
			as.Fixes = append(as.Fixes, Fix{Kind: "carry-key", Target: c.Table,
				Text: fmt.Sprintf("Carry %s into %s (%s): %s; backfill: %s; index %s.",
					c.Column, c.Table, strings.Join(c.Path, ", "), size, c.Backfill, c.Index)})
		}
	}
}

func tableList(cs []Carry) string {
	var ts []string
	for _, c := range cs {
		ts = append(ts, c.Table)
	}
	return strings.Join(ts, ", ")
}

func carryPathText(cs []Carry) string {
	var ps []string
	for _, c := range cs {
		ps = append(ps, strings.Join(c.Path, ", "))
	}
	return strings.Join(ps, "; ")
}

func bytesText(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f bytes", b)
}

func numText(x float64) string { return numfmt.Round(x) }

// RootStats is the checklist of a design's root entity, over every table
// the design keys by it (seed 003's evaluation checklist: cardinality,
// skew, the largest entity group, monotonicity).
type RootStats struct {
	Column string   `json:"column"`
	Tables []string `json:"tables"`
	// Basis says what the figures count: "rows" (the row samples' weights).
	Basis string `json:"basis"`
	// Cardinality is the number of distinct root values over the tables.
	Cardinality int `json:"cardinality"`
	// TopValues are the root values with the largest share (0..1) of the
	// group's rows' weight across all its tables, heaviest first.
	TopValues []sim.TopValue `json:"top_values"`
	// LargestGroupRows is the rows of the largest entity group, across
	// its tables.
	LargestGroupRows int `json:"largest_group_rows"`
	// Monotonicity is the root column's rank correlation with insert
	// order in its own table (the one it identifies, else the largest).
	Monotonicity float64 `json:"monotonicity"`
	Monotonic    bool    `json:"monotonic"`
	// MonotonicityUnknown: without rows, too few inserted values to tell.
	MonotonicityUnknown bool `json:"monotonicity_unknown,omitempty"`
	// TrafficTopValues, when rows and statements are both given, are the
	// root values with the largest share (0..1) of the requests that
	// name one by equality on the group's tables.
	TrafficTopValues []sim.TopValue `json:"traffic_top_values,omitempty"`
}

type valueWeight struct {
	v     shardkey.Value
	w     float64
	first int
}

// rootTraffic returns the root values that operations on the tables
// design d keys by col bind by equality, heaviest first, each weighted
// by its share of its operation's rate, and their total.
func rootTraffic(w *shardkey.Workload, d *shardkey.Design, col string) ([]valueWeight, float64) {
	m := map[shardkey.Value]*valueWeight{}
	total := 0.0
	order := 0
	for ti, t := range w.Tables {
		e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
		if e == nil || len(e.Columns()) != 1 || e.Columns()[0] != col {
			continue
		}
		if _, ok := e.(*shardkey.ReplicateExpr); ok {
			continue
		}
		ci := t.ColumnIndex(col)
		for _, op := range w.Ops {
			if op.Table != ti || len(op.Instances) == 0 {
				continue
			}
			sum := 0.0
			for _, in := range op.Instances {
				sum += in.Weight
			}
			for _, in := range op.Instances {
				v, ok := eqVal(in.Conds, ci)
				if !ok || sum == 0 || v.IsNull() {
					continue
				}
				wt := op.Rate * in.Weight / sum
				k := v.Canonical()
				x := m[k]
				if x == nil {
					x = &valueWeight{v: v, first: order}
					m[k] = x
				}
				order++
				x.w += wt
				total += wt
			}
		}
	}
	out := make([]valueWeight, 0, len(m))
	for _, x := range m {
		out = append(out, *x)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].w != out[j].w {
			return out[i].w > out[j].w
		}
		return out[i].first < out[j].first
	})
	return out, total
}

// rootStats computes the root checklist of design key over w, when the
// design keys two or more tables by one hash or range column.
func rootStats(w *shardkey.Workload, key string) *RootStats {
	d, err := shardkey.ParseDesign(key)
	if err != nil || d.Default == nil || len(d.Default.Columns()) != 1 {
		return nil
	}
	col := d.Default.Columns()[0]
	type agg struct {
		w    float64
		rows int
		row  int // first (table, row) order, for ties
		text string
	}
	m := map[shardkey.Value]*agg{}
	rs := &RootStats{Column: col, Basis: "rows"}
	total := 0.0
	order := 0
	monoTable := -1
	for ti, t := range w.Tables {
		e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
		if e == nil || len(e.Columns()) != 1 || e.Columns()[0] != col {
			continue
		}
		if _, ok := e.(*shardkey.ReplicateExpr); ok {
			continue
		}
		ci := t.ColumnIndex(col)
		if ci < 0 || t.Rows == 0 {
			continue
		}
		rs.Tables = append(rs.Tables, t.Name)
		if monoTable < 0 || t.Rows > w.Tables[monoTable].Rows {
			monoTable = ti
		}
		for i := 0; i < t.Rows; i++ {
			v := t.Columns[ci].Value(i)
			if v.IsNull() {
				continue
			}
			k := v.Canonical()
			x := m[k]
			if x == nil {
				x = &agg{row: order, text: v.String()}
				m[k] = x
			}
			order++
			x.w += t.Weight(i)
			x.rows++
			total += t.Weight(i)
		}
	}
	traffic, ttotal := rootTraffic(w, d, col)
	if total == 0 {
		// No rows (a log): the requests that name each root value, over
		// every table of the group.
		rs.Basis = "traffic"
		rs.Tables = rs.Tables[:0]
		for _, t := range w.Tables {
			e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
			if e == nil || len(e.Columns()) != 1 || e.Columns()[0] != col {
				continue
			}
			if _, ok := e.(*shardkey.ReplicateExpr); ok {
				continue
			}
			rs.Tables = append(rs.Tables, t.Name)
		}
		for _, x := range traffic {
			m[x.v.Canonical()] = &agg{w: x.w, row: x.first, text: x.v.String()}
		}
		total = ttotal
		if total == 0 || len(rs.Tables) < 2 {
			return nil
		}
		monoTable = -1
	} else if ttotal > 0 {
		// Rows and statements both: the request share of the heaviest
		// values too.
		for i, x := range traffic {
			if i >= 5 {
				break
			}
			rs.TrafficTopValues = append(rs.TrafficTopValues, sim.TopValue{Value: x.v.String(), Share: x.w / ttotal})
		}
	}
	if len(rs.Tables) < 2 || total == 0 {
		return nil
	}
	// The table the column identifies holds the entities themselves.
	for ti, t := range w.Tables {
		ci := t.ColumnIndex(col)
		if ci >= 0 && t.Rows >= 20 && sim.ComputeKeyStats(t, []int{ci}).Cardinality == t.Rows {
			monoTable = ti
			break
		}
	}
	if monoTable >= 0 {
		ks := sim.ComputeKeyStats(w.Tables[monoTable], []int{w.Tables[monoTable].ColumnIndex(col)})
		rs.Monotonicity, rs.Monotonic = ks.Monotonicity, ks.Monotonic
	} else {
		// Inserted values in log order, in the table with the most.
		best := -1.0
		for ti, t := range w.Tables {
			if ci := t.ColumnIndex(col); ci >= 0 && slices.Contains(rs.Tables, t.Name) {
				ks := sim.TrafficKeyStats(w, ti, []int{ci})
				if x := float64(ks.Cardinality); x > best && !ks.MonotonicityUnknown || best < 0 {
					best = x
					rs.Monotonicity, rs.Monotonic, rs.MonotonicityUnknown = ks.Monotonicity, ks.Monotonic, ks.MonotonicityUnknown
				}
			}
		}
	}
	rs.Cardinality = len(m)
	all := make([]*agg, 0, len(m))
	for _, x := range m {
		all = append(all, x)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].w != all[j].w {
			return all[i].w > all[j].w
		}
		return all[i].row < all[j].row
	})
	for i, x := range all {
		if i >= 5 {
			break
		}
		rs.TopValues = append(rs.TopValues, sim.TopValue{Value: x.text, Share: x.w / total})
	}
	if len(all) > 0 {
		rs.LargestGroupRows = all[0].rows
	}
	return rs
}

// rootStatsOf is rootStats of the analysed workload, memoised by the
// design's root column and the tables it keys by it (candidates share
// them, and each pass reads every row of those tables).
func (a *analysis) rootStatsOf(key string) *RootStats {
	d, err := shardkey.ParseDesign(key)
	if err != nil || d.Default == nil || len(d.Default.Columns()) != 1 {
		return nil
	}
	col := d.Default.Columns()[0]
	memo := col
	for _, t := range a.w.Tables {
		e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
		if _, ok := e.(*shardkey.ReplicateExpr); ok || e == nil || len(e.Columns()) != 1 || e.Columns()[0] != col {
			continue
		}
		memo += "\x00" + t.Name
	}
	if a.roots == nil {
		a.roots = map[string]*RootStats{}
	}
	if rs, ok := a.roots[memo]; ok {
		return rs
	}
	rs := rootStats(a.w, key)
	a.roots[memo] = rs
	return rs
}

// rootText is the checklist in one sentence.
func rootText(rs *RootStats) string {
	mono := "not monotonic"
	if rs.Monotonic {
		mono = "monotonic: harmless under hash, but under range every new entity would go to the last range"
	}
	top := ""
	if len(rs.TopValues) > 0 {
		top = fmt.Sprintf("; the largest entity group, %s, holds %s of the group's rows (%s rows across its tables)",
			valueText([]string{rs.Column}, rs.TopValues[0].Value), pct(rs.TopValues[0].Share), numfmt.Commas(int64(rs.LargestGroupRows)))
	}
	if len(rs.TrafficTopValues) > 0 && len(rs.TopValues) > 0 {
		top += fmt.Sprintf("; by traffic, %s is named by %s of the requests on its tables",
			valueText([]string{rs.Column}, rs.TrafficTopValues[0].Value), pct(rs.TrafficTopValues[0].Share))
	}
	basis := ""
	if rs.Basis == "traffic" {
		basis = " (traffic-based: no row sample)"
		if len(rs.TopValues) > 0 {
			top = fmt.Sprintf("; the busiest entity, %s, is named by %s of the requests on its tables (its rows: unknown)",
				valueText([]string{rs.Column}, rs.TopValues[0].Value), pct(rs.TopValues[0].Share))
		}
	}
	mono = fmt.Sprintf("%s (rank correlation %.2f with insert order)", mono, rs.Monotonicity)
	if rs.MonotonicityUnknown {
		mono = "monotonicity unknown (too few inserted values)"
	}
	return fmt.Sprintf("root entity %s over %s%s: %s distinct values%s; %s",
		rs.Column, strings.Join(rs.Tables, ", "), basis, numfmt.Commas(int64(rs.Cardinality)), top, mono)
}
