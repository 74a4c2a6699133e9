package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
)

// Streaming a workload's instances and transactions through a Stream, in
// batches with their own operation numbering, must score every design as
// Run scores the workload that holds them.

// withoutSamples returns a workload with w's tables and operations (name,
// table, kind, rate, latency) but no instances and no transactions: what a
// streaming reader leaves in the workload.
func withoutSamples(w *shardkey.Workload) *shardkey.Workload {
	c := *w
	c.Ops = nil
	for _, op := range w.Ops {
		o := *op
		o.Instances = nil
		c.Ops = append(c.Ops, &o)
	}
	c.Txns = nil
	return &c
}

// streamItem is one instance (op >= 0) or transaction (op < 0) to stream.
type streamItem struct {
	op, i int
}

// streamWorkload routes w's instances and transactions through st in
// batches of at most size items, in an order shuffled by seed, each batch
// numbering its operations in order of first use (a permutation of the
// global indexes) as a reader does. Batches are filled on several
// goroutines and merged in order. Instance weights are scaled to the
// operation's rate as Run scales them.
func streamWorkload(t *testing.T, st *Stream, w *shardkey.Workload, size int, seed uint64) {
	t.Helper()
	var items []streamItem
	scale := make([]float64, len(w.Ops))
	for oi, op := range w.Ops {
		sum := 0.0
		for i, in := range op.Instances {
			sum += in.Weight
			items = append(items, streamItem{oi, i})
		}
		if sum > 0 {
			scale[oi] = op.Rate / sum
		}
	}
	for i := range w.Txns {
		items = append(items, streamItem{-1, i})
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })

	type filled struct {
		b   shardkey.Batch
		ops []int
		err error
	}
	fill := func(part []streamItem) filled {
		f := filled{b: st.NewBatch()}
		local := map[int]int{}
		for _, it := range part {
			if it.op < 0 {
				tx := &w.Txns[it.i]
				// A reader's statements are scratch: hand over a copy
				// and clobber it after the call.
				stmts := append([]shardkey.Stmt(nil), tx.Stmts...)
				if f.err = f.b.Txn(stmts, tx.Weight); f.err != nil {
					return f
				}
				for k := range stmts {
					stmts[k] = shardkey.Stmt{}
				}
				continue
			}
			op := w.Ops[it.op]
			l, ok := local[it.op]
			if !ok {
				l = len(f.ops)
				local[it.op] = l
				f.ops = append(f.ops, it.op)
			}
			in := &op.Instances[it.i]
			conds := append([]shardkey.Cond(nil), in.Conds...)
			if f.err = f.b.Instance(l, op.Table, op.Kind, conds, in.Sets, in.Weight*scale[it.op]); f.err != nil {
				return f
			}
			for k := range conds {
				conds[k] = shardkey.Cond{Col: -1}
			}
		}
		return f
	}
	var batches [][]streamItem
	for lo := 0; lo < len(items); lo += size {
		batches = append(batches, items[lo:min(lo+size, len(items))])
	}
	// The first half one at a time (each batch reuses the last merged
	// one's memory), the rest four at a time on goroutines.
	half := len(batches) / 2
	for _, b := range batches[:half] {
		f := fill(b)
		if f.err != nil {
			t.Fatal(f.err)
		}
		st.Merge(f.b, f.ops)
	}
	for lo := half; lo < len(batches); lo += 4 {
		group := batches[lo:min(lo+4, len(batches))]
		out := make([]filled, len(group))
		var wg sync.WaitGroup
		for k, b := range group {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[k] = fill(b)
			}()
		}
		wg.Wait()
		for _, f := range out {
			if f.err != nil {
				t.Fatal(f.err)
			}
			st.Merge(f.b, f.ops)
		}
	}
}

// compileKeys compiles designs against w.
func compileKeys(t *testing.T, w *shardkey.Workload, designs []string, n int) []*Scheme {
	t.Helper()
	var out []*Scheme
	for _, k := range designs {
		d, err := shardkey.ParseDesign(k)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Compile(w, d, Options{Shards: n})
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		out = append(out, s)
	}
	return out
}

