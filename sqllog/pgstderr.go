package sqllog

import (
	"bufio"
	"bytes"
	"strings"
)

// pgLevels are the message levels of a PostgreSQL log line, as written
// after log_line_prefix (English lc_messages).
var pgLevels = map[string]bool{
	"LOG": true, "ERROR": true, "DETAIL": true, "STATEMENT": true, "HINT": true, "WARNING": true,
	"FATAL": true, "PANIC": true, "NOTICE": true, "INFO": true, "CONTEXT": true, "LOCATION": true,
	"QUERY": true, "DEBUG": true, "DEBUG1": true, "DEBUG2": true, "DEBUG3": true, "DEBUG4": true, "DEBUG5": true,
}

// pgLevel finds the level of a stderr log line: the word before the first
// ":  " (two spaces) that is a level. It returns the end of the prefix (the
// level's start) and the level.
func pgLevel(line []byte) (int, string, bool) {
	off := 0
	for {
		i := bytes.Index(line[off:], []byte(":  "))
		if i < 0 {
			return 0, "", false
		}
		i += off
		j := i
		for j > 0 && (line[j-1] >= 'A' && line[j-1] <= 'Z' || line[j-1] >= '0' && line[j-1] <= '9') {
			j--
		}
		if j < i && (j == 0 || line[j-1] == ' ' || line[j-1] == '\t' || line[j-1] == ']' || line[j-1] == ':') {
			if level, ok := pgLevelName(line[j:i]); ok { // pgLevels, without a string per line
				return j, level, true
			}
		}
		off = i + 1
	}
}

// pgMsg is one PostgreSQL log message, from any of the three formats;
// its text (message and DETAIL) goes to addPG beside it.
type pgMsg struct {
	line    int
	ts      int64
	hasTS   bool
	res     int32 // ts's resolution (entry.res)
	session string
	level   string
}

// pgMessages turns messages into entries: statements from "statement:"
// and "execute" messages (with or without a duration), parameters from
// their DETAIL, session ends from "disconnection:". A stderr DETAIL line
// belongs to the message just before it in the same session; csvlog and
// jsonlog carry it in the record.
type pgMessages struct {
	rs         *readState
	pending    entry // the statement waiting for its DETAIL lines
	hasPending bool
}

// pgText is a message's text as a reader holds it: bytes of a buffer
// the reader reuses (csvlog, stderr) or a string (jsonlog). addPG makes
// strings of only the parts an entry keeps (the statement, its
// parameters), so a message left out or the "statement: " before a
// statement is never copied.
type pgText interface{ ~string | ~[]byte }

// hasPrefixT is strings.HasPrefix for a pgText.
func hasPrefixT[T pgText](s T, prefix string) bool {
	return len(s) >= len(prefix) && string(s[:len(prefix)]) == prefix
}

// indexT is strings.Index for a pgText and a non-empty sep.
func indexT[T pgText](s T, sep string) int {
	for i := 0; i+len(sep) <= len(s); i++ {
		if s[i] == sep[0] && string(s[i:i+len(sep)]) == sep {
			return i
		}
	}
	return -1
}

// addPG adds message m, whose text is msg and whose DETAIL is detail
// (csvlog and jsonlog; empty for stderr, whose DETAIL is a message of its
// own). Neither is kept: what an entry keeps is copied.
func addPG[T pgText](pm *pgMessages, m pgMsg, msg, detail T) error {
	if m.level == "DETAIL" {
		if pm.hasPending && pm.pending.session == m.session {
			switch {
			case hasPrefixT(msg, "parameters: ") && !pm.pending.hasParams:
				pm.pending.params, pm.pending.hasParams = textOf(&pm.rs.text, msg), true
			case hasPrefixT(msg, "prepare: "):
				pm.pending.prepare = string(msg[len("prepare: "):])
			}
		}
		return nil
	}
	if err := pm.flush(); err != nil {
		return err
	}
	if m.level != "LOG" {
		return nil
	}
	if hasPrefixT(msg, "duration: ") {
		i := indexT(msg, " ms  ")
		if i < 0 {
			return nil // a duration alone: the statement was logged before
		}
		msg = msg[i+5:]
	}
	var sqlT T
	switch {
	case hasPrefixT(msg, "statement: "):
		sqlT = msg[len("statement: "):]
	case hasPrefixT(msg, "execute "):
		rest := msg[len("execute "):]
		if hasPrefixT(rest, "fetch from ") {
			return nil // more rows of a portal already counted
		}
		i := indexT(rest, ": ")
		if i < 0 {
			return nil
		}
		sqlT = rest[i+2:]
	case hasPrefixT(msg, "disconnection: "):
		return pm.rs.emit(entry{line: m.line, ts: m.ts, hasTS: m.hasTS, res: m.res, session: m.session, end: true})
	default:
		return nil
	}
	sql := textOf(&pm.rs.text, sqlT)
	if strings.TrimSpace(sql) == "" {
		return nil
	}
	pm.pending, pm.hasPending = entry{line: m.line, ts: m.ts, hasTS: m.hasTS, res: m.res, session: m.session, sql: sql}, true
	e := &pm.pending
	switch {
	case hasPrefixT(detail, "parameters: "):
		e.params, e.hasParams = textOf(&pm.rs.text, detail), true
	case hasPrefixT(detail, "prepare: "):
		e.prepare = string(detail[len("prepare: "):])
	}
	return nil
}

