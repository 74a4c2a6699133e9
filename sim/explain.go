package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
)

// Route says which shards one statement touches under a scheme, and why,
// in the manner of vtexplain. Shards are 0-based and sorted; Scatter is
// true when the statement goes to every shard (scatter-gather).
type Route struct {
	Shards  []int  `json:"shards"`
	Scatter bool   `json:"scatter"`
	Reason  string `json:"reason"`
	// AnyShard marks a statement any one shard answers (a read of a
	// reference table): Shards is then empty, as for a statement that
	// asks none, and this tells them apart.
	AnyShard bool `json:"any_shard,omitempty"`
	// Route names the kind of route as the engine's planner would:
	// single, multi, scatter, none or any_shard (see RouteSingle...).
	Route string `json:"route,omitempty"`
	// LookupShards are the shards of the lookup tables (secondary
	// routing tables, lookup(col)) the statement reads to find its rows
	// or writes its lookup rows to, sorted; Shards are the table's own.
	LookupShards []int `json:"lookup_shards,omitempty"`
	// Warnings are problems reading the statement that did not stop
	// routing it (a value outside its column's type).
	Warnings []string `json:"warnings,omitempty"`
	// unknown marks one shard known only at run time (Shards empty).
	unknown bool
	// extra counts shards beside Shards known only at run time (rows a
	// lookup names that the row sample does not hold).
	extra int
	// multi marks a route by several values, some known only at run
	// time (IN ($1, $2)): Shards lists the known values' shards.
	multi bool
	// values are the distinct key values (tuples, as text) that route
	// the statement; nil when it is not routed by values.
	values map[string]bool
	// merge is the note ending Reason when the read is one route with
	// another read it is compared with (Vitess merges them), "" when it
	// is not; mergeWhy says why they merge, for a statement's reason
	// that states the shared route once (ExplainStatement).
	merge, mergeWhy string
}

// AtRunTime reports whether which shards, and how many, the statement
// touches is known only at run time: a value of a bind parameter, a
// subquery's result, a value the database assigns, a lookup row the
// sample does not hold. Shards then lists only the shards already known
// (none, often). A scatter or any-shard route is known whatever the
// values.
func (rt Route) AtRunTime() bool {
	return !rt.Scatter && !rt.AnyShard && (rt.unknown || rt.multi || rt.extra > 0)
}

// Explain routes one statement (its kind and conditions on table ti) and
// explains the decision. A statement whose shard depends on a value the
// database assigns (an insert leaving out the key, a new id) has no shards
// listed and says so. It is safe for concurrent use.
func (s *Scheme) Explain(ti int, kind shardkey.Kind, conds []shardkey.Cond) (rt Route, err error) {
	return s.explainSets(ti, kind, conds, nil)
}

