package sqllog

import (
	"slices"
	"sort"
	"strings"

	"github.com/shardkey/shardkey"
)

// Attributing unqualified columns.
//
// In a query over several tables a column may be named without its table:
//
//	SELECT c_discount, w_tax FROM customer, warehouse
//	WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?
//
// The database knows w_id is warehouse's from its catalog; the statement
// alone does not say. Each such column goes to the table that has it,
// asking, in order:
//
//  1. the workload's tables: their columns from a live database's catalog
//     (--from), a row sample (--rows) or a spec, and the columns earlier
//     statements of the log put there for certain (a single-table
//     statement's, a qualified column's, an INSERT's column list);
//  2. the catalog (--from) by absence: a catalog table lists all its
//     columns, so a column it lacks is in one of the other tables;
//  3. naming, only when exactly one table fits: the column's prefix up to
//     its first underscore (c_ of c_w_id) is that of columns the table is
//     known to have, else the initials of the table's name (c for
//     customer, ol for order_line);
//  4. else the first table of the query, as before, with a warning naming
//     the statement shape.
//
// A column found by 1 or 2 counts as known for later statements; one
// found by 3 or 4 does not (pred.guess). The template of a statement is
// parsed once by a worker, but attribution depends on what the log has
// shown so far, so it happens in the aggregator, in log order, once per
// shape (deterministic whatever the scheduling).

// attribution says how a column was attributed to its table.
type attribution uint8

const (
	byWorkload attribution = iota // the table is known to have the column
	byCatalog                     // every other table is in the catalog without it
	byPrefix                      // its prefix is that of the table's known columns
	byInitials                    // its prefix is the initials of the table's name
	byDefault                     // nothing said: the first table
)

// resolvePart returns p with its lazy scopes built against the workload;
// p itself when it has none. The result is kept per part, so a shape is
// resolved at its first occurrence. text and line name the statement in
// the warning for columns attributed by default.
func (a *agg) resolvePart(p *part, text string, line int) *part {
	if !p.lazy {
		return p
	}
	if rp := a.resolved[p]; rp != nil {
		return rp
	}
	rp := &part{ctl: p.ctl}
	for i := range p.acc {
		if p.acc[i].star != nil {
			rp.acc = append(rp.acc, a.expandStar(p.acc[i], text, line))
			continue
		}
		sc := p.acc[i].lazy
		if sc == nil {
			rp.acc = append(rp.acc, p.acc[i])
			continue
		}
		var unknown []string
		rp.acc = append(rp.acc, tables(sc.build(a.attributor(sc, &unknown)))...)
		if len(unknown) > 0 {
			names := make([]string, len(sc.refs))
			for k, r := range sc.refs {
				names[k] = r.name
			}
			what := "column " + unknown[0]
			if len(unknown) > 1 {
				what = "columns " + strings.Join(unknown, ", ")
			}
			a.warn(shardkey.Errorf(a.file, line, "", "statement %q: no table of %s is known to have %s: attributed to %s, the first table (qualify the columns, or give --from or --rows so that the tables' columns are known)",
				clip(text, 120), strings.Join(names, ", "), what, sc.refs[0].name))
		}
	}
	a.resolved[p] = rp
	return rp
}

// expandStar resolves INSERT ... SELECT * (acc.star): the inserted
// columns take, in order, the source table's declared columns (the
// catalog's: --schema or --from); a column the SELECT binds by = or IN
// places the inserted rows by those values, any other may hold any value
// (as insertFromSelect). Without the source's columns, no column is
// known: the insert binds nothing, and a warning (text and line name the
// statement) says so, since in the database the SELECT may well bind the
// key.
func (a *agg) expandStar(acc access, text string, line int) access {
	si := acc.star
	out := access{table: acc.table, kind: shardkey.Insert, none: acc.none}
	src := a.catalogColumns(si.src)
	if len(src) == 0 {
		a.warn(shardkey.Errorf(a.file, line, "", "statement %q: SELECT * from %s: its columns are unknown without a schema, so the rows inserted into %s are taken to bind no column (the key may well be bound in reality: give --schema or --from)",
			clip(text, 120), si.src, acc.table))
	}
	seen := map[string]bool{}
	for i, sc := range src {
		col, use, more := insertColumn(si.cols, i, seen)
		if !more {
			break
		}
		if !use {
			continue
		}
		p := pred{col: col, pos: i, op: shardkey.Range, args: []arg{{}, {}}, any: true}
		for _, b := range si.preds {
			if strings.EqualFold(b.col, sc) {
				p.op, p.any, p.args, p.selected = b.op, false, b.args, true
			}
		}
		out.preds = append(out.preds, p)
	}
	sort.SliceStable(out.preds, func(i, j int) bool { return out.preds[i].col < out.preds[j].col })
	return out
}

// attributor returns the resolver of sc's columns against the workload.
// Columns attributed by default are appended to unknown.
func (a *agg) attributor(sc *scope, unknown *[]string) colResolver {
	type found struct {
		ref int
		how attribution
	}
	done := map[string]found{}
	return func(qual, col string) (int, bool) {
		if qual != "" {
			return sc.resolve(qual), false
		}
		f, ok := done[col]
		if !ok {
			f.ref, f.how = a.attribute(sc, col)
			if f.how == byDefault {
				*unknown = append(*unknown, col)
			}
			done[col] = f
		}
		return f.ref, f.how >= byPrefix
	}
}

