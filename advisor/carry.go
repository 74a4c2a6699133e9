package advisor

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/jsonnull"
	"github.com/shardkey/shardkey/internal/numfmt"
	"github.com/shardkey/shardkey/internal/sqlident"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
)

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
	// database's estimate, else the sample's); Bytes their product. With
	// neither (a workload read from a log) the row count is unknown:
	// Rows and Bytes are 0 here and null in JSON (MarshalJSON).
	BytesPerRow float64 `json:"bytes_per_row"`
	Rows        float64 `json:"rows"`
	Bytes       float64 `json:"bytes"`
	Backfill    string  `json:"backfill"`
	Index       string  `json:"index"`
	// Unresolved is the share (0..1) of the sample's rows whose parent
	// row is not in the parent's sample (their root value is unknown).
	Unresolved float64 `json:"unresolved_share"`
	// Joined lists the reads of the table that reach it through a join
	// with its parent by the reference, the parent's root value bound
	// (oi JOIN o ON o.order_id = oi.order_id WHERE o.customer_id = 5):
	// scored on the root value's shard, as a join of co-located tables
	// is once it names the carried column too.
	Joined []JoinedRead `json:"joined_reads,omitempty"`
}

// MarshalJSON writes c with rows and bytes null when the table's row
// count is unknown (Rows 0: no row sample, no catalog estimate).
func (c Carry) MarshalJSON() ([]byte, error) {
	type plain Carry
	b, err := jsonnull.Encode(plain(c)) // paths hold "->": the caller's encoder escapes or not
	if err != nil {
		return nil, err
	}
	return jsonnull.Null(b, jsonnull.Unless(c.Rows > 0, "rows", "bytes")...)
}

