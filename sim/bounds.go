package sim

import (
	"fmt"
	"slices"

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
		for _, txt := range given.Bounds {
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
		total := 0.0
		for _, ti := range rangeTables {
			kws, err := hashedSortedKeys(s.w.Tables[ti], s.tables[ti].cols[:width], s.tables[ti].mongoHashed)
			if err != nil {
				return fmt.Errorf("key %q: table %s: %w", s.Design.Text, s.w.Tables[ti].Name, err)
			}
			if len(rangeTables) == 1 {
				all = kws // memoised and read-only: no copy
			} else {
				all = append(all, kws...)
			}
			for _, x := range kws {
				total += x.w
			}
		}
		if len(all) == 0 {
			// No rows (a log): the values the statements bind, each
			// weighted by its share of its operation's rate (the
			// transactions' weights without operations). Ranges then
			// split the traffic, not the rows, into equal parts.
			all, total = trafficKeys(s.w, rangeTables, s.tables, width)
			s.boundsFromTraffic = len(all) > 0
		} else if len(rangeTables) > 1 {
			all = append([]keyWeight(nil), all...)
			sortKeyWeights(all)
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
		cum := 0.0
		next := 1
		if distinct <= base {
			for i := 1; i < len(all); i++ {
				if !sameTuple(all[i].k, all[i-1].k) {
					bounds = append(bounds, all[i].k)
				}
			}
			next = base // done
		}
		for i := 0; i < len(all) && next < base; i++ {
			if i > 0 && sameTuple(all[i].k, all[i-1].k) {
				cum += all[i].w
				continue
			}
			// all[i] starts a new distinct key: place every split point
			// whose quantile has been reached before it.
			placed := false
			for next < base && cum >= float64(next)*total/float64(base)-1e-9*total && cum > 0 {
				if !placed {
					bounds = append(bounds, all[i].k)
					placed = true
				}
				next++
			}
			cum += all[i].w
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
		if allInt && tk.intCol {
			tk.intBounds = ib
		} else {
			tk.intCol = false
		}
	}
	return nil
}

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
func trafficKeys(w *shardkey.Workload, tables []int, tks []*tableKey, width int) ([]keyWeight, float64) {
	var all []keyWeight
	total := 0.0
	in := map[int]bool{}
	for _, ti := range tables {
		in[ti] = true
	}
	add := func(ti int, conds []shardkey.Cond, wt float64) {
		cols := tks[ti].cols[:width]
		key := make([]shardkey.Value, width)
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
									all = append(all, keyWeight{k: []shardkey.Value{v.Canonical()}, w: wt / float64(len(c.List))})
									total += wt / float64(len(c.List))
								}
							}
						}
					}
				}
				return
			}
		}
		all = append(all, keyWeight{k: key, w: wt})
		total += wt
	}
	hasOps := false
	for _, op := range w.Ops {
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
		for _, x := range op.Instances {
			add(op.Table, x.Conds, op.Rate*x.Weight/sum)
		}
	}
	if !hasOps {
		for _, tx := range w.Txns {
			for _, st := range tx.Stmts {
				if in[st.Table] {
					add(st.Table, st.Conds, tx.Weight)
				}
			}
		}
	}
	sortKeyWeights(all)
	return all, total
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
func sortKeyWeights(all []keyWeight) {
	slices.SortStableFunc(all, func(a, b keyWeight) int { return cmpTuple(a.k, b.k) })
}

type keyWeight struct {
	k []shardkey.Value
	w float64
}

// sortedKeys returns t's rows' key tuples (canonical values of cols) with
// their weights, sorted by key. Memoised per table and columns.
func sortedKeys(t *shardkey.Table, cols []int) []keyWeight {
	return memo(t, fmt.Sprint("sorted", cols), func() []keyWeight {
		all := make([]keyWeight, t.Rows)
		flat := make([]shardkey.Value, t.Rows*len(cols))
		for i := 0; i < t.Rows; i++ {
			k := flat[i*len(cols) : (i+1)*len(cols) : (i+1)*len(cols)]
			for j, c := range cols {
				k[j] = t.Columns[c].Value(i).Canonical()
			}
			all[i] = keyWeight{k, t.Weight(i)}
		}
		sortKeyWeights(all)
		return all
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
	typ := s.w.Tables[first].Columns[s.tables[first].cols[0]].Type
	texts := make([]string, len(bounds))
	for i, b := range bounds {
		if len(b) != 1 {
			return nil, nil, fmt.Sprintf("the range boundaries are %d-column tuples, which bounds=[...] (split points of the first column) cannot write", len(b))
		}
		t, ok := shardkey.BoundText(b[0], typ)
		if !ok {
			return nil, nil, fmt.Sprintf("range boundary %s has no text that reads back as itself in bounds=[...]", b[0])
		}
		texts[i] = t
	}
	d := s.Design.WithBounds(texts)
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
		rb = append(rb, RangeBound{Table: t.Name, Columns: cols, Bounds: texts, Key: e.String()})
	}
	return d, rb, ""
}
