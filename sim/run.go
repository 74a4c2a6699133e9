package sim

import (
	"runtime"
	"slices"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// Run routes the whole workload under s and returns the merged partial
// score. Rows, operation instances and transactions are split into chunks
// scored in parallel by up to workers goroutines (<= 0: GOMAXPROCS), each
// into its own Partial, merged at the end. A key the engine cannot place
// (partition.ErrNoDestination) fails the run with the table and row.
func Run(w *shardkey.Workload, s *Scheme, workers int) (*Partial, error) {
	return run(w, s, workers, true, true, true)
}

// RunWork is Run for the work alone: it routes the operation instances,
// not the row samples (whose only figure is the load, Partial.Load) nor
// the transactions (the cross-shard fractions), so the partial's work
// (ShardWork, the operations' sums) is Run's, bit for bit, and its load
// and transaction figures are zero. It is for a search over shard counts
// that reads only the busiest shard's work (the advisor's fewest shards
// that fit), at about half Run's cost on the workspace scenario.
func RunWork(w *shardkey.Workload, s *Scheme, workers int) (*Partial, error) {
	return run(w, s, workers, false, true, false)
}

// run is Run over the row samples (rows), the operation instances (rest)
// and the transactions (withTxns); without rest and withTxns it does not read
// w.Ops or w.Txns, which a reader may still be adding to.
func run(w *shardkey.Workload, s *Scheme, workers int, rows, rest, withTxns bool) (*Partial, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type job struct {
		kind   int // 0 rows, 1 op instances, 2 txns
		idx    int // table or op index
		lo, hi int
	}
	const chunk = 1 << 16
	var jobs []job
	if rows {
		s.fillMemos()
		for ti, t := range w.Tables {
			for lo := 0; lo < t.Rows; lo += chunk {
				jobs = append(jobs, job{0, ti, lo, min(lo+chunk, t.Rows)})
			}
		}
	}
	var ops []*shardkey.Operation
	var txns []shardkey.Txn
	if rest {
		ops = w.Ops
	}
	if withTxns {
		txns = w.Txns
	}
	for oi, op := range ops {
		for lo := 0; lo < len(op.Instances); lo += chunk {
			jobs = append(jobs, job{1, oi, lo, min(lo+chunk, len(op.Instances))})
		}
	}
	for lo := 0; lo < len(txns); lo += chunk / 4 {
		jobs = append(jobs, job{2, 0, lo, min(lo+chunk/4, len(txns))})
	}
	// Rows are routed in parallel into a shard id per row; their weights
	// are then added in file order, so each shard's load is the same sum,
	// bit for bit, as a sequential pass (seed 000's score()).
	// Every row's id is written by its job, so the arrays are taken from
	// idsPool (score runs each candidate's rows in turn: fresh arrays
	// would each be page faults, 8 MB for seed 000's 2 M rows).
	ids := make([][]int32, len(w.Tables))
	if rows {
		for ti, t := range w.Tables {
			ids[ti] = getIDs(t.Rows)
		}
		defer func() {
			for _, s := range ids {
				putIDs(s)
			}
		}()
	}
	opW := make([]float64, len(ops))
	for i, op := range ops {
		for _, in := range op.Instances {
			opW[i] += in.Weight
		}
	}
	// Each job writes its own partial; merging in job order keeps the
	// result independent of scheduling.
	parts := make([]*Partial, len(jobs))
	errs := make([]error, len(jobs))
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := 0; g < workers && g < len(jobs); g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := newRouter(s)
			for {
				mu.Lock()
				j := next
				next++
				mu.Unlock()
				if j >= len(jobs) {
					return
				}
				jb := jobs[j]
				// A job's partial holds the one operation it routes, as
				// its operation 0 (a partial of every operation per job
				// took memory quadratic in their number).
				var p *Partial
				switch jb.kind {
				case 0:
					p = NewPartial(s.N, 0)
					errs[j] = r.rows(p, w.Tables[jb.idx], jb.idx, jb.lo, jb.hi, ids[jb.idx])
				case 1:
					p = NewPartial(s.N, 1)
					errs[j] = r.instances(p, ops[jb.idx], 0, opW[jb.idx], jb.lo, jb.hi)
				case 2:
					p = NewPartial(s.N, 0)
					errs[j] = r.txns(p, txns[jb.lo:jb.hi])
				}
				parts[j] = p
			}
		}()
	}
	wg.Wait()
	total := NewPartial(s.N, len(ops))
	for j, p := range parts {
		if errs[j] != nil {
			return nil, errs[j]
		}
		if jobs[j].kind == 1 {
			total.mergeOps(p, []int{jobs[j].idx})
		} else {
			total.Merge(p)
		}
	}
	for ti, t := range w.Tables {
		for i, id := range ids[ti] {
			if id >= 0 {
				total.Load[id] += t.Weight(i)
			}
		}
	}
	return total, nil
}

