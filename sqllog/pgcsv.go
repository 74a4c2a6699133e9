package sqllog

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
)

var errNoPG = errors.New("no PostgreSQL log lines found (want log_line_prefix then a level such as LOG:, e.g. '2024-01-02 15:04:05.123 UTC [4242] LOG:  statement: ...')")

func errAt(file string, line int, err error) error {
	var ie *shardkey.InputError
	if errors.As(err, &ie) {
		return err
	}
	return shardkey.Errorf(file, line, "", "%v", err)
}

// csvLevel reports whether s is the first line of a csvlog record: a
// timestamp, then error_severity as the twelfth field.
func csvLevel(s string) bool {
	r := csv.NewReader(strings.NewReader(s))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	rec, err := r.Read()
	if err != nil && len(rec) == 0 {
		return false
	}
	return len(rec) >= 12 && pgLevels[rec[11]]
}

// csvlog fields (PostgreSQL 9.0 to 17; later versions add fields at the end).
const (
	csvTime     = 0
	csvPid      = 3
	csvSession  = 5
	csvSeverity = 11
	csvMessage  = 13
	csvDetail   = 14
	csvMin      = 22
)

// readRecord reads the next CSV record and its line, recording the line in
// rs; errors name the file and line (a parse error the record's first
// line, and the line encoding/csv found it on when another), a parse
// error prefixed with what. It
// returns io.EOF at the end. The caller resets rs.bound's record count
// (BoundedReader.ResetRecord) at the start of each record. lines is the
// number of lines before r's first (r counts from 1 at its first line).
func readRecord(r *csv.Reader, rs *readState, what string, lines int) ([]string, int, error) {
	rec, err := r.Read()
	if err == io.EOF {
		return nil, 0, err
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) && !errors.As(err, new(*shardkey.InputError)) {
			// The record's first line, not the one encoding/csv gave up
			// on (after an open quote, that may be the end of the file).
			where := ""
			if pe.Line != pe.StartLine {
				where = fmt.Sprintf(" (found on line %d)", lines+pe.Line)
			}
			return nil, 0, shardkey.Errorf(rs.file, lines+pe.StartLine, "", "%s%v%s", what, pe.Err, where)
		}
		return nil, 0, errAt(rs.file, rs.line+1, err)
	}
	line, _ := r.FieldPos(0)
	line += lines
	rs.line = line
	return rec, line, nil
}

// readPGCSV reads a PostgreSQL csvlog file. Records whole in br's
// buffer are read there by scanCSVRecord; any other (one that goes on
// past the buffered bytes, one at the end of the input without a
// newline, one encoding/csv refuses) is read by encoding/csv from br,
// which then reads the next bytes into the buffer. So br reads its input
// (and meets its errors and bounds) where it would if encoding/csv read
// every record, and what is read, and every error, are encoding/csv's.
func readPGCSV(br *bufio.Reader, rs *readState) error {
	if br.Size() < 4096 {
		// encoding/csv reads br itself only when it has at least its
		// own buffer's size (bufio.NewReader).
		br = bufio.NewReaderSize(br, 4096)
	}
	c := &csvlogReader{rs: rs, pm: &pgMessages{rs: rs}, ps: &prefixState{sessions: map[string]string{}}}
	var r csvFields
	var scratch []byte
	lines := 0 // lines read before the buffered bytes
	for {
		b, _ := br.Peek(br.Buffered()) // no read: what is buffered
		start, n, st := scanCSVRecord(b, &scratch, &r)
		if st != csvOK {
			// encoding/csv reads this record from br (which it uses
			// as it is: a *bufio.Reader of at least 4 KiB), no further.
			k, err := c.readStd(csv.NewReader(br), br, lines, false)
			if err != nil {
				return err
			}
			if k == 0 {
				break // the end
			}
			lines += k
			continue
		}
		if rs.bound != nil {
			rs.bound.ResetRecord()
		}
		line := lines + bytes.Count(b[:start], []byte{'\n'}) + 1
		lines += bytes.Count(b[:n], []byte{'\n'})
		err := c.record(line, r.n, &r.f)
		br.Discard(n)
		if err != nil {
			return err
		}
	}
	return c.pm.flush()
}

// csvlogReader turns csvlog records into messages.
type csvlogReader struct {
	rs *readState
	pm *pgMessages
	ps *prefixState
}

