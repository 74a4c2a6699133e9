package sim

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// Options say how to place keys.
type Options struct {
	// Shards is the number of shards, >= 1.
	Shards int
	// Engine places every hash key; nil means partition.Generic.
	Engine partition.Engine
	// Dir is the directory that relative directory(col, FILE) paths are
	// read from; "" means the working directory.
	Dir string
	// Workers is the number of goroutines scoring one candidate; <= 0
	// means GOMAXPROCS.
	Workers int
	// Nodes, when set and its slot count is Shards, places the shards
	// (slots) on nodes: the workload's capacity is a node's, judged on
	// the sum of its slots' work (Candidate.OnNodes). At another shard
	// count it is left out (per-shard capacity).
	Nodes *Nodes
	// Vindexes are the names a VSchema gives each table's column vindexes
	// (-k @vschema.json), by table name; nil for a design written by
	// hand. A name applies to the compiled key whose columns are the
	// primary vindex's, or to the lookup on its column (hinted).
	Vindexes map[string]shardkey.VindexNames
	// Cache, when set, keeps what depends on the workload's statements
	// alone across calls (see Cache); nil recomputes it each time.
	Cache *Cache
	// Directories are directory maps held in memory, by the FILE name a
	// design's directory(col, FILE) gives: a name found here is not read
	// from disk. Keys are canonical values (shardkey.Value.Canonical),
	// values shards 0..Shards-1. The advisor scores the placements it
	// proposes (one key value per shard) this way; nil for none.
	Directories map[string]map[shardkey.Value]int
}

type keyKind uint8

const (
	kUnplaced  keyKind = iota // the design gives the table no key: one unsharded copy on shard 0
	kHash                     // engine hash of the key columns
	kRange                    // design-wide range boundaries
	kDirectory                // explicit map, hash fallback
	kReplicate                // reference table: a copy on every shard
)

// Scheme is a design compiled against a workload: for every table, how its
// rows and conditions map to shards. It is immutable and safe for concurrent
// use.
type Scheme struct {
	Design *shardkey.Design
	N      int
	Engine partition.Engine
	tables []*tableKey // by workload table index
	// vindexes is Options.Vindexes.
	vindexes map[string]shardkey.VindexNames
	w        *shardkey.Workload
	// Warnings are findings about the design that do not stop scoring.
	Warnings []error
	// unsharded are the tables with none of the key's columns, left
	// unsharded on shard 0 (Candidate.Unsharded).
	unsharded []string
	// boundsFromTraffic: range boundaries were taken from the values the
	// statements bind (no row sample).
	boundsFromTraffic bool
	// rangeValues, for boundaries computed from the data over a
	// one-column key of few distinct values (see fewRangeValues), are the
	// distinct values each range holds, in range order; nil otherwise.
	rangeValues [][]shardkey.Value
	// rangeOne, when the values the range boundaries were computed from
	// (a row sample's, or the statements') hold one key alone, is that
	// key: no boundary can split it, so every row is in shard 0.
	rangeOne []shardkey.Value
	// nodes places the shards on nodes for capacity (Options.Nodes).
	nodes *Nodes
	// nodeFanout, when set (nodes under an engine whose client sends a
	// request to nodes, ScatterPerNode: redis), makes fan-out count the
	// nodes an instance touches, not the slots (OpPartial.NodeHist).
	nodeFanout *Nodes
	// lookups are the design's lookups (secondary routing tables), all
	// tables', in table order; see lookup.go.
	lookups []*lookupKey
	// cache is Options.Cache.
	cache *Cache
	// moves, when movesSet, is rebalance's result, computed ahead by
	// prefetch (it depends on the row samples alone).
	moves    []Move
	movesSet bool
}

