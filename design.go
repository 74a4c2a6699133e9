package shardkey

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Expr is a key expression: which columns decide a row's shard, and the
// partition function that maps them to one.
//
//	hash(col[, col ...])                 the engine's hash of the columns
//	hash(col, vindex=TYPE)               the Vitess vindex TYPE's keyspace id of col, whatever
//	                                     the engine (a VSchema's primary vindex; see HashExpr)
//	range(col[, col ...][, bounds=[v, ...]])  contiguous ranges; boundaries at
//	                                     equal-weight quantiles unless given
//	range(a, b, bounds=[(v1, v2), ...])  composite split points (tuples), compared
//	                                     column by column (see RangeExpr.Tuple)
//	{a: 1, b: "hashed"}                  a MongoDB shard key pattern (see RangeExpr)
//	range({a: 1, b: "hashed"}, bounds=[v, ...])  the same with given bounds; tuples
//	                                     (a, hashed value of b) split inside one a
//	salt(EXPR, K[, top=N])               the N (default 1) hottest values split over K buckets
//	salt(EXPR, K, top=N, by=col)         the same, a row's bucket the hash of col (a hash suffix)
//	salt(EXPR, [K1, ..., KN][, top=N][, by=col])  a bucket count for each of the N hottest values
//	isolate(EXPR[, top=N])               the N (default 1) hottest values on dedicated shards
//	isolate(EXPR, top=N, split=col, over=K)  each of them split over K dedicated shards by
//	                                     the hash of col (a whale larger than a shard)
//	directory(col, FILE)                 explicit value->shard map, hash for the rest
//	col                                  short for hash(col)
//
// A table's key may be followed by secondary routing tables, each after a
// comma (a design element, not part of the Expr; see Lookup):
//
//	EXPR, lookup(col[, unique|nonunique][, consistent])
//
// as in "users:hash(user_id), lookup(email)": a Vitess lookup vindex
// (lookup_unique by default) whose table maps email to the row's keyspace
// id, or any secondary index that maps a column to the key.
type Expr interface {
	// Columns returns the key columns, in key order.
	Columns() []string
	String() string
}

// HashExpr places rows by the engine's hash of Cols.
//
// Vindex, when set, is a Vitess vindex type (hash, xxhash, binary_md5,
// unicode_loose_md5, unicode_loose_xxhash, numeric, reverse_bits; see
// VindexEngine) that places this table instead of the engine: the
// table's primary vindex in a VSchema, where each table has its own
// (go/vt/vtgate/vindexes/vschema.go: a table's first column vindex). It
// takes one column (a Vitess vindex maps one), and only a Vitess engine
// (--engine vitess or vitess-*) runs it: one keyspace's shards are
// keyspace-id ranges whatever vindex maps a table's rows to keyspace ids.
type HashExpr struct {
	Cols   []string
	Vindex string
}

// vindexEngines maps the Vitess vindex types shardkey places to their
// partition engines (package partition, docs/engines.md).
var vindexEngines = map[string]string{
	"hash":                 "vitess",
	"xxhash":               "vitess-xxhash",
	"binary_md5":           "vitess-binary-md5",
	"unicode_loose_md5":    "vitess-unicode-loose-md5",
	"unicode_loose_xxhash": "vitess-unicode-loose-xxhash",
	"numeric":              "vitess-numeric",
	"reverse_bits":         "vitess-reverse-bits",
}

// VindexEngine returns the partition engine that computes the keyspace
// ids of Vitess vindex type vtype ("vitess" for hash,
// "vitess-unicode-loose-md5" for unicode_loose_md5, ...), "" for a type
// shardkey does not place (multicol, lookups, region_json, ...).
func VindexEngine(vtype string) string { return vindexEngines[vtype] }

// VindexIntegers reports whether Vitess vindex type vtype maps integers
// only (hash.go, numeric.go, reverse_bits.go: any other value has no
// keyspace id, DestinationNone).
func VindexIntegers(vtype string) bool {
	return vtype == "hash" || vtype == "numeric" || vtype == "reverse_bits"
}

// VindexType returns the Vitess vindex type whose keyspace ids engine
// computes ("hash" for "vitess"), "" for an engine that is no vindex's.
func VindexType(engine string) string {
	for t, e := range vindexEngines {
		if e == engine {
			return t
		}
	}
	return ""
}

// VindexMaps reports whether Vitess vindex type vtype gives a keyspace
// id to values of column type typ: every type for the vindexes that hash
// bytes (xxhash, binary_md5, unicode_loose_*), integers only for hash,
// numeric and reverse_bits (VindexIntegers). A timestamp is not one of
// those integers: Vitess binds a DATETIME as its text.
func VindexMaps(vtype string, typ Type) bool {
	return !VindexIntegers(vtype) || typ.IsInt() && typ != Timestamp || typ == Uint64
}

// VindexFor returns the Vitess vindex type for a key column of type typ
// when the one in use cannot map it (VindexMaps), the choice Vitess's
// documentation and examples make by column type: hash for integers,
// unicode_loose_md5 for text (MySQL's default collations are case- and
// accent-insensitive, so 'A' and 'a' must land together), binary_md5 for
// bytes, xxhash (of the value's SQL text) for the rest. The advisor keys
// text candidates by it, a lookup table's column falls back to it, and
// --emit vschema writes it.
func VindexFor(typ Type) string {
	switch {
	case VindexMaps("hash", typ):
		return "hash"
	case typ == Text:
		return "unicode_loose_md5"
	case typ == Bytes:
		return "binary_md5"
	}
	return "xxhash"
}

