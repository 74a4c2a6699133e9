package sim

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/jsonnull"
)

// Movement is what rewriting a workload's rows from one design (From, the
// design in use) to another (To) moves, counted on the row sample.
//
// A table whose key changes is rewritten whole: every engine that changes
// a table's shard key copies every row into the new layout (Vitess
// MoveTables' copy phase, MongoDB reshardCollection's clone phase, Citus
// alter_distributed_table), so Rows counts them all. RowsCrossing counts
// the copies that land on another shard than the row's current one (shard
// k before and after taken to be the same machine, which holds only when
// both designs have the same shard count; with different counts every
// copy crosses). A replicated table holds a copy on every shard; a salted
// hot row is spread evenly over its buckets.
type Movement struct {
	From       string `json:"from"`
	To         string `json:"to"`
	FromShards int    `json:"from_shards"`
	ToShards   int    `json:"to_shards"`
	// Rows is the number of row copies written into the new layout (of
	// the rewritten tables); RowsCrossing those that cross shards.
	Rows         float64 `json:"rows"`
	RowsCrossing float64 `json:"rows_crossing"`
	// Per source shard (the design in use): rows it holds of the
	// rewritten tables, and rows it sends to other shards.
	SourceRows []float64 `json:"source_rows"`
	SourceOut  []float64 `json:"source_out"`
	// Per target shard: rows it holds after, and rows it receives from
	// other shards.
	TargetRows []float64       `json:"target_rows"`
	TargetIn   []float64       `json:"target_in"`
	Tables     []TableMovement `json:"tables"`
	// Unsampled names the rewritten tables without a row sample (a
	// workload read from a log): how many rows they hold is unknown, so
	// Rows, RowsCrossing and the per-shard figures (which leave them out)
	// are unknown too, not 0. Empty when every rewritten table has rows.
	Unsampled []string `json:"unsampled_tables,omitempty"`
}

// RowsKnown reports whether m's row figures count every rewritten
// table's rows (no rewritten table is without a row sample).
func (m *Movement) RowsKnown() bool { return len(m.Unsampled) == 0 }

// TableMovement is one table's part of a Movement.
type TableMovement struct {
	Table   string `json:"table"`
	FromKey string `json:"from_key"` // "-" for an unsharded table
	ToKey   string `json:"to_key"`
	// Rewritten says the table's placement changes (its key, or the
	// shard count); Rows are its row copies after (0 when not
	// rewritten), RowsCrossing those on another shard than before.
	Rewritten    bool    `json:"rewritten"`
	Rows         float64 `json:"rows"`
	RowsCrossing float64 `json:"rows_crossing"`
	// Unsampled says the table is rewritten but has no row sample: Rows
	// and RowsCrossing are unknown (null in JSON), not 0.
	Unsampled bool `json:"-"`
}

// MarshalJSON writes t with rows and rows_crossing null when they are
// unknown (Unsampled: a rewritten table without a row sample).
func (t TableMovement) MarshalJSON() ([]byte, error) {
	type plain TableMovement
	b, err := marshalNoEscape(plain(t))
	if err != nil {
		return nil, err
	}
	return jsonnull.Null(b, jsonnull.Unless(!t.Unsampled, "rows", "rows_crossing")...)
}

