package sim

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/kmv"
)

// KeyStats are the characteristics of one table's key columns over its row
// sample, independent of the partition function.
type KeyStats struct {
	Table string `json:"table"`
	// Columns are the key columns.
	Columns []string `json:"columns"`
	// Rows is the number of sample rows; 0 means no row was sampled (a
	// workload read from a log or statements only), so the table's row
	// count is unknown: null in JSON (TableKey.MarshalJSON), "unknown" in
	// text, never a table of 0 rows.
	Rows int `json:"rows"`
	// Cardinality is the number of distinct key values in the sample.
	Cardinality int `json:"cardinality"`
	// TopValues are the heaviest key values with their share (0..1) of the
	// table's row weight, heaviest first (at most 10).
	TopValues []TopValue `json:"top_values"`
	// MoreValues are the values ranked after TopValues, heaviest first,
	// up to RankedValues in all: the advisor's fixes for values over a
	// shard's capacity look past the ten a report lists (a workload
	// with ten whales has an eleventh). Not in JSON; empty when the
	// figures came from the database (its top list is TopValues).
	MoreValues []TopValue `json:"-"`
	// Monotonicity is Spearman's rank correlation (-1..1) of key order
	// with insert (row) order; |r| >= 0.7 is reported as monotonic, the
	// threshold MongoDB's shard-key analyzer uses.
	Monotonicity float64 `json:"monotonicity"`
	Monotonic    bool    `json:"monotonic"`
	// Entropy is the Shannon entropy of the key's weight distribution in
	// bits; log2(Cardinality) for equal weights. Past the values counted
	// one by one (traffic basis, past 65,536 distinct values) it is an
	// estimate, EntropyEstimated true: see tailEntropy.
	Entropy float64 `json:"entropy"`
	// Basis is "traffic" when the figures come from the values the
	// statements bind (a table without a row sample: shares of requests,
	// not of rows); empty for the row sample. Estimated reports that
	// Cardinality is a sketch's estimate (past 65,536 distinct values),
	// EntropyEstimated that Entropy is (the same values' share spread
	// evenly over the sketch's estimate of them: tailEntropy).
	Basis            string `json:"basis,omitempty"`
	Estimated        bool   `json:"cardinality_estimated,omitempty"`
	EntropyEstimated bool   `json:"entropy_estimated,omitempty"`
	// MonotonicityUnknown reports that nothing orders the values (traffic
	// basis with fewer than 3 inserted values): Monotonicity is then 0
	// and means "unknown".
	MonotonicityUnknown bool `json:"monotonicity_unknown,omitempty"`
	// Inserted is, on the traffic basis, the number of inserted values
	// Monotonicity ranks (the sampled inserts that bind the key with a
	// value; 0 on the row sample): how much insert order the figure
	// rests on.
	Inserted int `json:"-"`
	// Named is, on the traffic basis, the number of statements that bind
	// the key to a value (each once, whatever its weight: a log's counted
	// statements, the operations' sampled instances, the transactions'
	// statements): how many observations TopValues' shares rest on. The
	// row sample's are its Rows.
	Named int `json:"-"`
	// Database, when set, holds the figures computed inside the live
	// database (--from, --stats db), which replace the sample's
	// Cardinality, TopValues and Monotonicity above (it says which).
	Database *DatabaseStats `json:"database,omitempty"`
}

// clone returns ks with its own Columns and TopValues (a Cache's result
// handed to several candidates).
func (ks KeyStats) clone() KeyStats {
	ks.Columns = slices.Clone(ks.Columns)
	ks.TopValues = slices.Clone(ks.TopValues)
	ks.MoreValues = slices.Clone(ks.MoreValues)
	return ks
}

// Unknown reports that nothing measured the key's values: no row
// sampled, no statement binding the key to a value and no figure from the
// database. Its cardinality, top values, entropy and monotonicity are then
// unknown (null in JSON), not 0.
func (ks KeyStats) Unknown() bool {
	return ks.Rows == 0 && ks.Cardinality == 0 && ks.Database == nil
}