// tableKey is one table's compiled key.
type tableKey struct {
	expr   shardkey.Expr
	kind   keyKind
	cols   []int // key column indices in the table
	eng    partition.Engine
	layout partition.Layout // hash and directory fallback; over base shards
	fast   partition.Int64Pointer
	memo   *memoEngine                // eng, when it is memoised with shards (withShards)
	canon  partition.CanonicalPointer // rows hashed from their columns' bytes
	keyCol []*shardkey.Column         // the key columns, for canon
	modN   uint64                     // > 0 when layout is modulo: shard = point % modN
	base   int                        // shards the base function spreads over (N minus isolated)
	bounds [][]shardkey.Value
	dir    map[shardkey.Value]int
	saltK  int
	// saltBy is the column index of salt's by= column (saltby.go), -1
	// for none.
	saltBy int
	salted map[string]bool // hot key encodings that are salted
	// saltKs is salt's per-value bucket counts (salt(EXPR, [K1, ...])),
	// heaviest first; nil for one count. saltKOf maps each salted value's
	// encoding to its count when saltKs is set (setBuckets).
	saltKs  []int
	saltKOf map[string]int
	// saltOrder is the salted encodings, heaviest first.
	saltOrder []string
	// composite: a salt key under Cassandra, whose partition key is
	// (key columns..., bucket): every row, salted or not, is placed by
	// the Murmur3 token of the composite key, bucket 0 for a value not
	// salted (cassandraBucketed), and bucket b of a salted value by the
	// token of (value, b). cellEng is the unwrapped engine.
	composite bool
	cellEng   partition.Engine
	// bshard maps each salted encoding to the shard of each of its
	// buckets (bucket b at index b); bshardInt the same by integer key.
	// Filled once the scheme is compiled (setBuckets); read-only after.
	bshard    map[string][]int
	bshardInt map[int64][]int
	iso       map[string]int // hot key encoding -> dedicated shard
	// isoTop and saltTop are the expressions' top=N (shareHot).
	isoTop, saltTop int
	// isoOff is isolate's placement of its values: the i-th isolated
	// value's shards start at base+isoOff[i] (i for a plain isolate;
	// the sum of the earlier values' over= counts for a split).
	isoOff []int
	// splitK, for isolate split=, is the number of shards of the split
	// value homed at each shard (indexed by shard, 0 elsewhere): over=K
	// or its entry of over=[K1, K2, ...]. nil otherwise; see bucketsAt.
	splitK []int
	// isoKeys are the isolated key tuples with their shards, for range
	// keys: a span of the range that holds one also asks its shard.
	isoKeys []isoKey
	// saltKeys are the salted key tuples, for range keys: a span of the
	// range that holds one also asks its buckets (shard unused).
	saltKeys []isoKey
	// mongoHashed is 1 + the index in cols of the hashed field of a
	// MongoDB compound key with a ranged prefix ({a: 1, b: "hashed"}),
	// whose values order by MongoDB's hashed value (keyPart); 0: none.
	mongoHashed int
	// newest holds, for each key column, its greatest value in the row
	// sample when it is a time (Timestamp, Date) and the sample has one;
	// else NULL. It stands for "now" in a range end known at run time
	// (now() - interval '5 years'; see nowEnd).
	newest []shardkey.Value
	// For one integer key column (Int16/32/64 or Timestamp, no NULLs):
	// the same maps and the range bounds as int64s, for the row fast path.
	intCol    bool
	saltedInt map[int64]bool
	isoInt    map[int64]int
	intBounds []int64
	// stmtInt: a range key of one column, no isolated, salted or
	// MongoDB-hashed values, whose boundaries are all integers (Int64,
	// Timestamp): a statement binding it to one integer value goes to
	// the number of stmtBounds <= the value (rangeStmt's fast path).
	stmtInt    bool
	stmtBounds []int64
	// lookups are the table's lookups, unique ones first.
	lookups []*lookupKey
	// engName names the engine that places the table: the scheme's, or
	// the Vitess vindex's the key names (vindex=TYPE); eng may wrap it.
	engName string
}

