package emit

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/shardkey/shardkey"
)

// Options are what the emitters need beyond the workload and the design.
// The zero Options is usable.
type Options struct {
	// Keyspace is the Vitess keyspace, MongoDB database or (in comments)
	// database name; "" means "app".
	Keyspace string
	// Shards is the shard count (Citus shard_count, CockroachDB
	// bucket_count, Vitess even shards); 0 means the workload's, or 16
	// when it has none.
	Shards int
	// Engine is the --engine the design was scored with. A vitess-* engine
	// picks the Vitess vindex; cockroachdb:generation=N picks the bucket
	// expression. Other engines leave the defaults.
	Engine string
	// Hot holds, per table, the values to isolate (isolate(...)) or salt
	// (salt(...)), hottest first: values of the key's first column. A table
	// with an isolate or salt key and no entry gets the top=N values of
	// its sample (see the package comment).
	Hot map[string][]shardkey.Value
	// Vindexes are the names a VSchema read in (-k @vschema.json,
	// ReadVSchema) gives each table's vindexes: a lookup the emitted
	// design keeps (same table and column) keeps its vindex's name and
	// its backing table's name, so the emitted VSchema points at the
	// tables that exist. Nil: names are made up (TABLE_COL_lookup).
	Vindexes map[string]shardkey.VindexNames
	// Bounds holds, per table, a range key's split points as text (the
	// N-1 boundaries of N shards, ascending); a table with no entry uses
	// the design's bounds=[...], if any.
	Bounds map[string][]string
	// Warn, when set, is called once per configuration whose placement
	// differs from the design's as shardkey scores it (a range key the
	// engine can only hash-distribute, a range key without boundaries),
	// with what differs; the configuration says the same in a comment
	// (or, for the VSchema, a note). nil: not called.
	Warn func(string)
	// HashFallback, when set, names the figures of the design with its
	// range keys hash-distributed (as the engine will place them where it
	// cannot place ranges); it is added to those warnings.
	HashFallback string
	// Notes, when set, are written at the head of the configuration,
	// after its first line, one comment line each, "WARNING: " before
	// (-- for SQL, // for the mongo shell's JavaScript), or, for the
	// VSchema (JSON has no comments), returned first among its notes.
	Notes []string
}

// ErrUnknownFormat is returned by Emit for a format not in Formats.
var ErrUnknownFormat = errors.New("unknown format")

// Formats returns the format names Emit accepts, sorted.
func Formats() []string { return []string{"citus", "cockroachdb", "mongodb", "vschema"} }

// Emit writes design d for workload w in format (one of Formats) and
// returns the configuration and, for "vschema", the notes that JSON cannot
// carry (the other formats carry them as comments and return no notes).
func Emit(format string, w *shardkey.Workload, d *shardkey.Design, o Options) (config []byte, notes []string, err error) {
	switch format {
	case "vschema":
		b, notes, err := VSchema(w, d, o)
		return b, append(append([]string(nil), o.Notes...), notes...), err
	case "citus":
		s, err := Citus(w, d, o)
		return headNotes(s, "--", o.Notes), lookupNotes(w, d, "Citus"), err
	case "mongodb":
		s, err := MongoDB(w, d, o)
		return headNotes(s, "//", o.Notes), lookupNotes(w, d, "MongoDB"), err
	case "cockroachdb":
		s, err := CockroachDB(w, d, o)
		return headNotes(s, "--", o.Notes), lookupNotes(w, d, "CockroachDB"), err
	}
	return nil, nil, fmt.Errorf("%w %q (want %s)", ErrUnknownFormat, format, strings.Join(Formats(), ", "))
}

