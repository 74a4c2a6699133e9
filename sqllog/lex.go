package sqllog

import (
	"strconv"
	"strings"
	"unicode"
)

// Dialect is a SQL dialect: which real parser reads a statement.
type Dialect uint8

const (
	// Postgres statements are parsed with pg_query (PostgreSQL's own parser).
	Postgres Dialect = iota + 1
	// MySQL statements (MySQL and MariaDB) are parsed with Vitess's sqlparser.
	MySQL
)

func (d Dialect) String() string {
	switch d {
	case Postgres:
		return "postgresql"
	case MySQL:
		return "mysql"
	}
	return "unknown"
}

// litKind is what a literal or bound value is.
type litKind uint8

const (
	litNone    litKind = iota // no value (a missing range end)
	litNum                    // a number, as written
	litStr                    // a string, decoded
	litNull                   // SQL NULL
	litNoValue                // a placeholder whose value the log does not hold ($1 without parameters)
	litNewest                 // a value the database assigns above all others (now(), nextval, DEFAULT)
	litUnique                 // a new unordered value the database assigns (gen_random_uuid(), uuid())
)

// lit is one literal or bound value of a statement.
type lit struct {
	s    string
	kind litKind
}

// slotBase numbers the placeholders that replace literals in PostgreSQL
// shape text: literal i becomes $(slotBase+i+1), far above any real
// parameter number (PostgreSQL allows 65535).
const slotBase = 100000

// typedLiteralWords are words after which a string is a typed literal
// (DATE '2024-01-01'): it stays in the shape text, because the grammar does
// not allow a parameter there.
var typedLiteralWords = map[string]bool{
	"date": true, "time": true, "timestamp": true, "timestamptz": true, "interval": true,
	"zone": true, "inet": true, "cidr": true, "json": true, "jsonb": true, "uuid": true,
	"bit": true, "varbit": true, "numeric": true, "decimal": true, "int": true, "integer": true,
	"bigint": true, "smallint": true, "text": true, "varchar": true, "boolean": true, "bool": true,
	"real": true, "float": true, "double": true, "precision": true, "money": true, "char": true,
	"character": true, "varying": true, "xml": true, "point": true, "box": true, "line": true,
	"lseg": true, "path": true, "polygon": true, "circle": true, "macaddr": true, "tsquery": true,
	"tsvector": true, "datetime": true,
}

// normalize replaces the numeric and string literals of sql with
// placeholders, drops comments and collapses white space, so that
// statements of one shape share one text: the cache key of their parse. It
// returns the shape text and the literals in order. Literals the grammar
// needs in place (typed literals, bit strings, charset introducers, dollar
// quotes) are kept in the text. Negative numbers keep their minus sign in
// the text; the parse tree's unary minus applies to the placeholder.
//
// Integer arithmetic over literals (3001 - 20, 3 * -2: +, - or * between
// integers written with digits only) gets placeholders marked as integers
// ($200001 for PostgreSQL, :ski0 for MySQL), which the template folds when
// the statement is bound (argArith): clients that write computed values
// into the SQL (a TPC-C client's "d_next_o_id = 3061 + 1") would otherwise
// make one shape, and one cached template, per value. Other constant
// expressions (5 / 2, 1 = 0, '1' + 2, 1 + 2.5) stay in the text.
func normalize(buf []byte, sql string, d Dialect) ([]byte, []lit) {
	return normalizeInto(buf, nil, sql, d)
}

// normalizeInto is normalize appending the literals to lits (scratch with
// room, from a litSlab; appends past its capacity allocate as usual).
func normalizeInto(buf []byte, lits []lit, sql string, d Dialect) ([]byte, []lit) {
	return normalizeSpans(buf, lits, sql, d, nil)
}

