package advisor

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// colRef names one column of one table.
type colRef struct {
	table int
	col   int
}

// usage is how the workload filters on one column.
type usage struct {
	eqRate    float64 // requests/s of operations binding it with = or IN (all key parts bound)
	rangeRate float64 // requests/s of operations with a range on it
	ops       int
}

// entity is a class of columns that hold the same values across tables:
// same name, or equal values in the same transactions (a foreign key, or
// a key carried through a join). Sharding every table by its column of
// one entity co-locates each entity's rows: an entity group.
type entity struct {
	cols []colRef
	rate float64 // requests/s binding any of its columns by equality
	name string  // the most used column's name
}

// analysis is what candidate generation learns from the workload.
type analysis struct {
	w   *shardkey.Workload
	hot []hotRow // rows most write transactions write (hotRows)
	// txnEqual: a column's partner in another table whose statements
	// carry the same value in (nearly) every transaction both are in.
	txnEqual map[colRef]colRef
	use      map[colRef]*usage
	pairs    map[[2]colRef]float64 // same-op equality pairs within a table -> rate
	entities []*entity
	classes  []*entity    // every class of columns spanning two or more tables, bound or not
	links    []link       // parent/child relations (see findLinks)
	small    map[int]bool // small, read-mostly tables: reference-table candidates
	// sizeUnknown: tables whose row count nothing gives (no row sample,
	// no catalog estimate): a reference-table candidate among them only
	// because the workload never writes it, whose copy on every shard may
	// be the business's growing table (see unsizedReplicas).
	sizeUnknown map[int]bool
	// fkRoots: entity roots, tables of unknown size a declared foreign key
	// references and the workload reads by the referenced column (users
	// of orders.user_id -> users.id); keyed with their entity's children
	// in that entity's designs, never made reference tables there.
	fkRoots  map[int]bool
	total    float64 // interactive requests/s
	fromTxns bool    // no operations: usage counts transactions' equalities (weights, not requests/s)
	txnStmts float64 // requests in transactions (riders left out), by transaction weight (per second where rates are known)
	shards   int
	// nodes: with slots on nodes (Options.Nodes) the node count, else 0;
	// see servers.
	nodes int
	ix    *opIndex // see index
	// dirs are the value placements spreadFix proposed, by the name its
	// directory(col, NAME) key gives (sim.Options.Directories).
	dirs map[string]map[shardkey.Value]int
	// byTable holds the transactions' statements on each table, in
	// order (see stmtsOf).
	byTable [][]*shardkey.Stmt
	roots   map[string]*RootStats // see rootStatsOf
	// mongo: the engine is MongoDB's, whose hashed keys hash one field:
	// a pair of columns is the compound {a: 1, b: "hashed"} (see compound).
	mongo bool
	// noReference: the engine has no reference (replicated) tables, so no
	// candidate makes a small table replicate: MongoDB (no reference
	// collections) and Redis Cluster (every key lives in one hash slot on
	// one master; nothing is copied to every master).
	noReference bool
	// engine is the placement engine's name (engine-specific notes).
	engine string
	// jumbos caches, per table and column, the value whose documents
	// weigh the most (see jumbo).
	jumbos map[string]jumboStat
	// warns: candidates the advisor built but could not parse (a bug
	// to report, never dropped silently).
	warns []string
}

// opIndex finds a workload's operations by name and sums its writes per
// table once, for the per-operation fixes (a search per operation made
// advice on a log of thousands of statement shapes quadratic).
type opIndex struct {
	w         *shardkey.Workload
	byName    map[string]*shardkey.Operation
	writeRate map[int]float64 // requests/s of writes, by table
	txnWrites map[int]bool    // tables a sampled transaction writes
}

// index returns the operation index of w, built on first use.
func (a *analysis) index(w *shardkey.Workload) *opIndex {
	if a.ix != nil && a.ix.w == w {
		return a.ix
	}
	ix := &opIndex{w: w, byName: map[string]*shardkey.Operation{}, writeRate: map[int]float64{}, txnWrites: map[int]bool{}}
	for _, o := range w.Ops {
		if _, dup := ix.byName[o.Name]; !dup {
			ix.byName[o.Name] = o // the first of a name, as a search finds it
		}
		if o.Kind.IsWrite() {
			ix.writeRate[o.Table] += o.Rate
		}
	}
	for _, tx := range w.Txns {
		if !tx.Committed() {
			continue
		}
		for _, st := range tx.Stmts {
			if st.Kind.IsWrite() {
				ix.txnWrites[st.Table] = true
			}
		}
	}
	a.ix = ix
	return ix
}

