package advisor

import (
	"fmt"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sim"
)

// lookupDesign returns design key with a unique lookup on each sharded
// table for each declared secondary unique column (a UNIQUE key of one
// column, not the primary key) that its interactive reads bind by
// equality without binding the table's key: users keyed by id, read by
// login too, gets lookup(login), a Vitess lookup_unique vindex (a global
// secondary index: a table from login to the keyspace id, sharded by
// login). The design then competes on what it costs after the lookup
// (each such read one extra unit on the lookup table's shard, then the
// one shard of the row; each insert and delete of the table one lookup
// row, usually on another shard, as sim scores it), not on the scatter a
// fix would remove. ok is false when no column qualifies.
func (a *analysis) lookupDesign(key string) (design, why string, ok bool) {
	w := a.w
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return "", "", false
	}
	rates := map[colRef]float64{}
	var order []colRef
	for _, op := range w.Ops {
		if op.Kind == shardkey.Insert || op.Latency == "batch" || op.Rate <= 0 || len(op.Instances) == 0 {
			continue
		}
		t := w.Tables[op.Table]
		e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
		if e == nil || len(e.Columns()) == 0 {
			continue // unsharded, or a reference table: read on any shard
		}
		bound := map[string]bool{}
		for _, c := range op.Instances[0].Conds {
			if c.Op == shardkey.Eq || c.Op == shardkey.In {
				bound[t.Columns[c.Col].Name] = true
			}
		}
		keyBound := true
		for _, kc := range e.Columns() {
			keyBound = keyBound && bound[kc]
		}
		if keyBound {
			continue
		}
		for _, c := range op.Instances[0].Conds {
			r := colRef{op.Table, c.Col}
			if (c.Op == shardkey.Eq || c.Op == shardkey.In) && a.secondaryUnique(r) {
				if _, seen := rates[r]; !seen {
					order = append(order, r)
				}
				rates[r] += op.Rate
				break
			}
		}
	}
	design = key
	var cols []string
	for _, r := range order {
		t := w.Tables[r.table]
		name := t.Columns[r.col].Name
		k, added := addLookup(w, design, t.Name, shardkey.Lookup{Col: name, Unique: true})
		if !added || k == design {
			continue
		}
		design = k
		cols = append(cols, fmt.Sprintf("%s.%s (%s requests/s)", shardkey.QuoteName(t.Name), shardkey.QuoteName(name), rateText(rates[r])))
	}
	if len(cols) == 0 {
		return "", "", false
	}
	kind := "a global secondary index; a Vitess lookup_unique vindex"
	if !vitessTerms(a.engine) {
		kind = "a secondary index table keyed by the column, a global index"
	}
	return design, fmt.Sprintf("%s, with a unique lookup (%s) on %s, a declared unique key read by equality: each such read asks the lookup's shard, then its row's one shard", key, kind, strings.Join(cols, ", ")), true
}

// secondaryUnique reports whether column r is one of its table's declared
// one-column unique keys other than the primary key (--schema, --from).
func (a *analysis) secondaryUnique(r colRef) bool {
	pk, uk := a.declaredUnique(r)
	return uk && !pk
}

// lookupReasons says, for each lookup of the scored design c, what it
// costs in the field's terms: a Vitess lookup vindex (a global secondary
// index: a table from the column to the keyspace id, sharded by the
// column), the extra read on its shard before each routed request, the
// lookup row each insert and delete of the table writes, usually on
// another shard, and the transactions its shard alone makes cross shards.
func (a *analysis) lookupReasons(c *sim.Candidate) []string {
	var out []string
	for _, l := range c.Lookups {
		names, then := "names one row", "the one shard of its row"
		if !strings.HasSuffix(l.Vindex, "_unique") {
			names, then = "may name several rows", "only the shards of its rows"
		}
		what := fmt.Sprintf("a Vitess %s vindex (a global secondary index: a table from %s to the keyspace id, sharded by %s; a value %s)", l.Vindex, l.Column, l.Column, names)
		if !vitessTerms(a.engine) {
			what = fmt.Sprintf("a secondary index table keyed by %s, a global index (a table from %s to the row's key, sharded by %s; a value %s", l.Column, l.Column, l.Column, names)
			if sys := lookupSystem(a.engine, l.Column); sys != "" {
				what += "; " + sys
			}
			what += ")"
		}
		s := fmt.Sprintf("%s on %s is %s: each of the %s requests/s by %s first reads its shard (+%s units/s), then %s",
			l.Lookup, l.Table, what, fmtF(l.ReadsPerS), l.Column, fmtF(l.ReadWorkPerS), then)
		ti := a.w.TableIndex(l.Table)
		switch {
		case l.WritesPerS > 0:
			s += fmt.Sprintf("; each insert and delete of %s also writes a lookup row: %s writes/s, +%s units/s, %s of them on another shard than their row", l.Table, fmtF(l.WritesPerS), fmtF(l.WriteWorkPerS), pct(l.CrossShardWriteFraction))
		case ti >= 0 && !insertsOrDeletes(a.w, ti):
			s += fmt.Sprintf("; the workload inserts and deletes no %s rows, so it writes no lookup rows here (each insert or delete would write one, usually on another shard, and an update that changes %s two)", l.Table, l.Column)
		default:
			s += fmt.Sprintf("; each insert and delete of %s also writes a lookup row, usually on another shard (the workload gives no rate for them)", l.Table)
		}
		out = append(out, s)
	}
	if f := c.LookupCrossShardTxnFraction; f != nil && *f > 0 {
		out = append(out, lookupTxnText(a.engine, pct(*f)))
	}
	return out
}

// WithLookupFixes returns design key with the lookups of the
// global-index fixes among fixes added to their tables (addLookup), and
// those lookups as "table: lookup(col)": the design the "after fixes"
// figures assume, for a configuration (a Vitess VSchema's lookup
// vindexes) that must route as they do. key is returned unchanged when
// no fix adds a lookup.
func WithLookupFixes(w *shardkey.Workload, key string, fixes []Fix) (string, []string) {
	var added []string
	for _, f := range fixes {
		if f.Kind != "global-index" || f.Key == "" {
			continue
		}
		fd, err := shardkey.ParseDesign(f.Key)
		if err != nil {
			continue
		}
		for _, t := range w.Tables {
			has := func(c string) bool { return t.Column(c) != nil }
			for _, l := range fd.LookupsFor(t.Name, has) {
				if k, ok := addLookup(w, key, t.Name, l); ok && k != key {
					key = k
					added = append(added, t.Name+": "+l.String())
				}
			}
		}
	}
	return key, added
}
