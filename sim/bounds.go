package sim

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/shardkey/shardkey"
)

// Range boundaries: one set per design, at equal-weight quantiles of the
// rows (or of the statements' values when no rows are given).

// computeBounds sets the design-wide range boundaries: the given bounds of
// the first range expression that has them, else N-1 split points at
// equal-weight quantiles of every range-keyed table's rows together, so that
// co-located range keys share one set of boundaries.
func (s *Scheme) computeBounds() error {
	var rangeTables []int
	base := s.N
	var given *shardkey.RangeExpr
	width := 0
	for ti, tk := range s.tables {
		if tk.kind != kRange {
			continue
		}
		rangeTables = append(rangeTables, ti)
		if tk.base < base {
			base = tk.base
		}
		if width == 0 || len(tk.cols) < width {
			width = len(tk.cols)
		}
		if re := innerRange(tk.expr); re != nil && len(re.Bounds) > 0 && given == nil {
			given = re
		}
	}
	if len(rangeTables) == 0 {
		return nil
	}
	var bounds [][]shardkey.Value
	if given != nil {
		ti := rangeTables[0]
		typ := s.w.Tables[ti].Columns[s.tables[ti].cols[0]].Type
		if len(given.Bounds) > base-1 {
			return fmt.Errorf("key %q: %d bounds make %d ranges, more than the %d shards", s.Design.Text, len(given.Bounds), len(given.Bounds)+1, base)
		}
		if given.Tuple {
			var err error
			if bounds, err = s.tupleBounds(given, rangeTables, width); err != nil {
				return err
			}
		}
		if n := len(given.Bounds); n < base-1 {
			// Given bounds cut n+1 ranges: the other shards hold none
			// (a range key's shard i is its range i).
			s.Warnings = append(s.Warnings, fmt.Errorf("key %q: %d split points make %d ranges on %d shards: %d shards hold no range", s.Design.Text, n, n+1, base, base-n-1))
		}
		for _, txt := range given.Bounds {
			if given.Tuple {
				break
			}
			v, err := shardkey.ParseValue(txt, typ)
			if err != nil {
				return fmt.Errorf("key %q: bounds: %w", s.Design.Text, err)
			}
			if len(bounds) > 0 && shardkey.Compare(bounds[len(bounds)-1][0], v) >= 0 {
				return fmt.Errorf("key %q: bounds must increase: %s after %s", s.Design.Text, v, bounds[len(bounds)-1][0])
			}
			bounds = append(bounds, []shardkey.Value{v})
		}
	} else {
		var all []keyWeight
		var lists [][]keyWeight
		total := 0.0
		for _, ti := range rangeTables {
			kws, err := hashedSortedKeys(s.w.Tables[ti], s.tables[ti].cols[:width], s.tables[ti].mongoHashed)
			if err != nil {
				return fmt.Errorf("key %q: table %s: %w", s.Design.Text, s.w.Tables[ti].Name, err)
			}
			if len(kws) > 0 {
				lists = append(lists, kws) // memoised and read-only: not changed
			}
			for _, x := range kws {
				total += x.w
			}
		}
		switch len(lists) {
		case 0:
		case 1:
			all = lists[0]
		default:
			all = mergeKeyWeights(lists)
		}
		if len(all) == 0 {
			// No rows (a log): the values the statements bind, each
			// weighted by its share of its operation's rate (the
			// transactions' weights without operations). Ranges then
			// split the traffic, not the rows, into equal parts.
			// The same for every design that range-keys these tables
			// by these columns (a MongoDB-hashed field orders by its hash).
			what := fmt.Sprint("traffickeys", width)
			for _, ti := range rangeTables {
				what += fmt.Sprint(";", ti, s.tables[ti].cols[:width], s.tables[ti].mongoHashed)
			}
			if src := s.cache.reweightedFrom(s.w); src != nil {
				// A replicate: src's plan, its own weights.
				p := cached(s.cache, src, "plan"+what, func() *trafficPlan { return newTrafficPlan(src, rangeTables, s.tables, width) })
				buf := weighPool.Get().(*weighScratch)
				defer weighPool.Put(buf) // all is read only below, never kept
				var ok bool
				if all, total, ok = p.weighInto(s.w, buf); !ok {
					all, total = trafficKeys(s.w, rangeTables, s.tables, width)
				}
			} else {
				tw := cached(s.cache, s.w, what, func() trafficWeights {
					all, total := trafficKeys(s.w, rangeTables, s.tables, width)
					return trafficWeights{all, total}
				})
				all, total = tw.all, tw.total
			}
			s.boundsFromTraffic = len(all) > 0
		}
		if total == 0 {
			all = append([]keyWeight(nil), all...)
			for i := range all {
				all[i].w = 1
			}
			total = float64(len(all))
		}
		// As many distinct keys as ranges or fewer: one key a range (no
		// placement balances better, since a key cannot be split), which
		// the quantiles below can miss when two split points fall within
		// one key's weight (4 warehouses sampled on 4 shards put two on
		// one shard and left one empty).
		distinct := 0
		for i := range all {
			if i == 0 || !sameTuple(all[i].k, all[i-1].k) {
				distinct++
			}
		}
		s.rangeOne = nil
		if distinct == 1 {
			s.rangeOne = all[0].k
		}
		if distinct <= base {
			for i := 1; i < len(all); i++ {
				if !sameTuple(all[i].k, all[i-1].k) {
					bounds = append(bounds, all[i].k)
				}
			}
		} else {
			// Two placements of the split points, the one whose busiest
			// range weighs less kept (the first on a tie): each split
			// before the first key whose start reaches its quantile, and
			// each where the running share comes nearest it. Neither is
			// the better always: the first put a split one key late
			// whenever the keys before fell a little short (ten about
			// equally busy values on 5 shards split 3, 2, 2, 2, 1), the
			// second can be worse where weights are uneven.
			b1 := quantileBounds(all, total, base, false)
			b2 := quantileBounds(all, total, base, true)
			bounds = b1
			if maxRangeWeight(all, b2) < maxRangeWeight(all, b1)-1e-9*total {
				bounds = b2
			}
		}
		s.rangeValues = nil
		if width == 1 && distinct > 0 && distinct <= fewRangeValues*base && !mongoHashedRange(s.tables, rangeTables) {
			s.rangeValues = splitValues(all, bounds)
		}
	}
	var ib []int64
	allInt := true
	for _, b := range bounds {
		if len(b) != 1 || (b[0].Type != shardkey.Int64 && b[0].Type != shardkey.Timestamp) {
			allInt = false
			break
		}
		ib = append(ib, b[0].Int)
	}
	for _, ti := range rangeTables {
		tk := s.tables[ti]
		tk.bounds = bounds
		tk.stmtInt = allInt && len(tk.cols) == 1 && tk.mongoHashed == 0 && tk.iso == nil && tk.salted == nil && len(tk.isoKeys) == 0 && len(tk.saltKeys) == 0
		if tk.stmtInt {
			tk.stmtBounds = ib
		}
		if allInt && tk.intCol {
			tk.intBounds = ib
		} else {
			tk.intCol = false
		}
	}
	return nil
}

