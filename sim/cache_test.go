package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shardkey/shardkey"
)

// TestCache: a Cache keeps the statements' figures per workload. Table t
// has no rows; its operation reads id = 1 (weight 3) and id = 2 (weight
// 1) at 4/s. Under range(id) on 2 shards the boundary is then 2 (two
// distinct values, one a range): shard work [3, 1], top values 1 (75%)
// and 2 (25%). A second workload reading id = 5 (weight 1) and 7 (weight
// 3), scored with the same Cache, gets its own boundary 7 (work [1, 3],
// not the [0, 4] the first's boundary would give) and top values; the
// first, scored again, its own again; and each report equals the one
// scored without a Cache, byte for byte.
func TestCache(t *testing.T) {
	mk := func(a, wa, b, wb int64) *shardkey.Workload {
		tb := &shardkey.Table{Name: "t", Columns: []*shardkey.Column{{Name: "id", Type: shardkey.Int64}}}
		eq := func(v int64) []shardkey.Cond {
			return []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(v)}}
		}
		op := &shardkey.Operation{Name: "get", Table: 0, Kind: shardkey.Read, Rate: 4, Instances: []shardkey.Instance{
			{Weight: float64(wa), Conds: eq(a)}, {Weight: float64(wb), Conds: eq(b)}}}
		return &shardkey.Workload{Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{op}, Shards: 2}
	}
	w1, w2 := mk(1, 3, 2, 1), mk(5, 1, 7, 3)
	cache := NewCache()
	for i, c := range []struct {
		w    *shardkey.Workload
		work []float64
		top  []TopValue
	}{
		{w1, []float64{3, 1}, []TopValue{{"1", 0.75}, {"2", 0.25}}},
		{w2, []float64{1, 3}, []TopValue{{"7", 0.75}, {"5", 0.25}}},
		{w1, []float64{3, 1}, []TopValue{{"1", 0.75}, {"2", 0.25}}},
	} {
		got, err := Score(c.w, "range(id)", Options{Shards: 2, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.ShardWork, c.work) || !slices.Equal(got.TopValues, c.top) {
			t.Errorf("score %d: work %v, top values %v; want %v, %v", i, got.ShardWork, got.TopValues, c.work, c.top)
		}
		plain, err := Score(c.w, "range(id)", Options{Shards: 2})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(plain)
		if string(a) != string(b) {
			t.Errorf("score %d: with a Cache\n%s\nwithout\n%s", i, a, b)
		}
	}
	if len(cache.m) != 6 {
		t.Errorf("%d entries; want 6 (key values, statistics and statements by table of each workload)", len(cache.m))
	}
}

// TestTrafficKeyStatsByTable: the statistics of a table's key from the
// transactions' statements are the same read through stmtsByTable (as
// Report does with a Cache) as by a pass over every transaction. Without
// operations: transactions of weight 2 (t.id = 1, and u.id = 9 on
// another table), 1 (an insert of t.id = 3) and 1 (t.id = 1) give t.id
// the values 1 (3/4 of the weight) and 3 (1/4). With an operation on t
// too, the operation weighs the values and the transactions' inserts
// only give the order.
func TestTrafficKeyStatsByTable(t *testing.T) {
	col := func(name string) *shardkey.Column { return &shardkey.Column{Name: name, Type: shardkey.Int64} }
	st := func(ti int, kind shardkey.Kind, v int64) shardkey.Stmt {
		return shardkey.Stmt{Table: ti, Kind: kind, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(v)}}}
	}
	w := &shardkey.Workload{
		Tables: []*shardkey.Table{{Name: "t", Columns: []*shardkey.Column{col("id")}}, {Name: "u", Columns: []*shardkey.Column{col("id")}}},
		Txns: []shardkey.Txn{
			{Name: "a", Weight: 2, Stmts: []shardkey.Stmt{st(0, shardkey.Read, 1), st(1, shardkey.Read, 9)}},
			{Name: "b", Weight: 1, Stmts: []shardkey.Stmt{st(0, shardkey.Insert, 3)}},
			{Name: "c", Weight: 1, Stmts: []shardkey.Stmt{st(0, shardkey.Read, 1)}},
		},
	}
	ks := trafficKeyStats(w, 0, []int{0}, stmtsByTable(w))
	if want := []TopValue{{"1", 0.75}, {"3", 0.25}}; ks.Cardinality != 2 || !slices.Equal(ks.TopValues, want) {
		t.Errorf("cardinality %d, top values %v; want 2, %v", ks.Cardinality, ks.TopValues, want)
	}
	for i := range 5 {
		w.Txns = append(w.Txns, shardkey.Txn{Name: "ins", Weight: 1, Stmts: []shardkey.Stmt{st(0, shardkey.Insert, int64(10+i))}})
	}
	for _, ops := range []bool{false, true} {
		if ops {
			w.Ops = []*shardkey.Operation{{Name: "get", Table: 0, Kind: shardkey.Read, Rate: 5, Instances: []shardkey.Instance{{Weight: 1, Conds: st(0, shardkey.Read, 7).Conds}}}}
		}
		for ti := range w.Tables {
			a, _ := json.Marshal(trafficKeyStats(w, ti, []int{0}, stmtsByTable(w)))
			b, _ := json.Marshal(TrafficKeyStats(w, ti, []int{0}))
			if string(a) != string(b) {
				t.Errorf("operations %v, table %d: by table %s, every transaction %s", ops, ti, a, b)
			}
		}
	}
}

