package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// mongoPattern reads place's -k: a MongoDB shard key pattern, {a: 1, b:
// "hashed"} or range({a: 1, b: "hashed"}, bounds=[...]), into a
// partition.MongoPattern whose bounds have the first field's type.
func mongoPattern(k string, types []shardkey.Type) (partition.MongoPattern, error) {
	e, err := shardkey.ParseExpr(k)
	if err != nil {
		return partition.MongoPattern{}, usageErr("-k: %v", err)
	}
	re, ok := e.(*shardkey.RangeExpr)
	if !ok || !re.Mongo {
		return partition.MongoPattern{}, usageErr("-k %s: place takes a MongoDB shard key pattern, {a: 1, b: \"hashed\"}", k)
	}
	p := partition.MongoPattern{Fields: re.Cols, Hashed: -1}
	for i, c := range re.Cols {
		if c == re.Hashed {
			p.Hashed = i
		}
	}
	if len(types) > 0 && len(types) != len(p.Fields) {
		return p, usageErr("--type: %d types for the %d fields of %s", len(types), len(p.Fields), re)
	}
	if len(re.Bounds) > 0 && p.Hashed == 0 {
		return p, usageErr("-k %s: a hashed prefix's chunks are MongoDB's even split of the hash space: bounds=[...] split a ranged first field", re)
	}
	if re.Tuple {
		for _, txt := range re.Bounds {
			parts := shardkey.TupleParts(txt)
			if len(parts) == 0 || len(parts) > len(p.Fields) {
				return p, usageErr("-k %s: bounds: %s: want a tuple of at most %d values", re, txt, len(p.Fields))
			}
			b := make([]shardkey.Value, len(parts))
			for j, part := range parts {
				t := shardkey.Text
				switch {
				case j == p.Hashed:
					t = shardkey.Int64 // the field's hashed value
				case len(types) > 0:
					t = types[j]
				case shardkey.InferType([]string{part}) == shardkey.Int64:
					t = shardkey.Int64
				}
				v, err := shardkey.ParseValue(part, t)
				if err != nil {
					return p, usageErr("-k %s: bounds: %s: value %d (%s): %v", re, txt, j+1, p.Fields[j], err)
				}
				b[j] = v
			}
			if n := len(p.TupleBounds); n > 0 && cmpValues(p.TupleBounds[n-1], b) >= 0 {
				return p, usageErr("-k %s: bounds must increase: %s after %s", re, txt, re.Bounds[n-1])
			}
			p.TupleBounds = append(p.TupleBounds, b)
		}
		return p, nil
	}
	for _, b := range re.Bounds {
		t := shardkey.Text
		if len(types) > 0 {
			t = types[0]
		} else if shardkey.InferType([]string{b}) == shardkey.Int64 {
			t = shardkey.Int64
		}
		v, err := shardkey.ParseValue(b, t)
		if err != nil {
			return p, usageErr("-k %s: bounds: %v", re, err)
		}
		if n := len(p.Bounds); n > 0 && shardkey.Compare(p.Bounds[n-1], v) >= 0 {
			return p, usageErr("-k %s: bounds must increase: %s after %s", re, v, p.Bounds[n-1])
		}
		p.Bounds = append(p.Bounds, v)
	}
	return p, nil
}