func analyse(w *shardkey.Workload, shards int) *analysis {
	a := &analysis{w: w, shards: shards, use: map[colRef]*usage{}, pairs: map[[2]colRef]float64{}, small: map[int]bool{}, hot: hotRows(w)}
	u := func(r colRef) *usage {
		if a.use[r] == nil {
			a.use[r] = &usage{}
		}
		return a.use[r]
	}
	writes := make([]float64, len(w.Tables))
	reads := make([]float64, len(w.Tables))
	for _, op := range w.Ops {
		if op.Kind.IsWrite() {
			writes[op.Table] += op.Rate
		} else {
			reads[op.Table] += op.Rate
		}
		if op.Latency != "batch" {
			a.total += op.Rate
		}
		if op.Kind == shardkey.Insert || len(op.Instances) == 0 {
			continue
		}
		// The shape of the first instance stands for the operation.
		var eqs []int
		for _, c := range op.Instances[0].Conds {
			r := colRef{op.Table, c.Col}
			switch c.Op {
			case shardkey.Eq, shardkey.In:
				u(r).eqRate += op.Rate
				eqs = append(eqs, c.Col)
			case shardkey.Range:
				u(r).rangeRate += op.Rate
			}
			u(r).ops++
		}
		sort.Ints(eqs)
		for i := 0; i < len(eqs); i++ {
			for j := i + 1; j < len(eqs); j++ {
				a.pairs[[2]colRef{{op.Table, eqs[i]}, {op.Table, eqs[j]}}] += op.Rate
			}
		}
	}
	if len(w.Ops) == 0 {
		// No queries: the columns the transactions bind by equality are
		// the candidates (what keeps a transaction on one shard).
		a.fromTxns = true
		for _, tx := range w.Txns {
			if !tx.Committed() {
				continue
			}
			for _, st := range tx.Stmts {
				for _, c := range st.Conds {
					if c.Op == shardkey.Eq && c.Fresh == shardkey.NotFresh {
						u(colRef{st.Table, c.Col}).eqRate += tx.Weight
					}
				}
			}
		}
	}
	// Reference-table candidates: small next to the largest table and
	// read at least 20 times as often as written. A table's size is its
	// row sample's, or the database's estimate when the workload was read
	// from one (samples are capped per table, so they compare badly).
	cat := w.Catalog
	size := make([]float64, len(w.Tables))
	maxRows := 0.0
	for ti, t := range w.Tables {
		size[ti] = float64(t.Rows)
		if cat != nil {
			if info := cat.Table(t.Name); info != nil && info.RowEstimate > size[ti] {
				size[ti] = info.RowEstimate
			}
		}
		maxRows = max(maxRows, size[ti])
	}
	// A table read at least 100 times as often as it is written is a
	// reference-table candidate too.
	// A table the transactions write is written at a rate the operations
	// may not show (a transaction sample has weights, not rates): it is a
	// reference table only when it is small and the operations' own
	// write rate is known to be low. A large table written by the
	// workload is never one: every write would cost a unit on every shard.
	txnWrites := map[int]bool{}
	for _, tx := range w.Txns {
		if !tx.Committed() {
			continue
		}
		for _, st := range tx.Stmts {
			if st.Kind.IsWrite() {
				txnWrites[st.Table] = true
			}
		}
	}
	// An entity's root: a table of unknown size that a declared foreign
	// key references (orders.user_id -> users.id) and that the workload
	// reads by the referenced column, its rows one per entity value. In
	// the designs of that entity it is keyed by the referenced column, not
	// a reference table, however rarely written: a copy on every shard
	// would hold a row per entity (every user), growing with the entities,
	// while keyed it sits with its children's rows, its reads by key on
	// their shard (Vitess's customer and corder, both keyed by
	// customer_id). Other entities' designs may still replicate it when it
	// is read-only: TPC-C's item, referenced by stock.s_i_id, stays a
	// reference table in the designs keyed by warehouse. A small one the
	// row sample or catalog sizes, or one never read by that column
	// ("user-data" read by email alone), is no root.
	a.fkRoots = map[int]bool{}
	for _, fk := range a.foreignKeys() {
		if p := fk[1]; size[p.table] == 0 && a.use[p] != nil && a.use[p].eqRate > 0 {
			a.fkRoots[p.table] = true
		}
	}
	a.sizeUnknown = map[int]bool{}
	for ti := range w.Tables {
		written := writes[ti] > 0 || txnWrites[ti]
		small := size[ti] > 0 && size[ti]*20 <= maxRows
		a.sizeUnknown[ti] = size[ti] == 0
		switch {
		case len(w.Tables) < 2 || reads[ti] == 0:
		case txnWrites[ti] && writes[ti] == 0:
			// Written, at an unknown rate: not read-mostly as far as
			// the workload shows.
		case small && writes[ti]*20 <= reads[ti]:
			a.small[ti] = true
		case !written:
			// Read-only whatever its size: TPC-C's item.
			a.small[ti] = true
		}
	}
	for i := range w.Txns {
		if w.Txns[i].Committed() {
			a.txnStmts += w.Txns[i].Weight * float64(w.Txns[i].Requests())
		}
	}
	a.entities = a.findEntities()
	a.links = a.findLinks()
	return a
}