// VindexTypes returns the vindex types VindexEngine knows, sorted.
func VindexTypes() []string {
	out := make([]string, 0, len(vindexEngines))
	for t := range vindexEngines {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// KeyVindex returns the vindex type that places a key, hash(col,
// vindex=TYPE), looking through salt and isolate; "" when the engine
// does.
func KeyVindex(e Expr) string {
	for {
		switch m := e.(type) {
		case *HashExpr:
			return m.Vindex
		case *SaltExpr:
			e = m.Inner
		case *IsolateExpr:
			e = m.Inner
		default:
			return ""
		}
	}
}

// RangeExpr places rows by contiguous ranges of Cols in shardkey.Compare
// order (tuples compared column by column). Bounds, when given, are the
// N-1 split points' texts for the first column; shard i holds keys in
// [Bounds[i-1], Bounds[i]).
//
// Tuple marks composite split points, written bounds=[(v1, v2), ...]:
// each of Bounds is then a tuple's text as TupleText writes it (one value
// for each of the key's leading columns, every tuple as long; split with
// TupleParts), compared with a key's columns in order, as MongoDB
// compares a compound shard key against a chunk's bounds and CockroachDB
// a primary key against SPLIT AT VALUES (v1, v2). A value for a MongoDB
// pattern's hashed field is MongoDB's hashed value (a 64-bit integer,
// convertShardKeyToHashed), by which its chunks are ordered.
//
// Mongo marks a MongoDB shard key pattern, written {a: 1, b: "hashed"}
// (src/mongo/db/s/shardkey_pattern.cpp): fields ascending (1) except at
// most one "hashed" (MongoDB 4.4+ compound hashed keys), named by Hashed
// ("" for none). Documents are ordered by the fields' values with the
// hashed field replaced by MongoDB's hashed value of it
// (ShardKeyPattern::extractShardKeyFromDoc), and chunks are contiguous
// ranges of that order.
type RangeExpr struct {
	Cols   []string
	Bounds []string
	Tuple  bool
	Mongo  bool
	Hashed string
}

// SaltExpr splits each of the Top hottest key values of Inner over K salt
// buckets: an insert goes to one bucket, a read of the value asks every
// bucket (the read fan-out salting adds).
//
// By, when set, names the column whose hash picks a hot row's bucket (a
// hash suffix on the hot key, the second level of a whale tenant's
// compound key (workspace_id, page_id)): a statement that binds the key
// and By goes to one bucket, one that binds the key alone asks all K, an
// insert goes to its By value's bucket. This is the layout of a Vitess
// multicol vindex (go/vt/vtgate/vindexes/multicol.go) over
// (workspace_id, page_id) for the whale alone: the tenant's prefix maps
// to K shards and the second column picks one of them. By is not a key
// column: Columns does not list it.
//
// Ks, when set (the syntax salt(EXPR, [K1, K2, ...], ...)), gives the
// i-th heaviest value Ks[i] buckets instead, heaviest first, as isolate's
// over=[...] does for shards: a whale twice another's work needs about
// twice its buckets, and one count for all of them makes every smaller
// whale's whole-value reads query buckets it does not need (Cassandra
// bucketing, where the application keeps each whale's count in a table
// of its own). An entry of 1 leaves its value in one bucket. K is then
// the largest entry and Top len(Ks).
type SaltExpr struct {
	Inner  Expr
	K, Top int
	By     string
	Ks     []int
}

// KOf returns the buckets of the i-th heaviest salted value (0-based):
// Ks[i] when a list was given, else K.
func (e *SaltExpr) KOf(i int) int {
	if i < len(e.Ks) {
		return e.Ks[i]
	}
	return e.K
}

// IsolateExpr gives each of the Top hottest key values of Inner a shard of
// its own, a directory override over Inner's function.
//
// Split, when set, gives each of them Over dedicated shards instead of
// one, a row's shard among them picked by the hash of column Split: a
// second distribution level for a whale tenant that alone exceeds one
// shard, its compound key (tenant, Split). Citus isolates a tenant to a
// shard of its own (isolate_tenant_to_new_shard) but cannot split one
// tenant value further; Vitess can, by keying the tenant's tables with a
// multicol vindex over (tenant_id, page_id) (go/vt/vtgate/vindexes/
// multicol.go), whose tenant prefix covers a range of shards. A
// statement that binds the tenant and Split goes to one of the Over
// shards; one that binds the tenant alone asks all of them (the read
// fan-out of tenant-wide reads); an insert goes to its Split value's.
//
// Overs, when set (the syntax over=[K1, K2, ...]), gives the i-th
// heaviest value Overs[i] shards instead: a whale twice another's size
// needs about twice its shards, and one count for all of them wastes
// shards on the smaller ones; an entry of 1 isolates its value on one
// dedicated shard, unsplit. Over is then Overs[0].
type IsolateExpr struct {
	Inner Expr
	Top   int
	Split string
	Over  int
	Overs []int
}

// OverOf returns the shards the i-th heaviest isolated value is split
// over (0-based): Overs[i] when a list was given, else Over.
func (e *IsolateExpr) OverOf(i int) int {
	if i < len(e.Overs) {
		return e.Overs[i]
	}
	return e.Over
}

// DirectoryExpr maps values of Col to shards with the map in File (CSV
// lines "value,shard"); unmapped values fall back to hash(Col).
type DirectoryExpr struct {
	Col  string
	File string
}

// ReplicateExpr makes a reference table: a copy on every shard, reads
// local, writes to every shard.
type ReplicateExpr struct{}

func (e *HashExpr) Columns() []string      { return e.Cols }
func (e *RangeExpr) Columns() []string     { return e.Cols }
func (e *SaltExpr) Columns() []string      { return e.Inner.Columns() }
func (e *IsolateExpr) Columns() []string   { return e.Inner.Columns() }
func (e *DirectoryExpr) Columns() []string { return []string{e.Col} }
func (e *ReplicateExpr) Columns() []string { return nil }

func (e *HashExpr) String() string {
	if e.Vindex != "" {
		return "hash(" + joinNames(e.Cols) + ", vindex=" + e.Vindex + ")"
	}
	return "hash(" + joinNames(e.Cols) + ")"
}
func (e *RangeExpr) String() string {
	if e.Mongo {
		return e.mongoString()
	}
	s := "range(" + joinNames(e.Cols)
	if len(e.Bounds) > 0 {
		s += ", bounds=[" + strings.Join(e.Bounds, ", ") + "]"
	}
	return s + ")"
}
func (e *SaltExpr) String() string {
	k := strconv.Itoa(e.K)
	if len(e.Ks) > 0 {
		ks := make([]string, len(e.Ks))
		for i, x := range e.Ks {
			ks[i] = strconv.Itoa(x)
		}
		k = "[" + strings.Join(ks, ", ") + "]"
	}
	if e.By != "" {
		return fmt.Sprintf("salt(%s, %s, top=%d, by=%s)", e.Inner, k, e.Top, QuoteName(e.By))
	}
	return fmt.Sprintf("salt(%s, %s, top=%d)", e.Inner, k, e.Top)
}
func (e *IsolateExpr) String() string {
	if e.Split != "" && len(e.Overs) > 0 {
		ks := make([]string, len(e.Overs))
		for i, k := range e.Overs {
			ks[i] = strconv.Itoa(k)
		}
		return fmt.Sprintf("isolate(%s, top=%d, split=%s, over=[%s])", e.Inner, e.Top, QuoteName(e.Split), strings.Join(ks, ", "))
	}
	if e.Split != "" {
		return fmt.Sprintf("isolate(%s, top=%d, split=%s, over=%d)", e.Inner, e.Top, QuoteName(e.Split), e.Over)
	}
	return fmt.Sprintf("isolate(%s, top=%d)", e.Inner, e.Top)
}
func (e *DirectoryExpr) String() string {
	return fmt.Sprintf("directory(%s, %s)", QuoteName(e.Col), e.File)
}
func (e *ReplicateExpr) String() string { return "replicate" }

// Design gives each table its key. Default, when set, applies to every
// table that has all its columns and no key of its own.
type Design struct {
	Text    string          // as written
	Default Expr            // bare expression, or nil
	Tables  map[string]Expr // per-table keys
	Order   []string        // tables in the order written
	// Lookups are the secondary routing tables written after a key
	// ("users:hash(user_id), lookup(email)"), by table name, "" for the
	// bare expression's; nil when the design has none. See LookupsFor.
	Lookups map[string][]Lookup
}

// Lookup is a secondary routing table of one table, a Vitess lookup
// vindex (go/vt/vtgate/vindexes/lookup.go, consistent_lookup.go): a table
// that maps each value of Col to the keyspace id (the shard) of the rows
// holding it, itself sharded by Col. A statement that binds Col but not
// the key reads the lookup table's shard first and then only the shards
// it names, instead of every shard; each insert (and delete) of the owner
// table also writes the lookup row, usually on another shard.
type Lookup struct {
	Col string
	// Unique: each value names at most one row (lookup_unique); otherwise
	// many (lookup, non-unique).
	Unique bool
	// Consistent: Vitess's consistent_lookup(_unique), which writes the
	// lookup row in a session committed before the transaction's own
	// (CommitOrder_PRE, deletes POST) instead of in the transaction.
	Consistent bool
}

// String returns the lookup as a design writes it:
// "lookup(email)", "lookup(tag, nonunique, consistent)".
func (l Lookup) String() string {
	s := "lookup(" + QuoteName(l.Col)
	if !l.Unique {
		s += ", nonunique"
	}
	if l.Consistent {
		s += ", consistent"
	}
	return s + ")"
}

// VindexType returns the Vitess vindex type of the lookup: lookup_unique,
// lookup, consistent_lookup_unique or consistent_lookup.
func (l Lookup) VindexType() string {
	t := "lookup"
	if l.Consistent {
		t = "consistent_lookup"
	}
	if l.Unique {
		t += "_unique"
	}
	return t
}

// LookupsFor returns the lookups of table t with the given columns: its
// own when the design names it, else the bare expression's that name a
// column it has, when the bare expression places it; nil for none.
func (d *Design) LookupsFor(table string, hasColumn func(string) bool) []Lookup {
	if len(d.Lookups) == 0 {
		return nil
	}
	if _, ok := d.Tables[table]; ok {
		return d.Lookups[table]
	}
	if d.For(table, hasColumn) == nil {
		return nil
	}
	var out []Lookup
	for _, l := range d.Lookups[""] {
		if hasColumn(l.Col) {
			out = append(out, l)
		}
	}
	return out
}

// For returns the key of table t with the given columns, or nil when the
// design does not place it.
func (d *Design) For(table string, hasColumn func(string) bool) Expr {
	if e, ok := d.Tables[table]; ok {
		return e
	}
	if d.Default == nil {
		return nil
	}
	for _, c := range d.Default.Columns() {
		if !hasColumn(c) {
			return nil
		}
	}
	return d.Default
}

// ParseDesign parses a key expression or a design
// "TABLE:EXPR; TABLE:EXPR; ..." (TABLE:replicate for a reference table; an
// EXPR without a table applies to every table that has its columns).
// Errors name the position: `key "hash(a": at 7: expected ")"`.
func ParseDesign(s string) (*Design, error) {
	d := &Design{Text: strings.TrimSpace(s), Tables: map[string]Expr{}}
	p := &parser{src: s}
	for {
		p.space()
		if p.eof() {
			break
		}
		table := ""
		// TABLE ':' lookahead.
		save := p.pos
		if id, _ := p.name(); id != "" && p.err == nil {
			p.space()
			if p.peek() == ':' {
				p.pos++
				table = id
			} else {
				p.pos = save
			}
		}
		var e Expr
		p.space()
		save = p.pos
		if id, q := p.name(); id == "replicate" && !q && table != "" {
			e = &ReplicateExpr{}
		} else {
			p.pos = save
			e = p.expr()
		}
		if p.err != nil {
			break
		}
		lookups := p.lookups(e)
		if p.err != nil {
			break
		}
		if len(lookups) > 0 {
			if d.Lookups == nil {
				d.Lookups = map[string][]Lookup{}
			}
			d.Lookups[table] = lookups
		}
		if table == "" {
			if d.Default != nil {
				p.fail("a design has at most one expression without a table")
				break
			}
			d.Default = e
		} else {
			if _, dup := d.Tables[table]; dup {
				p.fail("table " + table + " has two keys")
				break
			}
			d.Tables[table] = e
			d.Order = append(d.Order, table)
		}
		p.space()
		if p.eof() {
			break
		}
		if p.peek() != ';' {
			p.fail(`expected ";" between tables`)
			break
		}
		p.pos++
	}
	if p.err == nil && d.Default == nil && len(d.Tables) == 0 {
		p.fail("empty key expression")
	}
	if p.err != nil {
		return nil, fmt.Errorf("key %q: %w", strings.TrimSpace(s), p.err)
	}
	return d, nil
}

// ParseExpr parses one key expression (no tables).
func ParseExpr(s string) (Expr, error) {
	p := &parser{src: s}
	e := p.expr()
	p.space()
	if p.err == nil && !p.eof() {
		p.fail("unexpected " + strconv.Quote(p.src[p.pos:]))
	}
	if p.err != nil {
		return nil, fmt.Errorf("key %q: %w", strings.TrimSpace(s), p.err)
	}
	return e, nil
}

type parser struct {
	src string
	pos int
	err error
}

func (p *parser) eof() bool { return p.pos >= len(p.src) }
func (p *parser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.src[p.pos]
}
func (p *parser) space() {
	for !p.eof() && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n' || p.src[p.pos] == '\r') {
		p.pos++
	}
}
func (p *parser) fail(msg string) {
	if p.err == nil {
		p.err = fmt.Errorf("at %d: %s", p.pos+1, msg)
	}
}

// ident reads an identifier: letters, digits, _ and ., not starting with a digit.
func (p *parser) ident() string {
	p.space()
	start := p.pos
	for !p.eof() {
		r := rune(p.src[p.pos])
		if r == '_' || r == '.' || r == '$' || unicode.IsLetter(r) || (p.pos > start && unicode.IsDigit(r)) || r >= 0x80 {
			p.pos++
			continue
		}
		break
	}
	return p.src[start:p.pos]
}

// name reads a table or column name: an identifier (see ident) or a
// double-quoted SQL identifier, "user-data", in which "" stands for one "
// (PostgreSQL's quoted identifiers, SQL standard 5.2 <delimited
// identifier>). quoted reports whether it was quoted, so a quoted "hash"
// is a column, not the function.
func (p *parser) name() (name string, quoted bool) {
	p.space()
	if p.peek() != '"' {
		return p.ident(), false
	}
	start := p.pos
	var b strings.Builder
	for i := p.pos + 1; i < len(p.src); i++ {
		if p.src[i] != '"' {
			b.WriteByte(p.src[i])
			continue
		}
		if i+1 < len(p.src) && p.src[i+1] == '"' {
			b.WriteByte('"')
			i++
			continue
		}
		p.pos = i + 1
		if b.Len() == 0 {
			p.pos = start
			p.fail("empty quoted name")
			return "", true
		}
		return b.String(), true
	}
	p.fail("unterminated quoted name")
	return "", true
}

// plainName reports whether s reads back as itself without quotes: an
// identifier as ident reads it (letters, digits not first, _ . $ and
// non-ASCII).
func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		r := rune(s[i])
		if r == '_' || r == '.' || r == '$' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r)) || r >= 0x80 {
			continue
		}
		return false
	}
	return true
}

