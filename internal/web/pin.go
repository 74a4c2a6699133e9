package web

import (
	"runtime"
	"sync"

	"github.com/shardkey/shardkey"
)

// built is a cached workload.
//
// Why not the *shardkey.Workload itself: package sim memoises key
// statistics by the address of a *shardkey.Table (sim/cache.go). Once the
// cache evicts a workload and the garbage collector frees its tables, a
// table built later can get the same address and the same row count, and
// would be scored with the freed table's statistics (top values,
// cardinality): moving the celebrity slider past the cache size showed
// the first celebrity's share for every later one. So every table struct
// the server builds stays allocated for the life of the process (pinned,
// about a hundred bytes each), and its rows are dropped once no request
// uses it: when the built value is unreachable (evicted, and every request
// that took it has finished with runtime.KeepAlive).
type built struct {
	w *shardkey.Workload
}

var pinned struct {
	mu     sync.Mutex
	tables []*shardkey.Table
}

func newBuilt(w *shardkey.Workload) *built {
	b := &built{w: w}
	tables := append([]*shardkey.Table(nil), w.Tables...)
	pinned.mu.Lock()
	pinned.tables = append(pinned.tables, tables...)
	pinned.mu.Unlock()
	runtime.AddCleanup(b, func(ts []*shardkey.Table) {
		pinned.mu.Lock()
		defer pinned.mu.Unlock()
		for _, t := range ts {
			t.Columns, t.Weights, t.Monotonic = nil, nil, nil
		}
	}, tables)
	return b
}