// findEntities groups columns by name across tables (except two declared
// one-column primary keys of one name), by declared foreign keys, by the
// statements' join equalities and by value equality within transactions
// (two columns of different tables whose statements carry the same value
// in most transactions they share).
func (a *analysis) findEntities() []*entity {
	w := a.w
	parent := map[colRef]colRef{}
	var find func(colRef) colRef
	find = func(x colRef) colRef {
		p, ok := parent[x]
		if !ok || p == x {
			return x
		}
		r := find(p)
		parent[x] = r
		return r
	}
	union := func(x, y colRef) {
		rx, ry := find(x), find(y)
		if rx != ry {
			parent[rx] = ry
		}
	}
	// A column that is its table's declared one-column primary key
	// identifies that table's rows: two such columns of one name (id in
	// users and in orders, the Rails and Django convention) are two
	// entities, not one, unless a foreign key joins them (below).
	ownKey := func(r colRef) bool {
		if w.Catalog == nil {
			return false
		}
		info := w.Catalog.Table(w.Tables[r.table].Name)
		return info != nil && len(info.PrimaryKey) == 1 && info.PrimaryKey[0] == w.Tables[r.table].Columns[r.col].Name
	}
	byName := map[string][]colRef{}
	for ti, t := range w.Tables {
		for ci, c := range t.Columns {
			r := colRef{ti, ci}
			parent[r] = r
			for _, o := range byName[c.Name] {
				if !(ownKey(o) && ownKey(r)) {
					union(o, r)
				}
			}
			byName[c.Name] = append(byName[c.Name], r)
		}
	}
	// Declared foreign keys (--schema, --from): the referencing column
	// holds the referenced column's values (orders.user_id, users.id).
	for _, fk := range a.foreignKeys() {
		union(fk[0], fk[1])
	}
	// Join equalities the statements showed (a log's JOIN ... ON).
	for _, j := range w.Joins {
		ti, oi := w.TableIndex(j.Table), w.TableIndex(j.OtherTable)
		if ti < 0 || oi < 0 {
			continue
		}
		ci, oc := w.Tables[ti].ColumnIndex(j.Column), w.Tables[oi].ColumnIndex(j.OtherColumn)
		if ci >= 0 && oc >= 0 {
			union(colRef{ti, ci}, colRef{oi, oc})
		}
	}
	// Value equality in transactions.
	type pairKey [2]colRef
	together := map[pairKey]int{}
	equal := map[pairKey]int{}
	limit := len(w.Txns)
	if limit > 20000 {
		limit = 20000
	}
	step := 1
	if len(w.Txns) > limit {
		step = len(w.Txns) / limit
	}
	// Each pair of columns of two tables is counted once per transaction,
	// by its first occurrence (the first value of each column): the
	// first (x, y), x < y, over the transaction's values in order whose
	// columns are the pair is the two columns' first values. So the pairs
	// of distinct columns, each with its first value, count the same as
	// every pair of values, without a set of the pairs seen.
	type cv struct {
		r colRef
		v shardkey.Value
		f int32
	}
	var vals []cv
	for i := 0; i < len(w.Txns); i += step {
		tx := &w.Txns[i]
		if !tx.Committed() {
			continue
		}
		vals = vals[:0]
		for _, st := range tx.Stmts {
		conds:
			for _, c := range st.Conds {
				if c.Op != shardkey.Eq {
					continue
				}
				r := colRef{st.Table, c.Col}
				for _, x := range vals {
					if x.r == r {
						continue conds
					}
				}
				vals = append(vals, cv{r, c.Val.Canonical(), c.FreshVar})
			}
		}
		for x := 0; x < len(vals); x++ {
			for y := x + 1; y < len(vals); y++ {
				p, q := vals[x], vals[y]
				if p.r.table == q.r.table {
					continue
				}
				k := pairKey{p.r, q.r}
				if q.r.table < p.r.table || (q.r.table == p.r.table && q.r.col < p.r.col) {
					k = pairKey{q.r, p.r}
				}
				together[k]++
				same := p.f != 0 && p.f == q.f || p.f == 0 && q.f == 0 && p.v == q.v && p.v.Type != shardkey.Null
				if same {
					equal[k]++
				}
			}
		}
	}
	a.txnEqual = map[colRef]colRef{}
	for k, n := range together {
		if n >= 5 && equal[k]*10 >= n*9 {
			union(k[0], k[1])
			for j, r := range k {
				// One partner per column, the first by table and column.
				o := k[1-j]
				if p, ok := a.txnEqual[r]; !ok || o.table < p.table || o.table == p.table && o.col < p.col {
					a.txnEqual[r] = o
				}
			}
		}
	}
	groups := map[colRef][]colRef{}
	for r := range parent {
		root := find(r)
		groups[root] = append(groups[root], r)
	}
	var out []*entity
	a.classes = a.classes[:0]
	for _, cols := range groups {
		e := &entity{cols: cols}
		// In a fixed order (groups is a map), so that ties name the same
		// column every time.
		sort.Slice(e.cols, func(i, j int) bool {
			if e.cols[i].table != e.cols[j].table {
				return e.cols[i].table < e.cols[j].table
			}
			return e.cols[i].col < e.cols[j].col
		})
		best := -1.0
		for _, r := range e.cols {
			if us := a.use[r]; us != nil {
				e.rate += us.eqRate
				if us.eqRate > best {
					best = us.eqRate
					e.name = w.Tables[r.table].Columns[r.col].Name
				}
			}
		}
		if e.rate > 0 {
			out = append(out, e)
		}
		if tables := distinctTables(e.cols); tables > 1 {
			if e.name == "" {
				e.name = w.Tables[e.cols[0].table].Columns[e.cols[0].col].Name
			}
			a.classes = append(a.classes, e)
		}
	}
	sort.Slice(a.classes, func(i, j int) bool {
		x, y := a.classes[i].cols[0], a.classes[j].cols[0]
		if x.table != y.table {
			return x.table < y.table
		}
		return x.col < y.col
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].rate != out[j].rate {
			return out[i].rate > out[j].rate
		}
		return out[i].name < out[j].name
	})
	return out
}