// TopValue is one heavy key value.
type TopValue struct {
	Value string  `json:"value"`
	Share float64 `json:"share"`
}

// monotonicSample bounds the rows used for the rank correlation.
const monotonicSample = 100000

// ComputeKeyStats returns the key characteristics of columns cols of t.
func ComputeKeyStats(t *shardkey.Table, cols []int) KeyStats {
	ks := KeyStats{Table: t.Name, Rows: t.Rows}
	for _, c := range cols {
		ks.Columns = append(ks.Columns, t.Columns[c].Name)
	}
	if t.Rows == 0 || len(cols) == 0 {
		return ks
	}
	// Row weights, or none when every weight is 0 (then rows are counted).
	ws := t.Weights
	if ws != nil && !slices.ContainsFunc(ws[:t.Rows], func(w float64) bool { return w > 0 }) {
		ws = nil
	}
	total := 0.0
	if ws == nil {
		total = float64(t.Rows)
	} else {
		for _, w := range ws[:t.Rows] {
			total += w
		}
	}
	// Distinct values in order of first appearance, with their weights
	// summed in row order.
	var aggs []group
	own := false
	if c := t.Columns[cols[0]]; len(cols) == 1 && c.Nulls == nil && c.Ints != nil && len(c.Ints) == t.Rows {
		// One integer column: the value itself, or its dense codes, which
		// compound keys over the column share.
		if rising(c.Ints) {
			own = true // each row its own group: walked below, not built
		} else if d := intCodes(t, cols[0]); d.codes != nil {
			aggs = groupCodes(d, ws)
		} else {
			aggs = groupInts(c.Ints, ws)
		}
	} else if gs, ok := groupTuples(t, cols, ws); ok {
		aggs = gs
	} else {
		keys := make([]uint64, t.Rows)
		key := make([]shardkey.Value, len(cols))
		var buf []byte
		for i := range keys {
			for j, c := range cols {
				key[j] = t.Columns[c].Value(i)
			}
			buf, keys[i] = keyHash(buf, key)
		}
		aggs = groupKeys(keys, ws)
	}
	key := make([]shardkey.Value, len(cols))
	// Entropy in one pass over the values in order, two at a time
	// (entropyPair); the top RankedValues by partial selection (heaviest first,
	// ties by first row), not a sort of every distinct value.
	if total > 0 {
		switch {
		case own && ws != nil:
			ws := ws[:t.Rows]
			i := 0
			for ; i+1 < len(ws); i += 2 {
				ks.Entropy = entropyPair(ks.Entropy, ws[i], ws[i+1], total)
			}
			if i < len(ws) {
				ks.Entropy = entropyOne(ks.Entropy, ws[i], total)
			}
		case own:
			// Every row weighs 1: the same logarithm each time.
			if p := 1 / total; p > 0 {
				l := math.Log2(p)
				for range t.Rows {
					ks.Entropy -= p * l
				}
			}
		default:
			i := 0
			for ; i+1 < len(aggs); i += 2 {
				ks.Entropy = entropyPair(ks.Entropy, aggs[i].w, aggs[i+1].w, total)
			}
			if i < len(aggs) {
				ks.Entropy = entropyOne(ks.Entropy, aggs[i].w, total)
			}
		}
	}
	var top []group
	visit := func(a group) {
		if len(top) < RankedValues || heavier(a.w, a.row, top[len(top)-1].w, top[len(top)-1].row) {
			pos := sort.Search(len(top), func(j int) bool { return heavier(a.w, a.row, top[j].w, top[j].row) })
			top = append(top, group{})
			copy(top[pos+1:], top[pos:])
			top[pos] = a
			if len(top) > RankedValues {
				top = top[:RankedValues]
			}
		}
	}
	if own {
		// ownGroups' groups, in the same order, without their memory
		// (16 bytes a row).
		ks.Cardinality = t.Rows
		for i := range t.Rows {
			visit(group{w: rowWeight(ws, i), row: int32(i)})
		}
	} else {
		ks.Cardinality = len(aggs)
		for _, a := range aggs {
			visit(a)
		}
	}
	for _, a := range top {
		for j, c := range cols {
			key[j] = t.Columns[c].Value(int(a.row))
		}
		ks.TopValues = append(ks.TopValues, TopValue{Value: tupleText(key), Share: a.w / total})
	}
	ks.splitRanked()
	ks.Monotonicity = spearman(t, cols)
	ks.Monotonic = math.Abs(ks.Monotonicity) >= 0.7
	if ks.Entropy < 0 {
		ks.Entropy = 0
	}
	return ks
}

