package sim

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shardkey/shardkey"
)

// Route kinds, as the engines name the plan of one statement (Vitess's
// route opcodes EqualUnique, IN, Scatter, None, Reference; Citus's router
// and multi-shard plans; MongoDB's targeted and broadcast operations).
const (
	RouteSingle   = "single"    // one shard
	RouteMulti    = "multi"     // several shards, chosen by the key's values (an IN list, an OR)
	RouteScatter  = "scatter"   // every shard, because the key is not bound (scatter-gather)
	RouteNone     = "none"      // no shard: the statement matches no row
	RouteAnyShard = "any_shard" // any one shard: only reference tables are read
)

// Access is one table a statement touches (shardkey.Access).
type Access = shardkey.Access

// ExplainStatement routes every table access of one statement and
// combines them as the engines' routers do: the shards are the union of
// the accesses' shards; the statement scatters when any access does; reads
// of reference tables go wherever the rest goes, or to any one shard when
// nothing else is read; an access that matches no row adds no shard. The
// reasons are listed in order, each once, prefixed with the access's kind
// and table when there are several. Route.Route names the kind.
func (s *Scheme) ExplainStatement(accs []Access) (Route, error) {
	if len(accs) == 1 {
		rt, err := s.explainAccess(accs[0])
		rt.Route = s.routeKind(rt)
		return rt, err
	}
	out := Route{Shards: []int{}}
	seen := map[int]bool{}
	// A read merged with another read of its table (Vitess's one route
	// for both) is routed by the same condition, so its reason, the
	// merge note aside, is the other's: each reason is said once, with
	// how many reads of the table it routes and why they are one route.
	type said struct {
		table, reason, why string
		n                  int
		merge              string
	}
	var reasons []*said
	byText := map[string]*said{}
	anyShard, other := false, false
	for _, a := range accs {
		r, err := s.explainAccess(a)
		if err != nil {
			return Route{}, err
		}
		for _, sh := range r.Shards {
			if !seen[sh] {
				seen[sh] = true
				out.Shards = append(out.Shards, sh)
			}
		}
		for _, sh := range r.LookupShards {
			if !slices.Contains(out.LookupShards, sh) {
				out.LookupShards = append(out.LookupShards, sh)
			}
		}
		out.Scatter = out.Scatter || r.Scatter
		out.unknown = out.unknown || r.unknown
		out.extra += r.extra
		out.multi = out.multi || r.multi
		for v := range r.values {
			if out.values == nil {
				out.values = map[string]bool{}
			}
			out.values[v] = true
		}
		if r.AnyShard {
			anyShard = true
		} else if !a.None {
			other = true
		}
		name := s.w.Tables[a.Table].Name
		reason := fmt.Sprintf("%s %s: %s", a.Kind, name, strings.TrimSuffix(r.Reason, r.merge))
		e := byText[reason]
		if e == nil {
			e = &said{table: name, reason: reason}
			byText[reason] = e
			reasons = append(reasons, e)
		}
		e.n++
		if r.merge != "" && e.merge == "" {
			e.merge, e.why = r.merge, r.mergeWhy
		}
	}
	out.AnyShard = anyShard && !other
	sort.Ints(out.Shards)
	sort.Ints(out.LookupShards)
	texts := make([]string, len(reasons))
	for i, e := range reasons {
		switch {
		case e.merge != "" && e.n > 1:
			both := "both reads"
			if e.n > 2 {
				both = fmt.Sprintf("all %d reads", e.n)
			}
			texts[i] = fmt.Sprintf("%s (%s of %s: one route, as %s, so Vitess merges them and routes them by the better condition of both)", e.reason, both, e.table, e.why)
		default:
			texts[i] = e.reason + e.merge
		}
	}
	out.Reason = strings.Join(texts, "; ")
	out.Route = s.routeKind(out)
	return out, nil
}

// routeKind names the route as the engine's planner would: by the shards
// asked, except that Vitess names a route by several key values IN
// (multi) even when they share a shard (engine.IN in
// go/vt/vtgate/engine/routing.go; one value is EqualUnique).
func (s *Scheme) routeKind(rt Route) string {
	if len(rt.Shards) == 1 && len(rt.values) > 1 && !rt.Scatter && !rt.AnyShard && strings.HasPrefix(s.Engine.Name(), "vitess") {
		return RouteMulti
	}
	return routeKind(rt, s.N)
}

