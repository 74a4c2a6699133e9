package sqllog

import (
	"fmt"
	"regexp"
	"strings"
)

// SQL-level prepared statements (PostgreSQL): PREPARE name [(types)] AS
// statement stores a statement in the session, EXECUTE name(args) runs it,
// DEALLOCATE [PREPARE] name|ALL drops it. Logs show only the EXECUTE, so the
// reader keeps each session's prepared statements and rewrites an EXECUTE
// into the statement with its arguments as bind parameters, the form a
// protocol-level execute is logged in (execute <name>: ... DETAIL:
// parameters: $1 = '...'). Protocol-level prepared statements need none of
// this: their text is logged with every execution.

var (
	prepareRe    = regexp.MustCompile(`(?is)^\s*PREPARE\s+("[^"]+"|[\pL_][\pL\pN_$]*)\s*(?:\([^)]*\))?\s+AS\s+(.+?)\s*;?\s*$`)
	executeRe    = regexp.MustCompile(`(?is)^\s*EXECUTE\s+("[^"]+"|[\pL_][\pL\pN_$]*)\s*(?:\((.*)\))?\s*;?\s*$`)
	deallocateRe = regexp.MustCompile(`(?is)^\s*DEALLOCATE\s+(?:PREPARE\s+)?("[^"]+"|[\pL_][\pL\pN_$]*)\s*;?\s*$`)
)

// prepared is the prepared statements of each session, by name.
type prepared map[string]map[string]string

// rewrite applies e's PREPARE, EXECUTE or DEALLOCATE to ps and returns the
// entry to parse: an EXECUTE of a known statement becomes that statement
// with its arguments as parameters; a PREPARE or DEALLOCATE becomes an
// entry without SQL (nothing to score); anything else is unchanged.
func (ps prepared) rewrite(e entry) entry {
	if e.end {
		delete(ps, e.session)
		return e
	}
	s := strings.TrimSpace(e.sql)
	if len(s) < 7 {
		return e
	}
	switch strings.ToUpper(s[:3]) {
	case "PRE":
		if m := prepareRe.FindStringSubmatch(s); m != nil {
			if ps[e.session] == nil {
				ps[e.session] = map[string]string{}
			}
			ps[e.session][prepName(m[1])] = m[2]
			e.sql = ""
		}
	case "DEA":
		if m := deallocateRe.FindStringSubmatch(s); m != nil {
			if strings.EqualFold(m[1], "all") {
				delete(ps, e.session)
			} else {
				delete(ps[e.session], prepName(m[1]))
			}
			e.sql = ""
		}
	case "EXE":
		m := executeRe.FindStringSubmatch(s)
		if m == nil {
			return e
		}
		stmt, ok := ps[e.session][prepName(m[1])]
		if !ok {
			return e // prepared before the log starts: left as it is
		}
		e.sql = stmt
		e.params, e.hasParams = executeParams(m[2]), true
	}
	return e
}

// prepName folds an unquoted name to lower case, as PostgreSQL does.
func prepName(n string) string {
	if strings.HasPrefix(n, `"`) {
		return strings.Trim(n, `"`)
	}
	return strings.ToLower(n)
}

// executeParams turns EXECUTE's arguments into a DETAIL "parameters:" list
// (see pgParams): string and number literals as their values, NULL as
// NULL, a literal with a cast ('5'::int) as the literal; an argument that
// is an expression has no value ($n left out, so it binds nothing known).
func executeParams(args string) string {
	var b strings.Builder
	b.WriteString("parameters: ")
	n := 0
	for i, a := range splitArgs(args) {
		a = strings.TrimSpace(a)
		if k := strings.Index(a, "::"); k > 0 && !strings.Contains(a[k:], "'") {
			a = strings.TrimSpace(a[:k])
		}
		var v string
		switch {
		case strings.EqualFold(a, "null"):
			v = "NULL"
		case len(a) >= 2 && a[0] == '\'' && a[len(a)-1] == '\'':
			v = a // already quoted, '' escapes as in the log's DETAIL
		case isNumber(a):
			v = "'" + a + "'"
		default:
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d = %s", i+1, v)
		n++
	}
	return b.String()
}

// splitArgs splits a comma-separated argument list at the commas outside
// quotes and parentheses.
func splitArgs(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []string
	depth, quote, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote:
			if c == '\'' {
				quote = false
			}
		case c == '\'':
			quote = true
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