// normalizeSpans is normalizeInto also recording, when spans is not nil,
// where each literal put in a placeholder was written in sql and what it
// looked like (litSpan), for the fast matcher (fastshape.go).
func normalizeSpans(buf []byte, lits []lit, sql string, d Dialect, spans *[]litSpan) ([]byte, []lit) {
	lits = lits[:0]
	if spans != nil {
		*spans = (*spans)[:0]
	}
	out := buf[:0]
	prevWord := ""      // the previous token when it was a word, lowercased lazily
	prevWordStart := -1 // its start in sql
	prevIdent := false  // the previous emitted token ends an identifier or number
	keptEnd := -1       // the end in out of the last literal kept as text (see opThenLit)
	space := false
	emitSpace := func() {
		if space && len(out) > 0 {
			out = append(out, ' ')
		}
		space = false
	}
	intEnd := -1 // the end in out of the last integer placeholder (see arithInt)
	slotAs := func(integer bool) {
		emitSpace()
		n := len(lits) - 1 // the literal was just appended
		switch {
		case d == Postgres && integer:
			out = append(out, '$')
			out = strconv.AppendInt(out, int64(2*slotBase+n+1), 10)
		case d == Postgres:
			out = append(out, '$')
			out = strconv.AppendInt(out, int64(slotBase+n+1), 10)
		case integer:
			out = append(out, ":ski"...)
			out = strconv.AppendInt(out, int64(n), 10)
		default:
			out = append(out, ":sk"...)
			out = strconv.AppendInt(out, int64(n), 10)
		}
		if integer {
			intEnd = len(out)
		}
		prevIdent = true
	}
	slot := func() { slotAs(false) }
	i := 0
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			space = true
			i++
			continue
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-' && (d == Postgres || i+2 >= len(sql) || sql[i+2] == ' ' || sql[i+2] == '\t' || sql[i+2] == '\n'):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				i = len(sql)
			} else {
				i += j
			}
			space = true
			continue
		case c == '#' && d == MySQL:
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				i = len(sql)
			} else {
				i += j
			}
			space = true
			continue
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			if d == MySQL && i+2 < len(sql) && (sql[i+2] == '!' || sql[i+2] == '+') {
				break // executable comment or optimizer hint: keep as text
			}
			i = skipBlockComment(sql, i, d)
			space = true
			continue
		}
		switch {
		case c == '\'' || (c == '"' && d == MySQL):
			s, n, ok := readString(sql[i:], c, d == MySQL)
			if !ok { // unterminated: keep the rest as text, the parser reports it
				emitSpace()
				out = append(out, sql[i:]...)
				return out, lits
			}
			keep := false
			if prevWordStart >= 0 && prevIdent {
				w := strings.ToLower(prevWord)
				keep = typedLiteralWords[w] || (d == MySQL && strings.HasPrefix(w, "_"))
			}
			keep = keep || keptBefore(out, keptEnd) || opThenLit(sql, i+n, d)
			if keep {
				emitSpace()
				out = append(out, sql[i:i+n]...)
				keptEnd = len(out)
			} else {
				lits = append(lits, lit{s: s, kind: litStr})
				if spans != nil {
					*spans = append(*spans, litSpan{start: i, end: i + n, str: true, lead: c})
				}
				slot()
			}
			i += n
			prevWord, prevWordStart, prevIdent = "", -1, false
			continue
		case c == '"' || c == '`':
			j := skipQuoted(sql, i)
			emitSpace()
			out = append(out, sql[i:j]...)
			i = j
			prevWord, prevWordStart, prevIdent = "", -1, true
			continue
		case c == '$' && d == Postgres:
			j := i + 1
			for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			if j > i+1 {
				emitSpace()
				out = append(out, sql[i:j]...)
				i = j
				prevWord, prevWordStart, prevIdent = "", -1, true
				continue
			}
			// Dollar quote $tag$ ... $tag$: kept as text.
			for j < len(sql) && (isIdentStart(sql[j]) || isDigit(sql[j])) {
				j++
			}
			if j < len(sql) && sql[j] == '$' && !prevIdent {
				tag := sql[i : j+1]
				end := strings.Index(sql[j+1:], tag)
				if end < 0 {
					emitSpace()
					out = append(out, sql[i:]...)
					return out, lits
				}
				k := j + 1 + end + len(tag)
				emitSpace()
				out = append(out, sql[i:k]...)
				i = k
				prevWord, prevWordStart, prevIdent = "", -1, false
				continue
			}
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9':
			j := scanNumber(sql, i)
			if c == '0' && j == i+1 && j < len(sql) && (sql[j] == 'x' || sql[j] == 'X' || sql[j] == 'b' || sql[j] == 'B') {
				// 0x1F, 0b101: kept as text.
				k := j + 1
				for k < len(sql) && isIdent(sql[k]) {
					k++
				}
				emitSpace()
				out = append(out, sql[i:k]...)
				i = k
				prevWord, prevWordStart, prevIdent = "", -1, true
				continue
			}
			if j < len(sql) && isIdentStart(sql[j]) {
				break // 1abc: not a number; let the parser judge
			}
			if !keptBefore(out, keptEnd) && plainInt(sql, i, j) && (arithBefore(out, intEnd) || arithInt(sql, j)) {
				// 3001 - 20: integer arithmetic, in placeholders the
				// template folds when the statement is bound (argArith),
				// so that the shape does not stand for its constants.
				lits = append(lits, lit{s: sql[i:j], kind: litNum})
				if spans != nil {
					*spans = append(*spans, litSpan{start: i, end: j, lead: c, plainInt: true})
				}
				slotAs(true)
				i = j
				prevWord, prevWordStart = "", -1
				continue
			}
			if keptBefore(out, keptEnd) || opThenLit(sql, j, d) {
				// 1 = 0, 5 / 2: a constant expression stays in the text, so
				// that the template folds it (see foldArith, compareConst).
				emitSpace()
				out = append(out, sql[i:j]...)
				keptEnd = len(out)
				i = j
				prevWord, prevWordStart, prevIdent = "", -1, true
				continue
			}
			lits = append(lits, lit{s: sql[i:j], kind: litNum})
			if spans != nil {
				*spans = append(*spans, litSpan{start: i, end: j, lead: c, plainInt: plainInt(sql, i, j)})
			}
			slot()
			i = j
			prevWord, prevWordStart = "", -1
			continue
		case isIdentStart(c):
			j := i + 1
			for j < len(sql) && isIdent(sql[j]) {
				j++
			}
			// U&'...': PostgreSQL's string with Unicode escapes, the
			// value with its escapes decoded (one without a UESCAPE
			// clause; with one, the text is left as it is).
			if d == Postgres && j-i == 1 && c|0x20 == 'u' && j+1 < len(sql) && sql[j] == '&' && sql[j+1] == '\'' {
				if raw, n, ok := readString(sql[j+1:], '\'', false); ok && !uescapeFollows(sql[j+1+n:]) {
					if v, ok := decodeUnicodeEscapes(raw); ok {
						lits = append(lits, lit{s: v, kind: litStr})
						if spans != nil {
							*spans = append(*spans, litSpan{start: i, end: j + 1 + n, str: true, prefixed: true})
						}
						slot()
						i = j + 1 + n
						prevWord, prevWordStart, prevIdent = "", -1, false
						continue
					}
				}
			}
			// E'...', B'...', X'...', N'...' prefixes.
			if j < len(sql) && sql[j] == '\'' && j-i == 1 {
				p := c | 0x20
				if p == 'e' && d == Postgres || p == 'n' {
					s, n, ok := readString(sql[j:], '\'', p == 'e')
					if ok {
						lits = append(lits, lit{s: s, kind: litStr})
						if spans != nil {
							*spans = append(*spans, litSpan{start: i, end: j + n, str: true, prefixed: true})
						}
						slot()
						i = j + n
						prevWord, prevWordStart, prevIdent = "", -1, false
						continue
					}
				}
				if p == 'b' || p == 'x' {
					_, n, ok := readString(sql[j:], '\'', false)
					if ok {
						emitSpace()
						out = append(out, sql[i:j+n]...)
						i = j + n
						prevWord, prevWordStart, prevIdent = "", -1, false
						continue
					}
				}
			}
			emitSpace()
			out = append(out, sql[i:j]...)
			prevWord, prevWordStart, prevIdent = sql[i:j], i, true
			i = j
			continue
		}
		emitSpace()
		out = append(out, c)
		i++
		prevWord, prevWordStart, prevIdent = "", -1, false
	}
	// Drop a final semicolon so "SELECT 1" and "SELECT 1;" share a shape.
	for len(out) > 0 && (out[len(out)-1] == ';' || out[len(out)-1] == ' ') {
		out = out[:len(out)-1]
	}
	return out, lits
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdent(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' }

// scanNumber returns the end of the number starting at i.
func scanNumber(s string, i int) int {
	j := i
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '_') {
		j++
	}
	if j < len(s) && s[j] == '.' && !(j+1 < len(s) && s[j+1] == '.') {
		j++
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			j = k
		}
	}
	return j
}