// idsPool holds run's arrays of shard ids for reuse.
var idsPool freeList[[]int32]

// getIDs returns an array of n ids, reused or new; its contents are
// whatever they were.
func getIDs(n int) []int32 {
	if s, ok := idsPool.get(); ok && cap(s) >= n {
		return s[:n]
	}
	return make([]int32, n)
}

// putIDs gives s back for reuse.
func putIDs(s []int32) {
	if cap(s) > 0 {
		idsPool.put(s)
	}
}

// freeList keeps values for reuse, like a sync.Pool that the garbage
// collector does not empty and whose values any goroutine gets back
// (a sync.Pool's value put on one processor is not seen from another
// until a collection, and score runs without one). It keeps at most
// freeListMax values, so a long-lived process holds a bounded amount.
type freeList[T any] struct {
	mu   sync.Mutex
	free []T
}

// freeListMax bounds the values a freeList keeps.
const freeListMax = 4

// get returns a value put earlier, or false.
func (l *freeList[T]) get() (T, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var v T
	if n := len(l.free); n > 0 {
		v = l.free[n-1]
		l.free[n-1] = *new(T)
		l.free = l.free[:n-1]
		return v, true
	}
	return v, false
}

// put keeps v for a later get, unless freeListMax values are kept
// already.
func (l *freeList[T]) put(v T) {
	l.mu.Lock()
	if len(l.free) < freeListMax {
		l.free = append(l.free, v)
	}
	l.mu.Unlock()
}

// rows routes rows lo..hi-1 of table ti: a row on one shard gets that
// shard in ids (its weight is added in file order by Run); a row spread
// over several shards (replicated, salted) gets -1 and its weight goes into
// p.
func (r *router) rows(p *Partial, t *shardkey.Table, ti, lo, hi int, ids []int32) error {
	tk := r.s.tables[ti]
	p.Rows += int64(hi - lo)
	if tk.kind == kHash && tk.fast != nil && tk.salted == nil && tk.iso == nil && tk.modN > 0 && t.Columns[tk.cols[0]].Nulls == nil {
		routeIDsInt64(tk.fast, t.Columns[tk.cols[0]].Ints[lo:hi], tk.modN, ids[lo:hi])
		return nil
	}
	if m, ok := tk.eng.(*memoEngine); ok && tk.kind == kHash && tk.salted == nil && tk.iso == nil && tk.modN > 0 {
		// A costly engine: by the rows' codes, one point per distinct key.
		if cap(r.key) < len(tk.cols) {
			r.key = make([]shardkey.Value, len(tk.cols))
		}
		return m.rows(t, tk.cols, lo, hi, tk.modN, ids, r.key[:len(tk.cols)])
	}
	if tk.intCol && (tk.kind == kHash || tk.kind == kRange) {
		return r.rowsInt(p, tk, t, lo, hi, ids)
	}
	if tk.kind == kHash && tk.canon != nil && tk.salted == nil && tk.iso == nil && tk.modN > 0 {
		// A compound (or non-integer) hash key under an engine that
		// hashes the canonical encoding: encode each row from its
		// columns, no values built, no error possible.
		buf := r.buf[:0]
		if n := tk.modN; n&(n-1) == 0 { // p % n is p & (n-1)
			for i := lo; i < hi; i++ {
				buf = partition.AppendCanonicalRow(buf[:0], tk.keyCol, i)
				ids[i] = int32(tk.canon.PointCanonical(buf) & (n - 1))
			}
		} else {
			for i := lo; i < hi; i++ {
				buf = partition.AppendCanonicalRow(buf[:0], tk.keyCol, i)
				ids[i] = int32(tk.canon.PointCanonical(buf) % n)
			}
		}
		r.buf = buf
		return nil
	}
	defer func() { p.NullRows += r.nullRows; r.nullRows = 0 }()
	for i := lo; i < hi; i++ {
		tc, err := r.row(tk, t, i)
		if err != nil {
			return shardkey.Errorf("", 0, t.Name, "row %d: %v", i+1, err)
		}
		wt := t.Weight(i)
		ids[i] = -1
		switch tc.kind {
		case tOne:
			ids[i] = int32(tc.one)
		case tUniform:
			p.LoadUniform += wt
		case tUniformOf:
			share := wt / float64(len(tc.set))
			for _, s := range tc.set {
				p.Load[s] += share
			}
		}
	}
	return nil
}