// heavier orders heavy values first, then by first row.
func heavier(w1 float64, r1 int32, w2 float64, r2 int32) bool {
	if w1 != w2 {
		return w1 > w2
	}
	return r1 < r2
}

func tupleText(key []shardkey.Value) string {
	if len(key) == 1 {
		return key[0].String()
	}
	b := []byte{'('}
	for i, v := range key {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = v.AppendText(b)
	}
	return string(append(b, ')'))
}

// spearman returns the rank correlation of the key tuple with row order
// over at most monotonicSample evenly spaced rows (ties get mean ranks).
func spearman(t *shardkey.Table, cols []int) float64 {
	n := t.Rows
	step := 1
	if n > monotonicSample {
		step = (n + monotonicSample - 1) / monotonicSample
	}
	// The sample's arrays are reused between calls (score computes
	// each candidate's statistics in turn): fresh memory for each
	// would be page faults, several MB a key.
	sc, ok := spearmanPool.get()
	if !ok {
		sc = new(spearmanScratch)
	}
	defer spearmanPool.put(sc)
	idx := sc.idx[:0]
	for i := 0; i < n; i += step {
		idx = append(idx, i)
	}
	sc.idx = idx
	m := len(idx)
	if m < 3 {
		return 0
	}
	order := regrown(&sc.order, m)
	for i := range order {
		order[i] = i
	}
	rank := regrown(&sc.rank, m)
	// Keys that order as unsigned integers are ranked by a radix sort.
	var ukeys []uint64
	if c := t.Columns[cols[0]]; len(cols) == 1 && c.Ints != nil && c.Nulls == nil && len(c.Ints) == n {
		ukeys = regrown(&sc.ukeys, m)
		for i, r := range idx {
			ukeys[i] = uint64(c.Ints[r])
			if c.Type != shardkey.Uint64 {
				ukeys[i] ^= 1 << 63 // signed order
			}
		}
	} else if packed, ok := packKeys(t, cols, idx); ok { // order-preserving
		ukeys = packed
	}
	if ukeys != nil {
		ps := regrown(&sc.ps, m)
		for i, k := range ukeys {
			ps[i] = rankPair{k, int32(i)}
		}
		ps = radixSortBuf(ps, regrown(&sc.buf, m), func(p *rankPair) uint64 { return p.k })
		for x, p := range ps {
			order[x] = int(p.i)
		}
		assignRanks(rank, order, func(a, b int) bool { return ukeys[a] == ukeys[b] })
		return pearsonRank(rank)
	}
	keys := make([][]shardkey.Value, m)
	for i, r := range idx {
		k := make([]shardkey.Value, len(cols))
		for j, c := range cols {
			k[j] = t.Columns[c].Value(r).Canonical()
		}
		keys[i] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return cmpTuple(keys[order[a]], keys[order[b]]) < 0 })
	assignRanks(rank, order, func(a, b int) bool { return cmpTuple(keys[a], keys[b]) == 0 })
	return pearsonRank(rank)
}

// rankPair is a sampled key and its position, as spearman sorts them.
type rankPair struct {
	k uint64
	i int32
}

// spearmanScratch holds spearman's arrays between calls.
type spearmanScratch struct {
	idx, order []int
	rank       []float64
	ukeys      []uint64
	ps, buf    []rankPair
}

var spearmanPool freeList[*spearmanScratch]

// regrown is grown keeping the slice in *s for the next call.
func regrown[T any](s *[]T, n int) []T {
	*s = grown(*s, n)
	return *s
}

