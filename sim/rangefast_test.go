package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestRangeStmtInt: under range(id, bounds=[10, 20, 30]) on 4 shards a
// statement binding id to one integer goes to the number of bounds <= its
// value (-5 and 9: 0; 10 and 19: 1; 20: 2; 30 and 1000: 3), whatever its
// integer type (Int16, Int32, Int64), through rangeStmt's integer path;
// an IN list to those values' shards (a read: each of them, in order; an
// insert: one of them at random; one shard: that one);
// the general path (stmtInt off) gives the same touch for random values
// and kinds, as it does for a NULL, a fresh value and an IN list, which the
// integer path leaves to it. An isolated value, or a key of two columns,
// turns the integer path off.
func TestRangeStmtInt(t *testing.T) {
	w := workload(64, func(int) float64 { return 1 })
	d, _ := shardkey.ParseDesign("range(id, bounds=[10, 20, 30])")
	s, err := Compile(w, d, Options{Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	tk := s.tables[0]
	if !tk.stmtInt {
		t.Fatal("range(id, bounds=[10, 20, 30]): integer path off")
	}
	slow := *tk
	slow.stmtInt = false
	r := newRouter(s)
	eq := func(v shardkey.Value) []shardkey.Cond {
		return []shardkey.Cond{{Col: 1, Op: shardkey.Eq, Val: shardkey.IntValue(3)}, {Col: 0, Op: shardkey.Eq, Val: v}}
	}
	for _, c := range []struct {
		v    int64
		want int
	}{{-5, 0}, {9, 0}, {10, 1}, {19, 1}, {20, 2}, {30, 3}, {1000, 3}} {
		for _, typ := range []shardkey.Type{shardkey.Int16, shardkey.Int32, shardkey.Int64} {
			tc, err := r.rangeStmt(tk, shardkey.Read, eq(shardkey.Value{Type: typ, Int: c.v}))
			if err != nil || tc.kind != tOne || tc.one != c.want {
				t.Errorf("id = %d (%v): %+v, %v; want shard %d", c.v, typ, tc, err, c.want)
			}
		}
	}
	same := func(what string, conds []shardkey.Cond, kind shardkey.Kind) {
		t.Helper()
		a, errA := r.rangeStmt(tk, kind, conds)
		a.set = append([]int(nil), a.set...)
		b, errB := r.rangeStmt(&slow, kind, conds)
		if (errA == nil) != (errB == nil) || a.kind != b.kind || a.one != b.one || len(a.set) != len(b.set) || a.n != b.n || a.varKey != b.varKey {
			t.Errorf("%s: integer path %+v (%v), general path %+v (%v)", what, a, errA, b, errB)
		}
		for i := range a.set {
			if a.set[i] != b.set[i] {
				t.Errorf("%s: integer path set %v, general path %v", what, a.set, b.set)
				break
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	kinds := []shardkey.Kind{shardkey.Read, shardkey.Insert, shardkey.Update, shardkey.Delete}
	for range 2000 {
		v := int64(rng.IntN(50) - 5)
		same("random", eq(shardkey.IntValue(v)), kinds[rng.IntN(len(kinds))])
	}
	same("NULL", eq(shardkey.Value{Type: shardkey.Null}), shardkey.Read)
	same("fresh", []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Fresh: shardkey.FreshUnique}}, shardkey.Insert)
	in := func(vs ...int64) []shardkey.Cond {
		c := shardkey.Cond{Col: 0, Op: shardkey.In}
		for _, v := range vs {
			c.List = append(c.List, shardkey.IntValue(v))
		}
		return []shardkey.Cond{c}
	}
	for _, c := range []struct {
		vs   []int64
		kind shardkey.Kind
		want touch
	}{
		{[]int64{25, 5, 12}, shardkey.Read, touch{kind: tSet, set: []int{0, 1, 2}}},
		{[]int64{25, 5, 12}, shardkey.Insert, touch{kind: tUniformOf, set: []int{0, 1, 2}}},
		{[]int64{11, 19, 12}, shardkey.Insert, touch{kind: tOne, one: 1}},
		{[]int64{40}, shardkey.Read, touch{kind: tOne, one: 3}},
	} {
		got, err := r.rangeStmt(tk, c.kind, in(c.vs...))
		if err != nil || got.kind != c.want.kind || got.one != c.want.one || !slices.Equal(got.set, c.want.set) {
			t.Errorf("IN %v (%v): %+v, %v; want %+v", c.vs, c.kind, got, err, c.want)
		}
		same(fmt.Sprint("IN ", c.vs), in(c.vs...), c.kind)
	}
	for range 2000 {
		vs := make([]int64, 1+rng.IntN(6))
		for i := range vs {
			vs[i] = int64(rng.IntN(50) - 5)
		}
		same(fmt.Sprint("IN ", vs), in(vs...), kinds[rng.IntN(len(kinds))])
	}
	same("IN ()", []shardkey.Cond{{Col: 0, Op: shardkey.In, IsNull: true}}, shardkey.Read)
	same("IN (5, NULL)", []shardkey.Cond{{Col: 0, Op: shardkey.In, List: []shardkey.Value{shardkey.IntValue(25), {Type: shardkey.Null}}}}, shardkey.Read)
	same("IN (5, $1)", []shardkey.Cond{{Col: 0, Op: shardkey.In, List: []shardkey.Value{shardkey.IntValue(5)}, Unknown: 1}}, shardkey.Read)
	same("text", eq(shardkey.TextValue("15")), shardkey.Read)

	for _, key := range []string{"isolate(range(id, bounds=[10, 20, 30]), top=1)", "range(id, other, bounds=[10, 20, 30])"} {
		d, err := shardkey.ParseDesign(key)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Compile(w, d, Options{Shards: 8})
		if err != nil {
			t.Fatal(err)
		}
		if s.tables[0].stmtInt {
			t.Errorf("%s: integer path on", key)
		}
	}
}