func routeKind(rt Route, n int) string {
	switch {
	case rt.AnyShard:
		return RouteAnyShard
	case rt.Scatter:
		return RouteScatter
	case rt.multi:
		// Several values, some known only at run time: the engine plans
		// a route by them (Vitess IN), whatever shards they turn out on.
		return RouteMulti
	case len(rt.Shards)+rt.extra > 1:
		return RouteMulti
	case len(rt.Shards) == 0 && rt.unknown:
		// One shard, known only once a value is (a new id, a subquery's
		// result): the engine plans a single-shard route.
		return RouteSingle
	case len(rt.Shards) == 0:
		return RouteNone
	case len(rt.Shards) == 1:
		return RouteSingle
	}
	return RouteMulti
}

// explainAccess explains one access; see Explain.
func (s *Scheme) explainAccess(a Access) (Route, error) {
	if a.Table < 0 || a.Table >= len(s.tables) {
		return Route{}, fmt.Errorf("no table %d", a.Table)
	}
	if a.None {
		return Route{Shards: []int{}, Reason: "the WHERE clause holds for no row (a false constant, a comparison with NULL, contradictory values): no shard is asked"}, nil
	}
	if conds, hint, keyOff := s.hinted(a, a.Conds); hint != "" {
		// Vitess skips a vindex a hint excludes when it lists the
		// table's vindexes to route by (newShardedRouting,
		// go/vt/vtgate/planbuilder/operators/sharded_routing.go): with
		// the key's vindex excluded, only a lookup the hint keeps can
		// route the statement.
		rt, err := s.explainSets(a.Table, a.Kind, conds, a.Sets)
		switch {
		case err != nil:
		case rt.Scatter && keyOff:
			rt.Reason = fmt.Sprintf("%s excludes the vindex of the key %s on %s: scatter-gather to all %d shards", hint, s.tables[a.Table].expr, s.w.Tables[a.Table].Name, s.N)
		default:
			rt.Reason += fmt.Sprintf(" (%s: routed by the vindexes it keeps only)", hint)
		}
		return rt, err
	}
	if a.Kind == shardkey.Read && len(a.Peers) > 0 {
		// Routed with a joined table's lookup (merge.go, lookupMerged).
		r := newRouter(s)
		_, src, _, ok, err := r.lookupMerged(a.Table, a.Conds, a.Peers)
		if err != nil {
			return Route{}, err
		}
		if ok {
			for _, p := range a.Peers {
				if p.Table == src {
					return s.explainLookupMerged(a.Table, src, p)
				}
			}
		}
	}
	rt, err := s.explainSets(a.Table, a.Kind, a.Conds, a.Sets)
	if err == nil && rt.Scatter && a.Kind != shardkey.Insert {
		t := s.w.Tables[a.Table]
		tk := s.tables[a.Table]
		keyIn := func(names []string) []string {
			var out []string
			for _, c := range tk.cols {
				if slices.ContainsFunc(names, func(p string) bool { return strings.EqualFold(p, t.Columns[c].Name) }) {
					out = append(out, t.Columns[c].Name)
				}
			}
			return out
		}
		if part := keyIn(a.Partial); len(part) > 0 {
			rt.Reason = fmt.Sprintf("an OR binds the key column(s) %s in some of its disjuncts but not in all (a disjunct on other columns may match rows on any shard): scatter-gather to all %d shards", strings.Join(part, ", "), s.N)
		} else if loose := keyIn(a.Loose); len(loose) > 0 && !strings.Contains(rt.Reason, "does not bind") {
			rt.Reason = fmt.Sprintf("the key column(s) %s are only compared in ways that bind no value (<>, NOT IN, a cast of the column, a COLLATE on it): scatter-gather to all %d shards", strings.Join(loose, ", "), s.N)
		} else if strings.HasPrefix(rt.Reason, "no condition on the key") {
			// A lookup column compared so: vtgate plans a vindex only
			// for a bare column compared with values (planEqualOp,
			// planInOp in
			// go/vt/vtgate/planbuilder/operators/sharded_routing.go).
			var lks []string
			for _, lk := range tk.lookups {
				name := t.Columns[lk.col].Name
				if slices.ContainsFunc(a.Loose, func(p string) bool { return strings.EqualFold(p, name) }) {
					lks = append(lks, lk.spec.String())
				}
			}
			if len(lks) > 0 {
				rt.Reason = strings.TrimSuffix(rt.Reason, fmt.Sprintf(": scatter-gather to all %d shards", s.N)) +
					fmt.Sprintf(", and the column(s) of %s are only compared in ways that bind no value (<>, NOT IN, a cast of the column, a COLLATE on it; a lookup routes a bare column compared with values): scatter-gather to all %d shards", strings.Join(lks, ", "), s.N)
			}
		}
	}
	return rt, err
}