// Compile compiles design d for workload w. It fails when a key names a
// column a table does not have, when no table gets a key, or when a
// directory file cannot be read.
func Compile(w *shardkey.Workload, d *shardkey.Design, o Options) (*Scheme, error) {
	if o.Shards < 1 {
		return nil, &shardkey.UsageError{Msg: fmt.Sprintf("--shards %d: must be at least 1", o.Shards)}
	}
	eng := o.Engine
	if eng == nil {
		eng = partition.Generic{}
	}
	s := &Scheme{Design: d, N: o.Shards, Engine: eng, w: w, tables: make([]*tableKey, len(w.Tables)), vindexes: o.Vindexes, cache: o.Cache}
	if o.Nodes != nil && len(o.Nodes.Node) == o.Shards {
		s.nodes = o.Nodes
		if ScatterPerNode(eng.Name()) {
			s.nodeFanout = o.Nodes
		}
	}
	for name := range d.Tables {
		if w.Table(name) == nil {
			return nil, fmt.Errorf("key %q: no table %q (tables: %s)", d.Text, name, strings.Join(tableNames(w), ", "))
		}
	}
	placed := 0
	type splitAt struct{ table, counts string }
	splits := map[string]splitAt{} // isolate split='s inner key -> its first table's top= and over=
	unsplit := map[string]string{} // a hash key (bare or isolated unsplit) -> its first table
	for ti, t := range w.Tables {
		e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
		if e == nil {
			s.tables[ti] = &tableKey{kind: kUnplaced}
			continue
		}
		switch m := e.(type) {
		case *shardkey.HashExpr:
			if _, ok := unsplit[m.String()]; !ok {
				unsplit[m.String()] = t.Name
			}
		case *shardkey.IsolateExpr:
			if _, ok := unsplit[m.Inner.String()]; !ok && m.Split == "" {
				unsplit[m.Inner.String()] = t.Name
			}
		}
		if m, ok := e.(*shardkey.IsolateExpr); ok && m.Split != "" {
			// Tables that isolate the same key's values must give them the
			// same shard counts: the counts set how many shards the other
			// values hash over, and different bases would place one
			// tenant's rows on different shards in each table.
			counts := fmt.Sprintf("top=%d, over=", m.Top)
			for i := range m.Top {
				counts += fmt.Sprintf("%d,", m.OverOf(i))
			}
			in := m.Inner.String()
			if prev, ok := splits[in]; !ok {
				splits[in] = splitAt{t.Name, counts}
			} else if prev.counts != counts {
				return nil, fmt.Errorf("key %q: tables %s and %s split the values of %s over different shard counts (%s against %s): the other values would hash over different shards in each, no longer co-located; give every table the same top= and over=", d.Text, prev.table, t.Name, in, strings.TrimSuffix(prev.counts, ","), strings.TrimSuffix(counts, ","))
			}
		}
		tk, err := s.compileExpr(t, e, o)
		if err != nil {
			return nil, fmt.Errorf("key %q: table %s: %w", d.Text, t.Name, err)
		}
		s.tables[ti] = tk
		placed++
	}
	for _, in := range slices.Sorted(maps.Keys(splits)) {
		sp := splits[in]
		if other, ok := unsplit[in]; ok {
			// One table splits the key's hot values over dedicated shards,
			// another does not: the other values hash over fewer shards
			// in the first, so a value's rows sit on different shards in
			// each (not co-located), which joins and transactions on the
			// key then pay.
			s.Warnings = append(s.Warnings, fmt.Errorf("key %q: table %s splits the hot values of %s over dedicated shards (isolate split=) and table %s does not: the other values hash over different shards in each, no longer co-located; give %s the same isolate(%s, %s, split=..., over=...)", d.Text, sp.table, in, other, other, in, strings.TrimSuffix(strings.SplitN(sp.counts, ", over=", 2)[0], ",")))
		}
	}
	if placed == 0 {
		var cols []string
		if d.Default != nil {
			cols = d.Default.Columns()
		}
		return nil, fmt.Errorf("key %q: no table has column(s) %s (tables: %s)", d.Text, strings.Join(cols, ", "), describeTables(w))
	}
	for ti, tk := range s.tables {
		if tk.kind == kUnplaced && tk.expr == nil && len(w.Tables) > 1 {
			s.Warnings = append(s.Warnings, fmt.Errorf("key %q: table %s has none of the key's columns and stays unsharded on shard 0", d.Text, w.Tables[ti].Name))
			s.unsharded = append(s.unsharded, w.Tables[ti].Name)
		}
	}
	// An engine that places keys only by hash cannot run a range key:
	// the figures are still computed (as shardkey's own ranges), but the
	// design is not one that engine can be set up with (advise rejects
	// it for the same reason).
	if why := partition.HashOnly(s.Engine.Name()); why != "" {
		for ti, tk := range s.tables {
			if tk.kind == kRange {
				s.Warnings = append(s.Warnings, fmt.Errorf("key %q: engine %s cannot range-partition table %s: %s; the figures are those of shardkey's own ranges, which this engine cannot run", d.Text, s.Engine.Name(), w.Tables[ti].Name, why))
				break
			}
		}
	}
	s.shareHot()
	if err := s.computeBounds(); err != nil {
		return nil, err
	}
	if err := s.setBuckets(); err != nil {
		return nil, err
	}
	if s.boundsFromTraffic && s.rangeOne == nil {
		s.Warnings = append(s.Warnings, fmt.Errorf("key %q: no row sample: the range boundaries split the values the statements bind into equal shares of the traffic", d.Text))
	}
	if err := s.compileLookups(); err != nil {
		return nil, err
	}
	for ti, tk := range s.tables {
		switch {
		case tk.kind != kRange || len(tk.bounds) > 0 || s.N <= 1:
		case s.rangeOne != nil:
			from := "in the row sample"
			if s.boundsFromTraffic {
				from = "in the statements (no row sample)"
			}
			s.Warnings = append(s.Warnings, fmt.Errorf("key %q: table %s: the range key has one value, %s, %s: one value cannot be split into ranges, so every row is in shard 0 and the other %d shards are idle; range-partition by a column with more values, or give bounds=[...] if the data will hold more", d.Text, w.Tables[ti].Name, tupleText(s.rangeOne), from, s.N-1))
		default:
			s.Warnings = append(s.Warnings, fmt.Errorf("key %q: table %s: the range key has no boundaries (no row sample to take quantiles from, and no bounds=[...]): every value falls in shard 0; give rows (--rows, --from, a workload) or bounds", d.Text, w.Tables[ti].Name))
		}
	}
	return s, nil
}

func tableNames(w *shardkey.Workload) []string {
	var n []string
	for _, t := range w.Tables {
		n = append(n, t.Name)
	}
	return n
}

func describeTables(w *shardkey.Workload) string {
	var parts []string
	for _, t := range w.Tables {
		parts = append(parts, t.Name+"("+strings.Join(t.ColumnNames(), ", ")+")")
	}
	return strings.Join(parts, ", ")
}

