package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// BenchmarkRouteInt64 measures the routing kernel: one int64 key column,
// xxhash64, modulo 64 shards. Target: >= 50 M keys/s per core, no
// allocation.
func BenchmarkRouteInt64(b *testing.B) {
	keys := make([]int64, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range keys {
		keys[i] = rng.Int64()
	}
	out := make([]int32, len(keys))
	l, _ := partition.NewModulo(64)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		RouteInt64(partition.Generic{}, l, keys, out)
	}
	b.ReportMetric(float64(len(keys))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mkeys/s")
}

// bigWorkload builds seed 000's shape in memory: rows (customer_id,
// order_id, order_month, weight), equality queries and order-creating
// transactions.
func bigWorkload(rows, queries, txns int) *shardkey.Workload {
	rng := rand.New(rand.NewPCG(3, 4))
	t := &shardkey.Table{Name: "orders", Rows: rows}
	cust := &shardkey.Column{Name: "customer_id", Type: shardkey.Int64, Ints: make([]int64, rows)}
	ord := &shardkey.Column{Name: "order_id", Type: shardkey.Int64, Ints: make([]int64, rows)}
	month := &shardkey.Column{Name: "order_month", Type: shardkey.Text, Strs: make([]string, rows)}
	months := []string{"2024-01", "2024-02", "2024-03", "2024-04", "2024-05", "2024-06"}
	t.Weights = make([]float64, rows)
	for i := 0; i < rows; i++ {
		cust.Ints[i] = int64(rng.IntN(100000))
		ord.Ints[i] = int64(i + 1)
		month.Strs[i] = months[rng.IntN(len(months))]
		t.Weights[i] = rng.Float64()
	}
	t.Columns = []*shardkey.Column{cust, ord, month}
	byCust := &shardkey.Operation{Name: "by customer", Kind: shardkey.Read}
	byOrder := &shardkey.Operation{Name: "by order", Kind: shardkey.Read}
	for i := 0; i < queries; i++ {
		r := rng.IntN(rows)
		if i%3 == 0 {
			byOrder.Instances = append(byOrder.Instances, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 1, Val: shardkey.IntValue(ord.Ints[r])}}})
		} else {
			byCust.Instances = append(byCust.Instances, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Val: shardkey.IntValue(cust.Ints[r])}}})
		}
	}
	byCust.Rate, byOrder.Rate = float64(len(byCust.Instances)), float64(len(byOrder.Instances))
	w := &shardkey.Workload{Tables: []*shardkey.Table{t}, Ops: []*shardkey.Operation{byCust, byOrder}}
	for i := 0; i < txns; i++ {
		r := rng.IntN(rows)
		var tx shardkey.Txn
		tx.Weight = 1
		for k := 0; k < 1+rng.IntN(4); k++ {
			tx.Stmts = append(tx.Stmts, shardkey.Stmt{Kind: shardkey.Insert, Conds: []shardkey.Cond{
				{Col: 0, Val: shardkey.IntValue(cust.Ints[r])}, {Col: 1, Val: shardkey.IntValue(ord.Ints[r])}, {Col: 2, Val: shardkey.TextValue(month.Strs[r])}}})
		}
		w.Txns = append(w.Txns, tx)
	}
	return w
}

// BenchmarkScore scores 3 candidates on 2 M rows, 1 M queries and 0.5 M
// transactions held in memory (reading the files is measured by
// scripts/bench-seed000.sh).
func BenchmarkScore(b *testing.B) {
	w := bigWorkload(2_000_000, 1_000_000, 500_000)
	keys := []string{"hash(customer_id)", "hash(order_id)", "hash(customer_id, order_month)"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, k := range keys {
			d, _ := shardkey.ParseDesign(k)
			s, err := Compile(w, d, Options{Shards: 64})
			if err != nil {
				b.Fatal(err)
			}
			p, err := Run(w, s, 0)
			if err != nil {
				b.Fatal(err)
			}
			_ = s.Report(p)
		}
	}
}

// BenchmarkKeyStats computes the key statistics of seed 000's three
// candidate keys over 2 M rows (100,000 customers spread over ids up to
// 1 M, unique order ids, 6 months), as score does for each candidate.
func BenchmarkKeyStats(b *testing.B) {
	t := bigWorkload(2_000_000, 0, 0).Tables[0]
	for i := range t.Columns[0].Ints {
		t.Columns[0].Ints[i] *= 10
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fresh := *t // a new table: nothing memoised from the last round
		for _, cols := range [][]int{{0}, {1}, {0, 2}} {
			ComputeKeyStats(&fresh, cols)
		}
	}
}