// vindexNames returns the names a table's key answers to in a vindex
// hint: its Vitess vindex type (as emit names it in a VSchema), its
// column names, and the key expression as written.
func (s *Scheme) vindexNames(ti int) []string {
	tk := s.tables[ti]
	var names []string
	if tk.eng != nil {
		if v := shardkey.VindexType(tk.eng.Name()); v != "" {
			names = append(names, v)
		}
	}
	for _, c := range tk.cols {
		names = append(names, s.w.Tables[ti].Columns[c].Name)
	}
	names = append(names, s.w.Tables[ti].Name)
	if tk.expr != nil {
		names = append(names, tk.expr.String())
	}
	return names
}

// vschemaNames returns the VSchema's names of table ti's column vindexes
// (Options.Vindexes), matching the table's name exactly or else
// case-insensitively; ok is false for a design written by hand.
func (s *Scheme) vschemaNames(ti int) (shardkey.VindexNames, bool) {
	if s.vindexes == nil {
		return shardkey.VindexNames{}, false
	}
	name := s.w.Tables[ti].Name
	if n, ok := s.vindexes[name]; ok {
		return n, true
	}
	for k, n := range s.vindexes {
		if strings.EqualFold(k, name) {
			return n, true
		}
	}
	return shardkey.VindexNames{}, false
}

// VindexNamesOf returns the VSchema's names of table ti's column vindexes
// (the primary first, then the lookups in name order); ok is false for a
// design written by hand, which names none.
func (s *Scheme) VindexNamesOf(ti int) (names []string, ok bool) {
	n, ok := s.vschemaNames(ti)
	if !ok {
		return nil, false
	}
	if n.Primary != "" {
		names = append(names, n.Primary)
	}
	var lk []string
	for _, v := range n.Lookups {
		lk = append(lk, v)
	}
	sort.Strings(lk)
	return append(names, lk...), true
}

// keyVindexName returns the VSchema's name of table ti's primary vindex
// when the compiled key is that vindex (the same columns); "" otherwise.
func (s *Scheme) keyVindexName(ti int) string {
	n, ok := s.vschemaNames(ti)
	tk := s.tables[ti]
	if !ok || n.Primary == "" || len(n.PrimaryCols) != len(tk.cols) {
		return ""
	}
	for i, c := range tk.cols {
		if !strings.EqualFold(n.PrimaryCols[i], s.w.Tables[ti].Columns[c].Name) {
			return ""
		}
	}
	return n.Primary
}

// KeyEngine returns the name of the engine that places table ti's rows
// by its key: the scheme's, or the Vitess vindex's its key names
// (hash(col, vindex=TYPE)); "" for a table with no hash, range or
// directory key (unplaced, replicated).
func (s *Scheme) KeyEngine(ti int) string {
	if ti < 0 || ti >= len(s.tables) {
		return ""
	}
	tk := s.tables[ti]
	if tk.eng == nil || tk.kind == kUnplaced || tk.kind == kReplicate {
		return ""
	}
	return tk.eng.Name()
}

// KeyVindexName returns the VSchema's name of table ti's primary vindex
// when the design came from a VSchema and the key is that vindex; "".
func (s *Scheme) KeyVindexName(ti int) string {
	if ti < 0 || ti >= len(s.tables) {
		return ""
	}
	return s.keyVindexName(ti)
}

// lookupVindexName returns the VSchema's name of lookup lk's vindex; ""
// when the VSchema names none on its column.
func (s *Scheme) lookupVindexName(lk *lookupKey) string {
	n, ok := s.vschemaNames(lk.table)
	if !ok {
		return ""
	}
	return n.Lookups[strings.ToLower(s.w.Tables[lk.table].Columns[lk.col].Name)]
}

// nameWords reports whether a vindex name, not a lookup vindex's
// (lookup, map, lkp), shares a word with a key column's or table's name:
// user_index names the vindex on user_id, as VSchemas name them.
func nameWords(vindex, name string) bool {
	words := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == '(' || r == ')' || r == ' ' })
	}
	generic := map[string]bool{"id": true, "idx": true, "index": true, "vdx": true, "vindex": true, "hash": true, "key": true, "col": true}
	vw := words(vindex)
	for _, w := range vw {
		if w == "lookup" || w == "map" || w == "lkp" || w == "lookups" {
			return false
		}
	}
	for _, w := range vw {
		if generic[w] {
			continue
		}
		for _, x := range words(name) {
			if w == x {
				return true
			}
		}
	}
	return false
}