func (s *Scheme) compileExpr(t *shardkey.Table, e shardkey.Expr, o Options) (*tableKey, error) {
	// eng places this table: the scheme's engine, or the Vitess vindex
	// the key names (hash(col, vindex=TYPE), a VSchema's primary vindex).
	eng := s.Engine
	if vt := shardkey.KeyVindex(e); vt != "" {
		if !strings.HasPrefix(s.Engine.Name(), "vitess") {
			return nil, fmt.Errorf("%s is placed by the Vitess %s vindex, and engine %s is not Vitess's: give --engine vitess (or another vitess-* engine), under which each table keyed by vindex=TYPE is placed by its own vindex", e, vt, s.Engine.Name())
		}
		ve, err := partition.Lookup(shardkey.VindexEngine(vt))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
		eng = ve
	}
	tk := &tableKey{expr: e, eng: eng, engName: eng.Name(), base: s.N, saltBy: -1}
	for _, c := range e.Columns() {
		i := t.ColumnIndex(c)
		if i < 0 {
			return nil, fmt.Errorf("no column %q (columns: %s)", c, strings.Join(t.ColumnNames(), ", "))
		}
		tk.cols = append(tk.cols, i)
		tk.newest = append(tk.newest, newestTime(t.Columns[i]))
	}
	if m, ok := e.(*shardkey.SaltExpr); ok && strings.HasPrefix(eng.Name(), "cassandra") {
		if h, ok := m.Inner.(*shardkey.HashExpr); ok && h.Vindex == "" {
			// Cassandra bucketing: the bucket column joins the partition
			// key of every row of the table.
			tk.composite, tk.cellEng = true, eng
			eng = cassandraBucketed{eng}
		}
	}
	tk.eng = memoize(eng, t, tk.cols)
	inner := e
	switch m := e.(type) {
	case *shardkey.SaltExpr:
		inner = m.Inner
		if _, nested := inner.(*shardkey.SaltExpr); nested {
			return nil, errors.New("salt of salt is not supported")
		}
		if m.Top > maxHot {
			return nil, fmt.Errorf("salt top=%d: at most %d", m.Top, maxHot)
		}
		if m.K > s.N {
			return nil, fmt.Errorf("salt over %d buckets needs at least %d shards, have %d", m.K, m.K, s.N)
		}
		tk.saltK = m.K
		tk.saltTop = m.Top
		tk.saltKs = m.Ks
		if m.By != "" {
			if tk.saltBy = t.ColumnIndex(m.By); tk.saltBy < 0 {
				return nil, fmt.Errorf("salt by=%s: no column %q (columns: %s); give this table its own key", m.By, m.By, strings.Join(t.ColumnNames(), ", "))
			}
			if _, ok := inner.(*shardkey.HashExpr); !ok {
				return nil, fmt.Errorf("salt by=%s: only over a hash key, not %s", m.By, inner)
			}
		}
		tk.salted = map[string]bool{}
		tk.saltOrder = slices.Clone(hottest(t, tk.cols, m.Top))
		for _, k := range tk.saltOrder {
			tk.salted[k] = true
		}
	case *shardkey.IsolateExpr:
		inner = m.Inner
		if m.Top > maxHot {
			return nil, fmt.Errorf("isolate top=%d: at most %d", m.Top, maxHot)
		}
		if m.Split != "" {
			// Each value over its own m.OverOf(i) dedicated shards, the
			// salt machinery with by= (saltby.go) placing rows among them.
			total := 0
			for i := range m.Top {
				total += m.OverOf(i)
			}
			if total >= s.N {
				if len(m.Overs) == 0 {
					values := "values"
					if m.Top == 1 {
						values = "value"
					}
					return nil, fmt.Errorf("isolating %d %s over %d shards each needs more than %d shards, have %d", m.Top, values, m.Over, total, s.N)
				}
				return nil, fmt.Errorf("isolating %d values over %d shards in all needs more than %d shards, have %d", m.Top, total, total, s.N)
			}
			if tk.saltBy = t.ColumnIndex(m.Split); tk.saltBy < 0 {
				return nil, fmt.Errorf("isolate split=%s: no column %q (columns: %s); give this table its own key", m.Split, m.Split, strings.Join(t.ColumnNames(), ", "))
			}
			if _, ok := inner.(*shardkey.HashExpr); !ok {
				return nil, fmt.Errorf("isolate split=%s: only over a hash key, not %s", m.Split, inner)
			}
			tk.saltK, tk.saltTop = m.Over, m.Top
			tk.salted = map[string]bool{}
		} else if m.Top >= s.N {
			return nil, fmt.Errorf("isolating %d values needs more than %d shards", m.Top, s.N)
		}
		tk.isoOff = make([]int, m.Top)
		used := 0
		for i := range m.Top {
			tk.isoOff[i] = used
			if m.Split != "" {
				used += m.OverOf(i)
			} else {
				used++
			}
		}
		tk.base = s.N - used
		if m.Split != "" {
			tk.splitK = make([]int, s.N)
			for i := range m.Top {
				tk.splitK[tk.base+tk.isoOff[i]] = m.OverOf(i)
			}
		}
		tk.isoTop = m.Top
		tk.iso = map[string]int{}
		for i, k := range hottest(t, tk.cols, m.Top) {
			tk.iso[k] = tk.base + tk.isoOff[i]
			if tk.salted != nil {
				tk.salted[k] = true
			}
		}
	}
	if m, ok := inner.(*shardkey.SaltExpr); ok {
		return nil, fmt.Errorf("%s inside another function is not supported; write salt(...) outermost", m)
	}
	if m, ok := inner.(*shardkey.IsolateExpr); ok {
		// isolate(salt(...)) and salt(isolate(...)): take the inner isolate.
		tk.base = s.N - m.Top
		if m.Top >= s.N {
			return nil, fmt.Errorf("isolating %d values needs more than %d shards", m.Top, s.N)
		}
		tk.isoTop = m.Top
		tk.isoOff = make([]int, m.Top)
		tk.iso = map[string]int{}
		for i := range tk.isoOff {
			tk.isoOff[i] = i
		}
		for i, k := range hottest(t, tk.cols, m.Top) {
			tk.iso[k] = tk.base + i
		}
		inner = m.Inner
	}
	switch m := inner.(type) {
	case *shardkey.ReplicateExpr:
		if s.Engine.Name() == "mongodb" {
			// MongoDB has no reference (replicated) collections: an
			// unsharded collection lives on its database's primary shard,
			// which serves every read and write of it (MongoDB manual,
			// "Primary Shard"; src/mongo/s/query/cluster_find.cpp routes an
			// unsharded namespace to the primary). Shard 0 is the primary.
			tk.kind = kUnplaced
			s.Warnings = append(s.Warnings, fmt.Errorf("table %s: replicate: MongoDB has no reference collections; scored as unsharded on the database's primary shard (shard 0), which serves all its reads and writes", t.Name))
			return tk, nil
		}
		if s.Engine.Name() == "redis" {
			// Redis Cluster has no reference tables: every key lives in
			// the one hash slot CRC16 of it (or of its hash tag) names,
			// on the one master that owns the slot; no command copies a
			// key to every master (Redis Cluster specification, "Key
			// distribution model"). Scoring it as copied everywhere would
			// credit the design with local reads Redis cannot give.
			return nil, &shardkey.UsageError{Msg: "replicate: Redis Cluster has no reference tables (every key lives in one hash slot on one master; nothing is copied to every master): key the table by hash(COLUMN) instead"}
		}
		tk.kind = kReplicate
		return tk, nil
	case *shardkey.HashExpr:
		tk.kind = kHash
	case *shardkey.RangeExpr:
		if m.Hashed != "" {
			if err := s.mongoHashed(t, tk, m); err != nil {
				return nil, err
			}
			if tk.kind == kHash {
				break // a hashed prefix: placed as hash(field), below
			}
			return tk, nil
		}
		tk.kind = kRange
		if tk.iso != nil {
			tk.isoKeys = isoTuples(t, tk.cols, tk.iso)
		}
		if tk.salted != nil {
			keys := map[string]int{}
			for k := range tk.salted {
				keys[k] = 0
			}
			tk.saltKeys = isoTuples(t, tk.cols, keys)
		}
		return tk, nil // bounds are design-wide: computeBounds
	case *shardkey.DirectoryExpr:
		tk.kind = kDirectory
		if dir, ok := o.Directories[m.File]; ok {
			for v, sh := range dir {
				if sh < 0 || sh >= s.N {
					return nil, fmt.Errorf("directory %s: %s on shard %d, out of range 0..%d", m.File, v, sh, s.N-1)
				}
			}
			tk.dir = dir
			break
		}
		dir, err := readDirectory(m.File, o.Dir, t.Columns[tk.cols[0]].Type, s.N)
		if err != nil {
			return nil, err
		}
		tk.dir = dir
	default:
		return nil, fmt.Errorf("unsupported key expression %s", inner)
	}
	l, err := eng.Layout(tk.base)
	if err != nil {
		return nil, fmt.Errorf("engine %s: %w", eng.Name(), err)
	}
	if err := probeEngine(eng, t, tk.cols); err != nil {
		return nil, err
	}
	tk.layout = l
	if m, ok := l.(partition.Modulo); ok {
		tk.modN = uint64(m.Shards())
	}
	if m, ok := tk.eng.(*memoEngine); ok && tk.kind == kHash {
		m.withShards(tk.modN)
		tk.memo = m
	}
	if len(tk.cols) == 1 && t.Columns[tk.cols[0]].Type == shardkey.Int64 {
		tk.fast, _ = eng.(partition.Int64Pointer)
	}
	tk.canon, _ = eng.(partition.CanonicalPointer)
	for _, c := range tk.cols {
		tk.keyCol = append(tk.keyCol, t.Columns[c])
	}
	tk.setIntKeys(t)
	return tk, nil
}