// TestTrafficPlan: a replicate's range key values, weighed from its
// workload's plan (Cache.Reweighted), are trafficKeys of the replicate,
// bit for bit. By hand: instances id = 1 and id = 2 of an operation at
// 4/s, reweighted 3 and 1, weigh 3 and 1. At random: equalities, IN lists
// and instances that bind no key, an operation whose weights are all 0,
// replicates reweighted by 0 to 3. Where the replicate's conditions are
// not the workload's (another slice), or an operation's weights sum to 0
// in one and not the other, or the key is a float (no groups), the plan
// is not used; Compile with the Cache gives the same boundaries as
// without.
func TestTrafficPlan(t *testing.T) {
	eq := func(v shardkey.Value) []shardkey.Cond { return []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: v}} }
	build := func(insts []shardkey.Instance, typ shardkey.Type) *shardkey.Workload {
		tb := &shardkey.Table{Name: "t", Columns: []*shardkey.Column{{Name: "id", Type: typ}}}
		zero := []shardkey.Instance{{Weight: 0, Conds: eq(shardkey.IntValue(5))}}
		return &shardkey.Workload{Tables: []*shardkey.Table{tb}, Shards: 4, Ops: []*shardkey.Operation{
			{Name: "get", Table: 0, Kind: shardkey.Read, Rate: 4, Instances: insts},
			{Name: "zero", Table: 0, Kind: shardkey.Read, Rate: 1, Instances: zero}}}
	}
	reweight := func(w *shardkey.Workload, f func(i, j int) float64) *shardkey.Workload {
		r := *w
		r.Ops = nil
		for i, op := range w.Ops {
			oc := *op
			oc.Instances = slices.Clone(op.Instances)
			for j := range oc.Instances {
				oc.Instances[j].Weight = f(i, j)
			}
			r.Ops = append(r.Ops, &oc)
		}
		return &r
	}
	d, _ := shardkey.ParseDesign("range(id)")
	plan := func(w *shardkey.Workload) (*trafficPlan, *Scheme) {
		s, err := Compile(w, d, Options{Shards: 4})
		if err != nil {
			t.Fatal(err)
		}
		return newTrafficPlan(w, []int{0}, s.tables, 1), s
	}
	same := func(what string, a []keyWeight, ta float64, b []keyWeight, tb float64) {
		t.Helper()
		ok := len(a) == len(b) && math.Float64bits(ta) == math.Float64bits(tb)
		for i := 0; ok && i < len(a); i++ {
			ok = sameTuple(a[i].k, b[i].k) && math.Float64bits(a[i].w) == math.Float64bits(b[i].w)
		}
		if !ok {
			t.Errorf("%s: plan %v (total %v), trafficKeys %v (total %v)", what, a, ta, b, tb)
		}
	}

	w := build([]shardkey.Instance{{Weight: 1, Conds: eq(shardkey.IntValue(2))}, {Weight: 1, Conds: eq(shardkey.IntValue(1))}}, shardkey.Int64)
	p, _ := plan(w)
	weights := [][]float64{{1, 3}, {0}}
	rep := reweight(w, func(i, j int) float64 { return weights[i][j] })
	all, total, ok := p.weigh(rep)
	want := []keyWeight{{[]shardkey.Value{shardkey.IntValue(1)}, 3}, {[]shardkey.Value{shardkey.IntValue(2)}, 1}}
	if !ok {
		t.Fatal("by hand: plan not used")
	}
	same("by hand", all, total, want, 4)

	r := rand.New(rand.NewPCG(9, 10))
	for round := range 30 {
		var insts []shardkey.Instance
		for range 1 + r.IntN(400) {
			var conds []shardkey.Cond
			switch r.IntN(4) {
			case 0:
				conds = []shardkey.Cond{{Col: 0, Op: shardkey.In, List: []shardkey.Value{shardkey.IntValue(int64(r.IntN(9))), shardkey.IntValue(int64(r.IntN(9))), {Type: shardkey.Null}}}}
			case 1:
				conds = nil // binds no key
			default:
				conds = eq(shardkey.IntValue(int64(r.IntN(9))))
			}
			insts = append(insts, shardkey.Instance{Weight: float64(1 + r.IntN(5)), Conds: conds})
		}
		w := build(insts, shardkey.Int64)
		p, s := plan(w)
		rep := reweight(w, func(i, j int) float64 {
			if i == 1 || j == 0 {
				return float64(1 - i) // zero stays 0; get's first stays 1 (its sum not 0)
			}
			return w.Ops[i].Instances[j].Weight * float64(r.IntN(4))
		})
		all, total, ok := p.weigh(rep)
		if !ok {
			t.Fatalf("round %d: plan not used", round)
		}
		b, tb := trafficKeys(rep, []int{0}, s.tables, 1)
		same(fmt.Sprint("round ", round), all, total, b, tb)

		cache := NewCache()
		cache.Reweighted(rep, w)
		s1, err1 := Compile(rep, d, Options{Shards: 4, Cache: cache})
		s2, err2 := Compile(rep, d, Options{Shards: 4})
		if err1 != nil || err2 != nil || fmt.Sprint(s1.tables[0].bounds) != fmt.Sprint(s2.tables[0].bounds) {
			t.Errorf("round %d: bounds with the plan %v (%v), without %v (%v)", round, s1.tables[0].bounds, err1, s2.tables[0].bounds, err2)
		}
	}

	other := reweight(w, func(i, j int) float64 { return w.Ops[i].Instances[j].Weight })
	other.Ops[0].Instances[1].Conds = slices.Clone(other.Ops[0].Instances[1].Conds)
	if _, _, ok := p.weigh(other); ok {
		t.Error("other conditions: plan used")
	}
	if _, _, ok := p.weigh(reweight(w, func(i, j int) float64 { return 1 })); ok {
		t.Error("an operation's weights 0 in the workload, not in the replicate: plan used")
	}
	fw := build([]shardkey.Instance{{Weight: 1, Conds: eq(shardkey.FloatValue(1.5))}}, shardkey.Float64)
	if fp, _ := plan(fw); fp != nil {
		t.Error("float keys: a plan")
	}
}

// TestCacheOnce: goroutines that ask a Cache for one result while it is
// being computed wait for it rather than compute it again (the advisor
// scores candidates concurrently, and several share a table's
// statistics): 8 goroutines asking at once run f once and all get its
// result. The first f waits until every other goroutine is about to ask,
// and yields, so that they ask while it runs.
func TestCacheOnce(t *testing.T) {
	c, w := NewCache(), &shardkey.Workload{}
	const n = 8
	var calls atomic.Int32
	var asking sync.WaitGroup
	asking.Add(n - 1)
	f := func() int {
		if calls.Add(1) == 1 {
			asking.Wait()
			time.Sleep(20 * time.Millisecond)
		}
		return 42
	}
	got := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i > 0 {
				asking.Done()
			}
			got[i] = cached(c, w, "x", f)
		}()
	}
	wg.Wait()
	if k := calls.Load(); k != 1 {
		t.Errorf("f ran %d times, want 1", k)
	}
	for i, v := range got {
		if v != 42 {
			t.Errorf("goroutine %d got %d, want 42", i, v)
		}
	}
}
