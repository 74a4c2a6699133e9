package emit

import (
	"sort"

	"github.com/shardkey/shardkey"
)

// DesignHot returns, for every table design d isolates or salts values
// of, the design-wide hottest values (over all those tables' rows
// together, as the simulator picks them), so that a whale's rows in every
// table of its entity group are isolated together. nil when one table or
// none has such a key. The result is what Options.Hot takes.
func DesignHot(w *shardkey.Workload, d *shardkey.Design) map[string][]shardkey.Value {
	type vw struct {
		v shardkey.Value
		k string
		w float64
	}
	agg := map[shardkey.Value]*vw{}
	top := 0
	var tables []string
	for _, t := range w.Tables {
		e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
		n := 0
		switch m := e.(type) {
		case *shardkey.IsolateExpr:
			n = m.Top
		case *shardkey.SaltExpr:
			n = m.Top
			if iso, ok := m.Inner.(*shardkey.IsolateExpr); ok {
				n = max(n, iso.Top)
			}
		}
		if n == 0 || len(e.Columns()) == 0 {
			continue
		}
		ci := t.ColumnIndex(e.Columns()[0])
		tables = append(tables, t.Name)
		top = max(top, n)
		for r := 0; r < t.Rows; r++ {
			v := t.Columns[ci].Value(r).Canonical()
			x := agg[v]
			if x == nil {
				x = &vw{v: v, k: string(byte('0'+v.Type)) + v.String()}
				agg[v] = x
			}
			x.w += t.Weight(r)
		}
	}
	if len(tables) < 2 {
		return nil
	}
	list := make([]*vw, 0, len(agg))
	for _, x := range agg {
		list = append(list, x)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].w != list[j].w {
			return list[i].w > list[j].w
		}
		return list[i].k < list[j].k
	})
	var hot []shardkey.Value
	for i := 0; i < top && i < len(list); i++ {
		hot = append(hot, list[i].v)
	}
	out := map[string][]shardkey.Value{}
	for _, t := range tables {
		out[t] = hot
	}
	return out
}
