package sim

import (
	"math"
	"math/big"
	"slices"
	"sync"
)

// Partial is a mergeable partial score: sums over a slice of the input's
// rows, operation instances and transactions under one Scheme. Partials of
// disjoint slices merge into the partial of their union (Merge), so one
// input can be split across cores, machines or another engine's workers and
// combined exactly. Every field is a sum or a histogram.
type Partial struct {
	N int // shards

	// Load is the per-shard sum of row weights; LoadUniform is weight
	// spread evenly over all shards (replicated rows).
	Load        []float64
	LoadUniform float64
	Rows        int64
	// NullRows counts rows whose NULL key the engine cannot place
	// (their weight is in LoadUniform).
	NullRows int64

	// Work is per-shard units of work per second from single-shard and
	// multi-shard touches; WorkAll is the rate of scatter-gather instances
	// (each adds to every shard); WorkUniform the rate of instances that
	// touch one shard chosen uniformly (fresh hashed values, replicated
	// reads), spread evenly.
	Work        []float64
	WorkAll     float64
	WorkUniform float64
	// WorkKeyless is the part of WorkAll from scatter-gather instances
	// that name no key to route by (a read or write not bound by the key,
	// a range over a hash key): a system whose router addresses nodes
	// sends such a request once to each node (see ScatterPerNode), not
	// once per slot.
	WorkKeyless float64

	// Ops holds one partial per workload operation, by index.
	Ops []OpPartial

	// TxnWeight is the summed weight of transactions, TxnCross the summed
	// weight times the probability of touching more than one shard.
	TxnWeight float64
	TxnCross  float64
	TxnCount  int64
	// TxnCrossRequests is the summed weight times the probability of
	// touching more than one shard times the transaction's requests (its
	// statements less riders, shardkey.Stmt.Rider): the requests that
	// commit with a cross-shard transaction, by their own transaction's
	// size (the advisor's local share), not the average one's.
	TxnCrossRequests float64
	// TxnUnbound counts transaction inserts that give no value for their
	// table's key columns: each is placed on a random shard, so TxnCross
	// is an expectation over those placements.
	TxnUnbound int64
	// TxnCrossLookup is the part of TxnCross due to lookup rows: the
	// summed weight times the probability that a transaction crosses
	// shards with its lookups' shards and not without them.
	TxnCrossLookup float64
	// RolledBackWeight, RolledBackCross and RolledBackCount are TxnWeight,
	// TxnCross and TxnCount over the transactions that rolled back
	// (shardkey.Txn.RolledBack), which those leave out: a rolled-back
	// transaction that spanned shards cost their coordination (prepare
	// and abort, locks on each) though it committed nothing.
	RolledBackWeight float64
	RolledBackCross  float64
	RolledBackCount  int64
	// AutoTxnWeight, AutoTxnCross and AutoTxnCount are TxnWeight,
	// TxnCross and TxnCount over the write operation instances, each an
	// autocommit write (a transaction of its own: README): they stand for
	// the transactions when the workload records none (a spec without
	// transactions, samples without --txns), so that a write every
	// shard takes (a reference table's) counts as the cross-shard commit
	// it is. A workload that records transactions has its autocommit
	// writes among them already (a log) or its operations are its
	// transactions' statements (a spec with transactions): these are
	// then not used (Scheme.Headline).
	AutoTxnWeight float64
	AutoTxnCross  float64
	AutoTxnCount  int64

	// Lookups holds one partial per lookup of the scheme (lookup.go), by
	// index; it grows as lookups are met.
	Lookups []LookupPartial
}