// headNotes writes notes into configuration s after its first line (the
// "shardkey design ..." comment), each a comment line: the comment marker
// com, then "WARNING: ".
func headNotes(s, com string, notes []string) []byte {
	if len(notes) == 0 {
		return []byte(s)
	}
	i := strings.IndexByte(s, '\n') + 1
	if i == 0 {
		s, i = s+"\n", len(s)+1
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for _, n := range notes {
		fmt.Fprintf(&b, "%s WARNING: %s\n", com, strings.ReplaceAll(n, "\n", "\n"+com+" "))
	}
	b.WriteString(s[i:])
	return []byte(b.String())
}

// lookupNotes says, for a system without lookup vindexes, what each
// lookup(col) of d stands for there: a table of its own, distributed by
// the column, mapping it to the key, written with every insert.
func lookupNotes(w *shardkey.Workload, d *shardkey.Design, system string) []string {
	var notes []string
	for _, t := range w.Tables {
		for _, l := range d.LookupsFor(t.Name, func(c string) bool { return t.Column(c) != nil }) {
			notes = append(notes, fmt.Sprintf("%s: %s: %s has no lookup vindex: keep a table %s_%s_lookup (%s, the key's columns) distributed by %s, written in the same transaction as every insert and delete of %s (a global secondary index), and read it first to find a row by %s",
				t.Name, l, system, t.Name, l.Col, l.Col, l.Col, t.Name, l.Col))
		}
	}
	return notes
}

// keyKind is the partition function a table's key comes down to.
type keyKind uint8

const (
	kindHash keyKind = iota
	kindRange
	kindDirectory
	kindReplicate
)

// tableKey is one table's key, unwrapped.
type tableKey struct {
	t      *shardkey.Table
	expr   shardkey.Expr // as designed
	kind   keyKind
	cols   []string
	types  []shardkey.Type
	bounds []string // range split points (Options.Bounds or the design's)
	// tuple says bounds are composite split points, "(v1, v2)"
	// (shardkey.RangeExpr.Tuple).
	tuple bool
	// isolate and salt: top counts (0 when absent), salt buckets, and the
	// hot values of cols[0].
	isolate, saltTop, saltK int
	hot                     []shardkey.Value
	file                    string // directory's file
	// mongoHashed is the hashed field of a MongoDB shard key pattern
	// ({a: 1, b: "hashed"}), "" for none: only MongoDB can place it.
	mongoHashed string
}

// plan is a design resolved against a workload.
type plan struct {
	w        *shardkey.Workload
	d        *shardkey.Design
	o        Options
	keyspace string
	shards   int
	keys     []*tableKey // placed tables, workload order
	unplaced []string    // tables the design does not place
}

func newPlan(w *shardkey.Workload, d *shardkey.Design, o Options) (*plan, error) {
	if w == nil || d == nil {
		return nil, errors.New("emit: nil workload or design")
	}
	p := &plan{w: w, d: d, o: o, keyspace: o.Keyspace, shards: o.Shards}
	if p.keyspace == "" {
		p.keyspace = "app"
	}
	if p.shards == 0 {
		p.shards = w.Shards
	}
	if p.shards == 0 {
		p.shards = 16
	}
	if p.shards < 1 {
		return nil, fmt.Errorf("shards: %d must be at least 1", p.shards)
	}
	for name := range d.Tables {
		if w.Table(name) == nil {
			return nil, fmt.Errorf("design %q: no table %s in workload %s", d.Text, name, w.Name)
		}
	}
	for _, t := range w.Tables {
		e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
		if e == nil {
			p.unplaced = append(p.unplaced, t.Name)
			continue
		}
		k, err := p.resolve(t, e)
		if err != nil {
			return nil, fmt.Errorf("table %s: key %s: %w", t.Name, e, err)
		}
		p.keys = append(p.keys, k)
	}
	if len(p.keys) == 0 {
		return nil, fmt.Errorf("design %q places no table of workload %s", d.Text, w.Name)
	}
	return p, nil
}

func (p *plan) resolve(t *shardkey.Table, e shardkey.Expr) (*tableKey, error) {
	k := &tableKey{t: t, expr: e}
	inner := e
	for {
		switch x := inner.(type) {
		case *shardkey.IsolateExpr:
			k.isolate = x.Top
			inner = x.Inner
			continue
		case *shardkey.SaltExpr:
			k.saltTop, k.saltK = x.Top, x.K
			inner = x.Inner
			continue
		case *shardkey.HashExpr:
			k.kind = kindHash
		case *shardkey.RangeExpr:
			k.kind = kindRange
			k.bounds, k.tuple = x.Bounds, x.Tuple
			k.mongoHashed = x.Hashed
			if len(x.Cols) == 1 && x.Hashed == x.Cols[0] {
				// {a: "hashed"}: MongoDB's hashed sharding of a, placed
				// as hash(a) on that engine (sim/mongo.go): its isolated
				// values get zones on their hashed values.
				k.kind = kindHash
			}
		case *shardkey.DirectoryExpr:
			k.kind, k.file = kindDirectory, x.File
		case *shardkey.ReplicateExpr:
			k.kind = kindReplicate
			return k, nil
		default:
			return nil, fmt.Errorf("unsupported key expression %T", inner)
		}
		break
	}
	k.cols = inner.Columns()
	for _, c := range k.cols {
		col := t.Column(c)
		if col == nil {
			return nil, fmt.Errorf("no column %s", c)
		}
		k.types = append(k.types, col.Type)
	}
	if b, ok := p.o.Bounds[t.Name]; ok {
		k.bounds = b
		k.tuple = len(b) > 0 && shardkey.TupleParts(b[0]) != nil
	}
	if top := max(k.isolate, k.saltTop); top > 0 {
		if hot, ok := p.o.Hot[t.Name]; ok {
			k.hot = hot
		} else {
			k.hot = hottest(t, t.ColumnIndex(k.cols[0]), top)
		}
	}
	return k, nil
}

// boundValues returns split point i of a range key: its values, one for
// each leading key column (one for a split point of the first column
// alone), each parsed under its column's type; the value of a MongoDB
// pattern's hashed field is its hashed value, an Int64.
func (k *tableKey) boundValues(i int) ([]shardkey.Value, error) {
	parts := []string{k.bounds[i]}
	if k.tuple {
		if parts = shardkey.TupleParts(k.bounds[i]); len(parts) == 0 || len(parts) > len(k.cols) {
			return nil, fmt.Errorf("range bound %q: want a tuple of at most %d values", k.bounds[i], len(k.cols))
		}
	}
	vals := make([]shardkey.Value, len(parts))
	for j, part := range parts {
		typ := k.types[j]
		if k.cols[j] == k.mongoHashed && j > 0 {
			typ = shardkey.Int64
		}
		v, err := shardkey.ParseValue(part, typ)
		if err != nil {
			return nil, fmt.Errorf("range bound %q: %w", k.bounds[i], err)
		}
		vals[j] = v
	}
	return vals, nil
}

// hottest returns the top values of column ci by summed row weight, ties
// broken by the value's type and text as the simulator breaks them (so the
// values emitted are the ones scored).
func hottest(t *shardkey.Table, ci, top int) []shardkey.Value {
	c := t.Columns[ci]
	agg := map[shardkey.Value]float64{}
	for r := 0; r < t.Rows; r++ {
		agg[c.Value(r).Canonical()] += t.Weight(r)
	}
	type vw struct {
		v shardkey.Value
		k string
		w float64
	}
	list := make([]vw, 0, len(agg))
	for v, w := range agg {
		list = append(list, vw{v, string(byte('0'+v.Type)) + v.String(), w})
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].w != list[j].w {
			return list[i].w > list[j].w
		}
		return list[i].k < list[j].k
	})
	var out []shardkey.Value
	for i := 0; i < len(list) && i < top; i++ {
		v := list[i].v
		if v.Type.IsInt() && c.Type.IsInt() {
			v.Type = c.Type // back to the column's own width
		}
		out = append(out, v)
	}
	return out
}

