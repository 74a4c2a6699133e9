package emit

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// VSchemaDesign is the design a Vitess VSchema describes: each sharded
// table's primary vindex (its first column vindex) as a key, each
// reference table replicated.
type VSchemaDesign struct {
	// Design is the design text, "TABLE:hash(col); TABLE:replicate; ...",
	// tables in name order.
	Design string
	// Engine is the partition engine of the vindex type every primary
	// vindex has ("vitess" for hash, "vitess-xxhash", ...), or "" when
	// they differ or none is known (then Warnings say so).
	Engine string
	// Warnings name what the design leaves out: lookup vindexes (only a
	// table's primary vindex places rows), vindex types shardkey does not
	// place, unsharded keyspaces.
	Warnings []string
}

// ReadVSchema reads a VSchema as Vitess writes it: one keyspace's
// (vschemapb.Keyspace, what Write emits: {"sharded": true, "vindexes":
// {...}, "tables": {...}}) or a SrvVSchema ({"keyspaces": {name:
// keyspace}}). It fails on JSON that is neither, or that has no sharded
// table.
func ReadVSchema(data []byte) (*VSchemaDesign, error) {
	var srv struct {
		Keyspaces map[string]vsKeyspace `json:"keyspaces"`
	}
	if err := json.Unmarshal(data, &srv); err != nil {
		return nil, fmt.Errorf("reading the VSchema: %w", err)
	}
	if len(srv.Keyspaces) == 0 {
		var ks vsKeyspace
		if err := json.Unmarshal(data, &ks); err != nil {
			return nil, fmt.Errorf("reading the VSchema: %w", err)
		}
		srv.Keyspaces = map[string]vsKeyspace{"": ks}
	}
	out := &VSchemaDesign{}
	var parts []string
	engines := map[string]bool{}
	seen := map[string]bool{}
	names := make([]string, 0, len(srv.Keyspaces))
	for n := range srv.Keyspaces {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, kn := range names {
		ks := srv.Keyspaces[kn]
		tables := make([]string, 0, len(ks.Tables))
		for t := range ks.Tables {
			tables = append(tables, t)
		}
		sort.Strings(tables)
		for _, tn := range tables {
			t := ks.Tables[tn]
			if !plainName(tn) || seen[tn] {
				out.Warnings = append(out.Warnings, fmt.Sprintf("table %q: not a plain name or named in two keyspaces: left out", tn))
				continue
			}
			seen[tn] = true
			switch {
			case t.Type == "reference":
				parts = append(parts, tn+":replicate")
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
			eng := vitessEngines[vx.Type]
			if !ok || eng == "" || len(cols) == 0 || slices.ContainsFunc(cols, func(c string) bool { return !plainName(c) }) {
				out.Warnings = append(out.Warnings, fmt.Sprintf("table %s: primary vindex %s of type %q is not one shardkey places: left out", tn, cv.Name, vx.Type))
				continue
			}
			engines[eng] = true
			parts = append(parts, fmt.Sprintf("%s:hash(%s)", tn, strings.Join(cols, ", ")))
			if len(t.ColumnVindexes) > 1 {
				out.Warnings = append(out.Warnings, fmt.Sprintf("table %s: only its primary vindex %s places rows; %d secondary (lookup) vindexes are not modelled", tn, cv.Name, len(t.ColumnVindexes)-1))
			}
		}
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("the VSchema has no sharded or reference table")
	}
	out.Design = strings.Join(parts, "; ")
	switch len(engines) {
	case 1:
		for e := range engines {
			out.Engine = e
		}
	case 0:
	default:
		var es []string
		for e := range engines {
			es = append(es, e)
		}
		sort.Strings(es)
		out.Warnings = append(out.Warnings, fmt.Sprintf("the primary vindexes are of several types (%s): one --engine places every table", strings.Join(es, ", ")))
	}
	return out, nil
}

// plainName reports whether s is an identifier a design can name: letters,
// digits, underscores and $, not starting with a digit.
func plainName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}