// OpPartial is the partial score of one operation.
type OpPartial struct {
	Requests float64 // requests/s
	// Merged is the rate (instances/s) of its reads that ride in another
	// table's route (touch.merged): not in Requests, their fan-out in
	// Hist all the same.
	Merged  float64
	Work    float64   // units of work/s
	Scatter float64   // requests/s that touch every shard
	Hist    []float64 // Hist[f]: requests/s of instances touching f shards, f in 0..N
	Count   int64     // instances
	// Lookup is the part of Work done on lookup tables (routing reads and
	// lookup-row writes), units/s.
	Lookup float64
	// Keyless is the part of Scatter (requests/s) that names no key
	// (Partial.WorkKeyless).
	Keyless float64
	// Unsized is the rate (requests/s) of its instances routed by values
	// known only at run time, their number too (tUniformN with n < 0: an
	// IN list bind variable, the rows an INSERT ... SELECT computes):
	// counted at every shard, their bound; no scatter.
	Unsized float64
	// NodeHist[k], when the scheme counts fan-out in nodes (slots on
	// nodes under an engine whose client addresses nodes:
	// Scheme.nodeFanout), is the requests/s of instances touching k
	// nodes, k in 0..nodes; nil otherwise.
	NodeHist []float64
	// Stmt is Hist counted per statement: requests/s by the shards the
	// statement asks. A multi-table SELECT is one request, at its first
	// table's read (shardkey.Instance.Parts), whose fan-out is the union
	// of its tables' shards; its other reads (touch.merged) are not in
	// it. nil while it equals Hist (no such statement seen).
	Stmt []float64
	// Riders counts the instances in Count that are merged (no request).
	Riders int64
	// Moves is the rate (requests/s) of its instances that assign the
	// table's key and move their row (move.go), each one more unit of
	// work (in Work); MoveCross the part of it expected to land on a
	// shard other than the old row's.
	Moves     float64
	MoveCross float64
}

// stmtHist returns o's per-statement histogram (OpPartial.Stmt).
func (o *OpPartial) stmtHist() []float64 {
	if o.Stmt != nil {
		return o.Stmt
	}
	return o.Hist
}

// addHist adds x to o's fan-out f of touch t: to Hist, and to Stmt
// unless t is merged (no request) or carries its statement's union.
func (o *OpPartial) addHist(f int, x float64, t *touch) {
	o.Hist[f] += x
	if o.Stmt != nil && !t.merged && t.union == nil {
		o.Stmt[f] += x
	}
}

// NewPartial returns an empty partial for n shards and ops operations.
func NewPartial(n, ops int) *Partial {
	p := &Partial{N: n, Load: make([]float64, n), Work: make([]float64, n), Ops: make([]OpPartial, ops)}
	for i := range p.Ops {
		p.Ops[i].Hist = make([]float64, n+1)
	}
	return p
}

// Merge adds q into p. Both must have the same N; p gains the operations
// q has beyond its own.
func (p *Partial) Merge(q *Partial) {
	p.mergeSums(q)
	p.growOps(len(q.Ops))
	for i := range q.Ops {
		p.Ops[i].merge(&q.Ops[i])
	}
}

// mergeOps adds q into p with q's operation i counted as p's operation
// ops[i] (a streamed batch's local operation numbers; see Stream).
func (p *Partial) mergeOps(q *Partial, ops []int) {
	p.mergeSums(q)
	for i := range q.Ops {
		p.growOps(ops[i] + 1)
		p.Ops[ops[i]].merge(&q.Ops[i])
	}
}

// mergeSums adds q's sums other than its operations into p.
func (p *Partial) mergeSums(q *Partial) {
	for i := range p.Load {
		p.Load[i] += q.Load[i]
		p.Work[i] += q.Work[i]
	}
	p.LoadUniform += q.LoadUniform
	p.Rows += q.Rows
	p.NullRows += q.NullRows
	p.WorkAll += q.WorkAll
	p.WorkUniform += q.WorkUniform
	p.WorkKeyless += q.WorkKeyless
	p.TxnWeight += q.TxnWeight
	p.TxnCross += q.TxnCross
	p.TxnCrossRequests += q.TxnCrossRequests
	p.TxnCount += q.TxnCount
	p.TxnUnbound += q.TxnUnbound
	p.TxnCrossLookup += q.TxnCrossLookup
	p.RolledBackWeight += q.RolledBackWeight
	p.RolledBackCross += q.RolledBackCross
	p.RolledBackCount += q.RolledBackCount
	p.AutoTxnWeight += q.AutoTxnWeight
	p.AutoTxnCross += q.AutoTxnCross
	p.AutoTxnCount += q.AutoTxnCount
	p.growLookups(len(q.Lookups))
	for i := range q.Lookups {
		p.Lookups[i].merge(&q.Lookups[i])
	}
}

