package sqllog

import (
	"hash/maphash"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/numfmt"
)

// MaxListValues bounds the values of one IN list of a logged statement.
// A longer list of literals (id IN (1, 2, ..., 1500000), or of row values,
// (a, b) IN ((1, 2), ...)) is cut to MaxListValues of its values before
// the statement is parsed: the real parsers build a syntax tree of every
// value (about 500 bytes each), so a 10 MB statement would take more
// memory than all the samples of a log (issue 15: 512 MB at most).
//
// The values kept are spread evenly over the list, the first and the last
// among them (value j*(K-1)/(MaxListValues-1) of the K, for j = 0, 1, ...):
// a uniform choice when the list is in no order, its whole span when it
// is sorted. The statement is routed on them, so its shards touched are
// those of the values kept: a lower bound of the whole list's, and the
// whole list's when the values kept reach every shard. Under a hash key of
// S shards, 4,096 values miss some shard with probability at most
// S*(1-1/S)^4096: about 10^-26 for 64 shards, 3*10^-5 for 256 shards; the
// bound matters only for more shards, or a range key whose ranges fall
// between two kept values of a sorted list. A statement is cut once per
// list; a warning names the first statement of each shape that was cut,
// with how many were and the longest list (see listCuts).
//
// Multi-row INSERT ... VALUES lists are not cut: each row is an insert
// instance (riding in the statement's one request), and cutting rows
// would change the count of rows inserted.
const MaxListValues = 4096

// cutLists returns sql with each IN list of more than limit literal values
// cut to limit values spread evenly over it, the number of lists cut and the
// length of the longest. It returns sql itself (no copy) when no list is
// longer than limit. Statements shorter than 2*limit bytes hold no such list
// (a value and its comma take two bytes at least) and are not scanned.
//
// The scan knows strings, quoted identifiers, comments and PostgreSQL's
// dollar quotes, so an "IN (" inside them is not a list. A list is cut
// only when every value is a literal (a number, with its sign, a string,
// NULL, TRUE, FALSE) or a parenthesised row of literals, with nothing but
// white space around them; any other list is left as it is.
func cutLists(sql string, d Dialect, limit int) (out string, cut, longest int) {
	if len(sql) < 2*limit || limit < 2 {
		return sql, 0, 0
	}
	var b strings.Builder
	last := 0       // sql[last:] is not yet in b
	inWord := false // the previous token (white space aside) is the word IN
	i := 0
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '\'' || c == '"' && d == MySQL:
			_, n, ok := readString(sql[i:], c, d == MySQL)
			if !ok {
				i = len(sql)
				continue
			}
			i += n
		case c == '"' || c == '`':
			i = skipQuoted(sql, i)
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-', c == '#' && d == MySQL:
			if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(sql)
			}
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			i = skipBlockComment(sql, i, d)
		case c == '$' && d == Postgres:
			i = skipDollar(sql, i)
		case isIdentStart(c):
			j := i + 1
			for j < len(sql) && isIdent(sql[j]) {
				j++
			}
			if d == Postgres && j == i+1 && c|0x20 == 'e' && j < len(sql) && sql[j] == '\'' {
				// E'...': backslash escapes.
				if _, n, ok := readString(sql[j:], '\'', true); ok {
					j += n
				}
				i = j
				break
			}
			word := j == i+2 && c|0x20 == 'i' && sql[i+1]|0x20 == 'n'
			i = j
			inWord = word
			continue
		case c == '(' && inWord:
			n, end, ok := listItems(sql, i, d, nil)
			if ok && n > limit {
				if b.Len() == 0 {
					b.Grow(i - last + limit*16)
				}
				b.WriteString(sql[last : i+1])
				next, j := 0, 0 // the index of the next value kept, and of j
				listItems(sql, i, d, func(k, s, e int) {
					if k != next {
						return
					}
					if j > 0 {
						b.WriteString(", ")
					}
					b.WriteString(sql[s:e])
					j++
					if j < limit {
						next = j * (n - 1) / (limit - 1)
					} else {
						next = -1
					}
				})
				b.WriteByte(')')
				last = end
				cut++
				longest = max(longest, n)
			}
			if ok {
				i = end
			} else {
				i++
			}
		default:
			i++
		}
		inWord = false
	}
	if cut == 0 {
		return sql, 0, 0
	}
	b.WriteString(sql[last:])
	return b.String(), cut, longest
}

