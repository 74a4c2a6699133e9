package web

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/scenario"
)

// Designs in the playground: keys parsed from parameters, the hot-key
// controls applied to them, and the columns a celebrity share is set on.

// parseKey parses a key or design given in parameter param and refuses
// keys that read files (directory), which the playground does not do.
func parseKey(param, key string) (*shardkey.Design, error) {
	if len(key) > 2000 {
		return nil, badParam(param, "key longer than 2000 characters")
	}
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return nil, badParam(param, "%v", err)
	}
	exprs := []shardkey.Expr{d.Default}
	for _, t := range d.Order {
		exprs = append(exprs, d.Tables[t])
	}
	for _, e := range exprs {
		for e != nil {
			switch m := e.(type) {
			case *shardkey.DirectoryExpr:
				return nil, badParam(param, "%s reads a file; the playground reads no files (use shardkey score)", m)
			case *shardkey.SaltExpr:
				e = m.Inner
			case *shardkey.IsolateExpr:
				e = m.Inner
			default:
				e = nil
			}
		}
	}
	return d, nil
}

// wrapKey applies the hot-key controls to every table's key of d:
// isolate(EXPR, top=1) gives the hottest value a shard of its own, and
// salt(EXPR, K, top=1) splits it over K buckets; lookups stay.
func wrapKey(d *shardkey.Design, salt int, isolate bool) string {
	wrap := func(e shardkey.Expr) string {
		if _, ok := e.(*shardkey.ReplicateExpr); ok {
			return "replicate"
		}
		s := e.String()
		if isolate {
			s = "isolate(" + s + ", top=1)"
		}
		if salt > 0 {
			s = fmt.Sprintf("salt(%s, %d, top=1)", s, salt)
		}
		return s
	}
	lookups := func(table string) string { // the key's lookup(col)s, kept
		s := ""
		for _, l := range d.Lookups[table] {
			s += ", " + l.String()
		}
		return s
	}
	var parts []string
	for _, t := range d.Order {
		parts = append(parts, shardkey.QuoteName(t)+":"+wrap(d.Tables[t])+lookups(t))
	}
	if d.Default != nil {
		parts = append(parts, wrap(d.Default)+lookups(""))
	}
	return strings.Join(parts, "; ")
}

// finiteGen reports whether a generator draws from a finite distribution,
// the columns a celebrity share applies to.
func finiteGen(gen string) bool {
	g := strings.ToLower(gen)
	return g == "uniform" || g == "zipf"
}

// specColumns resolves a spec's columns, inherited ones included: for a
// table and column name, the table whose generator makes the column and
// its spec.
type specColumns map[string]*scenario.TableSpec

func newSpecColumns(spec *scenario.Spec) specColumns {
	m := specColumns{}
	for _, t := range spec.Tables {
		m[t.Name] = t
	}
	return m
}

func (m specColumns) owner(table, col string) (string, *scenario.ColumnSpec) {
	for depth := 0; depth <= len(m); depth++ {
		t := m[table]
		if t == nil {
			return "", nil
		}
		for _, c := range t.Columns {
			if c.Name == col {
				return t.Name, c
			}
		}
		table = t.Parent
	}
	return "", nil
}

// celebrityTargets returns the columns (TABLE.COLUMN) a celebrity share is
// set on for design d: the uniform or zipf columns its keys hash (the
// generating table's, for an inherited column), so the celebrity is a hot
// value of the key. A key with none (hash(post_id)) gets the celebrity on
// the first uniform or zipf column an operation looks up by parameter, as
// the seed's celebrity user is part of the workload whatever the key.
func celebrityTargets(spec *scenario.Spec, d *shardkey.Design) []string {
	cols := newSpecColumns(spec)
	var out []string
	seen := map[string]bool{}
	add := func(table, col string) {
		owner, cs := cols.owner(table, col)
		if cs == nil || !finiteGen(cs.Gen) {
			return
		}
		k := owner + "." + col
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, t := range spec.Tables {
		e := d.For(t.Name, func(c string) bool { _, cs := cols.owner(t.Name, c); return cs != nil })
		if e == nil {
			continue
		}
		for _, c := range e.Columns() {
			add(t.Name, c)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, o := range spec.Operations {
		var where map[string]any
		if o.Where.Decode(&where) != nil {
			continue
		}
		names := make([]string, 0, len(where))
		for k, v := range where {
			if v == "?" {
				names = append(names, k)
			}
		}
		sort.Strings(names)
		for _, c := range names {
			add(o.Table, c)
			if len(out) > 0 {
				return out
			}
		}
	}
	for _, t := range spec.Tables {
		for _, c := range t.Columns {
			add(t.Name, c.Name)
			if len(out) > 0 {
				return out
			}
		}
	}
	return nil
}