// Reshard returns what rewriting w's row sample from scheme from to
// scheme to moves. Both must be compiled for w. Errors are routing errors
// (a key the engine cannot place).
func Reshard(w *shardkey.Workload, from, to *Scheme) (*Movement, error) {
	m := &Movement{From: from.Design.Text, To: to.Design.Text, FromShards: from.N, ToShards: to.N,
		SourceRows: make([]float64, from.N), SourceOut: make([]float64, from.N),
		TargetRows: make([]float64, to.N), TargetIn: make([]float64, to.N), Tables: []TableMovement{}}
	ra, rb := newRouter(from), newRouter(to)
	src := make([]float64, from.N)
	dst := make([]float64, to.N)
	sameN := from.N == to.N
	for ti, t := range w.Tables {
		ka, kb := from.tables[ti], to.tables[ti]
		tm := TableMovement{Table: t.Name, FromKey: keyText(ka), ToKey: keyText(kb)}
		tm.Rewritten = !sameN || tm.FromKey != tm.ToKey && !samePlacement(ka, kb)
		if tm.Rewritten && t.Rows == 0 {
			tm.Unsampled = true
			m.Unsampled = append(m.Unsampled, t.Name)
		}
		if !tm.Rewritten || t.Rows == 0 {
			m.Tables = append(m.Tables, tm)
			continue
		}
		for i := 0; i < t.Rows; i++ {
			if err := holdings(ra, ka, t, i, src); err != nil {
				return nil, fmt.Errorf("table %s, row %d, under %s: %w", t.Name, i+1, from.Design.Text, err)
			}
			if err := holdings(rb, kb, t, i, dst); err != nil {
				return nil, fmt.Errorf("table %s, row %d, under %s: %w", t.Name, i+1, to.Design.Text, err)
			}
			for k, x := range src {
				m.SourceRows[k] += x
			}
			for k, y := range dst {
				tm.Rows += y
				m.TargetRows[k] += y
				in := y
				if sameN {
					in = max(0, y-src[k])
				}
				tm.RowsCrossing += in
				m.TargetIn[k] += in
			}
			// What leaves a source shard: its copy, where the row is not
			// kept on that same shard.
			for k, x := range src {
				out := x
				if sameN {
					out = max(0, x-dst[k])
				}
				m.SourceOut[k] += out
			}
		}
		m.Rows += tm.Rows
		m.RowsCrossing += tm.RowsCrossing
		m.Tables = append(m.Tables, tm)
	}
	return m, nil
}

// samePlacement reports whether keys a and b, of one table under two
// schemes of the same shard count, place every row alike whatever its
// values, though written differently: both a plain hash (no salt,
// isolate or directory) of the same columns in the same order, placed by
// the same engine over the same layout. Under a Vitess engine hash(id)
// and hash(id, vindex=hash) are one primary vindex (the hash vindex, the
// same keyspace ids over the same keyspace-id ranges): changing the
// VSchema's spelling moves no row. Anything else counts as different:
// the table is rewritten.
func samePlacement(a, b *tableKey) bool {
	if _, ok := a.expr.(*shardkey.HashExpr); !ok || a.kind != kHash {
		return false
	}
	if _, ok := b.expr.(*shardkey.HashExpr); !ok || b.kind != kHash {
		return false
	}
	return slices.Equal(a.cols, b.cols) && a.engName == b.engName && a.base == b.base &&
		reflect.DeepEqual(a.layout, b.layout)
}

// keyText names a table's compiled key.
func keyText(tk *tableKey) string {
	switch tk.kind {
	case kUnplaced:
		return "-"
	case kReplicate:
		return "replicate"
	}
	return tk.expr.String()
}

// holdings sets h[k] to how much of row i of t shard k holds under tk:
// 1 on its shard; 1 on every shard for a replicated table; spread evenly
// over its buckets for a salted hot row, and over every shard for a NULL
// key the engine cannot place.
func holdings(r *router, tk *tableKey, t *shardkey.Table, i int, h []float64) error {
	clear(h)
	if tk.kind == kReplicate {
		for k := range h {
			h[k] = 1
		}
		return nil
	}
	tc, err := r.row(tk, t, i)
	if err != nil {
		return err
	}
	switch tc.kind {
	case tOne:
		h[tc.one] = 1
	case tUniformOf:
		for _, k := range tc.set {
			h[k] += 1 / float64(len(tc.set))
		}
	default:
		for k := range h {
			h[k] = 1 / float64(len(h))
		}
	}
	return nil
}