func (a *OpPartial) merge(b *OpPartial) {
	a.Requests += b.Requests
	a.Merged += b.Merged
	a.Work += b.Work
	a.Scatter += b.Scatter
	a.Count += b.Count
	a.Lookup += b.Lookup
	a.Keyless += b.Keyless
	a.Unsized += b.Unsized
	a.Riders += b.Riders
	a.Moves += b.Moves
	a.MoveCross += b.MoveCross
	if a.Stmt != nil || b.Stmt != nil {
		if a.Stmt == nil {
			a.Stmt = slices.Clone(a.Hist)
		}
		for f, x := range b.stmtHist() {
			a.Stmt[f] += x
		}
	}
	for f := range a.Hist {
		a.Hist[f] += b.Hist[f]
	}
	if len(b.NodeHist) > 0 {
		if len(a.NodeHist) < len(b.NodeHist) {
			a.NodeHist = append(a.NodeHist, make([]float64, len(b.NodeHist)-len(a.NodeHist))...)
		}
		for k, x := range b.NodeHist {
			a.NodeHist[k] += x
		}
	}
}

// growOps makes room for n operations.
func (p *Partial) growOps(n int) {
	for len(p.Ops) < n {
		if len(p.Ops) < cap(p.Ops) { // a reset partial's cleared operation
			p.Ops = p.Ops[:len(p.Ops)+1]
			if o := &p.Ops[len(p.Ops)-1]; len(o.Hist) != p.N+1 {
				o.Hist = make([]float64, p.N+1)
			}
			continue
		}
		p.Ops = append(p.Ops, OpPartial{Hist: make([]float64, p.N+1)})
	}
}

// reset empties p for reuse, keeping its memory; it drops its operations.
func (p *Partial) reset() {
	clear(p.Load)
	clear(p.Work)
	p.LoadUniform, p.Rows, p.NullRows, p.WorkAll, p.WorkUniform, p.WorkKeyless = 0, 0, 0, 0, 0, 0
	p.TxnWeight, p.TxnCross, p.TxnCount, p.TxnUnbound = 0, 0, 0, 0
	p.TxnCrossLookup, p.TxnCrossRequests = 0, 0
	p.RolledBackWeight, p.RolledBackCross, p.RolledBackCount = 0, 0, 0
	p.AutoTxnWeight, p.AutoTxnCross, p.AutoTxnCount = 0, 0, 0
	p.Lookups = p.Lookups[:0]
	for i := range p.Ops {
		h, nh := p.Ops[i].Hist, p.Ops[i].NodeHist
		clear(h)
		clear(nh)
		p.Ops[i] = OpPartial{Hist: h, NodeHist: nh}
	}
	p.Ops = p.Ops[:0]
}

// addAutoTxn accounts one write operation instance of rate r that
// touched t as an autocommit transaction (AutoTxnWeight): cross-shard
// when it touches more than one shard (a reference table's write, on
// every shard; an update by an IN list over several shards).
func (p *Partial) addAutoTxn(t *touch, r float64) {
	p.AutoTxnWeight += r
	p.AutoTxnCount++
	multi := false
	switch t.kind {
	case tAll:
		multi = p.N > 1
	case tSet:
		multi = t.fanout(p.N) > 1
	case tUniformN:
		multi = p.N > 1 && (t.n < 0 || len(t.set)+t.n > 1)
	}
	switch {
	case multi:
		p.AutoTxnCross += r
	case t.mv != mvNone:
		// A key-changing update: a delete on the old shard and an
		// insert on the new one (move.go).
		p.AutoTxnCross += r * moveCross(t, p.N)
	}
}