// QuoteName returns a table or column name as a design writes it: as is
// when it is a plain identifier, else in double quotes with each " doubled
// (the SQL rule), "user-data", so that ParseDesign reads it back.
func QuoteName(s string) string {
	if plainName(s) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func joinNames(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = QuoteName(c)
	}
	return strings.Join(q, ", ")
}

func (p *parser) expect(c byte) bool {
	p.space()
	if p.peek() != c {
		if p.eof() {
			p.fail(fmt.Sprintf("expected %q, got end of expression", c))
		} else {
			p.fail(fmt.Sprintf("expected %q, got %q", c, p.src[p.pos]))
		}
		return false
	}
	p.pos++
	return true
}

func (p *parser) int() int {
	p.space()
	start := p.pos
	for !p.eof() && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		p.pos++
	}
	n, err := strconv.Atoi(p.src[start:p.pos])
	if err != nil {
		p.pos = start
		p.fail("expected a whole number")
		return 0
	}
	if !p.eof() && p.src[p.pos] == '.' {
		// 2.5 where a count goes: an error, not 2 and a puzzling "got '.'".
		end := p.pos + 1
		for end < len(p.src) && p.src[end] >= '0' && p.src[end] <= '9' {
			end++
		}
		num := p.src[start:end]
		p.pos = start
		p.fail(fmt.Sprintf("%s: expected a whole number", num))
		return 0
	}
	return n
}

