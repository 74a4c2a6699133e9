package sim

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/shardkey/shardkey"
)

// group is one distinct key value of a table's rows: the first row
// holding it and the sum of those rows' weights, added in row order.
type group struct {
	w   float64
	row int32
}

// rowWeight is row i's weight in ws, or 1 when ws is nil (counting rows).
func rowWeight(ws []float64, i int) float64 {
	if ws == nil {
		return 1
	}
	return ws[i]
}

// groupKeys returns the distinct values of keys (one per row) in order of
// first appearance, each with its first row and summed weight (ws nil:
// each row weighs 1). Rows are first partitioned by the high bits of
// their key (one sequential pass writing to a few thousand buckets, the
// weight carried along), then each bucket, a few thousand rows, is grouped
// with an open-addressing table that stays in cache: at millions of rows
// that is several times faster than a map, or than a sort, whose every
// access misses the cache. The partition is stable, so each group's
// weights are added in row order, as a map pass would add them; the
// groups are then put in order of their first rows.
func groupKeys(keys []uint64, ws []float64) []group {
	n := len(keys)
	if n == 0 {
		return nil
	}
	lo, hi := keys[0], keys[0]
	for _, k := range keys {
		lo, hi = min(lo, k), max(hi, k)
	}
	// Partition on the top bits of k-lo: about 1,024 rows per bucket.
	width := uint(bits.Len64(hi - lo))
	pbits := min(width, uint(max(0, bits.Len(uint(n))-10)))
	shift := width - pbits
	nb := 1 << pbits
	start := make([]int, nb+1)
	for _, k := range keys {
		start[(k-lo)>>shift+1]++
	}
	for b := 1; b <= nb; b++ {
		start[b] += start[b-1]
	}
	type rec struct {
		k   uint64
		w   float64
		row int32
	}
	recs := make([]rec, n)
	pos := make([]int, nb)
	copy(pos, start[:nb])
	for i, k := range keys {
		b := (k - lo) >> shift
		recs[pos[b]] = rec{k, rowWeight(ws, i), int32(i)}
		pos[b]++
	}
	maxLen := 0
	for b := 0; b < nb; b++ {
		maxLen = max(maxLen, start[b+1]-start[b])
	}
	size := 1 << bits.Len(uint(2*maxLen)) // a power of two, at least twice a bucket
	table := make([]int32, size)          // group index + 1; 0: empty
	gs := make([]group, 0, n)
	var gkeys []uint64 // the key of each of this bucket's groups
	for b := 0; b < nb; b++ {
		bucket := recs[start[b]:start[b+1]]
		if len(bucket) == 0 {
			continue
		}
		mask := uint64(1)<<bits.Len(uint(2*len(bucket))) - 1
		clear(table[:mask+1])
		base := len(gs)
		gkeys = gkeys[:0]
		for i := range bucket {
			r := &bucket[i]
			h := (r.k * 0x9E3779B97F4A7C15) >> 32 & mask
			for {
				g := table[h]
				if g == 0 {
					gs = append(gs, group{w: r.w, row: r.row})
					gkeys = append(gkeys, r.k)
					table[h] = int32(len(gs) - base)
					break
				}
				if gkeys[g-1] == r.k {
					gs[base+int(g)-1].w += r.w
					break
				}
				h = (h + 1) & mask
			}
		}
	}
	return byRow(gs, n)
}

// byRow puts groups in order of their first rows (all below n) by direct
// addressing: one write per group and one pass over n slots, where a sort
// of the groups would move each several times.
func byRow(gs []group, n int) []group {
	at := make([]int32, n) // group index + 1 at its first row
	for i, g := range gs {
		at[g.row] = int32(i) + 1
	}
	out := make([]group, len(gs))
	j := 0
	for _, i := range at {
		if i != 0 {
			out[j] = gs[i-1]
			j++
		}
	}
	return out
}

// ownGroups returns n rows as n groups of one row each: the groups of
// distinct values (ids in insert order, the common case).
func ownGroups(ws []float64, n int) []group {
	gs := make([]group, n)
	for i := range gs {
		gs[i] = group{w: rowWeight(ws, i), row: int32(i)}
	}
	return gs
}

// rising reports whether vals strictly increase.
func rising(vals []int64) bool {
	for i := 1; i < len(vals); i++ {
		if vals[i] <= vals[i-1] {
			return false
		}
	}
	return true
}