// runAndStream scores designs on w with Run, and on w's streamed form with
// a Stream fed in batches of size, and returns both reports as JSON.
func runAndStream(t *testing.T, w *shardkey.Workload, designs []string, n, size int, seed uint64) (ran, streamed [][]byte) {
	t.Helper()
	ran, streamed, _, _ = runAndStreamPartials(t, w, designs, n, size, seed)
	return ran, streamed
}

// runAndStreamPartials is runAndStream that also returns the partials.
func runAndStreamPartials(t *testing.T, w *shardkey.Workload, designs []string, n, size int, seed uint64) (ran, streamed [][]byte, pr, ps []*Partial) {
	t.Helper()
	ws := withoutSamples(w)
	st := NewStream(compileKeys(t, ws, designs, n))
	streamWorkload(t, st, w, size, seed)
	for i, s := range compileKeys(t, w, designs, n) {
		p, err := Run(w, s, 3)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(s.Report(p))
		q, err := st.Total(i, 3)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(st.Schemes[i].Report(q))
		ran, streamed = append(ran, a), append(streamed, b)
		pr, ps = append(pr, p), append(ps, q)
	}
	return ran, streamed, pr, ps
}

// jsonDiff returns where the JSON documents a and b differ beyond a
// relative tolerance tol on numbers ("" when they agree).
func jsonDiff(a, b []byte, tol float64) string {
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		return err.Error()
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return err.Error()
	}
	var walk func(path string, x, y any) string
	walk = func(path string, x, y any) string {
		switch xv := x.(type) {
		case float64:
			yv, ok := y.(float64)
			if !ok || math.Abs(xv-yv) > tol*math.Max(1, math.Max(math.Abs(xv), math.Abs(yv))) {
				return fmt.Sprintf("%s: %v vs %v", path, x, y)
			}
		case map[string]any:
			yv, ok := y.(map[string]any)
			if !ok || len(xv) != len(yv) {
				return fmt.Sprintf("%s: %v vs %v", path, x, y)
			}
			for k := range xv {
				if d := walk(path+"."+k, xv[k], yv[k]); d != "" {
					return d
				}
			}
		case []any:
			yv, ok := y.([]any)
			if !ok || len(xv) != len(yv) {
				return fmt.Sprintf("%s: %d items vs %v", path, len(xv), y)
			}
			for i := range xv {
				if d := walk(fmt.Sprintf("%s[%d]", path, i), xv[i], yv[i]); d != "" {
					return d
				}
			}
		default:
			if !reflect.DeepEqual(x, y) {
				return fmt.Sprintf("%s: %v vs %v", path, x, y)
			}
		}
		return ""
	}
	return walk("", x, y)
}

// TestStreamMatchesRunScenarios: the built-in scenarios (fresh inserts,
// IN lists, ranges, transactions with shared new ids) streamed in batches
// score as Run scores them, for hash, range, salted, isolated and
// replicated designs. Scaled rates are not exact binary fractions, so
// sums taken in another order may differ in the last bits.
func TestStreamMatchesRunScenarios(t *testing.T) {
	for _, c := range []struct {
		spec    string
		smaller map[string]string
		designs []string
	}{
		{"orders", map[string]string{"orders.rows": "5000"}, []string{
			"hash(customer_id)",
			"hash(order_id)",
			"hash(customer_id, order_month)",
			"range(order_id)",
			"salt(hash(customer_id), 4, top=3)",
			"isolate(hash(customer_id), top=2)",
			"orders: hash(customer_id); order_line: replicate",
		}},
		{"chat", map[string]string{"messages.rows": "8000", "inbox.rows": "8000"}, []string{
			"hash(conversation_id)",
			"range(tenant_id, created_at)",
			"messages: hash(conversation_id); inbox: hash(user_id)",
		}},
	} {
		t.Run(c.spec, func(t *testing.T) {
			spec, err := scenario.Builtin(c.spec)
			if err != nil {
				t.Fatal(err)
			}
			if spec, err = spec.With(c.smaller); err != nil {
				t.Fatal(err)
			}
			spec.ParamSamples = 1024
			w, err := scenario.Build(spec, "")
			if err != nil {
				t.Fatal(err)
			}
			inst := 0
			for _, op := range w.Ops {
				inst += len(op.Instances)
			}
			if inst < 2000 || len(w.Txns) == 0 {
				t.Fatalf("%d instances, %d transactions: nothing to stream", inst, len(w.Txns))
			}
			ran, streamed := runAndStream(t, w, c.designs, w.Shards, 1000, 7)
			for i, d := range c.designs {
				if diff := jsonDiff(ran[i], streamed[i], 1e-9); diff != "" {
					t.Errorf("%s: Run and Stream differ at %s", d, diff)
				}
			}
		})
	}
}