func (p *parser) expr() Expr {
	if p.err != nil {
		return nil
	}
	p.space()
	if p.peek() == '{' {
		if e := p.mongoPattern(); e != nil {
			return e
		}
		return nil
	}
	start := p.pos
	if p.peek() == '"' {
		// A quoted bare column is hash(column).
		col, _ := p.name()
		if p.err != nil {
			return nil
		}
		return &HashExpr{Cols: []string{col}}
	}
	name := p.ident()
	if name == "" {
		if p.eof() {
			p.fail("expected a key expression, got end of expression")
		} else {
			p.fail(fmt.Sprintf("expected a key expression, got %q", p.src[p.pos]))
		}
		return nil
	}
	p.space()
	if p.peek() != '(' {
		// A bare column is hash(column).
		return &HashExpr{Cols: []string{name}}
	}
	p.pos++
	switch strings.ToLower(name) {
	case "hash":
		return p.hash()
	case "range":
		e := &RangeExpr{}
		if p.space(); p.peek() == '{' {
			// range({a: 1, b: "hashed"}, bounds=[...]): a pattern with bounds.
			e = p.mongoPattern()
			if p.err != nil {
				return nil
			}
			if p.space(); p.peek() == ',' {
				p.pos++
				if id := p.ident(); id != "bounds" || !p.expect('=') {
					p.fail("expected bounds=[...]")
					return nil
				}
				p.bounds(e)
			}
			p.expect(')')
			return e
		}
		for {
			p.space()
			id, q := p.name()
			if p.err != nil {
				return nil
			}
			p.space()
			if id == "bounds" && !q && p.peek() == '=' {
				p.pos++
				p.bounds(e)
			} else {
				if id == "" {
					p.fail("expected a column name")
					return nil
				}
				if slices.Contains(e.Cols, id) {
					p.fail(fmt.Sprintf("column %s named twice", id))
					return nil
				}
				e.Cols = append(e.Cols, id)
			}
			p.space()
			if p.peek() != ',' {
				break
			}
			p.pos++
		}
		p.expect(')')
		if len(e.Cols) == 0 && p.err == nil {
			p.fail("range needs at least one column")
		}
		if e.Tuple && p.err == nil && len(TupleParts(e.Bounds[0])) > len(e.Cols) {
			cols := fmt.Sprintf("%d columns", len(e.Cols))
			if len(e.Cols) == 1 {
				cols = "1 column"
			}
			p.fail(fmt.Sprintf("bounds=[...]: a tuple of %d values for a key of %s: a split point has at most one value per column", len(TupleParts(e.Bounds[0])), cols))
		}
		return e
	case "salt":
		inner := p.expr()
		p.expect(',')
		var ks []int
		k := 0
		if p.space(); p.peek() == '[' {
			at := p.pos
			vals, where := p.listAt()
			for i, v := range vals {
				n, err := strconv.Atoi(v)
				if err != nil {
					p.pos = where[i]
					p.fail(fmt.Sprintf("salt [...] entry %d, %q: not a whole number of buckets", i+1, v))
					break
				}
				if n < 1 || n > MaxShards {
					p.pos = where[i]
					p.fail(fmt.Sprintf("salt [...] entry %d, %d buckets: must be in 1..%d", i+1, n, MaxShards))
					break
				}
				ks = append(ks, n)
				k = max(k, n)
			}
			if p.err == nil && len(ks) == 0 {
				p.pos = at
				p.fail("salt []: give one bucket count per value, heaviest first")
			}
		} else {
			k = p.int()
		}
		top := p.opt("top", max(1, len(ks)))
		by := ""
		if p.space(); p.err == nil && p.peek() == ',' {
			p.pos++
			if id := p.ident(); id != "by" || !p.expect('=') {
				if p.err == nil {
					p.fail("expected by=column")
				}
			} else if by = p.ident(); by == "" {
				p.fail("salt by= needs a column")
			}
		}
		p.expect(')')
		if p.err == nil && (k < 1 || k > MaxShards) {
			p.fail(fmt.Sprintf("salt buckets %d: must be in 1..%d", k, MaxShards))
		}
		if p.err == nil && top < 1 {
			p.fail(fmt.Sprintf("salt top=%d: must be at least 1", top))
		}
		if p.err == nil && ks != nil && len(ks) != top {
			p.fail(fmt.Sprintf("salt [...] gives %d bucket counts for top=%d values: give one per value", len(ks), top))
		}
		if p.err == nil && by != "" && inner != nil && slices.Contains(inner.Columns(), by) {
			p.fail(fmt.Sprintf("salt by=%s: a key column; by= names the next column after the key", by))
		}
		return &SaltExpr{Inner: inner, K: k, Top: top, By: by, Ks: ks}
	case "isolate":
		inner := p.expr()
		p.overWithoutSplit()
		top := p.opt("top", 1)
		p.overWithoutSplit()
		split, over := "", 0
		var overs []int
		if p.space(); p.err == nil && p.peek() == ',' {
			p.pos++
			if id := p.ident(); id != "split" || !p.expect('=') {
				if p.err == nil {
					p.fail("expected split=column")
				}
			} else if split = p.ident(); split == "" {
				p.fail("isolate split= needs a column")
			}
			over, overs = p.overs()
			if p.err == nil && over == 0 && overs == nil {
				p.fail("isolate split= needs over=K, the shards to split each value over")
			}
		}
		p.expect(')')
		if p.err == nil && top < 1 {
			p.fail(fmt.Sprintf("isolate top=%d: must be at least 1", top))
		}
		if p.err == nil && split != "" && overs == nil && (over < 2 || over > MaxShards) {
			p.fail(fmt.Sprintf("isolate over=%d: must be in 2..%d", over, MaxShards))
		}
		if p.err == nil && overs != nil && len(overs) != top {
			p.fail(fmt.Sprintf("isolate over=[...] gives %d shard counts for top=%d values: give one per value", len(overs), top))
		}
		if p.err == nil && split != "" && inner != nil && slices.Contains(inner.Columns(), split) {
			p.fail(fmt.Sprintf("isolate split=%s: a key column; split= names the next column after the key", split))
		}
		return &IsolateExpr{Inner: inner, Top: top, Split: split, Over: over, Overs: overs}
	case "directory":
		col, _ := p.name()
		if col == "" {
			p.fail("directory needs a column")
			return nil
		}
		p.expect(',')
		p.space()
		fstart := p.pos
		depth := 0
		for !p.eof() {
			c := p.src[p.pos]
			if c == '(' {
				depth++
			}
			if c == ')' {
				if depth == 0 {
					break
				}
				depth--
			}
			p.pos++
		}
		file := strings.Trim(strings.TrimSpace(p.src[fstart:p.pos]), `"'`)
		if file == "" {
			p.fail("directory needs a file")
		}
		p.expect(')')
		return &DirectoryExpr{Col: col, File: file}
	}
	p.pos = start
	if strings.EqualFold(name, "lookup") {
		// lookup(col) is a secondary routing table, not a placement: it
		// routes to the shards a key placed the rows on.
		p.fail("lookup(col) follows a table's key, after a comma, as in hash(user_id), lookup(email): it maps col's values to the shards the key places the rows on, and places no rows itself")
		return nil
	}
	p.fail(fmt.Sprintf("unknown function %q (want hash, range, salt, isolate or directory)", name))
	return nil
}

