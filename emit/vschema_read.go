package emit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shardkey/shardkey"
)

// VSchemaDesign is the design a Vitess VSchema describes: each sharded
// table's primary vindex (its first column vindex) as a key,
// hash(col, vindex=TYPE), so that each table is placed by its own vindex
// type whatever the engine (see shardkey.HashExpr), with the
// lookup vindexes it owns (lookup_unique, lookup,
// consistent_lookup_unique, consistent_lookup on one column) as
// lookup(col[, nonunique][, consistent]); each reference table
// replicated. A lookup vindex's backing table (params.table) is the
// lookup itself, not a table of the design.
type VSchemaDesign struct {
	// Design is the design text, "TABLE:hash(col, vindex=TYPE);
	// TABLE:replicate; ...", tables in name order.
	Design string
	// Engine is the engine to run the design under: the partition engine
	// of the vindex type every primary vindex has ("vitess" for hash,
	// "vitess-xxhash", ...); when they differ, "vitess" if some table's
	// is hash, else the first of theirs in name order (the tables are
	// placed by their own vindexes all the same: the engine decides only
	// that Vitess's planning rules apply); "" when no table has a
	// primary vindex (reference tables only).
	Engine string
	// Warnings name what the design leaves out: secondary vindexes other
	// than owned single-column lookups, vindex types shardkey does not
	// place, unsharded keyspaces.
	Warnings []string
	// Vindexes are the VSchema's names of each design table's column
	// vindexes (the primary one and the lookups the design holds), by
	// table name, for vindex hints (sim.Options.Vindexes).
	Vindexes map[string]shardkey.VindexNames
}