// probeValues are ordinary values of each type, for probeEngine.
var probeValues = map[shardkey.Type]string{
	shardkey.Int16: "1", shardkey.Int32: "1", shardkey.Int64: "1", shardkey.Uint64: "1",
	shardkey.Float32: "1.5", shardkey.Float64: "1.5", shardkey.Text: "a", shardkey.Bytes: "a",
	shardkey.UUID: "00000000-0000-0000-0000-000000000001", shardkey.Timestamp: "2024-01-01 00:00:00",
}

// probeEngine places one ordinary key of the columns' types (1, "a", ...)
// with eng, so that a key the engine cannot place at all (Citus
// distributes a table by one column; a Vitess numeric vindex takes no
// text) is refused when it is compiled, naming the key and the engine,
// rather than on whatever input line first routes it.
func probeEngine(eng partition.Engine, t *shardkey.Table, cols []int) error {
	key := make([]shardkey.Value, len(cols))
	names := make([]string, len(cols))
	for i, c := range cols {
		col := t.Columns[c]
		names[i] = fmt.Sprintf("%s %s", col.Name, col.Type)
		s, ok := probeValues[col.Type]
		if !ok {
			return nil // a column of NULLs only: nothing ordinary to try
		}
		v, err := shardkey.ParseValue(s, col.Type)
		if err != nil {
			return nil
		}
		key[i] = v
	}
	if _, err := eng.Point(key); err != nil {
		if errors.Is(err, partition.ErrNoDestination) {
			// The engine's reason without the probe value it names
			// ("a" is not an unsigned 64-bit integer), which is ours,
			// not the user's: what it maps, and that these types have
			// no shard.
			why, _, _ := strings.Cut(err.Error(), "; ")
			return &probeError{msg: fmt.Sprintf("engine %s cannot place a key of (%s): %s: the engine has no shard for values of these types", eng.Name(), strings.Join(names, ", "), why), err: err}
		}
		return fmt.Errorf("engine %s cannot place a key of (%s): %w", eng.Name(), strings.Join(names, ", "), err)
	}
	return nil
}