// readStd reads records with encoding/csv: r reads br; lines is the
// line before r's first; all reads them to the end of r, else one record
// is read. It returns the lines the records read end on (after lines), 0
// at the end of r. A final record cut short (see cutRecord) is left out
// with a warning, as the end of r.
func (c *csvlogReader) readStd(r *csv.Reader, br *bufio.Reader, lines int, all bool) (int, error) {
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	var f [6][]byte
	end := 0
	for {
		if c.rs.bound != nil {
			c.rs.bound.ResetRecord()
		}
		if rest, ok := restOfInput(br); ok {
			if line, why, cut := c.cutRecord(rest); cut {
				line += lines + end
				c.rs.line = line
				c.rs.warn = append(c.rs.warn, shardkey.Errorf(c.rs.file, line, "", "the log ends inside this record (%s; a file copied while it was being written?): the record is left out", why))
				_, _ = br.Discard(len(rest))
				if all {
					return 0, c.pm.flush()
				}
				return 0, nil
			}
		}
		rec, line, err := readRecord(r, c.rs, "not a csvlog record: ", lines)
		if err == io.EOF {
			if all {
				return 0, c.pm.flush()
			}
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		for i, slot := range csvWant {
			if slot >= 0 && i < len(rec) {
				f[slot] = []byte(rec[i])
			}
		}
		// The record ends on the line its last field ends on.
		last := len(rec) - 1
		l, _ := r.FieldPos(last)
		end = l + strings.Count(rec[last], "\n")
		if err := c.record(line, len(rec), &f); err != nil {
			return 0, err
		}
		if !all {
			return end, nil
		}
	}
}

// restOfInput returns what is left of br's input when all of it is in
// br's buffer (the input ends there), else false. It may fill the buffer;
// a read error other than the end is left for the next read to meet
// (the readers under br return it again).
func restOfInput(br *bufio.Reader) ([]byte, bool) {
	n := br.Buffered()
	if n >= br.Size() {
		return nil, false
	}
	b, err := br.Peek(n + 1)
	if err != io.EOF {
		return nil, false
	}
	return b, true
}

// cutRecord reports whether rest, all that is left of a csvlog file,
// is a last record cut short: a log copied while PostgreSQL was writing
// it ends inside a record. That is rest holding no whole record (as
// scanCSVRecord reads one) and either a quoted field still open at the
// end, or a record without its newline that is not a whole csvlog record
// (too few fields, no level or time: see check). It returns the record's
// first line (1 for rest's first line) and what is cut. A record whole
// but for its newline is not cut; a quote encoding/csv refuses is
// encoding/csv's error.
func (c *csvlogReader) cutRecord(rest []byte) (int, string, bool) {
	var r csvFields
	var scratch []byte
	if len(bytes.Trim(rest, "\r\n")) == 0 {
		return 0, "", false
	}
	if _, _, st := scanCSVRecord(rest, &scratch, &r); st != csvMore {
		return 0, "", false
	}
	padded := append(append(make([]byte, 0, len(rest)+1), rest...), '\n')
	start, n, st := scanCSVRecord(padded, &scratch, &r)
	line := 1 + bytes.Count(rest[:start], []byte{'\n'})
	switch {
	case st == csvMore:
		return line, "a quoted field is not closed", true
	case st == csvOK && n == len(padded):
		if _, _, _, err := c.check(line, r.n, &r.f); err != nil {
			why := "no newline after it, and "
			if ie := err.(*shardkey.InputError); ie.Field != "" {
				why += ie.Field + ": "
			}
			return line, why + err.(*shardkey.InputError).Err.Error(), true
		}
	}
	return 0, "", false
}

// check checks a csvlog record of n fields, at line, whose used values
// are f (csvFields.f): enough fields, a message level and a time. It
// returns the level, the time (microseconds since the epoch) and its
// resolution (tsRes).
func (c *csvlogReader) check(line, n int, f *[6][]byte) (level string, ts int64, res int32, err error) {
	file := c.rs.file
	if n < csvMin {
		return "", 0, 0, shardkey.Errorf(file, line, "", "not a csvlog record: %d fields, want at least %d (log_destination = 'csvlog')", n, csvMin)
	}
	level, ok := pgLevelName(f[slotSeverity])
	if !ok {
		return "", 0, 0, shardkey.Errorf(file, line, "error_severity", "%q is not a PostgreSQL message level", f[slotSeverity])
	}
	hasTS := false
	tn := 0
	if t := f[slotTime]; len(t) >= 19 {
		ts, tn, hasTS = c.ps.time(t)
	}
	if !hasTS {
		return "", 0, 0, shardkey.Errorf(file, line, "log_time", "%q is not a timestamp", f[slotTime])
	}
	return level, ts, timeRes(tn), nil
}

// record adds a csvlog record of n fields, at line, whose used values are
// f (csvFields.f).
func (c *csvlogReader) record(line, n int, f *[6][]byte) error {
	rs := c.rs
	rs.line = line
	level, ts, res, err := c.check(line, n, f)
	if err != nil {
		return err
	}
	m := pgMsg{line: line, level: level, ts: ts, hasTS: true, res: res}
	sess := f[slotSession]
	if len(sess) == 0 {
		sess = f[slotPid]
	}
	if s, ok := c.ps.sessions[string(sess)]; ok {
		m.session = s
	} else {
		m.session = string(sess)
		c.ps.sessions[m.session] = m.session
	}
	return addPG(c.pm, m, f[slotMessage], f[slotDetail])
}

// jsonRecord is the part of a jsonlog record the reader uses.
type jsonRecord struct {
	Timestamp string `json:"timestamp"`
	Pid       int64  `json:"pid"`
	SessionID string `json:"session_id"`
	Severity  string `json:"error_severity"`
	Message   string `json:"message"`
	Detail    string `json:"detail"`
}

// readPGJSON reads a PostgreSQL jsonlog file (PostgreSQL 15 and later).
func readPGJSON(br *bufio.Reader, rs *readState) error {
	lr := &lineReader{r: br}
	pm := &pgMessages{rs: rs}
	ps := &prefixState{sessions: map[string]string{}}
	var rec jsonRecord // one for the file: json.Unmarshal's &rec would put one a line on the heap
	for {
		line, ok, err := lr.next()
		if err != nil {
			return errAt(rs.file, lr.n+1, err)
		}
		if !ok {
			break
		}
		rs.line = lr.n
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rec = jsonRecord{}
		if !parseJSONRecord(line, &rec) { // what it is not sure of
			rec = jsonRecord{}
			if err := json.Unmarshal(line, &rec); err != nil {
				var se *json.SyntaxError
				if lr.noNL && errors.As(err, &se) && se.Offset == int64(len(line)) {
					// The last line, without its newline, ends before
					// its record does: a log copied while PostgreSQL
					// was writing it.
					rs.warn = append(rs.warn, shardkey.Errorf(rs.file, lr.n, "", "the log ends inside this record (no newline after it, and %v; a file copied while it was being written?): the record is left out", err))
					continue
				}
				return shardkey.Errorf(rs.file, lr.n, "", "not a jsonlog record: %v", err)
			}
		}
		if !pgLevels[rec.Severity] {
			return shardkey.Errorf(rs.file, lr.n, "error_severity", "%q is not a PostgreSQL message level", rec.Severity)
		}
		m := pgMsg{line: lr.n, level: rec.Severity, session: rec.SessionID}
		if len(rec.Timestamp) >= 19 {
			var tn int
			m.ts, tn, m.hasTS = ps.time([]byte(rec.Timestamp))
			m.res = timeRes(tn)
		}
		if !m.hasTS {
			return shardkey.Errorf(rs.file, lr.n, "timestamp", "%q is not a timestamp", rec.Timestamp)
		}
		if m.session == "" {
			m.session = strconv.FormatInt(rec.Pid, 10)
		}
		if err := addPG(pm, m, rec.Message, rec.Detail); err != nil {
			return err
		}
	}
	return pm.flush()
}

// readPGSS reads a pg_stat_statements export: CSV with a header naming at
// least "query" and "calls" (\copy (SELECT query, calls FROM
// pg_stat_statements) TO 'pgss.csv' CSV HEADER). Each row is one statement
// shape run calls times; its $n parameters have no values.
func readPGSS(br *bufio.Reader, rs *readState) error {
	r := csv.NewReader(br)
	r.FieldsPerRecord = -1
	hdr, err := r.Read()
	if err != nil {
		if errors.As(err, new(*shardkey.InputError)) {
			return err
		}
		return shardkey.Errorf(rs.file, 1, "", "want a CSV header naming query and calls: %v", err)
	}
	qi, ci := -1, -1
	for i, h := range hdr {
		switch strings.ToLower(strings.TrimSpace(h)) {
		case "query":
			qi = i
		case "calls":
			ci = i
		}
	}
	if qi < 0 || ci < 0 {
		return shardkey.Errorf(rs.file, 1, "", "header %q: want columns query and calls", strings.Join(hdr, ","))
	}
	for {
		if rs.bound != nil {
			rs.bound.ResetRecord()
		}
		rec, line, err := readRecord(r, rs, "", 0)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if len(rec) <= qi || len(rec) <= ci {
			return shardkey.Errorf(rs.file, line, "", "%d fields, want %d", len(rec), len(hdr))
		}
		calls, err := strconv.ParseFloat(strings.TrimSpace(rec[ci]), 64)
		if err != nil || calls < 0 || math.IsInf(calls, 0) || math.IsNaN(calls) {
			return shardkey.Errorf(rs.file, line, "calls", "%q is not a non-negative number", rec[ci])
		}
		if calls == 0 || strings.TrimSpace(rec[qi]) == "" {
			continue
		}
		if err := rs.emit(entry{line: line, session: fmt.Sprint("row", line), sql: rec[qi], weight: calls}); err != nil {
			return err
		}
	}
	return nil
}
