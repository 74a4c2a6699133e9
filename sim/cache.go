package sim

import (
	"fmt"
	"slices"
	"sync"
	"weak"

	"github.com/shardkey/shardkey"
)

// Per-table results that do not depend on the shard count or the
// partition function's layout (key statistics, hot values, a key's hash
// points, a range key's sorted values) are memoised by table, so that
// re-scoring after a change of shard count, capacity or modifier (the
// playground's sliders) does not redo them. Tables are immutable once
// read. Entries are keyed by a weak pointer: a freed table's entries can
// never be returned for a new table at the same address, and are swept.

type memoKey struct {
	t    weak.Pointer[shardkey.Table]
	rows int
	what string
}

var memoTable = struct {
	sync.Mutex
	m map[memoKey]any
}{m: map[memoKey]any{}}

// memoMax bounds the entries kept.
const memoMax = 512

// memo returns the memoised result of f for table t and what, computing it
// on first use. It is safe for concurrent use; f may run twice for one key
// when two goroutines miss at once, with the same result.
func memo[T any](t *shardkey.Table, what string, f func() T) T {
	k := memoKey{weak.Make(t), t.Rows, what}
	memoTable.Lock()
	v, ok := memoTable.m[k]
	memoTable.Unlock()
	if ok {
		return v.(T)
	}
	r := f()
	memoTable.Lock()
	if len(memoTable.m) >= memoMax {
		for mk := range memoTable.m {
			if mk.t.Value() == nil {
				delete(memoTable.m, mk)
			}
		}
		if len(memoTable.m) >= memoMax {
			memoTable.m = map[memoKey]any{}
		}
	}
	memoTable.m[k] = r
	memoTable.Unlock()
	return r
}

// Cache keeps, across the Compile and Score calls that are given it
// (Options.Cache), results that depend on a workload's statements alone
// and that every candidate design would otherwise recompute: the
// statements' key statistics of a table without rows (TrafficKeyStats, in
// Report) and the key values that range boundaries split without rows
// (trafficKeys, in Compile), per workload, tables and columns. They do
// not depend on the shard count, the engine or the rest of the design.
// The caller must not change a workload (its operations, their instances,
// its transactions and their statements) while a Cache holds results for
// it: the advisor builds each workload it scores (a fix's, a carried
// key's) before scoring it, and gives a Cache to one Recommend call. A
// nil *Cache keeps nothing. Safe for concurrent use. Entries are keyed by
// weak pointer: a freed workload's are never returned for a new one at
// the same address.
type Cache struct {
	mu sync.Mutex
	m  map[cacheKey]any
}

type cacheKey struct {
	w    weak.Pointer[shardkey.Workload]
	what string
}

// NewCache returns an empty Cache.
func NewCache() *Cache { return &Cache{m: map[cacheKey]any{}} }

// cacheEntry is one result of cached, computed once: a goroutine that
// asks for it while another computes it waits for that result (the
// advisor scores candidates concurrently, and several share a table's
// statistics).
type cacheEntry struct {
	once sync.Once
	v    any
}

// cached returns c's result of f for w and what, computing it on first
// use; with a nil c, f's result. f must not ask for the same w and what.
func cached[T any](c *Cache, w *shardkey.Workload, what string, f func() T) T {
	if c == nil {
		return f()
	}
	k := cacheKey{weak.Make(w), what}
	c.mu.Lock()
	e, _ := c.m[k].(*cacheEntry)
	if e == nil {
		e = &cacheEntry{}
		c.m[k] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.v = f() })
	return e.v.(T)
}

// Reweighted records that rep has w's statements with other weights (a
// bootstrap replicate: the same operations, instances and transactions in
// the same order, their conditions and statements the same slices):
// Compile then takes the key values that range boundaries split from w's
// conditions, read once for all replicates, and weighs them with rep's
// weights. What rep does not share with w (checked) is computed from rep.
func (c *Cache) Reweighted(rep, w *shardkey.Workload) {
	c.mu.Lock()
	c.m[cacheKey{weak.Make(rep), "reweighted"}] = w
	c.mu.Unlock()
}

// reweightedFrom returns the workload rep was recorded to reweight, or
// nil.
func (c *Cache) reweightedFrom(rep *shardkey.Workload) *shardkey.Workload {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	w, _ := c.m[cacheKey{weak.Make(rep), "reweighted"}].(*shardkey.Workload)
	return w
}

// A table's rows sorted by a key's values depend on its columns alone,
// not its weights: a bootstrap replicate (a copy of the table with
// resampled weights, sharing its columns) sorts as its source does.
// keyOrder memoises the order by the columns, so that each replicate only
// weighs it (sortedKeys, hashedSortedKeys): advise's bootstrap of a
// MongoDB compound hashed key re-hashed and re-sorted every row of every
// replicate.

type orderKey struct {
	first  weak.Pointer[shardkey.Column]
	rows   int
	hashed int
	n      int // columns
}

