package sqllog

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/kmv"
)

// Traffic counts: the key statistics of a table read only from a log
// (sim.TrafficKeyStats) come from the values its statements bind by
// equality. The reservoirs keep a sample of the statements (bound.go);
// these counters see every one, so that the cardinality and the top
// values' shares are the log's, not the sample's.

// exactValues bounds the distinct values counted exactly per column: the
// 65,536 sim.TrafficKeyStats counts exactly itself (distinctExact); and
// Options.MaxCountedValues (262,144 by default) all columns' together:
// when a new value would pass it, the per-column cap is halved and each
// column's values first seen past it are moved to its sketch, as the
// reservoirs are thinned (bound.go). Past its cap a column's new values
// are counted in its total and in a k-minimum-values sketch of their
// hashes (internal/kmv: a relative standard error of about 3%), not one
// by one: a value first seen after the cap is not among the top values,
// however often it comes, and the entropy spreads their share (exact:
// the totals are) evenly over the sketch's estimate of their number, an
// upper estimate of their part marked entropy_estimated (sim.KeyStats,
// sim's tailEntropy). About 110 bytes a value counted exactly (28 MB
// for the default budget), 8 kB a sketch.
const (
	exactValues             = 1 << 16
	defaultMaxCountedValues = 1 << 18
)

// litKey is a value as the statement wrote it: s, or i for an integer
// written as strconv.FormatInt writes it (s then empty).
type litKey struct {
	s    string
	i    int64
	kind litKind
}

// text returns k's text as the statement wrote it.
func (k litKey) text() string {
	if k.kind == litNum && k.s == "" {
		return strconv.FormatInt(k.i, 10)
	}
	return k.s
}