// fewRangeValues is the number of distinct values per range at or below
// which computeBounds records the values each range holds
// (Scheme.rangeValues): few enough that one value is a large part of a
// range, so that whether the ranges hold equal numbers of values decides
// how evenly they can spread values of equal traffic. The advisor reads it
// (Candidate.RangeValues) to tell a split of whole values fitted to the
// sample's traffic from an even one.
const fewRangeValues = 4

// splitValues returns the distinct keys of all (sorted, one-column) that
// each range of bounds holds, in range order: range i holds
// [bounds[i-1], bounds[i]). Ranges past the last key are left out.
func splitValues(all []keyWeight, bounds [][]shardkey.Value) [][]shardkey.Value {
	out := [][]shardkey.Value{nil}
	b := 0
	for i := range all {
		if i > 0 && sameTuple(all[i].k, all[i-1].k) {
			continue
		}
		for b < len(bounds) && cmpTuple(all[i].k, bounds[b]) >= 0 {
			b++
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], all[i].k[0])
	}
	return out
}

// rangeValueTexts returns s.rangeValues as bounds=[...] writes each
// value, or nil when there are none or a value has no such text.
func (s *Scheme) rangeValueTexts() [][]string {
	if s.rangeValues == nil {
		return nil
	}
	var typ shardkey.Type
	for ti, tk := range s.tables {
		if tk.kind == kRange {
			typ = s.w.Tables[ti].Columns[tk.cols[0]].Type
			break
		}
	}
	out := make([][]string, len(s.rangeValues))
	for i, vs := range s.rangeValues {
		out[i] = make([]string, len(vs))
		for j, v := range vs {
			t, ok := shardkey.BoundText(v, typ)
			if !ok {
				return nil
			}
			out[i][j] = t
		}
	}
	return out
}