// rowsInt routes rows of a single integer key column: isolated and salted
// values from int64 maps, range keys by binary search over int64 bounds.
func (r *router) rowsInt(p *Partial, tk *tableKey, t *shardkey.Table, lo, hi int, ids []int32) error {
	ints := t.Columns[tk.cols[0]].Ints
	typ := t.Columns[tk.cols[0]].Type
	var one [1]shardkey.Value
	for i := lo; i < hi; i++ {
		v := ints[i]
		wt := t.Weight(i)
		if sh, ok := tk.isoInt[v]; ok {
			if tk.saltBy >= 0 && tk.saltedInt[v] { // isolate split=: its K shards
				sh = r.byShardInt(tk, v, typ, sh, t.Columns[tk.saltBy].Value(i))
			}
			ids[i] = int32(sh)
			continue
		}
		var home int
		if tk.kind == kRange {
			b := tk.intBounds
			lo, hi := 0, len(b)
			for lo < hi { // number of bounds <= v
				m := int(uint(lo+hi) >> 1)
				if b[m] <= v {
					lo = m + 1
				} else {
					hi = m
				}
			}
			home = lo
		} else {
			var pt uint64
			if tk.fast != nil {
				pt = tk.fast.PointInt64(v)
			} else {
				one[0] = shardkey.Value{Type: typ, Int: v}
				var err error
				if pt, err = tk.eng.Point(one[:]); err != nil {
					return shardkey.Errorf("", 0, t.Name, "row %d: %v", i+1, err)
				}
			}
			if tk.modN > 0 {
				home = int(pt % tk.modN)
			} else {
				home = tk.layout.Shard(pt)
			}
		}
		if tk.saltedInt[v] {
			if tk.saltBy >= 0 {
				ids[i] = int32(r.byShardInt(tk, v, typ, home, t.Columns[tk.saltBy].Value(i)))
				continue
			}
			ids[i] = -1
			sh, ok := tk.bshardInt[v]
			if !ok {
				one[0] = shardkey.Value{Type: typ, Int: v}
				sh = r.bucketsOf(tk, one[:], home)
			}
			share := wt / float64(len(sh))
			for _, s := range sh {
				p.Load[s] += share
			}
			continue
		}
		ids[i] = int32(home)
	}
	return nil
}