// readString reads a quoted string at the start of s (quote q), with the
// quote doubled inside, and backslash escapes when backslash is set. It
// returns the decoded text and the length consumed.
func readString(s string, q byte, backslash bool) (string, int, bool) {
	var sb []byte
	plain := true
	i := 1
	start := 1
	for i < len(s) {
		c := s[i]
		if c == q {
			if i+1 < len(s) && s[i+1] == q {
				if plain {
					sb = append(sb[:0], s[start:i+1]...)
					plain = false
				} else {
					sb = append(sb, q)
				}
				i += 2
				continue
			}
			if plain {
				return s[start:i], i + 1, true
			}
			return string(sb), i + 1, true
		}
		if c == '\\' && backslash && i+1 < len(s) {
			if plain {
				sb = append(sb[:0], s[start:i]...)
				plain = false
			}
			e := s[i+1]
			switch e {
			case 'n':
				sb = append(sb, '\n')
			case 't':
				sb = append(sb, '\t')
			case 'r':
				sb = append(sb, '\r')
			case '0':
				sb = append(sb, 0)
			case 'b':
				sb = append(sb, '\b')
			case 'Z':
				sb = append(sb, 26)
			default:
				sb = append(sb, e)
			}
			i += 2
			continue
		}
		if !plain {
			sb = append(sb, c)
		}
		i++
	}
	return "", 0, false
}

