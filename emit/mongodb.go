package emit

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// MongoDB returns a mongosh script that applies design d:
// sh.enableSharding, then per placed table (a collection) sh.shardCollection
// with {col: "hashed"} for hash keys and {col: 1} for range keys (with
// sh.splitAt at the range bounds, if any); a MongoDB pattern key
// ({a: 1, b: "hashed"}) as written. A compound hash key hashes its
// first field and orders by the rest, {a: "hashed", b: 1}, which needs
// MongoDB 4.4 or later (one hashed field per key). Isolated values get
// zones: a zone per value on a shard of its own (the last shards that
// listShards returns) covering the value's hashed value, [h, h+1) as
// NumberLong, or the value itself for range keys, and a zone "rest" on the
// other shards covering everything else, so the isolated shards hold only
// their value. Hashed values are partition.MongoDB's, written as
// NumberLong("...") strings because a JavaScript number loses 64-bit
// precision. Comments say what salt, directory and replicate keys would
// need.
func MongoDB(w *shardkey.Workload, d *shardkey.Design, o Options) (string, error) {
	p, err := newPlan(w, d, o)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// shardkey design %q for workload %s on MongoDB, %d shards.\n", d.Text, w.Name, p.shards)
	b.WriteString("// An empty collection sharded on a key whose first field is hashed starts with one chunk per shard\n")
	b.WriteString("// (MongoDB >= 7.2; older versions: pass { numInitialChunks: <shards> } as shardCollection's options).\n")
	b.WriteString("// One whose first field is ranged starts as one chunk on the primary shard, split and moved by the\n")
	b.WriteString("// balancer as data arrives (initial_split_policy.cpp; presplitHashedZones with zones presplits it).\n")
	fmt.Fprintf(&b, "sh.enableSharding(%s)\n", jsString(p.keyspace))
	var zoneLines []string            // comments and sh.updateZoneKeyRange calls, after the zones exist
	zones := map[shardkey.Value]int{} // isolated value -> zone index
	for _, k := range p.keys {
		name := k.t.Name
		ns := jsString(p.keyspace + "." + name)
		b.WriteString("\n")
		if k.kind == kindReplicate {
			fmt.Fprintf(&b, "// %s: replicate: MongoDB has no reference collections; left unsharded, it lives on the database's primary shard,\n// and every $lookup of it from a sharded collection reads from that one shard.\n", name)
			continue
		}
		hashed := k.kind != kindRange
		hashedField := k.mongoHashed // a pattern's own, {a: 1, b: "hashed"}
		if hashed {
			hashedField = k.cols[0]
		}
		var fields []string
		for _, c := range k.cols {
			f := jsKey(c) + ": 1"
			if c == hashedField {
				f = jsKey(c) + ": \"hashed\""
			}
			fields = append(fields, f)
		}
		if hashed && len(k.cols) > 1 {
			fmt.Fprintf(&b, "// %s: %s: MongoDB hashes one field of a key; %s is hashed and the rest ordered, { a: \"hashed\", b: 1 }\n", name, k.expr, k.cols[0])
			fmt.Fprintf(&b, "// (a compound hashed key, MongoDB >= 4.4), so one %s's documents stay together and its chunks can still split.\n", k.cols[0])
		}
		switch k.kind {
		case kindDirectory:
			fmt.Fprintf(&b, "// %s: directory(%s, %s): the listed values need zones of their own (sh.updateZoneKeyRange on their hashed values).\n", name, k.cols[0], k.file)
		case kindRange:
			for _, c := range k.cols[:1] {
				if k.t.Monotonic[c] {
					fmt.Fprintf(&b, "// %s: %s is monotonic: every insert goes to the chunk holding the largest value, one shard; a hashed key spreads them.\n", name, c)
				}
			}
		}
		if k.saltTop > 0 {
			fmt.Fprintf(&b, "// %s: salt: MongoDB has no salting; add a salt field (0..%d) for the hot %s values (%s) as the key's second field and read those values from every salt.\n", name, k.saltK-1, k.cols[0], valueList(k.hot))
		}
		fmt.Fprintf(&b, "sh.shardCollection(%s, { %s })\n", ns, strings.Join(fields, ", "))
		if k.kind == kindRange && len(k.bounds) > 0 {
			// The chunks shardkey scored, chunk i on shard i: split at
			// the bounds, then move each chunk (its bounds: the first
			// field's, MinKey for the rest) to the i-th shard listShards
			// returns, sorted, as the isolate zones below number them.
			// A composite split point (a tuple) gives a value for each
			// leading field, a hashed field's as its hashed value,
			// NumberLong (a split inside one value of the first field:
			// a large tenant's documents over several chunks).
			lits := [][]string{minKeys(len(k.cols))}
			for i := range k.bounds {
				bv, err := k.boundValues(i)
				if err != nil {
					return "", fmt.Errorf("table %s: %w", name, err)
				}
				doc := make([]string, 0, len(k.cols))
				for j, v := range bv {
					if j > 0 && k.cols[j] == k.mongoHashed {
						doc = append(doc, numberLong(v.Int))
					} else {
						doc = append(doc, mongoLiteral(v))
					}
				}
				doc = append(doc, minKeys(len(k.cols)-len(doc))...)
				lits = append(lits, doc)
				fmt.Fprintf(&b, "sh.splitAt(%s, { %s })\n", ns, keyDoc(k.cols, doc))
			}
			lits = append(lits, maxKeys(len(k.cols)))
			fmt.Fprintf(&b, "// %s: chunk i (from split point i-1 to split point i) on the i-th shard, as scored. The balancer\n", name)
			fmt.Fprintf(&b, "// (by data size, MongoDB >= 6.0.3) may move chunks later: sh.disableBalancing(%s) keeps this layout.\n", ns)
			b.WriteString("{\n")
			b.WriteString("  const shardIds = db.adminCommand({ listShards: 1 }).shards.map(s => s._id).sort();\n")
			fmt.Fprintf(&b, "  if (shardIds.length < %d) throw new Error(\"the scored layout of %s needs %d shards\");\n", len(k.bounds)+1, name, len(k.bounds)+1)
			for i := 0; i+1 < len(lits); i++ {
				lo := "{ " + keyDoc(k.cols, lits[i]) + " }"
				hi := "{ " + keyDoc(k.cols, lits[i+1]) + " }"
				fmt.Fprintf(&b, "  db.adminCommand({ moveChunk: %s, bounds: [%s, %s], to: shardIds[%d] })\n", ns, lo, hi, i)
			}
			b.WriteString("}\n")
		} else if k.kind == kindRange && p.shards > 1 {
			fmt.Fprintf(&b, "// WARNING: %s.\n", p.mismatch("%s: %s has no range boundaries (bounds=[...]): its chunks are split by the balancer as data arrives, not at the boundaries shardkey scored", name, k.expr))
		}
		if k.isolate == 0 || len(k.hot) == 0 {
			continue
		}
		type span struct {
			lo, hi string // hi "" : MaxKey
			key    float64
			v      shardkey.Value
			what   string
		}
		var spans []span
		for _, v := range k.hot {
			var s span
			s.v = v
			if hashed {
				h, err := partition.MongoDB{}.Hash([]shardkey.Value{v})
				if err != nil {
					return "", fmt.Errorf("table %s: isolate %s=%s: %w", name, k.cols[0], v, err)
				}
				s.lo = numberLong(h.Int)
				if h.Int < math.MaxInt64 {
					s.hi = numberLong(h.Int + 1)
				}
				s.key = float64(h.Int)
				s.what = fmt.Sprintf("%s %s: hashed value %d", k.cols[0], v, h.Int)
			} else {
				next, ok := successor(v)
				if !ok {
					fmt.Fprintf(&b, "// %s: isolate %s=%s: no zone (only integer and text values of a range key have a next value here).\n", name, k.cols[0], v)
					continue
				}
				s.lo, s.hi = mongoLiteral(v), mongoLiteral(next)
				s.key = v.AsFloat()
				s.what = fmt.Sprintf("%s %s", k.cols[0], v)
			}
			spans = append(spans, s)
		}
		if hashed || k.types[0].IsNumeric() {
			sort.SliceStable(spans, func(i, j int) bool { return spans[i].key < spans[j].key })
		} else {
			sort.SliceStable(spans, func(i, j int) bool { return shardkey.Compare(spans[i].v, spans[j].v) < 0 })
		}
		doc := func(first string) string {
			vals := []string{first}
			for range k.cols[1:] {
				vals = append(vals, "MinKey")
			}
			return "{ " + keyDoc(k.cols, vals) + " }"
		}
		zoneRange := func(lo, hi, zone string) {
			zoneLines = append(zoneLines, fmt.Sprintf("sh.updateZoneKeyRange(%s, %s, %s, %s)", ns, doc(lo), doc(hi), jsString(zone)))
		}
		zoneLines = append(zoneLines, fmt.Sprintf("// %s", name))
		lo := "MinKey"
		for _, s := range spans {
			c := s.v.Canonical()
			zi, ok := zones[c]
			if !ok {
				zi = len(zones)
				zones[c] = zi
			}
			if lo != s.lo {
				zoneRange(lo, s.lo, "rest")
			}
			hi := s.hi
			if hi == "" {
				hi = "MaxKey"
			}
			zoneLines = append(zoneLines, "// "+s.what)
			zoneRange(s.lo, hi, fmt.Sprintf("whale-%d", zi))
			lo = hi
		}
		if lo != "MaxKey" {
			zoneRange(lo, "MaxKey", "rest")
		}
	}
	for _, t := range p.unplaced {
		fmt.Fprintf(&b, "\n// %s: the design does not place it: left unsharded, on the database's primary shard.\n", t)
	}
	if n := len(zones); n > 0 {
		fmt.Fprintf(&b, "\n// Isolate %s: zone whale-i on a shard of its own (the last %s that listShards returns, sorted),\n", plural(n, "value"), plural(n, "shard"))
		b.WriteString("// zone rest on the other shards, covering every other key value of the collections with isolated values.\n")
		b.WriteString("// The balancer then moves the chunks; other collections may still use the isolated shards.\n")
		b.WriteString("const shardIds = db.adminCommand({ listShards: 1 }).shards.map(s => s._id).sort();\n")
		fmt.Fprintf(&b, "if (shardIds.length < %d) throw new Error(\"isolating %s needs at least %d shards\");\n", n+1, plural(n, "value"), n+1)
		fmt.Fprintf(&b, "shardIds.slice(-%d).forEach((id, i) => sh.addShardToZone(id, \"whale-\" + i));\n", n)
		fmt.Fprintf(&b, "shardIds.slice(0, -%d).forEach(id => sh.addShardToZone(id, \"rest\"));\n", n)
		for _, l := range zoneLines {
			b.WriteString(l + "\n")
		}
	}
	return b.String(), nil
}