// exactWorkload is a workload whose every sum is an exact binary
// fraction: integer weights, rates twice their instances' summed weight,
// 8 shards and salt buckets of 4, so the order of addition cannot change a
// bit and Run and Stream must agree exactly (range designs get 4 or 8
// ranges, so a fresh value spread over every range is an exact 1/4 or 1/8). Table t (id, grp) has 300
// rows; r (code) is a reference table.
func exactWorkload() *shardkey.Workload {
	rng := rand.New(rand.NewPCG(3, 4))
	t := &shardkey.Table{Name: "t", Rows: 300}
	id := &shardkey.Column{Name: "id", Type: shardkey.Int64}
	grp := &shardkey.Column{Name: "grp", Type: shardkey.Text}
	for i := 0; i < t.Rows; i++ {
		id.Ints = append(id.Ints, int64(i))
		grp.Strs = append(grp.Strs, fmt.Sprintf("g%d", i%7))
		w := 1 + float64(i%3)
		if i < 2 {
			w = 200 // two hot ids, for salt and isolate
		}
		t.Weights = append(t.Weights, w)
	}
	t.Columns = []*shardkey.Column{id, grp}
	r := &shardkey.Table{Name: "r", Rows: 20}
	code := &shardkey.Column{Name: "code", Type: shardkey.Int64}
	for i := 0; i < r.Rows; i++ {
		code.Ints = append(code.Ints, int64(i))
	}
	r.Columns = []*shardkey.Column{code}

	iv := func() shardkey.Value { return shardkey.IntValue(rng.Int64N(320)) } // some ids have no rows
	eq := func(col int, v shardkey.Value) shardkey.Cond { return shardkey.Cond{Col: col, Op: shardkey.Eq, Val: v} }
	in := func(col, k int) shardkey.Cond {
		c := shardkey.Cond{Col: col, Op: shardkey.In}
		for j := 0; j < k; j++ {
			c.List = append(c.List, iv())
		}
		return c
	}
	span := func() shardkey.Cond {
		lo := rng.Int64N(300)
		return shardkey.Cond{Col: 0, Op: shardkey.Range, Bounds: &shardkey.Bounds{
			HasLo: true, LoIncl: true, Lo: shardkey.IntValue(lo), HasHi: true, Hi: shardkey.IntValue(lo + rng.Int64N(60))}}
	}
	fresh := func(col int, f shardkey.Fresh, v int32) shardkey.Cond {
		return shardkey.Cond{Col: col, Op: shardkey.Eq, Fresh: f, FreshVar: v}
	}
	grpv := func() shardkey.Value { return shardkey.TextValue(fmt.Sprintf("g%d", rng.IntN(7))) }
	ops := []struct {
		name  string
		table int
		kind  shardkey.Kind
		n     int
		conds func() []shardkey.Cond
	}{
		{"get", 0, shardkey.Read, 900, func() []shardkey.Cond { return []shardkey.Cond{eq(0, iv())} }},
		{"get hot", 0, shardkey.Read, 50, func() []shardkey.Cond { return []shardkey.Cond{eq(0, shardkey.IntValue(int64(rng.IntN(2))))} }},
		{"get many", 0, shardkey.Read, 300, func() []shardkey.Cond { return []shardkey.Cond{in(0, 1+rng.IntN(5))} }},
		{"get none", 0, shardkey.Read, 10, func() []shardkey.Cond { return []shardkey.Cond{in(0, 0)} }},
		{"scan ids", 0, shardkey.Read, 200, func() []shardkey.Cond { return []shardkey.Cond{span()} }},
		{"by group", 0, shardkey.Read, 100, func() []shardkey.Cond { return []shardkey.Cond{eq(1, grpv())} }},
		{"by group and id", 0, shardkey.Update, 150, func() []shardkey.Cond { return []shardkey.Cond{eq(0, iv()), eq(1, grpv())} }},
		{"delete", 0, shardkey.Delete, 80, func() []shardkey.Cond { return []shardkey.Cond{eq(0, iv())} }},
		{"insert new", 0, shardkey.Insert, 120, func() []shardkey.Cond {
			return []shardkey.Cond{fresh(0, shardkey.FreshNewest, 0), eq(1, grpv())}
		}},
		{"insert hot", 0, shardkey.Insert, 40, func() []shardkey.Cond { return []shardkey.Cond{eq(0, shardkey.IntValue(0)), eq(1, grpv())} }},
		{"lookup code", 1, shardkey.Read, 400, func() []shardkey.Cond { return []shardkey.Cond{eq(0, shardkey.IntValue(rng.Int64N(20)))} }},
		{"set code", 1, shardkey.Update, 30, func() []shardkey.Cond { return []shardkey.Cond{eq(0, shardkey.IntValue(rng.Int64N(20)))} }},
		{"unused", 0, shardkey.Read, 0, nil},
	}
	w := &shardkey.Workload{Name: "exact", Tables: []*shardkey.Table{t, r}, Shards: 8}
	for _, o := range ops {
		op := &shardkey.Operation{Name: o.name, Table: o.table, Kind: o.kind}
		sum := 0.0
		for i := 0; i < o.n; i++ {
			wt := float64(rng.IntN(5)) // some instances weigh 0
			sum += wt
			op.Instances = append(op.Instances, shardkey.Instance{Weight: wt, Conds: o.conds()})
		}
		op.Rate = 2 * sum
		w.Ops = append(w.Ops, op)
	}
	ins := func(c ...shardkey.Cond) shardkey.Stmt {
		return shardkey.Stmt{Table: 0, Kind: shardkey.Insert, Conds: c}
	}
	for i := 0; i < 1500; i++ {
		tx := shardkey.Txn{Weight: float64(rng.IntN(4)), Name: fmt.Sprintf("tx%d", i%3)}
		switch i % 5 {
		case 0: // two concrete ids
			tx.Stmts = []shardkey.Stmt{ins(eq(0, iv())), ins(eq(0, iv()))}
		case 1: // one new id written twice, and another
			tx.Stmts = []shardkey.Stmt{ins(fresh(0, shardkey.FreshUnique, 1)), ins(fresh(0, shardkey.FreshUnique, 1)), ins(fresh(0, shardkey.FreshUnique, 2))}
		case 2: // a concrete id, a reference read and write
			tx.Stmts = []shardkey.Stmt{ins(eq(0, iv())), {Table: 1, Kind: shardkey.Read, Conds: []shardkey.Cond{eq(0, shardkey.IntValue(3))}},
				{Table: 1, Kind: shardkey.Update, Conds: []shardkey.Cond{eq(0, shardkey.IntValue(4))}}}
		case 3: // a hot id (salted under salt) and a fresh one
			tx.Stmts = []shardkey.Stmt{ins(eq(0, shardkey.IntValue(1))), ins(fresh(0, shardkey.FreshNewest, 1))}
		default: // one statement
			tx.Stmts = []shardkey.Stmt{ins(eq(0, iv()), eq(1, grpv()))}
		}
		w.Txns = append(w.Txns, tx)
	}
	return w
}

