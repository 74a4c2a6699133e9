package web

import "github.com/shardkey/shardkey"

// built is a cached workload. Package sim memoises per-table results by a
// weak pointer to the table (sim/cache.go), so a workload the cache evicts
// is simply collected: a table built later never sees a freed table's
// statistics, and nothing needs to stay allocated.
type built struct {
	w *shardkey.Workload
}

func newBuilt(w *shardkey.Workload) *built { return &built{w: w} }