// foreignKeys returns the declared one-column foreign keys (--schema,
// --from) between tables of the workload, each as {referencing column,
// referenced column}: orders.user_id holds users.id's values.
func (a *analysis) foreignKeys() [][2]colRef {
	w := a.w
	if w.Catalog == nil {
		return nil
	}
	var out [][2]colRef
	for ti, t := range w.Tables {
		info := w.Catalog.Table(t.Name)
		if info == nil {
			continue
		}
		for _, fk := range info.ForeignKeys {
			if len(fk.Columns) != 1 || len(fk.RefColumns) != 1 {
				continue
			}
			pi := w.TableIndex(fk.RefTable)
			if pi < 0 || pi == ti {
				continue
			}
			ci, pc := t.ColumnIndex(fk.Columns[0]), w.Tables[pi].ColumnIndex(fk.RefColumns[0])
			if ci >= 0 && pc >= 0 {
				out = append(out, [2]colRef{{ti, ci}, {pi, pc}})
			}
		}
	}
	return out
}

// uniqueKey reports whether column r is declared unique alone: its
// table's one-column primary key or one-column unique key (--schema,
// --from). Such a column names at most one row.
func (a *analysis) uniqueKey(r colRef) bool {
	pk, uk := a.declaredUnique(r)
	return pk || uk
}

// declaredUnique reports whether column r is its table's declared
// one-column primary key (pk) and whether it is one of its declared
// one-column unique keys besides it (uk) (--schema, --from).
func (a *analysis) declaredUnique(r colRef) (pk, uk bool) {
	if a.w.Catalog == nil {
		return false, false
	}
	t := a.w.Tables[r.table]
	info := a.w.Catalog.Table(t.Name)
	if info == nil {
		return false, false
	}
	one := []string{t.Columns[r.col].Name}
	return slices.Equal(info.PrimaryKey, one), slices.ContainsFunc(info.UniqueKeys, func(k []string) bool { return slices.Equal(k, one) })
}

// Candidate generation limits.
const (
	maxEntities = 6
	maxCands    = 16
)

