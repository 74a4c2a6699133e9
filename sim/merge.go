package sim

import "github.com/shardkey/shardkey"

// Merged routes. Vitess plans two reads of one table compared on a
// unique vindex column (music.id IN (SELECT music.id FROM music WHERE
// user_id IN (1, 2, 3)), a join or derived table ON other.id = music.id)
// as one route: a value of a unique vindex is on one row, so on one
// shard, and the two reads' rows are on the same shards
// (go/vt/vtgate/planbuilder/operators/route_planning.go,
// canMergeOnFilter: an equality whose two columns have the same unique
// SingleColumn vindex; subquery_planning.go, mergeSubqueryInputs and
// tryMergeShardedRouting). The merged route takes both routes' vindex
// predicates and routes by the cheapest (sharded_routing.go,
// PickBestAvailableVindex; route.go, less and costFor: None, then
// EqualUnique, then IN, then Scatter), on a tie the later route's (the
// outer query's for a subquery), and a join of two routes that chose the
// same vindex keeps the left-hand one's (join_merging.go,
// mergeShardedRouting). The reader carries the other route's conditions
// in, marked Cond.Via; here they bind the table when the column is a
// unique lookup of it.

// sameVindex reports whether column ca of table a and column cb of
// table b are their tables' keys by one vindex, so that a value of one
// is on the shard the same value of the other is (Vitess compares the
// vindexes by identity: canMergeOnFilter, route_planning.go): both keys
// a hash of that one column under the scheme's engine, and, when a
// VSchema names the vindexes (Options.Vindexes), the same name.
func (s *Scheme) sameVindex(a, ca, b, cb int) bool {
	if a < 0 || b < 0 || a >= len(s.tables) || b >= len(s.tables) {
		return false
	}
	ta, tb := s.tables[a], s.tables[b]
	one := func(tk *tableKey, c int) bool {
		_, plain := tk.expr.(*shardkey.HashExpr)
		return tk.kind == kHash && plain && len(tk.cols) == 1 && tk.cols[0] == c
	}
	if !one(ta, ca) || !one(tb, cb) || ta.eng == nil || tb.eng == nil || ta.eng.Name() != tb.eng.Name() {
		return false
	}
	na, nb := s.keyVindexName(a), s.keyVindexName(b)
	if na != "" || nb != "" {
		return na == nb
	}
	return true
}

// hasVia reports whether some condition is another route's (Cond.Via).
func hasVia(conds []shardkey.Cond) bool {
	for i := range conds {
		if conds[i].Via != 0 {
			return true
		}
	}
	return false
}

// viaRank is the cost class of a condition as a route by its column
// (Vitess's opcodes in order of cost): 0 no row (None), 1 one value
// (EqualUnique: =, a one-value IN), 2 several values (IN), 3 nothing a
// vindex routes by (a range, IS NULL).
func viaRank(c *shardkey.Cond) int {
	switch {
	case c.Op == shardkey.Eq:
		return 1
	case c.Op == shardkey.In && c.IsNull:
		return 3
	case c.Op == shardkey.In && c.Unknown == 0 && len(c.List) == 0:
		return 0
	case c.Op == shardkey.In && c.Unknown >= 0 && len(c.List)+int(c.Unknown) == 1:
		return 1
	case c.Op == shardkey.In:
		return 2
	}
	return 3
}

// viaWins reports whether the other route's condition v routes the
// merged route rather than the table's own condition o on the column
// (see the package comment above and Cond.ViaPrefer).
func viaWins(o, v *shardkey.Cond, prefer int8) bool {
	ro, rv := viaRank(o), viaRank(v)
	switch {
	case ro == 3 || rv == 0:
		return rv < 3
	case ro == 0 || rv == 3:
		return false
	case prefer == 2 || prefer == -2:
		return prefer > 0
	case rv != ro:
		return rv < ro
	}
	return prefer > 0
}