// TestStreamMatchesRunExact: on a workload whose sums are exact, Stream's
// reports equal Run's byte for byte, whatever the batch size and order.
func TestStreamMatchesRunExact(t *testing.T) {
	w := exactWorkload()
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	designs := []string{
		"hash(id)",
		"range(id, bounds=[40, 80, 120, 160, 200, 240, 280])",
		"salt(hash(id), 4, top=2)",
		"isolate(hash(id), top=1)",
		"t: hash(id); r: replicate",
		"t: hash(grp, id); r: replicate",
		"t: range(id, bounds=[100, 200, 250]); r: hash(code)",
	}
	for _, c := range []struct {
		size int
		seed uint64
	}{{1, 1}, {97, 2}, {500, 3}, {1 << 20, 4}} {
		ran, streamed, pr, ps := runAndStreamPartials(t, w, designs, 8, c.size, c.seed)
		for i, d := range designs {
			if string(ran[i]) != string(streamed[i]) {
				t.Errorf("batches of %d: %s: Run and Stream differ at %s", c.size, d, jsonDiff(ran[i], streamed[i], 0))
			}
			// The partials too, field by field (counts included).
			if !reflect.DeepEqual(pr[i], ps[i]) {
				t.Errorf("batches of %d: %s: partials differ:\nRun:    %+v\nStream: %+v", c.size, d, pr[i], ps[i])
			}
		}
	}
	// Closed forms on the streamed report: every request is counted, and
	// a transaction on one concrete id and a copy of the reference table
	// ("t: hash(id); r: replicate") is never cross-shard, while one that
	// also writes the reference table always is.
	ran, _ := runAndStream(t, w, designs[:1], 8, 64, 5)
	var c Candidate
	if err := json.Unmarshal(ran[0], &c); err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for _, op := range w.Ops {
		want += op.Rate
	}
	if c.RequestsPerS != want || c.Transactions != int64(len(w.Txns)) {
		t.Errorf("requests %v, transactions %d; want %v and %d", c.RequestsPerS, c.Transactions, want, len(w.Txns))
	}
}