// candidates returns the designs worth scoring, most promising first, and
// a one-line origin for each.
func (a *analysis) candidates() ([]string, map[string]string) {
	w := a.w
	var out []string
	why := map[string]string{}
	add := func(d, reason string) {
		d = a.complete(d)
		if _, dup := why[d]; dup || len(out) >= maxCands {
			return
		}
		if _, err := shardkey.ParseDesign(d); err != nil {
			a.warns = append(a.warns, fmt.Sprintf("candidate %s (%s) not scored: %v", d, reason, err))
			return
		}
		out = append(out, d)
		why[d] = reason
	}
	for _, c := range w.Candidates {
		// A salted or isolated key is its base key plus a fix: the
		// advisor proposes the fix itself, with K and top from the data.
		// A design with lookups is kept as named: its lookups are the
		// point of it (and a bad one is the spec's error, not dropped).
		if d, err := shardkey.ParseDesign(c); err == nil && d.Default != nil && len(d.Tables) == 0 && len(d.Lookups) == 0 {
			c = baseExpr(d.Default).String()
		}
		if _, dup := why[c]; !dup && len(out) < maxCands {
			out = append(out, c) // as named: not completed
			why[c] = "named by the workload"
		}
	}
	for i, e := range a.entities {
		if i >= maxEntities {
			break
		}
		why := fmt.Sprintf("%s is bound by equality in %s requests/s", e.name, rateText(e.rate))
		if a.fromTxns {
			why = fmt.Sprintf("%s is given by the transactions' writes (the workload has no queries)", e.name)
		}
		key := a.complete(a.entityDesign(e, "hash"))
		add(key, why)
		if rk := a.entityDesignRepl(e, "hash", true); rk != a.entityDesign(e, "hash") {
			add(rk, why+"; its small read-mostly parents as reference tables")
		}
		for _, alt := range a.entityAlternatives(e) {
			add(a.entityDesignPick(e, "hash", true, alt.pick), alt.why)
		}
		if lk, lwhy, ok := a.lookupDesign(key); ok {
			add(lk, lwhy)
		}
		ks, whys := a.jumboCandidates(e)
		for k, key := range ks {
			add(key, whys[k])
		}
		if i == 0 && a.integerEntity(e) && a.entityCard(e) <= 4*a.shards {
			// Ranges give each of a few entities (warehouses) a shard of its
			// own, where a hash may put two on one.
			add(a.entityDesign(e, "range"), fmt.Sprintf("%s in contiguous ranges: co-located tables share one set of boundaries", e.name))
		}
	}
	// Compounds of the strongest pairs, and a time bucket appended to
	// entity-first keys.
	type pr struct {
		k [2]colRef
		r float64
	}
	var prs []pr
	for k, r := range a.pairs {
		prs = append(prs, pr{k, r})
	}
	sort.Slice(prs, func(i, j int) bool {
		if prs[i].r != prs[j].r {
			return prs[i].r > prs[j].r
		}
		return fmt.Sprint(prs[i].k) < fmt.Sprint(prs[j].k)
	})
	for i, p := range prs {
		if i >= 2 {
			break
		}
		t := w.Tables[p.k[0].table]
		add(a.compound(p.k),
			fmt.Sprintf("%s and %s are bound together in %s requests/s", t.Columns[p.k[0].col].Name, t.Columns[p.k[1].col].Name, rateText(p.r)))
	}
	for i, e := range a.entities {
		if i >= 2 {
			break
		}
		for _, r := range e.cols {
			t := w.Tables[r.table]
			for ci, c := range t.Columns {
				if c.Type == shardkey.Timestamp && ci != r.col && isBucket(t, ci) && !a.mongo {
					add(fmt.Sprintf("hash(%s, %s)", t.Columns[r.col].Name, c.Name),
						fmt.Sprintf("a time bucket (%s) after %s bounds each partition's growth", c.Name, t.Columns[r.col].Name))
				}
			}
		}
	}
	// Range keys where the workload scans ranges.
	var rs []colRef
	for r, us := range a.use {
		if us.rangeRate > 0 {
			rs = append(rs, r)
		}
	}
	// Heaviest first; ties by table and column, so that the same input
	// gives the same candidates (rs comes from a map).
	sort.Slice(rs, func(i, j int) bool {
		if a, b := a.use[rs[i]].rangeRate, a.use[rs[j]].rangeRate; a != b {
			return a > b
		}
		if rs[i].table != rs[j].table {
			return rs[i].table < rs[j].table
		}
		return rs[i].col < rs[j].col
	})
	for i, r := range rs {
		if i >= 2 {
			break
		}
		name := w.Tables[r.table].Columns[r.col].Name
		add(fmt.Sprintf("range(%s)", name), fmt.Sprintf("%s is scanned by range in %s requests/s", name, rateText(a.use[r].rangeRate)))
	}
	return out, why
}