// unique reports whether the columns cols of t, as a tuple, hold no NULL
// and no repeated value in the sample: the best the sample can say about a
// primary key.
func unique(t *shardkey.Table, cols []string) bool {
	if t.Rows == 0 {
		return false
	}
	idx := make([]*shardkey.Column, len(cols))
	for i, c := range cols {
		if idx[i] = t.Column(c); idx[i] == nil {
			return false
		}
	}
	seen := make(map[string]bool, t.Rows)
	var buf []byte
	for r := 0; r < t.Rows; r++ {
		buf = buf[:0]
		for _, col := range idx {
			v := col.Value(r)
			if v.IsNull() {
				return false
			}
			buf = append(buf, byte(v.Type))
			buf = v.AppendText(buf)
			buf = append(buf, 0)
		}
		if seen[string(buf)] {
			return false
		}
		seen[string(buf)] = true
	}
	return true
}

// completeKey returns the columns to append to cols to make a primary key
// that is unique in the sample: none when cols are unique, else the first
// other column that makes them so; ok is false when there is none.
func completeKey(t *shardkey.Table, cols []string) (extra []string, ok bool) {
	if unique(t, cols) {
		return nil, true
	}
	for _, c := range t.Columns {
		if contains(cols, c.Name) {
			continue
		}
		if unique(t, append(append([]string(nil), cols...), c.Name)) {
			return []string{c.Name}, true
		}
	}
	return nil, false
}

