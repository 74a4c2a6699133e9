package shardkey

import "strings"

// String writes the design so that ParseDesign reads back the same keys:
// each table's key in Order as "TABLE:EXPR", its lookups after it, then
// the expression without a table (and its lookups), joined with "; ".
// It is Text when the design was parsed from a normalised text, and
// differs from it only in spacing, quoting and order otherwise.
func (d *Design) String() string {
	var parts []string
	withLookups := func(s string, table string) string {
		for _, l := range d.Lookups[table] {
			s += ", " + l.String()
		}
		return s
	}
	for _, t := range d.Order {
		parts = append(parts, withLookups(QuoteName(t)+":"+d.Tables[t].String(), t))
	}
	if d.Default != nil {
		parts = append(parts, withLookups(d.Default.String(), ""))
	}
	return strings.Join(parts, "; ")
}

// WithBounds returns a copy of d in which every range key (also one
// inside salt or isolate) carries bounds, the split points' texts as
// RangeExpr.Bounds reads them, with Text rewritten (String). A range key
// that has bounds of its own gets these instead: a design has one set of
// range boundaries (sim's computeBounds). A MongoDB pattern whose first
// field is hashed is a hash key and gets none. d is not changed.
func (d *Design) WithBounds(bounds []string) *Design {
	return d.withBounds(bounds, false)
}

// WithTupleBounds is WithBounds with composite split points: each of
// tuples is a tuple's text as TupleText writes it (RangeExpr.Tuple).
func (d *Design) WithTupleBounds(tuples []string) *Design {
	return d.withBounds(tuples, true)
}

func (d *Design) withBounds(bounds []string, tuple bool) *Design {
	out := &Design{Default: exprWithBounds(d.Default, bounds, tuple), Tables: make(map[string]Expr, len(d.Tables)),
		Order: append([]string(nil), d.Order...), Lookups: d.Lookups}
	for t, e := range d.Tables {
		out.Tables[t] = exprWithBounds(e, bounds, tuple)
	}
	out.Text = out.String()
	return out
}

func exprWithBounds(e Expr, bounds []string, tuple bool) Expr {
	return mapRange(e, func(x *RangeExpr) Expr {
		if x.Hashed != "" && x.Hashed == x.Cols[0] {
			return x // {a: "hashed"}: a hash key, no boundaries
		}
		c := *x
		c.Bounds = append([]string(nil), bounds...)
		c.Tuple = tuple
		return &c
	})
}

// mapRange returns e with its range key, also one inside salt or
// isolate, replaced by f's result (copies of the wrappers; e is not
// changed); e without a range key is returned as it is.
func mapRange(e Expr, f func(*RangeExpr) Expr) Expr {
	switch x := e.(type) {
	case *RangeExpr:
		return f(x)
	case *SaltExpr:
		c := *x
		c.Inner = mapRange(x.Inner, f)
		return &c
	case *IsolateExpr:
		c := *x
		c.Inner = mapRange(x.Inner, f)
		return &c
	}
	return e
}

// BoundText returns the text of range boundary v as bounds=[...] writes
// it, such that ParseValue of it under typ (the range column's type)
// gives v back, quoted when it holds a character the list syntax reads
// (, ] [ or a quote, or spaces at an end); ok is false when no text does
// (a value holding both quote characters, or one whose text form parses
// to another value under typ).
func BoundText(v Value, typ Type) (text string, ok bool) {
	s := v.String()
	raw := s
	if strings.ContainsAny(s, ",[]\"'") || strings.TrimSpace(s) != s || s == "" {
		switch {
		case !strings.Contains(s, `"`):
			s = `"` + s + `"`
		case !strings.Contains(s, `'`):
			s = `'` + s + `'`
		default:
			return "", false
		}
	}
	back, err := ParseValue(raw, typ)
	if err != nil || back.IsNull() != v.IsNull() || Compare(back.Canonical(), v.Canonical()) != 0 || back.Canonical().class() != v.Canonical().class() {
		return "", false
	}
	return s, true
}

// TupleText writes a composite split point, one value text for each
// leading key column, as bounds=[(v1, v2), ...] reads it: "(v1, v2)",
// a value quoted when it holds a character the syntax reads (, ( ) [ ] or
// a quote, or spaces at an end, or is empty). A value holding both quote
// characters cannot be written: such a key's bounds are not writable
// (callers check with TupleParts).
func TupleText(parts []string) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, v := range parts {
		if i > 0 {
			b.WriteString(", ")
		}
		if strings.ContainsAny(v, ",()[]\"'") || strings.TrimSpace(v) != v || v == "" {
			q := `"`
			if strings.Contains(v, `"`) {
				q = `'`
			}
			v = q + v + q
		}
		b.WriteString(v)
	}
	b.WriteByte(')')
	return b.String()
}

// TupleParts returns the value texts of a split point TupleText wrote
// (quotes stripped); nil when text is not a tuple.
func TupleParts(text string) []string {
	p := &parser{src: text}
	if !p.expect('(') {
		return nil
	}
	var out []string
	for {
		p.space()
		v, ok := p.value(")")
		if !ok {
			return nil
		}
		out = append(out, v)
		p.space()
		if p.peek() == ',' {
			p.pos++
			continue
		}
		if !p.expect(')') {
			return nil
		}
		if p.space(); !p.eof() {
			return nil
		}
		return out
	}
}

// WithRangesHashed returns a copy of d in which every range key (also
// one inside salt or isolate) is hash(its columns), with Text rewritten:
// the design as an engine that distributes by hash only (Citus) places
// it; first hashes the first column alone (Citus distributes by one
// column). d is not changed.
func (d *Design) WithRangesHashed(first bool) *Design {
	out := &Design{Default: exprHashed(d.Default, first), Tables: make(map[string]Expr, len(d.Tables)),
		Order: append([]string(nil), d.Order...), Lookups: d.Lookups}
	for t, e := range d.Tables {
		out.Tables[t] = exprHashed(e, first)
	}
	out.Text = out.String()
	return out
}

func exprHashed(e Expr, first bool) Expr {
	return mapRange(e, func(x *RangeExpr) Expr {
		if first {
			return &HashExpr{Cols: []string{x.Cols[0]}}
		}
		return &HashExpr{Cols: append([]string(nil), x.Cols...)}
	})
}
