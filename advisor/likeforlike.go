package advisor

import (
	"slices"
	"strings"

	"github.com/shardkey/shardkey"
)

// Like for like with the design in use (Options.Current). A design read
// from a Vitess VSchema keeps its tables' lookup vindexes (secondary
// routing tables: users:hash(user_id), lookup(email)), which cost a
// write on another shard for every insert and route the reads by their
// column. A generated candidate names only keys: scored as written it
// would drop the lookups, and could win (fewer cross-shard transactions,
// less work) for that alone, recommending a re-key that buys nothing the
// design in use could not have by dropping its lookups. So every
// generated candidate carries the lookups of the design in use on each
// table it places (a lookup on the column the candidate keys the table
// by is dropped: it would route nothing the key does not), and differs
// from the design in use only in its keys.

// withCurrentLookups returns key with the lookups of cur added to the
// tables of w it places, or key itself when it places none of them (or
// cur has none). The result is a design: the key's bare expression (if
// any), then each table's own part, written TABLE:EXPR, lookup(...).
func withCurrentLookups(key string, cur *shardkey.Design, w *shardkey.Workload) string {
	if cur == nil || len(cur.Lookups) == 0 {
		return key
	}
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return key
	}
	type part struct {
		table string
		expr  shardkey.Expr
		lks   []shardkey.Lookup
	}
	var parts []*part
	byTable := map[string]*part{}
	for _, t := range d.Order {
		p := &part{table: t, expr: d.Tables[t], lks: d.Lookups[t]}
		parts = append(parts, p)
		byTable[t] = p
	}
	added := false
	for _, t := range w.Tables {
		has := func(c string) bool { return t.Column(c) != nil }
		lks := cur.LookupsFor(t.Name, has)
		if len(lks) == 0 {
			continue
		}
		e := d.For(t.Name, has)
		if e == nil {
			continue
		}
		if _, ok := e.(*shardkey.ReplicateExpr); ok {
			continue
		}
		p := byTable[t.Name]
		if p == nil {
			p = &part{table: t.Name, expr: e, lks: slices.Clone(d.LookupsFor(t.Name, has))}
		}
		keyCols := e.Columns()
		grew := false
		for _, l := range lks {
			onKey := slices.ContainsFunc(keyCols, func(c string) bool { return strings.EqualFold(c, l.Col) })
			have := slices.ContainsFunc(p.lks, func(m shardkey.Lookup) bool { return strings.EqualFold(m.Col, l.Col) })
			if onKey || have {
				continue
			}
			p.lks = append(p.lks, l)
			grew = true
		}
		if grew && byTable[t.Name] == nil {
			byTable[t.Name] = p
			parts = append(parts, p)
		}
		added = added || grew
	}
	if !added {
		return key
	}
	var out []string
	if d.Default != nil {
		s := d.Default.String()
		for _, l := range d.Lookups[""] {
			s += ", " + l.String()
		}
		out = append(out, s)
	}
	for _, p := range parts {
		s := shardkey.QuoteName(p.table) + ":" + p.expr.String()
		for _, l := range p.lks {
			s += ", " + l.String()
		}
		out = append(out, s)
	}
	text := strings.Join(out, "; ")
	if _, err := shardkey.ParseDesign(text); err != nil {
		return key
	}
	return text
}