// probeError is probeEngine's error for types the engine has no shard
// for: its own message, and the engine's error (partition.ErrNoDestination)
// underneath for errors.Is.
type probeError struct {
	msg string
	err error
}

func (e *probeError) Error() string { return e.msg }
func (e *probeError) Unwrap() error { return e.err }

// isoKey is an isolated key tuple and its dedicated shard.
type isoKey struct {
	key   []shardkey.Value
	shard int
}

// isoTuples returns the key tuples of t's rows whose encodings iso holds,
// with their shards, in shard order.
func isoTuples(t *shardkey.Table, cols []int, iso map[string]int) []isoKey {
	var out []isoKey
	seen := map[string]bool{}
	key := make([]shardkey.Value, len(cols))
	var buf []byte
	for r := 0; r < t.Rows && len(out) < len(iso); r++ {
		for j, c := range cols {
			key[j] = t.Columns[c].Value(r)
		}
		buf = keyString(buf[:0], key)
		if sh, ok := iso[string(buf)]; ok && !seen[string(buf)] {
			seen[string(buf)] = true
			out = append(out, isoKey{append([]shardkey.Value(nil), key...), sh})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].shard < out[j].shard })
	return out
}

// setIntKeys fills the integer fast-path maps when the key is one integer
// column without NULLs.
func (tk *tableKey) setIntKeys(t *shardkey.Table) {
	if len(tk.cols) != 1 {
		return
	}
	c := t.Columns[tk.cols[0]]
	if !c.Type.IsInt() || c.Nulls != nil || len(c.Ints) != t.Rows {
		return
	}
	if c.Type == shardkey.Timestamp && (tk.salted != nil || tk.iso != nil) {
		return // hot keys of timestamps are not integer-encoded
	}
	tk.intCol = true
	parse := func(k string) (int64, bool) {
		if len(k) < 2 {
			return 0, false
		}
		n, err := strconv.ParseInt(k[1:], 10, 64)
		return n, err == nil
	}
	if tk.salted != nil {
		tk.saltedInt = map[int64]bool{}
		for k := range tk.salted {
			if v, ok := parse(k); ok {
				tk.saltedInt[v] = true
			} else {
				tk.intCol = false
			}
		}
	}
	if tk.iso != nil {
		tk.isoInt = map[int64]int{}
		for k, sh := range tk.iso {
			if v, ok := parse(k); ok {
				tk.isoInt[v] = sh
			} else {
				tk.intCol = false
			}
		}
	}
}