// lookups reads the ", lookup(col[, unique|nonunique][, consistent])"
// that may follow key e.
func (p *parser) lookups(e Expr) []Lookup {
	var out []Lookup
	for {
		p.space()
		if p.peek() != ',' {
			return out
		}
		p.pos++
		p.space()
		start := p.pos
		if name := p.ident(); !strings.EqualFold(name, "lookup") {
			p.pos = start
			p.fail(`expected lookup(col) after "," (a key's secondary routing table); tables are separated by ";"`)
			return nil
		}
		if !p.expect('(') {
			return nil
		}
		if _, ok := e.(*ReplicateExpr); ok {
			p.fail("a reference table (replicate) is on every shard: it needs no lookup")
			return nil
		}
		col, _ := p.name()
		l := Lookup{Col: col, Unique: true}
		if l.Col == "" {
			p.fail("lookup needs a column")
			return nil
		}
		if slices.Contains(e.Columns(), l.Col) {
			p.fail(fmt.Sprintf("lookup(%s): %s is a key column already; a lookup routes by another column", l.Col, l.Col))
			return nil
		}
		if slices.ContainsFunc(out, func(x Lookup) bool { return x.Col == l.Col }) {
			p.fail(fmt.Sprintf("lookup(%s) named twice", l.Col))
			return nil
		}
		uniq := "" // the unique/nonunique option given, if any
		consistent := false
		for {
			p.space()
			if p.peek() != ',' {
				break
			}
			p.pos++
			p.space()
			optAt := p.pos
			switch opt := strings.ToLower(p.ident()); opt {
			case "unique", "nonunique", "non_unique":
				if uniq != "" {
					p.pos = optAt
					if uniq == opt {
						p.fail(fmt.Sprintf("lookup(%s): option %s named twice", l.Col, opt))
					} else {
						p.fail(fmt.Sprintf("lookup(%s): options %s and %s contradict each other: give one", l.Col, uniq, opt))
					}
					return nil
				}
				uniq = opt
				l.Unique = opt == "unique"
			case "consistent":
				if consistent {
					p.pos = optAt
					p.fail(fmt.Sprintf("lookup(%s): option consistent named twice", l.Col))
					return nil
				}
				consistent, l.Consistent = true, true
			default:
				p.fail(fmt.Sprintf("lookup option %q: want unique, nonunique or consistent", opt))
				return nil
			}
		}
		if !p.expect(')') {
			return nil
		}
		out = append(out, l)
	}
}

