package watch

import (
	"container/heap"
	"sort"
)

// TopK finds the heaviest keys of a weighted stream in bounded memory: the
// Space-Saving algorithm of Metwally, Agrawal and El Abbadi ("Efficient
// Computation of Frequent and Top-k Elements in Data Streams", ICDT 2005),
// in its weighted form. It tracks at most Cap keys. A key seen for the
// first time when all counters are taken replaces the key with the
// smallest count and inherits that count as its error. For every tracked
// key, Count - Err <= true weight <= Count; every key whose true weight
// exceeds Total/Cap is tracked; an untracked key weighs at most Min().
// It is not safe for concurrent use.
type TopK struct {
	Cap   int
	Total float64 // the summed weight of every Add
	idx   map[string]int
	h     counterHeap
}

// Counter is one tracked key: Count is an upper bound of its weight and
// Count - Err a lower bound.
type Counter struct {
	Key   string
	Count float64
	Err   float64
}

// NewTopK returns an empty sketch tracking at most capacity keys
// (capacity >= 1).
func NewTopK(capacity int) *TopK {
	if capacity < 1 {
		capacity = 1
	}
	t := &TopK{Cap: capacity, idx: make(map[string]int, capacity)}
	t.h.idx = t.idx
	return t
}

// Add counts weight w (>= 0) for key.
func (t *TopK) Add(key string, w float64) {
	t.Total += w
	if i, ok := t.idx[key]; ok {
		t.h.c[i].Count += w
		heap.Fix(&t.h, i)
		return
	}
	if len(t.h.c) < t.Cap {
		heap.Push(&t.h, Counter{Key: key, Count: w})
		return
	}
	m := t.h.c[0]
	delete(t.idx, m.Key)
	t.h.c[0] = Counter{Key: key, Count: m.Count + w, Err: m.Count}
	t.idx[key] = 0
	heap.Fix(&t.h, 0)
}

// Min returns the bound on the weight of any untracked key: the smallest
// count when every counter is taken, else 0 (every key seen is tracked).
func (t *TopK) Min() float64 {
	if len(t.h.c) < t.Cap || len(t.h.c) == 0 {
		return 0
	}
	return t.h.c[0].Count
}

// Lookup returns key's counter, and whether it is tracked.
func (t *TopK) Lookup(key string) (Counter, bool) {
	i, ok := t.idx[key]
	if !ok {
		return Counter{}, false
	}
	return t.h.c[i], true
}

// Top returns the n tracked keys with the largest counts, largest first
// (ties by key, so the order is deterministic).
func (t *TopK) Top(n int) []Counter {
	out := append([]Counter(nil), t.h.c...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Key < out[j].Key
	})
	if n >= 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// counterHeap is a min-heap of counters by count that keeps idx (key ->
// position) up to date.
type counterHeap struct {
	c   []Counter
	idx map[string]int
}

func (h *counterHeap) Len() int           { return len(h.c) }
func (h *counterHeap) Less(i, j int) bool { return h.c[i].Count < h.c[j].Count }
func (h *counterHeap) Swap(i, j int) {
	h.c[i], h.c[j] = h.c[j], h.c[i]
	h.idx[h.c[i].Key] = i
	h.idx[h.c[j].Key] = j
}
func (h *counterHeap) Push(x any) {
	c := x.(Counter)
	h.idx[c.Key] = len(h.c)
	h.c = append(h.c, c)
}
func (h *counterHeap) Pop() any {
	c := h.c[len(h.c)-1]
	h.c = h.c[:len(h.c)-1]
	delete(h.idx, c.Key)
	return c
}
