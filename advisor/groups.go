package advisor

import (
	"fmt"
	"strings"

	"github.com/shardkey/shardkey"
)

// Entity groups (seed 000, "Co-location and secondary indexes"): a root
// entity and everything that hangs off it. A child table that does not
// carry the root's key but references a parent that does (order_items
// references orders by order_id, and orders carries customer_id) can be
// co-located with it only by carrying the root key: the key is
// denormalised into the child (Citus's co-located tables need the
// distribution column in every table; Spanner's interleaved tables put the
// parent's key first in the child's primary key). The advisor scores the
// design with the key carried, on a copy of the workload in which the
// child's rows, queries and transaction statements hold the root value
// their parent row holds, and says what carrying it costs.

// link is a parent/child relation: column col of table child holds the
// values of column pcol of table parent, which identifies parent's rows
// (its primary key, or unique in its sample).
type link struct {
	child, col   int
	parent, pcol int
	source       string // why: "foreign key", "same column name and unique in orders", ...
}

// findLinks returns the parent/child relations the workload shows: the
// catalog's foreign keys (from --from or --schema), then columns of one
// class (the same name, or the same values in transactions) that are
// unique in exactly one table, the parent.
func (a *analysis) findLinks() []link {
	w := a.w
	var out []link
	seen := map[[2]int]bool{} // child, col
	add := func(l link) {
		if l.child == l.parent || seen[[2]int{l.child, l.col}] {
			return
		}
		seen[[2]int{l.child, l.col}] = true
		out = append(out, l)
	}
	if cat := w.Catalog; cat != nil {
		for ti, t := range w.Tables {
			info := cat.Table(t.Name)
			if info == nil {
				continue
			}
			for _, fk := range info.ForeignKeys {
				if len(fk.Columns) != 1 || len(fk.RefColumns) != 1 {
					continue
				}
				pi := w.TableIndex(fk.RefTable)
				if pi < 0 {
					continue
				}
				ci, pc := t.ColumnIndex(fk.Columns[0]), w.Tables[pi].ColumnIndex(fk.RefColumns[0])
				if ci < 0 || pc < 0 {
					continue
				}
				add(link{child: ti, col: ci, parent: pi, pcol: pc,
					source: fmt.Sprintf("foreign key %s.%s -> %s.%s", t.Name, fk.Columns[0], fk.RefTable, fk.RefColumns[0])})
			}
		}
	}
	for _, cl := range a.classes {
		// The parent is the table the column identifies; when it is
		// unique in several (an order and its one payment), the table
		// named after it (order_id: orders), else the one whose first
		// column it is (where primary keys usually stand).
		var ids []colRef
		for _, r := range cl.cols {
			if a.identifies(r) {
				ids = append(ids, r)
			}
		}
		owner := pickOwner(w, ids)
		if owner < 0 {
			continue
		}
		var pcol int
		for _, r := range cl.cols {
			if r.table == owner {
				pcol = r.col
			}
		}
		for _, r := range cl.cols {
			if r.table == owner {
				continue
			}
			pt := w.Tables[owner]
			why := "same column name"
			if w.Tables[r.table].Columns[r.col].Name != pt.Columns[pcol].Name {
				why = "same values in transactions"
				if a.joined(r, colRef{owner, pcol}) {
					why = "joined on it"
				}
			}
			add(link{child: r.table, col: r.col, parent: owner, pcol: pcol,
				source: fmt.Sprintf("%s.%s holds %s.%s (%s; it identifies %s's rows)", w.Tables[r.table].Name, w.Tables[r.table].Columns[r.col].Name, pt.Name, pt.Columns[pcol].Name, why, pt.Name)})
		}
	}
	return out
}

// accessed reports whether table ti is read, updated or deleted by an
// operation or a transaction statement (binding column col by equality,
// when col >= 0).
func (a *analysis) accessed(ti, col int) bool {
	binds := func(conds []shardkey.Cond) bool {
		if col < 0 {
			return true
		}
		for _, c := range conds {
			if c.Col == col && (c.Op == shardkey.Eq || c.Op == shardkey.In) {
				return true
			}
		}
		return false
	}
	for _, op := range a.w.Ops {
		if op.Table == ti && op.Kind != shardkey.Insert && len(op.Instances) > 0 && binds(op.Instances[0].Conds) {
			return true
		}
	}
	for _, st := range a.stmtsOf(ti) {
		if st.Kind != shardkey.Insert && binds(st.Conds) {
			return true
		}
	}
	return false
}