// groupCodes is groupKeys for values numbered by first appearance (as
// intCodes numbers them): group k is code k.
func groupCodes(d ranked, ws []float64) []group {
	gs := make([]group, d.span)
	next := uint32(0)
	for i, k := range d.codes {
		if k == next { // first appearance
			gs[k].row = int32(i)
			next++
		}
		gs[k].w += rowWeight(ws, i)
	}
	return gs
}

// groupInts is groupKeys for integer values. When the values span a range
// of at most a few times their count (ids, the common case) it groups them
// by direct addressing, one pass with no sort.
func groupInts(vals []int64, ws []float64) []group {
	n := len(vals)
	if n == 0 {
		return nil
	}
	if n < 1<<31 && rising(vals) { // stops at the first value that is not
		return ownGroups(ws, n)
	}
	lo, hi := vals[0], vals[0]
	for _, v := range vals {
		lo, hi = min(lo, v), max(hi, v)
	}
	span := uint64(hi) - uint64(lo) // no overflow: computed modulo 2^64
	if hi < lo || span >= uint64(4*n) || span >= 1<<31 || n >= 1<<31 {
		keys := make([]uint64, n)
		for i, v := range vals {
			keys[i] = uint64(v)
		}
		return groupKeys(keys, ws)
	}
	slot := make([]int32, span+1) // group number + 1; 0: not seen yet
	gs := make([]group, 0, min(uint64(n), span+1))
	for i, v := range vals {
		s := &slot[uint64(v)-uint64(lo)]
		g := *s
		if g == 0 {
			gs = append(gs, group{row: int32(i)})
			g = int32(len(gs))
			*s = g
		}
		gs[g-1].w += rowWeight(ws, i)
	}
	return gs
}

// packKeys encodes each row's key tuple over cols as one integer that
// preserves both equality and the tuple order cmpTuple gives (a mixed-radix
// number whose digits are each column's value less its minimum, or a text
// value's rank among the column's distinct values), when every column is
// an integer or text column without NULLs and the digits fit in 63 bits.
// It reports false otherwise. It packs the rows listed in rows (keys[k]
// for rows[k]); the minimum and span of an integer column are those of
// these rows. Packed keys replace sorting each tuple's values for the rank
// correlation.
func packKeys(t *shardkey.Table, cols []int, rows []int) ([]uint64, bool) {
	n, m := t.Rows, len(rows)
	type digit struct {
		ints  []int64
		lo    int64
		codes []uint32
		span  uint64
	}
	ds := make([]digit, len(cols))
	bits := 0.0
	for j, c := range cols {
		col := t.Columns[c]
		if col.Nulls != nil {
			return nil, false
		}
		d := &ds[j]
		switch {
		case col.Type.IsInt() && len(col.Ints) == n:
			if m == 0 {
				return nil, false
			}
			lo, hi := col.Ints[rows[0]], col.Ints[rows[0]]
			for _, i := range rows {
				lo, hi = min(lo, col.Ints[i]), max(hi, col.Ints[i])
			}
			span := uint64(hi) - uint64(lo) + 1
			if hi-lo < 0 || span == 0 || span > 1<<62 {
				return nil, false
			}
			d.ints, d.lo, d.span = col.Ints, lo, span
		case col.Type == shardkey.Text && len(col.Strs) == n:
			tr := textRanks(t, c)
			if tr.codes == nil {
				return nil, false
			}
			d.codes, d.span = tr.codes, tr.span
		default:
			return nil, false
		}
		bits += math.Log2(float64(d.span))
		if bits > 62 {
			return nil, false
		}
	}
	keys := make([]uint64, m)
	for j := range ds {
		d := &ds[j]
		if d.ints != nil {
			for k, i := range rows {
				keys[k] = keys[k]*d.span + (uint64(d.ints[i]) - uint64(d.lo))
			}
		} else {
			for k, i := range rows {
				keys[k] = keys[k]*d.span + uint64(d.codes[i])
			}
		}
	}
	return keys, true
}

// groupKey returns, for a key over several integer and text columns
// without NULLs, one integer per row that is equal for two rows exactly
// when their key tuples are: a mixed-radix number whose digits are each
// column's dense code (a text value's rank, an integer's number by first
// appearance), so its range is the product of the columns' distinct
// counts, often small enough to group rows by direct addressing. It
// reports false when a column is of another type, sparse integers
// (spanning more than four times the rows), or the product exceeds 2^62.
func groupKey(t *shardkey.Table, cols []int) ([]int64, bool) {
	ds, ok := tupleCodes(t, cols)
	if !ok {
		return nil, false
	}
	return packCodes(ds, t.Rows), true
}