// listItems reads the parenthesised list at sql[open] (a '('): values
// that are literals or rows of literals, separated by commas. It calls fn,
// when not nil, with each value's index and span, and returns the number
// of values and the end of the list (after its ')'); ok is false for
// anything else.
func listItems(sql string, open int, d Dialect, fn func(k, start, end int)) (n, end int, ok bool) {
	i := open + 1
	for {
		i = skipSpace(sql, i)
		start := i
		if i < len(sql) && sql[i] == '(' {
			i++
			for {
				i = skipSpace(sql, i)
				if i = literalEnd(sql, i, d); i < 0 {
					return 0, 0, false
				}
				i = skipSpace(sql, i)
				if i < len(sql) && sql[i] == ',' {
					i++
					continue
				}
				if i < len(sql) && sql[i] == ')' {
					i++
					break
				}
				return 0, 0, false
			}
		} else if i = literalEnd(sql, i, d); i < 0 {
			return 0, 0, false
		}
		if fn != nil {
			fn(n, start, i)
		}
		n++
		i = skipSpace(sql, i)
		if i < len(sql) && sql[i] == ',' {
			i++
			continue
		}
		if i < len(sql) && sql[i] == ')' {
			return n, i + 1, true
		}
		return 0, 0, false
	}
}

// literalEnd returns the end of the literal at sql[i], or -1 when there is
// none: a number (with a sign), a string (PostgreSQL's E” and N”
// prefixes included), NULL, TRUE or FALSE.
func literalEnd(sql string, i int, d Dialect) int {
	if i >= len(sql) {
		return -1
	}
	c := sql[i]
	j := i
	if c == '-' || c == '+' {
		j++
		if j >= len(sql) {
			return -1
		}
		c = sql[j]
	}
	switch {
	case c >= '0' && c <= '9' || c == '.' && j+1 < len(sql) && sql[j+1] >= '0' && sql[j+1] <= '9':
		k := scanNumber(sql, j)
		if k < len(sql) && isIdent(sql[k]) {
			return -1 // 0x1F, 1abc: not a plain number
		}
		return k
	case j > i:
		return -1 // a sign before something else
	case c == '\'' || c == '"' && d == MySQL:
		if _, n, ok := readString(sql[i:], c, d == MySQL); ok {
			return i + n
		}
		return -1
	case isIdentStart(c):
		k := i + 1
		for k < len(sql) && isIdent(sql[k]) {
			k++
		}
		if k < len(sql) && sql[k] == '\'' && k == i+1 && (c|0x20 == 'e' && d == Postgres || c|0x20 == 'n') {
			if _, n, ok := readString(sql[k:], '\'', c|0x20 == 'e' || d == MySQL); ok {
				return k + n
			}
			return -1
		}
		switch w := sql[i:k]; {
		case strings.EqualFold(w, "null"), strings.EqualFold(w, "true"), strings.EqualFold(w, "false"):
			return k
		}
	}
	return -1
}

func skipSpace(sql string, i int) int {
	for i < len(sql) && (sql[i] == ' ' || sql[i] == '\t' || sql[i] == '\n' || sql[i] == '\r' || sql[i] == '\f' || sql[i] == '\v') {
		i++
	}
	return i
}

// skipQuoted returns the end of the quoted identifier at sql[i] (its
// quote doubled inside).
func skipQuoted(sql string, i int) int {
	q := sql[i]
	j := i + 1
	for j < len(sql) {
		if sql[j] == q {
			if j+1 < len(sql) && sql[j+1] == q {
				j += 2
				continue
			}
			return j + 1
		}
		j++
	}
	return len(sql)
}

