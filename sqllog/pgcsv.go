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

// readPGCSV reads a PostgreSQL csvlog file.
// readRecord reads the next CSV record and its line, recording the line in
// rs; errors name the file and line, a parse error prefixed with what. It
// returns io.EOF at the end.
func readRecord(r *csv.Reader, rs *readState, what string) ([]string, int, error) {
	if rs.bound != nil {
		rs.bound.ResetRecord()
	}
	rec, err := r.Read()
	if err == io.EOF {
		return nil, 0, err
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) && !errors.As(err, new(*shardkey.InputError)) {
			return nil, 0, shardkey.Errorf(rs.file, pe.Line, "", "%s%v", what, pe.Err)
		}
		return nil, 0, errAt(rs.file, rs.line+1, err)
	}
	line, _ := r.FieldPos(0)
	rs.line = line
	return rec, line, nil
}

func readPGCSV(br *bufio.Reader, rs *readState) error {
	r := csv.NewReader(br)
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	pm := &pgMessages{rs: rs}
	ps := &prefixState{sessions: map[string]string{}}
	for {
		rec, line, err := readRecord(r, rs, "not a csvlog record: ")
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if len(rec) < csvMin {
			return shardkey.Errorf(rs.file, line, "", "not a csvlog record: %d fields, want at least %d (log_destination = 'csvlog')", len(rec), csvMin)
		}
		if !pgLevels[rec[csvSeverity]] {
			return shardkey.Errorf(rs.file, line, "error_severity", "%q is not a PostgreSQL message level", rec[csvSeverity])
		}
		m := pgMsg{line: line, level: rec[csvSeverity], msg: rec[csvMessage], detail: rec[csvDetail]}
		if len(rec[csvTime]) >= 19 {
			m.ts, _, m.hasTS = ps.time([]byte(rec[csvTime]))
		}
		if !m.hasTS {
			return shardkey.Errorf(rs.file, line, "log_time", "%q is not a timestamp", rec[csvTime])
		}
		m.session = rec[csvSession]
		if m.session == "" {
			m.session = rec[csvPid]
		}
		if s, ok := ps.sessions[m.session]; ok {
			m.session = s
		} else {
			m.session = strings.Clone(m.session)
			ps.sessions[m.session] = m.session
		}
		m.msg, m.detail = strings.Clone(m.msg), strings.Clone(m.detail)
		if err := pm.add(m); err != nil {
			return err
		}
	}
	return pm.flush()
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
		rec, line, err := readRecord(r, rs, "")
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