func (pm *pgMessages) flush() error {
	if !pm.hasPending {
		return nil
	}
	pm.hasPending = false
	return pm.rs.emit(pm.pending)
}

// readPGStderr reads a PostgreSQL stderr log. Each message starts with
// log_line_prefix and a level; continuation lines of a multi-line message
// start with a tab.
func readPGStderr(br *bufio.Reader, rs *readState) error {
	lr := &lineReader{r: br}
	pm := &pgMessages{rs: rs}
	var cur pgMsg
	hasCur := false
	var msg []byte
	ps := &prefixState{sessions: map[string]string{}}
	found := false
	noNL := false // the last line read has no newline after it
	finish := func() error {
		if !hasCur {
			return nil
		}
		hasCur = false
		return addPG(pm, cur, msg, []byte(nil))
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
		if len(line) > 0 && line[0] == '\t' {
			if hasCur {
				msg = append(msg, '\n')
				msg = append(msg, line[1:]...)
			}
			continue
		}
		if err := finish(); err != nil {
			return err
		}
		start, level, ok := pgLevel(line)
		if !ok {
			if len(bytes.TrimSpace(line)) > 0 {
				rs.skip(lr.n, "not a PostgreSQL log line (no level such as LOG: after the prefix): %.60q", line)
			}
			continue
		}
		found = true
		cur = pgMsg{line: lr.n, level: level}
		cur.ts, cur.res, cur.hasTS, cur.session = ps.parse(line[:start])
		hasCur = true
		msg = append(msg[:0], line[start+len(level)+3:]...)
	}
	if noNL && hasCur {
		rs.cutShort(cur.line)
		hasCur = false
	}
	if err := finish(); err != nil {
		return err
	}
	if !found {
		return errAt(rs.file, 1, errNoPG)
	}
	return pm.flush()
}

// tsRes is the resolution, in microseconds, of a timestamp written with
// digits digits of fractions of a second: 1e6 (whole seconds) for none,
// 1e3 for milliseconds, 1 for microseconds or finer (times are kept in
// microseconds). A statement stamped t ran in [t, t + resolution): rates
// count the resolution in the log's span (see agg.finish).
func tsRes(digits int) int32 {
	r := int32(1e6)
	for ; digits > 0 && r > 1; digits-- {
		r /= 10
	}
	return r
}

// timeRes is the resolution of a time prefixState.time read in n bytes
// ("2024-01-02 15:04:05" and any "." and digits after it).
func timeRes(n int) int32 {
	return tsRes(max(0, n-20))
}

// prefixState extracts the timestamp and session of a log_line_prefix.
type prefixState struct {
	sessions map[string]string // interned session names
	day      [10]byte
	dayUS    int64
}

