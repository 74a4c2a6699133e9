package advisor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sim"
)

// hotRow is one row (or a very few) of a table that most write
// transactions write, named by the same constant key value each time: a
// global counter (UPDATE counters SET n = n + 1 WHERE name = 'invoices').
// Under any key that row is on one shard, so every transaction that
// writes it commits there as well as on its own entity's shard: it
// serialises the writes and makes them cross shards, which no choice of
// key fixes (two-phase commit only makes the crossing correct).
type hotRow struct {
	Table  int
	Col    int
	Values []string // the constant values named, at most maxHotValues
	// Txns and Of are the transactions (weight) writing the row, and all
	// the transactions that write anything (weight); N counts the former
	// as entries, each once.
	Txns, Of float64
	N        int
}

const (
	maxHotValues = 2  // "one (or very few) constant key values"
	minHotTxns   = 10 // transactions seen writing it, each once
	minHotShare  = 0.5
)

// hotRows finds the hot rows of w's transactions: a table whose
// transactional updates and deletes all bind one column by equality to at most maxHotValues
// constant values, in at least minHotTxns transactions and at least
// half the write transactions' weight. A table with a row sample or
// reads by other values is still a hot row: the writes are what
// serialise.
func hotRows(w *shardkey.Workload) []hotRow {
	var total float64
	type acc struct {
		vals  map[int]map[string]bool // column -> values seen
		bad   map[int]bool            // column not bound to a constant in some write
		txns  float64
		n     int
		nStmt int
	}
	by := map[int]*acc{}
	for _, tx := range w.Txns {
		if !tx.Committed() {
			continue // a hot row's contention is between commits
		}
		writes := false
		touched := map[int]bool{}
		for _, st := range tx.Stmts {
			if st.Kind == shardkey.Read {
				continue
			}
			writes = true
			if st.Kind == shardkey.Insert {
				// A new row each time, not one row written again; but
				// every INSERT makes it a write transaction.
				continue
			}
			a := by[st.Table]
			if a == nil {
				a = &acc{vals: map[int]map[string]bool{}, bad: map[int]bool{}}
				by[st.Table] = a
			}
			bound := map[int]string{}
			for _, c := range st.Conds {
				if c.Op == shardkey.Eq && c.Fresh == shardkey.NotFresh && c.Via == 0 {
					bound[c.Col] = c.Val.String()
				}
			}
			if a.nStmt == 0 {
				for col, v := range bound {
					a.vals[col] = map[string]bool{v: true}
				}
			} else {
				for col := range a.vals {
					v, ok := bound[col]
					if !ok {
						a.bad[col] = true
						continue
					}
					a.vals[col][v] = true
				}
			}
			a.nStmt++
			touched[st.Table] = true
		}
		if !writes {
			continue
		}
		total += tx.Weight
		for t := range touched {
			by[t].txns += tx.Weight
			by[t].n++
		}
	}
	var out []hotRow
	for t, a := range by {
		if a.n < minHotTxns || total <= 0 || a.txns < minHotShare*total {
			continue
		}
		best := -1
		for col, vs := range a.vals {
			if a.bad[col] || len(vs) > maxHotValues {
				continue
			}
			if best < 0 || col < best {
				best = col
			}
		}
		if best < 0 {
			continue
		}
		var vals []string
		for v := range a.vals[best] {
			vals = append(vals, v)
		}
		slices.Sort(vals)
		out = append(out, hotRow{Table: t, Col: best, Values: vals, Txns: a.txns, Of: total, N: a.n})
	}
	slices.SortFunc(out, func(x, y hotRow) int { return x.Table - y.Table })
	return out
}

// where is the row's condition, "name = 'invoices'".
func (h hotRow) where(w *shardkey.Workload) string {
	col := w.Tables[h.Table].Columns[h.Col].Name
	if len(h.Values) == 1 {
		return col + " = " + sqlQuote(h.Values[0], w.Tables[h.Table].Columns[h.Col].Type)
	}
	var q []string
	for _, v := range h.Values {
		q = append(q, sqlQuote(v, w.Tables[h.Table].Columns[h.Col].Type))
	}
	return col + " IN (" + strings.Join(q, ", ") + ")"
}