// tupleBounds reads a range key's composite split points
// (RangeExpr.Tuple): value j of each tuple under the type of column j of
// the key (of the first range-keyed table; for a MongoDB pattern's hashed
// field a 64-bit integer, its hashed value), no more values than the
// narrowest range key has columns (width), each tuple above the one
// before in the key's order (column by column).
func (s *Scheme) tupleBounds(given *shardkey.RangeExpr, rangeTables []int, width int) ([][]shardkey.Value, error) {
	ti := rangeTables[0]
	tk, t := s.tables[ti], s.w.Tables[ti]
	var bounds [][]shardkey.Value
	for _, txt := range given.Bounds {
		parts := shardkey.TupleParts(txt)
		if len(parts) == 0 {
			return nil, fmt.Errorf("key %q: bounds: %s is not a tuple (v1, v2, ...)", s.Design.Text, txt)
		}
		if len(parts) > width {
			return nil, fmt.Errorf("key %q: bounds: %s has %d values, the key %d columns", s.Design.Text, txt, len(parts), width)
		}
		b := make([]shardkey.Value, len(parts))
		for j, part := range parts {
			typ := t.Columns[tk.cols[j]].Type
			if tk.mongoHashed == j+1 {
				typ = shardkey.Int64 // MongoDB's hashed value of the field
			}
			v, err := shardkey.ParseValue(part, typ)
			if err != nil {
				return nil, fmt.Errorf("key %q: bounds: %s: value %d (%s): %w", s.Design.Text, txt, j+1, t.Columns[tk.cols[j]].Name, err)
			}
			b[j] = v.Canonical()
		}
		if n := len(bounds); n > 0 && cmpTuple(bounds[n-1], b) >= 0 {
			return nil, fmt.Errorf("key %q: bounds must increase: %s after %s", s.Design.Text, txt, given.Bounds[n-1])
		}
		bounds = append(bounds, b)
	}
	return bounds, nil
}

// mongoHashedRange reports whether a range-keyed table orders its key by
// MongoDB's hash: its split points are hashes, not the key's values.
func mongoHashedRange(tables []*tableKey, rangeTables []int) bool {
	for _, ti := range rangeTables {
		if tables[ti].mongoHashed != 0 {
			return true
		}
	}
	return false
}

// givenBounds reports whether the design gives its range boundaries
// (bounds=[...] on a range key), rather than computeBounds fitting them.
func (s *Scheme) givenBounds() bool {
	for _, tk := range s.tables {
		if re := innerRange(tk.expr); tk.kind == kRange && re != nil && len(re.Bounds) > 0 {
			return true
		}
	}
	return false
}

// MonotonicInserts is the number of inserted values a traffic-based
// monotonicity (KeyStats.Inserted) must rank before a range key on a
// monotonic column is judged a hot tail: fewer say little about insert
// order.
const MonotonicInserts = 20

func innerRange(e shardkey.Expr) *shardkey.RangeExpr {
	switch m := e.(type) {
	case *shardkey.RangeExpr:
		return m
	case *shardkey.SaltExpr:
		return innerRange(m.Inner)
	case *shardkey.IsolateExpr:
		return innerRange(m.Inner)
	}
	return nil
}