// TestStreamTotalAddsRunsSamples: Total merges the stream with whatever
// the workload itself holds (here: half the operations' instances and the
// transactions stay in the workload, half are streamed).
func TestStreamTotalAddsRunsSamples(t *testing.T) {
	w := exactWorkload()
	designs := []string{"hash(id)", "t: range(id, bounds=[100, 200, 250]); r: replicate"}
	split := withoutSamples(w)
	for oi, op := range w.Ops {
		if oi%2 == 0 {
			split.Ops[oi].Instances = op.Instances // kept; the rest streamed
		}
	}
	split.Txns = w.Txns
	streamedPart := withoutSamples(w)
	for oi, op := range w.Ops {
		if oi%2 == 1 {
			streamedPart.Ops[oi].Instances = op.Instances
		}
	}
	st := NewStream(compileKeys(t, split, designs, 8))
	streamWorkload(t, st, streamedPart, 300, 9)
	for i, s := range compileKeys(t, w, designs, 8) {
		p, err := Run(w, s, 2)
		if err != nil {
			t.Fatal(err)
		}
		q, err := st.Total(i, 2)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(s.Report(p))
		b, _ := json.Marshal(st.Schemes[i].Report(q))
		if string(a) != string(b) {
			t.Errorf("%s: Run and Total differ at %s", designs[i], jsonDiff(a, b, 0))
		}
	}
}