// routeIDsInt64 writes the shard of each key (one Int64 column under a
// modulo layout of n shards) into ids: the allocation-free inner loop.
// Generic is called directly so the compiler can inline its hash.
func routeIDsInt64(e partition.Int64Pointer, keys []int64, n uint64, ids []int32) {
	ids = ids[:len(keys)]
	if _, ok := e.(partition.Generic); ok {
		if n&(n-1) == 0 { // a power of two: p % n is p & (n-1), without a division
			for i, k := range keys {
				ids[i] = int32(partition.Generic{}.PointInt64(k) & (n - 1))
			}
			return
		}
		for i, k := range keys {
			ids[i] = int32(partition.Generic{}.PointInt64(k) % n)
		}
		return
	}
	for i, k := range keys {
		ids[i] = int32(e.PointInt64(k) % n)
	}
}

// RouteInt64 writes the shard of each key (one Int64 column, hashed by e
// and placed by l) into out, which must be as long as keys. It does not
// allocate; it is the routing kernel the benchmarks measure.
func RouteInt64(e partition.Int64Pointer, l partition.Layout, keys []int64, out []int32) {
	out = out[:len(keys)]
	if m, ok := l.(partition.Modulo); ok {
		routeIDsInt64(e, keys, uint64(m.Shards()), out)
		return
	}
	for i, k := range keys {
		out[i] = int32(l.Shard(e.PointInt64(k)))
	}
}

// instances accounts instances lo..hi-1 of operation oi into p.
func (r *router) instances(p *Partial, op *shardkey.Operation, oi int, sumW float64, lo, hi int) error {
	if sumW == 0 {
		return nil
	}
	scale := op.Rate / sumW
	// A Vitess vindex hint leaves the conditions on the vindexes it
	// excludes unused, as in explain (Scheme.hinted).
	hinted := len(op.UseVindex) > 0 || len(op.IgnoreVindex) > 0
	for i := lo; i < hi; i++ {
		in := &op.Instances[i]
		conds := in.Conds
		if hinted {
			conds, _, _ = r.s.hinted(Access{Table: op.Table, Kind: op.Kind, UseVindex: op.UseVindex, IgnoreVindex: op.IgnoreVindex}, conds)
		}
		var tc touch
		ok := false
		var err error
		if len(in.Peers) > 0 && op.Kind == shardkey.Read && !hinted {
			// Routed with a joined table's lookup (merge.go).
			tc, _, _, ok, err = r.lookupMerged(op.Table, conds, in.Peers)
			// Without the statement's parts (a workload built by
			// hand), the read merged into the other's route is the
			// one that is no request.
			tc.merged = ok && !in.Rider && len(in.Parts) == 0
		}
		if !ok && err == nil {
			tc, err = r.stmt(op.Table, op.Kind, conds, in.Sets)
		}
		if err == nil {
			switch {
			case in.Rider && (op.Kind == shardkey.Read || op.Kind == shardkey.Insert):
				// Another table's access of the statement, or a
				// multi-row INSERT's row after its first, counts its
				// request (join.go).
				tc.merged = true
			case len(in.Parts) > 0:
				// A SELECT's first read, or the write of a statement
				// that reads other tables (INSERT ... SELECT).
				tc.union, err = r.union(&tc, in.Parts)
			}
		}
		if err != nil {
			return shardkey.Errorf("", 0, op.Name, "instance %d: %v", i+1, err)
		}
		r.addTouch(p, oi, &tc, in.Weight*scale)
		if op.Kind.IsWrite() && !tc.merged {
			p.addAutoTxn(&tc, in.Weight*scale)
		}
	}
	return nil
}

// txns accounts transactions into p.
func (r *router) txns(p *Partial, txns []shardkey.Txn) error {
	for i := range txns {
		if err := r.txn(p, &txns[i]); err != nil {
			return err
		}
	}
	return nil
}

