package web

import (
	"container/list"
	"fmt"
	"sync"
)

// cache is a least-recently-used map from a string key to a value made
// once. The server keeps two: built workloads by (spec, data settings,
// seed), since generating a large spec's rows takes far longer than
// scoring them, so the controls that change only the placement (key,
// shards, capacity, engine, salt, isolate) reuse the rows and only
// re-score; and scored keys by (workload, key, engine, shards), so a
// change of capacity, or of the other key in a comparison, re-scores
// nothing.
//
// Concurrent requests for the same entry wait for one build. Cached
// values are shared and must not be modified: callers copy a Workload
// before setting Shards or Capacity (its tables are read-only to the
// scorer), and a Candidate before setting its capacity.
//
// Besides the number of entries, the cache may bound their total weight
// (a built workload's generated cells, instances and statements, which
// measure its memory): least recently used entries are dropped while the
// total is over maxWeight, the newest always kept.
type cache[V any] struct {
	mu        sync.Mutex
	max       int
	lru       *list.List // of *entry, most recent at the front
	m         map[string]*list.Element
	weigh     func(V) int64 // nil: every entry weighs 0
	maxWeight int64
	weight    int64 // of the finished entries in the cache
}

type entry[V any] struct {
	key    string
	done   chan struct{} // closed when v and err are set
	v      V
	err    error
	weight int64
}

func newCache[V any](max int) *cache[V] {
	return &cache[V]{max: max, lru: list.New(), m: map[string]*list.Element{}}
}

// remove drops el; c.mu is held.
func (c *cache[V]) remove(el *list.Element) {
	e := el.Value.(*entry[V])
	c.lru.Remove(el)
	delete(c.m, e.key)
	c.weight -= e.weight
}

// get returns the value for key, calling build once to make it. A failed
// build is not kept, so a corrected request is built afresh.
func (c *cache[V]) get(key string, build func() (V, error)) (V, error) {
	c.mu.Lock()
	if el, ok := c.m[key]; ok {
		c.lru.MoveToFront(el)
		e := el.Value.(*entry[V])
		c.mu.Unlock()
		<-e.done
		return e.v, e.err
	}
	e := &entry[V]{key: key, done: make(chan struct{})}
	c.m[key] = c.lru.PushFront(e)
	for c.lru.Len() > c.max {
		c.remove(c.lru.Back())
	}
	c.mu.Unlock()

	func() {
		defer close(e.done)
		defer func() {
			if r := recover(); r != nil {
				var zero V
				e.v, e.err = zero, fmt.Errorf("internal error: %v", r)
			}
		}()
		e.v, e.err = build()
	}()
	c.mu.Lock()
	if el, ok := c.m[key]; ok && el.Value == e {
		if e.err != nil {
			c.remove(el)
		} else if c.weigh != nil {
			e.weight = c.weigh(e.v)
			c.weight += e.weight
			for c.weight > c.maxWeight && c.lru.Back() != el {
				c.remove(c.lru.Back())
			}
		}
	}
	c.mu.Unlock()
	return e.v, e.err
}

// len reports the number of entries.
func (c *cache[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
