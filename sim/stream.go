package sim

import (
	"sync"

	"github.com/shardkey/shardkey"
)

// Stream scores operation instances and transactions under several schemes
// as a reader produces them (it is a shardkey.Sink), so they are routed
// once and never held: each batch of lines is routed by the goroutine that
// parsed it into one Partial per scheme, and the batches' partials are
// merged in input order. Row samples are still routed by Run; Total merges
// the two. The result does not depend on scheduling; it equals Run's on the
// same workload held in memory exactly for integer weights, and up to
// floating-point rounding (the last bits of sums added in another order)
// for fractional ones.
type Stream struct {
	Schemes []*Scheme
	// Parts holds the merged partial of each scheme, by index.
	Parts []*Partial
	pool  sync.Pool // *StreamBatch, with routers to reuse

	// What depends on the row samples alone (each scheme's rows
	// partial, key statistics, hash points) is computed in the
	// background while the samples stream; Total waits for it.
	rowsDone sync.WaitGroup
	rows     []*Partial
	rowsErr  []error
}

// NewStream returns an empty stream for schemes, which must share one
// workload and shard count, and starts routing the workload's row samples
// under them in the background. The tables must not change from now on;
// operations and transactions may still be added.
func NewStream(schemes []*Scheme) *Stream {
	st := &Stream{Schemes: schemes, Parts: make([]*Partial, len(schemes)),
		rows: make([]*Partial, len(schemes)), rowsErr: make([]error, len(schemes))}
	for i, s := range schemes {
		st.Parts[i] = NewPartial(s.N, 0)
		s.fillMemos()
	}
	st.rowsDone.Add(1)
	go func() {
		defer st.rowsDone.Done()
		for i, s := range schemes {
			st.rows[i], st.rowsErr[i] = run(s.w, s, 0, true, false, false)
			s.prefetch()
		}
	}()
	return st
}

// StreamBatch is one batch's partial scores under every scheme of a
// Stream.
type StreamBatch struct {
	routers []*router
	parts   []*Partial
	// touches says some scheme routes through a memo's shard table
	// (Touch has work to do); sink keeps Touch's loads.
	touches bool
	at      touches
	key     []shardkey.Value
	sink    uint32
}

// NewBatch returns an empty batch (shardkey.Sink).
func (st *Stream) NewBatch() shardkey.Batch {
	if b, ok := st.pool.Get().(*StreamBatch); ok {
		return b
	}
	b := &StreamBatch{routers: make([]*router, len(st.Schemes)), parts: make([]*Partial, len(st.Schemes))}
	for i, s := range st.Schemes {
		b.routers[i] = newRouter(s)
		b.parts[i] = NewPartial(s.N, 0)
		for _, tk := range s.tables {
			if touchable(tk) {
				b.touches = true
			}
		}
	}
	return b
}

// touchable reports whether statements on tk's table are routed through
// its memo's shard table (stmtKey's memoised path).
func touchable(tk *tableKey) bool {
	return tk != nil && tk.memo != nil && tk.memo.sh != nil && tk.kind == kHash && tk.iso == nil && tk.salted == nil
}

// Touches reports whether Touch has work to do: some scheme's key is a
// costly engine's, memoised in a table too big for the cache to hold.
func (b *StreamBatch) Touches() bool { return b.touches }

// Touch notes, under every scheme, the memo table entries that routing a
// statement with conds on table will read (pass 0, then after Load pass
// 1: a compound key's slot needs its columns' numbers), without routing
// it; Load then loads all those noted. Called for a few statements before
// they are routed (Instance, Txn), they let the statements' cache misses
// overlap: a statement routed by itself waits for each miss in turn.
// They change nothing; the result is the same without them.
func (b *StreamBatch) Touch(table int, conds []shardkey.Cond, pass int) {
	for _, r := range b.routers {
		tk := r.s.tables[table]
		if !touchable(tk) || pass != 0 && tk.memo.byVal {
			continue // nothing to touch (by value: all in pass 0)
		}
		if cap(b.key) < len(tk.cols) {
			b.key = make([]shardkey.Value, len(tk.cols))
		}
		if key := b.key[:len(tk.cols)]; eqKey(key, tk.cols, conds) {
			tk.memo.touchAt(&b.at, key, pass)
		}
	}
}

// Load loads the entries Touch noted (see Touch).
func (b *StreamBatch) Load() { b.sink += b.at.load() }

// Merge adds batch b into the stream's totals; ops maps b's operation
// numbers to workload operations (shardkey.Sink). b is reset and reused.
func (st *Stream) Merge(b shardkey.Batch, ops []int) {
	sb := b.(*StreamBatch)
	for i, p := range sb.parts {
		st.Parts[i].mergeOps(p, ops)
		p.reset()
	}
	st.pool.Put(sb)
}

// Instance routes one operation instance under every scheme.
func (b *StreamBatch) Instance(op, table int, kind shardkey.Kind, conds, sets []shardkey.Cond, w float64) error {
	var tc touch
	for i, r := range b.routers {
		if err := r.stmtTo(&tc, table, kind, conds, sets); err != nil {
			return err
		}
		p := b.parts[i]
		p.growOps(op + 1)
		r.addTouch(p, op, &tc, w)
		if kind.IsWrite() {
			p.addAutoTxn(&tc, w)
		}
	}
	return nil
}

// Txn routes one transaction under every scheme.
func (b *StreamBatch) Txn(stmts []shardkey.Stmt, w float64) error {
	tx := shardkey.Txn{Weight: w, Stmts: stmts}
	for i, r := range b.routers {
		if err := r.txn(b.parts[i], &tx); err != nil {
			return err
		}
	}
	return nil
}

// Total returns scheme i's score: the partial Run computes for the rows
// (and for any instances and transactions the workload holds) merged with
// what the stream routed. Call it after the readers have finished.
func (st *Stream) Total(i int, workers int) (*Partial, error) {
	s := st.Schemes[i]
	st.rowsDone.Wait()
	if st.rowsErr[i] != nil {
		return nil, st.rowsErr[i]
	}
	held, err := run(s.w, s, workers, false, true, true)
	if err != nil {
		return nil, err
	}
	p := NewPartial(s.N, 0)
	p.Merge(st.rows[i])
	p.Merge(held)
	p.Merge(st.Parts[i])
	for k, op := range s.w.Ops {
		if op.Rate == 0 && k < len(p.Ops) {
			// Every instance weighs 0: as in Run, the operation
			// contributes nothing, not even instances to the fan-out
			// count (its sums are all 0 already).
			p.Ops[k].Count = 0
		}
	}
	return p, nil
}