// readDirectory reads "value,shard" lines (an optional header whose second
// field is not a number is skipped). Lines before the first record that
// start with '#' and a space (or are '#' alone) are comments
// (advisor.WriteDirectory says there what the shard column is); a value
// may still start with '#' ("#redis,3"), and further down a '#' is
// always a value's.
func readDirectory(file, dir string, typ shardkey.Type, n int) (map[shardkey.Value]int, error) {
	path := file
	if dir != "" && !filepath.IsAbs(path) {
		path = filepath.Join(dir, file)
	}
	f, err := os.Open(path)
	if err != nil {
		// A file that does not exist is a usage error (exit 2), as a
		// missing file of a flag is; one that cannot be read is the
		// user's input: an input error.
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &shardkey.UsageError{Msg: fmt.Sprintf("directory file %s does not exist", path)}
		}
		return nil, shardkey.Errorf(path, 0, "", "directory: %v", errors.Unwrap(err))
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		// As a flag's file that is a directory (workload.CheckFile): a
		// usage error, before a read fails with "is a directory" at a
		// line 1 the file does not have.
		return nil, &shardkey.UsageError{Msg: fmt.Sprintf("directory file %s is a directory; give a file of value,shard lines", path)}
	}
	// Bounded: a directory lists exceptions, not every key.
	br := bufio.NewReader(&shardkey.BoundedReader{R: f, File: file, What: "a directory file", Max: shardkey.MaxDirectoryBytes, MaxLine: 1 << 20})
	first := 1 // the first record's line, after the leading comments
	for {
		b, _ := br.Peek(2)
		if len(b) == 0 || b[0] != '#' || len(b) == 2 && b[1] != ' ' && b[1] != '\t' && b[1] != '\n' && b[1] != '\r' {
			break // a value may start with '#' ("#redis,3"): a comment is "# ..."
		}
		if _, err := br.ReadString('\n'); err != nil {
			if ie := (*shardkey.InputError)(nil); errors.As(err, &ie) {
				return nil, ie
			}
			if err != io.EOF {
				return nil, shardkey.Errorf(file, first, "", "%v", err)
			}
		}
		first++
	}
	r := csv.NewReader(br)
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	out := map[shardkey.Value]int{}
	seenAt := map[shardkey.Value]int{}
	for line := first; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			if ie := (*shardkey.InputError)(nil); errors.As(err, &ie) {
				return nil, ie
			}
			return nil, shardkey.Errorf(file, line, "", "%v", err)
		}
		if len(out) >= shardkey.MaxDirectoryEntries {
			return nil, shardkey.Errorf(file, line, "", "more than %d entries: a directory lists the keys that leave the hash (hot keys, a tenant's own shard), not every key", shardkey.MaxDirectoryEntries)
		}
		if len(rec) != 2 {
			return nil, shardkey.Errorf(file, line, "", "want 2 fields value,shard, got %d", len(rec))
		}
		sh, err := strconv.Atoi(strings.TrimSpace(rec[1]))
		if err != nil {
			if line == first {
				continue // header
			}
			return nil, shardkey.Errorf(file, line, "shard", "%q is not a shard number", rec[1])
		}
		if sh < 0 || sh >= n {
			return nil, shardkey.Errorf(file, line, "shard", "shard %d out of range 0..%d", sh, n-1)
		}
		v, err := shardkey.ParseValue(rec[0], typ)
		if err != nil {
			return nil, shardkey.Errorf(file, line, "value", "%v", err)
		}
		if prev, dup := seenAt[v.Canonical()]; dup {
			return nil, shardkey.Errorf(file, line, "value", "%s mapped twice (first on line %d)", v, prev)
		}
		seenAt[v.Canonical()] = line
		out[v.Canonical()] = sh
	}
	if len(out) == 0 {
		return nil, shardkey.Errorf(file, 0, "", "empty directory")
	}
	return out, nil
}

// keyString encodes a key tuple for hot-key maps: canonical values' text,
// NUL separated, with a type class prefix so 1 and "1" differ.
func keyString(b []byte, key []shardkey.Value) []byte {
	for i, v := range key {
		if i > 0 {
			b = append(b, 0)
		}
		v = v.Canonical()
		b = append(b, byte('0'+v.Type))
		b = v.AppendText(b)
	}
	return b
}

// rowWeightsByKey returns the summed row weight of each key tuple of t's
// columns cols, by keyString. It depends on neither the shard count nor
// the engine, so it is memoised by table: a search over shard counts
// (the advisor's fewest shards that fit) re-compiles one design at each
// count, and this pass over every row was most of a compile's time (the
// workspace scenario's 358,000 rows).
func rowWeightsByKey(t *shardkey.Table, cols []int) map[string]float64 {
	return memo(t, fmt.Sprint("rowweights", cols), func() map[string]float64 {
		agg := map[string]float64{}
		key := make([]shardkey.Value, len(cols))
		var buf []byte
		for r := 0; r < t.Rows; r++ {
			for j, c := range cols {
				key[j] = t.Columns[c].Value(r)
			}
			buf = keyString(buf[:0], key)
			agg[string(buf)] += t.Weight(r)
		}
		return agg
	})
}

