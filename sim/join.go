package sim

import (
	"slices"

	"github.com/shardkey/shardkey"
)

// Multi-table statements. A SELECT that reads several tables (a join, a
// subquery the statement carries) is one request whatever the engine: a
// Citus router query (co-located tables joined on their distribution
// column, one shard) or multi-shard query, a Vitess route (merged when
// the tables' vindexes agree) or a join vtgate runs over its routes. The
// reader gives its first table's read the others' reads as parts
// (shardkey.Instance.Parts) and marks those others riders
// (shardkey.Instance.Rider). The first read counts the request, with the
// statement's fan-out the union of every part's shards; each rider
// counts its table's work (one unit a shard it asks: each table a
// statement touches is scored on its own) and its own fan-out, but no
// request (touch.merged). A statement that writes one table and reads
// others (INSERT ... SELECT, UPDATE ... FROM) is one request the same
// way, its write in the first read's place: its work is its own shards',
// its fan-out the union with its reads'. A multi-row INSERT ... VALUES
// is one request the same way, at its first row, each other row a rider
// (a part of Kind Insert, routed as an insert: a salted key's one bucket,
// a fresh value's one shard) that counts its row's work.

// union returns the distribution of the number of shards a statement
// asks whose first read routes as own and whose other reads are parts:
// dist[f] is the probability of f. Concrete shards are counted once; a
// shard known only at run time (a fresh value, a lookup's unseen row,
// an IN list's unknown values) is a draw, uniform over all the shards
// (a draw over some of them counts as one over all: an approximation);
// a list of unknown length asks every shard, as its own read counts it;
// a read of a reference table is answered on a shard the statement asks
// already (one shard when it asks no other). own's scratch (set, lks) is
// copied first: routing the parts reuses the router's.
func (r *router) union(own *touch, parts []shardkey.Part) ([]float64, error) {
	own.set = slices.Clone(own.set)
	own.lks = slices.Clone(own.lks)
	n := r.s.N
	if len(r.umark) != n {
		r.umark = make([]bool, n)
	}
	marked := r.umarked[:0]
	defer func() {
		for _, s := range marked {
			r.umark[s] = false
		}
		r.umarked = marked[:0]
	}()
	all, draws, local := false, 0, false
	var keys []string // varKeys of tUniform draws seen (one shard each)
	mark := func(s int) {
		if s >= 0 && s < n && !r.umark[s] {
			r.umark[s] = true
			marked = append(marked, s)
		}
	}
	add := func(t *touch) {
		if t.local {
			local = true
			return
		}
		switch t.kind {
		case tAll:
			all = true
		case tOne:
			mark(t.one)
		case tSet:
			for _, s := range t.set {
				mark(s)
			}
			for i := range t.lks {
				draws += t.lks[i].extra
			}
		case tUniform:
			if t.varKey != "" {
				if slices.Contains(keys, t.varKey) {
					return
				}
				keys = append(keys, t.varKey)
			}
			draws++
		case tUniformOf:
			draws++
		case tUniformN:
			if t.n < 0 {
				all = true
				return
			}
			for _, s := range t.set {
				mark(s)
			}
			draws += t.n
		}
	}
	add(own)
	for _, pt := range parts {
		if pt.Table < 0 || pt.Table >= len(r.s.tables) {
			continue
		}
		var tc touch
		ok := false
		var err error
		if len(pt.Peers) > 0 {
			tc, _, _, ok, err = r.lookupMerged(pt.Table, pt.Conds, pt.Peers)
		}
		if !ok && err == nil {
			tc, err = r.stmt(pt.Table, pt.Kind, pt.Conds, nil)
		}
		if err != nil {
			return nil, err
		}
		add(&tc)
	}
	if all {
		d := make([]float64, n+1)
		d[n] = 1
		return d, nil
	}
	if len(marked) == 0 && draws == 0 {
		if local {
			return []float64{0, 1}, nil // reference tables only: one shard
		}
		return []float64{1}, nil // no shard (a condition no row meets)
	}
	return occupancy(n, len(marked), draws), nil
}