// stmtsOf returns the statements of the workload's transactions on table
// ti, in transaction and statement order: gathered in one pass for every
// table, which accessed and identifies, asked for each column of a
// class, each read in full.
func (a *analysis) stmtsOf(ti int) []*shardkey.Stmt {
	if a.byTable == nil {
		a.byTable = make([][]*shardkey.Stmt, len(a.w.Tables))
		for i := range a.w.Txns {
			tx := &a.w.Txns[i]
			if !tx.Committed() {
				continue
			}
			for k := range tx.Stmts {
				if st := &tx.Stmts[k]; st.Table >= 0 && st.Table < len(a.byTable) {
					a.byTable[st.Table] = append(a.byTable[st.Table], st)
				}
			}
		}
	}
	return a.byTable[ti]
}

// pickOwner returns the table of ids that owns the column, or -1.
func pickOwner(w *shardkey.Workload, ids []colRef) int {
	if len(ids) == 1 {
		return ids[0].table
	}
	pick := func(ok func(colRef) bool) int {
		found := -1
		for _, r := range ids {
			if ok(r) {
				if found >= 0 {
					return -1
				}
				found = r.table
			}
		}
		return found
	}
	if t := pick(func(r colRef) bool {
		return namedAfter(w.Tables[r.table].Name, w.Tables[r.table].Columns[r.col].Name)
	}); t >= 0 {
		return t
	}
	return pick(func(r colRef) bool { return r.col == 0 })
}

// namedAfter reports whether table is named after id column col:
// orders/order for order_id, order_id or orderid; any table for "id".
func namedAfter(table, col string) bool {
	stem := strings.ToLower(col)
	for _, suf := range []string{"_id", "id"} {
		if strings.HasSuffix(stem, suf) && len(stem) > len(suf) {
			stem = strings.TrimSuffix(stem, suf)
			break
		}
	}
	t := strings.ToLower(table)
	return t == stem || t == stem+"s" || t == stem+"es" || strings.TrimSuffix(stem, "y")+"ies" == t
}

// joined reports whether the statements join column x to column y.
func (a *analysis) joined(x, y colRef) bool {
	w := a.w
	for _, j := range w.Joins {
		ti, oi := w.TableIndex(j.Table), w.TableIndex(j.OtherTable)
		if ti < 0 || oi < 0 {
			continue
		}
		p := colRef{ti, w.Tables[ti].ColumnIndex(j.Column)}
		q := colRef{oi, w.Tables[oi].ColumnIndex(j.OtherColumn)}
		if p == x && q == y || p == y && q == x {
			return true
		}
	}
	return false
}

// identifies reports whether column r identifies its table's rows: the
// catalog's one-column primary key, values unique in a row sample of at
// least 20 rows, or, without rows, fresh values on insert.
func (a *analysis) identifies(r colRef) bool {
	t := a.w.Tables[r.table]
	name := t.Columns[r.col].Name
	if cat := a.w.Catalog; cat != nil {
		if info := cat.Table(t.Name); info != nil && len(info.PrimaryKey) > 0 {
			return len(info.PrimaryKey) == 1 && info.PrimaryKey[0] == name
		}
	}
	// A parent is read, updated or deleted, not only appended to (an
	// append-only history table's ids are unique but nothing hangs off
	// its rows).
	if !a.accessed(r.table, -1) {
		return false
	}
	if t.Rows >= 20 {
		return a.columnCard(r.table, name) == t.Rows
	}
	// Without rows, the column itself must be how the table is looked up.
	if !a.accessed(r.table, r.col) {
		return false
	}
	// No rows (a log): the values its inserts bind, when there are
	// enough of them and all differ.
	ins := map[shardkey.Value]bool{}
	n := 0
	note := func(conds []shardkey.Cond) {
		for _, c := range conds {
			if c.Col == r.col && c.Op == shardkey.Eq && c.Fresh == shardkey.NotFresh {
				ins[c.Val.Canonical()] = true
				n++
			}
		}
	}
	for _, st := range a.stmtsOf(r.table) {
		if st.Kind == shardkey.Insert {
			note(st.Conds)
		}
	}
	if n >= 20 && len(ins) == n {
		return true
	}
	// A log's inserts are both operations and transaction statements:
	// count the operations' on their own.
	clear(ins)
	n = 0
	for _, op := range a.w.Ops {
		if op.Table == r.table && op.Kind == shardkey.Insert {
			for _, in := range op.Instances {
				note(in.Conds)
			}
		}
	}
	if n >= 20 && len(ins) == n {
		return true
	}
	for _, st := range a.stmtsOf(r.table) {
		if st.Kind != shardkey.Insert {
			continue
		}
		for _, c := range st.Conds {
			if c.Col == r.col && c.Fresh != shardkey.NotFresh {
				return true
			}
		}
	}
	for _, op := range a.w.Ops {
		if op.Table != r.table || op.Kind != shardkey.Insert || len(op.Instances) == 0 {
			continue
		}
		for _, c := range op.Instances[0].Conds {
			if c.Col == r.col && c.Fresh != shardkey.NotFresh {
				return true
			}
		}
	}
	return false
}
