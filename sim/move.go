package sim

import shardkey "github.com/shardkey/shardkey"

// Key-changing updates.
//
// An UPDATE whose SET assigns a column of its table's key under the
// design (shardkey.Instance.Sets) changes the row's key: the row leaves
// the shard its old key is on (the WHERE's route) for the shard of its new
// key, a delete there and an insert here. The statement's work covers both:
// one more unit, on the new key's shard when the new key is known (the SET
// values, with the WHERE's equalities for key columns the SET leaves), else
// on one shard at random (a value known only at run time), as a fresh
// insert would be (touch.mv). It crosses shards when the new shard is not
// among the old ones: a standalone one is itself a cross-shard write, and a
// transaction holding it commits on both shards. An UPDATE that sets the
// key to the value its WHERE binds it to moves nothing.
//
// Engines differ on whether they run it at all (Citus, Cassandra and
// Vitess refuse it): that is the advisor's to say; here it is counted as
// a move, what it costs where it runs.

// touch.mv values.
const (
	mvNone = iota
	mvOne  // the new key's shard is touch.mvOne
	mvAny  // the new key's shard is one at random
)

// move routes the new row of an UPDATE on table ti (conditions conds,
// SET columns sets): mvNone when the SET assigns no key column (or the
// value the WHERE binds it to), else where the moved row lands.
func (r *router) move(ti int, conds, sets []shardkey.Cond) (uint8, int, error) {
	tk := r.s.tables[ti]
	if tk.kind == kUnplaced || tk.kind == kReplicate {
		return mvNone, 0, nil
	}
	assigns, same := false, true
	for _, c := range tk.cols {
		sc := findCond(sets, c)
		if sc == nil {
			continue
		}
		assigns = true
		cd := findCond(conds, c)
		if cd == nil || cd.Op != shardkey.Eq || cd.Fresh != shardkey.NotFresh || sc.Op != shardkey.Eq || sc.Fresh != shardkey.NotFresh ||
			cd.Val.IsNull() || sc.Val.IsNull() || shardkey.Compare(cd.Val.Canonical(), sc.Val.Canonical()) != 0 {
			same = false
		}
	}
	if !assigns || same {
		return mvNone, 0, nil
	}
	// The new row's key: the SET's values, the WHERE's equalities for the
	// key columns it leaves; routed as the insert of that row.
	nc := r.mvConds[:0]
	for _, c := range tk.cols {
		if sc := findCond(sets, c); sc != nil {
			if sc.Op == shardkey.Eq {
				nc = append(nc, *sc)
			}
			continue
		}
		if cd := findCond(conds, c); cd != nil && cd.Op == shardkey.Eq {
			nc = append(nc, *cd)
		}
	}
	r.mvConds = nc
	if len(nc) < len(tk.cols) {
		return mvAny, 0, nil // a key column of unknown new value
	}
	for i := range nc {
		nc[i].FreshVar = 0 // its own draw, not another statement's new value
	}
	t, err := r.stmtKey(ti, shardkey.Insert, nc)
	if err != nil {
		return mvNone, 0, err
	}
	if t.kind == tOne {
		return mvOne, t.one, nil
	}
	return mvAny, 0, nil
}

// moveCross returns the probability that the moved row of t (t.mv not
// mvNone) lands on a shard the UPDATE's old rows are not on, n shards.
func moveCross(t *touch, n int) float64 {
	if n <= 1 {
		return 0
	}
	in := func(s int) bool {
		switch t.kind {
		case tOne:
			return s == t.one
		case tSet:
			return containsInt(t.set, s)
		}
		return false
	}
	switch t.kind {
	case tAll:
		return 0 // every shard is asked already
	case tOne, tSet:
		if t.mv == mvOne {
			if in(t.mvOne) {
				return 0
			}
			return 1
		}
		return 1 - float64(t.fanout(n))/float64(n)
	}
	// The old row on one shard at random (or values known at run time):
	// the new one elsewhere but with chance 1/n.
	return 1 - 1/float64(n)
}

// addMove accounts the moved row of t (rate r) on operation o: its insert
// on the new shard, one unit of work.
func (p *Partial) addMove(o *OpPartial, t *touch, r float64) {
	o.Moves += r
	o.MoveCross += r * moveCross(t, p.N)
	o.Work += r
	if t.mv == mvOne {
		p.Work[t.mvOne] += r
	} else {
		p.WorkUniform += r
	}
}