// addTouch accounts one operation instance of rate r on op.
func (p *Partial) addTouch(op int, t *touch, r float64) {
	o := &p.Ops[op]
	if (t.merged || t.union != nil) && o.Stmt == nil {
		o.Stmt = slices.Clone(o.Hist)
	}
	if t.merged {
		o.Riders++
	}
	for f, x := range t.union {
		// The statement's fan-out: the union of its tables' shards.
		o.Stmt[f] += r * x
	}
	if t.mv != mvNone {
		p.addMove(o, t, r)
	}
	if t.kind == tUniformN {
		p.addUnknown(o, t, r)
		if len(t.lks) > 0 {
			p.addLookups(o, t, r) // a non-unique lookup without rows (viaLookups)
		}
		return
	}
	f := t.fanout(p.N)
	if t.merged {
		// One route with the other table's read, which counts the
		// request (vtgate sends the join as one query).
		o.Merged += r
	} else {
		o.Requests += r
	}
	o.Work += r * float64(f)
	o.addHist(f, r, t)
	o.Count++
	p.addShardWork(t, r)
	switch t.kind {
	case tSet:
		if len(t.set) == p.N {
			// A range (or IN list) that spans every shard is a
			// scatter-gather too: every shard is asked.
			o.Scatter += r
		}
	case tAll:
		o.Scatter += r
		if !t.keyed {
			p.WorkKeyless += r
			o.Keyless += r
		}
	}
	if t.vread {
		// The vindex-reading SELECT ... FOR UPDATE an UPDATE of an
		// owned lookup column is preceded by, on the same shards
		// (Update.updateVindexEntries, go/vt/vtgate/engine/update.go):
		// its work, not another request.
		o.Work += r * float64(f)
		p.addShardWork(t, r)
	}
	if len(t.lks) > 0 {
		// Shards a lookup named that the sample does not show: each one
		// shard at random.
		for i := range t.lks {
			p.WorkUniform += r * float64(t.lks[i].extra)
		}
		p.addLookups(o, t, r)
	}
}

// addShardWork adds r units/s of work on the shards touch t asks: one
// shard, each shard of a set, every shard (WorkAll), one shard at random
// (WorkUniform), or r spread evenly over a salted row's buckets.
func (p *Partial) addShardWork(t *touch, r float64) {
	switch t.kind {
	case tOne:
		p.Work[t.one] += r
	case tSet:
		for _, s := range t.set {
			p.Work[s] += r
		}
	case tAll:
		p.WorkAll += r
	case tUniform:
		p.WorkUniform += r
	case tUniformOf:
		share := r / float64(len(t.set))
		for _, s := range t.set {
			p.Work[s] += share
		}
	}
}

// addUnknown accounts a tUniformN instance: the shards of its known
// values (f of them) and, for each of its n unknown values, one drawn
// uniformly from the S shards. The shards asked number f + (S-f)(1 -
// (1-1/S)^n) on average (with f = 0, S(1-(1-1/S)^n): the expected number
// of occupied boxes when n balls fall uniformly into S); the histogram
// gets that count's exact distribution (occupancy). Each shard outside
// the known ones is asked with probability 1-(1-1/S)^n. A list of
// unknown length (n < 0) is counted at its bound, every shard; it is no
// scatter (the engine routes it by the key), so Scatter does not count it.
func (p *Partial) addUnknown(o *OpPartial, t *touch, r float64) {
	S := p.N
	f := len(t.set)
	if t.merged {
		o.Merged += r
	} else {
		o.Requests += r
	}
	o.Count++
	if t.n < 0 {
		o.Unsized += r
		o.Work += r * float64(S)
		o.addHist(S, r, t)
		p.WorkAll += r
		return
	}
	q := -math.Expm1(float64(t.n) * math.Log1p(-1/float64(S))) // 1-(1-1/S)^n
	if S == 1 {
		q = 1
		if t.n == 0 {
			q = 0
		}
	}
	o.Work += r * (float64(f) + float64(S-f)*q)
	dist := occupancy(S, f, t.n)
	for k, pk := range dist {
		o.addHist(k, r*pk, t)
	}
	if f == 0 {
		p.WorkUniform += r * float64(S) * q
		return
	}
	known := 0
	for s := 0; s < S; s++ {
		if known < f && t.set[known] == s {
			p.Work[s] += r
			known++
		} else {
			p.Work[s] += r * q
		}
	}
}