func cmpTuple(a, b []shardkey.Value) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := shardkey.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// trafficKeys returns the key tuples that the statements on the range
// tables bind by equality (or IN, the weight split over the list), sorted,
// with their weights and total.
//
// The order is sortKeyWeights' (a stable sort by cmpTuple) of the tuples
// in statement order, reached without sorting them all (keyGroups): a log
// binds a few distinct keys (warehouses) in some hundred thousand
// statements, and that sort took a third of advising one. The total is
// summed in statement order.
func trafficKeys(w *shardkey.Workload, tables []int, tks []*tableKey, width int) ([]keyWeight, float64) {
	g, total := trafficGroups(w, tables, tks, width, nil)
	return g.sorted(), total
}

// trafficGroups gathers trafficKeys' tuples into groups; with rec, it
// also records where each tuple's weight comes from (see trafficPlan).
func trafficGroups(w *shardkey.Workload, tables []int, tks []*tableKey, width int, rec *trafficPlan) (*keyGroups, float64) {
	g := newKeyGroups(width)
	total := 0.0
	in := map[int]bool{}
	for _, ti := range tables {
		in[ti] = true
	}
	key := make([]shardkey.Value, width)
	var from planAdd // the source of the tuples add adds
	add := func(ti int, conds []shardkey.Cond, wt float64) {
		cols := tks[ti].cols[:width]
		for j, col := range cols {
			found := false
			for _, c := range conds {
				if c.Col == col && c.Via == 0 && c.Op == shardkey.Eq && c.Fresh == shardkey.NotFresh && !c.Val.IsNull() {
					v, err := tks[ti].keyPart(j, c.Val.Canonical())
					if err != nil {
						return // a value MongoDB cannot hash orders nowhere
					}
					key[j], found = v, true
					break
				}
			}
			if !found {
				if width == 1 {
					for _, c := range conds {
						if c.Col == col && c.Op == shardkey.In && len(c.List) > 0 {
							for _, v := range c.List {
								if !v.IsNull() {
									key[0] = v.Canonical()
									g.add(key, wt/float64(len(c.List)))
									total += wt / float64(len(c.List))
									if rec != nil {
										rec.adds = append(rec.adds, planAdd{op: from.op, at: from.at, div: int32(len(c.List))})
									}
								}
							}
						}
					}
				}
				return
			}
		}
		g.add(key, wt)
		total += wt
		if rec != nil {
			rec.adds = append(rec.adds, from)
		}
	}
	hasOps := false
	if rec != nil {
		rec.incl = make([]bool, len(w.Ops))
	}
	for i, op := range w.Ops {
		if !in[op.Table] {
			continue
		}
		sum := 0.0
		for _, x := range op.Instances {
			sum += x.Weight
		}
		if sum == 0 {
			continue
		}
		hasOps = true
		if rec != nil {
			rec.incl[i] = true
		}
		for j, x := range op.Instances {
			from = planAdd{op: int32(i), at: int32(j)}
			add(op.Table, x.Conds, op.Rate*x.Weight/sum)
		}
	}
	if !hasOps {
		for k, tx := range w.Txns {
			if !tx.Committed() {
				continue
			}
			for _, st := range tx.Stmts {
				if in[st.Table] {
					from = planAdd{op: -1, at: int32(k)}
					add(st.Table, st.Conds, tx.Weight)
				}
			}
		}
	}
	if rec != nil {
		rec.hasOps = hasOps
	}
	return g, total
}

// trafficPlan is what trafficKeys finds in a workload's conditions alone,
// for a workload with the same statements and other weights (a bootstrap
// replicate, Cache.Reweighted): the key tuples' groups in order, and for
// each tuple, in order, its group and where its weight comes from. weigh
// then gives that workload's trafficKeys from its weights alone, without
// reading its conditions. Only for grouped tuples (keyGroups): a plan of
// tuples sorted one by one is not made.
type trafficPlan struct {
	src    *shardkey.Workload
	tables []int
	incl   []bool // each operation of src whose instances give tuples
	hasOps bool
	adds   []planAdd
	seq    []int32            // each tuple's group
	keys   [][]shardkey.Value // each group's tuple
	byKey  []int32            // the groups in key order
	counts []int              // tuples per group
	at     []int              // each group's first place in key order
}

// planAdd is a tuple's source: instance at of operation op (op < 0:
// transaction at), its weight divided by div > 0 (an IN list's values).
type planAdd struct {
	op, at, div int32
}