// valueList returns the values' texts joined with ", ".
func valueList(vs []shardkey.Value) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return strings.Join(s, ", ")
}

// noMongoHashed fails when a key is a MongoDB pattern with a hashed field,
// which engine (the configuration being written) cannot express.
func (p *plan) noMongoHashed(engine string) error {
	for _, k := range p.keys {
		if k.mongoHashed != "" {
			return fmt.Errorf("table %s: %s orders by MongoDB's hashed value of %s, which %s cannot express; emit it for MongoDB", k.t.Name, k.expr, k.mongoHashed, engine)
		}
	}
	return nil
}

// mismatch reports a placement the configuration cannot reproduce: it
// returns the warning text (with Options.HashFallback added) and passes it
// to Options.Warn.
func (p *plan) mismatch(format string, a ...any) string {
	msg := fmt.Sprintf(format, a...)
	if p.o.HashFallback != "" {
		msg += "; " + p.o.HashFallback
	}
	if p.o.Warn != nil {
		p.o.Warn(msg)
	}
	return msg
}

// rangeKeys returns the names of the tables with range keys.
func (p *plan) rangeKeys() []string {
	var out []string
	for _, k := range p.keys {
		if k.kind == kindRange {
			out = append(out, k.t.Name)
		}
	}
	return out
}

// HashEngine returns the partition engine (a partition.Lookup name) that
// places design d's range keys in format's configuration when it cannot
// place them by ranges and hash-distributes them instead: "citus" for
// Citus; for the VSchema, the hash vindex's engine of the first range
// key that is not an integer, text or bytes (numeric places integers and
// binary text and bytes by range); "" when
// the format places every range key by range.
func HashEngine(format string, w *shardkey.Workload, d *shardkey.Design) string {
	p, err := newPlan(w, d, Options{})
	if err != nil || len(p.rangeKeys()) == 0 {
		return ""
	}
	switch format {
	case "citus":
		return "citus"
	case "vschema":
		for _, k := range p.keys {
			if k.kind != kindRange || k.mongoHashed != "" {
				continue
			}
			if vt, why := rangeVindex(k, k.types[0], ""); why != "" {
				return shardkey.VindexEngine(vt)
			}
		}
	}
	return ""
}

// formatEngines are, per format, the engine whose placement the
// configuration gets (the --engine to score it with when none is given)
// and the --engine names (without options) that place keys as that
// system does.
var formatEngines = map[string]struct {
	engine string
	places func(base string) bool
	names  string // the engines places accepts, for a message
}{
	// create_distributed_table: worker_hash in uniform int32 intervals.
	// PostgreSQL's own PARTITION BY HASH (postgres) hashes otherwise.
	"citus": {"citus", func(b string) bool { return b == "citus" }, "citus"},
	// Each table's primary vindex; the vitess-* engines are its types.
	"vschema": {"vitess", func(b string) bool { return b == "vitess" || strings.HasPrefix(b, "vitess-") }, "vitess or a vitess-* engine"},
	// sh.shardCollection: a hashed field by MongoDB's hash.
	"mongodb": {"mongodb", func(b string) bool { return b == "mongodb" }, "mongodb"},
	// A hash-sharded index's bucket expression.
	"cockroachdb": {"cockroachdb", func(b string) bool { return b == "cockroachdb" }, "cockroachdb"},
}

// Engine returns the partition engine (a partition.Lookup name) of the
// system whose configuration format writes: the placement the emitted
// configuration gets, and so the --engine its figures are scored with;
// "" for an unknown format.
func Engine(format string) string { return formatEngines[format].engine }

// EngineNames says which --engine names Places accepts for format
// ("vitess or a vitess-* engine"); "" for an unknown format.
func EngineNames(format string) string { return formatEngines[format].names }

// Places reports whether engine (an --engine spec, options allowed:
// "citus(shard_count=32)") places keys as the system whose configuration
// format writes does, so that what was scored under it is what the
// emitted configuration runs.
func Places(format, engine string) bool {
	f, ok := formatEngines[format]
	if !ok {
		return false
	}
	base := engine
	if i := strings.IndexAny(base, "(:"); i >= 0 {
		base = base[:i]
	}
	return f.places(strings.TrimSpace(base))
}