// TestStreamPrefetchesMoves: a stream computes each scheme's growth
// figures with its row-sample work, in the background (prefetch), not
// in Report after the last statement; Report's are those rebalance
// computes, in a slice of the candidate's own.
func TestStreamPrefetchesMoves(t *testing.T) {
	w := exactWorkload()
	designs := []string{"hash(id)", "t: range(id, bounds=[100, 200, 250]); r: replicate"}
	st := NewStream(compileKeys(t, withoutSamples(w), designs, 8))
	streamWorkload(t, st, w, 300, 9)
	for i, s := range st.Schemes {
		q, err := st.Total(i, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !s.movesSet {
			t.Fatalf("%s: growth figures not computed ahead", designs[i])
		}
		c := s.Report(q)
		want := s.rebalance()
		if !reflect.DeepEqual(c.Rebalance, want) {
			t.Errorf("%s: Report's growth figures %+v, rebalance's %+v", designs[i], c.Rebalance, want)
		}
		if len(c.Rebalance) > 0 {
			c.Rebalance[0].KeysMoved = -1
			if s.moves[0].KeysMoved == -1 {
				t.Errorf("%s: the candidate's growth figures are the scheme's slice", designs[i])
			}
		}
	}
}

// TestStreamBatchError: a key the engine cannot place is the batch's
// error, from Instance and from Txn.
func TestStreamBatchError(t *testing.T) {
	w := exactWorkload()
	ws := withoutSamples(w)
	d, _ := shardkey.ParseDesign("hash(id)")
	s, err := Compile(ws, d, Options{Shards: 8, Engine: noPlace{}})
	if err != nil {
		t.Fatal(err)
	}
	st := NewStream([]*Scheme{s})
	b := st.NewBatch()
	conds := []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(5)}}
	if err := b.Instance(0, 0, shardkey.Read, conds, nil, 1); err == nil {
		t.Error("Instance: no error for a key the engine cannot place")
	}
	if err := b.Txn([]shardkey.Stmt{{Table: 0, Kind: shardkey.Insert, Conds: conds}}, 1); err == nil {
		t.Error("Txn: no error for a key the engine cannot place")
	}
}

// partialOf returns a partial for n shards with ops operations whose every
// field is a distinct function of seed, for merge arithmetic.
func partialOf(n, ops int, seed float64) *Partial {
	p := NewPartial(n, ops)
	for i := range p.Load {
		p.Load[i] = seed + float64(i)
		p.Work[i] = 2*seed + float64(i)
	}
	p.LoadUniform, p.Rows, p.WorkAll, p.WorkUniform = seed+0.5, int64(seed), seed+0.25, seed+0.125
	p.WorkKeyless = seed + 0.0625
	p.TxnWeight, p.TxnCross, p.TxnCount = 3*seed, seed, int64(2*seed)
	for k := range p.Ops {
		o := &p.Ops[k]
		o.Requests, o.Work, o.Scatter, o.Count = seed*10+float64(k), seed*20+float64(k), float64(k), int64(k+1)
		o.Keyless = seed + float64(k)/2
		for f := range o.Hist {
			o.Hist[f] = float64(k*100 + f)
		}
	}
	return p
}

