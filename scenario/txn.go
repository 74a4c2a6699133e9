package scenario

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
)

// Transactions: a spec's multi-statement transactions with values shared
// by column name within one instance.

// txn generates ParamSamples instances of a transaction shape. Within one
// instance, columns of the same name hold the same value (an order's id in
// the order row and its line items; the same customer); fresh ids of a
// table's own sequential or uuid columns are new per statement and shared
// by name with the statements after it.
func (b *builder) txn(ts *TxnSpec) error {
	ctx := "transactions." + ts.Name
	if ts.Name == "" {
		return shardkey.Errorf(b.file, ts.Line, "transactions", "transaction without a name")
	}
	if ts.Rate < 0 || math.IsNaN(ts.Rate) || math.IsInf(ts.Rate, 0) || ts.Rate > shardkey.MaxRate {
		return shardkey.Errorf(b.file, ts.Line, ctx+".rate", "%v: must be a non-negative number of transactions/s, at most %g", ts.Rate, shardkey.MaxRate)
	}
	if len(ts.Steps) == 0 {
		return shardkey.Errorf(b.file, ts.Line, ctx+".steps", "a transaction needs at least one step")
	}
	type step struct {
		ti     int
		kind   shardkey.Kind
		where  []whereEntry
		lo, hi int             // repeat count range
		remote map[int]float64 // column index -> probability of another value
		vary   []string        // column names drawn anew per repetition
		prob   float64
	}
	var steps []step
	for i, st := range ts.Steps {
		sctx := fmt.Sprintf("%s.steps[%d]", ctx, i)
		ti, kind, err := b.tableKind(st.Line, sctx, st.Table, st.Kind, shardkey.Insert)
		if err != nil {
			return err
		}
		wh, err := b.where(ti, &st.Where, sctx)
		if err != nil {
			return err
		}
		if kind == shardkey.Insert && len(wh) > 0 {
			return shardkey.Errorf(b.file, st.Line, sctx+".where", "an insert has no filter")
		}
		lo, hi := 1, 1
		if st.Repeat != "" {
			a, z, isRange := strings.Cut(st.Repeat, "-")
			var err1, err2 error
			lo, err1 = strconv.Atoi(strings.TrimSpace(a))
			hi = lo
			if isRange {
				hi, err2 = strconv.Atoi(strings.TrimSpace(z))
			}
			if err1 != nil || err2 != nil || lo < 1 || hi < lo || hi > 1000 {
				return shardkey.Errorf(b.file, st.Line, sctx+".repeat", "%q: want N or LO-HI in 1..1000", st.Repeat)
			}
		}
		remote := map[int]float64{}
		for col, p := range st.Remote {
			ci := b.w.Tables[ti].ColumnIndex(col)
			if ci < 0 {
				return shardkey.Errorf(b.file, st.Line, sctx+".remote."+col, "table %s has no column %q", st.Table, col)
			}
			if p < 0 || p > 1 || math.IsNaN(p) {
				return shardkey.Errorf(b.file, st.Line, sctx+".remote."+col, "%v: want a probability in 0..1", p)
			}
			remote[ci] = p
		}
		if len(st.Vary) > 0 && hi < 2 {
			return shardkey.Errorf(b.file, st.Line, sctx+".vary", "vary applies to a repeated step (repeat: N or LO-HI above 1)")
		}
		for k, col := range st.Vary {
			ci := b.w.Tables[ti].ColumnIndex(col)
			if ci < 0 {
				return shardkey.Errorf(b.file, st.Line, sctx+".vary", "table %s has no column %q", st.Table, col)
			}
			if slices.Contains(st.Vary[:k], col) {
				return shardkey.Errorf(b.file, st.Line, sctx+".vary", "%s named twice", col)
			}
			if kind == shardkey.Insert && b.gens[ti][ci].inherited {
				return shardkey.Errorf(b.file, st.Line, sctx+".vary", "%s is copied from the parent row: varying it would detach the row from its parent", col)
			}
			if _, ok := st.Remote[col]; ok {
				return shardkey.Errorf(b.file, st.Line, sctx+".vary", "%s is both varied and remote: a varied value is already drawn anew", col)
			}
			used := false
			if kind == shardkey.Insert {
				// An insert draws its values; a new id is new anyway.
				used = b.gens[ti][ci].fresh() == shardkey.NotFresh
			}
			for _, e := range wh {
				used = used || e.param && e.col == ci
			}
			if !used {
				return shardkey.Errorf(b.file, st.Line, sctx+".vary", "%s: the step draws no value of it (vary names a filter's \"?\" column, or an insert's drawn column; a new id is new in every repetition anyway)", col)
			}
		}
		prob := 1.0
		if st.Prob != nil {
			prob = *st.Prob
			if prob < 0 || prob > 1 || math.IsNaN(prob) {
				return shardkey.Errorf(b.file, st.Line, sctx+".prob", "%v: want a probability in 0..1", prob)
			}
		}
		steps = append(steps, step{ti, kind, wh, lo, hi, remote, st.Vary, prob})
	}
	k := b.s.ParamSamples
	bound := map[string]shardkey.Cond{}
	boundBy := map[string]int{} // table whose fresh id a name was bound to
	var stmts []shardkey.Stmt
	var conds []shardkey.Cond
	for n := 0; n < k; n++ {
		tx := shardkey.Txn{Name: ts.Name, Weight: ts.Rate / float64(k)}
		clear(bound)
		clear(boundBy)
		stmts = stmts[:0]
		var freshVar int32
		var remote map[int]float64
		draw := func(ti, ci int) shardkey.Cond {
			name := b.w.Tables[ti].Columns[ci].Name
			if c, ok := bound[name]; ok {
				if p := remote[ci]; p > 0 && c.Fresh == shardkey.NotFresh && b.rng.Float64() < p {
					return b.other(ti, ci, c)
				}
				c.Col = ci
				return c
			}
			g := b.gens[ti][ci]
			var c shardkey.Cond
			switch {
			case g.finite() && !g.inherited:
				c = shardkey.Cond{Op: shardkey.Eq, Val: g.draw(b.rng)}
			default:
				t := b.w.Tables[ti]
				c = shardkey.Cond{Op: shardkey.Eq, Val: t.Columns[ci].Value(b.rng.IntN(t.Rows))}
			}
			c.Col = ci
			bound[name] = c
			return c
		}
		for _, st := range steps {
			t := b.w.Tables[st.ti]
			remote = st.remote
			if st.prob < 1 && b.rng.Float64() >= st.prob {
				continue
			}
			reps := st.lo
			if st.hi > st.lo {
				reps = st.lo + b.rng.IntN(st.hi-st.lo+1)
			}
			// Varying columns: the shared value is set aside for the
			// step and each repetition draws its own.
			saved := map[string]shardkey.Cond{}
			for _, col := range st.vary {
				if c, ok := bound[col]; ok {
					saved[col] = c
				}
			}
			for r := 0; r < reps; r++ {
				for _, col := range st.vary {
					delete(bound, col)
				}
				conds = conds[:0]
				if st.kind == shardkey.Insert {
					var own []shardkey.Cond
					for ci, g := range b.gens[st.ti] {
						name := t.Columns[ci].Name
						switch f := g.fresh(); {
						case g.inherited:
							conds = append(conds, draw(st.ti, ci))
						case f != shardkey.NotFresh && boundBy[name] != st.ti+1 && hasBinding(bound, name):
							// The id of a row another statement of this
							// transaction created (a message's id in its
							// inbox row).
							conds = append(conds, draw(st.ti, ci))
						case f != shardkey.NotFresh:
							freshVar++
							c := shardkey.Cond{Col: ci, Op: shardkey.Eq, Fresh: f, FreshVar: freshVar}
							conds = append(conds, c)
							own = append(own, c)
						case g.finite():
							conds = append(conds, draw(st.ti, ci))
						default:
							// The newest time bucket: shared by name, so an
							// order's lines carry its month.
							c, ok := bound[name]
							if !ok {
								c = shardkey.Cond{Op: shardkey.Eq, Val: b.max(st.ti, ci)}
								bound[name] = c
							}
							c.Col = ci
							conds = append(conds, c)
						}
					}
					for _, c := range own {
						name := t.Columns[c.Col].Name
						if _, ok := bound[name]; !ok || boundBy[name] == st.ti+1 {
							bound[name] = c
							boundBy[name] = st.ti + 1
						}
					}
				} else {
					for _, e := range st.where {
						if e.param {
							conds = append(conds, draw(st.ti, e.col))
						} else {
							conds = append(conds, e.cond)
						}
					}
				}
				sortConds(conds)
				stmts = append(stmts, shardkey.Stmt{Table: st.ti, Kind: st.kind, Conds: b.arena.Conds(conds)})
			}
			for _, col := range st.vary {
				delete(bound, col)
				if c, ok := saved[col]; ok {
					bound[col] = c
				}
			}
		}
		tx.Stmts = b.arena.Stmts(stmts)
		b.w.Txns = append(b.w.Txns, tx)
	}
	return nil
}

func hasBinding(m map[string]shardkey.Cond, name string) bool {
	_, ok := m[name]
	return ok
}

// other returns an equality on column ci of table ti with a value other
// than c's: drawn from the column's distribution (or its rows), retried a
// few times to differ, as TPC-C picks a remote warehouse.
func (b *builder) other(ti, ci int, c shardkey.Cond) shardkey.Cond {
	g := b.gens[ti][ci]
	t := b.w.Tables[ti]
	v := c.Val
	for try := 0; try < 32 && v == c.Val; try++ {
		if g.finite() && !g.inherited {
			v = g.draw(b.rng)
		} else {
			v = t.Columns[ci].Value(b.rng.IntN(t.Rows))
		}
	}
	return shardkey.Cond{Col: ci, Op: shardkey.Eq, Val: v}
}
