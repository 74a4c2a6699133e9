package sqllog

import (
	"strings"
	"sync"
	"sync/atomic"
)

// maxCached bounds the templates kept per cache: beyond it, new shapes are
// parsed every time they occur (correct, only slower). maxLongCost bounds
// the long ones the same way.
const maxCached = 1 << 16

// cache maps shape texts to parsed templates. It is safe for concurrent use.
type cache struct {
	mu sync.RWMutex
	m  map[string]*template
	n  atomic.Int64
	// raw counts the statements parsed as written because their shape
	// hides a constant (see template.folded); beyond maxRaw, the shape's
	// template serves them unfolded, so memory stays bounded.
	raw atomic.Int64
	// long is the cost of the long shapes kept (see maxLongCost).
	long atomic.Int64
}

// maxRaw bounds the distinct statements parsed as written to fold a
// constant their shape hides.
const maxRaw = 4096

// rawTemplate marks a shape whose placeholder text does not parse (a
// literal the grammar needs in place): its statements are parsed as
// written, keyed by their own text.
var rawTemplate = &template{}

func (c *cache) load(key string) *template {
	c.mu.RLock()
	t := c.m[key]
	c.mu.RUnlock()
	return t
}

// loadBytes is load of string(key), without allocating the string (a
// sync.Map's key, an interface, would take a copy of it per lookup).
func (c *cache) loadBytes(key []byte) *template {
	c.mu.RLock()
	t := c.m[string(key)]
	c.mu.RUnlock()
	return t
}

// Long shapes (IN lists of up to MaxListValues values, each length a
// shape of its own) are bounded by their memory too: a template takes
// about 13 times its shape text (a value's placeholder "$100001, " is 9
// bytes, its argument, predicate and binding about 120), so the text of
// a shape past longShape bytes costs templateFactor times its excess, and
// all of them together at most maxLongCost: about 110 shapes of 4,096
// values, where a log of IN lists of every length from 1 to 4,096 took
// 1 GB. Shapes of a benchmark client (under 1 kB) are bounded by
// maxCached alone.
const (
	longShape      = 1 << 10
	templateFactor = 16
	maxLongCost    = 64 << 20
)

func (c *cache) store(key string, t *template) {
	if c.n.Load() >= maxCached {
		return
	}
	cost := int64(max(0, len(key)-longShape) * templateFactor)
	if cost > 0 && c.long.Load()+cost > maxLongCost {
		return
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*template{}
	}
	if _, ok := c.m[key]; !ok {
		c.m[key] = t
		c.n.Add(1)
		c.long.Add(cost)
	}
	c.mu.Unlock()
}

// dmlLead reports whether sql starts with a keyword of a statement whose
// literals are replaced by placeholders. Other statements (SET, SHOW, DDL,
// transaction control) are parsed as written: their literals can matter
// (SET autocommit = 0) and the grammar often forbids placeholders there.
func dmlLead(sql string) bool {
	i := 0
	for i < len(sql) && (sql[i] == ' ' || sql[i] == '\t' || sql[i] == '\n' || sql[i] == '\r' || sql[i] == '(') {
		i++
	}
	j := i
	for j < len(sql) && isIdentStart(sql[j]) {
		j++
	}
	w := sql[i:j]
	for _, k := range dmlWords {
		if len(w) == len(k) && strings.EqualFold(w, k) {
			return true
		}
	}
	return false
}

// dmlWords are the leading keywords dmlLead accepts (compared without
// case and without lowering the word: no allocation per statement).
var dmlWords = [...]string{"select", "insert", "update", "delete", "with", "replace", "values", "table"}

// analyze returns the template of sql and the literals its placeholders
// stand for. buf is scratch space, returned for reuse; the literals come
// from slab when it is not nil. fx, when not nil, is the caller's index of
// exemplars (fastshape.go): a statement matching one is not normalised,
// and statements whose shape is found in the cache become exemplars.
func (c *cache) analyze(sql string, d Dialect, buf []byte, slab *litSlab, fx *fastIndex) (*template, []lit, []byte) {
	parse := guarded(Postgres, parsePostgres)
	if d == MySQL {
		parse = guarded(MySQL, parseMySQL)
	}
	if !dmlLead(sql) {
		if t := c.load(sql); t != nil {
			return t, nil, buf
		}
		return c.parseKept(parse, sql), nil, buf
	}
	var lits []lit
	if slab != nil {
		lits = slab.next()
	}
	var spans *[]litSpan
	if fx != nil {
		t, l, ok := fx.lookup(sql, d, lits)
		if ok {
			if slab != nil {
				l = slab.took(l)
			}
			return t, l, buf
		}
		if slab != nil {
			slab.wrote(len(l)) // the literals of the exemplars that did not match
		}
		spans = &fx.spans
	}
	buf, lits = normalizeSpans(buf, lits, sql, d, spans)
	if slab != nil {
		lits = slab.took(lits)
	}
	t := c.loadBytes(buf)
	if t != nil && fx != nil && t.folded == nil && t != rawTemplate {
		fx.add(sql, t, fx.spans)
	}
	if t == nil {
		key := string(buf)
		t = parse(key)
		if t.err == nil && t.slotConst() {
			// 1 IN ('aa', 'bb'): a constant the placeholders hide; read
			// each statement as written, where it folds.
			t = &template{text: t.text, parts: t.parts, folded: t}
		} else if t.err != nil {
			// Try the text as written: a placeholder may sit where the
			// grammar wants a literal.
			if raw := parse(sql); raw.err == nil {
				t = rawTemplate
			}
		}
		c.store(key, t)
	}
	if t.folded != nil {
		if rt := c.load(sql); rt != nil {
			return rt, nil, buf
		}
		if c.raw.Add(1) > maxRaw {
			return t.folded, lits, buf
		}
		own := strings.Clone(sql)
		rt := parse(own)
		if rt.err != nil {
			return t.folded, lits, buf
		}
		c.store(own, rt)
		return rt, nil, buf
	}
	if t == rawTemplate {
		if rt := c.load(sql); rt != nil {
			return rt, nil, buf
		}
		return c.parseKept(parse, sql), nil, buf
	}
	return t, lits, buf
}

// parseKept parses sql as written and stores its template under it, both
// a copy of their own: sql may be a reader's text (textArena), which the
// cache must not hold.
func (c *cache) parseKept(parse func(string) *template, sql string) *template {
	own := strings.Clone(sql)
	t := parse(own)
	c.store(own, t)
	return t
}