// lookupWords reports whether a vindex name is a lookup vindex's (it has
// a word lookup, map, lkp or vdx, as VSchemas name them: name_user_map)
// that shares a word other than those with a lookup column's name: the
// hint name of the lookup on that column.
func lookupWords(vindex, col string) bool {
	words := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == '(' || r == ')' || r == ' ' })
	}
	lookup := map[string]bool{"lookup": true, "lookups": true, "map": true, "lkp": true, "vdx": true}
	generic := map[string]bool{"id": true, "idx": true, "index": true, "vindex": true, "hash": true, "key": true, "col": true, "unique": true}
	vw := words(vindex)
	if !slices.ContainsFunc(vw, func(w string) bool { return lookup[w] }) {
		return false
	}
	for _, w := range vw {
		if lookup[w] || generic[w] {
			continue
		}
		if slices.Contains(words(col), w) {
			return true
		}
	}
	return false
}

// hinted applies a's Vitess vindex hint to conds, as newShardedRouting
// (go/vt/vtgate/planbuilder/operators/sharded_routing.go) filters the
// table's column vindexes: USE VINDEX keeps only the vindexes it names,
// IGNORE VINDEX drops them. The key's vindex answers to the names
// vindexNames gives; a lookup's to its column's name, its lookup(col)
// text, or a lookup vindex name sharing a word with the column
// (lookupWords). It returns conds without the conditions on the columns
// of the vindexes excluded, the hint as written when it excludes one ("":
// none), and whether it excludes the key's.
func (s *Scheme) hinted(a Access, conds []shardkey.Cond) ([]shardkey.Cond, string, bool) {
	if len(a.UseVindex) == 0 && len(a.IgnoreVindex) == 0 {
		return conds, "", false
	}
	hint := s.hintOff(a)
	keyOff := hint != ""
	tk := s.tables[a.Table]
	t := s.w.Tables[a.Table]
	var off []int
	for _, lk := range tk.lookups {
		col := t.Columns[lk.col].Name
		real := s.lookupVindexName(lk)
		named := func(list []string) bool {
			return slices.ContainsFunc(list, func(l string) bool {
				if real != "" {
					// The VSchema's name: Vitess matches nothing else.
					return strings.EqualFold(l, real)
				}
				return strings.EqualFold(l, col) || strings.EqualFold(l, lk.spec.String()) || lookupWords(l, col)
			})
		}
		if len(a.UseVindex) > 0 && !named(a.UseVindex) || len(a.IgnoreVindex) > 0 && named(a.IgnoreVindex) {
			off = append(off, lk.col)
		}
	}
	if !keyOff && len(off) == 0 {
		return conds, "", false
	}
	if keyOff {
		off = append(off, tk.cols...)
	} else if len(a.UseVindex) > 0 {
		hint = "USE VINDEX (" + strings.Join(a.UseVindex, ", ") + ")"
	} else {
		hint = "IGNORE VINDEX (" + strings.Join(a.IgnoreVindex, ", ") + ")"
	}
	out := make([]shardkey.Cond, 0, len(conds))
	for _, c := range conds {
		if !slices.Contains(off, c.Col) && (c.Via == 0 || !slices.Contains(off, int(c.Via)-1)) {
			out = append(out, c)
		}
	}
	return out, hint, keyOff
}

// hintOff returns the hint, as written, that keeps the table's key from
// routing a: an IGNORE VINDEX naming it, or a USE VINDEX that does not;
// "" for none.
func (s *Scheme) hintOff(a Access) string {
	if len(a.UseVindex) == 0 && len(a.IgnoreVindex) == 0 {
		return ""
	}
	names := s.vindexNames(a.Table)
	real := s.keyVindexName(a.Table)
	tk := s.tables[a.Table]
	t := s.w.Tables[a.Table]
	// lookupName: l names one of the table's lookups (its column, a word
	// of it, its VSchema name), so it is not the key's by overlap.
	lookupName := func(l string) bool {
		for _, lk := range tk.lookups {
			col := t.Columns[lk.col].Name
			if r := s.lookupVindexName(lk); r != "" && strings.EqualFold(l, r) || strings.EqualFold(l, col) || lookupWords(l, col) || nameWords(l, col) {
				return true
			}
		}
		return false
	}
	named := func(list []string) bool {
		for _, l := range list {
			if real != "" {
				// The VSchema's name of the primary vindex: Vitess
				// matches nothing else (indexesContains).
				if strings.EqualFold(l, real) {
					return true
				}
				continue
			}
			if lookupName(l) {
				continue
			}
			for _, n := range names {
				if strings.EqualFold(l, n) || nameWords(l, n) {
					return true
				}
			}
		}
		return false
	}
	if len(a.IgnoreVindex) > 0 && named(a.IgnoreVindex) {
		return "IGNORE VINDEX (" + strings.Join(a.IgnoreVindex, ", ") + ")"
	}
	if len(a.UseVindex) > 0 && !named(a.UseVindex) {
		return "USE VINDEX (" + strings.Join(a.UseVindex, ", ") + ")"
	}
	return ""
}
