package emit

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// VSchema JSON, as vschemapb.Keyspace reads it (protojson field names).
type vsKeyspace struct {
	Sharded  bool                `json:"sharded"`
	Vindexes map[string]vsVindex `json:"vindexes,omitempty"`
	Tables   map[string]vsTable  `json:"tables,omitempty"`
}

type vsVindex struct {
	Type   string            `json:"type"`
	Params map[string]string `json:"params,omitempty"`
	// Owner is the table whose inserts and deletes write a lookup
	// vindex's rows.
	Owner string `json:"owner,omitempty"`
}

type vsTable struct {
	Type           string           `json:"type,omitempty"`
	ColumnVindexes []vsColumnVindex `json:"column_vindexes,omitempty"`
	// Source, for a reference table, is the table ("keyspace.table") it
	// is materialized from; Vitess sends the writes there.
	Source string `json:"source,omitempty"`
}

type vsColumnVindex struct {
	Column  string   `json:"column,omitempty"`
	Columns []string `json:"columns,omitempty"`
	Name    string   `json:"name"`
}

// vindexType returns the vindex for a hash key column of type typ: the
// --engine's vindex when it is a vitess-* engine that can map typ, else
// shardkey.VindexFor's choice by type (hash for integers,
// unicode_loose_md5 for text, binary_md5 for bytes, xxhash for the
// rest). note says why the engine's vindex was not used, or "".
func vindexType(typ shardkey.Type, engine string) (vtype, note string) {
	name, _, _ := strings.Cut(engine, ":")
	if vt := shardkey.VindexType(name); vt != "" {
		if shardkey.VindexMaps(vt, typ) {
			return vt, ""
		}
		note = fmt.Sprintf("the %s vindex maps integers only, not %s", vt, typ)
	}
	return shardkey.VindexFor(typ), note
}