// txn accounts one transaction into p: its weight, and its weight times
// the probability that it crosses shards (and the part of that due to
// lookup rows). A rolled-back transaction goes into the sums of its own
// (Partial.RolledBackWeight).
func (r *router) txn(p *Partial, tx *shardkey.Txn) error {
	r.sawLookup = false
	single, err := r.singleProb(tx, true)
	if err != nil {
		return shardkey.Errorf("", 0, tx.Name, "transaction: %v", err)
	}
	if tx.RolledBack {
		p.RolledBackWeight += tx.Weight
		p.RolledBackCross += tx.Weight * (1 - single)
		p.RolledBackCount++
		r.unbound = 0
		return nil
	}
	p.TxnWeight += tx.Weight
	p.TxnCross += tx.Weight * (1 - single)
	p.TxnCount++
	p.TxnCrossRequests += tx.Weight * (1 - single) * float64(tx.Requests())
	if r.sawLookup {
		unbound := r.unbound
		base, err := r.singleProb(tx, false)
		if err != nil {
			return shardkey.Errorf("", 0, tx.Name, "transaction: %v", err)
		}
		r.unbound = unbound
		p.TxnCrossLookup += tx.Weight * (base - single)
	}
	p.TxnUnbound += r.unbound
	r.unbound = 0
	return nil
}

// sameStmt reports whether a and b are one statement repeated: the same
// table and kind over the same conditions (one slice, as a reader that
// reads a repeated write once hands them out).
func sameStmt(a, b *shardkey.Stmt) bool {
	return a.Table == b.Table && a.Kind == b.Kind && len(a.Conds) == len(b.Conds) &&
		len(a.Conds) > 0 && &a.Conds[0] == &b.Conds[0]
}

