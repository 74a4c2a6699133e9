package sim

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// costlyEngines are the engines whose point of a key costs several
// hundred nanoseconds (a cryptographic hash, BSON or a collation key
// first; see docs/performance.md, Engines), far more than a table lookup:
// their points are memoised per distinct key value (memoEngine). The
// others hash about as fast as a lookup and are called directly.
var costlyEngines = map[string]bool{
	"blake2b": true, "mongodb": true, "ketama": true, "cockroachdb": true,
	"vitess": true, "vitess-binary-md5": true,
	"vitess-unicode-loose-md5": true, "vitess-unicode-loose-xxhash": true,
}

const (
	// memoMaxSlots bounds a memo's table: 2^24 points, 128 MiB.
	memoMaxSlots = 1 << 24
	// memoMaxText bounds the distinct values of a text column numbered.
	memoMaxText = 1 << 16
)

// memoEngine is a costly engine whose points, for keys over integer and
// text columns of a row sample, are computed once per distinct key value
// and remembered: rows, query and transaction values, and growth
// estimates all look them up. Each key column's distinct values in the
// rows are numbered (an integer by value - lo, a text by a map), and a key
// tuple's slot in the table of points is the mixed-radix number of its
// columns' numbers. A value the rows do not hold, or of another type, is
// hashed by the engine each time. Exact: a point depends on the key's
// values alone, and a value is only looked up under its column's own
// type. Safe for concurrent use: a slot is written atomically, and two
// writers of one slot write the same point.
type memoEngine struct {
	partition.Engine
	cols []*memoCol
	pts  []atomic.Uint64 // point of each tuple; 0: not yet known
	// Under a modulo layout of fewer than 255 shards, the shard of each
	// tuple too, one byte per slot packed four to a word (shard + 1; 0:
	// not yet known): an eighth of the points' memory, so that routing a
	// statement's value misses the cache less.
	modN  uint64
	sh    []atomic.Uint32
	byVal bool // sh is indexed by value - lo of the one integer column
	// The row sample the memo numbers, and the one fill of the shard
	// table from it (fill).
	t    *shardkey.Table
	once sync.Once
	// whole is set when every row will be routed (fillMemos): a
	// statement's lookup may then fill the table first; otherwise (one
	// statement explained) it computes only what it needs.
	whole atomic.Bool
}

// fillMemos marks the memos of s's keys as filled on first lookup, every
// row being about to be routed (Run, NewStream).
func (s *Scheme) fillMemos() {
	for _, tk := range s.tables {
		if tk != nil && tk.memo != nil {
			tk.memo.whole.Store(true)
		}
	}
}

// withShards keeps the tuples' shards under a modulo layout of modN
// shards, when they fit a byte. A key of one integer column keeps them by
// value (value - lo, over the rows' span) rather than by slot: a
// statement's value then finds its shard in one lookup, without the
// value-to-number table, and a value between the rows' that no row holds
// (a new order) is remembered too.
func (m *memoEngine) withShards(modN uint64) {
	if modN > 0 && modN < 255 {
		m.modN = modN
		n := uint64(len(m.pts))
		if len(m.cols) == 1 && m.cols[0].num != nil {
			m.byVal = true
			n = uint64(len(m.cols[0].num))
		}
		m.sh = make([]atomic.Uint32, (n+3)/4)
	}
}

// fillChunk is the number of values or rows a fill worker takes at once.
const fillChunk = 1 << 14