// VSchema returns a Vitess VSchema (vschemapb.Keyspace JSON) for design d
// as one sharded keyspace: a vindex per function used, each placed table's
// key column as its primary vindex, TABLE:replicate tables as reference
// tables. Notes say what the JSON cannot: the shards to create (even
// shards, or the boundaries of a numeric or binary range key), the keyspace-id range
// of each isolated value and the reshard that gives it a shard of its own,
// and every compromise (compound keys use a multicol vindex; range keys on
// anything but integers, text and bytes, salt and directory keys fall back to a hash
// vindex). Tables the design does not place are left out (they belong in
// an unsharded keyspace), with a note.
func VSchema(w *shardkey.Workload, d *shardkey.Design, o Options) (config []byte, notes []string, err error) {
	p, err := newPlan(w, d, o)
	if err != nil {
		return nil, nil, err
	}
	if err := p.noMongoHashed("Vitess"); err != nil {
		return nil, nil, err
	}
	ks := vsKeyspace{Sharded: true, Vindexes: map[string]vsVindex{}, Tables: map[string]vsTable{}}
	var rangeShards []string // shard names of a numeric range key
	var rangeBounds []string // and its bounds
	var rangeVtype string    // and its vindex (numeric or binary)
	var whales []vtWhale
	note := func(format string, a ...any) { notes = append(notes, fmt.Sprintf(format, a...)) }
	for _, k := range p.keys {
		name := k.t.Name
		if k.kind == kindReplicate {
			ks.Tables[name] = vsTable{Type: "reference"}
			continue
		}
		var vtypes []string
		for i, typ := range k.types {
			vt, why := vindexType(typ, o.Engine)
			if k.kind == kindRange && i == 0 {
				vt, why = rangeVindex(k, typ, o.Engine)
				if why != "" {
					note("%s", p.mismatch("%s.%s: %s: using the %s vindex: the placement Vitess gets is not the range placement shardkey scored", name, k.cols[i], why, vt))
					why = ""
				}
			}
			if kv := shardkey.KeyVindex(k.expr); kv != "" {
				// The design names the table's vindex (a VSchema's
				// primary vindex, read back): that one, not the engine's.
				vt, why = kv, ""
				if shardkey.VindexIntegers(kv) && !(typ.IsInt() && typ != shardkey.Timestamp || typ == shardkey.Uint64) {
					note("%s.%s: the design names the %s vindex, which maps integers only, not %s: Vitess will place no row (DestinationNone)", name, k.cols[i], kv, typ)
				}
			}
			if why != "" {
				note("%s.%s: %s: using the %s vindex", name, k.cols[i], why, vt)
			}
			vtypes = append(vtypes, vt)
		}
		var cv vsColumnVindex
		if len(k.cols) == 1 {
			ks.Vindexes[vtypes[0]] = vsVindex{Type: vtypes[0]}
			cv = vsColumnVindex{Column: k.cols[0], Name: vtypes[0]}
		} else {
			vname := "multicol_" + strings.Join(vtypes, "_")
			ks.Vindexes[vname] = vsVindex{Type: "multicol", Params: map[string]string{
				"column_count":  strconv.Itoa(len(k.cols)),
				"column_vindex": strings.Join(vtypes, ","),
			}}
			cv = vsColumnVindex{Columns: k.cols, Name: vname}
			b := multicolBytes(len(k.cols))
			placed := fmt.Sprintf("rows are placed by %s alone (every row of one %s on one shard) and the other columns only order rows within it", k.cols[0], k.cols[0])
			if vtBoundaryBytes(p.shards) > b {
				placed = fmt.Sprintf("shard boundaries of %d bytes also cut by %s", vtBoundaryBytes(p.shards), k.cols[1])
			}
			note("%s: %s: Vitess vindexes map one column, so this is a multicol vindex: the keyspace id is the first %d bytes of %s(%s), then %s; with %d even shards %s",
				name, k.expr, b, vtypes[0], k.cols[0], multicolRest(k.cols[1:], vtypes[1:]), p.shards, placed)
		}
		ks.Tables[name] = vsTable{ColumnVindexes: []vsColumnVindex{cv}}
		vsLookups(&ks, d, k.t, o.Engine, o.Vindexes[k.t.Name], note)
		switch k.kind {
		case kindRange:
			if vtypes[0] == "numeric" || vtypes[0] == "binary" {
				s, n := p.numericShards(name, k)
				if vtypes[0] == "binary" {
					s, n = p.binaryShards(name, k)
				}
				if s != nil {
					if rangeShards != nil && strings.Join(rangeShards, ",") != strings.Join(s, ",") {
						note("%s", p.mismatch("%s: its range bounds differ from another table's; a keyspace has one set of shards, so its rows are not placed as scored", name))
					}
					if rangeShards == nil {
						rangeShards, rangeBounds, rangeVtype = s, k.bounds, vtypes[0]
					}
				}
				if n != "" {
					note("%s", p.mismatch("%s", n))
				}
			}
		case kindDirectory:
			note("%s: directory(%s, %s): the directory's overrides need a lookup vindex (lookup_unique) whose table maps each listed %s to a keyspace id in its shard's range; unlisted values use the %s vindex as emitted", name, k.cols[0], k.file, k.cols[0], vtypes[0])
		}
		if k.saltTop > 0 {
			note("%s: salt: Vitess has no salting; add a salt column (0..%d) for the hot %s values (%s), make the primary vindex multicol over (%s, salt), and read a hot value from every salt: the vindex as emitted does not salt",
				name, k.saltK-1, k.cols[0], valueList(k.hot), k.cols[0])
		}
		if k.isolate > 0 {
			if vtypes[0] == "binary" {
				// The keyspace id is the value's bytes: v alone is
				// [v, v+0x00), the next byte string in byte order; under
				// multicol, the first bytes of v and everything after.
				for _, v := range k.hot {
					ksid, hi := []byte(v.Str), append([]byte(v.Str), 0)
					if n := multicolBytes(len(k.cols)); len(k.cols) > 1 && len(ksid) > n {
						ksid = ksid[:n]
						hi = vtSucc(ksid)
					} else if len(k.cols) > 1 {
						hi = vtSucc(ksid)
					}
					whales = append(whales, vtWhale{table: name, col: k.cols[0], v: v, lo: ksid, hi: hi})
				}
				continue
			}
			eng, err := partition.Lookup(shardkey.VindexEngine(vtypes[0]))
			if err != nil {
				return nil, nil, err
			}
			prefix := 0
			if len(k.cols) > 1 {
				prefix = multicolBytes(len(k.cols))
			}
			for _, v := range k.hot {
				h, err := eng.Hash([]shardkey.Value{v})
				if err != nil {
					if errors.Is(err, partition.ErrNoDestination) {
						note("%s: isolate %s=%s: the %s vindex has no keyspace id for it", name, k.cols[0], v, vtypes[0])
						continue
					}
					return nil, nil, fmt.Errorf("table %s: isolate %s=%s: %w", name, k.cols[0], v, err)
				}
				ksid, _ := hex.DecodeString(h.Hex)
				if prefix > 0 {
					ksid = ksid[:prefix]
				}
				whales = append(whales, vtWhale{table: name, col: k.cols[0], v: v, lo: ksid, hi: vtSucc(ksid)})
			}
		}
	}
	for _, t := range p.unplaced {
		note("%s: the design does not place it: not in this sharded keyspace (keep it in an unsharded keyspace, or give it a key)", t)
	}
	shards := rangeShards
	if shards == nil {
		shards, err = vtEvenShards(p.shards)
		if err != nil {
			return nil, nil, err
		}
		note("shards: %d even shards (%s)", p.shards, shortList(shards))
	} else {
		if rangeVtype == "binary" {
			note("shards: create these %d shards, at the range bounds [%s] the design was scored with: %s. The binary vindex's keyspace id of a value is its bytes unchanged (vindexes/binary.go), so shard LO-HI (hex keyspace ids, go/vt/key) holds the values whose bytes b have LO <= b < HI in byte order and shard i holds the scored range i; create them before starting their tablets (vtctldclient CreateShard %s/%s, ...). Vitess orders by the bytes, not by the column's collation: values a case-insensitive collation calls equal but spelled differently ('A', 'a') may land on different shards",
				len(shards), strings.Join(rangeBounds, ", "), strings.Join(shards, ", "), p.keyspace, shards[0])
		} else {
			note("shards: create these %d shards, at the range bounds [%s] the design was scored with: %s. The numeric vindex's keyspace id of a value v is v as 8 bytes big-endian (vindexes/numeric.go), so shard LO-HI (hex keyspace ids, go/vt/key) holds the values LO <= v < HI and shard i holds the scored range i; create them before starting their tablets (vtctldclient CreateShard %s/%s, ...). Negative values have no keyspace id under numeric (DestinationNone)",
				len(shards), strings.Join(rangeBounds, ", "), strings.Join(shards, ", "), p.keyspace, shards[0])
		}
	}
	notes = append(notes, vtIsolate(p.keyspace, shards, whales)...)
	config, err = json.MarshalIndent(ks, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	return append(config, '\n'), notes, nil
}

// vsLookups adds table t's lookups (lookup(col) in design d) to ks as
// Vitess writes them (go/vt/vtgate/vindexes/lookup.go,
// consistent_lookup.go): a lookup vindex owned by t, named
// TABLE_COL_lookup, whose backing table of the same name maps col to
// keyspace_id; t's secondary column vindex; and the backing table,
// sharded by col with the vindex a hash key on col would have. A note
// gives the backing table's DDL. A lookup the VSchema read in names
// (names, from Options.Vindexes) keeps its vindex's and backing table's
// names.
func vsLookups(ks *vsKeyspace, d *shardkey.Design, t *shardkey.Table, engine string, names shardkey.VindexNames, note func(string, ...any)) {
	for _, l := range d.LookupsFor(t.Name, func(c string) bool { return t.Column(c) != nil }) {
		c := t.Column(l.Col)
		if c == nil {
			continue
		}
		name := t.Name + "_" + l.Col + "_lookup"
		table := name
		if n := names.Lookups[strings.ToLower(l.Col)]; n != "" {
			name = n
		}
		if n := names.LookupTableNames[strings.ToLower(l.Col)]; n != "" {
			table = n
		}
		ks.Vindexes[name] = vsVindex{Type: l.VindexType(), Owner: t.Name,
			Params: map[string]string{"table": table, "from": l.Col, "to": "keyspace_id"}}
		tv := ks.Tables[t.Name]
		tv.ColumnVindexes = append(tv.ColumnVindexes, vsColumnVindex{Column: l.Col, Name: name})
		ks.Tables[t.Name] = tv
		vt, _ := vindexType(c.Type, engine)
		ks.Vindexes[vt] = vsVindex{Type: vt}
		if _, in := ks.Tables[table]; !in && !strings.Contains(table, ".") {
			ks.Tables[table] = vsTable{ColumnVindexes: []vsColumnVindex{{Column: l.Col, Name: vt}}}
		}
		pk := l.Col
		if !l.Unique {
			pk = l.Col + ", keyspace_id"
		}
		note("%s.%s: %s vindex %s: create its backing table, sharded by %s with the %s vindex: CREATE TABLE %s (%s %s NOT NULL, keyspace_id VARBINARY(128), PRIMARY KEY (%s)); every insert into %s then also writes a row there, usually on another shard",
			t.Name, l.Col, l.VindexType(), name, l.Col, vt, table, l.Col, sqlType(c.Type), pk, t.Name)
	}
}

// sqlType is a MySQL column type for values of typ, for the DDL of a
// lookup table.
func sqlType(typ shardkey.Type) string {
	switch {
	case typ == shardkey.Uint64:
		return "BIGINT UNSIGNED"
	case typ == shardkey.Timestamp:
		return "DATETIME(6)"
	case typ.IsInt():
		return "BIGINT"
	case typ == shardkey.Float32 || typ == shardkey.Float64:
		return "DOUBLE"
	case typ == shardkey.Bytes:
		return "VARBINARY(255)"
	}
	return "VARCHAR(255)"
}

// rangeVindex returns the vindex for the first column of a range key:
// numeric for integers (the keyspace id is the value, so ranges of values
// are ranges of keyspace ids), else a hash vindex and why.
func rangeVindex(k *tableKey, typ shardkey.Type, engine string) (string, string) {
	if typ.IsInt() && typ != shardkey.Timestamp || typ == shardkey.Uint64 {
		return "numeric", ""
	}
	if typ == shardkey.Text || typ == shardkey.Bytes {
		// binary's keyspace id is the value's bytes unchanged
		// (go/vt/vtgate/vindexes/binary.go, Map: id.ToBytes()), and a
		// shard holds a keyspace-id range (go/vt/key), so byte order is
		// shard order: the range placement, at the bounds' bytes.
		return "binary", ""
	}
	vt, _ := vindexType(typ, "")
	return vt, fmt.Sprintf("%s: Vitess has no order-preserving vindex for %s values (numeric maps non-negative integers, binary text and bytes), so the table is hash-sharded on the column and range reads scatter; store it as an integer (say seconds or yyyymm) to use numeric", k.expr, typ)
}

// tupleShardsNote says why composite split points make no Vitess shard
// ranges: a range vindex maps one column to a keyspace id.
func tupleShardsNote(table string, k *tableKey) string {
	return fmt.Sprintf("%s: %s: its split points are tuples of %s, which a Vitess range vindex (one column's value as the keyspace id) cannot cut; no shard ranges", table, k.expr, strings.Join(k.cols, ", "))
}

// numericShards returns the shard names of a numeric range key's bounds,
// or nil and a note saying why there are none.
func (p *plan) numericShards(table string, k *tableKey) ([]string, string) {
	if k.tuple {
		return nil, tupleShardsNote(table, k)
	}
	if len(k.bounds) == 0 {
		return nil, fmt.Sprintf("%s: %s: numeric vindex, keyspace id = the value as 8 bytes big-endian; the even shards emitted put every value below 2^48 in the first shard, not the placement scored: create shards at the design's range boundaries instead: give them as range(%s, bounds=[...]) (shard names are the bounds in 16 hex digits, e.g. -00000000000003e8, 00000000000003e8-)", table, k.expr, k.cols[0])
	}
	var names []string
	prev := ""
	var last uint64
	for i, b := range k.bounds {
		u, err := strconv.ParseUint(strings.TrimSpace(b), 10, 64)
		if err != nil {
			return nil, fmt.Sprintf("%s: %s: bound %q is not a non-negative integer, which the numeric vindex needs; no shard ranges", table, k.expr, b)
		}
		if i > 0 && u <= last {
			return nil, fmt.Sprintf("%s: %s: bounds must ascend; no shard ranges", table, k.expr)
		}
		last = u
		cur := hex.EncodeToString(binary.BigEndian.AppendUint64(nil, u))
		names = append(names, prev+"-"+cur)
		prev = cur
	}
	return append(names, prev+"-"), ""
}

// binaryShards returns the shard names of a text or bytes range key's
// bounds under the binary vindex (keyspace id = the value's bytes): each
// bound's bytes in hex, or nil and a note saying why there are none.
func (p *plan) binaryShards(table string, k *tableKey) ([]string, string) {
	if k.tuple {
		return nil, tupleShardsNote(table, k)
	}
	if len(k.bounds) == 0 {
		return nil, fmt.Sprintf("%s: %s: binary vindex, keyspace id = the value's bytes; the even shards emitted split by the first byte, not at the placement scored: create shards at the design's range boundaries instead: give them as range(%s, bounds=[...]) (shard names are the bounds' bytes in hex, e.g. -75736572, 75736572-)", table, k.expr, k.cols[0])
	}
	var names []string
	prev := ""
	var last []byte
	for i, b := range k.bounds {
		v, err := shardkey.ParseValue(b, k.types[0]) // as the design parsed it (quotes removed)
		if err != nil {
			return nil, fmt.Sprintf("%s: %s: bound %q: %v; no shard ranges", table, k.expr, b, err)
		}
		ksid := []byte(v.Str)
		if len(ksid) == 0 || i > 0 && bytes.Compare(ksid, last) <= 0 {
			return nil, fmt.Sprintf("%s: %s: bounds must be non-empty and ascend in byte order; no shard ranges", table, k.expr)
		}
		last = ksid
		cur := hex.EncodeToString(ksid)
		names = append(names, prev+"-"+cur)
		prev = cur
	}
	return append(names, prev+"-"), ""
}

// multicolBytes returns the keyspace-id bytes of a multicol vindex's first
// column with n columns and default column_bytes: ceil(8/n).
func multicolBytes(n int) int { return (8 + n - 1) / n }

func multicolRest(cols, vtypes []string) string {
	s := make([]string, len(cols))
	for i := range cols {
		s[i] = vtypes[i] + "(" + cols[i] + ")"
	}
	return strings.Join(s, ", ")
}

// vtBoundaryBytes is the byte width of n even shards' boundaries.
func vtBoundaryBytes(n int) int {
	if n&(n-1) == 0 {
		w := 0
		for nn := uint64(n - 1); nn > 0; nn >>= 8 {
			w++
		}
		return max(w, 1)
	}
	if n > 256 {
		return 2
	}
	return 1
}

// vtEvenShards returns the names of n even shards, as partition's Vitess
// layout (and vtctl) makes them.
func vtEvenShards(n int) ([]string, error) {
	l, err := partition.Vitess{}.Layout(n)
	if err != nil {
		return nil, err
	}
	vl := l.(*partition.VitessLayout)
	names := make([]string, n)
	for i := range names {
		names[i] = vl.ShardName(i)
	}
	if n == 1 {
		names[0] = "-" // one shard: the whole keyspace ("0" in vtctl's naming)
	}
	return names, nil
}

// vtWhale is an isolated value and the keyspace ids holding only it: [lo, hi)
// (hi nil: to the end of the keyspace).
type vtWhale struct {
	table, col string
	v          shardkey.Value
	lo, hi     []byte
}

// vtSucc returns the keyspace id just after every id starting with b (b
// plus one as a big-endian number of len(b) bytes), or nil when b is all
// 0xff (the range goes to the end of the keyspace).
func vtSucc(b []byte) []byte {
	s := bytes.Clone(b)
	for i := len(s) - 1; i >= 0; i-- {
		s[i]++
		if s[i] != 0 {
			return s
		}
	}
	return nil
}

type vtRange struct{ lo, hi []byte } // hi nil: the end

func (r vtRange) String() string { return hex.EncodeToString(r.lo) + "-" + hex.EncodeToString(r.hi) }

func parseShard(name string) vtRange {
	a, b, _ := strings.Cut(name, "-")
	lo, _ := hex.DecodeString(a)
	hi, _ := hex.DecodeString(b)
	if b == "" {
		hi = nil
	}
	return vtRange{lo, hi}
}

func (r vtRange) contains(k []byte) bool {
	return bytes.Compare(k, r.lo) >= 0 && (r.hi == nil || bytes.Compare(k, r.hi) < 0)
}

// vtIsolate returns the notes for isolated values: each value's keyspace-id
// range, and per source shard the Reshard that splits it so that each
// value's range is a shard.
func vtIsolate(keyspace string, shards []string, whales []vtWhale) []string {
	if len(whales) == 0 {
		return nil
	}
	var notes []string
	splits := map[string][][]byte{} // source shard -> split points
	var order []string
	seen := map[string]bool{}
	for _, wh := range whales {
		r := vtRange{wh.lo, wh.hi}
		if seen[r.String()] {
			continue
		}
		seen[r.String()] = true
		tables := []string{wh.table}
		for _, o := range whales {
			if o.table != wh.table && bytes.Equal(o.lo, wh.lo) {
				tables = append(tables, o.table)
			}
		}
		src := ""
		for _, s := range shards {
			if parseShard(s).contains(wh.lo) {
				src = s
				break
			}
		}
		notes = append(notes, fmt.Sprintf("%s: isolate %s=%s: keyspace ids %s hold only it (in shard %s)", strings.Join(tables, ", "), wh.col, wh.v, r, src))
		if _, ok := splits[src]; !ok {
			order = append(order, src)
		}
		splits[src] = append(splits[src], wh.lo)
		if wh.hi != nil {
			splits[src] = append(splits[src], wh.hi)
		}
	}
	for _, src := range order {
		r := parseShard(src)
		pts := splits[src]
		sort.Slice(pts, func(i, j int) bool { return bytes.Compare(pts[i], pts[j]) < 0 })
		var targets []string
		lo := r.lo
		for _, pt := range pts {
			if bytes.Equal(pt, lo) || (r.hi != nil && bytes.Compare(pt, r.hi) >= 0) {
				continue
			}
			targets = append(targets, vtRange{lo, pt}.String())
			lo = pt
		}
		targets = append(targets, vtRange{lo, r.hi}.String())
		notes = append(notes, fmt.Sprintf("reshard %s into %s: vtctldclient Reshard --workflow isolate_%s --target-keyspace %s create --source-shards '%s' --target-shards '%s'",
			src, strings.Join(targets, ","), strings.NewReplacer("-", "_").Replace(src), keyspace, src, strings.Join(targets, ",")))
	}
	return notes
}

// shortList returns names, or its first three and last one for long lists.
func shortList(names []string) string {
	if len(names) <= 6 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:3], ", ") + ", ..., " + names[len(names)-1]
}