// singleProb returns the probability that all statements of tx land on one
// shard. Concrete placements decide it outright; a fresh hashed value is a
// shard drawn uniformly (the same draw wherever the same new value is
// used); a salted insert draws one of its buckets. With lookups, the
// shards of the lookups' reads and writes in the transaction's session
// (every lookup but a consistent one) count too; r.sawLookup is set when
// there are such shards.
func (r *router) singleProb(tx *shardkey.Txn, lookups bool) (float64, error) {
	n := r.s.N
	var conc [4]int
	concrete := conc[:0]
	addC := func(s int) {
		for _, c := range concrete {
			if c == s {
				return
			}
		}
		concrete = append(concrete, s)
	}
	type rv struct {
		key string
		set []int // nil: all shards
	}
	var vars []rv
	settled := false // the previous statement's shards are known and added
	for si := range tx.Stmts {
		st := &tx.Stmts[si]
		if settled && sameStmt(st, &tx.Stmts[si-1]) {
			continue // the same write again lands where it did
		}
		conds := st.Conds
		hinted := len(st.UseVindex) > 0 || len(st.IgnoreVindex) > 0
		if !hinted {
			if sh, ok := r.plainShard(st.Table, st.Kind, conds, st.Sets); ok {
				// One shard, by the key alone (stmt's tOne without
				// lookups, move or union): as the tOne case below.
				settled = true
				addC(sh)
				if len(concrete) > 1 {
					return 0, nil
				}
				continue
			}
		}
		if hinted {
			conds, _, _ = r.s.hinted(Access{Table: st.Table, Kind: st.Kind, UseVindex: st.UseVindex, IgnoreVindex: st.IgnoreVindex}, conds) // see instances
		}
		tc, err := r.stmt(st.Table, st.Kind, conds, st.Sets)
		if err != nil {
			return 0, err
		}
		settled = tc.kind == tOne || tc.kind == tSet || tc.kind == tUniform && tc.local
		for i := range tc.lks {
			lt := &tc.lks[i]
			settled = false
			for k := 0; k < lt.extra; k++ {
				// A row a lookup names that the sample does not show:
				// one shard at random.
				vars = append(vars, rv{})
			}
			if lt.lk.spec.Consistent {
				continue // its own session, committed before or after
			}
			r.sawLookup = true
			if !lookups {
				continue
			}
			for _, s := range lt.shards {
				addC(s)
			}
			for k := 0; k < lt.uni; k++ {
				vars = append(vars, rv{})
			}
		}
		switch tc.mv {
		case mvOne: // a key-changing update's new row (move.go)
			addC(tc.mvOne)
		case mvAny:
			vars = append(vars, rv{})
		}
		switch tc.kind {
		case tOne:
			addC(tc.one)
		case tSet:
			for _, s := range tc.set {
				addC(s)
			}
		case tAll:
			if n > 1 {
				return 0, nil
			}
			addC(0)
		case tUniform:
			if tc.local {
				continue // a reference table's read is local to any shard
			}
			if tc.unbound {
				r.unbound++
			}
			dup := false
			if tc.varKey != "" {
				for _, v := range vars {
					if v.key == tc.varKey {
						dup = true
						break
					}
				}
			}
			if !dup {
				vars = append(vars, rv{key: tc.varKey})
			}
		case tUniformOf:
			dup := false
			if tc.varKey != "" { // the same new hashed value: the same chunk
				for _, v := range vars {
					if v.set != nil && v.key == tc.varKey {
						dup = true
						break
					}
				}
			}
			if !dup {
				vars = append(vars, rv{key: tc.varKey, set: append([]int(nil), tc.set...)})
			}
		case tUniformN:
			// Its known values' shards, and each unknown value a shard
			// of its own drawn uniformly (beyond 64 of them, one shard
			// for all is below 2^-63: as good as none).
			if tc.n < 0 && n > 1 {
				return 0, nil
			}
			for _, s := range tc.set {
				addC(s)
			}
			for range min(tc.n, 64) {
				vars = append(vars, rv{})
			}
		}
		if len(concrete) > 1 {
			return 0, nil
		}
	}
	if len(vars) == 0 {
		return 1, nil
	}
	prob := func(s int) float64 {
		p := 1.0
		for _, v := range vars {
			if v.set == nil {
				p /= float64(n)
				continue
			}
			in := false
			for _, x := range v.set {
				if x == s {
					in = true
					break
				}
			}
			if !in {
				return 0
			}
			p /= float64(len(v.set))
		}
		return p
	}
	if len(concrete) == 1 {
		return prob(concrete[0]), nil
	}
	// The sum over every shard s of prob(s), in increasing s. A shard
	// outside a drawn set adds 0, which leaves the sum as it is, so only
	// the first set's shards are visited (16,384 Redis slots a
	// transaction otherwise). Without sets every shard has the same p:
	// n additions of it, and when n is a power of two p is one too (or
	// 0), so n*p is that sum exactly.
	var first []int
	for _, v := range vars {
		if v.set != nil {
			first = v.set
			break
		}
	}
	total := 0.0
	if first == nil {
		p := prob(0)
		if n&(n-1) == 0 {
			return float64(n) * p, nil
		}
		for s := 0; s < n; s++ {
			total += p
		}
		return total, nil
	}
	// Every shard in all the sets has the same probability, the product
	// of 1/|set| over the sets and 1/n over the rest: the sum is their
	// count over that product's inverse, exactly 1 when every draw lands
	// on one shard's set of one (a sum of K terms 1/K is not 1 in
	// floating point for K = 14, and read as a cross-shard share of
	// 6e-17).
	cand := slices.Clone(first)
	slices.Sort(cand)
	count := 0
	for i, s := range cand {
		if s >= 0 && s < n && (i == 0 || s != cand[i-1]) && prob(s) > 0 {
			count++
		}
	}
	if count == 0 {
		return 0, nil
	}
	den := 1.0
	for _, v := range vars {
		if v.set == nil {
			den *= float64(n)
		} else {
			den *= float64(len(v.set))
		}
	}
	return float64(count) / den, nil
}

// keyHash hashes a key tuple for distinct counting.
func keyHash(buf []byte, key []shardkey.Value) ([]byte, uint64) {
	buf = keyString(buf[:0], key)
	return buf, xxhash.Sum64(buf)
}
