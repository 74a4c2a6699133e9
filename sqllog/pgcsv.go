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
// rs; errors name the file and line, a parse error prefixed with what. It
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
			return nil, 0, shardkey.Errorf(rs.file, lines+pe.Line, "", "%s%v", what, pe.Err)
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
			k, err := c.readStd(csv.NewReader(br), lines, false)
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

// readStd reads records with encoding/csv: lines is the line before
// r's first; all reads them to the end of r, else one record is read. It
// returns the lines the records read end on (after lines), 0 at the end
// of r.
func (c *csvlogReader) readStd(r *csv.Reader, lines int, all bool) (int, error) {
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	var f [6][]byte
	end := 0
	for {
		if c.rs.bound != nil {
			c.rs.bound.ResetRecord()
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

// record adds a csvlog record of n fields, at line, whose used values are
// f (csvFields.f).
func (c *csvlogReader) record(line, n int, f *[6][]byte) error {
	rs := c.rs
	rs.line = line
	if n < csvMin {
		return shardkey.Errorf(rs.file, line, "", "not a csvlog record: %d fields, want at least %d (log_destination = 'csvlog')", n, csvMin)
	}
	level, ok := pgLevelName(f[slotSeverity])
	if !ok {
		return shardkey.Errorf(rs.file, line, "error_severity", "%q is not a PostgreSQL message level", f[slotSeverity])
	}
	m := pgMsg{line: line, level: level}
	if t := f[slotTime]; len(t) >= 19 {
		m.ts, _, m.hasTS = c.ps.time(t)
	}
	if !m.hasTS {
		return shardkey.Errorf(rs.file, line, "log_time", "%q is not a timestamp", f[slotTime])
	}
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
	m.msg, m.detail = string(f[slotMessage]), string(f[slotDetail])
	return c.pm.add(m)
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
		var rec jsonRecord
		if !parseJSONRecord(line, &rec) { // what it is not sure of
			rec = jsonRecord{}
			if err := json.Unmarshal(line, &rec); err != nil {
				return shardkey.Errorf(rs.file, lr.n, "", "not a jsonlog record: %v", err)
			}
		}
		if !pgLevels[rec.Severity] {
			return shardkey.Errorf(rs.file, lr.n, "error_severity", "%q is not a PostgreSQL message level", rec.Severity)
		}
		m := pgMsg{line: lr.n, level: rec.Severity, msg: rec.Message, detail: rec.Detail, session: rec.SessionID}
		if len(rec.Timestamp) >= 19 {
			m.ts, _, m.hasTS = ps.time([]byte(rec.Timestamp))
		}
		if !m.hasTS {
			return shardkey.Errorf(rs.file, lr.n, "timestamp", "%q is not a timestamp", rec.Timestamp)
		}
		if m.session == "" {
			m.session = strconv.FormatInt(rec.Pid, 10)
		}
		if err := pm.add(m); err != nil {
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
