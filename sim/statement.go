package sim

import (
	"fmt"
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

// Access is one table a statement touches: what the statement does to it
// and its conditions (see sqllog.Access). None says the statement asks it
// for no row (its WHERE holds for none). Partial names columns an OR binds
// in some of its disjuncts but not all, for the reason text.
type Access struct {
	Table   int
	Kind    shardkey.Kind
	Conds   []shardkey.Cond
	None    bool
	Partial []string
}

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
		rt.Route = routeKind(rt, s.N)
		return rt, err
	}
	out := Route{Shards: []int{}}
	seen := map[int]bool{}
	var reasons []string
	said := map[string]bool{}
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
		out.Scatter = out.Scatter || r.Scatter
		if r.AnyShard {
			anyShard = true
		} else if !a.None {
			other = true
		}
		reason := fmt.Sprintf("%s %s: %s", a.Kind, s.w.Tables[a.Table].Name, r.Reason)
		if !said[reason] {
			said[reason] = true
			reasons = append(reasons, reason)
		}
	}
	out.AnyShard = anyShard && !other
	sort.Ints(out.Shards)
	out.Reason = strings.Join(reasons, "; ")
	out.Route = routeKind(out, s.N)
	return out, nil
}

func routeKind(rt Route, n int) string {
	switch {
	case rt.AnyShard:
		return RouteAnyShard
	case rt.Scatter:
		return RouteScatter
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
	rt, err := s.Explain(a.Table, a.Kind, a.Conds)
	if err == nil && rt.Scatter && a.Kind != shardkey.Insert && len(a.Partial) > 0 {
		t := s.w.Tables[a.Table]
		tk := s.tables[a.Table]
		var part []string
		for _, c := range tk.cols {
			for _, p := range a.Partial {
				if strings.EqualFold(p, t.Columns[c].Name) {
					part = append(part, p)
				}
			}
		}
		if len(part) > 0 {
			rt.Reason = fmt.Sprintf("an OR binds the key column(s) %s in some of its disjuncts but not in all (a disjunct on other columns may match rows on any shard): scatter-gather to all %d shards", strings.Join(part, ", "), s.N)
		}
	}
	return rt, err
}