// entityDesign keys every table with a column of entity e by that column,
// makes small read-mostly tables without one reference tables, and leaves
// the rest to their own most-bound column.
func (a *analysis) entityDesign(e *entity, fn string) string {
	return a.entityDesignRepl(e, fn, false)
}

// entityDesignRepl is entityDesign, with, when parents is set, the small
// read-mostly tables that a declared foreign key of the entity references
// (a "user-data" parent of orders.user_id, read only by email) made
// reference tables instead of keyed by the entity: each is read on any
// shard, as before foreign keys joined it to the entity.
func (a *analysis) entityDesignRepl(e *entity, fn string, parents bool) string {
	return a.entityDesignPick(e, fn, parents, nil)
}

// entityDesignPick is entityDesignRepl with, for the tables in pick, the
// entity's column pick gives instead of the most bound one.
func (a *analysis) entityDesignPick(e *entity, fn string, parents bool, pick map[int]int) string {
	w := a.w
	repl := map[int]bool{}
	if parents && !a.noReference {
		in := map[colRef]bool{}
		for _, r := range e.cols {
			in[r] = true
		}
		for _, fk := range a.foreignKeys() {
			if p := fk[1]; in[p] && in[fk[0]] && a.small[p.table] && !a.fkRoots[p.table] {
				repl[p.table] = true
			}
		}
	}
	colOf := map[int]int{}
	for _, r := range e.cols {
		if repl[r.table] {
			continue
		}
		if prev, ok := colOf[r.table]; ok {
			// Two columns of the entity in one table: keep the most bound.
			if a.rate(colRef{r.table, r.col}) <= a.rate(colRef{r.table, prev}) {
				continue
			}
		}
		colOf[r.table] = r.col
	}
	for ti, ci := range pick {
		colOf[ti] = ci
	}
	// One bare expression when every keyed table calls the column the same.
	sameName := true
	for ti, ci := range colOf {
		if w.Tables[ti].Columns[ci].Name != e.name {
			sameName = false
		}
	}
	var parts []string
	bare := ""
	if sameName {
		bare = fmt.Sprintf("%s(%s)", fn, shardkey.QuoteName(e.name))
	}
	for ti, t := range w.Tables {
		if repl[ti] {
			parts = append(parts, shardkey.QuoteName(t.Name)+":replicate")
			continue
		}
		if ci, ok := colOf[ti]; ok {
			if !sameName {
				parts = append(parts, fmt.Sprintf("%s:%s(%s)", shardkey.QuoteName(t.Name), fn, shardkey.QuoteName(t.Columns[ci].Name)))
			}
			continue
		}
		if t.Column(e.name) != nil && sameName {
			continue
		}
		if a.small[ti] && !a.noReference {
			parts = append(parts, shardkey.QuoteName(t.Name)+":replicate")
			continue
		}
		if k, ok := a.mongoSmallKey(ti); ok {
			parts = append(parts, shardkey.QuoteName(t.Name)+":"+k)
			continue
		}
		if best, ok := a.bestColumn(ti); ok {
			parts = append(parts, fmt.Sprintf("%s:hash(%s)", shardkey.QuoteName(t.Name), shardkey.QuoteName(t.Columns[best].Name)))
		}
	}
	if bare != "" {
		parts = append([]string{bare}, parts...)
	}
	return strings.Join(parts, "; ")
}

func (a *analysis) rate(r colRef) float64 {
	if u := a.use[r]; u != nil {
		return u.eqRate
	}
	return 0
}

// bestColumn returns table ti's column most bound by equality.
func (a *analysis) bestColumn(ti int) (int, bool) {
	best, bestRate := -1, 0.0
	for ci := range a.w.Tables[ti].Columns {
		if r := a.rate(colRef{ti, ci}); r > bestRate {
			best, bestRate = ci, r
		}
	}
	return best, best >= 0
}

// isBucket reports whether timestamp column ci of t looks like a time
// bucket (few distinct values relative to rows).
func isBucket(t *shardkey.Table, ci int) bool {
	if t.Rows < 20 {
		return false
	}
	seen := map[int64]bool{}
	for i := 0; i < t.Rows && len(seen) <= t.Rows/20; i++ {
		seen[t.Columns[ci].Value(i).Int] = true
	}
	return len(seen) <= t.Rows/20
}

func rateText(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f", r)
	case r >= 1:
		return fmt.Sprintf("%.1f", r)
	}
	return fmt.Sprintf("%.3g", r)
}

// baseExpr strips salt and isolate modifiers.
func baseExpr(e shardkey.Expr) shardkey.Expr {
	for {
		switch m := e.(type) {
		case *shardkey.SaltExpr:
			e = m.Inner
		case *shardkey.IsolateExpr:
			e = m.Inner
		default:
			return e
		}
	}
}