// merged resolves the Cond.Via conditions of a statement on table ti:
// those tied by a unique lookup of the table bind it where they route
// better (viaWins); the others are dropped. A ViaSingle group applies
// only when it routes, alone, to one shard. It returns the conditions
// without Via marks, and whether some Via condition binds the table.
func (r *router) merged(ti int, kind shardkey.Kind, conds []shardkey.Cond) ([]shardkey.Cond, bool, error) {
	tk := r.s.tables[ti]
	unique := func(col int) bool {
		for _, lk := range tk.lookups {
			if lk.col == col && lk.spec.Unique {
				return true
			}
		}
		return false
	}
	grouped := func(c *shardkey.Cond) bool {
		// Grouping by a unique vindex's column keeps every group on
		// one shard (subquery_planning.go, isMergeable).
		g := int(c.ViaGroupBy) - 1
		return g >= 0 && (unique(g) || len(tk.cols) == 1 && tk.cols[0] == g && tk.kind == kHash)
	}
	out := make([]shardkey.Cond, 0, len(conds))
	var via, single []shardkey.Cond
	for _, c := range conds {
		switch {
		case c.Via == 0:
			out = append(out, c)
		case c.ViaTable != 0:
			if kind != shardkey.Insert && r.s.sameVindex(ti, int(c.Via)-1, int(c.ViaTable)-1, int(c.ViaTableCol)-1) {
				via = append(via, c)
				if c.ViaSingle && !grouped(&c) {
					single = append(single, c)
				}
			}
		case kind != shardkey.Insert && unique(int(c.Via)-1):
			via = append(via, c)
			if c.ViaSingle && !grouped(&c) {
				c.ViaSingle = true
				single = append(single, c)
			}
		}
	}
	if len(via) == 0 {
		return out, false, nil
	}
	if len(single) > 0 {
		alone := make([]shardkey.Cond, len(single))
		for i, c := range single {
			c.Via, c.ViaPrefer, c.ViaSingle, c.ViaGroupBy = 0, 0, false, 0
			alone[i] = c
		}
		tc, err := r.stmt(ti, kind, alone, nil)
		if err != nil {
			return nil, false, err
		}
		if tc.kind != tOne && !(tc.kind == tUniform && !tc.local) && !(tc.kind == tSet && len(tc.set) == 0) {
			keep := via[:0]
			for _, c := range via {
				if !c.ViaSingle || grouped(&c) {
					keep = append(keep, c)
				}
			}
			via = keep
		}
	}
	used := false
	for _, v := range via {
		prefer := v.ViaPrefer
		v.Via, v.ViaPrefer, v.ViaSingle, v.ViaGroupBy = 0, 0, false, 0
		i := -1
		for j := range out {
			if out[j].Col == v.Col {
				i = j
				break
			}
		}
		switch {
		case i < 0:
			out = append(out, v)
			used = true
		case viaWins(&out[i], &v, prefer):
			out[i] = v
			used = true
		}
	}
	return out, used, nil
}

// lookupMerged routes a read of table ti by a table it is joined with
// (peers, shardkey.Instance.Peers) on columns that are their tables'
// keys by one unique vindex, when that table's conditions route it
// through a lookup vindex better than ti's own conditions route ti
// (users u JOIN orders o ON o.user_id = u.id WHERE u.login = 'x', with
// lookup(login) on users). vtgate routes that table by the lookup (its
// keyspace ids) and merges the two routes into one:
// tryMergeShardedRouting
// (go/vt/vtgate/planbuilder/operators/sharded_routing.go) merges a
// left-hand route of opcode EqualUnique, IN, Scatter or None with the
// other when canMergeOnFilter (route_planning.go) finds the join's
// columns under the very same unique SingleColumn vindex, and the merged
// route keeps the better vindex option of both (join_merging.go,
// mergeShardedRouting; PickBestAvailableVindex: EqualUnique before Equal
// before IN, then the cheaper vindex, so ti's own key condition wins a
// tie over a lookup). A non-unique lookup's route (Equal) is no left-hand
// route that merges, but an inner join is tried both ways round
// (route_planning.go, findBestJoin) and merges with ti's route on the
// left; where it does not merge (an outer join), vtgate's nested-loop
// join (ApplyJoin) reads ti per row of the other table, by the joined
// value, on that row's shard. Either way ti's rows are on the shards of
// the other table's rows the lookup names: the joined values are equal
// and one vindex places both.
//
// It returns that route (without the lookup's own reads, which are the
// other table's access's), the other table and the conditions it routes
// by, and whether a peer routes ti.
func (r *router) lookupMerged(ti int, conds []shardkey.Cond, peers []shardkey.Peer) (touch, int, []shardkey.Cond, bool, error) {
	for _, p := range peers {
		if !r.s.sameVindex(ti, p.Col, p.Table, p.OtherCol) {
			continue
		}
		best := 3 // the best rank of the peer's lookup conditions
		for _, lk := range r.s.tables[p.Table].lookups {
			if cd := findCond(p.Conds, lk.col); cd != nil {
				best = min(best, viaRank(cd))
			}
		}
		if best == 3 {
			continue
		}
		// ti's own rank: its condition on the key column, once merged
		// with the other reads' (a lookup of ti's own that routes it
		// keeps it: a tie, decided by vindex cost, not weighed here).
		own := 3
		c := conds
		if hasVia(c) {
			m, _, err := r.merged(ti, shardkey.Read, c)
			if err != nil {
				return touch{}, -1, nil, false, err
			}
			c = m
		}
		if cd := findCond(c, p.Col); cd != nil {
			own = viaRank(cd)
		}
		for _, lk := range r.s.tables[ti].lookups {
			if cd := findCond(c, lk.col); cd != nil && viaRank(cd) < 3 {
				own = min(own, viaRank(cd))
			}
		}
		if best >= own {
			continue
		}
		tc, err := r.stmt(p.Table, shardkey.Read, p.Conds, nil)
		if err != nil {
			return touch{}, -1, nil, false, err
		}
		if tc.kind == tAll || len(tc.lks) == 0 {
			continue // not routed through a lookup after all
		}
		tc.lks = nil
		return tc, p.Table, p.Conds, true, nil
	}
	return touch{}, -1, nil, false, nil
}
