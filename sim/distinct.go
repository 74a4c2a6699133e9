package sim

import (
	"math"
	"slices"
	"strings"

	"github.com/shardkey/shardkey"
)

// groupRows numbers the distinct values of keys (one per row) in order of
// first appearance: gid[i] is the number of row i's value, first[g] the
// first row holding value g, so len(first) is the number of distinct
// values. It sorts (key, row) pairs with a stable LSD radix sort (8-bit
// digits, digits that are the same in every key skipped) instead of
// hashing each row into a map: at millions of rows that is several times
// faster, and numbering by first appearance keeps every per-value sum in
// row order, as a map pass would.
func groupRows(keys []uint64) (gid []int32, first []int32) {
	n := len(keys)
	gid = make([]int32, n)
	if n == 0 {
		return gid, nil
	}
	maxKey := uint64(0)
	for _, k := range keys {
		maxKey = max(maxKey, k)
	}
	if maxKey < 1<<32 && n < 1<<31 {
		return groupSmallKeys(keys)
	}
	type pair struct {
		k   uint64
		row int32
	}
	a := make([]pair, n)
	for i, k := range keys {
		a[i] = pair{k, int32(i)}
	}
	a = radixSort(a, func(p *pair) uint64 { return p.k })
	// Runs of equal keys, rows ascending within each (the sort is stable).
	runOf := gid // reused: run number of each row, renumbered below
	var firstOfRun []int32
	for i := 0; i < n; {
		j := i
		r := int32(len(firstOfRun))
		firstOfRun = append(firstOfRun, a[i].row)
		for j < n && a[j].k == a[i].k {
			runOf[a[j].row] = r
			j++
		}
		i = j
	}
	return byFirstRow(runOf, firstOfRun)
}

// byFirstRow renumbers runs of equal keys (runOf[i], the run of row i,
// whose first row is firstOfRun[run]) in order of first appearance, in
// place: it returns gid (runOf, renumbered) and first.
func byFirstRow(runOf, firstOfRun []int32) (gid []int32, first []int32) {
	renum := make([]int32, len(firstOfRun))
	first = make([]int32, 0, len(firstOfRun))
	for i, r := range runOf {
		if firstOfRun[r] == int32(i) {
			renum[r] = int32(len(first))
			first = append(first, int32(i))
		}
		runOf[i] = renum[r]
	}
	return runOf, first
}

// groupSmallKeys is groupRows for keys below 2^32: each (key, row) pair
// is one uint64, key in the high half, so the sort moves half the bytes.
func groupSmallKeys(keys []uint64) (gid []int32, first []int32) {
	n := len(keys)
	a := make([]uint64, n)
	for i, k := range keys {
		a[i] = k<<32 | uint64(i)
	}
	a = radixSort(a, func(c *uint64) uint64 { return *c >> 32 })
	gid = make([]int32, n)
	runOf := gid // reused: run number of each row, renumbered below
	var firstOfRun []int32
	for i := 0; i < n; {
		k := a[i] >> 32
		r := int32(len(firstOfRun))
		firstOfRun = append(firstOfRun, int32(uint32(a[i])))
		for ; i < n && a[i]>>32 == k; i++ {
			runOf[uint32(a[i])] = r
		}
	}
	return byFirstRow(runOf, firstOfRun)
}

// groupInts is groupRows for integer values. When the values span a range
// of at most a few times their count (ids, the common case) it numbers
// them by direct addressing, one pass with no sort.
func groupInts(vals []int64) (gid []int32, first []int32) {
	n := len(vals)
	if n == 0 {
		return nil, nil
	}
	lo, hi := vals[0], vals[0]
	for _, v := range vals {
		lo, hi = min(lo, v), max(hi, v)
	}
	span := uint64(hi) - uint64(lo) // no overflow: computed modulo 2^64
	if hi < lo || span >= uint64(4*n) || span >= 1<<31 {
		keys := make([]uint64, n)
		for i, v := range vals {
			keys[i] = uint64(v)
		}
		return groupRows(keys)
	}
	slot := make([]int32, span+1) // group number + 1; 0: not seen yet
	gid = make([]int32, n)
	for i, v := range vals {
		s := &slot[uint64(v)-uint64(lo)]
		if *s == 0 {
			first = append(first, int32(i))
			*s = int32(len(first))
		}
		gid[i] = *s - 1
	}
	return gid, first
}

// packKeys encodes each row's key tuple over cols as one integer that
// preserves both equality and the tuple order cmpTuple gives (a mixed-radix
// number whose digits are each column's value less its minimum, or a text
// value's rank among the column's distinct values), when every column is
// an integer or text column without NULLs and the digits fit in 63 bits.
// It reports false otherwise. Packed keys replace hashing each tuple's
// text for distinct counting and sorting its values for the rank
// correlation.
func packKeys(t *shardkey.Table, cols []int) ([]uint64, bool) {
	n := t.Rows
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
			lo, hi := col.Ints[0], col.Ints[0]
			for _, v := range col.Ints {
				lo, hi = min(lo, v), max(hi, v)
			}
			span := uint64(hi) - uint64(lo) + 1
			if hi-lo < 0 || span == 0 || span > 1<<62 {
				return nil, false
			}
			d.ints, d.lo, d.span = col.Ints, lo, span
		case col.Type == shardkey.Text && len(col.Strs) == n:
			dict := map[string]uint32{}
			codes := make([]uint32, n)
			var distinct []string
			for i, s := range col.Strs {
				k, ok := dict[s]
				if !ok {
					if len(distinct) >= 1<<24 {
						return nil, false
					}
					k = uint32(len(distinct))
					dict[s] = k
					distinct = append(distinct, s)
				}
				codes[i] = k
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
			d.codes, d.span = codes, uint64(len(distinct))
		default:
			return nil, false
		}
		bits += math.Log2(float64(d.span))
		if bits > 62 {
			return nil, false
		}
	}
	keys := make([]uint64, n)
	for j := range ds {
		d := &ds[j]
		if d.ints != nil {
			for i, v := range d.ints {
				keys[i] = keys[i]*d.span + (uint64(v) - uint64(d.lo))
			}
		} else {
			for i, k := range d.codes {
				keys[i] = keys[i]*d.span + uint64(k)
			}
		}
	}
	return keys, true
}

// radixSort sorts a by key, stably, with an LSD radix sort on 8-bit digits
// (digits that are the same in every key are skipped), and returns the
// sorted slice (a, or a buffer of the same length).
func radixSort[T any](a []T, key func(*T) uint64) []T {
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