// JoinedRead is an operation whose statements join the carried table to
// Parent, Rate requests/s of them routed by the parent's root value.
type JoinedRead struct {
	Operation string  `json:"operation"`
	Parent    string  `json:"parent"`
	Rate      float64 `json:"requests_per_s"`
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
	// Queries: an instance binding the first hop's column learns the root,
	// and one joined to its parent by it learns the parent's.
	var joins []joinedRead
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
		joined, total := 0.0, 0.0
		for j, in := range op.Instances {
			total += in.Weight
			in.Conds = withRoot(in.Conds, l.col, nc, func(v shardkey.Value) (shardkey.Value, bool) { return valueRoot(op.Table, v) })
			if !hasCol(in.Conds, nc) {
				// Joined to its parent by the reference (oi JOIN o ON
				// o.order_id = oi.order_id WHERE o.customer_id = 5): the
				// child's rows are the parent's entity's, co-located
				// with it once the join names the carried column too
				// (ON ... AND oi.customer_id = o.customer_id).
				if x, ok := peerRoot(in.Peers, l, rootCol, paths, valueRoot); ok {
					in.Conds = append(append([]shardkey.Cond(nil), in.Conds...), x.withCol(nc))
					joined += in.Weight
				}
			}
			oc.Instances[j] = in
		}
		if joined > 0 {
			// An instance's share of the rate is its weight over the sum.
			joins = append(joins, joinedRead{op: op.Name, child: op.Table, parent: l.parent, rate: op.Rate * joined / total})
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
	if cat := w.Catalog; cat != nil {
		dw.Catalog = cat
	}
	for _, j := range joins {
		for k := range carries {
			if carries[k].Table == w.Tables[j.child].Name {
				carries[k].Joined = append(carries[k].Joined, JoinedRead{Operation: j.op, Parent: w.Tables[j.parent].Name, Rate: j.rate})
			}
		}
	}
	return &dw, carries
}

// joinedRead is an operation on a child table whose instances, joined to
// their parent by the reference, were routed by the parent's root value
// (rate: their requests/s).
type joinedRead struct {
	op            string
	child, parent int
	rate          float64
}

// rootCond is the root value (eq) or values (list) a child's statement
// is routed by.
type rootCond struct {
	eq   bool
	val  shardkey.Value
	list []shardkey.Value
}

func (r rootCond) withCol(col int) shardkey.Cond {
	if r.eq {
		return shardkey.Cond{Col: col, Op: shardkey.Eq, Val: r.val}
	}
	return shardkey.Cond{Col: col, Op: shardkey.In, List: r.list}
}

// peerRoot returns the root value a child's instance reaches through a
// join to its parent by first hop l (child.col = parent.pcol): the
// parent's root column as the statement binds it (= or IN), or, for a
// parent that carries the root itself, its own reference mapped to the
// root (valueRoot). false when no peer of peers is that join or binds
// it.
func peerRoot(peers []shardkey.Peer, l link, rootCol map[int]int, paths map[int][]link, valueRoot func(int, shardkey.Value) (shardkey.Value, bool)) (rootCond, bool) {
	for _, p := range peers {
		if p.Table != l.parent || p.Col != l.col || p.OtherCol != l.pcol {
			continue
		}
		col, mapped := -1, false
		if rc, ok := rootCol[l.parent]; ok {
			col = rc
		} else if pp := paths[l.parent]; len(pp) > 0 {
			col, mapped = pp[0].col, true
		}
		root := func(v shardkey.Value) (shardkey.Value, bool) {
			if !mapped {
				return v, !v.IsNull()
			}
			return valueRoot(l.parent, v)
		}
		for _, c := range p.Conds {
			if c.Col != col {
				continue
			}
			switch {
			case c.Op == shardkey.Eq && c.Fresh == shardkey.NotFresh:
				if v, ok := root(c.Val); ok {
					return rootCond{eq: true, val: v}, true
				}
			case c.Op == shardkey.In && len(c.List) > 0 && c.Unknown == 0:
				var list []shardkey.Value
				for _, x := range c.List {
					v, ok := root(x)
					if !ok {
						list = nil
						break
					}
					list = append(list, v)
				}
				if list != nil {
					return rootCond{list: list}, true
				}
			}
		}
	}
	return rootCond{}, false
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
	if cat := w.Catalog; cat != nil {
		if info := cat.Table(t.Name); info != nil && info.RowEstimate > c.Rows {
			c.Rows = info.RowEstimate
		}
	}
	c.Bytes = c.BytesPerRow * c.Rows
	if t.Rows > 0 {
		c.Unresolved = float64(missing) / float64(t.Rows)
	}
	// The backfill in the source's dialect (sourceDialect), identifiers
	// quoted by its rules. PostgreSQL: UPDATE child SET root = pN.root
	// FROM parent p1, ... WHERE p1.pcol = child.col AND ...; MySQL and
	// MariaDB have no UPDATE ... FROM but a multi-table UPDATE: UPDATE
	// child JOIN parent p1 ON p1.pcol = child.col ... SET child.root =
	// pN.root. Joined hop by hop.
	mysql := sourceDialect(w) == "mysql"
	q := sqlident.PG
	typeOf := sqlType
	if mysql {
		q, typeOf = sqlident.MySQL, mysqlType
	}
	last := path[len(path)-1]
	var from, where, joins []string
	prev := q(t.Name)
	for i, l := range path {
		alias := fmt.Sprintf("p%d", i+1)
		on := fmt.Sprintf("%s.%s = %s.%s", alias, q(w.Tables[l.parent].Columns[l.pcol].Name), prev, q(w.Tables[l.child].Columns[l.col].Name))
		from = append(from, fmt.Sprintf("%s %s", q(w.Tables[l.parent].Name), alias))
		where = append(where, on)
		joins = append(joins, fmt.Sprintf("JOIN %s %s ON %s", q(w.Tables[l.parent].Name), alias, on))
		prev = alias
	}
	rootName := e.name
	for _, r := range e.cols {
		if r.table == last.parent {
			rootName = w.Tables[r.table].Columns[r.col].Name
		}
	}
	add := fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", q(t.Name), q(e.name), typeOf(typ))
	if mysql {
		c.Backfill = fmt.Sprintf("%s; UPDATE %s %s SET %s.%s = %s.%s (in batches, while new writes set it)",
			add, q(t.Name), strings.Join(joins, " "), q(t.Name), q(e.name), prev, q(rootName))
	} else {
		c.Backfill = fmt.Sprintf("%s; UPDATE %s SET %s = %s.%s FROM %s WHERE %s (in batches, while new writes set it)",
			add, q(t.Name), q(e.name), prev, q(rootName), strings.Join(from, ", "), strings.Join(where, " AND "))
	}
	c.Index = fmt.Sprintf("(%s, %s) on %s, and %s in every unique key of %s (%s)",
		q(e.name), q(t.Columns[path[0].col].Name), q(t.Name), q(e.name), q(t.Name), uniqueNote(a.engine))
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

// sourceDialect is the SQL dialect of w's source: "mysql" (MySQL,
// MariaDB) or "postgresql" from the log read (Workload.Dialect) or the
// live database or schema file (Catalog.Engine); "" when none says (rows,
// specs: PostgreSQL's syntax is written).
func sourceDialect(w *shardkey.Workload) string {
	if w.Dialect != "" {
		return w.Dialect
	}
	if w.Catalog != nil {
		e := strings.ToLower(w.Catalog.Engine)
		switch {
		case strings.HasPrefix(e, "mysql"), strings.HasPrefix(e, "mariadb"):
			return "mysql"
		case strings.HasPrefix(e, "postgresql"):
			return "postgresql"
		}
	}
	return ""
}

// uniqueNote says why a unique key must hold the shard key under the
// placement engine named engine: the engine's own rule where it has one
// (Citus: the distribution column in every unique constraint, as
// create_distributed_table checks; PostgreSQL's partitioned tables: the
// partition key in every unique constraint), else what any sharding
// does to a unique index without it.
func uniqueNote(engine string) string {
	switch {
	case partition.IsCitus(engine):
		return "Citus requires the distribution column in unique constraints"
	case engine == "postgres":
		return "PostgreSQL requires the partition key in a partitioned table's unique constraints"
	}
	return "a unique index without it is enforced on each shard alone, not across shards"
}

// mysqlType is the MySQL/MariaDB type of a carried column of type t (as
// sqlType is PostgreSQL's): a uuid in its 36-character text form, text as
// VARCHAR(255) and bytes as VARBINARY(255) (indexable whole), a time as
// DATETIME(6), an unsigned 64-bit integer as BIGINT UNSIGNED.
func mysqlType(t shardkey.Type) string {
	switch t {
	case shardkey.Int16:
		return "SMALLINT"
	case shardkey.Int32:
		return "INT"
	case shardkey.UUID:
		return "CHAR(36)"
	case shardkey.Text:
		return "VARCHAR(255)"
	case shardkey.Bytes:
		return "VARBINARY(255)"
	case shardkey.Timestamp:
		return "DATETIME(6)"
	case shardkey.Float32:
		return "FLOAT"
	case shardkey.Float64:
		return "DOUBLE"
	case shardkey.Uint64:
		return "BIGINT UNSIGNED"
	}
	return "BIGINT"
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
		da.nodes, da.mongo, da.engine = a.nodes, a.mongo, a.engine
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
			adv.skip(key, fmt.Errorf("with %s: %w", carryText(carries), err))
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
				Text: fmt.Sprintf("Carry %s into %s (%s): %s; backfill: %s; index %s.%s",
					c.Column, c.Table, strings.Join(c.Path, ", "), size, c.Backfill, c.Index, joinedText(c, sourceDialect(as.w), a.engine))})
		}
	}
}