// parse finds, in a prefix, a timestamp (%m, %t: "2024-01-02 15:04:05[.mmm]
// [TZ]", or %n: epoch seconds with milliseconds) and a session: %c (hex
// "5f1e2a3b.1a2b") when present, else the first bracketed number (%p in
// "[%p]") or "pid=N", and the timestamp's resolution (tsRes: %t whole
// seconds, %m and %n milliseconds). The time zone is ignored: rates need
// differences.
func (ps *prefixState) parse(p []byte) (int64, int32, bool, string) {
	var ts int64
	var res int32
	hasTS := false
	for i := 0; i+19 <= len(p); i++ {
		if isDigit(p[i]) && p[i+4] == '-' && p[i+7] == '-' && p[i+10] == ' ' && p[i+13] == ':' {
			if us, n, ok := ps.time(p[i:]); ok {
				ts, res, hasTS = us, timeRes(n), true
				break
			}
		}
	}
	if !hasTS && len(p) >= 14 && isDigit(p[0]) && p[10] == '.' {
		// %n: 1727863200.123
		var sec, ms int64
		ok := true
		for _, c := range p[:10] {
			ok = ok && isDigit(c)
			sec = sec*10 + int64(c-'0')
		}
		for _, c := range p[11:14] {
			ok = ok && isDigit(c)
			ms = ms*10 + int64(c-'0')
		}
		if ok {
			ts, res, hasTS = sec*1e6+ms*1e3, 1e3, true
		}
	}
	sess := sessionOf(p)
	s, ok := ps.sessions[string(sess)]
	if !ok {
		s = string(sess)
		if len(ps.sessions) > 1<<16 {
			clear(ps.sessions)
		}
		ps.sessions[s] = s
	}
	return ts, res, hasTS, s
}

// time parses "2006-01-02 15:04:05[.frac]" at the start of b.
func (ps *prefixState) time(b []byte) (int64, int, bool) {
	if [10]byte(b[:10]) != ps.day {
		y, ok1 := num(b[0:4])
		mo, ok2 := num(b[5:7])
		d, ok3 := num(b[8:10])
		if !ok1 || !ok2 || !ok3 || mo < 1 || mo > 12 || d < 1 || d > 31 {
			return 0, 0, false
		}
		ps.day = [10]byte(b[:10])
		ps.dayUS = daysFromCivil(y, mo, d) * 86400e6
	}
	h, ok1 := num(b[11:13])
	mi, ok2 := num(b[14:16])
	s, ok3 := num(b[17:19])
	if !ok1 || !ok2 || !ok3 || b[16] != ':' {
		return 0, 0, false
	}
	us := ps.dayUS + (h*3600+mi*60+s)*1e6
	n := 19
	if n < len(b) && b[n] == '.' {
		n++
		scale := int64(1e5)
		for n < len(b) && isDigit(b[n]) {
			us += int64(b[n]-'0') * scale
			scale /= 10
			n++
		}
	}
	return us, n, true
}

func num(b []byte) (int64, bool) {
	var n int64
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic
// Gregorian date (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// sessionOf returns the session part of a prefix: a %c session id, else
// the first bracketed number, else "pid=N", else "" (one session).
func sessionOf(p []byte) []byte {
	// %c: hex '.' hex, 8+ characters, as a word.
	for i := 0; i < len(p); i++ {
		if i > 0 && p[i-1] != ' ' && p[i-1] != '[' && p[i-1] != '=' && p[i-1] != ',' {
			continue
		}
		j := i
		for j < len(p) && isHex(p[j]) {
			j++
		}
		if j > i && j < len(p) && p[j] == '.' {
			k := j + 1
			for k < len(p) && isHex(p[k]) {
				k++
			}
			if k > j+1 && k-i >= 8 && (k == len(p) || p[k] == ' ' || p[k] == ']' || p[k] == ',' || p[k] == ':') && !isEpoch(p[i:k]) {
				return p[i:k]
			}
		}
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '[' {
			j := i + 1
			for j < len(p) && isDigit(p[j]) {
				j++
			}
			if j > i+1 && j < len(p) && (p[j] == ']' || p[j] == '-') {
				return p[i+1 : j]
			}
		}
	}
	if i := bytes.Index(p, []byte("pid=")); i >= 0 {
		j := i + 4
		for j < len(p) && isDigit(p[j]) {
			j++
		}
		return p[i+4 : j]
	}
	return nil
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' }

// isEpoch reports whether b looks like %n (seconds.milliseconds) rather
// than a %c session id.
func isEpoch(b []byte) bool {
	dot := bytes.IndexByte(b, '.')
	for _, c := range b {
		if c != '.' && !isDigit(c) {
			return false
		}
	}
	return dot == 10 && len(b) == 14
}