// assignRanks gives each position its rank in sorted order, ties the mean
// of their ranks; equal reports whether two positions hold equal keys.
func assignRanks(rank []float64, order []int, equal func(a, b int) bool) {
	m := len(order)
	for i := 0; i < m; {
		j := i
		for j+1 < m && equal(order[j+1], order[i]) {
			j++
		}
		r := float64(i+j) / 2
		for x := i; x <= j; x++ {
			rank[order[x]] = r
		}
		i = j + 1
	}
}

// pearsonRank returns the Pearson correlation of rank with position.
func pearsonRank(rank []float64) float64 {
	m := len(rank)
	var sx, sy, sxx, syy, sxy float64
	for i := 0; i < m; i++ {
		x, y := float64(i), rank[i]
		sx += x
		sy += y
		sxx += x * x
		syy += y * y
		sxy += x * y
	}
	fm := float64(m)
	cov := sxy - sx*sy/fm
	vx := sxx - sx*sx/fm
	vy := syy - sy*sy/fm
	if vx <= 0 || vy <= 0 {
		return 0
	}
	return cov / math.Sqrt(vx*vy)
}

// distinctExact bounds the values TrafficKeyStats counts exactly; past it
// the count is a k-minimum-values estimate (Bar-Yossef et al., 2002) over
// the values' hashes, with a relative standard error of about
// 1/sqrt(kmvK-2) (3%).
const (
	distinctExact = 1 << 16
	kmvK          = kmv.K
)

// TrafficKeyStats returns the characteristics of table ti's key columns
// cols from the values the workload's statements bind, for a table
// without a row sample (a log read alone): each value's share of the
// requests that name it by equality (an IN list's share split over its
// values), distinct values, and the rank correlation of inserted values
// with insert order: the operations' insert instances ordered by their
// Seq (a log's order, whatever the reservoir kept), each ranked once
// (not again from the transactions, which hold copies of a log's
// inserts: they give the order only without inserting operations), any
// value type in shardkey.Compare's order (text too: a range key splits
// it so). Basis is "traffic". Operations' rates
// weigh them; without operations, transactions' weights do. A log's
// operations (Operation.Counted) are weighed by the counts of every
// statement's values the reader kept (Table.Traffic: the first 65,536
// distinct values counted, the rest estimated), not by their sampled
// instances, which give only the inserted values' order (so Monotonicity
// stays the sample's). Past the values counted one by one, Cardinality
// adds the sketch's estimate of the rest (Estimated) and Entropy the
// rest's term spread evenly over it, an upper estimate of that term
// (EntropyEstimated; tailEntropy).
func TrafficKeyStats(w *shardkey.Workload, ti int, cols []int) KeyStats {
	return trafficKeyStats(w, ti, cols, nil)
}

// txnStmt is a transaction's statement with the transaction's weight.
type txnStmt struct {
	st *shardkey.Stmt
	wt float64
}

// stmtsByTable returns the statements of w's transactions on each table,
// in transaction and statement order, with their transactions' weights:
// what trafficKeyStats reads of the transactions, gathered in one pass
// for all tables.
func stmtsByTable(w *shardkey.Workload) [][]txnStmt {
	by := make([][]txnStmt, len(w.Tables))
	for i := range w.Txns {
		tx := &w.Txns[i]
		if !tx.Committed() {
			continue // its statements are among the operations' already, or in no transaction of the workload
		}
		for k := range tx.Stmts {
			st := &tx.Stmts[k]
			if st.Table >= 0 && st.Table < len(by) {
				by[st.Table] = append(by[st.Table], txnStmt{st, tx.Weight})
			}
		}
	}
	return by
}