// joinedText says, for a carry whose table is read joined to its parent
// (Carry.Joined), what the scores assume of those statements: that the
// join names the carried column on both sides, which is what lets the
// engines keep it on one shard (Citus plans a join of co-located tables
// on one shard when the tables are joined on their distribution column
// and one is filtered on it; Vitess merges the two routes of a join on
// an equality of the same vindex column). dialect quotes the names.
func joinedText(c Carry, dialect, engine string) string {
	if len(c.Joined) == 0 {
		return ""
	}
	if engine == "mongodb" {
		// $lookup's subpipeline is targeted like a query: by the
		// foreign collection's shard key when it matches on it.
		var ops []string
		rate := 0.0
		for _, j := range c.Joined {
			ops = append(ops, j.Operation)
			rate += j.Rate
		}
		return fmt.Sprintf(" Its reads joined to %s by the reference (%s: %s requests/s) are scored on the %s value's shard: write each $lookup into %s to match %s as well as the reference (let and a pipeline $match on both), so MongoDB targets the one shard that holds them (a $lookup by the reference alone asks every shard).",
			c.Joined[0].Parent, strings.Join(ops, ", "), fmtF(rate), c.Column, c.Table, c.Column)
	}
	q := sqlident.PG
	if dialect == "mysql" {
		q = sqlident.MySQL
	}
	var ops []string
	rate := 0.0
	parent := c.Joined[0].Parent
	for _, j := range c.Joined {
		ops = append(ops, j.Operation)
		rate += j.Rate
	}
	since := "since sharded SQL systems keep a join on one shard only when it is on the key (Citus: the distribution column of co-located tables; Vitess: the same vindex column, whose routes it merges)"
	switch engineFamily(engine) {
	case "citus":
		since = "since Citus keeps a join on one shard only when it is on the distribution column of co-located tables"
	case "vitess":
		since = "since Vitess merges a join's routes into one only on the same vindex column"
	}
	return fmt.Sprintf(" Its reads joined to %s by the reference (%s: %s requests/s) are scored on the %s value's shard, as a join of co-located tables runs: write each join with the carried column on both sides, ON ... AND %s.%s = %s.%s, %s (joined by the reference alone, each asks every shard).",
		parent, strings.Join(ops, ", "), fmtF(rate), c.Column, q(c.Table), q(c.Column), q(parent), q(c.Column), since)
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