// BenchmarkManyOperations scores a workload of 20,000 operations of one
// instance each (a log of many statement shapes) held in memory: each
// routing job holds only its own operation, so memory grows with the
// operations, not with their square (it took 24 GB at this size).
func BenchmarkManyOperations(b *testing.B) {
	w := workload(3000, func(int) float64 { return 1 })
	w.Ops = nil
	for i := 0; i < 20000; i++ {
		w.Ops = append(w.Ops, &shardkey.Operation{Name: fmt.Sprint("op", i), Kind: shardkey.Read, Rate: 1,
			Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(int64(i % 3000))}}}}})
	}
	d, _ := shardkey.ParseDesign("hash(id)")
	s, err := Compile(w, d, Options{Shards: 64})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Run(w, s, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScoreBlake2b is BenchmarkScore under seed 000's own hash
// (--engine blake2b), with the points memoised per distinct key value
// (memo) and, side by side in the same run, hashed at every use (nomemo).
func BenchmarkScoreBlake2b(b *testing.B) {
	w := bigWorkload(2_000_000, 1_000_000, 500_000)
	keys := []string{"hash(customer_id)", "hash(order_id)", "hash(customer_id, order_month)"}
	eng, err := partition.Lookup("blake2b")
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"nomemo", "memo"} {
		b.Run(mode, func(b *testing.B) {
			noMemo = mode == "nomemo"
			defer func() { noMemo = false }()
			for i := 0; i < b.N; i++ {
				for _, k := range keys {
					d, _ := shardkey.ParseDesign(k)
					s, err := Compile(w, d, Options{Shards: 64, Engine: eng})
					if err != nil {
						b.Fatal(err)
					}
					p, err := Run(w, s, 0)
					if err != nil {
						b.Fatal(err)
					}
					_ = s.Report(p)
				}
			}
		})
	}
}

// BenchmarkExactMean: the two-sum partials against the 2,200-bit sum of
// every value (bigMean, the former exactMean) over 16,384 slots' work.
func BenchmarkExactMean(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 16384)
	for i := range xs {
		xs[i] = rng.Float64() * 100
	}
	b.Run("partials", func(b *testing.B) {
		for b.Loop() {
			exactMean(xs)
		}
	})
	b.Run("big", func(b *testing.B) {
		for b.Loop() {
			bigMean(xs)
		}
	})
}

// BenchmarkMemoFill: the blake2b memo's fill of seed 000's shape, 2 M
// order ids rising by 1 to 3 (by value) and (customer, month) pairs of
// 100,000 customers and 24 months (by slot), through a hasher per fill
// worker (pointer: partition.PointerMaker, PointInt64 for the ids) and,
// side by side, through the engine's Point (engine: a pooled hasher and
// the key's text per value, the former fill). cpu-ms/op is the fill's CPU
// time (getrusage), which a loaded machine inflates less than wall time.
func BenchmarkMemoFill(b *testing.B) {
	const n = 2_000_000
	rng := rand.New(rand.NewPCG(9, 10))
	tab := &shardkey.Table{Name: "orders", Rows: n}
	ord := &shardkey.Column{Name: "order_id", Type: shardkey.Int64, Ints: make([]int64, n)}
	cust := &shardkey.Column{Name: "customer_id", Type: shardkey.Int64, Ints: make([]int64, n)}
	month := &shardkey.Column{Name: "order_month", Type: shardkey.Text, Strs: make([]string, n)}
	id := int64(100000)
	for i := range n {
		id += 1 + rng.Int64N(3)
		ord.Ints[i] = id
		cust.Ints[i] = 1 + rng.Int64N(1_000_000)/10*10
		month.Strs[i] = fmt.Sprintf("%d-%02d", 2023+i*2/n, 1+rng.IntN(12))
	}
	tab.Columns = []*shardkey.Column{ord, cust, month}
	eng, err := partition.Lookup("blake2b")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cols []int
	}{{"order_id", []int{0}}, {"customer_month", []int{1, 2}}} {
		for _, mode := range []string{"engine", "pointer"} {
			b.Run(c.name+"/"+mode, func(b *testing.B) {
				noPointer = mode == "engine"
				defer func() { noPointer = false }()
				var cpu float64 // the fills' CPU time (both workers)
				for b.Loop() {
					b.StopTimer()
					me := memoize(eng, tab, c.cols).(*memoEngine)
					me.withShards(64)
					b.StartTimer()
					c0 := cpuSeconds()
					me.fill()
					cpu += cpuSeconds() - c0
				}
				if cpu >= 0 {
					b.ReportMetric(cpu*1e3/float64(b.N), "cpu-ms/op")
				}
			})
		}
	}
}