// tupleCodes returns the dense codes of key columns cols of t (groupKey's
// digits), or false as groupKey.
func tupleCodes(t *shardkey.Table, cols []int) ([]ranked, bool) {
	n := t.Rows
	var ds []ranked
	bits := 0.0
	for _, c := range cols {
		col := t.Columns[c]
		var d ranked
		switch {
		case col.Nulls != nil:
		case col.Type.IsInt() && len(col.Ints) == n:
			d = intCodes(t, c)
		case col.Type == shardkey.Text && len(col.Strs) == n:
			d = textRanks(t, c)
		}
		if d.codes == nil {
			return nil, false
		}
		bits += math.Log2(float64(d.span))
		if bits > 62 {
			return nil, false
		}
		ds = append(ds, d)
	}
	return ds, true
}

// packCodes is groupKey's key of each of n rows from its columns' codes.
func packCodes(ds []ranked, n int) []int64 {
	keys := make([]int64, n)
	if len(ds) == 2 { // the common compound: one pass, one write per row
		a, b, sb := ds[0].codes, ds[1].codes, int64(ds[1].span)
		for i := range keys {
			keys[i] = int64(a[i])*sb + int64(b[i])
		}
		return keys
	}
	for _, d := range ds {
		for i, k := range d.codes {
			keys[i] = keys[i]*int64(d.span) + int64(k)
		}
	}
	return keys
}

// groupTuples is groupInts over groupKey's keys (the same groups, in the
// same order, their weights added in the same order), or false as
// groupKey. When the key has two columns and the product of their
// distinct counts is at most four times the rows (a customer and a
// month), it groups the rows by direct addressing on the two codes as it
// goes, without the key array (8 bytes a row) and the passes over it
// that check its order and find its range.
func groupTuples(t *shardkey.Table, cols []int, ws []float64) ([]group, bool) {
	ds, ok := tupleCodes(t, cols)
	if !ok {
		return nil, false
	}
	n := t.Rows
	if len(ds) != 2 || n == 0 || n >= 1<<31 || ds[0].span == 0 || ds[1].span > uint64(4*n)/ds[0].span {
		return groupInts(packCodes(ds, n), ws), true
	}
	a, b := ds[0].codes, ds[1].codes
	// The slot of (x, y) is x*sb + y, or y*sa + x when the second column
	// changes between rows less often than the first (rows in months'
	// order): consecutive rows then look up slots within one stretch of
	// sa entries (a month's customers, 400 KB for seed 000's 100,000)
	// rather than one slot in every stretch of the whole table. Either
	// numbering gives the same groups in the same order.
	sa, sb := ds[0].span, ds[1].span
	if ca, cb := changes(a, b); cb < ca {
		secondMajor.Add(1)
		return groupPairs(b, a, sb, sa, ws), true
	}
	return groupPairs(a, b, sa, sb, ws), true
}

// groupPairs groups the rows by their codes (a[i], b[i]), a's of sa
// distinct values and b's of sb, through a table of sa*sb slots indexed
// a[i]*sb + b[i]: groups in order of first row, weights added in row
// order.
func groupPairs(a, b []uint32, sa, sb uint64, ws []float64) []group {
	n := len(a)
	b = b[:n]
	slot := make([]int32, sa*sb) // group number + 1; 0: not seen yet
	gs := make([]group, 0, min(uint64(n), uint64(len(slot))))
	for i := range n {
		s := &slot[uint64(a[i])*sb+uint64(b[i])]
		g := *s
		if g == 0 {
			gs = append(gs, group{row: int32(i)})
			g = int32(len(gs))
			*s = g
		}
		gs[g-1].w += rowWeight(ws, i)
	}
	return gs
}

// secondMajor counts groupTuples' groupings with the second column's codes
// as the slot's major digit (tests check which path ran).
var secondMajor atomic.Int64

// changes counts the rows whose code in a, and in b, differs from the
// previous row's (a and b of equal length).
func changes(a, b []uint32) (ca, cb int) {
	b = b[:len(a)]
	for i := 1; i < len(a); i++ {
		if a[i] != a[i-1] {
			ca++
		}
		if b[i] != b[i-1] {
			cb++
		}
	}
	return ca, cb
}

