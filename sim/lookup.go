package sim

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// Lookups (shardkey.Lookup, "users:hash(user_id), lookup(email)") are
// secondary routing tables, as Vitess's lookup vindexes
// (go/vt/vtgate/vindexes/lookup.go, consistent_lookup.go,
// lookup_internal.go). The cost model:
//
//   - A read, update or delete that the key leaves to every shard
//     (scatter-gather) but that binds a lookup column with = or IN, or
//     that the key binds by an IN list but that binds a lookup column to
//     one value (vtgate's opcodes Equal and EqualUnique beat IN; see
//     viaLookups), is routed through the lookup: one unit of work on the lookup table's
//     shard for each distinct shard its values hash to (the map query
//     "select from, to from T where from in ::from"), then one on each
//     shard holding a matching row: the shards of the sample's rows with
//     those values. A value the row sample does not hold counts as one
//     shard, uniformly at random, for a unique lookup (it names at most
//     one row; Vitess sends a value the lookup does not know to no shard,
//     DestinationNone, but a sample is not the table), and for a
//     non-unique one as many as the sample's values are on, on average
//     (each at random); without a row sample a non-unique lookup is not
//     used (its fan-out is unknown: scatter-gather, with a warning). A
//     lookup bound to one value is preferred to one bound to a list, and
//     then a unique lookup to a non-unique one, as vtgate picks the
//     vindex of least cost, opcode first (lookup_unique 10, lookup 20).
//   - An insert into the owner table also writes the lookup row: one unit
//     on the lookup table's shard of the value (lookup_internal.go's
//     Create), usually another shard than the row's. A delete removes it:
//     one unit on the shard of the deleted row's value (known when the
//     delete binds the column, else one shard at random). An update
//     that assigns the column (shardkey.Instance.Sets) costs both: the
//     old value's row deleted, the new value's inserted
//     (lookupInternal.Update; see updateLookups); an update that does not
//     assign it writes no lookup row.
//   - In a transaction, a lookup's reads and writes run in the
//     transaction's own session (CommitOrder_NORMAL): their shards count
//     among its shards, so a lookup row on another shard makes the
//     transaction cross shards (a multi-shard commit). A consistent
//     lookup writes its rows in a session committed before the
//     transaction (Create: CommitOrder_PRE; Delete: POST) and reads them
//     in the lookup-row-lock session: its work counts, its shards do not
//     make the transaction cross shards.
//   - The lookup table is sharded by its column, over the same shards, by
//     the design's engine (by the vindex a VSchema the design was read
//     from shards it by, when it does); under a Vitess engine whose vindex
//     cannot hash the column's type (hash takes integers), by
//     unicode_loose_md5 for text (the vindex Vitess's examples give a
//     varchar lookup table), binary_md5 for bytes, xxhash otherwise: what
//     emit writes. A VSchema that defines no table (or one without a
//     vindex) for a lookup's backing table does not place its rows: each
//     lookup row is then counted on one shard at random, and no vindex is
//     said to shard it.
//
// A NULL value has no lookup row (Vitess skips it with ignore_nulls and
// refuses the insert without).

// lookupKey is one compiled lookup of a table.
type lookupKey struct {
	idx   int // index in Scheme.lookups
	table int // owner table index
	col   int // column index in the owner table
	spec  shardkey.Lookup
	eng   partition.Engine // places the lookup table's rows by col
	lay   partition.Layout
	modN  uint64
	// owners maps a canonical value to the sorted distinct shards of the
	// owner's sample rows holding it.
	owners map[shardkey.Value][]int
	// multi counts the values the sample shows on more than one row.
	multi int
	// unseen is the shards a value the sample does not hold is counted
	// on: 1 for a unique lookup; for a non-unique one, the mean number of
	// shards of the sample's values, rounded (at least 1); 0 when a
	// non-unique lookup has no row sample (not routed: unknown).
	unseen int
	// unplaced says the design came from a VSchema that does not place
	// the lookup's backing table (no table of that name with a column
	// vindex, nor in an unsharded keyspace): its rows' shards are
	// unknown, so each lookup row is counted on one shard at random;
	// lkTable is its name ("" when the VSchema gives none).
	unplaced bool
	lkTable  string
	// lkTableName is the backing table's name the VSchema gives, placed
	// or not ("" without a VSchema); assumed, when non-empty, is the
	// engine that places the rows of a lookup table the VSchema defines
	// but shards by no vindex shardkey places: an assumption, said so.
	lkTableName string
	assumed     string
	// ignoreNulls says the VSchema's vindex has ignore_nulls: a NULL
	// gets no lookup row; without it Vitess refuses to write a NULL.
	ignoreNulls bool
}

// lkTouch is one lookup's part of a routed statement: a read of the
// lookup table (routing), or a write of its rows (insert, delete).
type lkTouch struct {
	lk     *lookupKey
	shards []int // the lookup table's shards asked, sorted; scratch
	uni    int   // further lookup shards at unknown places (values known only at run time)
	write  bool
	// upd, for a write, says it is part of an UPDATE that assigns the
	// lookup's column (lookupInternal.Update): updOld deletes the old
	// value's row, updNew inserts the new value's; 0 for an INSERT's or
	// DELETE's write.
	upd uint8
	// extra, for a read: matching rows' shards not known from the sample
	// (each one shard at random), beside the touch's set.
	extra int
	// nvals is the number of values routed (for explanations).
	nvals int
	// over, for a read, says the key bound the statement too, by IN
	// lists, and the lookup routes it instead (viaLookups).
	over bool
}

// lkTouch.upd values.
const (
	updOld = 1 + iota
	updNew
)

// units returns the lookup table's units of work of l.
func (l *lkTouch) units() int { return len(l.shards) + l.uni }

