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
	// PREPARE name: what follows (an optional type list, AS, the body)
	// is read by prepareBody, as type lists nest parentheses.
	prepareRe    = regexp.MustCompile(`(?is)^\s*PREPARE\s+("[^"]+"|[\pL_][\pL\pN_$]*)\s*`)
	executeRe    = regexp.MustCompile(`(?is)^\s*EXECUTE\s+("[^"]+"|[\pL_][\pL\pN_$]*)\s*(?:\((.*)\))?\s*;?\s*$`)
	deallocateRe = regexp.MustCompile(`(?is)^\s*DEALLOCATE\s+(?:PREPARE\s+)?("[^"]+"|[\pL_][\pL\pN_$]*)\s*;?\s*$`)
	discardRe    = regexp.MustCompile(`(?is)^\s*DISCARD\s+ALL\s*;?\s*$`)
	asRe         = regexp.MustCompile(`(?is)^AS\s+`)
)

// prepareBody returns the statement of a PREPARE after its name (rest:
// an optional parenthesized type list, AS, the statement).
func prepareBody(rest string) (string, bool) {
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "(") {
		depth := 0
		for i := 0; i < len(rest); i++ {
			switch rest[i] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 {
				rest = strings.TrimSpace(rest[i+1:])
				break
			}
		}
		if depth != 0 {
			return "", false
		}
	}
	m := asRe.FindStringIndex(rest)
	if m == nil {
		return "", false
	}
	body := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest[m[1]:]), ";"))
	return body, body != ""
}

// single reports whether sql is one statement: no semicolon outside
// quotes and parentheses except at the end (comments are stripped first).
// Lines with several statements are left as they are.
func single(sql string) bool {
	return len(splitTop(strings.TrimSuffix(strings.TrimSpace(sql), ";"), ';')) <= 1
}

// prepared is the prepared statements of each session, by name, and the
// EXECUTEs of statements the log never showed.
type prepared struct {
	sessions     map[string]map[string]string
	unknownN     int
	unknownFirst int // line of the first
}

// unknownWarning says how many EXECUTEs were left out, or "".
func (ps *prepared) unknownWarning() (int, string) {
	if ps == nil || ps.unknownN == 0 {
		return 0, ""
	}
	return ps.unknownFirst, fmt.Sprintf("%d EXECUTE statements run statements prepared before the log starts and not shown with them (a DETAIL prepare: line): they are left out", ps.unknownN)
}

// stripComments removes SQL comments (-- to the end of the line, /* */)
// outside quotes.
func stripComments(sql string) string {
	if !strings.Contains(sql, "--") && !strings.Contains(sql, "/*") {
		return sql
	}
	var b strings.Builder
	quote := byte(0)
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
			b.WriteByte(' ')
			continue
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
			b.WriteByte(' ')
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// rewrite applies e's PREPARE, EXECUTE or DEALLOCATE to ps and returns the
// entry to parse: an EXECUTE of a known statement becomes that statement
// with its arguments as parameters; a PREPARE or DEALLOCATE becomes an
// entry without SQL (nothing to score); anything else is unchanged.
func (ps *prepared) rewrite(e entry) entry {
	if e.end {
		delete(ps.sessions, e.session)
		return e
	}
	if !maybePrepared(e.sql) {
		return e
	}
	s := strings.TrimSpace(stripComments(e.sql))
	if len(s) < 7 || !single(s) {
		return e
	}
	switch strings.ToUpper(s[:3]) {
	case "PRE":
		m := prepareRe.FindStringSubmatchIndex(s)
		if m == nil {
			return e
		}
		body, ok := prepareBody(s[m[1]:])
		if !ok {
			return e
		}
		if e.weight > 0 {
			// pg_stat_statements: the row counts the statement's
			// executions, under the PREPARE's text.
			e.sql = body
			return e
		}
		if ps.sessions == nil {
			ps.sessions = map[string]map[string]string{}
		}
		if ps.sessions[e.session] == nil {
			ps.sessions[e.session] = map[string]string{}
		}
		// Kept past the entry's batch: copies of their own (textArena).
		ps.sessions[e.session][strings.Clone(prepName(s[m[2]:m[3]]))] = strings.Clone(body)
		e.sql = ""
	case "DIS":
		if discardRe.MatchString(s) {
			delete(ps.sessions, e.session)
			e.sql = ""
		}
	case "DEA":
		if m := deallocateRe.FindStringSubmatch(s); m != nil {
			if strings.EqualFold(m[1], "all") {
				delete(ps.sessions, e.session)
			} else {
				delete(ps.sessions[e.session], prepName(m[1]))
			}
			e.sql = ""
		}
	case "EXE":
		m := executeRe.FindStringSubmatch(s)
		if m == nil {
			return e
		}
		stmt, ok := ps.sessions[e.session][prepName(m[1])]
		if !ok && e.prepare != "" {
			// Prepared before the log starts: PostgreSQL logs the
			// PREPARE as the EXECUTE's DETAIL ("prepare: PREPARE ...").
			if pm := prepareRe.FindStringSubmatchIndex(e.prepare); pm != nil && prepName(e.prepare[pm[2]:pm[3]]) == prepName(m[1]) {
				stmt, ok = prepareBody(e.prepare[pm[1]:])
			}
		}
		if !ok {
			if ps.unknownN++; ps.unknownN == 1 {
				ps.unknownFirst = e.line
			}
			return e // unknown: left as it is (an EXECUTE binds nothing)
		}
		e.sql = stmt
		e.params, e.hasParams = executeParams(m[2]), true
	}
	return e
}

// maybePrepared reports whether sql may be a PREPARE, DISCARD, DEALLOCATE
// or EXECUTE, from its first three letters, so that the other statements
// (nearly all) skip stripComments and the split: when sql starts, after
// ASCII spaces, with three letters, the stripped text starts with them.
func maybePrepared(sql string) bool {
	i := 0
	for i < len(sql) && (sql[i] == ' ' || sql[i] >= '\t' && sql[i] <= '\r') {
		i++
	}
	if len(sql)-i < 3 {
		return true
	}
	w := sql[i : i+3]
	for k := 0; k < 3; k++ {
		if c := w[k] | 0x20; c < 'a' || c > 'z' {
			return true // a comment, a parenthesis, not ASCII: look closer
		}
	}
	return strings.EqualFold(w, "pre") || strings.EqualFold(w, "dis") || strings.EqualFold(w, "dea") || strings.EqualFold(w, "exe")
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
		case isQuoted(a):
			v = a // one quoted literal, '' escapes as in the log's DETAIL
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

// isQuoted reports whether a is exactly one single-quoted literal ('it”s'),
// not an expression of several ('a' || 'b').
func isQuoted(a string) bool {
	if len(a) < 2 || a[0] != '\'' || a[len(a)-1] != '\'' {
		return false
	}
	for i := 1; i < len(a)-1; i++ {
		if a[i] == '\'' {
			if a[i+1] != '\'' {
				return false
			}
			i++
		}
	}
	return true
}

// splitArgs splits a comma-separated argument list at the commas outside
// quotes and parentheses.
func splitArgs(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return splitTop(s, ',')
}

// splitTop splits s at the sep bytes outside quotes ('...' and "...") and
// parentheses.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, quote, start := 0, byte(0), 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