// intCodes numbers the distinct values of integer column c of t by first
// appearance (codes[i] for row i; span distinct values) by direct
// addressing, memoised per table and column, or returns no codes when
// the values span more than four times the rows.
func intCodes(t *shardkey.Table, c int) ranked {
	return memo(t, fmt.Sprint("intcodes", c), func() ranked {
		vals := t.Columns[c].Ints
		n := len(vals)
		if n == 0 || n >= 1<<31 {
			return ranked{}
		}
		lo, hi := vals[0], vals[0]
		for _, v := range vals {
			lo, hi = min(lo, v), max(hi, v)
		}
		span := uint64(hi) - uint64(lo)
		if hi < lo || span >= uint64(4*n) || span >= 1<<31 {
			return ranked{}
		}
		slot := make([]uint32, span+1) // code + 1; 0: not seen yet
		codes := make([]uint32, n)
		next := uint32(0)
		for i, v := range vals {
			s := &slot[uint64(v)-uint64(lo)]
			if *s == 0 {
				next++
				*s = next
			}
			codes[i] = *s - 1
		}
		return ranked{codes: codes, span: uint64(next), lo: lo, num: slot}
	})
}

// ranked is a text column's values as ranks among its distinct values
// (codes[i] for row i; span distinct values), or no codes when it has
// too many distinct values (2^24 or more) to pack.
type ranked struct {
	codes []uint32
	span  uint64
	// intCodes' own: the smallest value, and each value's code + 1 by
	// value - lo (0: no row holds it), which a memo column keeps as its
	// num rather than build it again (memoColumn).
	lo  int64
	num []uint32
}

// textRanks returns text column c of t as ranks, memoised per table and
// column (keys that share a column share its ranks). Rows often repeat
// the previous row's value (a month, a status), which skips the lookup.
func textRanks(t *shardkey.Table, c int) ranked {
	return memo(t, fmt.Sprint("ranks", c), func() ranked {
		strs := t.Columns[c].Strs
		dict := map[string]uint32{}
		codes := make([]uint32, len(strs))
		var distinct []string
		last, lastCode := "", uint32(0)
		for i, s := range strs {
			if i > 0 && s == last {
				codes[i] = lastCode
				continue
			}
			k, ok := dict[s]
			if !ok {
				if len(distinct) >= 1<<24 {
					return ranked{}
				}
				k = uint32(len(distinct))
				dict[s] = k
				distinct = append(distinct, s)
			}
			codes[i], last, lastCode = k, s, k
		}
		order := make([]uint32, len(distinct))
		for i := range order {
			order[i] = uint32(i)
		}
		slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(distinct[a], distinct[b]) })
		rank := make([]uint32, len(distinct))
		for r, k := range order {
			rank[k] = uint32(r)
		}
		for i, k := range codes {
			codes[i] = rank[k]
		}
		return ranked{codes: codes, span: uint64(len(distinct))}
	})
}

// radixSort sorts a by key, stably, with an LSD radix sort on 8-bit digits
// (digits that are the same in every key are skipped), and returns the
// sorted slice (a, or a buffer of the same length).
func radixSort[T any](a []T, key func(*T) uint64) []T {
	return radixSortBuf(a, nil, key)
}

// radixSortBuf is radixSort with buf, when at least as long as a, as its
// buffer.
func radixSortBuf[T any](a, buf []T, key func(*T) uint64) []T {
	n := len(a)
	if n < 2 {
		return a
	}
	var counts [8][256]int
	k0 := key(&a[0])
	for i := range a {
		k := key(&a[i])
		for d := 0; d < 8; d++ {
			counts[d][byte(k>>(8*d))]++
		}
	}
	var b []T
	if len(buf) >= n {
		b = buf[:n]
	}
	for d := 0; d < 8; d++ {
		c := &counts[d]
		if c[byte(k0>>(8*d))] == n {
			continue // every key has this digit
		}
		if b == nil {
			b = make([]T, n)
		}
		var pos [256]int
		sum := 0
		for v := 0; v < 256; v++ {
			pos[v] = sum
			sum += c[v]
		}
		shift := uint(8 * d)
		for i := range a {
			v := byte(key(&a[i]) >> shift)
			b[pos[v]] = a[i]
			pos[v]++
		}
		a, b = b, a
	}
	return a
}