// compileLookups compiles the design's lookups for every table, after the
// tables' keys (and range boundaries) are known.
func (s *Scheme) compileLookups() error {
	for ti, t := range s.w.Tables {
		tk := s.tables[ti]
		if tk.kind == kUnplaced || tk.kind == kReplicate {
			continue
		}
		specs := s.Design.LookupsFor(t.Name, func(c string) bool { return t.Column(c) != nil })
		for _, spec := range specs {
			ci := t.ColumnIndex(spec.Col)
			if ci < 0 {
				return fmt.Errorf("key %q: table %s: %s: no column %q (columns: %s)", s.Design.Text, t.Name, spec, spec.Col, strings.Join(t.ColumnNames(), ", "))
			}
			lk := &lookupKey{idx: len(s.lookups), table: ti, col: ci, spec: spec}
			base, from, named := s.Engine, "", false
			if n, ok := s.vschemaNames(ti); ok {
				lc := strings.ToLower(spec.Col)
				_, named = n.Lookups[lc]
				lk.lkTableName = n.LookupTableNames[lc]
				lk.ignoreNulls = n.LookupIgnoreNulls[lc]
				if named && !n.LookupTables[lc] {
					lk.unplaced, lk.lkTable = true, n.LookupTableNames[lc]
				}
				if e := n.LookupEngines[lc]; e != "" {
					// The VSchema shards the lookup table by a vindex of
					// its own: that vindex places its rows.
					if vsEng, err := partition.Lookup(e); err == nil {
						base, from = vsEng, fmt.Sprintf("the VSchema shards its lookup table %s by engine %s's vindex: ", n.LookupTableNames[lc], e)
					}
				}
			}
			eng, note, err := lookupEngine(base, t, ci)
			if err != nil {
				return fmt.Errorf("key %q: table %s: %s: %w", s.Design.Text, t.Name, spec, err)
			}
			switch {
			case lk.unplaced:
				// The VSchema places no lookup table: nothing shards
				// its rows (each is counted on one shard at random, and
				// the reasons say where they are is unknown), so no
				// vindex is said to; the warning says so in every
				// output, not only in explain's reasons.
				table := "gives no backing table (params.table)"
				if lk.lkTable != "" {
					table = fmt.Sprintf("has the backing table %s (params.table), which the VSchema does not define (no table of that name with a column vindex, nor in an unsharded keyspace)", lk.lkTable)
				}
				s.Warnings = append(s.Warnings, s.lookupWarning(lk, fmt.Sprintf("%s, so where its lookup rows are is unknown: each lookup row is scored on one shard at random (no vindex assumed to place it; its engine is reported as unknown); define the table in the VSchema to score it as placed", table)))
			case from == "" && named:
				// The VSchema names the lookup and defines its table, but
				// shards it by no vindex shardkey places (or keeps it
				// unsharded): its rows are placed by an assumed vindex.
				lk.assumed = eng.Name()
				s.Warnings = append(s.Warnings, s.lookupWarning(lk, fmt.Sprintf("its backing table %s is defined in the VSchema but not sharded by a vindex shardkey places (its first column vindex is of another type, or its keyspace is unsharded), so its rows are scored as sharded by %s with engine %s: an assumption, not the VSchema's placement", lk.lkTableName, spec.Col, eng.Name())))
			case note != "":
				s.Warnings = append(s.Warnings, s.lookupWarning(lk, from+note))
			}
			lk.eng = eng
			if lk.lay, err = eng.Layout(s.N); err != nil {
				return fmt.Errorf("key %q: %s: engine %s: %w", s.Design.Text, spec, eng.Name(), err)
			}
			if m, ok := lk.lay.(partition.Modulo); ok {
				lk.modN = uint64(m.Shards())
			}
			if err := s.lookupOwners(lk, tk, t); err != nil {
				return err
			}
			if w := s.nullLookupWrites(lk); w != nil {
				s.Warnings = append(s.Warnings, w)
			}
			if spec.Unique && lk.multi > 0 {
				s.Warnings = append(s.Warnings, s.lookupWarning(lk, fmt.Sprintf("is unique, but %d value(s) of %s are on several rows of the sample: Vitess's lookup_unique would refuse the second row; write lookup(%s, nonunique)", lk.multi, spec.Col, spec.Col)))
			}
			s.lookups = append(s.lookups, lk)
			tk.lookups = append(tk.lookups, lk)
		}
	}
	// A bare expression's lookup applies to the tables it places that have
	// the column; one that no such table has routes nothing: an error
	// (a misspelt column), as the table-prefixed form's is.
	if bare := s.Design.Lookups[""]; len(bare) > 0 && s.Design.Default != nil {
		var placed []string
		for ti, t := range s.w.Tables {
			if _, own := s.Design.Tables[t.Name]; own {
				continue
			}
			if k := s.tables[ti].kind; k != kUnplaced && k != kReplicate {
				placed = append(placed, t.Name)
			}
		}
		for _, spec := range bare {
			used := false
			for _, lk := range s.lookups {
				if lk.spec.Col == spec.Col {
					if _, own := s.Design.Tables[s.w.Tables[lk.table].Name]; !own {
						used = true
					}
				}
			}
			if used {
				continue
			}
			if len(placed) == 0 {
				return fmt.Errorf("key %q: %s: no table is placed by %s, so no table has the lookup column %q", s.Design.Text, spec, s.Design.Default, spec.Col)
			}
			return fmt.Errorf("key %q: %s: no table %s places has a column %q (tables it places: %s)", s.Design.Text, spec, s.Design.Default, spec.Col, strings.Join(placed, ", "))
		}
	}
	// Unique lookups first: vtgate routes by the vindex of least cost.
	for _, tk := range s.tables {
		sort.SliceStable(tk.lookups, func(i, j int) bool { return tk.lookups[i].spec.Unique && !tk.lookups[j].spec.Unique })
	}
	return nil
}