// formatIntText returns s as an int64 when it is one written as
// strconv.FormatInt writes it (no sign but '-', no leading zero, at most
// 18 digits).
func formatIntText(s string) (int64, bool) {
	d := s
	neg := len(d) > 0 && d[0] == '-'
	if neg {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 || d[0] == '0' && (len(d) > 1 || neg) {
		return 0, false
	}
	var n int64
	for i := 0; i < len(d); i++ {
		c := d[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// valCount is one value counted exactly: its weight (statements, an IN
// list's value 1/len of one; colCount.ws while counting) and where it was
// first seen (operation, instance, place in it: the order a sample that
// kept every statement lists it in).
type valCount struct {
	key  litKey
	w    float64
	op   int32
	pos  int32
	seen int64
}

// colCount counts the values bound to one column of a table that has no
// row sample.
type colCount struct {
	ti, ci int
	// dense indexes the integers n written plainly (litKey.i) with
	// 0 <= n < len(dense): vals[dense[n]-1], 0 for none; ints the other
	// such integers, strs the strings, nums the other numbers (by text).
	// Keys (ids) are mostly small integers, and an array is one memory
	// access where a map is several (see growDense for its size).
	dense  []int32
	ints   map[int64]int32
	strs   map[string]int32
	nums   map[string]int32
	vals   []valCount
	ws     []float64 // the weights of vals, apart: the one field counting writes
	sketch []uint64  // values first seen past exactValues
	// filter holds the values of ints, strs and nums once the column is
	// full (keyFilter), built when first needed.
	filter keyFilter
	total  float64 // weight of every value counted
	stmts  int     // statements that bound a value counted (ValueCounts.Statements)
	last   int64   // agg.countSeq of the last statement counted in stmts
}

// stmt counts statement seq (agg.countSeq) in c.stmts, once.
func (c *colCount) stmt(seq int64) {
	if c.last != seq {
		c.last = seq
		c.stmts++
	}
}

// denseMin is the smallest dense index of a column (16 kB); it grows, by
// doubling, while it stays within denseRatio slots a value counted, so
// that it takes at most 4*denseRatio bytes a value (against about 110 a
// value counted; traffic.go's budget): integers past it are in the map.
const (
	denseMin   = 4096
	denseRatio = 8
)

// growDense makes c.dense cover n if that keeps it within its bound, and
// moves the integers of c.ints it then covers into it.
func (c *colCount) growDense(n int64) {
	limit := max(denseMin, denseRatio*(len(c.vals)+1))
	if n >= int64(limit) {
		return
	}
	size := max(len(c.dense), denseMin)
	for int64(size) <= n {
		size *= 2
	}
	if size > limit {
		return
	}
	d := make([]int32, size)
	copy(d, c.dense)
	c.dense = d
	for k, j := range c.ints {
		if k >= 0 && k < int64(size) {
			d[k] = j + 1
			delete(c.ints, k)
		}
	}
}

// countRec is one instance whose values are to be counted: what
// countValues reads of it, taken when the instance is offered (op's id
// and its instances seen then). Its values are the parser's, valid until
// its batch is released (pipeline.release), which waits for the counts.
type countRec struct {
	ai   *accInfo
	acc  *access
	vals []rv
	w    float64
	op   int32
	seen int64
}

// count counts the values of instance sm of op at weight wt: at once, or,
// when the pipeline counts on a goroutine of its own (agg.asyncCounts),
// queued with the batch for it (pipeline.countLoop), in log order either
// way.
func (a *agg) count(sm *sample, op *opAgg, wt float64) {
	r := countRec{ai: sm.ai, acc: sm.acc, vals: sm.vals, w: wt, op: int32(op.id), seen: op.seen}
	if a.asyncCounts {
		a.pending = append(a.pending, r)
		return
	}
	a.countValues(&r)
}

// addCount counts value l in c at weight w, first seen (if new) in
// instance seen of operation op, at place *pos of it.
func (a *agg) addCount(c *colCount, l lit, w float64, op int32, seen int64, pos *int32) {
	c.total += w
	var j int32
	var ok, isInt bool
	var n int64
	if l.kind == litNum {
		n, isInt = formatIntText(l.s)
	}
	if isInt && uint64(n) < uint64(len(c.dense)) {
		j = c.dense[n] - 1
		ok = j >= 0
	} else {
		if len(c.vals) >= a.lim.countCap {
			// Full: a value not counted yet goes to the sketch. Most
			// values of a column this full are new; the filter says so
			// without the map's cache misses.
			h := xxhash.Sum64String(l.s)
			if !c.filter.mayHold(c, h) {
				c.sketch = kmv.Add(c.sketch, h)
				return
			}
		}
		switch {
		case isInt:
			j, ok = c.ints[n]
		case l.kind == litNum:
			j, ok = c.nums[l.s]
		default:
			j, ok = c.strs[l.s]
		}
	}
	if ok {
		c.ws[j] += w
		return
	}
	if len(c.vals) < a.lim.countCap {
		key := litKey{kind: l.kind}
		if isInt {
			key.i = n
		} else {
			key.s = strings.Clone(l.s) // not the parser's buffer
		}
		if len(c.vals) == 0 {
			a.valCols = append(a.valCols, c)
		}
		if isInt && n >= int64(len(c.dense)) {
			c.growDense(n)
		}
		c.index(key, int32(len(c.vals)))
		c.vals = append(c.vals, valCount{key: key, op: op, pos: *pos, seen: seen})
		c.ws = append(c.ws, w)
		*pos++
		a.lim.countKept++
		if a.lim.countKept > a.lim.maxCounted {
			a.shrinkCounts()
		}
		return
	}
	c.sketch = kmv.Add(c.sketch, xxhash.Sum64String(l.s))
}

// keyFilter is a blocked Bloom filter of the hashes (xxhash of the text)
// of the values a full column holds in its maps: each value sets three
// bits of one 64-bit word, the filter 16 bits a value. A value it does
// not hold is certainly not counted; one it holds is looked up (about 1%
// of new values). nil words: not built.
type keyFilter struct {
	words []uint64
	shift uint
}

// mayHold reports whether the value of hash h may be in c's maps,
// building the filter from c's values first if it is not.
func (f *keyFilter) mayHold(c *colCount, h uint64) bool {
	if f.words == nil {
		f.build(c)
	}
	return f.words[h>>f.shift]&keyBits(h) == keyBits(h)
}

func keyBits(h uint64) uint64 {
	return 1<<(h&63) | 1<<(h>>6&63) | 1<<(h>>12&63)
}

// build fills f with c's values held in maps (not in dense).
func (f *keyFilter) build(c *colCount) {
	size := 64
	for size < len(c.vals)/4 { // 16 bits a value
		size *= 2
	}
	f.words = make([]uint64, size)
	f.shift = uint(64 - bits.TrailingZeros(uint(size)))
	for _, x := range c.vals {
		if !c.inDense(x.key) {
			f.add(xxhash.Sum64String(x.key.text()))
		}
	}
}

func (f *keyFilter) add(h uint64) {
	f.words[h>>f.shift] |= keyBits(h)
}

// inDense reports whether key is indexed by c.dense (not a map).
func (c *colCount) inDense(key litKey) bool {
	return key.kind == litNum && key.s == "" && uint64(key.i) < uint64(len(c.dense))
}

// index records that key is at vals[j].
func (c *colCount) index(key litKey, j int32) {
	dense := c.inDense(key)
	if c.filter.words != nil && !dense {
		c.filter.add(xxhash.Sum64String(key.text()))
	}
	switch {
	case dense:
		c.dense[key.i] = j + 1
	case key.kind == litNum && key.s == "":
		if c.ints == nil {
			c.ints = map[int64]int32{}
		}
		c.ints[key.i] = j
	case key.kind == litNum:
		if c.nums == nil {
			c.nums = map[string]int32{}
		}
		c.nums[key.s] = j
	default:
		if c.strs == nil {
			c.strs = map[string]int32{}
		}
		c.strs[key.s] = j
	}
}

// shrinkCounts halves the per-column cap of values counted exactly until
// all columns' fit the budget, each column's values first seen past the
// cap moved to its sketch (their weight stays in its total).
func (a *agg) shrinkCounts() {
	for a.lim.countKept > a.lim.maxCounted && a.lim.countCap > 1 {
		a.lim.countCap /= 2
		for _, c := range a.valCols {
			if len(c.vals) <= a.lim.countCap {
				continue
			}
			for _, x := range c.vals[a.lim.countCap:] {
				c.sketch = kmv.Add(c.sketch, xxhash.Sum64String(x.key.text()))
			}
			a.lim.countKept -= len(c.vals) - a.lim.countCap
			// New slice and map: a map does not give back the memory of
			// deleted entries.
			c.vals = slices.Clone(c.vals[:a.lim.countCap])
			c.ws = slices.Clone(c.ws[:a.lim.countCap])
			clear(c.dense)
			c.ints, c.strs, c.nums = nil, nil, nil
			c.filter = keyFilter{}
			for j, x := range c.vals {
				c.index(x.key, int32(j))
			}
		}
	}
}

// counter returns the counter of column ci of table ti.
func (a *agg) counter(ti, ci int) *colCount {
	k := [2]int{ti, ci}
	c := a.counts[k]
	if c == nil {
		if a.counts == nil {
			a.counts = map[[2]int]*colCount{}
		}
		c = &colCount{ti: ti, ci: ci}
		a.counts[k] = c
		a.countList = append(a.countList, c)
	}
	return c
}

// setCounters gives an access's predicates the counters of the columns
// they bind by = or IN, as agg.conds turns them into conditions
// sim.TrafficKeyStats reads (not another read's, not a mention), when
// its table has no row sample (then its rows give the statistics).
func (a *agg) setCounters(ai *accInfo, acc *access, ti int) {
	if acc.none || a.w.Tables[ti].Rows > 0 {
		return
	}
	for i := range acc.preds {
		p := &acc.preds[i]
		if ai.cols[i] < 0 || ai.vias != nil && ai.vias[i] > 0 || p.mentionOnly(acc.kind) || p.op != shardkey.Eq && p.op != shardkey.In {
			continue
		}
		if ai.counts == nil {
			ai.counts = make([]*colCount, len(acc.preds))
		}
		ai.counts[i] = a.counter(ti, ai.cols[i])
	}
	if ai.counts != nil {
		ai.op.counted = true
	}
}

// countValues counts the values instance sm binds by = or IN, as
// agg.conds would make them conditions: an equality's value unless it is
// NULL, one the log does not hold, or several equalities that disagree;
// each value of an IN list for 1/len of the statement (NULLs and values
// the log does not hold left out of the list). A value that does not
// convert to its column's type is dropped at the end (finishCounts); an
// IN list's others keep their 1/len, where a sample's list leaves it out
// of the length.
func (a *agg) countValues(sm *countRec) {
	wt := sm.w
	a.countSeq++
	k := 0
	var pos int32
	for i := range sm.acc.preds {
		p := &sm.acc.preds[i]
		vals := sm.vals[k : k+len(p.args)]
		k += len(p.args)
		c := sm.ai.counts[i]
		if c == nil || len(vals) == 0 {
			continue
		}
		switch p.op {
		case shardkey.Eq:
			v := vals[0]
			if v.kind != litNum && v.kind != litStr {
				continue
			}
			agree := true
			for _, x := range vals[1:] {
				if x.kind == litNull || (x.kind == litNum || x.kind == litStr) && x.s != v.s {
					agree = false
				}
			}
			if agree {
				c.stmt(a.countSeq)
				a.addCount(c, v.lit, wt, sm.op, sm.seen, &pos)
			}
		case shardkey.In:
			n, ok := 0, true
			each := func(f func(l lit)) {
				for _, v := range vals {
					if v.elems == nil {
						if !v.unknownLen {
							f(v.lit)
						}
						continue
					}
					for _, e := range *v.elems {
						f(e)
					}
				}
			}
			each(func(l lit) {
				switch l.kind {
				case litNum, litStr:
					n++
				case litNone:
					ok = false // agg.conds leaves the condition out
				}
			})
			if !ok || n == 0 {
				continue
			}
			w := wt / float64(n)
			c.stmt(a.countSeq)
			each(func(l lit) {
				if l.kind == litNum || l.kind == litStr {
					a.addCount(c, l, w, sm.op, sm.seen, &pos)
				}
			})
		}
	}
}

// finishCounts converts the counted values to their columns' types and
// adds them to the tables' Traffic, in requests per second over span.
func (a *agg) finishCounts(span float64) {
	dropped, firstDrop := a.dropped, a.firstDrop
	defer func() { a.dropped, a.firstDrop = dropped, firstDrop }() // counted for the sample's values
	for _, c := range a.countList {
		t := a.w.Tables[c.ti]
		col := t.Columns[c.ci]
		for j, w := range c.ws {
			c.vals[j].w = w
		}
		slices.SortFunc(c.vals, func(x, y valCount) int {
			switch {
			case x.op != y.op:
				return int(x.op - y.op)
			case x.seen != y.seen:
				if x.seen < y.seen {
					return -1
				}
				return 1
			}
			return int(x.pos - y.pos)
		})
		out := &shardkey.ValueCounts{Sketch: c.sketch, Statements: c.stmts}
		total := c.total
		at := newValueIndex(len(c.vals))
		out.Values = make([]shardkey.Value, 0, len(c.vals))
		out.Weights = make([]float64, 0, len(c.vals))
		for _, x := range c.vals {
			v, fresh, ok := a.value(t, c.ci, col.Type, rv{lit: lit{s: x.key.text(), kind: x.key.kind}})
			if !ok || fresh != shardkey.NotFresh || v.IsNull() {
				total -= x.w // no row holds it: matches none
				continue
			}
			if j, ok := at.put(v.Canonical(), len(out.Values)); ok {
				out.Weights[j] += x.w / span
				continue
			}
			out.Values = append(out.Values, v)
			out.Weights = append(out.Weights, x.w/span)
		}
		if len(out.Values) == 0 {
			out.Values, out.Weights = nil, nil // as none appended
		}
		// Converted: the counts' own memory is released (finish runs
		// near the memory limit; see agg.finish).
		c.dense, c.ints, c.strs, c.nums, c.vals, c.ws = nil, nil, nil, nil, nil, nil
		out.Total = total / span
		if t.Traffic == nil {
			t.Traffic = map[string]*shardkey.ValueCounts{}
		}
		if old := t.Traffic[col.Name]; old != nil {
			mergeCounts(old, out)
		} else {
			t.Traffic[col.Name] = out
		}
	}
}

// mergeCounts adds the counts of b (another log's) to a: b's values a
// lists are added to theirs, the others listed while a holds fewer than
// exactValues, sketched past it.
func mergeCounts(a, b *shardkey.ValueCounts) {
	at := make(map[shardkey.Value]int, len(a.Values))
	for i, v := range a.Values {
		at[v.Canonical()] = i
	}
	for i, v := range b.Values {
		if j, ok := at[v.Canonical()]; ok {
			a.Weights[j] += b.Weights[i]
		} else if len(a.Values) < exactValues {
			at[v.Canonical()] = len(a.Values)
			a.Values = append(a.Values, v)
			a.Weights = append(a.Weights, b.Weights[i])
		} else {
			a.Sketch = kmv.Add(a.Sketch, xxhash.Sum64String(v.String()))
		}
	}
	for _, h := range b.Sketch {
		a.Sketch = kmv.Add(a.Sketch, h)
	}
	a.Total += b.Total
	a.Statements += b.Statements
}

// valueIndex maps canonical values (shardkey.Value.Canonical) to their
// place in a list. An integer or a text, the values of most counted
// columns, is keyed by its Int or its Str alone (16 or 24 bytes a key,
// against the 40 of a Value): a Value with any other field set is
// keyed whole, so two values share a place only when they are equal.
type valueIndex struct {
	n    int // the size hint of the map first made
	ints map[int64]int
	strs map[string]int
	rest map[shardkey.Value]int
}

func newValueIndex(n int) *valueIndex { return &valueIndex{n: n} }

// put returns k's place and true when k is in the index, else records
// it at place i and returns false.
func (x *valueIndex) put(k shardkey.Value, i int) (int, bool) {
	switch {
	case k.Type == shardkey.Int64 && k.Float == 0 && k.Str == "":
		return putPlace(&x.ints, k.Int, i, x.n)
	case k.Type == shardkey.Text && k.Int == 0 && k.Float == 0:
		return putPlace(&x.strs, k.Str, i, x.n)
	}
	return putPlace(&x.rest, k, i, x.n)
}

// putPlace returns k's place in *m and true when it is there, else
// records it at place i (making *m, sized for n, on first use) and
// returns false.
func putPlace[K comparable](m *map[K]int, k K, i, n int) (int, bool) {
	if *m == nil {
		*m = make(map[K]int, n)
	}
	j, ok := (*m)[k]
	if !ok {
		(*m)[k] = i
	}
	return j, ok
}