// keyDoc returns "f1: v1, f2: v2" for the key fields and their values.
func keyDoc(cols, vals []string) string {
	s := make([]string, len(cols))
	for i, c := range cols {
		s[i] = jsKey(c) + ": " + vals[i]
	}
	return strings.Join(s, ", ")
}

// jsString returns s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// jsKey returns c as an object key: bare when it is an identifier.
func jsKey(c string) string {
	for i, r := range c {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return jsString(c)
		}
	}
	if c == "" {
		return `""`
	}
	return c
}

// numberLong returns NumberLong("v"): the string form is exact for every int64.
func numberLong(v int64) string { return `NumberLong("` + strconv.FormatInt(v, 10) + `")` }

// mongoLiteral returns v as a mongosh value of its BSON type.
func mongoLiteral(v shardkey.Value) string {
	switch v.Type {
	case shardkey.Null:
		return "null"
	case shardkey.Int16, shardkey.Int32:
		return v.String()
	case shardkey.Int64:
		return numberLong(v.Int)
	case shardkey.Uint64:
		if v.Int >= 0 {
			return numberLong(v.Int)
		}
		return strconv.FormatFloat(float64(v.Uint()), 'g', -1, 64)
	case shardkey.Float32, shardkey.Float64:
		return strconv.FormatFloat(v.AsFloat(), 'g', -1, 64)
	case shardkey.Text:
		return jsString(v.Str)
	case shardkey.Bytes:
		return `BinData(0, "` + base64.StdEncoding.EncodeToString([]byte(v.Str)) + `")`
	case shardkey.UUID:
		return `UUID("` + v.String() + `")`
	case shardkey.Timestamp:
		return `ISODate("` + v.String() + `")`
	case shardkey.ObjectID:
		return `ObjectId("` + v.String() + `")`
	case shardkey.Date:
		return "new Date(" + strconv.FormatInt(v.Int, 10) + ")"
	case shardkey.Bool:
		return v.String()
	case shardkey.ExtJSON:
		return "EJSON.parse(" + jsString(v.String()) + ")"
	}
	return jsString(v.String())
}

// successor returns the least value above v, for integers and text (v plus
// a NUL character), and whether there is one.
func successor(v shardkey.Value) (shardkey.Value, bool) {
	switch v.Type {
	case shardkey.Int16, shardkey.Int32, shardkey.Int64:
		if v.Int == math.MaxInt64 {
			return v, false
		}
		v.Int++
		return v, true
	case shardkey.Text:
		v.Str += "\x00"
		return v, true
	}
	return v, false
}

// plural returns "1 value", "2 values".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// minKeys and maxKeys return n MinKey or MaxKey values, the other fields
// of a chunk bound on a compound key's first field.
func minKeys(n int) []string { return repeat("MinKey", n) }
func maxKeys(n int) []string { return repeat("MaxKey", n) }

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