// shareHot makes isolate's and salt's hot values design-wide, as range
// boundaries are: when several tables are keyed by the same number of
// columns with isolated (or salted) values, the hottest values are those
// of the rows of all of them together, so that a whale's rows in every
// table of its entity group move to its dedicated shard together (each
// table's own hottest values would split the group: the customer's row in
// customers and its orders elsewhere).
func (s *Scheme) shareHot() {
	type group struct {
		tables []int
		agg    map[string]float64
	}
	groups := map[int]*group{} // by key width
	for ti, tk := range s.tables {
		if tk == nil || tk.iso == nil && tk.salted == nil {
			continue
		}
		g := groups[len(tk.cols)]
		if g == nil {
			g = &group{agg: map[string]float64{}}
			groups[len(tk.cols)] = g
		}
		g.tables = append(g.tables, ti)
	}
	for _, g := range groups {
		if len(g.tables) < 2 {
			continue
		}
		for _, ti := range g.tables {
			for k, x := range rowWeightsByKey(s.w.Tables[ti], s.tables[ti].cols) {
				g.agg[k] += x
			}
		}
		type kw struct {
			k string
			w float64
		}
		list := make([]kw, 0, len(g.agg))
		for k, w := range g.agg {
			list = append(list, kw{k, w})
		}
		sort.Slice(list, func(i, j int) bool {
			if list[i].w != list[j].w {
				return list[i].w > list[j].w
			}
			return list[i].k < list[j].k
		})
		for _, ti := range g.tables {
			tk := s.tables[ti]
			t := s.w.Tables[ti]
			if tk.iso != nil {
				top := tk.isoTop
				tk.iso = map[string]int{}
				for i := 0; i < top && i < len(list); i++ {
					tk.iso[list[i].k] = tk.base + tk.isoOff[i]
				}
				if tk.kind == kRange {
					tk.isoKeys = isoTuples(t, tk.cols, tk.iso)
				}
			}
			if tk.salted != nil {
				top := tk.saltTop
				tk.salted = map[string]bool{}
				tk.saltOrder = nil
				for i := 0; i < top && i < len(list); i++ {
					tk.salted[list[i].k] = true
					tk.saltOrder = append(tk.saltOrder, list[i].k)
				}
				if tk.kind == kRange {
					keys := map[string]int{}
					for k := range tk.salted {
						keys[k] = 0
					}
					tk.saltKeys = isoTuples(t, tk.cols, keys)
				}
			}
			tk.isoInt, tk.saltedInt = nil, nil
			tk.setIntKeys(t)
		}
	}
}

// hottest returns the encodings of the top key values of t by summed row
// weight (ties broken by key order, for determinism).
func hottest(t *shardkey.Table, cols []int, top int) []string {
	list := memo(t, fmt.Sprint("hot", cols), func() []string { return hottestN(t, cols, maxHot) })
	if len(list) > top {
		list = list[:top]
	}
	return list
}

// bucketsAt returns the shards a salted or split hot value homed at
// shard home spreads over: isolate split='s count for that value, else
// salt's K.
func (tk *tableKey) bucketsAt(home int) int {
	if tk.splitK != nil && home >= 0 && home < len(tk.splitK) && tk.splitK[home] > 0 {
		return tk.splitK[home]
	}
	return tk.saltK
}

// bucketsHolding returns the shards of the split value whose shards
// include shard sh (isolate split=), else salt's K.
func (tk *tableKey) bucketsHolding(sh int) int {
	for home, k := range tk.splitK {
		if k > 0 && home <= sh && sh < home+k {
			return k
		}
	}
	return tk.saltK
}

// maxHot bounds salt's and isolate's top=N.
const maxHot = 1024

func hottestN(t *shardkey.Table, cols []int, top int) []string {
	type kw struct {
		k string
		w float64
	}
	agg := rowWeightsByKey(t, cols) // memoised, read only
	list := make([]kw, 0, len(agg))
	for k, w := range agg {
		list = append(list, kw{k, w})
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].w != list[j].w {
			return list[i].w > list[j].w
		}
		return list[i].k < list[j].k
	})
	if len(list) > top {
		list = list[:top]
	}
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = x.k
	}
	return out
}

// KeyColumns returns the column indices (in table ti of the workload the
// scheme was compiled for) whose values decide a row's shard, in key
// order: a hash, range or directory key's columns (a salted or isolated
// key's inner columns). It returns nil for a table the design leaves
// unsharded or replicates, whose rows have no key.
func (s *Scheme) KeyColumns(ti int) []int {
	if ti < 0 || ti >= len(s.tables) {
		return nil
	}
	tk := s.tables[ti]
	if tk.kind == kUnplaced || tk.kind == kReplicate {
		return nil
	}
	return tk.cols
}

// newestTime returns the greatest value of a time column (Timestamp, Date)
// of the row sample, or NULL for another type or no non-NULL value.
func newestTime(c *shardkey.Column) shardkey.Value {
	if c.Type != shardkey.Timestamp && c.Type != shardkey.Date {
		return shardkey.Value{}
	}
	var best shardkey.Value
	for i := 0; i < c.Len(); i++ {
		if v := c.Value(i); !v.IsNull() && (best.IsNull() || v.Int > best.Int) {
			best = v
		}
	}
	return best
}

// nowEnd places a range end known at run time, ago microseconds before now
// (Bounds.LoAgo, HiAgo), on key column j: "now" is the column's newest
// value in the row sample (tableKey.newest), the time of the newest row, as
// a table whose rows keep arriving has its newest row near the wall clock.
// ok is false when the sample cannot place it (no rows, not a time
// column) or the offset is unknown; the end is then anywhere.
func (tk *tableKey) nowEnd(j int, ago int64, agoOK bool) (shardkey.Value, bool) {
	if !agoOK || j >= len(tk.newest) || tk.newest[j].IsNull() {
		return shardkey.Value{}, false
	}
	v := tk.newest[j]
	if v.Type == shardkey.Date { // milliseconds
		v.Int -= ago / 1000
	} else {
		v.Int -= ago
	}
	return v, true
}