// hash reads hash(...)'s arguments after the "(": columns, then an
// optional vindex=TYPE.
func (p *parser) hash() Expr {
	e := &HashExpr{}
	for {
		p.space()
		at := p.pos
		c, quoted := p.name()
		if p.err != nil {
			return nil
		}
		if p.space(); c == "vindex" && !quoted && p.peek() == '=' {
			p.pos++
			p.space()
			tat := p.pos
			vt := p.ident()
			switch {
			case vt == "":
				p.fail("vindex= needs a Vitess vindex type (" + strings.Join(VindexTypes(), ", ") + ")")
			case VindexEngine(vt) == "":
				p.pos = tat
				p.fail(fmt.Sprintf("vindex=%s: not a vindex type shardkey places (want %s)", vt, strings.Join(VindexTypes(), ", ")))
			case len(e.Cols) == 0:
				p.pos = at
				p.fail("vindex= follows the key column")
			case len(e.Cols) > 1:
				p.pos = at
				p.fail(fmt.Sprintf("vindex=%s takes one column, not %d: a Vitess vindex maps one column (several are a multicol vindex)", vt, len(e.Cols)))
			}
			if p.err != nil {
				return nil
			}
			e.Vindex = vt
			p.expect(')')
			return e
		}
		if c == "" {
			p.fail("expected a column name")
			return nil
		}
		if slices.Contains(e.Cols, c) {
			p.fail(fmt.Sprintf("column %s named twice", c))
			return nil
		}
		e.Cols = append(e.Cols, c)
		p.space()
		if p.peek() != ',' {
			break
		}
		p.pos++
	}
	p.expect(')')
	return e
}

// opt reads an optional ", name=INT".
func (p *parser) opt(name string, def int) int {
	p.space()
	if p.peek() != ',' {
		return def
	}
	p.pos++
	id := p.ident()
	if id != name {
		p.fail(fmt.Sprintf("expected %s=N", name))
		return def
	}
	if !p.expect('=') {
		return def
	}
	return p.int()
}

// overWithoutSplit fails, at the option's first letter, when the next
// option of an isolate(...) is over= where split= must come first: over=
// gives the shard counts each value of split= is spread over, so it means
// nothing alone ("expected split=column" said only what was missing).
// It reads nothing.
func (p *parser) overWithoutSplit() {
	if p.space(); p.err != nil || p.peek() != ',' {
		return
	}
	save := p.pos
	p.pos++
	p.space()
	at := p.pos
	id := p.ident()
	p.pos = save
	if id == "over" {
		p.pos = at
		p.fail("isolate over= without split=: over= lists the shard counts that split= spreads each hot value over, so it needs split=COLUMN before it, as in isolate(EXPR, top=N, split=COLUMN, over=K)")
	}
}