// trafficKeyStats is TrafficKeyStats, reading the transactions'
// statements on ti from byTable (stmtsByTable of w) when it is not nil.
func trafficKeyStats(w *shardkey.Workload, ti int, cols []int, byTable [][]txnStmt) KeyStats {
	t := w.Tables[ti]
	ks := KeyStats{Table: t.Name, Basis: "traffic"}
	for _, c := range cols {
		ks.Columns = append(ks.Columns, t.Columns[c].Name)
	}
	if len(cols) != 1 {
		return ks
	}
	col := cols[0]
	type agg = trafficAgg
	m := map[shardkey.Value]*agg{}
	var sketch []uint64 // the kmvK smallest hashes, once m is full
	seen := 0
	total := 0.0
	add := func(v shardkey.Value, wt float64) {
		if v.IsNull() {
			return
		}
		k := v.Canonical()
		total += wt
		if x := m[k]; x != nil {
			x.w += wt
			return
		}
		if len(m) < distinctExact {
			m[k] = &agg{w: wt, first: seen, v: v}
			seen++
			return
		}
		var buf []byte
		_, h := keyHash(buf, []shardkey.Value{k})
		sketch = kmvAdd(sketch, h)
	}
	// A log's counts of every statement's values (shardkey.ValueCounts)
	// stand for its counted operations' instances, which are a sample of
	// them; they come first, in the order they were first seen.
	vc := t.Traffic[t.Columns[col].Name]
	// direct: the counts are all there is (every operation with
	// instances counted): the figures come from them without a map.
	direct := vc != nil
	for _, op := range w.Ops {
		if op.Table == ti && len(op.Instances) > 0 && !op.Counted {
			direct = false
		}
	}
	if vc != nil && !direct {
		total = vc.Total
		for i, v := range vc.Values {
			k := v.Canonical()
			if x := m[k]; x != nil { // (distinct already: a reader's canonical values)
				x.w += vc.Weights[i]
				continue
			}
			m[k] = &agg{w: vc.Weights[i], first: seen, v: v}
			seen++
		}
		sketch = slices.Clone(vc.Sketch)
		ks.Named = vc.Statements
	}
	// The inserted values, to rank against insert order: those of the
	// operations' instances (opIns) with their Seq, else those of the
	// transactions' statements (txIns), in their order. A log's insert
	// is both an instance of its operation and a statement of its
	// transaction (autocommit or not): ranked once, from the operations,
	// whose Seq gives log order through reservoir replacement.
	var opIns, txIns []seqValue
	// from adds the values of conds at weight wt (only the inserted
	// values' order when wt < 0: counted already); seq >= 0 for an
	// operation's instance (its Seq), -1 for a transaction's statement.
	from := func(conds []shardkey.Cond, wt float64, insert bool, seq int64) {
		named := false // a value bound by this statement, counted
		for _, c := range conds {
			if c.Col != col || c.Via != 0 { // (another read's value: counted there)
				continue
			}
			switch {
			case c.Op == shardkey.Eq && c.Fresh == shardkey.NotFresh:
				if wt >= 0 {
					add(c.Val, wt)
					named = named || wt > 0 && !c.Val.IsNull()
				}
				if insert && orderable(c.Val) {
					if seq >= 0 {
						opIns = append(opIns, seqValue{seq, c.Val.Canonical()})
					} else {
						txIns = append(txIns, seqValue{0, c.Val.Canonical()})
					}
				}
			case c.Op == shardkey.In && len(c.List) > 0 && wt >= 0:
				for _, v := range c.List {
					add(v, wt/float64(len(c.List)))
					named = named || wt > 0 && !v.IsNull()
				}
			}
		}
		if named {
			ks.Named++
		}
	}
	hasOps := false
	for _, op := range w.Ops {
		if op.Table != ti || len(op.Instances) == 0 {
			continue
		}
		sum := 0.0
		for _, in := range op.Instances {
			sum += in.Weight
		}
		if sum == 0 {
			continue
		}
		hasOps = true
		for _, in := range op.Instances {
			wt := op.Rate * in.Weight / sum
			if op.Counted && vc != nil {
				wt = -1 // in vc: the sample gives the inserted values' order only
			}
			from(in.Conds, wt, op.Kind == shardkey.Insert, in.Seq)
		}
	}
	stmt := func(st *shardkey.Stmt, wt float64) {
		if hasOps {
			wt = 0 // the operations weigh the values; inserts still give the order
		}
		if wt > 0 {
			from(st.Conds, wt, st.Kind == shardkey.Insert, -1)
		} else if st.Kind == shardkey.Insert {
			for _, c := range st.Conds {
				if c.Col == col && c.Op == shardkey.Eq && c.Fresh == shardkey.NotFresh && orderable(c.Val) {
					txIns = append(txIns, seqValue{0, c.Val.Canonical()})
				}
			}
		}
	}
	if byTable != nil {
		for _, x := range byTable[ti] {
			stmt(x.st, x.wt)
		}
	} else {
		for i := range w.Txns {
			tx := &w.Txns[i]
			if !tx.Committed() {
				continue
			}
			for k := range tx.Stmts {
				if tx.Stmts[k].Table == ti {
					stmt(&tx.Stmts[k], tx.Weight)
				}
			}
		}
	}
	if direct {
		ks.Named = vc.Statements
		ks.Cardinality, ks.Estimated = vc.Distinct()
		if vc.Total == 0 || ks.Cardinality == 0 {
			return ks
		}
		trafficFromCounts(&ks, vc)
	} else {
		if total == 0 {
			return ks
		}
		trafficFromMap(&ks, m, total, sketch)
	}
	inserted := opIns
	if len(inserted) == 0 {
		inserted = txIns
	}
	ks.Inserted = len(inserted)
	if len(inserted) >= 3 {
		ks.Monotonicity = spearmanInserted(inserted)
		ks.Monotonic = math.Abs(ks.Monotonicity) >= 0.7
	} else {
		ks.MonotonicityUnknown = true
	}
	return ks
}