func sqlQuote(v string, t shardkey.Type) string {
	if t == shardkey.Text || t == shardkey.UUID || t == shardkey.Timestamp {
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	}
	return v
}

// short names the hot row for the headline.
func (h hotRow) short(w *shardkey.Workload) string {
	rows := "one row"
	if len(h.Values) > 1 {
		rows = fmt.Sprintf("%d rows", len(h.Values))
	}
	return fmt.Sprintf("%s, %s where %s, is written by %s of the write transactions", rows, w.Tables[h.Table].Name, h.where(w), pct(h.Txns/h.Of))
}

// withoutTable is w with table t's statements left out of every
// transaction: what the transactions would commit were that row's
// writes moved out of them (a per-entity counter on the entity's shard,
// or an asynchronous aggregate).
func withoutTable(w *shardkey.Workload, t int) *shardkey.Workload {
	c := *w
	c.Txns = make([]shardkey.Txn, 0, len(w.Txns))
	for _, tx := range w.Txns {
		var st []shardkey.Stmt
		for _, s := range tx.Stmts {
			if s.Table != t {
				st = append(st, s)
			}
		}
		if len(st) == 0 {
			continue
		}
		tx.Stmts = st
		c.Txns = append(c.Txns, tx)
	}
	return &c
}

// hotRowFix says what the hot row does and how to remove it, re-scoring
// the design's transactions without the row's writes. entity is the
// design's key column on the other tables those transactions write (the
// column to add to the row's key), "" when none.
func (a *analysis) hotRowFix(as *Assessment, w *shardkey.Workload, o sim.Options) {
	for _, h := range a.hot {
		t := w.Tables[h.Table].Name
		entity := hotEntityColumn(w, as.Score, h.Table)
		fix := "keep one counter per entity on the entity's shard"
		if entity != "" {
			fix = fmt.Sprintf("keep one counter per %s on its shard (add %s to the key of %s and sum them when reading the total)", entity, entity, t)
		}
		fix += ", or an asynchronous aggregate or a sequence per shard instead of one global row"
		without := ""
		f := Fix{Kind: "hot-row", Target: t + " where " + h.where(w)}
		if as.Score.Transactions > 0 {
			if c, err := sim.Score(withoutTable(w, h.Table), as.Key, o); err == nil && c.Transactions > 0 {
				without = fmt.Sprintf("; without its writes %s of transactions would cross shards under this key, against %s", pct(c.CrossShardTxnFraction), pct(as.Score.CrossShardTxnFraction))
				f.Key = as.Key
				f.Before = nums(as.Score)
				f.After = nums(c)
			}
		}
		f.Text = fmt.Sprintf("Hot row: %s (%d transactions): a row every write serialises on, whatever the shard key, and on one shard, so each transaction writing it commits there too%s. Two-phase commit would only make that crossing correct; remove it: %s.",
			h.short(w), h.N, without, fix)
		as.Fixes = append(as.Fixes, f)
	}
}

// hotEntityColumn is the key column the design gives most of the other
// tables the hot row's transactions write: "tenant_id".
func hotEntityColumn(w *shardkey.Workload, c *sim.Candidate, hot int) string {
	if c == nil {
		return ""
	}
	count := map[string]int{}
	for _, tk := range c.Tables {
		if tk.Table == w.Tables[hot].Name || len(tk.Columns) != 1 {
			continue
		}
		ti := w.TableIndex(tk.Table)
		for _, tx := range w.Txns {
			if !tx.Committed() {
				continue
			}
			for _, s := range tx.Stmts {
				if s.Table == ti && s.Kind != shardkey.Read {
					count[tk.Columns[0]]++
				}
			}
		}
	}
	best, bn := "", 0
	for col, n := range count {
		// On a tie, a reference to another table's entity (tenant_id)
		// before a table's own id.
		if n > bn || n == bn && (strings.HasSuffix(col, "_id") && !strings.HasSuffix(best, "_id") || strings.HasSuffix(col, "_id") == strings.HasSuffix(best, "_id") && col < best) {
			best, bn = col, n
		}
	}
	return best
}