// overs reads isolate's ", over=K" or ", over=[K1, K2, ...]": one shard
// count for every split value, or one for each in order of weight. For
// a list, over is its first entry and overs the list.
func (p *parser) overs() (over int, overs []int) {
	p.space()
	if p.peek() != ',' {
		return 0, nil
	}
	p.pos++
	if id := p.ident(); id != "over" {
		p.fail("expected over=N")
		return 0, nil
	}
	if !p.expect('=') {
		return 0, nil
	}
	if p.space(); p.peek() != '[' {
		return p.int(), nil
	}
	vals, where := p.listAt()
	for i, v := range vals {
		k, err := strconv.Atoi(v)
		if err != nil {
			p.pos = where[i]
			p.fail(fmt.Sprintf("isolate over=[...] entry %d, %q: not a whole number of shards", i+1, v))
			return 0, nil
		}
		// In a list, 1 isolates that value on one shard unsplit.
		if k < 1 || k > MaxShards {
			p.pos = where[i]
			p.fail(fmt.Sprintf("isolate over=[...] entry %d, %d shards: must be in 1..%d", i+1, k, MaxShards))
			return 0, nil
		}
		overs = append(overs, k)
	}
	if p.err == nil && len(overs) == 0 {
		p.fail("isolate over=[]: give one shard count per value")
		return 0, nil
	}
	if len(overs) == 0 {
		return 0, nil
	}
	return overs[0], overs
}

// bounds reads bounds=[...]'s list into e: values (Bounds), or, when the
// first entry is a tuple, tuples (v1, v2, ...) of one length (Tuple set,
// each entry as TupleText writes it). An empty list is an error, not "no
// bounds" (the sample's quantiles then stood in for it while the key
// echoed bounds=[]).
func (p *parser) bounds(e *RangeExpr) {
	at := p.pos
	if p.space(); !p.expect('[') {
		return
	}
	if p.space(); p.peek() != '(' {
		p.pos = at
		p.space()
		at = p.pos
		var starts []int
		e.Bounds, starts = p.listAt()
		for _, st := range starts {
			if p.err == nil && st < len(p.src) && p.src[st] == '(' {
				p.pos = st
				p.fail("bounds=[...]: a tuple after single values: when the first split point is a single value, every one is (for a key of several columns, write every split point as a tuple (v1, v2, ...))")
				return
			}
		}
		if p.err == nil && len(e.Bounds) == 0 {
			p.pos = at
			p.fail("range bounds=[] gives no boundary: give the split points between shards (N-1 of them for N shards), or leave bounds= out for boundaries at equal-weight quantiles of the sample")
		}
		return
	}
	e.Tuple = true
	width := 0
	for {
		p.space()
		if p.peek() != '(' {
			p.fail("bounds=[...]: expected a tuple (v1, v2, ...): when the first split point is a tuple, every one is")
			return
		}
		p.pos++
		var parts []string
		for {
			p.space()
			quoted := p.peek() == '"' || p.peek() == '\''
			v, ok := p.value(")")
			if !ok {
				return
			}
			if !quoted && strings.ContainsAny(v, " \t\r\n") {
				p.fail(fmt.Sprintf("bounds=[...]: %q in a tuple: separate its values with commas, (v1, v2), or quote a text holding spaces", v))
				return
			}
			parts = append(parts, v)
			p.space()
			if p.peek() == ',' {
				p.pos++
				continue
			}
			if !p.expect(')') {
				return
			}
			break
		}
		if width == 0 {
			width = len(parts)
		} else if len(parts) != width {
			vals := "values"
			if len(parts) == 1 {
				vals = "value"
			}
			p.fail(fmt.Sprintf("bounds=[...]: a tuple of %d %s after tuples of %d: every split point has one value for each of the same leading columns", len(parts), vals, width))
			return
		}
		e.Bounds = append(e.Bounds, TupleText(parts))
		p.space()
		if p.peek() == ',' {
			p.pos++
			continue
		}
		p.expect(']')
		return
	}
}

// value reads one value of a list: a quoted text (quotes stripped) or the
// raw text up to a comma or a character of ends (spaces trimmed).
func (p *parser) value(ends string) (string, bool) {
	start := p.pos
	if q := p.peek(); q == '"' || q == '\'' {
		p.pos++
		for !p.eof() && p.src[p.pos] != q {
			p.pos++
		}
		if p.eof() {
			p.fail("unterminated string")
			return "", false
		}
		p.pos++
		return p.src[start+1 : p.pos-1], true
	}
	for !p.eof() && p.src[p.pos] != ',' && !strings.ContainsRune(ends, rune(p.src[p.pos])) {
		p.pos++
	}
	v := strings.TrimSpace(p.src[start:p.pos])
	if v == "" {
		p.fail("expected a value")
		return "", false
	}
	return v, true
}

// list reads "[v, v, ...]" of raw texts (quotes stripped).
func (p *parser) list() []string {
	out, _ := p.listAt()
	return out
}

// listAt is list also returning where each entry starts in the source
// (a byte offset, for an error that points at the entry).
func (p *parser) listAt() ([]string, []int) {
	if !p.expect('[') {
		return nil, nil
	}
	var out []string
	var at []int
	for {
		p.space()
		if p.peek() == ']' {
			p.pos++
			return out, at
		}
		start := p.pos
		at = append(at, start)
		if q := p.peek(); q == '"' || q == '\'' {
			p.pos++
			for !p.eof() && p.src[p.pos] != q {
				p.pos++
			}
			if p.eof() {
				p.fail("unterminated string")
				return nil, nil
			}
			out = append(out, p.src[start+1:p.pos])
			p.pos++
		} else {
			for !p.eof() && p.src[p.pos] != ',' && p.src[p.pos] != ']' {
				p.pos++
			}
			out = append(out, strings.TrimSpace(p.src[start:p.pos]))
		}
		p.space()
		if p.peek() == ',' {
			p.pos++
			continue
		}
		if p.peek() != ']' {
			p.fail(`expected "," or "]"`)
			return nil, nil
		}
	}
}