// nullLookupWrites returns the warning, once for lk, that the
// workload's inserts or updates set lk's column to NULL while the vindex
// has no ignore_nulls: Vitess refuses such a write (VT03028, "Column
// 'col' cannot be null", lookupInternal.Create in
// go/vt/vtgate/vindexes/lookup_internal.go; an UPDATE's new value goes
// through Create too, lookupInternal.Update), where shardkey scores it
// as ignore_nulls would, with no lookup row. nil when none does, or the
// vindex has ignore_nulls.
func (s *Scheme) nullLookupWrites(lk *lookupKey) error {
	if lk.ignoreNulls {
		return nil
	}
	isNull := func(cs []shardkey.Cond) bool { return setsNull(cs, lk.col) }
	var names []string
	seen := map[string]bool{}
	note := func(name string) {
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	for _, op := range s.w.Ops {
		if op.Table != lk.table || op.Kind != shardkey.Insert && op.Kind != shardkey.Update {
			continue
		}
		for _, in := range op.Instances {
			if op.Kind == shardkey.Insert && isNull(in.Conds) || op.Kind == shardkey.Update && isNull(in.Sets) {
				note(op.Name)
				break
			}
		}
	}
	for _, tx := range s.w.Txns {
		for _, st := range tx.Stmts {
			if st.Table == lk.table && (st.Kind == shardkey.Insert && isNull(st.Conds) || st.Kind == shardkey.Update && isNull(st.Sets)) {
				note("transaction " + tx.Name)
				break
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	more := ""
	if len(names) > 5 {
		more = fmt.Sprintf(" and %d more", len(names)-5)
		names = names[:5]
	}
	return s.lookupWarning(lk, nullLookupMsg(s.w.Tables[lk.table].Columns[lk.col].Name, strings.Join(names, "; ")+more))
}

// setsNull reports whether cs (an INSERT's values or an UPDATE's SET)
// gives column col the value NULL.
func setsNull(cs []shardkey.Cond, col int) bool {
	c := findCond(cs, col)
	return c != nil && c.Op == shardkey.Eq && c.Fresh == shardkey.NotFresh && c.Val.IsNull()
}

// nullWriteWarnings returns explain's warnings for one statement of
// kind on table tk (INSERT values conds, UPDATE assignments sets) that
// sets lookup columns without ignore_nulls to NULL (see
// nullLookupWrites).
func (s *Scheme) nullWriteWarnings(tk *tableKey, kind shardkey.Kind, conds, sets []shardkey.Cond) []string {
	var out []string
	for _, lk := range tk.lookups {
		if lk.ignoreNulls {
			continue
		}
		if kind == shardkey.Insert && setsNull(conds, lk.col) || kind == shardkey.Update && setsNull(sets, lk.col) {
			out = append(out, s.lookupWarning(lk, nullLookupMsg(s.w.Tables[lk.table].Columns[lk.col].Name, "this "+kind.String())).Error())
		}
	}
	return out
}

// nullLookupMsg says that statements (names) set lookup column col to
// NULL, which Vitess refuses without ignore_nulls.
func nullLookupMsg(col, names string) string {
	return fmt.Sprintf("%s set %s to NULL, which Vitess refuses for a lookup vindex without ignore_nulls (VT03028: Column '%s' cannot be null; lookupInternal.Create, go/vt/vtgate/vindexes/lookup_internal.go): those writes fail there; scored as with ignore_nulls (\"ignore_nulls\": \"true\" in the vindex's params), which writes no lookup row for a NULL", names, col, col)
}

// LookupWarning is a finding about one table's lookup, not about the
// whole design: its text names the table and the lookup (by its vindex
// name when the design came from a VSchema, else as lookup(col)), not the
// design, so that it reads the same under every design and candidate that
// has the lookup (and a command prints it once), and explain shows it
// only for a statement of Table.
type LookupWarning struct {
	Table  string // the owner table, as the workload names it
	Lookup string // the lookup: "vindex name_user_map (Vitess lookup on name)" or "lookup(name, nonunique)"
	Msg    string // what is wrong
}

func (w *LookupWarning) Error() string {
	return fmt.Sprintf("table %s: %s: %s", w.Table, w.Lookup, w.Msg)
}

// lookupWarning returns a LookupWarning about lk saying msg.
func (s *Scheme) lookupWarning(lk *lookupKey, msg string) *LookupWarning {
	t := s.w.Tables[lk.table]
	name := lk.spec.String()
	if n := s.lookupVindexName(lk); n != "" {
		name = fmt.Sprintf("vindex %s (Vitess %s on %s)", n, lk.spec.VindexType(), t.Columns[lk.col].Name)
	}
	return &LookupWarning{Table: t.Name, Lookup: name, Msg: msg}
}

// lookupFallback is the Vitess vindex engine of a lookup table's column
// the design's Vitess vindex cannot hash: shardkey.VindexFor's choice by
// type, the one emit gives a hash key on such a column and the advisor
// keys such a candidate by (unicode_loose_md5 for text, binary_md5 for
// bytes, xxhash otherwise).
func lookupFallback(typ shardkey.Type) string {
	return shardkey.VindexEngine(shardkey.VindexFor(typ))
}

// lookupEngine returns the engine that places the lookup table of column
// ci of t: eng when it can place the column's type, else (for Vitess) the
// first fallback that can, with a note saying so.
func lookupEngine(eng partition.Engine, t *shardkey.Table, ci int) (partition.Engine, string, error) {
	err := probeEngine(eng, t, []int{ci})
	if err == nil {
		return eng, "", nil
	}
	if strings.HasPrefix(eng.Name(), "vitess") {
		name := lookupFallback(t.Columns[ci].Type)
		alt, aerr := partition.Lookup(name)
		if aerr == nil && probeEngine(alt, t, []int{ci}) == nil {
			return alt, fmt.Sprintf("engine %s cannot hash %s values, so the lookup table is scored as sharded by %s (the vindex --emit vschema gives it)", eng.Name(), t.Columns[ci].Type, name), nil
		}
	}
	return nil, "", fmt.Errorf("the lookup table is sharded by its column: %w", err)
}

// lookupOwners fills lk.owners: the shards of the owner's sample rows by
// value of the lookup column.
func (s *Scheme) lookupOwners(lk *lookupKey, tk *tableKey, t *shardkey.Table) error {
	lk.owners = make(map[shardkey.Value][]int)
	r := newRouter(s)
	col := t.Columns[lk.col]
	dup := map[shardkey.Value]bool{}
	for i := 0; i < t.Rows; i++ {
		v := col.Value(i)
		if v.IsNull() {
			continue
		}
		tc, err := r.row(tk, t, i)
		if err != nil {
			return shardkey.Errorf("", 0, t.Name, "row %d: %v", i+1, err)
		}
		var shards []int
		switch tc.kind {
		case tOne:
			shards = []int{tc.one}
		case tUniformOf:
			shards = tc.set
		default:
			continue // on every shard, or nowhere: no keyspace id to map to
		}
		v = v.Canonical()
		have, seen := lk.owners[v]
		if seen && !dup[v] {
			dup[v] = true // a second row of the value
			lk.multi++
		}
		for _, sh := range shards {
			j := sort.SearchInts(have, sh)
			if j < len(have) && have[j] == sh {
				continue
			}
			have = append(have, 0)
			copy(have[j+1:], have[j:])
			have[j] = sh
		}
		lk.owners[v] = have
	}
	lk.unseen = 1
	if !lk.spec.Unique {
		total := 0
		for _, sh := range lk.owners {
			total += len(sh)
		}
		switch {
		case len(lk.owners) == 0:
			lk.unseen = 0
			s.Warnings = append(s.Warnings, s.lookupWarning(lk, fmt.Sprintf("no row sample, so how many shards the rows of one %s are on is unknown: statements by %s are routed through the lookup to at most every shard, which ones unknown, and scored at that bound (give rows: --rows, --from, a workload)", lk.spec.Col, lk.spec.Col)))
		default:
			lk.unseen = max(1, int(math.Round(float64(total)/float64(len(lk.owners)))))
		}
	}
	return nil
}

// shard returns the lookup table's shard of value v.
func (lk *lookupKey) shard(v shardkey.Value) (int, error) {
	p, err := lk.eng.Point([]shardkey.Value{v})
	if err != nil {
		return 0, err
	}
	if lk.modN > 0 {
		return int(p % lk.modN), nil
	}
	return lk.lay.Shard(p), nil
}

// lookupVals returns the non-NULL values cond binds (= or IN), and
// whether it binds values at all (a fresh value, a range: no).
func lookupVals(cd *shardkey.Cond, one []shardkey.Value) ([]shardkey.Value, bool) {
	switch {
	case cd == nil:
		return nil, false
	case cd.Op == shardkey.Eq && cd.Fresh == shardkey.NotFresh:
		if cd.Val.IsNull() {
			return nil, true
		}
		one[0] = cd.Val
		return one[:1], true
	case cd.Op == shardkey.In:
		return cd.List, true
	}
	return nil, false
}

// addLookupShards puts the lookup shards of vals into lt (sorted,
// distinct), using r.mark; it reports false when the engine cannot place
// a value.
func (r *router) addLookupShards(lt *lkTouch, vals []shardkey.Value) bool {
	start := len(r.lset)
	for _, v := range vals {
		if v.IsNull() {
			continue
		}
		sh, err := lt.lk.shard(v)
		if err != nil {
			for _, x := range r.lset[start:] {
				r.mark[x] = false
			}
			r.lset = r.lset[:start]
			return false
		}
		if !r.mark[sh] {
			r.mark[sh] = true
			r.lset = append(r.lset, sh)
		}
		lt.nvals++
	}
	for _, x := range r.lset[start:] {
		r.mark[x] = false
	}
	lt.shards = r.lset[start:]
	sort.Ints(lt.shards)
	return true
}

// keyRank is the cost class of the route by tk's key under conds, on
// viaRank's scale: 0 a key column bound to no value (IN ()), 1 every key
// column bound to one value (Vitess's EqualUnique), 2 every key column
// bound by = or IN with several values in all (IN; MultiEqual for
// several columns), 3 a key column not bound by either (Scatter).
func keyRank(tk *tableKey, conds []shardkey.Cond) int {
	rank := 1
	for _, c := range tk.cols {
		cd := findCond(conds, c)
		if cd == nil {
			return 3
		}
		switch x := viaRank(cd); x {
		case 3:
			return 3
		case 0:
			rank = -1
		default:
			if rank > 0 {
				rank = max(rank, x)
			}
		}
	}
	return max(rank, 0)
}

// viaLookups adds the lookups of table tk to tc, the statement's route by
// the key: a read, update or delete is routed through the lookup whose
// column it binds best, when that beats the key's own route, as vtgate
// picks the vindex option of least cost (PickBestAvailableVindex,
// go/vt/vtgate/planbuilder/operators/sharded_routing.go; less and costFor
// compare the opcodes first, EqualUnique < Equal < IN < MultiEqual <
// Scatter (go/vt/vtgate/engine/routing.go), then uniqueness, then the
// vindex's Cost(): hash 1, lookup_unique 10, lookup 20). So a key that
// scatters yields to any lookup the statement binds by = or IN; a key
// bound by an IN list (opcode IN) yields to a lookup bound to one value
// (EqualUnique or Equal: planbuilder testdata filter_cases.json, "Route
// with multiple route constraints, SelectEqual is the best constraint":
// user.id in (1, 2) and user.name = 'aa' is a VindexLookup Equal on
// name_user_map); a key bound to one value keeps its route. Among the
// lookups, one bound to one value comes before one bound to a list, and
// a unique one before a non-unique one. Inserts and deletes write the
// lookup rows.
func (r *router) viaLookups(tk *tableKey, kind shardkey.Kind, conds, sets []shardkey.Cond, tc touch) touch {
	r.lks = r.lks[:0]
	r.lset = r.lset[:0]
	var one [1]shardkey.Value
	// maxRank: the worst viaRank of a lookup condition that beats the
	// key's route.
	maxRank := -1
	switch {
	case kind == shardkey.Insert:
	case tc.kind == tAll && !tc.keyed:
		maxRank = 2 // Scatter: any lookup bound by = or IN
	case tc.kind == tAll || tc.kind == tOne || tc.kind == tSet || tc.kind == tUniformN:
		// A key bound by IN lists (tAll keyed: too many combinations to
		// enumerate) yields to a lookup bound to one value.
		if keyRank(tk, conds) == 2 {
			maxRank = 1
		}
	}
	over := tc.kind != tAll || tc.keyed // the lookup replaces a route by the key
	for rank := 0; rank <= maxRank && len(r.lks) == 0; rank++ {
		for _, lk := range tk.lookups {
			cd := findCond(conds, lk.col)
			if cd == nil || viaRank(cd) != rank {
				continue
			}
			if cd.IsNull {
				// col IS NULL: a NULL has no lookup row, and the rows
				// holding it are anywhere; Vitess plans IS NULL on a
				// lookup vindex as a Scatter (planIsExpr in
				// go/vt/vtgate/planbuilder/operators/sharded_routing.go).
				continue
			}
			vals, ok := lookupVals(cd, one[:])
			// Values known only at run time (= $1, IN ($1, $2), = ANY($1)):
			// each a lookup row at an unknown place, naming rows on
			// lk.unseen shards, which ones known once the lookup answers
			// (Vitess plans the lookup vindex on a bind variable alike:
			// planEqualOp/planInOp, operators/sharded_routing.go).
			runTime := 0
			switch {
			case cd != nil && cd.Op == shardkey.Eq && cd.Fresh != shardkey.NotFresh && cd.Param:
				ok, runTime = true, 1
			case ok && cd.Op == shardkey.In && cd.Unknown > 0:
				runTime = int(cd.Unknown)
			case ok && cd.Op == shardkey.In && cd.Unknown < 0:
				runTime = r.s.N // a list of unknown length: at most every shard
			}
			if !ok {
				continue
			}
			lt := lkTouch{lk: lk, over: over}
			if !r.addLookupShards(&lt, vals) {
				continue
			}
			lt.uni = min(runTime, r.s.N-len(lt.shards))
			if lk.unplaced {
				// Each value's lookup row on a shard nothing places.
				lt.uni = min(lt.nvals+runTime, r.s.N)
				lt.shards = lt.shards[:0]
			}
			lt.nvals += runTime
			if lk.unseen == 0 {
				// A non-unique lookup without a row sample: routed through
				// it all the same, as vtgate routes by a non-unique vindex
				// (opcodes Equal, MultiEqual: "routing a query using a
				// non-unique vindex", go/vt/vtgate/engine/routing.go),
				// to the shards of every keyspace id the lookup returns.
				// How many that is, nothing here says: the rows are on
				// at most every shard, which ones known once the lookup
				// answers (a route by values of unknown number, counted
				// at its bound; the compile warning says so).
				if len(vals) == 0 && runTime == 0 {
					tc = touch{kind: tSet, set: r.set[:0]} // = NULL: no row
				} else {
					tc = touch{kind: tUniformN, n: -1, set: r.set[:0]}
				}
				r.lks = append(r.lks, lt)
				break
			}
			// The owners' shards: the sample's rows with these values.
			r.tmp = r.tmp[:0]
			extra := runTime * lk.unseen
			for _, v := range vals {
				if v.IsNull() {
					continue // = NULL matches no row
				}
				sh, seen := lk.owners[v.Canonical()]
				if !seen {
					extra += lk.unseen
					continue
				}
				for _, x := range sh {
					if !r.mark[x] {
						r.mark[x] = true
						r.tmp = append(r.tmp, x)
					}
				}
			}
			r.collect()
			extra = min(extra, r.s.N-len(r.set))
			switch {
			case len(r.set) == 1 && extra == 0:
				tc = touch{kind: tOne, one: r.set[0]}
			case len(r.set) == 0 && extra == 1:
				tc = touch{kind: tUniform}
			default:
				tc = touch{kind: tSet, set: r.set}
				lt.extra = extra
			}
			r.lks = append(r.lks, lt)
			break
		}
	}
	if kind == shardkey.Insert || kind == shardkey.Delete {
		for _, lk := range tk.lookups {
			lt := lkTouch{lk: lk, write: true}
			cd := findCond(conds, lk.col)
			vals, ok := lookupVals(cd, one[:])
			switch {
			case ok:
				if !r.addLookupShards(&lt, vals) {
					lt.uni = 1
				}
				if len(lt.shards) == 0 && lt.uni == 0 {
					continue // NULL: no lookup row
				}
				if lk.unplaced && len(lt.shards) > 0 {
					lt.uni = min(max(lt.nvals, 1), r.s.N)
					lt.shards = lt.shards[:0]
				}
			case kind == shardkey.Insert && cd != nil && cd.Op == shardkey.Range:
				// INSERT ... SELECT: the copied rows' values may hash
				// anywhere.
				start := len(r.lset)
				for sh := 0; sh < r.s.N; sh++ {
					r.lset = append(r.lset, sh)
				}
				lt.shards = r.lset[start:]
			default:
				// A value the database assigns, or (a delete) the row's
				// value, read before deleting: one lookup shard.
				lt.uni = 1
			}
			r.lks = append(r.lks, lt)
		}
	}
	if kind == shardkey.Update && len(sets) > 0 {
		tc.vread = r.updateLookups(tk, conds, sets)
	}
	tc.lks = r.lks
	return tc
}

// updateLookups adds to r.lks the lookup writes of an UPDATE (conditions
// conds) that assigns lookup columns (sets): vtgate reads the row first
// (SELECT ... FOR UPDATE on the row's shards, updateVindexEntries in
// go/vt/vtgate/engine/update.go), then, for each owned lookup vindex
// whose column changes, deletes the old value's lookup row and inserts
// the new value's (lookupInternal.Update: Delete, then Create, in the
// transaction's session, CommitOrder_NORMAL, vindexes/lookup_internal.go;
// a consistent lookup's clCommon.Update deletes in its post session and
// creates in its pre session, vindexes/consistent_lookup.go). One row is
// counted, as for a DELETE: the old row's lookup shard is that of the
// value the WHERE binds the column to, else one shard at random (known
// once the row is read); the new row's is the new value's, or one at
// random when the value is known only at run time. A NULL has no lookup
// row. When the WHERE binds the column to the very value assigned,
// nothing changes and Vitess writes nothing (the Update compares them).
// It reports whether the UPDATE assigns an owned lookup's column: vtgate
// then first reads the rows' vindex columns with the update's own WHERE,
// SELECT ... FOR UPDATE on every shard the update is sent to
// (OwnedVindexQuery, run by Update.updateVindexEntries on the update's
// resolved shards, go/vt/vtgate/engine/update.go; planned whenever the
// SET names an owned vindex column, whatever the values), one more unit
// of work on each of those shards (touch.vread).
func (r *router) updateLookups(tk *tableKey, conds, sets []shardkey.Cond) bool {
	var one [1]shardkey.Value
	assigns := false
	for _, lk := range tk.lookups {
		sc := findCond(sets, lk.col)
		if sc == nil {
			continue
		}
		assigns = true
		if sc.Op != shardkey.Eq {
			continue
		}
		cd := findCond(conds, lk.col)
		if cd != nil && cd.Op == shardkey.Eq && cd.Fresh == shardkey.NotFresh && sc.Fresh == shardkey.NotFresh &&
			!cd.Val.IsNull() && !sc.Val.IsNull() && shardkey.Compare(cd.Val.Canonical(), sc.Val.Canonical()) == 0 {
			continue
		}
		old := lkTouch{lk: lk, write: true, upd: updOld}
		vals, ok := lookupVals(cd, one[:])
		switch {
		case cd != nil && cd.IsNull:
			ok, vals = true, nil // col IS NULL: no old lookup row
		case ok && cd.Op == shardkey.In && cd.Unknown != 0:
			ok = false
		}
		if ok {
			if !r.addLookupShards(&old, vals) {
				old.uni = 1
			}
		} else {
			old.uni = 1
		}
		if len(old.shards) > 0 || old.uni > 0 {
			if lk.unplaced && len(old.shards) > 0 {
				old.uni = min(max(old.nvals, 1), r.s.N)
				old.shards = old.shards[:0]
			}
			r.lks = append(r.lks, old)
		}
		nw := lkTouch{lk: lk, write: true, upd: updNew}
		switch {
		case sc.Fresh != shardkey.NotFresh:
			nw.uni = 1
		case sc.Val.IsNull():
			continue // no new lookup row
		default:
			one[0] = sc.Val
			if !r.addLookupShards(&nw, one[:1]) {
				nw.uni = 1
			}
			if lk.unplaced && len(nw.shards) > 0 {
				nw.uni, nw.shards = 1, nw.shards[:0]
			}
		}
		r.lks = append(r.lks, nw)
	}
	return assigns
}

// lookupCross returns the probability that lookup write lt lands on a
// shard the statement's own rows (tc) are not on. Rows on a fixed set R of
// shards (tOne, tSet, tAll): 1 when a known lookup shard is outside R,
// else 1 - (|R|/n)^uni. Rows on one shard drawn from R (tUniform: every
// shard; tUniformOf): with no known lookup shard 1 - (1/n)^uni; with one,
// L in R, 1 - (1/|R|)(1/n)^uni; otherwise 1.
func lookupCross(tc *touch, lt *lkTouch, n int) float64 {
	in := func(s int, set []int) bool {
		for _, x := range set {
			if x == s {
				return true
			}
		}
		return false
	}
	uni := float64(lt.uni)
	switch tc.kind {
	case tOne, tSet, tAll:
		size := 0
		for _, s := range lt.shards {
			switch tc.kind {
			case tOne:
				if s != tc.one {
					return 1
				}
			case tSet:
				if !in(s, tc.set) {
					return 1
				}
			}
		}
		switch tc.kind {
		case tOne:
			size = 1
		case tSet:
			size = len(tc.set)
		case tAll:
			size = n
		}
		return 1 - math.Pow(float64(size)/float64(n), uni)
	}
	m := n
	if tc.kind == tUniformOf {
		m = len(tc.set)
	}
	switch len(lt.shards) {
	case 0:
		return 1 - math.Pow(1/float64(n), uni)
	case 1:
		if tc.kind == tUniformOf && !in(lt.shards[0], tc.set) {
			return 1
		}
		return 1 - math.Pow(1/float64(n), uni)/float64(m)
	}
	return 1
}

// LookupScore is the cost and benefit of one lookup (a secondary routing
// table, Vitess lookup vindex) under a design. Rates are requests/s and
// units of work/s, fractions 0..1.
type LookupScore struct {
	Table  string `json:"table"`
	Column string `json:"column"`
	// Lookup is the lookup as written ("lookup(email)"), Vindex its
	// Vitess vindex type (lookup_unique, lookup, consistent_lookup...).
	Lookup string `json:"lookup"`
	Vindex string `json:"vindex"`
	// ReadsPerS are the requests routed through the lookup instead of
	// every shard, ReadWorkPerS the units/s they cost on the lookup table
	// (one per distinct lookup shard their values hash to).
	ReadsPerS    float64 `json:"reads_per_s"`
	ReadWorkPerS float64 `json:"read_work_per_s"`
	// WritesPerS are the lookup-row writes of inserts, deletes and
	// updates (an UPDATE that assigns the column is two: the old value's
	// row deleted, the new one's inserted), WriteWorkPerS what those
	// writes cost on its shards.
	WritesPerS    float64 `json:"writes_per_s"`
	WriteWorkPerS float64 `json:"write_work_per_s"`
	// UpdateWritesPerS is the part of WritesPerS due to updates that
	// assign the column (lookupInternal.Update); omitted when none.
	UpdateWritesPerS float64 `json:"update_writes_per_s,omitempty"`
	// CrossShardWriteFraction is the share of those writes whose lookup
	// row lands on a shard their own row is not on.
	CrossShardWriteFraction float64 `json:"cross_shard_write_fraction"`
	// Engine places the lookup table's rows by the column; "unknown"
	// when the design came from a VSchema that does not define the
	// lookup's backing table (each lookup row is then scored on one
	// shard at random).
	Engine string `json:"engine"`
	// LookupTable is the backing table's name the VSchema gives
	// (params.table), omitted for a design written by hand.
	LookupTable string `json:"lookup_table,omitempty"`
	// EngineAssumed says Engine is an assumption: the VSchema defines
	// the backing table but shards it by no vindex shardkey places.
	EngineAssumed bool `json:"engine_assumed,omitempty"`
}

// LookupPartial is the mergeable partial score of one lookup.
type LookupPartial struct {
	Reads, ReadWork   float64 // requests/s routed through it; units/s on its shards
	Writes, WriteWork float64 // requests/s writing its rows; units/s
	UpdateWrites      float64 // of Writes, an UPDATE's (two per request)
	CrossWrites       float64 // requests/s whose lookup rows land off their row's shards (expected)
}

func (a *LookupPartial) merge(b *LookupPartial) {
	a.Reads += b.Reads
	a.ReadWork += b.ReadWork
	a.Writes += b.Writes
	a.WriteWork += b.WriteWork
	a.UpdateWrites += b.UpdateWrites
	a.CrossWrites += b.CrossWrites
}

// growLookups makes room for n lookups.
func (p *Partial) growLookups(n int) {
	for len(p.Lookups) < n {
		p.Lookups = append(p.Lookups, LookupPartial{})
	}
}

// addLookups accounts the lookup parts of touch t (rate r, operation o).
func (p *Partial) addLookups(o *OpPartial, t *touch, r float64) {
	for i := range t.lks {
		lt := &t.lks[i]
		u := float64(lt.units())
		for _, s := range lt.shards {
			p.Work[s] += r
		}
		p.WorkUniform += r * float64(lt.uni)
		o.Work += r * u
		o.Lookup += r * u
		p.growLookups(lt.lk.idx + 1)
		lp := &p.Lookups[lt.lk.idx]
		if lt.write {
			lp.Writes += r
			lp.WriteWork += r * u
			if lt.upd != 0 {
				lp.UpdateWrites += r
			}
			lp.CrossWrites += r * lookupCross(t, lt, p.N)
		} else {
			lp.Reads += r
			lp.ReadWork += r * u
		}
	}
}

// lookupScores reports the scheme's lookups from p.
func (s *Scheme) lookupScores(p *Partial) []LookupScore {
	var out []LookupScore
	for _, lk := range s.lookups {
		t := s.w.Tables[lk.table]
		ls := LookupScore{Table: t.Name, Column: t.Columns[lk.col].Name, Lookup: lk.spec.String(), Vindex: lk.spec.VindexType(), Engine: lk.eng.Name(),
			LookupTable: lk.lkTableName, EngineAssumed: lk.assumed != ""}
		if lk.unplaced {
			ls.Engine = "unknown"
		}
		if lk.idx < len(p.Lookups) {
			lp := p.Lookups[lk.idx]
			ls.ReadsPerS, ls.ReadWorkPerS = lp.Reads, lp.ReadWork
			ls.WritesPerS, ls.WriteWorkPerS, ls.UpdateWritesPerS = lp.Writes, lp.WriteWork, lp.UpdateWrites
			if lp.Writes > 0 {
				ls.CrossShardWriteFraction = lp.CrossWrites / lp.Writes
			}
		}
		out = append(out, ls)
	}
	return out
}

// explainLookups explains the lookups' parts of tc, a statement of kind
// on table t with conditions conds under key tk: a read routed through a
// lookup gets its reason rewritten (the lookup hop, then the rows'
// shards); each lookup-row write is added to the reason. LookupShards
// gets the lookup tables' shards.
func (s *Scheme) explainLookups(rt *Route, t *shardkey.Table, tk *tableKey, kind shardkey.Kind, conds []shardkey.Cond, tc *touch) {
	for i := range tc.lks {
		lt := &tc.lks[i]
		col := t.Columns[lt.lk.col].Name
		for _, sh := range lt.shards {
			if !containsInt(rt.LookupShards, sh) {
				rt.LookupShards = append(rt.LookupShards, sh)
			}
		}
		where := "on shard " + intsText(lt.shards)
		if len(lt.shards) > 1 {
			where = "on shards " + intsText(lt.shards)
		}
		switch {
		case lt.uni > 0 && len(lt.shards) > 0:
			where += fmt.Sprintf(" and at most %d more known once the values are", lt.uni)
		case lt.uni == 1:
			where = "on one shard, known once the value is (a value known only at run time)"
		case lt.uni > 1:
			where = fmt.Sprintf("on at most %d shards, known once the values are (values known only at run time)", lt.uni)
		}
		vindex := fmt.Sprintf("%s (Vitess %s)", lt.lk.spec, lt.lk.spec.VindexType())
		table := fmt.Sprintf("the lookup table, sharded by %s", col)
		if lt.lk.assumed != "" {
			table = fmt.Sprintf("the lookup table %s, assumed sharded by %s with engine %s: the VSchema shards it by no vindex shardkey places", lt.lk.lkTableName, col, lt.lk.assumed)
		}
		if lt.lk.unplaced {
			name := "its lookup table"
			if lt.lk.lkTable != "" {
				name = "its lookup table " + lt.lk.lkTable
			}
			if n := s.lookupVindexName(lt.lk); n != "" {
				vindex = fmt.Sprintf("%s (Vitess %s %s)", lt.lk.spec, lt.lk.spec.VindexType(), n)
			}
			table = fmt.Sprintf("%s, which the VSchema defines no table or vindex for", name)
			where = "on a shard that is unknown"
			if lt.uni > 1 {
				where = fmt.Sprintf("on at most %d shards that are unknown", lt.uni)
			}
		}
		if !lt.write {
			rt.extra = lt.extra
			target := ""
			switch {
			case tc.kind == tUniformN && lt.lk.unseen == 0:
				target = fmt.Sprintf("then the shards of every row it names: a non-unique lookup's value may be on any number of shards, and without a row sample how many is unknown (at most all %d, which ones known once the lookup answers; scored at that bound)", s.N)
			case tc.kind == tOne:
				target = fmt.Sprintf("then shard %d", tc.one)
				if lt.nvals > 1 {
					target = fmt.Sprintf("then shard %d, which holds the rows of all %d values", tc.one, lt.nvals)
				}
			case tc.kind == tUniform && lt.uni > 0:
				target = "then the one shard of the row it names, known once the lookup answers"
			case len(tc.set) == 0 && lt.uni > 0:
				target = fmt.Sprintf("then the shards of the rows they name, at most %d, known once the lookup answers", lt.extra)
			case tc.kind == tUniform && !lt.lk.spec.Unique:
				target = "then the shards of the rows it names (the value is not in the row sample; a non-unique lookup's value spans as many shards as the sample's values do on average, 1 here: one shard, known once the lookup answers)"
			case tc.kind == tUniform:
				target = "then the one shard of the row it names (the value is not in the row sample: known once the lookup answers)"
			case len(tc.set) == 0 && lt.extra == 0:
				target = "which names no row: no shard is asked"
			case len(tc.set) == 0:
				target = fmt.Sprintf("then the shards of the %d rows they name (not in the row sample: known once the lookup answers)", lt.extra)
			default:
				target = "then shards " + intsText(tc.set)
				if len(tc.set) == 1 {
					target = fmt.Sprintf("then shard %d", tc.set[0])
				}
				if lt.extra > 0 && lt.uni > 0 {
					target += fmt.Sprintf(", and at most %d more for the values known only at run time or not in the row sample (known once the lookup answers)", lt.extra)
				} else if lt.extra > 0 {
					target += fmt.Sprintf(", and %d more for values not in the row sample (known once the lookup answers)", lt.extra)
				}
			}
			if !lt.lk.spec.Unique && len(tc.set) > 1 {
				target += " (a non-unique lookup names every matching row, on as many shards as hold them)"
			}
			rt.values = nil // routed by the lookup's values, not the key's
			if lt.over {
				// The key binds the statement too, by IN lists: vtgate
				// prefers the lookup's one value (viaLookups).
				op := "Equal"
				if lt.lk.spec.Unique {
					op = "EqualUnique"
				}
				rt.Reason = fmt.Sprintf("%s binds the key %s on %s to several values (Vitess opcode IN), but %s binds %s to one (opcode %s), which vtgate routes by instead, as it picks the vindex of least cost, opcode first (PickBestAvailableVindex, operators/sharded_routing.go): lookup %s -> keyspace id %s (%s), %s",
					describeConds(t, tk.cols, conds, kind), tk.expr, t.Name, describeConds(t, []int{lt.lk.col}, conds, kind), vindex, op, col, where, table, target)
				continue
			}
			rt.Reason = fmt.Sprintf("%s does not bind the key %s on %s, but binds %s: lookup %s -> keyspace id %s (%s), %s",
				describeConds(t, []int{lt.lk.col}, conds, kind), tk.expr, t.Name, vindex, col, where, table, target)
			continue
		}
		if lt.upd != 0 {
			s.explainUpdateLookup(rt, t, tc, i, vindex, table)
			continue
		}
		var what string
		switch {
		case lt.lk.unplaced && kind == shardkey.Delete:
			what = fmt.Sprintf("deletes the lookup row %s -> keyspace id from %s: %s", col, table, where)
		case lt.lk.unplaced:
			what = fmt.Sprintf("inserts the lookup row %s -> keyspace id into %s: %s", col, table, where)
		case len(lt.shards) > 0 && kind == shardkey.Delete:
			what = fmt.Sprintf("deletes the lookup row %s -> keyspace id %s (%s)", col, where, table)
		case len(lt.shards) > 0:
			what = fmt.Sprintf("inserts the lookup row %s -> keyspace id %s (%s)", col, where, table)
		case kind == shardkey.Delete:
			what = fmt.Sprintf("deletes the row's lookup row %s -> keyspace id from %s: one shard, that of the row's %s (read from the row first)", col, table, col)
		default:
			what = fmt.Sprintf("inserts the lookup row %s -> keyspace id into %s: one shard, that of a %s known only once the row is written", col, table, col)
		}
		what += " for " + vindex
		if lt.lk.spec.Consistent {
			what += ", in its own session committed before the transaction's (no multi-shard commit)"
			if kind == shardkey.Delete {
				what = strings.Replace(what, "committed before", "committed after", 1)
			}
		} else {
			what += ", in the statement's transaction"
		}
		rt.Reason += "; " + what
	}
	sort.Ints(rt.LookupShards)
}

// explainUpdateLookup adds to rt's reason the lookup writes of an UPDATE
// that assigns a lookup column: tc.lks[i] is one of them (updOld or
// updNew); the old row's delete is said with the new row's insert that
// follows it, once.
func (s *Scheme) explainUpdateLookup(rt *Route, t *shardkey.Table, tc *touch, i int, vindex, table string) {
	lt := &tc.lks[i]
	if lt.upd == updNew && i > 0 && tc.lks[i-1].upd == updOld && tc.lks[i-1].lk == lt.lk {
		return // said with the delete
	}
	var oldW, newW *lkTouch
	if lt.upd == updOld {
		oldW = lt
		if i+1 < len(tc.lks) && tc.lks[i+1].upd == updNew && tc.lks[i+1].lk == lt.lk {
			newW = &tc.lks[i+1]
		}
	} else {
		newW = lt
	}
	col := t.Columns[lt.lk.col].Name
	place := func(w *lkTouch, what string) string {
		switch {
		case w.lk.unplaced:
			return what + " on a shard that is unknown (" + table + ")"
		case len(w.shards) > 0:
			return fmt.Sprintf("%s on shard %s", what, intsText(w.shards))
		}
		return ""
	}
	oldText := "no old lookup row (the row's old value is NULL)"
	if oldW != nil {
		oldText = place(oldW, "the row's old lookup row")
		if oldText == "" {
			oldText = "the row's old lookup row (its shard known once the row is read)"
		}
	}
	newText := "no new lookup row (the new value is NULL)"
	if newW != nil {
		newText = place(newW, "the new value's lookup row")
		if newText == "" {
			newText = "the new value's lookup row on a shard known only at run time"
		}
	}
	txn := "in the statement's transaction"
	if lt.lk.spec.Consistent {
		txn = "in sessions of their own (consistent lookup: the delete committed after the transaction, the insert before; no multi-shard commit)"
	}
	rt.Reason += fmt.Sprintf("; SET changes %s, the column of the owned %s: Vitess reads the row (SELECT ... FOR UPDATE on the update's shards, one more unit of work on each), deletes %s and inserts %s, %s (Lookup.Update, go/vt/vtgate/vindexes/lookup.go; updateVindexEntries, engine/update.go)", col, vindex, oldText, newText, txn)
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