// ReadVSchema reads a VSchema as Vitess writes it: one keyspace's
// (vschemapb.Keyspace, what Write emits: {"sharded": true, "vindexes":
// {...}, "tables": {...}}) or a SrvVSchema ({"keyspaces": {name:
// keyspace}}). It fails on JSON that is neither, or that has no sharded
// table.
func ReadVSchema(data []byte) (*VSchemaDesign, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("reading the VSchema: the file is empty: want a keyspace's VSchema or a SrvVSchema (JSON)")
	}
	var srv struct {
		Keyspaces map[string]vsKeyspace `json:"keyspaces"`
	}
	if err := json.Unmarshal(data, &srv); err != nil {
		return nil, vschemaJSONError(data, err)
	}
	if len(srv.Keyspaces) == 0 {
		var ks vsKeyspace
		if err := json.Unmarshal(data, &ks); err != nil {
			return nil, vschemaJSONError(data, err)
		}
		srv.Keyspaces = map[string]vsKeyspace{"": ks}
	}
	out := &VSchemaDesign{Vindexes: map[string]shardkey.VindexNames{}}
	var parts []string
	engines := map[string]bool{}
	seen := map[string]bool{}
	names := make([]string, 0, len(srv.Keyspaces))
	for n := range srv.Keyspaces {
		names = append(names, n)
	}
	sort.Strings(names)
	// The lookup vindexes' backing tables, in any keyspace.
	backing := map[string]bool{}
	for _, ks := range srv.Keyspaces {
		for _, vx := range ks.Vindexes {
			if lookupTypes[vx.Type] != nil && vx.Params["table"] != "" {
				tb := vx.Params["table"]
				if _, after, ok := strings.Cut(tb, "."); ok {
					tb = after // keyspace.table
				}
				backing[tb] = true
			}
		}
	}
	// placedTables are the tables whose rows the VSchema places: a table
	// of an unsharded keyspace, or one with a column vindex; a lookup
	// table elsewhere has rows Vitess cannot place.
	placedTables := map[string]bool{}
	// tableEngines are the engines of the sharded tables' first column
	// vindexes (of a type shardkey places): how a lookup table is sharded.
	tableEngines := map[string]string{}
	for kn, ks := range srv.Keyspaces {
		for tn, t := range ks.Tables {
			if !ks.Sharded || len(t.ColumnVindexes) > 0 || t.Type == "reference" {
				placedTables[tn] = true
				if kn != "" {
					placedTables[kn+"."+tn] = true
				}
			}
			if ks.Sharded && len(t.ColumnVindexes) > 0 && t.Type != "reference" {
				if e := shardkey.VindexEngine(ks.Vindexes[t.ColumnVindexes[0].Name].Type); e != "" {
					tableEngines[tn] = e
					if kn != "" {
						tableEngines[kn+"."+tn] = e
					}
				}
			}
		}
	}
	for _, kn := range names {
		ks := srv.Keyspaces[kn]
		tables := make([]string, 0, len(ks.Tables))
		for t := range ks.Tables {
			tables = append(tables, t)
		}
		sort.Strings(tables)
		for _, tn := range tables {
			t := ks.Tables[tn]
			if tn == "" || seen[tn] {
				out.Warnings = append(out.Warnings, fmt.Sprintf("table %q: empty or named in two keyspaces: left out", tn))
				continue
			}
			seen[tn] = true
			if backing[tn] {
				continue // a lookup vindex's table: the lookup of its owner
			}
			switch {
			case t.Type == "reference":
				parts = append(parts, shardkey.QuoteName(tn)+":replicate")
				out.Vindexes[tn] = shardkey.VindexNames{Reference: true, Source: t.Source}
				continue
			case !ks.Sharded || t.Type == "sequence":
				continue
			case len(t.ColumnVindexes) == 0:
				out.Warnings = append(out.Warnings, fmt.Sprintf("table %s has no column vindex: left out", tn))
				continue
			}
			cv := t.ColumnVindexes[0]
			cols := cv.Columns
			if cv.Column != "" {
				cols = []string{cv.Column}
			}
			vx, ok := ks.Vindexes[cv.Name]
			if !ok {
				out.Warnings = append(out.Warnings, fmt.Sprintf("table %s: primary vindex %q is not defined in the keyspace's \"vindexes\": left out", tn, cv.Name))
				continue
			}
			eng := shardkey.VindexEngine(vx.Type)
			if eng != "" && len(cols) > 1 {
				out.Warnings = append(out.Warnings, fmt.Sprintf("table %s: primary vindex %s of type %q is on %d columns; Vitess's %s vindex maps one: left out", tn, cv.Name, vx.Type, len(cols), vx.Type))
				continue
			}
			if eng == "" || len(cols) == 0 || cols[0] == "" {
				out.Warnings = append(out.Warnings, fmt.Sprintf("table %s: primary vindex %s of type %q is not one shardkey places: left out", tn, cv.Name, vx.Type))
				continue
			}
			engines[eng] = true
			part := shardkey.QuoteName(tn) + ":" + (&shardkey.HashExpr{Cols: cols, Vindex: vx.Type}).String()
			vn := shardkey.VindexNames{Primary: cv.Name, PrimaryCols: cols, PrimaryType: vx.Type}
			for _, sv := range t.ColumnVindexes[1:] {
				l, why := vsLookup(tn, sv, ks.Vindexes[sv.Name], cols)
				if why != "" {
					out.Warnings = append(out.Warnings, fmt.Sprintf("table %s: secondary vindex %s %s: not modelled", tn, sv.Name, why))
					continue
				}
				part += ", " + l.String()
				if vn.Lookups == nil {
					vn.Lookups, vn.LookupTables, vn.LookupTableNames, vn.LookupEngines = map[string]string{}, map[string]bool{}, map[string]string{}, map[string]string{}
					vn.LookupIgnoreNulls = map[string]bool{}
				}
				// Vitess takes exactly "true" (boolFromMap,
				// go/vt/vtgate/vindexes/lookup_internal.go).
				if ks.Vindexes[sv.Name].Params["ignore_nulls"] == "true" {
					vn.LookupIgnoreNulls[strings.ToLower(l.Col)] = true
				}
				backing := ks.Vindexes[sv.Name].Params["table"]
				vn.LookupTableNames[strings.ToLower(l.Col)] = backing
				vn.Lookups[strings.ToLower(l.Col)] = sv.Name
				vn.LookupTables[strings.ToLower(l.Col)] = placedTables[backing]
				if e := tableEngines[backing]; e != "" {
					vn.LookupEngines[strings.ToLower(l.Col)] = e
				}
			}
			out.Vindexes[tn] = vn
			parts = append(parts, part)
		}
	}
	if len(parts) == 0 {
		if len(out.Warnings) > 0 {
			return nil, fmt.Errorf("the VSchema has no sharded or reference table shardkey can place: %s", strings.Join(out.Warnings, "; "))
		}
		return nil, fmt.Errorf("the VSchema has no sharded or reference table")
	}
	out.Design = strings.Join(parts, "; ")
	var es []string
	for e := range engines {
		es = append(es, e)
	}
	sort.Strings(es)
	switch {
	case engines["vitess"]:
		out.Engine = "vitess"
	case len(es) > 0:
		out.Engine = es[0]
	}
	return out, nil
}

