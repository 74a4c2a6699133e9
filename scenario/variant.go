package scenario

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shardkey/shardkey"
)

// Variants: a spec's named sets of settings, applied to a copy of the spec.

// apply returns a copy of s with variant v's settings applied.
func (s *Spec) apply(v string) (*Spec, error) {
	if v == "" {
		return s, nil
	}
	vs, err := s.Variant(v)
	if err != nil {
		return nil, err
	}
	c := *s
	c.Tables = make([]*TableSpec, len(s.Tables))
	for i, t := range s.Tables {
		tc := *t
		tc.Columns = make([]*ColumnSpec, len(t.Columns))
		for j, col := range t.Columns {
			cc := *col
			tc.Columns[j] = &cc
		}
		c.Tables[i] = &tc
	}
	c.Operations = make([]*OpSpec, len(s.Operations))
	for i, o := range s.Operations {
		oc := *o
		c.Operations[i] = &oc
	}
	if len(vs.Candidates) > 0 {
		c.Candidates = vs.Candidates
	}
	keys := make([]string, 0, len(vs.Set))
	for k := range vs.Set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		node := vs.Set[k]
		if err := c.set(k, &node); err != nil {
			return nil, shardkey.Errorf(s.file, node.Line, "variants."+v+".set."+k, "%v", err)
		}
	}
	if vs.Description != "" {
		c.Description = strings.TrimSpace(s.Description + " Variant " + v + ": " + vs.Description)
	}
	return &c, nil
}

// set applies one variant setting: shards, capacity, TABLE.rows,
// TABLE.COLUMN.FIELD (celebrity, distinct, s, top_share) or
// op:NAME.rate.
func (s *Spec) set(key string, n *yaml.Node) error {
	f := func() (float64, error) {
		x, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a number", n.Value)
		}
		return x, nil
	}
	// whole reads an integer field (shards, rows, distinct): 2.5 is an
	// error, not 2.
	whole := func() (int, error) {
		x, err := f()
		if err != nil {
			return 0, err
		}
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return 0, fmt.Errorf("%s: want a whole number", n.Value)
		}
		return int(x), nil
	}
	switch key {
	case "shards":
		x, err := whole()
		if err == nil && (x < 1 || x > shardkey.MaxShards) {
			return fmt.Errorf("%d: must be in 1..%d", x, shardkey.MaxShards)
		}
		s.Shards = x
		return err
	case "capacity":
		x, err := f()
		s.Capacity = x
		return err
	}
	if name, ok := strings.CutPrefix(key, "op:"); ok {
		name, field, _ := strings.Cut(name, ".")
		for _, o := range s.Operations {
			if o.Name == name && field == "rate" {
				x, err := f()
				o.Rate = x
				return err
			}
		}
		return fmt.Errorf("no operation %q with field %q", name, field)
	}
	parts := strings.Split(key, ".")
	for _, t := range s.Tables {
		if t.Name != parts[0] {
			continue
		}
		if len(parts) == 2 && parts[1] == "rows" {
			x, err := whole()
			t.Rows = x
			return err
		}
		if len(parts) != 3 {
			break
		}
		for _, c := range t.Columns {
			if c.Name != parts[1] {
				continue
			}
			x, err := f()
			if err != nil {
				return err
			}
			switch parts[2] {
			case "celebrity":
				c.Celebrity = x
			case "distinct":
				if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
					return fmt.Errorf("%s: want a whole number", n.Value)
				}
				c.Distinct = int(x)
			case "s":
				c.S = x
			case "top_share":
				c.TopShare = x
			default:
				return fmt.Errorf("cannot set %q (want celebrity, distinct, s or top_share)", parts[2])
			}
			return nil
		}
	}
	return fmt.Errorf("nothing to set at %q (want shards, capacity, TABLE.rows, TABLE.COLUMN.FIELD or op:NAME.rate)", key)
}

// With returns a copy of s with settings applied, as a variant's `set`
// would apply them: shards, capacity, TABLE.rows, TABLE.COLUMN.FIELD
// (celebrity, distinct, s, top_share) or op:NAME.rate, each value a
// number. The playground's controls use it.
func (s *Spec) With(settings map[string]string) (*Spec, error) {
	const name = "\x00with"
	v := VariantSpec{Name: name, Set: map[string]yaml.Node{}}
	for k, val := range settings {
		v.Set[k] = yaml.Node{Kind: yaml.ScalarNode, Value: val}
	}
	c := *s
	c.Variants = append(append([]VariantSpec(nil), s.Variants...), v)
	out, err := c.apply(name)
	if err != nil {
		return nil, err
	}
	out.Variants = s.Variants
	out.Description = s.Description
	return out, nil
}