// isOpChar reports whether c is a character of an arithmetic or comparison
// operator.
func isOpChar(c byte) bool { return strings.IndexByte("+-*/%=<>!|", c) >= 0 }

// opThenLit reports whether sql, from j (just after a literal), goes on
// with an operator and another literal: 5 + 5, 1 = 0. Such literals stay in
// the shape text, so that the statement's template folds the constant
// expression (a shape then stands for its constants too: rare in logs once
// integer arithmetic is in placeholders, see arithInt).
func opThenLit(sql string, j int, d Dialect) bool {
	for j < len(sql) && sql[j] == ' ' {
		j++
	}
	k := j
	for k < len(sql) && isOpChar(sql[k]) {
		if k+1 < len(sql) && (sql[k] == '-' && sql[k+1] == '-' || sql[k] == '/' && sql[k+1] == '*') {
			break
		}
		k++
	}
	if k == j {
		return false
	}
	for k < len(sql) && sql[k] == ' ' {
		k++
	}
	if k < len(sql) && (sql[k] == '-' || sql[k] == '+') {
		k++
	}
	if k >= len(sql) {
		return false
	}
	c := sql[k]
	return c >= '0' && c <= '9' || c == '\'' || c == '"' && d == MySQL ||
		c == '.' && k+1 < len(sql) && sql[k+1] >= '0' && sql[k+1] <= '9'
}

// keptBefore reports whether out ends with a literal kept as text (at
// keptEnd) and an operator after it: the next literal is the operator's
// other operand.
func keptBefore(out []byte, keptEnd int) bool {
	if keptEnd < 0 || keptEnd > len(out) {
		return false
	}
	op := false
	for _, c := range out[keptEnd:] {
		switch {
		case c == ' ':
		case isOpChar(c):
			op = true
		default:
			return false
		}
	}
	return op
}

// plainInt reports whether sql[i:j], a number, is a decimal integer
// written with digits only.
func plainInt(sql string, i, j int) bool {
	for k := i; k < j; k++ {
		if !isDigit(sql[k]) {
			return false
		}
	}
	return j > i
}

// arithInt reports whether sql, from j (just after an integer), goes on
// with +, - or * and another integer (3001 - 20, 3 * -2): both are put in
// placeholders marked as integers (see argIntSlot).
func arithInt(sql string, j int) bool {
	for j < len(sql) && sql[j] == ' ' {
		j++
	}
	if j >= len(sql) || sql[j] != '+' && sql[j] != '-' && sql[j] != '*' {
		return false
	}
	if j+1 < len(sql) && (sql[j] == '-' && sql[j+1] == '-' || sql[j+1] == '/' || isOpChar(sql[j+1]) && sql[j+1] != '-' && sql[j+1] != '+') {
		return false // a comment, or an operator of more characters
	}
	k := j + 1
	for k < len(sql) && sql[k] == ' ' {
		k++
	}
	if k < len(sql) && (sql[k] == '-' || sql[k] == '+') {
		if k+1 < len(sql) && sql[k] == '-' && sql[k+1] == '-' {
			return false
		}
		k++
	}
	e := k
	for e < len(sql) && isDigit(sql[e]) {
		e++
	}
	if e == k {
		return false
	}
	return e == len(sql) || !isIdent(sql[e]) && sql[e] != '.' && sql[e] != '_'
}