// mongoString writes a MongoDB shard key pattern as MongoDB does, with
// range(..., bounds=[...]) around it when bounds are given.
func (e *RangeExpr) mongoString() string {
	var b strings.Builder
	b.WriteString("{")
	for i, c := range e.Cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuoteName(c))
		if c == e.Hashed {
			b.WriteString(`: "hashed"`)
		} else {
			b.WriteString(": 1")
		}
	}
	b.WriteString("}")
	if len(e.Bounds) == 0 {
		return b.String()
	}
	return "range(" + b.String() + ", bounds=[" + strings.Join(e.Bounds, ", ") + "])"
}

// mongoPattern reads a MongoDB shard key pattern, {field: 1 | "hashed",
// ...}: MongoDB's shard keys are ascending or hashed, with at most one
// hashed field (src/mongo/db/s/shardkey_pattern.cpp,
// ShardKeyPattern::isShardKeyPatternValid; keyPattern values -1 are refused
// there too). A field name is an identifier or a quoted string.
func (p *parser) mongoPattern() *RangeExpr {
	e := &RangeExpr{Mongo: true}
	p.expect('{')
	for p.err == nil {
		p.space()
		if p.peek() == '}' && len(e.Cols) > 0 {
			break
		}
		var name string
		if q := p.peek(); q == '"' || q == '\'' {
			name = p.quoted()
		} else {
			name = p.ident()
		}
		if p.err != nil {
			return nil
		}
		if name == "" {
			p.fail("expected a field name in a MongoDB shard key pattern")
			return nil
		}
		if slices.Contains(e.Cols, name) {
			p.fail(fmt.Sprintf("field %s named twice", name))
			return nil
		}
		if !p.expect(':') {
			return nil
		}
		p.space()
		switch q := p.peek(); {
		case q == '"' || q == '\'':
			at := p.pos
			if v := p.quoted(); v != "hashed" {
				p.pos = at
				p.fail(fmt.Sprintf("field %s: %q: a MongoDB shard key field is 1 (ranged) or \"hashed\"", name, v))
				return nil
			}
			if e.Hashed != "" {
				p.pos = at
				p.fail(fmt.Sprintf("fields %s and %s are both hashed: a MongoDB shard key has at most one hashed field", e.Hashed, name))
				return nil
			}
			e.Hashed = name
		default:
			at := p.pos
			for !p.eof() && p.src[p.pos] != ',' && p.src[p.pos] != '}' && p.src[p.pos] != ' ' {
				p.pos++
			}
			if v := p.src[at:p.pos]; v != "1" {
				p.pos = at
				p.fail(fmt.Sprintf("field %s: %s: a MongoDB shard key field is 1 (ranged) or \"hashed\" (shard keys are ascending)", name, strconv.Quote(v)))
				return nil
			}
		}
		e.Cols = append(e.Cols, name)
		p.space()
		if p.peek() == ',' {
			p.pos++
			continue
		}
		break
	}
	if !p.expect('}') {
		return nil
	}
	return e
}

// quoted reads a string in double or single quotes (no escapes).
func (p *parser) quoted() string {
	q := p.src[p.pos]
	start := p.pos + 1
	end := strings.IndexByte(p.src[start:], q)
	if end < 0 {
		p.fail("unterminated string")
		return ""
	}
	p.pos = start + end + 1
	return p.src[start : start+end]
}

// VindexNames are the names a Vitess VSchema gives one table's column
// vindexes (read by emit.ReadVSchema), so that a vindex hint (USE VINDEX
// (name), IGNORE VINDEX (name)) is resolved as Vitess resolves it: by the
// column vindex's name, case-insensitively (newShardedRouting and
// indexesContains, go/vt/vtgate/planbuilder/operators/sharded_routing.go).
type VindexNames struct {
	// Primary is the primary vindex's name; PrimaryCols its columns;
	// PrimaryType its vindex type (hash, unicode_loose_md5, ...).
	Primary     string
	PrimaryCols []string
	PrimaryType string
	// Lookups maps a lookup's column, lower-cased, to its vindex name.
	Lookups map[string]string
	// LookupTables maps a lookup's column, lower-cased, to whether the
	// VSchema places its backing table (params.table is a table of a
	// keyspace, sharded with a column vindex, or unsharded); absent or
	// false: where the lookup table's rows are is unknown.
	LookupTables map[string]bool
	// LookupTableNames maps a lookup's column, lower-cased, to its
	// backing table's name as the VSchema gives it (params.table; ""
	// when it gives none).
	LookupTableNames map[string]string
	// LookupEngines maps a lookup's column, lower-cased, to the partition
	// engine of the column vindex the VSchema shards its backing table by
	// (its first column vindex, in a sharded keyspace: "vitess" for hash,
	// "vitess-unicode-loose-md5" for unicode_loose_md5, ...); absent when
	// the VSchema gives none or one shardkey does not place.
	LookupEngines map[string]string
	// LookupIgnoreNulls maps a lookup's column, lower-cased, to whether
	// its vindex has params.ignore_nulls "true": Vitess then writes no
	// lookup row for a NULL, where without it an INSERT or UPDATE that
	// sets the column to NULL fails (lookupInternal.Create,
	// go/vt/vtgate/vindexes/lookup_internal.go).
	LookupIgnoreNulls map[string]bool
	// Reference says the VSchema makes the table a reference table;
	// Source is then its source table ("keyspace.table"), "" for none.
	Reference bool
	Source    string
}
