package sim

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
	type pair struct {
		k   uint64
		row int32
	}
	a := make([]pair, n)
	for i, k := range keys {
		a[i] = pair{k, int32(i)}
	}
	var counts [8][256]int
	for _, k := range keys {
		for d := 0; d < 8; d++ {
			counts[d][byte(k>>(8*d))]++
		}
	}
	b := make([]pair, n)
	for d := 0; d < 8; d++ {
		c := &counts[d]
		if c[byte(keys[0]>>(8*d))] == n {
			continue // every key has this digit
		}
		var pos [256]int
		sum := 0
		for v := 0; v < 256; v++ {
			pos[v] = sum
			sum += c[v]
		}
		shift := uint(8 * d)
		for _, p := range a {
			v := byte(p.k >> shift)
			b[pos[v]] = p
			pos[v]++
		}
		a, b = b, a
	}
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
	renum := make([]int32, len(firstOfRun))
	first = make([]int32, 0, len(firstOfRun))
	for i := 0; i < n; i++ {
		r := runOf[i]
		if firstOfRun[r] == int32(i) {
			renum[r] = int32(len(first))
			first = append(first, int32(i))
		}
		gid[i] = renum[r]
	}
	return gid, first
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
