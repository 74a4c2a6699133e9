package sqllog

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
)

// generalCommands are the command names of a general log line. Query and
// Execute (a prepared statement run, with its values in place) are
// statements; Connect and Quit start and end a session. Each maps to
// itself, so that a line's command is looked up without copying it.
var generalCommands = func() map[string]string {
	m := map[string]string{}
	for _, c := range []string{
		"Query", "Execute", "Prepare", "Close stmt", "Reset stmt", "Connect", "Quit", "Init DB",
		"Field List", "Long Data", "Fetch", "Ping", "Statistics", "Refresh", "Shutdown",
		"Processlist", "Change user", "Binlog Dump", "Kill", "Debug", "Set option", "Sleep",
		"Create DB", "Drop DB", "Register Slave", "Delayed insert", "Daemon", "Error", "Time",
		"Table Dump", "Connect Out", "Binlog Dump GTID", "Reset connection", "Bulk_execute",
	} {
		m[c] = c
	}
	return m
}()

type generalHead struct {
	ts    int64
	hasTS bool
	res   int32 // ts's resolution (entry.res)
	id    []byte
	cmd   string
	arg   []byte
}

// parseGeneralHead parses the first line of a general log entry:
// "[TIME]<white space>ID COMMAND\tARGUMENT", where TIME is MariaDB's
// "YYMMDD HH:MM:SS" (written when the second changes) or MySQL's
// "2024-01-02T15:04:05.123456Z".
func parseGeneralHead(l []byte) (generalHead, bool) {
	var h generalHead
	i := 0
	if len(l) > 0 && isDigit(l[0]) {
		switch {
		case len(l) >= 20 && l[4] == '-' && l[10] == 'T':
			var ps prefixState
			// A copy of the time's bytes only (a zone and fraction
			// are at most 32 long), not of the whole line.
			var tb [64]byte
			l2 := tb[:copy(tb[:], l)]
			l2[10] = ' '
			us, n, ok := ps.time(l2)
			if !ok {
				return h, false
			}
			for n < len(l) && l[n] != ' ' && l[n] != '\t' { // zone
				n++
			}
			h.ts, h.hasTS, h.res, i = us, true, timeRes(n), n
		case len(l) >= 15 && l[6] == ' ':
			y, ok1 := num(l[0:2])
			mo, ok2 := num(l[2:4])
			d, ok3 := num(l[4:6])
			j := 7
			if l[j] == ' ' {
				j++
			}
			hEnd := bytes.IndexByte(l[j:], ':')
			if !ok1 || !ok2 || !ok3 || hEnd < 1 || hEnd > 2 || j+hEnd+6 > len(l) {
				return h, false
			}
			hh, ok4 := num(l[j : j+hEnd])
			k := j + hEnd
			mi, ok5 := num(l[k+1 : k+3])
			ss, ok6 := num(l[k+4 : k+6])
			if !ok4 || !ok5 || !ok6 || l[k+3] != ':' || mo < 1 || mo > 12 || d < 1 || d > 31 {
				return h, false
			}
			h.ts = (daysFromCivil(2000+y, mo, d)*86400 + hh*3600 + mi*60 + ss) * 1e6
			h.hasTS, h.res, i = true, 1e6, k+6
		default:
			return h, false
		}
	}
	j := i
	for j < len(l) && (l[j] == ' ' || l[j] == '\t') {
		j++
	}
	if j == i || j == len(l) {
		return h, false
	}
	k := j
	for k < len(l) && isDigit(l[k]) {
		k++
	}
	if k == j || k >= len(l) || l[k] != ' ' {
		return h, false
	}
	h.id = l[j:k]
	rest := l[k+1:]
	t := bytes.IndexByte(rest, '\t')
	cmd := rest
	if t >= 0 {
		cmd, h.arg = rest[:t], rest[t+1:]
	}
	c, ok := generalCommands[string(cmd)]
	if !ok {
		return h, false
	}
	h.cmd = c
	return h, true
}

func isBanner(l []byte) bool {
	return bytes.HasSuffix(l, []byte("started with:")) && bytes.Contains(l, []byte(", Version: ")) ||
		bytes.HasPrefix(l, []byte("Tcp port: ")) ||
		bytes.HasPrefix(l, []byte("Time ")) && bytes.Contains(l, []byte("Id Command")) ||
		bytes.HasPrefix(l, []byte("Time\t")) && bytes.Contains(l, []byte("Id Command"))
}

// threadIDs interns the thread ids of a general or slow log: the ones
// written as small decimal numbers (a server's connection ids, counted
// from 1) by their value, in an array; others in a map. Both are bounded
// (interning only: a string dropped is made again).
type threadIDs struct {
	small []string // by value, below maxSmallThreadID
	other map[string]string
}