// TestPartialMerge: merging adds every field, growing the operations to
// the longer of the two; mergeOps adds q's operation i into p's ops[i].
func TestPartialMerge(t *testing.T) {
	const n = 4
	checkShared := func(t *testing.T, p *Partial, a, b float64) {
		t.Helper()
		for i := 0; i < n; i++ {
			if p.Load[i] != a+b+2*float64(i) || p.Work[i] != 2*(a+b)+2*float64(i) {
				t.Errorf("shard %d: load %v work %v", i, p.Load[i], p.Work[i])
			}
		}
		if p.LoadUniform != a+b+1 || p.Rows != int64(a+b) || p.WorkAll != a+b+0.5 || p.WorkUniform != a+b+0.25 || p.WorkKeyless != a+b+0.125 ||
			p.TxnWeight != 3*(a+b) || p.TxnCross != a+b || p.TxnCount != int64(2*(a+b)) {
			t.Errorf("sums %+v", p)
		}
	}
	opEq := func(t *testing.T, what string, got OpPartial, want OpPartial) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v; want %+v", what, got, want)
		}
	}
	scaled := func(o OpPartial, times int) OpPartial { // o added to itself
		h := make([]float64, len(o.Hist))
		for f := range h {
			h[f] = o.Hist[f] * float64(times)
		}
		return OpPartial{o.Requests * float64(times), o.Merged * float64(times), o.Work * float64(times), o.Scatter * float64(times), h, o.Count * int64(times), o.Lookup * float64(times), o.Keyless * float64(times), o.Unsized * float64(times), nil, nil, o.Riders * int64(times), o.Moves * float64(times), o.MoveCross * float64(times)}
	}
	sum := func(x, y OpPartial) OpPartial {
		h := make([]float64, len(x.Hist))
		for f := range h {
			h[f] = x.Hist[f] + y.Hist[f]
		}
		return OpPartial{x.Requests + y.Requests, x.Merged + y.Merged, x.Work + y.Work, x.Scatter + y.Scatter, h, x.Count + y.Count, x.Lookup + y.Lookup, x.Keyless + y.Keyless, x.Unsized + y.Unsized, nil, nil, x.Riders + y.Riders, x.Moves + y.Moves, x.MoveCross + y.MoveCross}
	}
	empty := OpPartial{Hist: make([]float64, n+1)}

	t.Run("q has more operations", func(t *testing.T) {
		p, q, q0 := partialOf(n, 2, 1), partialOf(n, 5, 3), partialOf(n, 5, 3)
		p0 := partialOf(n, 2, 1)
		p.Merge(q)
		checkShared(t, p, 1, 3)
		if len(p.Ops) != 5 {
			t.Fatalf("%d operations; want 5", len(p.Ops))
		}
		for k := 0; k < 5; k++ {
			want := q0.Ops[k]
			if k < 2 {
				want = sum(p0.Ops[k], q0.Ops[k])
			}
			opEq(t, fmt.Sprint("op ", k), p.Ops[k], want)
		}
		if !reflect.DeepEqual(q, q0) {
			t.Error("Merge changed its argument")
		}
	})
	t.Run("q has fewer operations", func(t *testing.T) {
		p, q := partialOf(n, 4, 2), partialOf(n, 1, 5)
		p0, q0 := partialOf(n, 4, 2), partialOf(n, 1, 5)
		p.Merge(q)
		checkShared(t, p, 2, 5)
		if len(p.Ops) != 4 {
			t.Fatalf("%d operations; want 4", len(p.Ops))
		}
		opEq(t, "op 0", p.Ops[0], sum(p0.Ops[0], q0.Ops[0]))
		for k := 1; k < 4; k++ {
			opEq(t, fmt.Sprint("op ", k), p.Ops[k], p0.Ops[k])
		}
	})
	t.Run("mergeOps permutes and grows", func(t *testing.T) {
		p, q := partialOf(n, 3, 1), partialOf(n, 3, 2)
		p0, q0 := partialOf(n, 3, 1), partialOf(n, 3, 2)
		p.mergeOps(q, []int{5, 0, 2}) // q's 0 is p's 5 (new), 1 is 0, 2 is 2
		checkShared(t, p, 1, 2)
		if len(p.Ops) != 6 {
			t.Fatalf("%d operations; want 6", len(p.Ops))
		}
		opEq(t, "op 0", p.Ops[0], sum(p0.Ops[0], q0.Ops[1]))
		opEq(t, "op 1", p.Ops[1], p0.Ops[1])
		opEq(t, "op 2", p.Ops[2], sum(p0.Ops[2], q0.Ops[2]))
		opEq(t, "op 3", p.Ops[3], empty)
		opEq(t, "op 4", p.Ops[4], empty)
		opEq(t, "op 5", p.Ops[5], q0.Ops[0])
	})
	t.Run("mergeOps into one operation", func(t *testing.T) {
		p, q := NewPartial(n, 0), partialOf(n, 3, 2)
		q0 := partialOf(n, 3, 2)
		p.mergeOps(q, []int{1, 1, 1})
		if len(p.Ops) != 2 {
			t.Fatalf("%d operations; want 2", len(p.Ops))
		}
		opEq(t, "op 0", p.Ops[0], empty)
		opEq(t, "op 1", p.Ops[1], sum(sum(q0.Ops[0], q0.Ops[1]), q0.Ops[2]))
	})
	t.Run("reset partial reused", func(t *testing.T) {
		// A batch's partial is reset after each merge and refilled: its
		// cleared operations must come back empty, with their histograms.
		q := partialOf(n, 4, 7)
		q.reset()
		if len(q.Ops) != 0 || q.Rows != 0 || q.TxnCount != 0 || q.Load[2] != 0 || q.Work[3] != 0 || q.WorkAll != 0 || q.WorkKeyless != 0 {
			t.Fatalf("reset left %+v", q)
		}
		q.growOps(6)
		for k := range q.Ops {
			opEq(t, fmt.Sprint("op ", k), q.Ops[k], empty)
		}
		src := partialOf(n, 2, 1)
		p := NewPartial(n, 0)
		for i := 0; i < 3; i++ {
			q.reset()
			q.growOps(2)
			q.Merge(src)
			p.mergeOps(q, []int{1, 0})
		}
		opEq(t, "op 0", p.Ops[0], scaled(src.Ops[1], 3))
		opEq(t, "op 1", p.Ops[1], scaled(src.Ops[0], 3))
		if p.Rows != 3*src.Rows || p.TxnCount != 3*src.TxnCount {
			t.Errorf("rows %d txns %d; want %d and %d", p.Rows, p.TxnCount, 3*src.Rows, 3*src.TxnCount)
		}
	})
}