// fill computes, once, the shard of every key value the rows hold (with
// withShards), each distinct value's point exactly once, in parallel on
// GOMAXPROCS goroutines over ranges of values (byVal: value - lo) or
// slots (those a pass over the rows' codes finds held, their key values
// from each column's values by number), walking the tables in order,
// before rows or statements look one up. Rows and statements then find
// every row value's shard in one lookup; they used to race through the
// tables, each computing the points the other had not reached yet, at a
// cache miss per lookup. Routing the rows fills first; a statement's
// lookup does only when every row is to be routed too (whole), not when
// one statement is explained. The result does not depend on scheduling:
// a point depends on its key alone. A value whose point fails stays
// unknown; the caller that needs it computes it and reports the error.
func (m *memoEngine) fill() {
	if m.sh == nil {
		return
	}
	m.once.Do(func() {
		n := len(m.pts)
		var held []bool       // slots some row holds
		var vals []codeValues // each column's values by number
		if m.byVal {
			n = len(m.cols[0].num)
		} else {
			held = make([]bool, n)
			for i := range m.t.Rows {
				held[m.rowSlot(i)] = true
			}
			vals = make([]codeValues, len(m.cols))
			for j, c := range m.cols {
				vals[j] = c.values()
			}
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(runtime.GOMAXPROCS(0), (n+fillChunk-1)/fillChunk) {
			wg.Go(func() {
				key := make([]shardkey.Value, len(m.cols))
				pt := m.pointer()
				var sc fillScratch
				for {
					lo := int(next.Add(fillChunk)) - fillChunk
					if lo >= n {
						return
					}
					if m.byVal {
						m.fillValues(pt, lo, min(lo+fillChunk, n), key, &sc)
					} else {
						m.fillSlots(pt, held, vals, lo, min(lo+fillChunk, n), key, &sc)
					}
				}
			})
		}
		wg.Wait()
	})
}

// codeValues are a memo column's distinct values by number: integers or
// texts (8 or 16 bytes a value, at most the points' own 8 a slot).
type codeValues struct {
	ints []int64
	strs []string
}

// values returns the column's distinct values by number.
func (c *memoCol) values() codeValues {
	if c.strs != nil {
		vs := make([]string, c.span)
		for v, k := range c.strs {
			vs[k] = v
		}
		return codeValues{strs: vs}
	}
	vs := make([]int64, c.span)
	for d, k := range c.num {
		if k != 0 {
			vs[k-1] = int64(uint64(c.lo) + uint64(d))
		}
	}
	return codeValues{ints: vs}
}

// value is the column's value numbered k.
func (c *memoCol) value(vs codeValues, k uint64) shardkey.Value {
	if vs.strs != nil {
		return shardkey.Value{Type: c.typ, Str: vs.strs[k]}
	}
	return shardkey.Value{Type: c.typ, Int: vs.ints[k]}
}

// rowSlot is the slot of row i's key, from its columns' codes.
func (m *memoEngine) rowSlot(i int) uint64 {
	slot := uint64(0)
	for _, c := range m.cols {
		slot = slot*c.span + uint64(c.codes[i])
	}
	return slot
}

// pointer returns the engine's Point for one fill worker: with scratch of
// its own when the engine offers it (partition.PointerMaker: no pool per
// key), else the engine's.
func (m *memoEngine) pointer() partition.Pointer {
	if pm, ok := m.Engine.(partition.PointerMaker); ok && !noPointer {
		return pm.NewPointer()
	}
	return m.Engine
}

// fillScratch is a fill worker's scratch: the indexes still to point in
// its chunk and their points.
type fillScratch struct {
	at  []int
	pts []uint64
}

// fillValues fills the shards of values lo+d for d in lo..hi-1 of a byVal
// memo's integer column that the rows hold, points by pt (pointer): four
// at a time when it is a partition.Int64Pointer4 (BLAKE2b's four lanes),
// else by PointInt64 or Point one by one. The shard bytes of a table word
// are gathered and or'ed into it at once (a word's four values lie in one
// range: fillChunk is a multiple of 4).
func (m *memoEngine) fillValues(pt partition.Pointer, lo, hi int, key []shardkey.Value, sc *fillScratch) {
	c := m.cols[0]
	var ip partition.Int64Pointer
	var ip4 partition.Int64Pointer4
	switch c.typ {
	case shardkey.Int16, shardkey.Int32, shardkey.Int64:
		ip, _ = pt.(partition.Int64Pointer) // one integer's text: PointInt64
		ip4, _ = pt.(partition.Int64Pointer4)
	}
	// The values to point: held by a row, not yet known (a statement's,
	// before the fill).
	at := sc.at[:0]
	for d := lo; d < hi; d++ {
		if c.num[d] == 0 {
			continue
		}
		if _, ok := m.shardOf(uint64(d)); ok {
			continue
		}
		at = append(at, d)
	}
	sc.at = at
	pts := sc.pts[:0]
	i := 0
	if ip4 != nil && ip != nil {
		var vs [4]int64
		var ps [4]uint64
		for ; i+4 <= len(at); i += 4 {
			for l := range vs {
				vs[l] = int64(uint64(c.lo) + uint64(at[i+l]))
			}
			ip4.PointInt64x4(&vs, &ps)
			pts = append(pts, ps[:]...)
		}
	}
	var failed []bool
	for ; i < len(at); i++ {
		v := int64(uint64(c.lo) + uint64(at[i]))
		var p uint64
		if ip != nil {
			p = ip.PointInt64(v)
		} else {
			key[0] = shardkey.Value{Type: c.typ, Int: v}
			var err error
			if p, err = pt.Point(key); err != nil {
				failed = markFailed(failed, len(at), i)
			}
		}
		pts = append(pts, p)
	}
	sc.pts = pts
	m.store(at, pts, failed, c.num)
}

// markFailed marks point i of n failed in failed (nil until one fails).
func markFailed(failed []bool, n, i int) []bool {
	if failed == nil {
		failed = make([]bool, n)
	}
	failed[i] = true
	return failed
}

// store records pts, the points of the shard table's indexes at (but those
// failed marks: unknown, computed and reported by whoever asks), each in
// the points table at its number (num: an index's value number + 1, a
// byVal memo's; nil: at the index itself, a slot), and ors the shard
// bytes of each table word into it once.
func (m *memoEngine) store(at []int, pts []uint64, failed []bool, num []uint32) {
	var word uint32 // shard bytes of word w not yet stored
	w := -1
	for i, x := range at {
		if failed != nil && failed[i] {
			continue
		}
		p := pts[i]
		if x>>2 != w {
			if word != 0 {
				m.sh[w].Or(word)
			}
			word, w = 0, x>>2
		}
		if num != nil {
			m.pts[num[x]-1].Store(p)
		} else {
			m.pts[x].Store(p)
		}
		word |= uint32(p%m.modN+1) << (x & 3 * 8)
	}
	if word != 0 {
		m.sh[w].Or(word)
	}
}

// fillSlots fills the points and shards of slots lo..hi-1 that some row
// holds (held), their key values from each column's values by number
// (vals): small tables, where a row's values sit anywhere in the sample.
// Points by pt (pointer), four at a time when it is a partition.Pointer4;
// the shard bytes of a table word are or'ed into it at once, as
// fillValues does.
func (m *memoEngine) fillSlots(pt partition.Pointer, held []bool, vals []codeValues, lo, hi int, key []shardkey.Value, sc *fillScratch) {
	at := sc.at[:0]
	for s := lo; s < hi; s++ {
		if !held[s] {
			continue
		}
		if _, ok := m.shardOf(uint64(s)); ok {
			continue // a statement's, before the fill
		}
		at = append(at, s)
	}
	sc.at = at
	keyOf := func(key []shardkey.Value, s int) {
		rest := uint64(s)
		for j := len(m.cols) - 1; j >= 0; j-- {
			c := m.cols[j]
			key[j] = c.value(vals[j], rest%c.span)
			rest /= c.span
		}
	}
	pts := sc.pts[:0]
	var failed []bool
	i := 0
	if p4, is := pt.(partition.Pointer4); is {
		var keys [4][]shardkey.Value
		for l := range keys {
			keys[l] = make([]shardkey.Value, len(m.cols))
		}
		var ps [4]uint64
		for ; i+4 <= len(at); i += 4 {
			for l := range keys {
				keyOf(keys[l], at[i+l])
			}
			if p4.Point4(&keys, &ps) != nil {
				break // one by one below, each error its own
			}
			pts = append(pts, ps[:]...)
		}
	}
	for ; i < len(at); i++ {
		keyOf(key, at[i])
		p, err := pt.Point(key)
		if err != nil {
			failed = markFailed(failed, len(at), i)
		}
		pts = append(pts, p)
	}
	sc.pts = pts
	m.store(at, pts, failed, nil)
}

// shardOf returns the known shard at index i of the shard table
// (withShards: a slot, or a value - lo when byVal).
func (m *memoEngine) shardOf(i uint64) (int, bool) {
	b := uint8(m.sh[i>>2].Load() >> (i & 3 * 8))
	return int(b) - 1, b != 0
}

// setShard records the shard at index i; writers of one index write the
// same byte into a zero byte, so an atomic or is enough.
func (m *memoEngine) setShard(i uint64, s int) {
	m.sh[i>>2].Or(uint32(s+1) << (i & 3 * 8))
}

// known returns the shard of key under the modulo layout (withShards) when
// the table holds it (every key value of the rows, after fill, which it
// starts when whole), computing no point itself.
func (m *memoEngine) known(key []shardkey.Value) (int, bool) {
	if m.whole.Load() {
		m.fill()
	}
	if m.byVal {
		c := m.cols[0]
		if len(key) != 1 || key[0].Type != c.typ {
			return 0, false
		}
		d := uint64(key[0].Int) - uint64(c.lo)
		if d >= uint64(len(c.num)) {
			return 0, false
		}
		return m.shardOf(d)
	}
	slot, ok := m.slot(key)
	if !ok {
		return 0, false
	}
	return m.shardOf(slot)
}

// touches are the words of memo tables that routing some statements will
// read (touchAt), to be loaded in one short loop (load).
type touches struct {
	sh  []*atomic.Uint32 // shard table words
	num []*uint32        // value-to-number entries
}

// touchAt adds to at what known and shard will read for key (withShards)
// that a load now can bring into the cache: in pass 0 the shard table's
// word of a one-integer-column key (by value), or the value-to-number
// entries of a compound key's integer columns; in pass 1 the shard
// table's word of a compound key's slot (its numbers, loaded in pass 0,
// now at hand). A caller routing many statements collects these for all
// of them and loads them at once (load), so that their cache misses
// overlap instead of each stalling the routing in turn. It computes and
// stores nothing.
func (m *memoEngine) touchAt(at *touches, key []shardkey.Value, pass int) {
	if m.byVal {
		if pass != 0 {
			return
		}
		c := m.cols[0]
		if len(key) != 1 || key[0].Type != c.typ {
			return
		}
		if d := uint64(key[0].Int) - uint64(c.lo); d < uint64(len(c.num)) {
			at.sh = append(at.sh, &m.sh[d>>2])
		}
		return
	}
	if len(key) != len(m.cols) {
		return
	}
	if pass == 0 {
		for j, c := range m.cols {
			if c.num == nil || key[j].Type != c.typ {
				continue
			}
			if d := uint64(key[j].Int) - uint64(c.lo); d < uint64(len(c.num)) {
				at.num = append(at.num, &c.num[d])
			}
		}
		return
	}
	if slot, ok := m.slot(key); ok {
		at.sh = append(at.sh, &m.sh[slot>>2])
	}
}

// load loads every word of at, returns their sum (for its caller to keep,
// so that the loads are not dropped) and empties at. The loads do not
// depend on one another: their cache misses overlap.
func (at *touches) load() uint32 {
	var sum uint32
	for _, p := range at.sh {
		sum += p.Load()
	}
	for _, p := range at.num {
		sum += *p
	}
	at.sh, at.num = at.sh[:0], at.num[:0]
	return sum
}

// shard returns the shard of key under the modulo layout (withShards),
// or false when the table has no place for it.
func (m *memoEngine) shard(key []shardkey.Value) (int, bool, error) {
	if m.whole.Load() {
		m.fill()
	}
	if m.byVal {
		c := m.cols[0]
		if len(key) != 1 || key[0].Type != c.typ {
			return 0, false, nil
		}
		d := uint64(key[0].Int) - uint64(c.lo)
		if d >= uint64(len(c.num)) {
			return 0, false, nil
		}
		if s, ok := m.shardOf(d); ok {
			return s, true, nil
		}
		var p uint64
		var err error
		if k := c.num[d]; k != 0 {
			p, err = m.pointAt(uint64(k-1), key)
		} else {
			p, err = m.Engine.Point(key)
		}
		if err != nil {
			return 0, false, err
		}
		s := int(p % m.modN)
		m.setShard(d, s)
		return s, true, nil
	}
	slot, ok := m.slot(key)
	if !ok {
		return 0, false, nil
	}
	if s, ok := m.shardOf(slot); ok {
		return s, true, nil
	}
	p, err := m.pointAt(slot, key)
	if err != nil {
		return 0, false, err
	}
	s := int(p % m.modN)
	m.setShard(slot, s)
	return s, true, nil
}

// pointAt is the point of key, whose slot is slot.
func (m *memoEngine) pointAt(slot uint64, key []shardkey.Value) (uint64, error) {
	if p := m.pts[slot].Load(); p != 0 {
		return p, nil
	}
	p, err := m.Engine.Point(key)
	if err == nil {
		m.pts[slot].Store(p) // a point of 0 is recomputed each time
	}
	return p, err
}

// memoCol numbers the distinct values of one key column of a row sample,
// by first appearance: codes[i] is row i's number. Memoised per table and
// column, so keys over one column (hash(a) and hash(a, b)) share it.
type memoCol struct {
	typ   shardkey.Type
	lo    int64
	num   []uint32          // integers: value - lo -> number + 1 (0: not in the rows)
	strs  map[string]uint32 // text: value -> number
	span  uint64            // distinct values
	codes []uint32          // number of each row's value
}

// memoize returns eng with a memo of the points of key columns cols of t
// when eng is costly and the columns' values (integers or text, no NULLs)
// and their tuples are few enough to number; else eng itself.
func memoize(eng partition.Engine, t *shardkey.Table, cols []int) partition.Engine {
	name, _, _ := strings.Cut(eng.Name(), ":")
	n := t.Rows
	if !costlyEngines[name] || n == 0 || len(cols) == 0 || noMemo {
		return eng
	}
	m := &memoEngine{Engine: eng, t: t}
	slots := uint64(1)
	for _, c := range cols {
		mc := memoColumn(t, c)
		if mc == nil {
			return eng
		}
		m.cols = append(m.cols, mc)
		slots *= mc.span
		if slots > memoMaxSlots || slots > uint64(4*n) {
			return eng
		}
	}
	m.pts = make([]atomic.Uint64, slots)
	return m
}

// noMemo turns memos off (for benchmarks' side-by-side baseline).
var noMemo bool

// noPointer makes a fill call the engine's Point, not a pointer of its
// own (for BenchmarkMemoFill's side-by-side baseline).
var noPointer bool

// memoColumn numbers the distinct values of key column c of t (nil when
// it has NULLs, another type, or too many distinct values), memoised per
// table and column. Integer columns reuse the key statistics' codes
// (intCodes), numbered the same way.
func memoColumn(t *shardkey.Table, c int) *memoCol {
	return memo(t, fmt.Sprint("memocol", c), func() *memoCol { return newMemoColumn(t, c) })
}

func newMemoColumn(t *shardkey.Table, c int) *memoCol {
	col, n := t.Columns[c], t.Rows
	if col.Nulls != nil {
		return nil
	}
	switch col.Type {
	case shardkey.Int16, shardkey.Int32, shardkey.Int64, shardkey.Timestamp:
	case shardkey.Text:
		if len(col.Strs) != n {
			return nil
		}
		strs := map[string]uint32{}
		codes := make([]uint32, n)
		last, lastCode := "", uint32(0)
		for i, v := range col.Strs {
			if i > 0 && v == last {
				codes[i] = lastCode
				continue
			}
			k, ok := strs[v]
			if !ok {
				if len(strs) == memoMaxText {
					return nil
				}
				k = uint32(len(strs))
				strs[v] = k
			}
			codes[i], last, lastCode = k, v, k
		}
		return &memoCol{typ: col.Type, strs: strs, span: uint64(len(strs)), codes: codes}
	default:
		return nil
	}
	if len(col.Ints) != n {
		return nil
	}
	// Numbered by first appearance; intCodes' table of each value's
	// number + 1 by value - lo is the memo's num (shared, read only).
	d := intCodes(t, c)
	if d.codes == nil || d.span > memoMaxSlots {
		return nil
	}
	return &memoCol{typ: col.Type, lo: d.lo, num: d.num, span: d.span, codes: d.codes}
}

// rows writes the shard (point mod modN) of rows lo..hi-1 of t into ids:
// each row's slot comes from its columns' codes (no value is looked up),
// and its shard from the table fill fills first (a slot fill could not
// compute, whose point fails, is computed here, to report the error).
// key is scratch of len(cols).
func (m *memoEngine) rows(t *shardkey.Table, cols []int, lo, hi int, modN uint64, ids []int32, key []shardkey.Value) error {
	m.fill()
	// shard is the shard of row i, whose slot is slot and whose index in
	// the shard table (withShards) is at.
	shard := func(slot, at uint64, i int) (int, error) {
		if m.sh != nil {
			if s, ok := m.shardOf(at); ok {
				return s, nil
			}
		}
		p := m.pts[slot].Load()
		if p == 0 {
			for j, c := range cols {
				key[j] = t.Columns[c].Value(i)
			}
			var err error
			if p, err = m.Engine.Point(key); err != nil {
				return 0, err
			}
			m.pts[slot].Store(p)
		}
		s := int(p % modN)
		if m.sh != nil {
			m.setShard(at, s)
		}
		return s, nil
	}
	switch len(m.cols) {
	case 1:
		a := m.cols[0].codes
		var ints []int64
		if m.byVal {
			ints = t.Columns[cols[0]].Ints
		}
		for i := lo; i < hi; i++ {
			at := uint64(a[i])
			if ints != nil {
				at = uint64(ints[i]) - uint64(m.cols[0].lo)
			}
			if m.sh != nil {
				if s, ok := m.shardOf(at); ok {
					ids[i] = int32(s) // filled: the common case, inline
					continue
				}
			}
			s, err := shard(uint64(a[i]), at, i)
			if err != nil {
				return shardkey.Errorf("", 0, t.Name, "row %d: %v", i+1, err)
			}
			ids[i] = int32(s)
		}
	default:
		for i := lo; i < hi; i++ {
			slot := uint64(0)
			for _, c := range m.cols {
				slot = slot*c.span + uint64(c.codes[i])
			}
			if m.sh != nil {
				if s, ok := m.shardOf(slot); ok {
					ids[i] = int32(s)
					continue
				}
			}
			s, err := shard(slot, slot, i)
			if err != nil {
				return shardkey.Errorf("", 0, t.Name, "row %d: %v", i+1, err)
			}
			ids[i] = int32(s)
		}
	}
	return nil
}

// Point is the engine's point of key, from the table when it has been
// computed before. Errors are not remembered.
func (m *memoEngine) Point(key []shardkey.Value) (uint64, error) {
	slot, ok := m.slot(key)
	if !ok {
		return m.Engine.Point(key)
	}
	return m.pointAt(slot, key)
}

// slot returns the table slot of key, or false when it has none.
func (m *memoEngine) slot(key []shardkey.Value) (uint64, bool) {
	if len(key) != len(m.cols) {
		return 0, false
	}
	slot := uint64(0)
	for j := range m.cols {
		c := m.cols[j]
		v := &key[j]
		if v.Type != c.typ {
			return 0, false
		}
		var k uint64
		if c.strs != nil {
			x, ok := c.strs[v.Str]
			if !ok {
				return 0, false
			}
			k = uint64(x)
		} else {
			d := uint64(v.Int) - uint64(c.lo)
			if d >= uint64(len(c.num)) || c.num[d] == 0 {
				return 0, false
			}
			k = uint64(c.num[d] - 1)
		}
		slot = slot*c.span + k
	}
	return slot, true
}

// Hash is the engine's own (not memoised: for display).
func (m *memoEngine) Hash(key []shardkey.Value) (partition.Hash, error) { return m.Engine.Hash(key) }

// PrepareMemos numbers, in parallel on GOMAXPROCS goroutines, the distinct
// values of the key columns whose points eng's memos will hold (memoize),
// so that compiling keys one after another finds them done rather than
// numbering each column in turn on one core. cols are column names, COL
// for every table that has it or TABLE.COL for one table's. It does
// nothing unless eng is costly; the numbering is the one memoize computes
// itself (memoColumn, memoised per table and column), so the result is
// the same either way.
func PrepareMemos(w *shardkey.Workload, eng partition.Engine, cols []string) {
	name, _, _ := strings.Cut(eng.Name(), ":")
	if !costlyEngines[name] || noMemo {
		return
	}
	type job struct {
		t *shardkey.Table
		c int
	}
	var jobs []job
	seen := map[job]bool{}
	add := func(t *shardkey.Table, col string) {
		c := t.ColumnIndex(col)
		if c < 0 || t.Rows == 0 {
			return
		}
		j := job{t, c}
		if !seen[j] {
			seen[j] = true
			jobs = append(jobs, j)
		}
	}
	for _, col := range cols {
		for _, t := range w.Tables {
			if tn, c, ok := strings.Cut(col, "."); ok && tn == t.Name {
				add(t, c)
			} else if !ok {
				add(t, col)
			}
		}
	}
	if len(jobs) < 2 {
		return // numbered when compiled, as well as here
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Go(func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= len(jobs) {
					return
				}
				memoColumn(jobs[k].t, jobs[k].c)
			}
		})
	}
	wg.Wait()
}