// attribute returns the index in sc.refs of the table holding the
// unqualified column col, and how that was decided (see the steps above).
func (a *agg) attribute(sc *scope, col string) (int, attribution) {
	tis := make([]int, len(sc.refs))
	for i, r := range sc.refs {
		tis[i] = a.lookup(r.name)
	}
	// 1. A table known to have the column. (Two would make the name
	// ambiguous, which the database rejects unless they are joined USING
	// it: equal, so the first will do.)
	// A derived table that names its columns shows those and no others.
	hides := func(i int) bool {
		_, shows := sc.refs[i].rename[col]
		return sc.refs[i].rename != nil && !shows
	}
	for i, ti := range tis {
		if sc.refs[i].rename != nil {
			if !hides(i) {
				return i, byWorkload
			}
			continue
		}
		if a.knows(ti, col) || slices.ContainsFunc(a.catalogColumns(sc.refs[i].name), func(c string) bool { return strings.EqualFold(c, col) }) {
			return i, byWorkload // (the catalog lists the column)
		}
	}
	// 2. The catalog lists all columns of its tables.
	cands := make([]int, 0, len(tis))
	for i, ti := range tis {
		if !a.inCatalog(ti) && !hides(i) {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return 0, byDefault
	}
	if len(cands) < len(tis) && a.oneTable(sc, cands) {
		return cands[0], byCatalog
	}
	// 3. Naming.
	prefix, _, ok := strings.Cut(col, "_")
	if !ok || prefix == "" {
		return 0, byDefault
	}
	if i, ok := a.unique(sc, cands, func(i int) bool { return a.hasPrefix(tis[i], prefix+"_") }); ok {
		return i, byPrefix
	}
	if i, ok := a.unique(sc, cands, func(i int) bool { return strings.EqualFold(initials(sc.refs[i].name), prefix) }); ok {
		return i, byInitials
	}
	return 0, byDefault
}

// unique returns the first of cands for which match holds, when every
// cand it holds for is the same table.
func (a *agg) unique(sc *scope, cands []int, match func(int) bool) (int, bool) {
	var hit []int
	for _, i := range cands {
		if match(i) {
			hit = append(hit, i)
		}
	}
	if len(hit) == 0 || !a.oneTable(sc, hit) {
		return 0, false
	}
	return hit[0], true
}

// oneTable reports whether refs all name the same table (a self-join).
func (a *agg) oneTable(sc *scope, refs []int) bool {
	for _, i := range refs[1:] {
		if !strings.EqualFold(sc.refs[i].name, sc.refs[refs[0]].name) {
			return false
		}
	}
	return true
}

// lookup returns the index of the table named name, or -1; unlike table it
// creates none.
func (a *agg) lookup(name string) int {
	if i := a.w.TableIndex(name); i >= 0 {
		return i
	}
	for i, t := range a.w.Tables {
		if strings.EqualFold(t.Name, name) {
			return i
		}
	}
	return -1
}

// knows reports whether table ti is known to have column col: it had it
// before this log, or an earlier statement put it there for certain.
func (a *agg) knows(ti int, col string) bool {
	if ti < 0 {
		return false
	}
	ci := a.w.Tables[ti].ColumnIndex(col)
	if ci < 0 {
		return false
	}
	k := [2]int{ti, ci}
	return !a.newCols[k] || a.sure[k]
}

// hasPrefix reports whether table ti is known to have a column whose name
// starts with prefix.
func (a *agg) hasPrefix(ti int, prefix string) bool {
	if ti < 0 {
		return false
	}
	for _, c := range a.w.Tables[ti].Columns {
		if len(c.Name) > len(prefix) && strings.EqualFold(c.Name[:len(prefix)], prefix) && a.knows(ti, c.Name) {
			return true
		}
	}
	return false
}

// catalogColumns returns the columns of the table named name in the
// workload's catalog, in declared order, or nil when the catalog does
// not list it (or lists no columns).
func (a *agg) catalogColumns(name string) []string {
	if a.cat == nil {
		a.cat = a.w.Catalog
		if a.cat == nil {
			a.cat = &shardkey.Catalog{}
		}
	}
	ti := a.cat.Table(name)
	if ti == nil {
		for _, x := range a.cat.Tables {
			if strings.EqualFold(x.Name, name) {
				ti = x
			}
		}
	}
	if ti == nil {
		return nil
	}
	out := make([]string, len(ti.Columns))
	for i, c := range ti.Columns {
		out[i] = c.Name
	}
	return out
}

// inCatalog reports whether table ti is a table of the live database the
// workload was read from, whose catalog lists every column.
func (a *agg) inCatalog(ti int) bool {
	if ti < 0 {
		return false
	}
	if a.cat == nil {
		a.cat = a.w.Catalog
		if a.cat == nil {
			a.cat = &shardkey.Catalog{}
		}
	}
	return a.cat.Table(a.w.Tables[ti].Name) != nil
}

// initials returns the first letter of each underscore-separated word of
// name: "ol" for order_line, "w" for warehouse.
func initials(name string) string {
	var b strings.Builder
	for _, w := range strings.Split(name, "_") {
		if w != "" {
			b.WriteByte(w[0])
		}
	}
	return b.String()
}
