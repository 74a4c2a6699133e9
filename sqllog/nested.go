package sqllog

import (
	"sort"

	"github.com/shardkey/shardkey"
)

// This file holds what a query block learns from the blocks around it:
// derived tables read as statements of their own (virtual refs), derived
// UNIONs bound arm by arm, and subqueries correlated with their query.

// addVirtual adds a derived table that is read as a statement of its own
// (its accesses are made already), seen as alias with the output column
// names names, of which bound says what its WHERE binds them to (see
// scope.boundTargets): FROM (SELECT o_w_id, count(*) FROM orders WHERE
// o_w_id = 1 GROUP BY o_w_id) t JOIN orders o ON o.o_w_id = t.o_w_id binds
// o.o_w_id to 1, as Vitess merges the two routes on the vindex column.
func (s *scope) addVirtual(alias string, names []string, bound []*pred) {
	if alias == "" {
		return
	}
	inner := "\x00" + alias + "\x00v"
	rename := map[string]string{}
	for _, n := range names {
		if n != "" {
			rename[n] = n
		}
	}
	s.refs = append(s.refs, &tref{alias: alias, kind: shardkey.Read, inner: inner, rename: rename, virtual: true})
	side := [2]int{len(s.refs) - 1, len(s.refs)}
	for k, b := range bound {
		if b == nil || k >= len(names) || names[k] == "" {
			continue
		}
		c := cond{col: &xexpr{kind: xCol, qual: inner, col: names[k]}, args: b.args, side: side}
		switch b.op {
		case shardkey.Eq:
			c.kind = condEq
		case shardkey.In:
			c.kind = condIn
		default:
			continue
		}
		s.conds = append(s.conds, c)
	}
}

// tables returns the accesses of acc that are tables (not virtual refs).
func tables(acc []access) []access {
	out := acc[:0:0]
	for _, a := range acc {
		if !a.virtual {
			out = append(out, a)
		}
	}
	return out
}

// expandUnion returns the scope's conditions with each one on a derived
// UNION's column (alias.col) replaced by one per arm, on the column the
// arm returns in that position: PostgreSQL pushes such a condition into
// every arm of the set operation (subquery_push_qual, allpaths.c), and
// Vitess into every source of its Union operator.
func (s *scope) expandUnion(res colResolver) []cond {
	if s.groups == 0 {
		return s.conds
	}
	var out []cond
	arms := func(x *xexpr) []*xexpr {
		if x == nil {
			return nil
		}
		ref, _ := res(x.qual, x.col)
		if ref < 0 || s.refs[ref].group == 0 || x.qual == s.refs[ref].inner {
			return nil
		}
		var xs []*xexpr
		for _, r := range s.refs {
			if r.group != s.refs[ref].group {
				continue
			}
			if col, ok := r.column(x.qual, x.col); ok {
				xs = append(xs, &xexpr{kind: xCol, qual: r.inner, col: col})
			}
		}
		if xs == nil {
			xs = []*xexpr{} // a column no arm returns plainly: binds nothing
		}
		return xs
	}
	for _, c := range s.conds {
		cols, others := arms(c.col), arms(c.other)
		if cols == nil && others == nil {
			out = append(out, c)
			continue
		}
		if cols == nil {
			cols = []*xexpr{c.col}
		}
		if c.other != nil && others == nil {
			others = []*xexpr{c.other}
		}
		for _, x := range cols {
			if c.other == nil {
				cp := c
				cp.col = x
				out = append(out, cp)
				continue
			}
			for _, o := range others {
				cp := c
				cp.col, cp.other = x, o
				out = append(out, cp)
			}
		}
	}
	return out
}

// peerEq is a join equality between two tables of one query block, kept
// on the access it carries values into: col equals pcol of the access
// off positions away among the block's tables (see scope.correlate).
type peerEq struct {
	col  string
	off  int
	pcol string
}

// outerEq is a correlated equality of a subquery's access: its column
// col equals the enclosing query's qual.ocol.
type outerEq struct {
	col, qual, ocol string
}

// correlate binds the columns of subs (the accesses of the subqueries of
// the query block s built as own) that correlated equalities tie to a
// column own binds with = or IN: in WHERE u.id = 5 AND EXISTS (SELECT 1
// FROM ue WHERE ue.user_id = u.id), ue.user_id is 5 too, as Vitess merges
// a subquery correlated on the vindex column into the outer route
// (operators/subquery_planning.go, tryMergeSubqueryWithOuter).
func (s *scope) correlate(subs, own []access) {
	if len(own) != len(s.refs) {
		return // a lazy scope: its columns are not attributed yet
	}
	changed := false
	bind := func(a *access, col string, from *pred) {
		k := -1
		for j := range a.preds {
			if a.preds[j].col == col && a.preds[j].via == "" {
				k = j
			}
		}
		cp := *from
		cp.col, cp.guess, cp.any = col, false, false
		switch {
		case k < 0:
			a.preds = append(a.preds, cp)
			sort.SliceStable(a.preds, func(x, y int) bool { return a.preds[x].col < a.preds[y].col })
		case a.preds[k].op != shardkey.Eq && (a.preds[k].op != shardkey.In || cp.op == shardkey.Eq):
			a.preds[k] = cp
		default:
			return
		}
		changed = true
	}
	defer func() {
		// Within each subquery, the values carry on across its own join
		// equalities (u1.id = u2.id AND u1.id = u3.id).
		for round := 0; changed && round < len(subs); round++ {
			changed = false
			for i := range subs {
				for _, p := range subs[i].peers {
					j := i + p.off
					if j < 0 || j >= len(subs) {
						continue
					}
					for k := range subs[j].preds {
						if q := &subs[j].preds[k]; q.col == p.pcol && q.via == "" && (q.op == shardkey.Eq || q.op == shardkey.In) {
							qc := *q
							bind(&subs[i], p.col, &qc)
						}
					}
				}
			}
		}
	}()
	for i := range subs {
		a := &subs[i]
		for _, o := range a.outer {
			r := s.resolve(o.qual)
			if r < 0 || s.refs[r].alias != o.qual && s.refs[r].name != o.qual {
				continue
			}
			col, ok := s.refs[r].column(o.qual, o.ocol)
			if !ok {
				continue
			}
			var from *pred
			for j := range own[r].preds {
				if p := &own[r].preds[j]; p.col == col && p.via == "" && (p.op == shardkey.Eq || p.op == shardkey.In) {
					from = p
				}
			}
			if from == nil {
				continue
			}
			bind(a, o.col, from)
		}
	}
}