// seqValue is an inserted value and its instance's Seq.
type seqValue struct {
	seq int64
	v   shardkey.Value
}

// orderable reports whether v has a place in shardkey.Compare's order
// (the order range partitioning splits): any value but NULL and a float
// NaN, which compares equal to every number.
func orderable(v shardkey.Value) bool {
	if v.IsNull() {
		return false
	}
	return !v.Type.IsNumeric() || !math.IsNaN(v.AsFloat())
}

// trafficFromCounts sets ks's entropy (summed in the values' order, the
// sketched values' term last: tailEntropy) and top values (heaviest
// first, ties by first seen) from a log's counts.
func trafficFromCounts(ks *KeyStats, vc *shardkey.ValueCounts) {
	total := vc.Total
	var top []int // indexes into vc.Values, heaviest first
	counted := 0.0
	for i, wt := range vc.Weights {
		counted += wt
		if p := wt / total; p > 0 {
			ks.Entropy -= p * math.Log2(p)
		}
		if len(top) < RankedValues || wt > vc.Weights[top[len(top)-1]] {
			pos := sort.Search(len(top), func(j int) bool { return wt > vc.Weights[top[j]] })
			top = append(top, 0)
			copy(top[pos+1:], top[pos:])
			top[pos] = i
			if len(top) > RankedValues {
				top = top[:RankedValues]
			}
		}
	}
	for _, i := range top {
		ks.TopValues = append(ks.TopValues, TopValue{Value: vc.Values[i].String(), Share: vc.Weights[i] / total})
	}
	ks.splitRanked()
	if len(vc.Sketch) > 0 {
		ks.Entropy += tailEntropy(total-counted, total, vc.Sketch)
		ks.EntropyEstimated = true
	}
}