// noPlace is an engine that places only the key 1 (so a key compiles:
// see probeEngine) and no other.
type noPlace struct{}

func (noPlace) Name() string { return "noplace" }
func (e noPlace) Hash(key []shardkey.Value) (partition.Hash, error) {
	p, err := e.Point(key)
	return partition.UnsignedHash(p), err
}
func (noPlace) Point(key []shardkey.Value) (uint64, error) {
	if len(key) == 1 && key[0].Int == 1 {
		return 1, nil
	}
	return 0, partition.ErrNoDestination
}
func (noPlace) Layout(n int) (partition.Layout, error) { return partition.NewModulo(n) }

// TestStreamWeightlessOperation: an operation whose instances all weigh 0
// scores the same streamed as run. Run skips such an operation (its scale
// rate/sum is undefined), so its instances count nowhere; a stream counts
// each instance it is handed. The difference reaches the report through
// the p99's instance count: 99 single-shard requests and 1 scatter-gather
// one have p99 1 (the sorted fan-out at floor(0.99 x 99) = 98); with 101
// weightless instances counted it is the element at floor(0.99 x 200) =
// 198 of 201, whose weight share 199/201 x 100 = 99.005 exceeds the 99
// requests of fan-out 1: p99 8.
func TestStreamWeightlessOperation(t *testing.T) {
	w := workload(64, func(int) float64 { return 1 })
	get := &shardkey.Operation{Name: "get", Table: 0, Kind: shardkey.Read, Rate: 99}
	for i := 0; i < 99; i++ {
		get.Instances = append(get.Instances, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(int64(i))}}})
	}
	scan := &shardkey.Operation{Name: "scan", Table: 0, Kind: shardkey.Read, Rate: 1,
		Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{{Col: 1, Op: shardkey.Eq, Val: shardkey.IntValue(3)}}}}}
	idle := &shardkey.Operation{Name: "weightless", Table: 0, Kind: shardkey.Read, Rate: 0}
	for i := 0; i < 101; i++ {
		idle.Instances = append(idle.Instances, shardkey.Instance{Weight: 0, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(int64(i))}}})
	}
	w.Ops = []*shardkey.Operation{get, scan, idle}
	ran, streamed, pr, ps := runAndStreamPartials(t, w, []string{"hash(id)"}, 8, 50, 1)
	var a, b Candidate
	if err := json.Unmarshal(ran[0], &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(streamed[0], &b); err != nil {
		t.Fatal(err)
	}
	if a.FanoutP99 != 1 {
		t.Errorf("Run: fanout_p99 %v; want 1", a.FanoutP99)
	}
	if b.FanoutP99 != 1 || ps[0].Ops[2].Count != pr[0].Ops[2].Count {
		t.Errorf("Stream: fanout_p99 %v, weightless operation's count %d; Run: %v and %d", b.FanoutP99, ps[0].Ops[2].Count, a.FanoutP99, pr[0].Ops[2].Count)
	}
}