// explainSets is Explain for a statement that may assign columns: sets
// are an UPDATE's SET columns (shardkey.Access.Sets), whose owned lookups'
// rows it rewrites.
func (s *Scheme) explainSets(ti int, kind shardkey.Kind, conds, sets []shardkey.Cond) (rt Route, err error) {
	if ti < 0 || ti >= len(s.tables) {
		return Route{}, fmt.Errorf("no table %d", ti)
	}
	r := newRouter(s)
	mergedOn, mergedWith := "", ""
	if hasVia(conds) {
		c, used, err := r.merged(ti, kind, conds)
		if err != nil {
			return Route{}, err
		}
		if used {
			for _, cd := range conds {
				if cd.Via != 0 {
					mergedOn = s.w.Tables[ti].Columns[int(cd.Via)-1].Name
					if cd.ViaTable != 0 && int(cd.ViaTable)-1 < len(s.w.Tables) {
						ot := s.w.Tables[cd.ViaTable-1]
						if int(cd.ViaTableCol)-1 < len(ot.Columns) {
							mergedWith = ot.Name + "." + ot.Columns[cd.ViaTableCol-1].Name
						}
					}
					break
				}
			}
		}
		conds = c
	}
	tc, err := r.stmt(ti, kind, conds, sets)
	if err != nil {
		return Route{}, err
	}
	t := s.w.Tables[ti]
	tk := s.tables[ti]
	if mergedWith != "" {
		defer func() {
			v := ""
			if n := s.keyVindexName(ti); n != "" {
				v = " " + n
			}
			rt.merge = fmt.Sprintf(" (one route with the read of %s it is compared with: %s.%s and %s are the keys of their tables by the same unique vindex%s, so a value is on the same one shard in both, and Vitess merges the two routes and routes them by the better condition of both)", strings.SplitN(mergedWith, ".", 2)[0], t.Name, mergedOn, mergedWith, v)
			rt.mergeWhy = fmt.Sprintf("%s.%s and %s are the keys of their tables by the same unique vindex%s, so a value is on the same one shard in both", t.Name, mergedOn, mergedWith, v)
			rt.Reason += rt.merge
		}()
	} else if mergedOn != "" {
		defer func() {
			rt.merge = fmt.Sprintf(" (one route with the read of %s it is compared with on %s, a unique lookup: a value of %s is on one row and one shard, so Vitess merges the two routes and routes them by the better condition of both)", t.Name, mergedOn, mergedOn)
			rt.mergeWhy = fmt.Sprintf("they are compared on %s, a unique lookup: a value of %s is on one row and one shard", mergedOn, mergedOn)
			rt.Reason += rt.merge
		}()
	}
	keyCols := make([]string, len(tk.cols))
	for i, c := range tk.cols {
		keyCols[i] = t.Columns[c].Name
	}
	bound := describeConds(t, tk.cols, conds, kind)
	rt = Route{Shards: []int{}}
	defer func() {
		if len(tc.lks) > 0 {
			s.explainLookups(&rt, t, tk, kind, conds, &tc)
		}
		rt.Warnings = append(rt.Warnings, s.nullWriteWarnings(tk, kind, conds, sets)...)
		switch {
		case tk.kind != kRange || len(tk.bounds) > 0 || s.N <= 1:
		case s.rangeOne != nil:
			rt.Reason += fmt.Sprintf("; WARNING: the range key has one value, %s, where its boundaries were taken from: one value cannot be split into ranges, so every value is in shard 0", tupleText(s.rangeOne))
		default:
			rt.Reason += "; WARNING: the range key has no boundaries (no row sample), so every value is in shard 0: give rows or bounds=[...]"
		}
	}()
	switch tk.kind {
	case kUnplaced:
		rt.Shards = []int{0}
		rt.Reason = fmt.Sprintf("table %s has no key in design %q, so it is unsharded and lives on shard 0", t.Name, s.Design.Text)
		if _, ok := tk.expr.(*shardkey.ReplicateExpr); ok {
			rt.Reason = fmt.Sprintf("%s is replicate in design %q, but MongoDB has no reference collections: it is unsharded and lives on the database's primary shard (shard 0)", t.Name, s.Design.Text)
		}
		return rt, nil
	case kReplicate:
		if kind == shardkey.Read {
			rt.AnyShard = true
			rt.Reason = fmt.Sprintf("%s is a reference table (a copy on every shard): a read is answered by any one shard, locally", t.Name)
		} else if n, ok := s.vschemaNames(ti); ok && n.Reference && n.Source != "" && strings.HasPrefix(s.Engine.Name(), "vitess") {
			// A reference table with a source: Vitess sends its writes
			// to the source table (delete.go, update.go: "Reference
			// table should update the source table"; an insert too,
			// reference_cases.json), from which the copies are
			// materialized.
			rt.AnyShard = true
			rt.Reason = fmt.Sprintf("%s is a reference table (a copy on every shard) with the source %s: Vitess sends %s to the source table, and a Materialize workflow copies it to the other keyspace's shards; the score counts the write on all %d copies", t.Name, n.Source, article(kind.String()), s.N)
		} else if n, ok := s.vschemaNames(ti); ok && n.Reference && kind == shardkey.Insert && strings.HasPrefix(s.Engine.Name(), "vitess") {
			// Without a source Vitess plans the insert as a sharded
			// Insert with no vindex, which fails when it runs
			// (getInsertShardedQueries, go/vt/vtgate/engine/insert.go:
			// PrimaryVindexNotSet; planbuilder testdata dml_cases.json,
			// "insert into ref").
			rt.Shards = allShards(s.N)
			rt.Scatter = true
			msg := fmt.Sprintf("%s is a reference table (a copy on every shard) without a source: Vitess plans an insert into it as a sharded Insert that fails when it runs (\"table '%s' does not have a primary vindex\", engine/insert.go); give it a source in the VSchema, and the insert goes to the source table; the score counts the write on all %d copies", t.Name, t.Name, s.N)
			rt.Reason = msg
			rt.Warnings = append(rt.Warnings, msg)
		} else if (kind == shardkey.Update || kind == shardkey.Delete) && strings.HasPrefix(s.Engine.Name(), "vitess") {
			// Vitess plans an UPDATE or DELETE of a reference table
			// (without a source table) as a Route with the Reference
			// opcode, which RoutingParameters.findRoute sends to any one
			// shard (anyShard, go/vt/vtgate/engine/routing.go). The
			// other copies are not written by the statement; the work
			// is still counted on every copy.
			rt.AnyShard = true
			rt.Reason = fmt.Sprintf("%s is a reference table (a copy on every shard): Vitess sends %s to any one shard (the Reference opcode); the copies on the other shards are written by replication (a Materialize workflow from the table's source), not by this statement, and the score counts the write on all %d copies", t.Name, article(kind.String()), s.N)
			if n, ok := s.vschemaNames(ti); ok && n.Reference && n.Source == "" {
				rt.Reason = fmt.Sprintf("%s is a reference table (a copy on every shard): Vitess sends %s to any one shard (the Reference opcode), and only that copy changes: the VSchema gives %s no source, so no Materialize workflow keeps the other copies in step; the score counts the write on all %d copies", t.Name, article(kind.String()), t.Name, s.N)
				rt.Warnings = append(rt.Warnings, fmt.Sprintf("%s is a reference table without a source in the VSchema: Vitess writes %s to one copy only, and nothing keeps the copies on the other shards in step", t.Name, article(kind.String())))
			}
		} else {
			rt.Shards = allShards(s.N)
			rt.Scatter = true
			rt.Reason = fmt.Sprintf("%s is a reference table (a copy on every shard): %s must change every copy, on all %d shards", t.Name, article(kind.String()), s.N)
		}
		return rt, nil
	}
	key := fmt.Sprintf("%s on %s", tk.expr, t.Name)
	if tc.kind == tOne || tc.kind == tSet {
		rt.values = keyValues(tk.cols, conds)
		rt.values = vindexDistinct(tk, conds, rt.values)
	}
	if tk.kind == kRange && runTimeRange(tk.cols, conds) {
		note := nowNote(t, tk, conds)
		defer func() { rt.Reason += note }()
	}
	switch tc.kind {
	case tOne:
		rt.Shards = []int{tc.one}
		if tk.kind == kRange {
			rt.Reason = fmt.Sprintf("%s falls in one %s of the key %s: single-shard, shard %d", bound, rangeWord(tk), key, tc.one)
		} else if len(rt.values) > 1 {
			rt.Reason = fmt.Sprintf("%s routes by the key %s to 1 of %d shards: its %d values are all on shard %d", bound, key, s.N, len(rt.values), tc.one)
		} else {
			rt.Reason = fmt.Sprintf("%s binds every column of the key %s: single-shard, shard %d", bound, key, tc.one)
			if n := len(keyValues(tk.cols, conds)); n > 1 && len(rt.values) == 1 {
				rt.Reason += fmt.Sprintf(" (its %d values are one keyspace id under the vindex, which takes them as one key)", n)
			}
		}
		if tk.saltBy >= 0 && findCond(conds, tk.saltBy) != nil && splitHot(tk, conds) {
			unit := "shards"
			if tk.composite {
				unit = "buckets, each a partition placed by its own token"
			}
			rt.Reason += fmt.Sprintf(" (a split hot value: %s picks 1 of its %d %s)", t.Columns[tk.saltBy].Name, hotBuckets(tk, conds, tc.one), unit)
		}
	case tSet:
		rt.Shards = append(rt.Shards, tc.set...)
		if len(tc.set) == 0 {
			rt.Reason = fmt.Sprintf("%s matches no value: no shard is asked", bound)
			if out := outsideType(t, tk.cols, conds); out != "" {
				rt.Reason = fmt.Sprintf("%s matches no row: %s: no shard is asked", bound, out)
			}
		} else {
			rt.Reason = fmt.Sprintf("%s routes by the key %s to %d of %d shards", bound, key, len(tc.set), s.N)
			if tk.kind == kRange {
				ranges := s.N
				if len(tk.bounds) > 0 {
					ranges = len(tk.bounds) + 1 // the ranges its split points cut (fewer than the shards when fewer are given)
				}
				rt.Reason = fmt.Sprintf("%s overlaps %d of the %d %ss of the key %s", bound, len(tc.set), ranges, rangeWord(tk), key)
			}
			if tc.salted {
				rt.Reason += fmt.Sprintf(" (a salted hot value is read from all %d of its buckets)", hotBuckets(tk, conds, tc.set[0]))
			}
		}
	case tAll:
		rt.Shards = allShards(s.N)
		rt.Scatter = true
		if kind == shardkey.Insert {
			rt.Reason = fmt.Sprintf("%s: the inserted rows may land on any of the %d shards of the key %s", bound, s.N, key)
		} else if bound == "" {
			rt.Reason = fmt.Sprintf("no condition on the key column(s) %s of %s: scatter-gather to all %d shards", strings.Join(keyCols, ", "), key, s.N)
		} else if tk.kind == kHash && onlyRanges(tk.cols, conds) {
			rt.Reason = fmt.Sprintf("%s is a range on the hash key %s: hashing scatters a range's values over every shard, so scatter-gather to all %d shards", bound, key, s.N)
		} else {
			rt.Reason = fmt.Sprintf("%s does not bind every key column (%s) of %s with equality: scatter-gather to all %d shards", bound, strings.Join(keyCols, ", "), key, s.N)
		}
	case tUniform:
		rt.unknown = true
		if kind != shardkey.Insert {
			rt.Reason = fmt.Sprintf("the key %s is bound to a value known only at run time (%s): one shard, known once the value is", key, runTimeSource(tk.cols, conds, false))
			break
		}
		if runTimeSource(tk.cols, conds, false) == "a bind parameter" {
			rt.Reason = fmt.Sprintf("the key %s takes the inserted row's value from a bind parameter: one shard, known once the value is", key)
			break
		}
		rt.Reason = fmt.Sprintf("the key %s takes a value the database assigns (a new id or a default): one shard, known only once the value is", key)
	case tUniformN:
		rt.Shards = append(rt.Shards, tc.set...)
		rt.multi = true
		switch {
		case tc.n < 0 && kind == shardkey.Insert:
			rt.Reason = fmt.Sprintf("%s: each inserted row goes to the shard of its own value of the key %s, and the statement computes the values (an INSERT ... SELECT), so they are known only at run time: which shards, and how many, is unknown (at most all %d); not a scatter-gather", bound, key, s.N)
		case tc.n < 0:
			rt.Reason = fmt.Sprintf("%s binds the key %s to a list of values known only at run time, their number too (a list bind variable or array parameter): an IN route to the shards of its values, at most all %d shards, which ones known once the values are", bound, key, s.N)
		case len(tc.set) > 0:
			rt.Reason = fmt.Sprintf("%s routes by the key %s to shard(s) %s and, for its %d value(s) known only at run time (bind parameters), at most %d more of the %d shards, which ones known once the values are", bound, key, intsText(tc.set), tc.n, min(tc.n, s.N-len(tc.set)), s.N)
			rt.Reason = strings.Replace(rt.Reason, "(bind parameters)", "("+runTimeSource(tk.cols, conds, true)+")", 1)
		default:
			rt.Reason = fmt.Sprintf("%s binds the key %s to %d values known only at run time (bind parameters): an IN route to at most %d of the %d shards, which ones known once the values are", bound, key, tc.n, min(tc.n, s.N), s.N)
			rt.Reason = strings.Replace(rt.Reason, "(bind parameters)", "("+runTimeSource(tk.cols, conds, true)+")", 1)
		}
	case tUniformOf:
		rt.Shards = append(rt.Shards, tc.set...)
		rt.Reason = fmt.Sprintf("%s: one of shards %s, chosen by the new row's salt bucket or new value", key, intsText(tc.set))
	}
	return rt, nil
}