// cmpValues compares two tuples field by field, a shorter one first when
// it is the other's prefix.
func cmpValues(a, b []shardkey.Value) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := shardkey.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// patternKey parses one value of place -k: a JSON array of one value per
// field ([5, "abc"]), or for a one-field pattern the value alone. Without
// --type a JSON integer is int64, a string text, true/false bool, an
// object Extended JSON ({"$oid": ...}).
func patternKey(s string, p partition.MongoPattern, types []shardkey.Type) ([]shardkey.Value, error) {
	if len(p.Fields) == 1 && !strings.HasPrefix(strings.TrimSpace(s), "[") {
		return parseKey(s, types)
	}
	if types == nil {
		var elems []json.RawMessage
		if err := json.Unmarshal([]byte(s), &elems); err != nil {
			return nil, fmt.Errorf("a key of %d fields is a JSON array of %d values: %v", len(p.Fields), len(p.Fields), err)
		}
		for _, raw := range elems {
			text := strings.TrimSpace(string(raw))
			t := shardkey.Text
			switch {
			case strings.HasPrefix(text, "{"):
				t = shardkey.ExtJSON
			case text == "true" || text == "false":
				t = shardkey.Bool
			case shardkey.InferType([]string{text}) == shardkey.Int64:
				t = shardkey.Int64
			case !strings.HasPrefix(text, `"`):
				return nil, fmt.Errorf("%s: give the fields' types with --type", text)
			}
			types = append(types, t)
		}
	}
	return shardkey.ParseKey(s, types)
}

// mongoLiteral writes a shard key value as mongosh shows it.
func mongoLiteral(v shardkey.Value) string {
	switch v.Type {
	case shardkey.Null:
		return "null"
	case shardkey.Int16, shardkey.Int32, shardkey.Int64, shardkey.Uint64, shardkey.Float32, shardkey.Float64, shardkey.Bool:
		return v.String()
	case shardkey.ObjectID:
		return `ObjectId("` + v.String() + `")`
	case shardkey.Date:
		return `ISODate("` + v.String() + `")`
	}
	return strconv.Quote(v.String())
}

// placePattern places each value under MongoDB shard key pattern p on n
// shards: the shard key as stored, the hashed field's hashed value, and
// the chunk's shard (null with a reason for a ranged prefix without split
// points, whose chunks follow the data).
func placePattern(p partition.MongoPattern, n int, types []shardkey.Type, vals []string) ([]placement, error) {
	out := make([]placement, 0, len(vals))
	for i, v := range vals {
		key, err := patternKey(v, p, types)
		if err != nil {
			return nil, fmt.Errorf("value %d %q: %w", i+1, v, err)
		}
		sk, err := p.ShardKey(key)
		if err != nil {
			return nil, fmt.Errorf("value %d %q: %v", i+1, v, err)
		}
		fields := make([]string, len(sk))
		for j, f := range p.Fields {
			lit := mongoLiteral(sk[j])
			if j == p.Hashed {
				lit = `NumberLong("` + sk[j].String() + `")`
			}
			fields[j] = f + ": " + lit
		}
		pl := placement{Value: v, ShardKey: "{ " + strings.Join(fields, ", ") + " }"}
		if p.Hashed >= 0 {
			h := partition.SignedHash(sk[p.Hashed].Int)
			pl.Hash = &h
		}
		ch, ok, err := p.Chunk(sk, n)
		if err != nil {
			return nil, usageErr("-k: %v", err)
		}
		if ok {
			pl.Shard = &ch
		} else {
			pl.Reason = ("a ranged prefix's chunks follow the data (split by size, balanced over the shards): give split points, -k 'range({...}, bounds=[...])', or score a workload")
		}
		out = append(out, pl)
	}
	return out, nil
}

// writePatternPlacements prints place -k's placements: JSON as place's,
// or a table of value, shard key as stored, hashed value and shard.
func writePatternPlacements(e *env, out []placement, p partition.MongoPattern, k string, n int, format string) error {
	if format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	hashed := "hashed"
	if p.Hashed >= 0 {
		hashed = "hashed " + p.Fields[p.Hashed]
	}
	fmt.Fprintf(tw, "value\tshard key %s\t%s\tshard of %d\n", strings.TrimSpace(k), hashed, n)
	for _, pl := range out {
		h := "-"
		if pl.Hash != nil {
			h = pl.Hash.String()
		}
		sh := "unknown: " + pl.Reason
		if pl.Shard != nil {
			sh = strconv.Itoa(*pl.Shard)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", pl.Value, pl.ShardKey, h, sh)
	}
	return tw.Flush()
}