// newTrafficPlan returns src's plan, or nil when its tuples are not
// grouped.
func newTrafficPlan(src *shardkey.Workload, tables []int, tks []*tableKey, width int) *trafficPlan {
	p := &trafficPlan{src: src, tables: tables}
	g, _ := trafficGroups(src, tables, tks, width, p)
	g.sorted()
	if g.whole {
		return nil
	}
	p.seq, p.byKey = g.seq, g.byKey
	for _, gr := range g.groups {
		p.keys = append(p.keys, gr.k)
		p.counts = append(p.counts, len(gr.ws))
	}
	p.at = make([]int, len(p.counts))
	n := 0
	for _, gi := range p.byKey {
		p.at[gi] = n
		n += p.counts[gi]
	}
	return p
}

// weighScratch is weigh's memory, reused from one replicate to the next
// (weighPool): the result's tuples and the operations' sums.
type weighScratch struct {
	all  []keyWeight
	sums []float64
	next []int
}

var weighPool = sync.Pool{New: func() any { return new(weighScratch) }}

// weigh is weighInto in memory of its own.
func (p *trafficPlan) weigh(w *shardkey.Workload) ([]keyWeight, float64, bool) {
	return p.weighInto(w, new(weighScratch))
}

// weighInto returns trafficKeys of w from p, or false when w's statements
// are not p's source's: other operations, instances or transactions, or
// other conditions (the same slices), or an operation whose weights sum to
// 0 in one and not the other. The tuples returned are buf's memory, good
// until buf is used again.
func (p *trafficPlan) weighInto(w *shardkey.Workload, buf *weighScratch) ([]keyWeight, float64, bool) {
	if p == nil || len(w.Ops) != len(p.src.Ops) || len(w.Txns) != len(p.src.Txns) {
		return nil, 0, false
	}
	sameSlice := func(a, b []shardkey.Cond) bool { return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) }
	sums := grown(buf.sums, len(w.Ops))
	clear(sums)
	buf.sums = sums
	hasOps := false
	for i, op := range w.Ops {
		so := p.src.Ops[i]
		if op.Table != so.Table || len(op.Instances) != len(so.Instances) {
			return nil, 0, false
		}
		if !slices.Contains(p.tables, op.Table) {
			continue
		}
		sum := 0.0
		for _, x := range op.Instances {
			sum += x.Weight
		}
		if (sum != 0) != p.incl[i] {
			return nil, 0, false
		}
		if sum == 0 {
			continue
		}
		hasOps = true
		sums[i] = sum
		for j := range op.Instances {
			if !sameSlice(op.Instances[j].Conds, so.Instances[j].Conds) {
				return nil, 0, false
			}
		}
	}
	if hasOps != p.hasOps {
		return nil, 0, false
	}
	if !hasOps {
		for k := range w.Txns {
			a, b := w.Txns[k].Stmts, p.src.Txns[k].Stmts
			if len(a) != len(b) || len(a) > 0 && &a[0] != &b[0] {
				return nil, 0, false
			}
		}
	}
	// The groups in key order, each group's weights in order of addition,
	// as keyGroups gives them: a tuple goes to its group's next place.
	if len(p.adds) == 0 {
		return nil, 0, true
	}
	next := append(buf.next[:0], p.at...)
	buf.next = next
	all := grown(buf.all, len(p.adds))
	buf.all = all
	total := 0.0
	for k, a := range p.adds {
		var wt float64
		if a.op >= 0 {
			op := w.Ops[a.op]
			wt = op.Rate * op.Instances[a.at].Weight / sums[a.op]
		} else {
			wt = w.Txns[a.at].Weight
		}
		if a.div > 0 {
			wt = wt / float64(a.div)
		}
		total += wt
		gi := p.seq[k]
		all[next[gi]] = keyWeight{k: p.keys[gi], w: wt}
		next[gi]++
	}
	return all, total, true
}

