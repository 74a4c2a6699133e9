package sqllog

import "strings"

// The fast matcher: a statement written like one whose shape is already
// parsed (the same text around its literals, literals of the same look)
// takes its template and literals from a match against that statement's
// text, without normalising it and looking its shape up (normalizeInto is
// the largest cost of reading a log whose statements differ only in their
// values, as a benchmark client's do).
//
// Why the match gives what normalize would: normalize decides each
// literal from the text before it (the shape text written so far, the
// previous word) and from a look ahead that stops at the first character
// of the next literal, or, for integer arithmetic (arithInt), at the
// character after its leading digits. When a statement's text outside its
// placeholder literals is byte for byte the exemplar's (comments and
// white space included), and each literal has the exemplar's look at that
// place (a number or a string; a number's first character a digit or a
// dot, and whether it is digits only; a string's quote), every decision
// falls the same way, so the shape text, and with it the template, is the
// same, and the literals are lexed as normalize lexes them (scanNumber,
// readString). Statements whose exemplar had a prefixed string (E'...')
// are not matched. TestFastShapeSame checks the match against normalize
// on every statement of the test logs.

// litSpan is where a literal normalize put in a placeholder was written
// (sql[start:end]) and how it looked.
type litSpan struct {
	start, end int
	str        bool // a string (else a number)
	prefixed   bool // E'...', N'...'
	plainInt   bool // a number of digits only
	lead       byte // a string's quote; a number's first character
}

// fastShape is an exemplar statement of a cached template: its text
// around its placeholder literals (segs, one more than lits) and the look
// of each literal.
type fastShape struct {
	t    *template
	segs []string
	lits []litSpan
}

// fastIndex finds exemplars by their key (fastKey). One per parser
// worker: no lock.
type fastIndex struct {
	m     map[fastKey][]*fastShape
	n     int
	lits  int       // literals of all exemplars (maxFastLits)
	spans []litSpan // scratch for normalizeSpans
}

const (
	maxFastShapes = 4096 // exemplars per index
	// maxFastLits bounds the literals of all exemplars of an index (an
	// exemplar holds about 40 bytes a literal): 4,096 exemplars of a
	// benchmark client's few literals each, or 64 of IN lists of 4,096
	// (MaxListValues), not 4,096 of them (650 MB a worker).
	maxFastLits   = 1 << 18
	maxFastPerKey = 16 // exemplars sharing a key
)

// fastKey finds a statement's exemplars: its text before the first
// character that may start a literal (fastKeyEnd), and how many commas
// follow that text (statements of one beginning with more or fewer values in a list
// or rows in an INSERT have other shapes).
type fastKey struct {
	lead   string
	commas int
}

func keyOf(sql string) fastKey {
	end := fastKeyEnd(sql)
	return fastKey{lead: sql[:end], commas: strings.Count(sql[end:], ",")}
}

// fastKeyEnd returns where the first character that may start a literal
// is: a quote, or a digit (or a dot before one) that does not continue a
// word. The text before it is an exemplar's key.
func fastKeyEnd(sql string) int {
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		if !mayStartLit[c] { // most characters: one table look
			continue
		}
		switch {
		case c == '\'' || c == '"':
			return i
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(sql) && isDigit(sql[i+1]):
			if i == 0 || !isIdent(sql[i-1]) {
				return i
			}
		}
	}
	return len(sql)
}

// mayStartLit marks the characters fastKeyEnd looks at further: quotes,
// digits and the dot.
var mayStartLit = func() (t [256]bool) {
	for _, c := range "'\".0123456789" {
		t[c] = true
	}
	return t
}()

// lookup returns the template of sql and its literals (appended to lits)
// when sql matches an exemplar; when none matches, the literals the
// longest attempt appended (lits' caller may need to know what was
// written into it: litSlab.wrote).
func (fx *fastIndex) lookup(sql string, d Dialect, lits []lit) (*template, []lit, bool) {
	if fx.m == nil {
		return nil, lits, false
	}
	cands := fx.m[keyOf(sql)]
	longest := lits[:0]
	for i, f := range cands {
		out, ok := f.match(sql, d, lits)
		if ok {
			if i > 0 { // most recent first: a client repeats its statements
				copy(cands[1:i+1], cands[:i])
				cands[0] = f
			}
			return f.t, out, true
		}
		if len(out) > len(longest) {
			longest = out
		}
	}
	return nil, longest, false
}

// match lexes sql's literals over the exemplar's text; ok is false when
// sql is not written like the exemplar.
func (f *fastShape) match(sql string, d Dialect, lits []lit) ([]lit, bool) {
	lits = lits[:0]
	i := 0
	for k := range f.lits {
		seg := f.segs[k]
		if len(sql)-i < len(seg) || sql[i:i+len(seg)] != seg {
			return lits, false
		}
		i += len(seg)
		if i >= len(sql) {
			return lits, false
		}
		sp := &f.lits[k]
		c := sql[i]
		if sp.str {
			if c != sp.lead {
				return lits, false
			}
			s, n, ok := readString(sql[i:], c, d == MySQL)
			if !ok {
				return lits, false
			}
			lits = append(lits, lit{s: s, kind: litStr})
			i += n
			continue
		}
		if isDigit(c) != isDigit(sp.lead) || !isDigit(c) && !(c == '.' && i+1 < len(sql) && isDigit(sql[i+1])) {
			return lits, false
		}
		j := scanNumber(sql, i)
		if j < len(sql) && isIdentStart(sql[j]) || plainInt(sql, i, j) != sp.plainInt {
			return lits, false
		}
		lits = append(lits, lit{s: sql[i:j], kind: litNum})
		i = j
	}
	return lits, sql[i:] == f.segs[len(f.lits)]
}

// add makes sql, whose template t was found in the cache by its shape
// text, an exemplar; spans are its literals as normalizeSpans recorded
// them.
func (fx *fastIndex) add(sql string, t *template, spans []litSpan) {
	if fx.n >= maxFastShapes || fx.lits+len(spans) > maxFastLits {
		return
	}
	for _, sp := range spans {
		if sp.prefixed {
			return
		}
	}
	key := keyOf(sql)
	if len(fx.m[key]) >= maxFastPerKey {
		return
	}
	f := &fastShape{t: t, segs: make([]string, 0, len(spans)+1), lits: append([]litSpan(nil), spans...)}
	at := 0
	for _, sp := range spans {
		f.segs = append(f.segs, strings.Clone(sql[at:sp.start]))
		at = sp.end
	}
	f.segs = append(f.segs, strings.Clone(sql[at:]))
	if fx.m == nil {
		fx.m = map[fastKey][]*fastShape{}
	}
	if _, ok := fx.m[key]; !ok {
		key.lead = strings.Clone(key.lead)
	}
	fx.m[key] = append(fx.m[key], f)
	fx.n++
	fx.lits += len(spans)
}