// occupancy returns the distribution of the number of distinct shards
// asked when f known ones are asked and n values each fall on a shard
// drawn uniformly from S: dist[k] is the probability of k, k = 0..min(S,
// f+n). The
// recurrence adds one value at a time: it lands on an asked shard with
// probability k/S, on a new one with (S-k)/S. Distributions are cached by
// (S, f, n); beyond maxOccupancyWork steps the mass is split between the
// two integers around the mean (the mean kept exact).
func occupancy(S, f, n int) []float64 {
	key := [3]int{S, f, n}
	if d, ok := occCache.Load(key); ok {
		return d.([]float64)
	}
	top := min(S, f+n)
	dist := make([]float64, top+1)
	if float64(n)*float64(top-f+1) > maxOccupancyWork {
		q := -math.Expm1(float64(n) * math.Log1p(-1/float64(S)))
		mean := float64(f) + float64(S-f)*q
		lo := int(math.Floor(mean))
		if lo >= top {
			dist[top] = 1
		} else {
			dist[lo] = float64(lo+1) - mean
			dist[lo+1] = mean - float64(lo)
		}
	} else {
		dist[f] = 1
		for i := 0; i < n; i++ {
			for k := min(top, f+i+1); k >= f; k-- {
				v := dist[k] * float64(k) / float64(S)
				if k > f {
					v += dist[k-1] * float64(S-k+1) / float64(S)
				}
				dist[k] = v
			}
		}
	}
	occCache.Store(key, dist)
	return dist
}

// maxOccupancyWork bounds the steps of one occupancy distribution.
const maxOccupancyWork = 1 << 22

// occCache holds occupancy distributions by (S, f, n).
var occCache sync.Map

// ShardWork returns per-shard units of work per second.
func (p *Partial) ShardWork() []float64 {
	out := make([]float64, p.N)
	u := p.WorkUniform / float64(p.N)
	for i := range out {
		out[i] = p.Work[i] + p.WorkAll + u
	}
	return out
}

// ShardLoad returns the per-shard sum of row weights.
func (p *Partial) ShardLoad() []float64 {
	out := make([]float64, p.N)
	u := p.LoadUniform / float64(p.N)
	for i := range out {
		out[i] = p.Load[i] + u
	}
	return out
}

// fanoutStats returns the rate-weighted mean fan-out and the p99 of a
// fan-out histogram with count instances. The p99 follows seed 000:
// the sorted fan-out at index k = floor(0.99 x (count-1)); with weighted
// instances it is the smallest f whose cumulative weight share reaches
// (k+1)/count, which is the same element when all weights are equal;
// with fewer than 100 instances, the smallest f whose cumulative weight
// share reaches 0.99.
func fanoutStats(hist []float64, count int64) (mean, p99 float64) {
	total, sum := 0.0, 0.0
	for f, w := range hist {
		total += w
		sum += w * float64(f)
	}
	if total <= 0 || count == 0 {
		return 0, 0
	}
	mean = sum / total
	k := math.Floor(0.99 * float64(count-1))
	need := (k + 1) * total / float64(count)
	if count < 100 {
		// Fewer than 100 instances (a spec's few queries with rates, a
		// log's rare shapes): floor(0.99(n-1)) is no 99th percentile (of
		// two it is the smaller), so the p99 is the smallest fan-out
		// whose cumulative rate share reaches 0.99.
		need = 0.99 * total
	}
	cum := 0.0
	for f, w := range hist {
		cum += w
		if cum >= need*(1-1e-12) && w > 0 || cum >= need*(1+1e-12) {
			return mean, float64(f)
		}
	}
	for f := len(hist) - 1; f >= 0; f-- {
		if hist[f] > 0 {
			return mean, float64(f)
		}
	}
	return mean, 0
}

// ratio returns max/mean of xs (mean over all entries, idle ones included),
// and max and mean; ratio is 0 when the mean is 0. The mean is the exact
// mean correctly rounded, as Python's statistics.mean computes it (seed
// 000), not a rounded running sum divided.
// MaxOverMean is ratio's max/mean of xs (0 when the mean is 0).
func MaxOverMean(xs []float64) float64 {
	r, _, _ := ratio(xs)
	return r
}