// skipBlockComment returns the end of the comment /* ... */ at sql[i]
// (nested in PostgreSQL).
func skipBlockComment(sql string, i int, d Dialect) int {
	depth := 0
	j := i
	for j < len(sql) {
		if j+1 < len(sql) && sql[j] == '/' && sql[j+1] == '*' {
			depth++
			j += 2
			continue
		}
		if j+1 < len(sql) && sql[j] == '*' && sql[j+1] == '/' {
			depth--
			j += 2
			if depth == 0 || d == MySQL {
				return j
			}
			continue
		}
		j++
	}
	return len(sql)
}

// skipDollar returns the end of a PostgreSQL parameter ($1) or dollar
// quote ($tag$ ... $tag$) at sql[i], or i+1 for a lone '$'.
func skipDollar(sql string, i int) int {
	j := i + 1
	for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
		j++
	}
	if j > i+1 {
		return j
	}
	for j < len(sql) && (isIdentStart(sql[j]) || isDigit(sql[j])) {
		j++
	}
	if j < len(sql) && sql[j] == '$' {
		tag := sql[i : j+1]
		if end := strings.Index(sql[j+1:], tag); end >= 0 {
			return j + 1 + end + len(tag)
		}
		return len(sql)
	}
	return i + 1
}

// listCuts records the statements whose IN lists were cut, by shape, for
// one warning per shape. At most maxCutShapes shapes are listed; further
// ones are counted.
type listCuts struct {
	seed   maphash.Seed
	shapes map[uint64]*cutShape
	order  []*cutShape
	more   int // statements cut whose shapes are not listed
	buf    []byte
}

type cutShape struct {
	file          string
	line          int
	stmts         int
	longest, cuts int // the longest list cut, lists cut in all
}

const maxCutShapes = 100

// note records that a statement (as cut: sql) at file:line had lists cut,
// the longest of longest values.
func (lc *listCuts) note(file string, line int, sql string, d Dialect, lists, longest int) {
	if lc.shapes == nil {
		lc.seed = maphash.MakeSeed()
		lc.shapes = map[uint64]*cutShape{}
	}
	lc.buf, _ = normalize(lc.buf, sql, d)
	h := maphash.Bytes(lc.seed, lc.buf)
	s := lc.shapes[h]
	if s == nil {
		if len(lc.order) >= maxCutShapes {
			lc.more++
			return
		}
		s = &cutShape{file: file, line: line}
		lc.shapes[h] = s
		lc.order = append(lc.order, s)
	}
	s.stmts++
	s.cuts += lists
	s.longest = max(s.longest, longest)
}

// warnings returns one warning per shape cut, at its first statement;
// file is the log's name, for the shapes not listed.
func (lc *listCuts) warnings(file string) []error {
	var out []error
	for _, s := range lc.order {
		what := "an IN list of " + numfmt.Commas(int64(s.longest)) + " values was cut to " + numfmt.Commas(MaxListValues) + " of them"
		if s.stmts > 1 {
			what = "IN lists of up to " + numfmt.Commas(int64(s.longest)) + " values, in " + numfmt.Commas(int64(s.stmts)) + " statements of this shape from this one on, were cut to " + numfmt.Commas(MaxListValues) + " values each"
		} else if s.cuts > 1 {
			what = numfmt.Commas(int64(s.cuts)) + " IN lists of up to " + numfmt.Commas(int64(s.longest)) + " values were cut to " + numfmt.Commas(MaxListValues) + " values each"
		}
		out = append(out, shardkey.Errorf(s.file, s.line, "", "%s, spread evenly over the list, before parsing (sqllog.MaxListValues bounds the memory a statement takes): the statement is routed on the values kept, so the shards it touches are a lower bound, the whole list's when the values kept reach every shard (almost surely under a hash key of up to 256 shards), and the key statistics count the values kept", what))
	}
	if lc.more > 0 {
		out = append(out, shardkey.Errorf(file, 0, "", "%s more statements, of other shapes than the %d above, had IN lists cut to %s values the same way", numfmt.Commas(int64(lc.more)), maxCutShapes, numfmt.Commas(MaxListValues)))
	}
	return out
}