const maxSmallThreadID = 1 << 16

// intern returns id as a string, the same string for the same id.
func (t *threadIDs) intern(id []byte) string {
	if n, ok := smallThreadID(id); ok {
		if n >= len(t.small) {
			t.small = append(t.small, make([]string, max(n+1, 2*len(t.small), 64)-len(t.small))...)
		}
		s := t.small[n]
		if s == "" {
			s = string(id)
			t.small[n] = s
		}
		return s
	}
	s, ok := t.other[string(id)]
	if !ok {
		if t.other == nil || len(t.other) > 1<<16 {
			t.other = map[string]string{}
		}
		s = string(id)
		t.other[s] = s
	}
	return s
}

// smallThreadID returns id's value when it is written plainly (digits, no
// leading zero) and below maxSmallThreadID.
func smallThreadID(id []byte) (int, bool) {
	if len(id) == 0 || len(id) > 5 || id[0] == '0' {
		return 0, false
	}
	n := 0
	for _, c := range id {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n < maxSmallThreadID
}

// readMySQLGeneral reads a MySQL or MariaDB general query log. A line that
// does not start an entry continues the statement before it.
func readMySQLGeneral(br *bufio.Reader, rs *readState) error {
	lr := &lineReader{r: br}
	// The statement being read: a value, not a pointer, so that no entry
	// is allocated per statement. Its text is copied once from its first
	// line; a statement that goes on over more lines is put together in
	// sql (cont).
	var cur entry
	inCur, cont := false, false
	var sql []byte
	var ts int64
	var res int32
	hasTS := false
	var sessions threadIDs
	found := false
	noNL := false  // the last line read has no newline after it
	other := false // the current entry is a command we skip: its continuation lines too
	finish := func() error {
		if !inCur {
			return nil
		}
		inCur = false
		if cont {
			cur.sql, cont = rs.text.string(sql), false
		}
		return rs.emit(cur)
	}
	for {
		line, ok, err := lr.next()
		if err != nil {
			return errAt(rs.file, lr.n+1, err)
		}
		if !ok {
			break
		}
		noNL = lr.noNL
		rs.line = lr.n
		h, ok := parseGeneralHead(line)
		if !ok {
			if isBanner(line) {
				if err := finish(); err != nil {
					return err
				}
				continue
			}
			if inCur {
				if !cont {
					sql, cont = append(sql[:0], cur.sql...), true
				}
				sql = append(sql, '\n')
				sql = append(sql, line...)
			} else if !other && len(bytes.TrimSpace(line)) > 0 {
				rs.skip(lr.n, "not a general log line: %.60q", line)
			}
			continue
		}
		found = true
		if err := finish(); err != nil {
			return err
		}
		if h.hasTS {
			ts, res, hasTS = h.ts, h.res, true
		}
		s := sessions.intern(h.id)
		other = h.cmd != "Query" && h.cmd != "Execute"
		switch h.cmd {
		case "Query", "Execute":
			cur, inCur = entry{line: lr.n, ts: ts, hasTS: hasTS, res: res, session: s, sql: rs.text.string(h.arg)}, true
		case "Connect", "Quit", "Change user", "Reset connection":
			if err := rs.emit(entry{line: lr.n, ts: ts, hasTS: hasTS, res: res, session: s, end: true}); err != nil {
				return err
			}
		}
	}
	if noNL && inCur {
		rs.cutShort(cur.line)
		inCur, cont = false, false
	}
	if err := finish(); err != nil {
		return err
	}
	if !found {
		return errAt(rs.file, 1, errNoGeneral)
	}
	return nil
}

// readMySQLSlow reads a MySQL or MariaDB slow query log (long_query_time =
// 0 logs every statement): "# Time:", "# User@Host:", "# Thread_id:" (or
// "Id:" on the User@Host line), then "SET timestamp=N;" and the statement.
func readMySQLSlow(br *bufio.Reader, rs *readState) error {
	lr := &lineReader{r: br}
	// The statement being read: copied once from its first line; one
	// that goes on over more lines is put together in sql (cont).
	var cur string
	var sql []byte
	inStmt, cont := false, false
	var ts int64
	var res int32
	hasTS := false
	session := ""
	startLine := 0
	found := false
	var sessions threadIDs
	var timeBuf []byte
	// The last "# Time:" value and what it gave: the same value (logs
	// repeat it for every statement of a second) is not parsed again.
	var lastTime []byte
	var lastTS int64
	var lastRes int32
	lastOK, hasLast := false, false
	finish := func() error {
		if !inStmt {
			return nil
		}
		inStmt = false
		s := cur
		if cont {
			s, cont = rs.text.string(sql), false
		}
		s = strings.TrimSpace(s)
		if s == "" {
			return nil
		}
		return rs.emit(entry{line: startLine, ts: ts, hasTS: hasTS, res: res, session: session, sql: s})
	}
	// threadID interns the thread id at the start of b: its digits, as
	// servers write it; else the word as written, with a warning (once)
	// so that sessions stay apart (an empty id would put every statement
	// in one session, and its transactions across each other).
	oddID := false
	threadID := func(b []byte) string {
		if d := digitsAt(b); len(d) > 0 {
			return sessions.intern(d)
		}
		word := b
		if k := bytes.IndexAny(b, " \t\r"); k >= 0 {
			word = b[:k]
		}
		if !oddID {
			oddID = true
			rs.warn = append(rs.warn, shardkey.Errorf(rs.file, lr.n, "Thread_id", "%.40q is not a number (MySQL and MariaDB write the connection id): sessions are told apart by the ids as written", word))
		}
		return sessions.intern(word)
	}
	noNL := false // the last line read has no newline after it
	for {
		line, ok, err := lr.next()
		if err != nil {
			return errAt(rs.file, lr.n+1, err)
		}
		if !ok {
			break
		}
		noNL = lr.noNL
		rs.line = lr.n
		switch {
		case len(line) >= 2 && line[0] == '#' && line[1] == ' ':
			if err := finish(); err != nil {
				return err
			}
			found = true
			if v, ok := bytes.CutPrefix(line, []byte("# Time: ")); ok {
				v = bytes.TrimSpace(v)
				if !hasLast || !bytes.Equal(v, lastTime) {
					// A copy: appending to v would write over the
					// next line in the reader's buffer.
					head := append(append(timeBuf[:0], v...), " 1 Query"...)
					timeBuf = head
					h, ok := parseGeneralHead(head)
					lastOK, lastTS, lastRes = ok && h.hasTS, h.ts, h.res
					lastTime, hasLast = append(lastTime[:0], v...), true
				}
				if lastOK {
					ts, res, hasTS = lastTS, lastRes, true
				}
			}
			if i := bytes.Index(line, []byte("Thread_id: ")); i >= 0 {
				session = threadID(line[i+len("Thread_id: "):])
			}
			if bytes.HasPrefix(line, []byte("# User@Host: ")) {
				if i := bytes.Index(line, []byte("Id: ")); i >= 0 {
					session = threadID(bytes.TrimLeft(line[i+4:], " "))
				}
			}
		case isBanner(line):
			if err := finish(); err != nil {
				return err
			}
		case !inStmt && bytes.HasPrefix(line, []byte("SET timestamp=")):
			v := bytes.TrimSuffix(line[len("SET timestamp="):], []byte(";"))
			if n, ok := epochMicros(v); ok {
				ts, res, hasTS = n, epochRes(v), true
			}
		case !inStmt && (bytes.HasPrefix(line, []byte("use ")) || bytes.HasPrefix(line, []byte("USE "))) && bytes.HasSuffix(line, []byte(";")):
		default:
			if !inStmt {
				if len(bytes.TrimSpace(line)) == 0 {
					continue
				}
				if !found {
					rs.skip(lr.n, "not a slow log line: %.60q", line)
					continue
				}
				startLine = lr.n
				cur, inStmt = rs.text.string(line), true
				continue
			}
			if !cont {
				sql, cont = append(sql[:0], cur...), true
			}
			sql = append(sql, '\n')
			sql = append(sql, line...)
		}
	}
	if noNL && inStmt {
		rs.cutShort(startLine)
		inStmt, cont = false, false
	}
	if err := finish(); err != nil {
		return err
	}
	if !found {
		return errAt(rs.file, 1, errNoSlow)
	}
	return nil
}

// epochMicros reads "SET timestamp=" seconds as microseconds, as
// int64(strconv.ParseFloat(v)*1e6) does: up to 10 digits alone are read
// as an integer when the product is at most 2^53 (then the float64
// product is exact).
func epochMicros(v []byte) (int64, bool) {
	if len(v) > 0 && len(v) <= 10 {
		var n int64
		digits := true
		for _, c := range v {
			if !isDigit(c) {
				digits = false
				break
			}
			n = n*10 + int64(c-'0')
		}
		if digits && n <= 9007199254 { // 2^53 / 1e6
			return n * 1e6, true
		}
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return 0, false
	}
	return int64(f * 1e6), true
}

// epochRes is the resolution (tsRes) of "SET timestamp=" seconds v: by
// its digits after a decimal point; whole seconds without one.
func epochRes(v []byte) int32 {
	i := bytes.IndexByte(v, '.')
	if i < 0 {
		return tsRes(0)
	}
	return tsRes(len(digitsAt(v[i+1:])))
}

func digitsAt(b []byte) []byte {
	i := 0
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return b[:i]
}