// onlyRanges reports whether the conditions on key columns cols are all
// ranges with an end (and there is one).
func onlyRanges(cols []int, conds []shardkey.Cond) bool {
	n := 0
	for _, c := range cols {
		if cd := findCond(conds, c); cd != nil {
			if cd.Op != shardkey.Range || cd.Bounds == nil {
				return false
			}
			n++
		}
	}
	return n > 0
}

// runTimeRange reports whether a key column's range has an end known only
// at run time (Bounds.LoNow, HiNow).
func runTimeRange(cols []int, conds []shardkey.Cond) bool {
	for _, c := range cols {
		if cd := findCond(conds, c); cd != nil && cd.Op == shardkey.Range && cd.Bounds != nil && (cd.Bounds.LoNow || cd.Bounds.HiNow) {
			return true
		}
	}
	return false
}

// nowNote says how explain placed a key column's range end known at run
// time (now() - interval '5 years'; see tableKey.nowEnd): against the row
// sample's newest value of the column, or, where it cannot be placed, at
// every range it could reach.
func nowNote(t *shardkey.Table, tk *tableKey, conds []shardkey.Cond) string {
	var placed, open []string
	nowCol := ""
	for j, c := range tk.cols {
		cd := findCond(conds, c)
		if cd == nil || cd.Op != shardkey.Range || cd.Bounds == nil {
			continue
		}
		b, name := cd.Bounds, t.Columns[c].Name
		for _, e := range []struct {
			now, ok bool
			ago     int64
		}{{b.LoNow, b.LoAgoOK, b.LoAgo}, {b.HiNow, b.HiAgoOK, b.HiAgo}} {
			if !e.now {
				continue
			}
			if v, ok := tk.nowEnd(j, e.ago, e.ok); ok {
				nowCol = fmt.Sprintf("%s, %s,", name, tk.newest[j])
				placed = append(placed, fmt.Sprintf("%s = %s", nowExpr(e.ago), v))
				continue
			}
			switch {
			case !e.ok:
				open = append(open, fmt.Sprintf("the offset from now of the end on %s is not a constant", name))
			case t.Columns[c].Type != shardkey.Timestamp && t.Columns[c].Type != shardkey.Date:
				open = append(open, fmt.Sprintf("%s is not a time column", name))
			default:
				open = append(open, fmt.Sprintf("the row sample has no value of %s to take as now", name))
			}
		}
	}
	var parts []string
	if len(placed) > 0 {
		parts = append(parts, fmt.Sprintf("an end known at run time, placed taking the row sample's newest %s as now: %s", nowCol, strings.Join(placed, ", ")))
	}
	if len(open) > 0 {
		parts = append(parts, "an end known at run time that the data cannot place ("+strings.Join(open, "; ")+"): every range it could reach is asked")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// nowExpr writes a time ago microseconds before now as SQL: now(),
// now() - interval '5 years', now() + interval '1 day'; the interval in
// the largest whole unit (years of 365.25 days, as the offset is read:
// sqllog's usYear; days, hours, minutes, seconds; else microseconds).
func nowExpr(ago int64) string {
	if ago == 0 {
		return "now()"
	}
	op := "-"
	if ago < 0 {
		op, ago = "+", -ago
	}
	for _, u := range []struct {
		n    int64
		name string
	}{{31557600e6, "year"}, {86400e6, "day"}, {3600e6, "hour"}, {60e6, "minute"}, {1e6, "second"}, {1, "microsecond"}} {
		if ago >= u.n && ago%u.n == 0 {
			s := "s"
			if ago == u.n {
				s = ""
			}
			return fmt.Sprintf("now() %s interval '%d %s%s'", op, ago/u.n, u.name, s)
		}
	}
	return "now()" // unreachable: every offset is whole microseconds
}

// runTimeEnd writes a range end known at run time: now() less its offset
// when known, else a placeholder.
func runTimeEnd(ago int64, ok bool) string {
	if ok {
		return nowExpr(ago)
	}
	return "<a time known at run time>"
}

// runTimeSource names where the run-time values binding the key columns
// cols come from: bind parameters (Cond.Param), else a subquery's result.
func runTimeSource(cols []int, conds []shardkey.Cond, plural bool) string {
	param := false
	for _, c := range cols {
		if cd := findCond(conds, c); cd != nil && cd.Param {
			param = true
		}
	}
	switch {
	case param && plural:
		return "bind parameters"
	case param:
		return "a bind parameter"
	case plural:
		return "a subquery's results"
	}
	return "a subquery's result"
}

// keyValues returns the distinct key tuples conds bind the key columns
// cols to, as text (the cross product of each column's values, at most
// maxCombos of them), or nil when some column is not bound by = or IN.
// hotBuckets returns the buckets of the salted value conds bind tk's
// key to by equality (its own count under salt(EXPR, [K1, ...])), else
// the count of the split value holding shard sh (bucketsHolding).
func hotBuckets(tk *tableKey, conds []shardkey.Cond, sh int) int {
	key := make([]shardkey.Value, 0, len(tk.cols))
	for _, c := range tk.cols {
		cd := findCond(conds, c)
		if cd == nil || cd.Op != shardkey.Eq || cd.Fresh != shardkey.NotFresh {
			return tk.bucketsHolding(sh)
		}
		key = append(key, cd.Val)
	}
	if b, ok := tk.bshard[string(keyString(nil, key))]; ok {
		return len(b)
	}
	return tk.bucketsHolding(sh)
}

// splitHot reports whether conds bind tk's key by equality to one of its
// salted (split) hot values.
func splitHot(tk *tableKey, conds []shardkey.Cond) bool {
	key := make([]shardkey.Value, 0, len(tk.cols))
	for _, c := range tk.cols {
		cd := findCond(conds, c)
		if cd == nil || cd.Op != shardkey.Eq || cd.Fresh != shardkey.NotFresh {
			return false
		}
		key = append(key, cd.Val)
	}
	return tk.salted[string(keyString(nil, key))]
}

// vindexDistinct returns the distinct keyspace ids of the values of a
// table keyed by one column under a Vitess vindex (values), the values
// themselves otherwise: Vitess maps each value to its keyspace id, and
// values its vindex takes as one (unicode_loose_md5 and
// unicode_loose_xxhash fold case and trailing spaces with a weight
// string of the unicode collation, unicode.go and unicode_loose_md5.go in
// go/vt/vtgate/vindexes) are one key, as IN (3, 3) is one value: login
// IN ('abc', 'ABC') asks one keyspace id, so it is a single-shard route.
func vindexDistinct(tk *tableKey, conds []shardkey.Cond, values map[string]bool) map[string]bool {
	if len(values) < 2 || tk.kind != kHash || len(tk.cols) != 1 || tk.eng == nil || !strings.HasPrefix(tk.eng.Name(), "vitess") {
		return values
	}
	cd := findCond(conds, tk.cols[0])
	if cd == nil {
		return values
	}
	vs := cd.List
	if cd.Op == shardkey.Eq {
		vs = []shardkey.Value{cd.Val}
	}
	out := make(map[string]bool, len(vs))
	for _, v := range vs {
		p, err := tk.eng.Point([]shardkey.Value{v})
		if err != nil {
			return values
		}
		out[strconv.FormatUint(p, 16)] = true
	}
	return out
}

func keyValues(cols []int, conds []shardkey.Cond) map[string]bool {
	keys := []string{""}
	for _, c := range cols {
		cd := findCond(conds, c)
		if cd == nil {
			return nil
		}
		var vs []shardkey.Value
		switch cd.Op {
		case shardkey.Eq:
			vs = []shardkey.Value{cd.Val}
		case shardkey.In:
			vs = cd.List
		default:
			return nil
		}
		seen := map[string]bool{}
		var texts []string
		for _, v := range vs {
			if t := v.Canonical().String(); !seen[t] {
				seen[t] = true
				texts = append(texts, t)
			}
		}
		if len(keys)*len(texts) > maxCombos {
			return nil
		}
		var next []string
		for _, k := range keys {
			for _, t := range texts {
				next = append(next, k+"\x00"+t)
			}
		}
		keys = next
	}
	out := make(map[string]bool, len(keys))
	for _, k := range keys {
		out[k] = true
	}
	return out
}

func allShards(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func intsText(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

// outsideType says why a key column's condition whose values are all
// outside its type (Cond.Outside) matches no row; "" when none is.
func outsideType(t *shardkey.Table, keyCols []int, conds []shardkey.Cond) string {
	for _, c := range conds {
		if c.Outside != "" && slices.Contains(keyCols, c.Col) {
			return fmt.Sprintf("no %s holds a value that is not %s (the column's type)", t.Columns[c.Col].Name, article(t.Columns[c.Col].Type.String()))
		}
	}
	return ""
}

// describeConds describes the conditions on key columns ("user_id = 42 and
// created_at >= '2026-01-01T00:00:00Z'"), values as SQL literals
// (sqlLiteral).
func describeConds(t *shardkey.Table, keyCols []int, conds []shardkey.Cond, kind shardkey.Kind) string {
	var parts []string
	for _, c := range conds {
		isKey := false
		for _, k := range keyCols {
			isKey = isKey || k == c.Col
		}
		if !isKey {
			continue
		}
		name := t.Columns[c.Col].Name
		switch c.Op {
		case shardkey.Eq:
			if c.Fresh != shardkey.NotFresh {
				parts = append(parts, name+" = <new value>")
			} else {
				parts = append(parts, name+" = "+sqlLiteral(c.Val))
			}
		case shardkey.In:
			vals := make([]string, 0, len(c.List)+1)
			for i, v := range c.List {
				if i == 8 {
					vals = append(vals, fmt.Sprintf("... %d more", len(c.List)-8))
					break
				}
				vals = append(vals, sqlLiteral(v))
			}
			switch {
			case c.Unknown < 0:
				vals = append(vals, "<values known at run time>")
			case c.Unknown == 1:
				vals = append(vals, "<1 value known at run time>")
			case c.Unknown > 1:
				vals = append(vals, fmt.Sprintf("<%d values known at run time>", c.Unknown))
			}
			if c.Outside != "" && len(c.List) == 0 && c.Unknown == 0 {
				parts = append(parts, name+" "+c.Outside)
				continue
			}
			parts = append(parts, name+" IN ("+strings.Join(vals, ", ")+")")
		case shardkey.Range:
			b := c.Bounds
			if b == nil || !b.HasLo && !b.HasHi && !b.LoNow && !b.HiNow {
				// A column named but bound to nothing; an insert's holds
				// the rows an INSERT ... SELECT copies.
				if kind == shardkey.Insert {
					parts = append(parts, name+" (any value)")
				}
				continue
			}
			var r []string
			if b.LoNow {
				op := ">"
				if b.LoIncl {
					op = ">="
				}
				r = append(r, name+" "+op+" "+runTimeEnd(b.LoAgo, b.LoAgoOK))
			}
			if b.HiNow {
				op := "<"
				if b.HiIncl {
					op = "<="
				}
				r = append(r, name+" "+op+" "+runTimeEnd(b.HiAgo, b.HiAgoOK))
			}
			if b != nil && b.HasLo {
				op := ">"
				if b.LoIncl {
					op = ">="
				}
				r = append(r, name+" "+op+" "+sqlLiteral(b.Lo))
			}
			if b != nil && b.HasHi {
				op := "<"
				if b.HiIncl {
					op = "<="
				}
				r = append(r, name+" "+op+" "+sqlLiteral(b.Hi))
			}
			parts = append(parts, strings.Join(r, " and "))
		}
	}
	return strings.Join(parts, " and ")
}

// sqlLiteral writes v as a literal of a statement's condition: a value
// SQL writes as a string literal (text, and a UUID or timestamp, which a
// statement gives as a string) in single quotes, a quote inside doubled
// as standard SQL escapes it (it's is written 'it' then two quotes then
// 's'); any other value in its text form
// (Value.String: 42, 1.5, true, hex bytes). The reasons that quote a
// statement's conditions ("name = 'x' binds ...") use it, so that a
// string reads as the statement wrote it.
func sqlLiteral(v shardkey.Value) string {
	switch v.Type {
	case shardkey.Text, shardkey.UUID, shardkey.Timestamp:
		s := v.String()
		if strings.IndexFunc(s, isControl) < 0 {
			return "'" + strings.ReplaceAll(s, "'", "''") + "'"
		}
		// A control character (a newline) would break the reason's line:
		// written as PostgreSQL's escape string, E'a\nb'.
		var b strings.Builder
		b.WriteString("E'")
		for _, r := range s {
			switch {
			case r == '\\':
				b.WriteString(`\\`)
			case r == '\'':
				b.WriteString(`''`)
			case r == '\n':
				b.WriteString(`\n`)
			case r == '\r':
				b.WriteString(`\r`)
			case r == '\t':
				b.WriteString(`\t`)
			case isControl(r):
				fmt.Fprintf(&b, `\x%02x`, r)
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('\'')
		return b.String()
	}
	return v.String()
}

// isControl reports whether r is an ASCII control character.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// article puts "a" or "an" before a word ("an update", "a delete").
func article(w string) string {
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "an " + w
	}
	return "a " + w
}

// rangeWord names a range key's ranges in its system's term: MongoDB's
// chunks for a MongoDB shard key pattern, else ranges.
func rangeWord(tk *tableKey) string {
	if re := innerRange(tk.expr); re != nil && re.Mongo {
		return "chunk"
	}
	return "range"
}

// explainLookupMerged explains a read of table ti that Vitess merges
// with the read of table src it is joined with, routed by src's lookup
// conditions uc (router.lookupMerged): src's route, as ti's.
func (s *Scheme) explainLookupMerged(ti, src int, p shardkey.Peer) (Route, error) {
	uc := p.Conds
	rt, err := s.explainSets(src, shardkey.Read, uc, nil)
	if err != nil {
		return Route{}, err
	}
	t, ot := s.w.Tables[ti], s.w.Tables[src]
	col, ocol := t.Columns[p.Col].Name, ot.Columns[p.OtherCol].Name
	v := ""
	if n := s.keyVindexName(ti); n != "" {
		v = " " + n
	}
	var lks []string
	for _, lk := range s.tables[src].lookups {
		for _, u := range uc {
			if u.Col == lk.col && !slices.Contains(lks, lk.spec.String()) {
				lks = append(lks, lk.spec.String())
			}
		}
	}
	where := "to one shard known once the lookup answers"
	switch {
	case len(rt.Shards) == 0 && !rt.unknown && !rt.multi && rt.extra == 0:
		where = "to no shard"
	case len(rt.Shards) == 1 && rt.extra == 0 && !rt.multi:
		where = fmt.Sprintf("to shard %d", rt.Shards[0])
	case len(rt.Shards) > 0:
		where = "to shards " + intsText(rt.Shards)
		if rt.extra > 0 || rt.multi {
			where += " and shards known once the lookup answers"
		}
	}
	rt.mergeWhy = fmt.Sprintf("%s.%s and %s.%s are the keys of their tables by the same unique vindex%s, so joined rows are on the same shard", t.Name, col, ot.Name, ocol, v)
	rt.merge = fmt.Sprintf(" (one route with the read of %s: %s, and Vitess merges the two routes into one routed by %s)", ot.Name, rt.mergeWhy, strings.Join(lks, ", "))
	rt.Reason = fmt.Sprintf("no condition binds the key %s on %s, but %s.%s = %s.%s joins it with the read of %s, which %s routes %s", s.tables[ti].expr, t.Name, t.Name, col, ot.Name, ocol, ot.Name, strings.Join(lks, ", "), where) + rt.merge
	// The lookup's reads are the other read's.
	rt.LookupShards = nil
	return rt, nil
}