// arithBefore reports whether out ends with an integer placeholder (at
// intEnd) and +, - or * after it: the next integer is the operator's other
// operand.
func arithBefore(out []byte, intEnd int) bool {
	if intEnd < 0 || intEnd > len(out) {
		return false
	}
	op, last := 0, byte(0)
	for _, c := range out[intEnd:] {
		switch {
		case c == ' ':
		case c == '+' || c == '-' || c == '*':
			op, last = op+1, c
		default:
			return false
		}
	}
	// One operator, or one and the other operand's sign (3 * -2).
	return op == 1 || op == 2 && last != '*'
}

// litSlab hands out the literals of a batch's statements from a few large
// arrays instead of a growing slice per statement. The literals may be
// kept until the batch is aggregated (lazy parts bind then), never longer:
// values copy what they need. Its chunks are a chunks[lit] (scrubbed at
// release, reset for reuse), handed out with open-ended room instead.
type litSlab struct {
	c chunks[lit]
}

// next returns an empty slice with room to append a statement's literals.
func (s *litSlab) next() []lit {
	c := &s.c
	for len(c.list) == 0 || cap(c.list[c.i])-len(c.list[c.i]) < 64 {
		if c.i+1 < len(c.list) {
			c.i++
			continue
		}
		c.list, c.dirty = append(c.list, make([]lit, 0, 4096)), append(c.dirty, 0)
		c.i = len(c.list) - 1
	}
	ch := c.list[c.i]
	return ch[len(ch):len(ch)]
}

// took claims from the slab the literals l appended to next's slice (when
// they fit; else they were allocated elsewhere, after filling the room
// next gave) and returns them with no room to grow into the next
// statement's.
func (s *litSlab) took(l []lit) []lit {
	if c := &s.c; len(l) > 0 {
		ch := c.list[c.i]
		n := len(ch)
		if cap(ch) > n && &l[0] == &ch[:n+1][n] {
			c.list[c.i] = ch[:n+len(l)]
			c.dirty[c.i] = max(c.dirty[c.i], n+len(l))
		} else {
			c.dirty[c.i] = cap(ch)
		}
	}
	return l[:len(l):len(l)]
}

// wrote records that the caller of next wrote up to n literals into its
// slice and kept none of them (a match that failed).
func (s *litSlab) wrote(n int) {
	if c := &s.c; len(c.list) > 0 {
		c.dirty[c.i] = max(c.dirty[c.i], min(len(c.list[c.i])+n, cap(c.list[c.i])))
	}
}

// scrub zeroes the literals an earlier use wrote and this one did not
// take (chunks.scrub).
func (s *litSlab) scrub() { s.c.scrub() }

// reset makes every chunk free for reuse: the literals handed out must no
// longer be used (chunks.reset).
func (s *litSlab) reset() { s.c.reset() }

// uescapeFollows reports whether rest (the SQL after a U&'...' string)
// starts, after blanks, with the keyword UESCAPE.
func uescapeFollows(rest string) bool {
	rest = strings.TrimLeft(rest, " \t\r\n")
	return len(rest) >= 7 && strings.EqualFold(rest[:7], "uescape")
}

// decodeUnicodeEscapes decodes the body of a PostgreSQL U&'...' string
// with the default escape character: \XXXX (4 hex digits) and \+XXXXXX
// (6) are code points, \\ is a backslash (PostgreSQL's scanner, "String
// Constants With Unicode Escapes"). It reports false on a malformed
// escape or a code point that is not a valid character (PostgreSQL
// refuses the statement).
func decodeUnicodeEscapes(s string) (string, bool) {
	if !strings.Contains(s, "\\") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		n := 4
		switch {
		case i+1 < len(s) && s[i+1] == '\\':
			b.WriteByte('\\')
			i++
			continue
		case i+1 < len(s) && s[i+1] == '+':
			n = 6
			i++
		}
		if i+1+n > len(s) {
			return "", false
		}
		cp, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
		if err != nil || cp > unicode.MaxRune || cp >= 0xD800 && cp <= 0xDFFF || cp == 0 {
			return "", false
		}
		b.WriteRune(rune(cp))
		i += n
	}
	return b.String(), true
}