// complete gives every table a design does not place a key: a reference
// table when it is small and read-mostly, else its most-bound column, so
// that no candidate looks single-shard by leaving tables unsharded. Under
// MongoDB, which has no reference collections (an unsharded collection
// lives on the database's primary shard), a small table is sharded by its
// own most-bound column too (see mongoUnsharded). Under a Vitess engine
// whose vindex maps integers only, a key on another type is keyed by the
// vindex Vitess users give it (vindexKeys).
func (a *analysis) complete(design string) string {
	d, err := shardkey.ParseDesign(design)
	if err != nil {
		return design
	}
	var extra []string
	for ti, t := range a.w.Tables {
		if d.For(t.Name, func(c string) bool { return t.Column(c) != nil }) != nil {
			continue
		}
		if a.small[ti] && !a.noReference {
			extra = append(extra, shardkey.QuoteName(t.Name)+":replicate")
		} else if k, ok := a.mongoSmallKey(ti); ok {
			extra = append(extra, shardkey.QuoteName(t.Name)+":"+k)
		} else if best, ok := a.bestColumn(ti); ok {
			extra = append(extra, fmt.Sprintf("%s:hash(%s)", shardkey.QuoteName(t.Name), shardkey.QuoteName(t.Columns[best].Name)))
		}
	}
	if len(extra) == 0 {
		return a.vindexKeys(sortTables(design))
	}
	return a.vindexKeys(sortTables(design + "; " + strings.Join(extra, "; ")))
}

// sortTables returns design with its table entries in order of table
// name (byte order), after the expression without a table, so that one
// workload gives one design text whatever order its input met the tables
// in (a PostgreSQL csvlog and a MySQL general log of the same statements,
// or rows files given in another order). Each entry keeps its text and
// its lookups. A design that does not split into entries that each parse
// is returned as it is.
func sortTables(design string) string {
	parts := splitDesign(design)
	if len(parts) < 2 {
		return design
	}
	type entry struct{ table, text string }
	var bare []string
	var es []entry
	for _, p := range parts {
		d, err := shardkey.ParseDesign(p)
		switch {
		case err != nil || len(d.Order) > 1:
			return design
		case len(d.Order) == 0:
			bare = append(bare, d.Text)
		default:
			es = append(es, entry{d.Order[0], d.Text})
		}
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].table < es[j].table })
	out := bare
	for _, e := range es {
		out = append(out, e.text)
	}
	return strings.Join(out, "; ")
}

