package advisor

import (
	"strings"

	"github.com/shardkey/shardkey"
)

// vindexKeys returns a generated design with each one-column hash key
// that the engine's Vitess vindex cannot map (hash, numeric and
// reverse_bits map integers only: a text value has no keyspace id,
// DestinationNone) keyed instead by the vindex Vitess users shard such a
// column by, hash(col, vindex=TYPE) with shardkey.VindexFor's TYPE:
// unicode_loose_md5 for text, binary_md5 for bytes, xxhash for the rest.
// It is the choice a lookup table's column falls back to (package sim)
// and --emit vschema writes, so the design scored is the one emitted.
// Under any other engine, or when nothing changes, design is returned as
// it is. Only generated candidates go through it: a design the user
// names (-k, --current, a workload's candidates) is scored as written.
func (a *analysis) vindexKeys(design string) string {
	vt := shardkey.VindexType(a.engine)
	if vt == "" || !shardkey.VindexIntegers(vt) {
		return design
	}
	parts := splitDesign(design)
	changed := false
	for i, p := range parts {
		d, err := shardkey.ParseDesign(p)
		if err != nil || len(d.Order) > 1 {
			return design
		}
		table, e := "", d.Default
		if len(d.Order) == 1 {
			table = d.Order[0]
			e = d.Tables[table]
		}
		h := hashOf(e)
		if h == nil || h.Vindex != "" || len(h.Cols) != 1 {
			continue
		}
		typ, ok := a.colType(table, h.Cols[0])
		if !ok || shardkey.VindexMaps(vt, typ) {
			continue
		}
		h.Vindex = shardkey.VindexFor(typ)
		s := e.String()
		if table != "" {
			s = shardkey.QuoteName(table) + ":" + s
		}
		for _, l := range d.Lookups[table] {
			s += ", " + l.String()
		}
		parts[i] = s
		changed = true
	}
	if !changed {
		return design
	}
	out := strings.Join(parts, "; ")
	if _, err := shardkey.ParseDesign(out); err != nil {
		return design
	}
	return out
}

// hashOf returns the hash key under e's salt and isolation, nil when e is
// no hash key.
func hashOf(e shardkey.Expr) *shardkey.HashExpr {
	for {
		switch m := e.(type) {
		case *shardkey.HashExpr:
			return m
		case *shardkey.SaltExpr:
			e = m.Inner
		case *shardkey.IsolateExpr:
			e = m.Inner
		default:
			return nil
		}
	}
}

// colType returns the type of column col of table, or, for a bare key
// (table ""), of every table that has col, when they agree on the vindex
// (shardkey.VindexFor) their type takes; ok is false when no table has it
// or they disagree.
func (a *analysis) colType(table, col string) (typ shardkey.Type, ok bool) {
	for _, t := range a.w.Tables {
		if table != "" && t.Name != table {
			continue
		}
		c := t.Column(col)
		if c == nil {
			continue
		}
		if ok && shardkey.VindexFor(c.Type) != shardkey.VindexFor(typ) {
			return typ, false
		}
		typ, ok = c.Type, true
	}
	return typ, ok
}
