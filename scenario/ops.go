package scenario

import (
	"math"
	"sort"

	"github.com/shardkey/shardkey"
)

// Operations: a spec's reads and writes turned into operation shapes with
// seeded instances.

// op adds operation o to the workload: its shape (table, kind, the columns
// its filter binds) and ParamSamples seeded instances of it.
func (b *builder) op(o *OpSpec) error {
	ctx := "operations." + o.Name
	if o.Name == "" {
		return shardkey.Errorf(b.file, o.Line, "operations", "operation without a name")
	}
	ti, kind, err := b.tableKind(o.Line, ctx, o.Table, o.Kind, shardkey.Read)
	if err != nil {
		return err
	}
	if o.Rate < 0 || math.IsNaN(o.Rate) || math.IsInf(o.Rate, 0) || o.Rate > shardkey.MaxRate {
		return shardkey.Errorf(b.file, o.Line, ctx+".rate", "%v: must be a non-negative number of requests/s, at most %g", o.Rate, shardkey.MaxRate)
	}
	switch o.Latency {
	case "", "interactive", "batch":
	default:
		return shardkey.Errorf(b.file, o.Line, ctx+".latency", "%q: want interactive or batch", o.Latency)
	}
	where, err := b.where(ti, &o.Where, ctx)
	if err != nil {
		return err
	}
	if kind == shardkey.Insert && len(where) > 0 {
		return shardkey.Errorf(b.file, o.Line, ctx+".where", "an insert has no filter: its values come from the table's generators")
	}
	op := &shardkey.Operation{Name: o.Name, Table: ti, Kind: kind, Rate: o.Rate, Latency: o.Latency}
	if kind == shardkey.Insert {
		op.Instances = b.insertInstances(ti)
	} else {
		op.Instances = b.queryInstances(ti, where)
	}
	b.w.Ops = append(b.w.Ops, op)
	return nil
}

// insertInstances returns the instances of an insert into table ti: the
// one finite column enumerated exactly when there is one and nothing is
// inherited, else a joint sample of rows; fresh values for sequential,
// unbucketed time and uuid columns; the newest bucket for bucketed times.
func (b *builder) insertInstances(ti int) []shardkey.Instance {
	t := b.w.Tables[ti]
	gens := b.gens[ti]
	finite := -1
	nFinite, inherited := 0, false
	for ci, g := range gens {
		if g.inherited {
			inherited = true
		} else if g.finite() {
			finite = ci
			nFinite++
		}
	}
	base := func() []shardkey.Cond {
		var conds []shardkey.Cond
		for ci, g := range gens {
			if g.inherited || g.finite() {
				continue
			}
			if f := g.fresh(); f != shardkey.NotFresh {
				conds = append(conds, shardkey.Cond{Col: ci, Op: shardkey.Eq, Fresh: f})
			} else {
				conds = append(conds, shardkey.Cond{Col: ci, Op: shardkey.Eq, Val: b.max(ti, ci)})
			}
		}
		return conds
	}
	var out []shardkey.Instance
	if nFinite == 1 && !inherited {
		g := gens[finite]
		for i, v := range g.vals {
			conds := append(base(), shardkey.Cond{Col: finite, Op: shardkey.Eq, Val: v})
			sortConds(conds)
			out = append(out, shardkey.Instance{Weight: g.probs[i], Conds: conds})
		}
		return out
	}
	if nFinite == 0 && !inherited {
		conds := base()
		sortConds(conds)
		return []shardkey.Instance{{Weight: 1, Conds: conds}}
	}
	for k := 0; k < b.s.ParamSamples; k++ {
		r := b.rng.IntN(t.Rows)
		conds := base()
		for ci, g := range gens {
			if g.inherited || g.finite() {
				conds = append(conds, shardkey.Cond{Col: ci, Op: shardkey.Eq, Val: t.Columns[ci].Value(r)})
			}
		}
		sortConds(conds)
		out = append(out, shardkey.Instance{Weight: 1, Conds: conds})
	}
	return out
}

func sortConds(c []shardkey.Cond) { sort.Slice(c, func(i, j int) bool { return c[i].Col < c[j].Col }) }

// queryInstances returns the instances of a read, update or delete.
func (b *builder) queryInstances(ti int, where []whereEntry) []shardkey.Instance {
	t := b.w.Tables[ti]
	var params []whereEntry
	var fixed []shardkey.Cond
	for _, e := range where {
		if e.param {
			params = append(params, e)
		} else {
			fixed = append(fixed, e.cond)
		}
	}
	mk := func(extra ...shardkey.Cond) []shardkey.Cond {
		c := append(append([]shardkey.Cond(nil), fixed...), extra...)
		sortConds(c)
		return c
	}
	switch {
	case len(params) == 0:
		return []shardkey.Instance{{Weight: 1, Conds: mk()}}
	case len(params) == 1 && b.gens[ti][params[0].col].finite() && !b.gens[ti][params[0].col].inherited:
		g := b.gens[ti][params[0].col]
		out := make([]shardkey.Instance, 0, len(g.vals))
		for i, v := range g.vals {
			out = append(out, shardkey.Instance{Weight: g.probs[i], Conds: mk(shardkey.Cond{Col: params[0].col, Op: shardkey.Eq, Val: v})})
		}
		return out
	}
	out := make([]shardkey.Instance, 0, b.s.ParamSamples)
	for k := 0; k < b.s.ParamSamples; k++ {
		r := b.rng.IntN(t.Rows)
		var ps []shardkey.Cond
		for _, p := range params {
			ps = append(ps, shardkey.Cond{Col: p.col, Op: shardkey.Eq, Val: t.Columns[p.col].Value(r)})
		}
		out = append(out, shardkey.Instance{Weight: 1, Conds: mk(ps...)})
	}
	return out
}