// splitDesign splits design text at each ";" outside parentheses,
// brackets and quotes ('...' values, "..." names): its entries, as
// written.
func splitDesign(s string) []string {
	var parts []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0 // a doubled quote closes and reopens: same state after
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ';' && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// mongoSmallKey returns, under MongoDB, the key of small read-mostly
// table ti, which other engines make a reference table: MongoDB has none,
// so it is sharded by its own key, the compound of its two columns most
// bound together ({a: 1, b: "hashed"}, the prefix a shared with the
// collections it is read with) when its operations bind two, so that one
// heavy prefix value does not load one shard; ok is false when the
// engine is not MongoDB, ti is not small, or no pair is bound (the caller
// then uses its most-bound column).
func (a *analysis) mongoSmallKey(ti int) (string, bool) {
	if !a.mongo || !a.small[ti] {
		return "", false
	}
	var best [2]colRef
	bestRate := 0.0
	for k, r := range a.pairs {
		if k[0].table != ti {
			continue
		}
		if r > bestRate || r == bestRate && fmt.Sprint(k) < fmt.Sprint(best) {
			best, bestRate = k, r
		}
	}
	if bestRate == 0 {
		return "", false
	}
	return a.compound(best), true
}

// servers returns the machines the data is served from: the node count
// when shards are slots on nodes, else the shard count. A threshold
// about the machines a request reaches (how much of a table one value's
// index lookup returns on each) uses it, so that --slots 32 --nodes 4
// and 4 shards choose the same fix; a threshold about placement (values
// enough to fill every slot) uses shards, the placement unit.
func (a *analysis) servers() int {
	if a.nodes > 0 {
		return a.nodes
	}
	return a.shards
}

// whaleUnits returns the count the whale threshold (whaleShares fair
// shares) is taken against, and its name: the nodes when shards are
// slots on nodes (a slot is logical: a value holding 0.5% of the rows is
// no whale on 3 Redis nodes, though it is 80 slots' fair share), else
// the n shards.
func (a *analysis) whaleUnits(n int) (int, string) {
	if a.nodes > 0 {
		return a.nodes, "node"
	}
	if partition.CitusShards(a.engine) > 0 {
		// citus(shard_count=S): the n units are nodes, each holding
		// several Citus shards.
		return n, "node"
	}
	return n, "shard"
}

// integerEntity reports whether every column of e is an integer column.
func (a *analysis) integerEntity(e *entity) bool {
	for _, r := range e.cols {
		if !a.w.Tables[r.table].Columns[r.col].Type.IsInt() {
			return false
		}
	}
	return len(e.cols) > 0
}

// entityCard returns how many distinct values entity e has: the most over
// its columns' row samples, or, without rows, over the operations' and
// transactions' equality values (counting stops past 1<<16).
func (a *analysis) entityCard(e *entity) int {
	best := 0
	seen := map[shardkey.Value]bool{}
	for _, r := range e.cols {
		t := a.w.Tables[r.table]
		clear(seen)
		for i := 0; i < t.Rows && len(seen) <= 1<<16; i++ {
			seen[t.Columns[r.col].Value(i).Canonical()] = true
		}
		best = max(best, len(seen))
	}
	if best > 0 {
		return best
	}
	clear(seen)
	in := func(ti int, conds []shardkey.Cond) {
		for _, c := range conds {
			for _, r := range e.cols {
				if r.table == ti && r.col == c.Col && c.Op == shardkey.Eq && c.Fresh == shardkey.NotFresh {
					seen[c.Val.Canonical()] = true
				}
			}
		}
	}
	for _, op := range a.w.Ops {
		for i := 0; i < len(op.Instances) && len(seen) <= 1<<16; i++ {
			in(op.Table, op.Instances[i].Conds)
		}
	}
	for i := 0; i < len(a.w.Txns) && len(seen) <= 1<<16; i++ {
		if !a.w.Txns[i].Committed() {
			continue
		}
		for _, st := range a.w.Txns[i].Stmts {
			in(st.Table, st.Conds)
		}
	}
	return len(seen)
}

// compound returns the key of two columns bound together: hash(a, b), or
// under MongoDB, whose hashed shard keys hash one field, the compound
// hashed key {a: 1, b: "hashed"} (MongoDB 4.4+) with the column of fewer
// distinct values as its ranged prefix, so that an equality on it alone
// asks that value's chunks and one on both a single chunk.
func (a *analysis) compound(k [2]colRef) string {
	t := a.w.Tables[k[0].table]
	x, y := t.Columns[k[0].col].Name, t.Columns[k[1].col].Name
	if !a.mongo {
		return fmt.Sprintf("hash(%s, %s)", x, y)
	}
	if cx, cy := a.columnCard(k[0].table, x), a.columnCard(k[1].table, y); cy < cx || cy == cx && y < x {
		x, y = y, x
	}
	return fmt.Sprintf(`{%s: 1, %s: "hashed"}`, x, y)
}

type entityAlt struct {
	pick map[int]int
	why  string
}

// entityAlternatives are other choices of column for tables with two
// columns of entity e (invoices.id and invoices.tenant_id, both in the
// class of tenants.id: the one by name, the other by the same values in
// transactions), where entityDesign keeps only the most bound: each other
// column of such a table that holds another table's key values in the
// transactions (same values, txnEqual), at most two. Without a schema
// the name "id" joins every table's own id into one class, and the
// column carrying a parent's values (tenant_id) would never key its
// table.
func (a *analysis) entityAlternatives(e *entity) []entityAlt {
	w := a.w
	colOf := map[int]int{}
	multi := map[int][]int{}
	for _, r := range e.cols {
		multi[r.table] = append(multi[r.table], r.col)
		if prev, ok := colOf[r.table]; !ok || a.rate(r) > a.rate(colRef{r.table, prev}) {
			colOf[r.table] = r.col
		}
	}
	var out []entityAlt
	for ti := range w.Tables {
		cols := multi[ti]
		if len(cols) < 2 {
			continue
		}
		for _, ci := range cols {
			if ci == colOf[ti] || len(out) >= 2 {
				continue
			}
			other, ok := a.txnEqual[colRef{ti, ci}]
			if !ok {
				continue
			}
			pick := map[int]int{ti: ci}
			// The other table by its own column too (tenants by id).
			pick[other.table] = other.col
			out = append(out, entityAlt{pick, fmt.Sprintf("%s.%s holds the values of %s.%s in the same transactions",
				w.Tables[ti].Name, w.Tables[ti].Columns[ci].Name, w.Tables[other.table].Name, w.Tables[other.table].Columns[other.col].Name)})
		}
	}
	return out
}