func ratio(xs []float64) (r, max, mean float64) {
	for _, x := range xs {
		if x > max {
			max = x
		}
	}
	if len(xs) == 0 {
		return 0, 0, 0
	}
	mean = exactMean(xs)
	if mean == 0 {
		return 0, max, mean
	}
	return max / mean, max, mean
}

// exactMean returns the mean of xs correctly rounded to float64: the sum
// is exact and is divided once. The exact sum is kept as Shewchuk's
// non-overlapping partials (J. R. Shewchuk, "Adaptive Precision
// Floating-Point Arithmetic and Fast Robust Geometric Predicates", 1997;
// Python's math.fsum, Modules/mathmodule.c): each value is added with
// error-free two-sums, a few float64 operations, and only the handful of
// partials left go through big.Float. A partial that overflows falls back
// to summing every value in big.Float (bigMean). 16,384 Redis Cluster
// slots took 2 ms a ratio in big.Float alone.
func exactMean(xs []float64) float64 {
	var buf [16]float64
	ps := buf[:0]
	for _, v := range xs {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			s := 0.0
			for _, y := range xs {
				s += y
			}
			return s / float64(len(xs))
		}
		x, i := v, 0
		for _, y := range ps {
			if math.Abs(x) < math.Abs(y) {
				x, y = y, x
			}
			hi := x + y
			lo := y - (hi - x)
			if lo != 0 {
				ps[i] = lo
				i++
			}
			x = hi
		}
		ps = append(ps[:i], x)
	}
	for _, p := range ps {
		if math.IsInf(p, 0) || math.IsNaN(p) {
			return bigMean(xs) // a two-sum overflowed: no longer exact
		}
	}
	return bigMean(ps, len(xs))
}

// bigMean returns the exact sum of xs (2,200 bits hold any sum of up to
// 2^64 finite float64s) divided by n (len(xs) when n is not given),
// correctly rounded to float64.
func bigMean(xs []float64, n ...int) float64 {
	count := len(xs)
	if len(n) > 0 {
		count = n[0]
	}
	sum := new(big.Float).SetPrec(2200)
	var x big.Float
	for _, v := range xs {
		sum.Add(sum, x.SetFloat64(v))
	}
	q := new(big.Float).SetPrec(53).Quo(sum, new(big.Float).SetInt64(int64(count)))
	f, _ := q.Float64()
	return f
}

// nodeTouch adds one operation instance of rate r on op to its node
// fan-out histogram (OpPartial.NodeHist) under m, the slots' placement
// on nodes: the number of distinct nodes holding the slots t asks. A
// single slot is one node, every slot is every node (each holds a slot),
// a set of slots the nodes holding them (seen is scratch of m.Count
// entries, stamped with stamp), plus one node for each shard a lookup
// named that the sample does not show, up to every node, as the slots
// count them. An instance with values the sample does not place
// (tUniformN) gets the occupancy distribution of its n unknown values
// over the nodes, taken as holding equal shares of the slots (exact for
// equal counts; contiguous placements differ by at most one slot a
// node), after the nodes of its known slots.
func (p *Partial) nodeTouch(op int, t *touch, r float64, m *Nodes, seen []uint32, stamp uint32) {
	o := &p.Ops[op]
	if len(o.NodeHist) != m.Count+1 {
		o.NodeHist = make([]float64, m.Count+1)
	}
	distinct := func() int {
		k := 0
		for _, s := range t.set {
			if n := m.Node[s]; seen[n] != stamp {
				seen[n] = stamp
				k++
			}
		}
		return k
	}
	switch t.kind {
	case tUniformN:
		if t.n < 0 {
			o.NodeHist[m.Count] += r
			return
		}
		for k, pk := range occupancy(m.Count, distinct(), t.n) {
			o.NodeHist[k] += r * pk
		}
		return
	case tAll:
		o.NodeHist[m.Count] += r
	case tSet:
		k := distinct()
		for i := range t.lks {
			k += t.lks[i].extra
		}
		o.NodeHist[min(k, m.Count)] += r
	default:
		o.NodeHist[1] += r
	}
}