// keyOrder is the rows of a table sorted by their key tuples: keys[i]
// is row rows[i]'s tuple, ties in row order; err a row's value MongoDB
// cannot hash.
type keyOrder struct {
	keys [][]shardkey.Value
	rows []int32
	err  error
	cols []weak.Pointer[shardkey.Column] // the key's columns, checked on a hit
}

// columnMemo holds results memoised by key columns, keyed by K, whose
// entries are swept once their columns are freed (alive false), as
// memoTable's are once their table is.
type columnMemo[K comparable, V any] struct {
	mu    sync.Mutex
	m     map[K]V
	alive func(K) bool
}

func (c *columnMemo[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

// put stores v for k, first sweeping entries whose columns are freed
// when memoMax are held (and dropping all if none was).
func (c *columnMemo[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= memoMax {
		for mk := range c.m {
			if !c.alive(mk) {
				delete(c.m, mk)
			}
		}
		if c.m == nil || len(c.m) >= memoMax {
			c.m = map[K]V{}
		}
	}
	c.m[k] = v
}

var orderTable = columnMemo[orderKey, *keyOrder]{alive: func(k orderKey) bool { return k.first.Value() != nil }}

// sortedOrder returns t's rows sorted by columns cols (canonical values;
// column hashed-1 by MongoDB's hashed value when hashed > 0), memoised by
// the columns themselves.
func sortedOrder(t *shardkey.Table, cols []int, hashed int) *keyOrder {
	k := orderKey{weak.Make(t.Columns[cols[0]]), t.Rows, hashed, len(cols)}
	same := func(o *keyOrder) bool {
		for j, c := range cols {
			if o.cols[j].Value() != t.Columns[c] {
				return false
			}
		}
		return true
	}
	if o, ok := orderTable.get(k); ok && same(o) {
		return o
	}
	o := computeOrder(t, cols, hashed)
	orderTable.put(k, o)
	return o
}

func computeOrder(t *shardkey.Table, cols []int, hashed int) *keyOrder {
	o := &keyOrder{keys: make([][]shardkey.Value, t.Rows), rows: make([]int32, t.Rows)}
	for _, c := range cols {
		o.cols = append(o.cols, weak.Make(t.Columns[c]))
	}
	var hs []int64 // the hashed column's values, shared with routing (mongoHashes)
	if hashed > 0 {
		hs = mongoHashes(t.Columns[cols[hashed-1]], t.Rows)
	}
	flat := make([]shardkey.Value, t.Rows*len(cols))
	for i := 0; i < t.Rows; i++ {
		k := flat[i*len(cols) : (i+1)*len(cols) : (i+1)*len(cols)]
		for j, c := range cols {
			if j == hashed-1 {
				if hs != nil {
					k[j] = shardkey.IntValue(hs[i])
					continue
				}
				v, err := mongoHashedValue(t.Columns[c].Value(i))
				if err != nil {
					o.err = fmt.Errorf("row %d: column %s: %w", i+1, t.Columns[c].Name, err)
					return o
				}
				k[j] = v
				continue
			}
			k[j] = t.Columns[c].Value(i).Canonical()
		}
		o.keys[i] = k
		o.rows[i] = int32(i)
	}
	// Sorted by key, ties by row: the order a stable sort of the rows
	// gives, reached by an unstable (faster) sort.
	idx := o.rows
	slices.SortFunc(idx, func(a, b int32) int {
		if c := cmpTuple(o.keys[a], o.keys[b]); c != 0 {
			return c
		}
		return int(a - b)
	})
	keys := make([][]shardkey.Value, t.Rows)
	for i, r := range idx {
		keys[i] = o.keys[r]
	}
	o.keys = keys
	return o
}

// weighed returns o's keys with t's weights, in o's order.
func (o *keyOrder) weighed(t *shardkey.Table) []keyWeight {
	all := make([]keyWeight, len(o.keys))
	for i, k := range o.keys {
		all[i] = keyWeight{k, t.Weight(int(o.rows[i]))}
	}
	return all
}

// hashedColumn is MongoDB's hashed value of each of the first rows rows
// of a column (hashes nil when one of them cannot be hashed: the rows are
// then hashed one by one, and the error reported where it is met).
type hashedColumn struct {
	rows   int
	hashes []int64
}

var hashedTable = columnMemo[weak.Pointer[shardkey.Column], *hashedColumn]{alive: func(k weak.Pointer[shardkey.Column]) bool { return k.Value() != nil }}

// mongoHashes returns MongoDB's hashed values of the first rows rows of
// column c, memoised by the column (every candidate, shard count and
// bootstrap replicate routes the same rows), or nil when a value cannot
// be hashed.
func mongoHashes(c *shardkey.Column, rows int) []int64 {
	k := weak.Make(c)
	if h, ok := hashedTable.get(k); ok && h.rows >= rows {
		if h.hashes == nil {
			return nil
		}
		return h.hashes[:rows]
	}
	h := &hashedColumn{rows: rows, hashes: make([]int64, rows)}
	for i := range rows {
		v, err := mongoHashedValue(c.Value(i))
		if err != nil {
			h.hashes = nil
			break
		}
		h.hashes[i] = v.Int
	}
	hashedTable.put(k, h)
	return h.hashes
}
