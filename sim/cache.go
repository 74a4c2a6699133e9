package sim

import (
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