// lookupTypes are the Vitess lookup vindex types a design's lookup(col)
// stands for, as the Lookup they read as.
var lookupTypes = map[string]*shardkey.Lookup{
	"lookup_unique":            {Unique: true},
	"lookup":                   {},
	"consistent_lookup_unique": {Unique: true, Consistent: true},
	"consistent_lookup":        {Consistent: true},
	// The older lookup_hash vindexes map to a user id the primary hash
	// vindex hashes (lookup_hash.go): the same routing.
	"lookup_hash_unique": {Unique: true},
	"lookup_hash":        {},
}

// vsLookup returns the lookup a secondary column vindex cv of table tn is,
// or why it is none the design can hold: not a lookup type, several
// columns, owned by another table, or on a key column.
func vsLookup(tn string, cv vsColumnVindex, vx vsVindex, keyCols []string) (shardkey.Lookup, string) {
	proto := lookupTypes[vx.Type]
	col := cv.Column
	switch {
	case proto == nil:
		return shardkey.Lookup{}, fmt.Sprintf("(type %q) is not a lookup vindex shardkey models (lookup_unique, lookup, consistent_lookup_unique, consistent_lookup)", vx.Type)
	case col == "" && len(cv.Columns) == 1:
		col = cv.Columns[0]
	case col == "":
		return shardkey.Lookup{}, fmt.Sprintf("(%s) is on %d columns; lookup(col) takes one", vx.Type, len(cv.Columns))
	}
	switch {
	case vx.Owner != tn:
		return shardkey.Lookup{}, fmt.Sprintf("(%s) is owned by %q, not %s: a lookup is modelled on the table that writes it", vx.Type, vx.Owner, tn)
	case slices.Contains(keyCols, col):
		return shardkey.Lookup{}, fmt.Sprintf("(%s) is on the key column %s", vx.Type, col)
	}
	l := *proto
	l.Col = col
	return l, ""
}

// vschemaJSONError says where the VSchema's JSON is wrong, by line and
// column, in the VSchema's own field names (not shardkey's Go types).
func vschemaJSONError(data []byte, err error) error {
	at := func(off int64) string {
		off = min(max(off, 0), int64(len(data)))
		line := 1 + bytes.Count(data[:off], []byte("\n"))
		col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
		return fmt.Sprintf("line %d, column %d", line, col)
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("reading the VSchema: %s: %v", at(se.Offset), se)
	case errors.As(err, &te):
		// te.Field is the Go decoder's path, without map keys or array
		// indexes (tables.column_vindexes.name): the path found by
		// offset names the table and the index.
		field := te.Field
		if p := jsonPathAt(data, te.Offset); p != "" {
			field = p
		}
		return fmt.Errorf("reading the VSchema: %s: field %s is a JSON %s, want %s", at(te.Offset), field, te.Value, vschemaKind(te.Type.Kind().String()))
	}
	return fmt.Errorf("reading the VSchema: %w", err)
}

func vschemaKind(k string) string {
	switch k {
	case "map", "struct":
		return "an object"
	case "slice":
		return "an array"
	case "bool":
		return "true or false"
	case "string":
		return "a string"
	}
	return k
}

// jsonPathAt returns the path, in data, of the JSON value that ends at or
// just past byte offset off (where encoding/json reports a type error:
// after a literal, after an object's or array's opening bracket), with
// object keys and array indexes: tables.orders.column_vindexes[0].name (a
// key that is not letters, digits and underscores quoted). "" when data
// does not parse that far.
func jsonPathAt(data []byte, off int64) string {
	type frame struct {
		arr     bool
		key     string
		idx     int
		wantKey bool
	}
	var st []frame
	path := func() string {
		var b strings.Builder
		for _, f := range st {
			if f.arr {
				fmt.Fprintf(&b, "[%d]", f.idx)
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			plain := f.key != ""
			for _, r := range f.key {
				plain = plain && (r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
			}
			if plain {
				b.WriteString(f.key)
			} else {
				fmt.Fprintf(&b, "%q", f.key)
			}
		}
		return b.String()
	}
	// done ends a value in the innermost container.
	done := func() {
		if len(st) == 0 {
			return
		}
		if top := &st[len(st)-1]; top.arr {
			top.idx++
		} else {
			top.wantKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		d, isDelim := tok.(json.Delim)
		if isDelim && (d == '}' || d == ']') {
			st = st[:len(st)-1]
			done()
			continue
		}
		if n := len(st); n > 0 && !st[n-1].arr && st[n-1].wantKey {
			st[n-1].key, _ = tok.(string)
			st[n-1].wantKey = false
			continue
		}
		if dec.InputOffset() >= off {
			return path()
		}
		switch {
		case isDelim && d == '{':
			st = append(st, frame{wantKey: true})
		case isDelim && d == '[':
			st = append(st, frame{arr: true})
		default:
			done()
		}
	}
}