// tailEntropy returns the entropy term, in bits, of the values counted
// only in sketch (a k-minimum-values sketch of their distinct hashes,
// internal/kmv), not one by one: their weight rest of the total weight
// total (exact: the counts keep every value's weight in their total),
// spread evenly over the sketch's estimate d of their number:
//
//	-r log2(r / d),   r = rest / total (0..1),
//
// so that with the values counted one by one, p_i = w_i / total,
//
//	H = -sum_i p_i log2 p_i - r log2(r / d).
//
// Why an upper estimate: the rest's true term is -r log2 r + r H_rest,
// H_rest the entropy of its values' shares scaled to sum to 1, and
// 0 <= H_rest <= log2 d, with equality at the top exactly when the d
// values are equally used (Cover and Thomas, Elements of Information
// Theory, 2nd ed., Theorem 2.6.4). The figure takes the top: exact for
// an evenly used tail, which values first seen only once 65,536 others
// were counted mostly are (heavy values show up early), high by
// r (log2 d - H_rest) for a skewed one; the lower end, -r log2 r, would
// lump the rest into one value. Values the sketch holds that a row
// sample could not hold (sqllog cannot convert them once sketched) or
// that another log listed (mergeCounts) make d larger, the figure
// higher. The sketch's relative error e in d (standard error
// 1/sqrt(kmv.K-2), about 3%) moves the figure by r log2(1+e) bits:
// about 0.045 r a standard error. 0 when nothing is sketched or rest is
// not positive (rounding).
func tailEntropy(rest, total float64, sketch []uint64) float64 {
	if len(sketch) == 0 || !(rest > 0) || !(total > 0) {
		return 0
	}
	r := min(rest/total, 1)
	d := float64(kmvEstimate(sketch))
	if r <= 0 || d < 1 {
		return 0
	}
	return -r * math.Log2(r/d)
}

type trafficAgg struct {
	w     float64
	first int
	v     shardkey.Value
}

// trafficFromMap sets ks's cardinality, entropy and top values from the
// values counted in m (and sketched past them: their entropy term is
// tailEntropy's).
func trafficFromMap(ks *KeyStats, m map[shardkey.Value]*trafficAgg, total float64, sketch []uint64) {
	ks.Cardinality = len(m)
	if len(sketch) > 0 {
		ks.Cardinality += kmvEstimate(sketch)
		ks.Estimated = true
	}
	all := make([]*trafficAgg, 0, len(m))
	for _, x := range m {
		all = append(all, x)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].w != all[j].w {
			return all[i].w > all[j].w
		}
		return all[i].first < all[j].first
	})
	counted := 0.0
	for _, x := range all { // in a fixed order: the same input, the same bits
		counted += x.w
		if p := x.w / total; p > 0 {
			ks.Entropy -= p * math.Log2(p)
		}
	}
	if len(sketch) > 0 {
		ks.Entropy += tailEntropy(total-counted, total, sketch)
		ks.EntropyEstimated = true
	}
	for i, x := range all {
		if i >= RankedValues {
			break
		}
		ks.TopValues = append(ks.TopValues, TopValue{Value: x.v.String(), Share: x.w / total})
	}
	ks.splitRanked()
}

// ListedValues is how many of the heaviest key values KeyStats.TopValues
// lists (a report's top_values); RankedValues how many are ranked in all,
// the rest in KeyStats.MoreValues.
const (
	ListedValues = 10
	RankedValues = 64
)

// splitRanked moves the values ranked past ListedValues from TopValues
// to MoreValues.
func (ks *KeyStats) splitRanked() {
	if len(ks.TopValues) > ListedValues {
		ks.MoreValues = slices.Clone(ks.TopValues[ListedValues:])
		ks.TopValues = slices.Clip(ks.TopValues[:ListedValues])
	}
}

// spearmanInserted is Spearman's rank correlation of the inserted
// values with insert order: xs sorted by Seq (stable: equal Seqs, and
// transactions' statements, keep their order) and ranked in
// shardkey.Compare's order, the order range partitioning splits, so
// that text keys (an ULID, a date written as text) are ranked as a
// range key would place them. Ties get mean ranks. xs is sorted in
// place.
func spearmanInserted(xs []seqValue) float64 {
	slices.SortStableFunc(xs, func(a, b seqValue) int { return cmp.Compare(a.seq, b.seq) })
	m := len(xs)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return shardkey.Compare(xs[a].v, xs[b].v) })
	rank := make([]float64, m)
	assignRanks(rank, order, func(a, b int) bool { return shardkey.Compare(xs[a].v, xs[b].v) == 0 })
	return pearsonRank(rank)
}

// kmvAdd keeps the kmvK smallest distinct hashes, sorted (kmv.Add).
func kmvAdd(s []uint64, h uint64) []uint64 { return kmv.Add(s, h) }

// kmvEstimate estimates the distinct hashes a sketch saw (kmv.Estimate).
func kmvEstimate(s []uint64) int { return kmv.Estimate(s) }
