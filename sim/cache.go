package sim

import (
	"fmt"
	"sync"

	"github.com/shardkey/shardkey"
)

// statsCache memoises KeyStats by table identity and column list. Tables
// are immutable once read, so the pointer identifies the data.
type statsCache struct {
	mu sync.Mutex
	m  map[string]KeyStats
}

func newStatsCache() *statsCache { return &statsCache{m: map[string]KeyStats{}} }

func (c *statsCache) get(t *shardkey.Table, cols []int) KeyStats {
	k := fmt.Sprintf("%p/%d/%v", t, t.Rows, cols)
	c.mu.Lock()
	ks, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return ks
	}
	ks = ComputeKeyStats(t, cols)
	c.mu.Lock()
	if len(c.m) > 4096 {
		c.m = map[string]KeyStats{}
	}
	c.m[k] = ks
	c.mu.Unlock()
	return ks
}