// grown returns s at length n, reusing its memory when it has room.
func grown[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// trafficWeights is trafficKeys' result, as Cache keeps it.
type trafficWeights struct {
	all   []keyWeight
	total float64
}

// maxGroupWidth is the widest key tuple keyGroups groups.
const maxGroupWidth = 4

// keyGroups gathers key tuples with their weights and returns them in
// sortKeyWeights' order (a stable sort by cmpTuple of the tuples in order
// of addition) without sorting them all. Equal tuples (== on every value)
// are grouped, each group's weights in order of addition; the groups, in
// order of first appearance, are sorted by cmpTuple; then come every tuple
// of the first group in order of addition, the second group's, and so on.
// That is the stable sort's order whenever cmpTuple is a total preorder
// under which only equal tuples tie, for then every stable sort gives the
// same order. Compare is a total preorder on values other than floats
// (integers of every width and unsigned compare exactly; text, dates,
// booleans by one field); with a float among the tuples (NaN, and integers
// beyond 2^53 compared as floats, make it intransitive, where only the
// same algorithm on the same input gives the same order), with two
// distinct groups that compare equal (an Int64 and a Uint64 of one value,
// text and bytes of one string), or with tuples wider than maxGroupWidth,
// every tuple is sorted by sortKeyWeights as before.
type keyGroups struct {
	width int
	index map[[maxGroupWidth]shardkey.Value]int32
	// ints indexes the tuples of one Int64 value (no Float or Str, so
	// that == is equality of Int), a cheaper hash than index's.
	ints   map[int64]int32
	groups []keyGroup
	seq    []int32     // each tuple's group, in order of addition
	byKey  []int32     // the groups in key order, once sorted
	flat   []keyWeight // every tuple in order of addition, once grouping is given up
	whole  bool        // grouping given up: flat holds every tuple
}

type keyGroup struct {
	k    []shardkey.Value
	ws   []float64 // in order of addition
	next int       // ungroup's position in ws
}

func newKeyGroups(width int) *keyGroups {
	g := &keyGroups{width: width, whole: width > maxGroupWidth}
	if !g.whole {
		g.index = map[[maxGroupWidth]shardkey.Value]int32{}
		g.ints = map[int64]int32{}
	}
	return g
}

// add adds a copy of key (width values) with weight wt.
func (g *keyGroups) add(key []shardkey.Value, wt float64) {
	if !g.whole && len(key) == 1 && key[0].Type == shardkey.Int64 && key[0].Float == 0 && key[0].Str == "" && !math.Signbit(key[0].Float) {
		i, ok := g.ints[key[0].Int]
		if !ok {
			i = int32(len(g.groups))
			g.ints[key[0].Int] = i
			g.groups = append(g.groups, keyGroup{k: slices.Clone(key)})
		}
		g.groups[i].ws = append(g.groups[i].ws, wt)
		g.seq = append(g.seq, i)
		return
	}
	if !g.whole {
		var ak [maxGroupWidth]shardkey.Value
		for j, v := range key {
			if v.Type == shardkey.Float64 || v.Type == shardkey.Float32 {
				g.ungroup()
				break
			}
			ak[j] = v
		}
		if !g.whole {
			i, ok := g.index[ak]
			if !ok {
				i = int32(len(g.groups))
				g.index[ak] = i
				g.groups = append(g.groups, keyGroup{k: slices.Clone(key)})
			}
			g.groups[i].ws = append(g.groups[i].ws, wt)
			g.seq = append(g.seq, i)
			return
		}
	}
	g.flat = append(g.flat, keyWeight{k: slices.Clone(key), w: wt})
}

// ungroup gives grouping up: flat gets the tuples added so far, in order
// of addition.
func (g *keyGroups) ungroup() {
	g.whole = true
	g.flat = make([]keyWeight, 0, len(g.seq))
	for _, i := range g.seq {
		gr := &g.groups[i]
		g.flat = append(g.flat, keyWeight{k: gr.k, w: gr.ws[gr.next]})
		gr.next++
	}
	g.groups, g.seq, g.index, g.ints = nil, nil, nil, nil
}

// sorted returns the tuples in sortKeyWeights' order.
func (g *keyGroups) sorted() []keyWeight {
	if !g.whole {
		byKey := make([]int32, len(g.groups))
		for i := range byKey {
			byKey[i] = int32(i)
		}
		slices.SortStableFunc(byKey, func(a, b int32) int { return cmpTuple(g.groups[a].k, g.groups[b].k) })
		for i := 1; i < len(byKey); i++ {
			if cmpTuple(g.groups[byKey[i-1]].k, g.groups[byKey[i]].k) == 0 {
				g.ungroup()
				break
			}
		}
		if !g.whole {
			g.byKey = byKey
			var all []keyWeight
			if len(g.seq) > 0 {
				all = make([]keyWeight, 0, len(g.seq))
			}
			for _, i := range byKey {
				gr := &g.groups[i]
				for _, wt := range gr.ws {
					all = append(all, keyWeight{k: gr.k, w: wt})
				}
			}
			return all
		}
	}
	sortKeyWeights(g.flat)
	return g.flat
}

// sortKeyWeights sorts key tuples stably (equal tuples keep their order).
// slices.SortStableFunc runs sort.SliceStable's algorithm (insertion-sorted
// blocks of 20, then symMerge: the same comparisons and moves, so the same
// order even for values Compare does not order transitively, a large
// integer and a float, NaN) without its reflection swapper, which took
// about a tenth of advising a 2 GB MariaDB general log. (An unstable sort
// of the positions with the position as the last key, tried, was 2 to 3
// times slower on a log's keys: few distinct values, so the blocks'
// insertion sort finds them mostly in order, and the positions' sort
// compares through an indirection.)
// mergeKeyWeights merges lists each sorted as sortKeyWeights sorts into a
// new list: the stable sort of their concatenation (ties in list order,
// then in each list's order), in linear time per list.
func mergeKeyWeights(lists [][]keyWeight) []keyWeight {
	out := lists[0]
	for _, l := range lists[1:] {
		m := make([]keyWeight, 0, len(out)+len(l))
		i, j := 0, 0
		for i < len(out) && j < len(l) {
			if cmpTuple(l[j].k, out[i].k) < 0 {
				m = append(m, l[j])
				j++
			} else {
				m = append(m, out[i])
				i++
			}
		}
		m = append(append(m, out[i:]...), l[j:]...)
		out = m
	}
	return out
}

func sortKeyWeights(all []keyWeight) {
	slices.SortStableFunc(all, func(a, b keyWeight) int { return cmpTuple(a.k, b.k) })
}

type keyWeight struct {
	k []shardkey.Value
	w float64
}

// sortedKeys returns t's rows' key tuples (canonical values of cols) with
// their weights, sorted by key, ties in row order. Memoised per table and
// columns; the order itself per columns (sortedOrder), so a table that
// shares another's columns with other weights only weighs it.
func sortedKeys(t *shardkey.Table, cols []int) []keyWeight {
	return memo(t, fmt.Sprint("sorted", cols), func() []keyWeight {
		return sortedOrder(t, cols, 0).weighed(t)
	})
}

// sameTuple reports whether two canonical key tuples are equal.
func sameTuple(a, b []shardkey.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// RangeBound is one range-keyed table's boundaries under a scheme: the
// split points computeBounds set (design-wide: every range-keyed table
// has the same), in the text bounds=[...] reads.
type RangeBound struct {
	Table   string   `json:"table"`
	Columns []string `json:"columns"`
	// Bounds are the N-1 (or fewer) split points, ascending: the table's
	// range shard i holds the keys in [Bounds[i-1], Bounds[i]) (the first
	// from the lowest value, the last to the highest).
	Bounds []string `json:"bounds"`
	// Tuple says Bounds are composite split points, each a tuple's text
	// "(v1, v2)" (shardkey.TupleText; the value of a MongoDB pattern's
	// hashed field is its hashed value).
	Tuple bool `json:"tuple,omitempty"`
	// Key is the table's key with the bounds written in,
	// range(w_id, bounds=[2, 3, ...]).
	Key string `json:"key"`
}

// BoundedDesign returns the scheme's design with the range boundaries it
// places by written into every range key (Design.WithBounds), so that
// compiling it again places every row as s does, and each range-keyed
// table's boundaries. It returns nil, nil, "" when the design has no range
// key or no boundaries (one shard, or nothing to take quantiles from);
// nil, nil and why when the boundaries cannot be written as bounds=[...]:
// a composite key's boundaries are tuples (bounds=[...] splits the first
// column only), or a value has no text that reads back as itself.
func (s *Scheme) BoundedDesign() (*shardkey.Design, []RangeBound, string) {
	var bounds [][]shardkey.Value
	first := -1
	for ti, tk := range s.tables {
		if tk.kind == kRange && len(tk.bounds) > 0 {
			bounds, first = tk.bounds, ti
			break
		}
	}
	if first < 0 {
		return nil, nil, ""
	}
	ftk := s.tables[first]
	typeOf := func(j int) shardkey.Type {
		if ftk.mongoHashed == j+1 {
			return shardkey.Int64 // MongoDB's hashed value of the field
		}
		return s.w.Tables[first].Columns[ftk.cols[j]].Type
	}
	tuple := false
	for _, b := range bounds {
		tuple = tuple || len(b) != 1
	}
	texts := make([]string, len(bounds))
	for i, b := range bounds {
		parts := make([]string, len(b))
		for j, v := range b {
			t, ok := shardkey.BoundText(v, typeOf(j))
			if !ok {
				return nil, nil, fmt.Sprintf("range boundary %s has no text that reads back as itself in bounds=[...]", v)
			}
			parts[j] = t
		}
		if !tuple {
			texts[i] = parts[0]
			continue
		}
		for j := range parts {
			parts[j] = b[j].String()
		}
		texts[i] = shardkey.TupleText(parts)
		if back := shardkey.TupleParts(texts[i]); len(back) != len(parts) || !slices.Equal(back, parts) {
			return nil, nil, fmt.Sprintf("range boundary %s has no text that reads back as itself in bounds=[...]", texts[i])
		}
	}
	var d *shardkey.Design
	if tuple {
		d = s.Design.WithTupleBounds(texts)
	} else {
		d = s.Design.WithBounds(texts)
	}
	var rb []RangeBound
	for ti, tk := range s.tables {
		if tk.kind != kRange {
			continue
		}
		t := s.w.Tables[ti]
		e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
		if e == nil {
			continue
		}
		var cols []string
		for _, c := range tk.cols {
			cols = append(cols, t.Columns[c].Name)
		}
		rb = append(rb, RangeBound{Table: t.Name, Columns: cols, Bounds: texts, Tuple: tuple, Key: e.String()})
	}
	return d, rb, ""
}

// quantileBounds returns split points cutting all (sorted, total weight
// total) into base ranges of about equal weight: split k before the key
// where the running weight reaches k x total / base (nearest false) or
// comes nearest it (nearest true: a quantile within a key's weight goes
// to the nearer of its start and end, a tie to the end). A key is never
// split; two quantiles in one key leave a range empty.
func quantileBounds(all []keyWeight, total float64, base int, nearest bool) [][]shardkey.Value {
	var bounds [][]shardkey.Value
	cum := 0.0
	next := 1
	for i := 0; i < len(all) && next < base; i++ {
		if i > 0 && sameTuple(all[i].k, all[i-1].k) {
			cum += all[i].w
			continue
		}
		kw := all[i].w
		if nearest {
			for j := i + 1; j < len(all) && sameTuple(all[j].k, all[i].k); j++ {
				kw += all[j].w
			}
		}
		placed := false
		for next < base && cum > 0 {
			q := float64(next) * total / float64(base)
			if cum < q-1e-9*total && !(nearest && cum+kw > q && q-cum < cum+kw-q) {
				break
			}
			if !placed {
				bounds = append(bounds, all[i].k)
				placed = true
			}
			next++
		}
		cum += all[i].w
	}
	return bounds
}

// maxRangeWeight returns the weight of the heaviest range bounds cut all
// (sorted) into: range i holds [bounds[i-1], bounds[i]).
func maxRangeWeight(all []keyWeight, bounds [][]shardkey.Value) float64 {
	best, cur, b := 0.0, 0.0, 0
	for i := range all {
		for b < len(bounds) && cmpTuple(all[i].k, bounds[b]) >= 0 {
			best, cur = max(best, cur), 0
			b++
		}
		cur += all[i].w
	}
	return max(best, cur)
}
