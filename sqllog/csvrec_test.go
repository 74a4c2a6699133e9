package sqllog

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// csvRecordCases are records (and runs of them) that encoding/csv reads
// in different ways: quotes, doubled quotes, newlines and commas inside
// quotes, empty fields, "\r\n" line ends (PostgreSQL's csvlog on
// Windows), empty lines, and what it refuses.
var csvRecordCases = []string{
	"a,b,c\n",
	"\n\n\r\na,b\n",
	`"a","b""c",d` + "\n",
	`"",,""` + "\n",
	`"x""",""""` + "\n",
	"\"line one\nline two\",2\n",
	"\"line one\r\nline two\r\n\",2\r\n",
	"\"cr\rin\",a\rb\n",
	"a,b\r\n",
	"a\r\r\n",
	"\r\r\n",
	",\n",
	"\"a,b\",\"c\"\"\nd\"\n",
	"\"\"\"\"\"\"\n",
	// encoding/csv's errors.
	"a,b\"c\n",
	"\"a\"b,c\n",
	"\"a\"\rb\n",
	"\"unterminated\nstill\n",
	// Ends without a newline.
	"a,b",
	"\"a\",\"b\"",
	"\"a\"\r",
	"a\r",
	"\r",
	"",
	"\n",
}

// TestScanCSVRecord: scanCSVRecord reads a record as encoding/csv reads
// it (the number of fields, the values it keeps, where the record ends
// and on which line it starts), leaves to encoding/csv what encoding/csv
// refuses, and asks for more only where encoding/csv reads to the end of
// the input.
func TestScanCSVRecord(t *testing.T) {
	for _, c := range csvRecordCases {
		checkScanCSV(t, []byte(c))
		// The same with 22 more fields, so that the kept slots are
		// reached.
		long := strings.Replace(c, "\n", strings.Repeat(`,"x""y",7`, 11)+"\n", 1)
		checkScanCSV(t, []byte(long))
	}
	// A csvlog record of PostgreSQL 17 (with a statement over lines
	// and a quote in it) and its parts.
	rec := "2024-03-01 10:00:00.123 UTC,\"u\",\"db\",42,\"127.0.0.1:5\",65e1.2a,3,\"SELECT\",2024-03-01 10:00:00 UTC,3/4,0,LOG,00000,\"statement: SELECT 'a\"\"b'\nFROM t\",\"parameters: $1 = '1'\",,,,,,,,\"psql\",\"client backend\",,0\n"
	checkScanCSV(t, []byte(rec))
	var r csvFields
	var scratch []byte
	_, n, st := scanCSVRecord([]byte(rec), &scratch, &r)
	want := [6]string{"2024-03-01 10:00:00.123 UTC", "42", "65e1.2a", "LOG", "statement: SELECT 'a\"b'\nFROM t", "parameters: $1 = '1'"}
	if st != csvOK || n != len(rec) || r.n != 26 {
		t.Fatalf("PostgreSQL record: %v, %d bytes, %d fields", st, n, r.n)
	}
	for i, w := range want {
		if string(r.f[i]) != w {
			t.Errorf("slot %d = %q, want %q", i, r.f[i], w)
		}
	}
}

// checkScanCSV compares scanCSVRecord on b with encoding/csv's first
// record of b.
func checkScanCSV(t *testing.T, b []byte) {
	t.Helper()
	cr := csv.NewReader(bytes.NewReader(b))
	cr.FieldsPerRecord = -1
	rec, err := cr.Read()
	end := int(cr.InputOffset())
	var r csvFields
	var scratch []byte
	start, n, st := scanCSVRecord(bytes.Clone(b), &scratch, &r)
	switch st {
	case csvOK:
		if err != nil {
			t.Errorf("%q: scanned a record; encoding/csv: %v", b, err)
			return
		}
		if n != end || r.n != len(rec) {
			t.Errorf("%q: %d fields, %d bytes; encoding/csv %d fields, %d bytes", b, r.n, n, len(rec), end)
			return
		}
		if line, _ := cr.FieldPos(0); bytes.Count(b[:start], []byte{'\n'})+1 != line {
			t.Errorf("%q: record starts at byte %d; encoding/csv: on line %d", b, start, line)
		}
		for i, slot := range csvWant {
			if slot >= 0 && i < len(rec) && string(r.f[slot]) != rec[i] {
				t.Errorf("%q: field %d = %q; encoding/csv %q", b, i, r.f[slot], rec[i])
			}
		}
	case csvOther:
		var pe *csv.ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: left to encoding/csv, which reads %q (%v)", b, rec, err)
		}
	case csvMore:
		// Only where encoding/csv reads to the end of the input (a
		// last line without a newline, an unterminated quote, empty
		// lines only).
		if err != io.EOF && end != len(b) || end > 0 && b[end-1] == '\n' && err == nil {
			t.Errorf("%q: asks for more; encoding/csv reads %q to byte %d of %d (%v)", b, rec, end, len(b), err)
		}
	}
}

// FuzzScanCSVRecord: scanCSVRecord agrees with encoding/csv on any input
// (checkScanCSV), and readPGCSV reads what readPGCSV's encoding/csv path
// alone reads (compareCSVReaders).
//
//	go test ./sqllog -run '^$' -fuzz '^FuzzScanCSVRecord$' -fuzztime 60s -fuzzminimizetime 10x
func FuzzScanCSVRecord(f *testing.F) {
	for _, c := range csvRecordCases {
		f.Add([]byte(c))
	}
	seed(f, "pg-csvlog.csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkScanCSV(t, data)
		compareCSVReaders(t, data)
	})
}

// csvRead is what a csvlog reader made of a log: its entries and error.
type csvRead struct {
	entries []entry
	warn    []string
	err     string
}

// readCSVWith reads data as a csvlog through a bufio.Reader of size bytes
// with read (readPGCSV, or encoding/csv alone), recording the entries.
func readCSVWith(data []byte, size int, fast bool) csvRead {
	p := &pipeline{ctx: context.Background(), work: make(chan *job, 8), order: make(chan *job, 8), done: make(chan error, 1), dialect: Postgres, free: make(chan *batchMem, 10), freeE: make(chan []entry, 10)}
	go func() {
		for range p.work {
		}
	}()
	go func() {
		for j := range p.order {
			p.release(j)
		}
		p.done <- nil
	}()
	var out csvRead
	rs := &readState{p: p, file: "x.csv"}
	rs.cut = func(e *entry) error {
		out.entries = append(out.entries, *e)
		return nil
	}
	br := bufio.NewReaderSize(bytes.NewReader(data), size)
	var err error
	if fast {
		err = readPGCSV(br, rs)
	} else {
		c := &csvlogReader{rs: rs, pm: &pgMessages{rs: rs}, ps: &prefixState{sessions: map[string]string{}}}
		_, err = c.readStd(csv.NewReader(br), br, 0, true)
	}
	if err == nil {
		err = rs.flush()
	}
	p.close()
	if err != nil {
		out.err = err.Error()
	}
	for _, w := range rs.warn {
		out.warn = append(out.warn, w.Error())
	}
	return out
}

// compareCSVReaders reads data with readPGCSV through buffers of two
// sizes (records longer than the smallest, 4 KiB, are read by
// encoding/csv) and with encoding/csv alone: the same entries, the same
// error.
func compareCSVReaders(t *testing.T, data []byte) {
	t.Helper()
	want := readCSVWith(data, 1<<16, false)
	for _, size := range []int{4096, 1 << 16} {
		got := readCSVWith(data, size, true)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("buffer %d: %.300q...:\nfast:         %.300v...\nencoding/csv: %.300v...", size, data, got, want)
		}
	}
}

// TestCSVReaders: readPGCSV reads csvlog files, good and bad, as
// encoding/csv alone does: the same entries, the same errors (file,
// line, field), with "\n" and "\r\n" line ends.
func TestCSVReaders(t *testing.T) {
	const head = `2024-03-01 10:00:0%d.000 UTC,"u","db",%d,"h:1",%s,1,"idle",2024-03-01 10:00:00 UTC,3/1,0,`
	rec := func(i int, sess, rest string) string {
		return fmt.Sprintf(head, i%10, 100+i, sess) + rest + "\n"
	}
	var good strings.Builder
	for i := range 40 {
		sess := []string{"65e1.1", "65e1.2", ""}[i%3]
		switch i % 5 {
		case 0:
			good.WriteString(rec(i, sess, `LOG,00000,"statement: SELECT * FROM t WHERE a = 'x""y' AND b = `+fmt.Sprint(i)+`",,,,,,,,,"psql","client backend",,0`))
		case 1:
			good.WriteString(rec(i, sess, "LOG,00000,\"execute S_1: UPDATE t\nSET v = $1\nWHERE id = $2\",\"parameters: $1 = '1', $2 = '"+fmt.Sprint(i)+"'\",,,,,,,,\"psql\",\"client backend\",,0"))
		case 2:
			// Longer than 4 KiB every fourth time.
			long := ""
			if i%4 == 2 {
				long = strings.Repeat(",\n(2, '\"\"')", 500)
			}
			good.WriteString(rec(i, sess, `LOG,00000,"duration: 0.1 ms  statement: INSERT INTO t VALUES (1, ',')`+long+`",,,,,,,,,"psql","client backend",,0`))
		case 3:
			good.WriteString("\n" + rec(i, sess, `ERROR,42P01,"relation ""u"" does not exist",,,,,,"SELECT * FROM u",,,"psql","client backend",,0`))
		case 4:
			good.WriteString(rec(i, sess, `LOG,00000,"disconnection: session time: 0:00:01.000",,,,,,,,,"psql","client backend",,0`))
		}
	}
	g := good.String() // 64 lines, and 2 × 500 in the long records

	crlf := strings.ReplaceAll(g, "\n", "\r\n")
	cases := map[string]string{
		"good":                        g,
		"crlf":                        crlf,
		"no last newline":             strings.TrimSuffix(g, "\n"),
		"unterminated":                g + rec(1, "s", `LOG,00000,"statement: SELECT 1`),
		"unterminated, more lines":    g + rec(1, "s", `LOG,00000,"statement: SELECT 1`) + "FROM t\n\nWHERE a = 1",
		"quote then text, no newline": g + strings.TrimSuffix(rec(1, "s", `LOG,00000,"statement: SELECT "1",,,,,,,,,"psql","client backend",,0`), "\n"),
		"cut in fields":               g + strings.TrimSuffix(rec(1, "s", `LOG,00000,"statement: SELECT 1",,,`), "\n"),
		"unterminated mid-file":       g + rec(1, "s", `LOG,00000,"statement: SELECT 1`) + g,
		"bare quote":                  g + rec(1, "s", `LOG,00000,statement: SELECT "a",,,,,,,,,"psql","client backend",,0`),
		"quote then text":             g + rec(1, "s", `LOG,00000,"statement: SELECT "1",,,,,,,,,"psql","client backend",,0`),
		"few fields":                  g + "2024-03-01 10:00:00.000 UTC,\"u\",\"db\",1,\"h:1\",s,1,\"idle\"\n",
		"bad severity":                g + rec(1, "s", `NOTE,00000,"statement: SELECT 1",,,,,,,,,"psql","client backend",,0`),
		"bad time":                    g + strings.Replace(rec(1, "s", `LOG,00000,"statement: SELECT 1",,,,,,,,,"psql","client backend",,0`), "2024-03-01 10:00:01", "yesterday", 1),
	}
	wantErr := map[string]string{
		// The record's open quote (line 1065) runs into the next
		// record's line, where the quote before u is followed by a
		// letter: encoding/csv gives up on line 1066.
		"unterminated mid-file":       `x.csv:1065: not a csvlog record: extraneous or missing " in quoted-field (found on line 1066)`,
		"quote then text, no newline": `x.csv:1065: not a csvlog record: extraneous or missing " in quoted-field`,
		"bare quote":                  `x.csv:1065: not a csvlog record: bare " in non-quoted-field`,
		"quote then text":             `x.csv:1065: not a csvlog record: extraneous or missing " in quoted-field`,
		"few fields":                  `x.csv:1065: not a csvlog record: 8 fields, want at least 22`,
		"bad severity":                `x.csv:1065: error_severity: "NOTE" is not a PostgreSQL message level`,
		"bad time":                    `x.csv:1065: log_time: "yesterday.000 UTC" is not a timestamp`,
	}
	wantWarn := map[string]string{
		"unterminated":             `x.csv:1065: the log ends inside this record (a quoted field is not closed;`,
		"unterminated, more lines": `x.csv:1065: the log ends inside this record (a quoted field is not closed;`,
		"cut in fields":            `x.csv:1065: the log ends inside this record (no newline after it, and not a csvlog record: 17 fields, want at least 22`,
	}
	for name, data := range cases {
		compareCSVReaders(t, []byte(data))
		got := readCSVWith([]byte(data), 1<<20, true)
		if w := wantErr[name]; !strings.HasPrefix(got.err, w) || (w == "") != (got.err == "") {
			t.Errorf("%s: error %q, want %q", name, got.err, w)
		}
		if len(got.entries) < 32 {
			t.Errorf("%s: %d entries, want at least 32", name, len(got.entries))
		}
		// A last record cut short at the end of the file is left out
		// with a warning naming its first line; nothing else warns.
		if w := wantWarn[name]; (w == "") != (len(got.warn) == 0) || (w != "" && (len(got.warn) != 1 || !strings.HasPrefix(got.warn[0], w))) {
			t.Errorf("%s: warnings %q, want %q", name, got.warn, w)
		}
	}
}

// TestCSVCutShort: a csvlog copied while PostgreSQL wrote it ends inside
// a record. Cut at every byte of the last record, the file reads without
// error: the record is read when what is left of it is a whole csvlog
// record (at least 22 fields, no quoted field left open), else left out
// with a warning naming its line. The expectation counts commas and
// quotes of the cut text (the record has no comma or quote inside a
// quoted field), not the reader's scanner.
func TestCSVCutShort(t *testing.T) {
	const first = `2024-03-01 10:00:00.000 UTC,"u","db",100,"h:1",65e1.1,1,"idle",2024-03-01 10:00:00 UTC,3/1,0,LOG,00000,"statement: SELECT 1",,,,,,,,,"psql","client backend",,0` + "\n"
	const last = `2024-03-01 10:00:01.000 UTC,"u","db",101,"h:1",65e1.2,1,"idle",2024-03-01 10:00:00 UTC,3/1,0,LOG,00000,"statement: SELECT 2",,,,,,,,,"psql","client backend",,0` + "\n"
	for _, nl := range []string{"\n", "\r\n"} {
		head := strings.ReplaceAll(first, "\n", nl) + nl + strings.ReplaceAll(first, "\n", nl) // lines 1, 2 (empty), 3
		rec := strings.ReplaceAll(last, "\n", nl)                                              // line 4
		for k := 1; k <= len(rec); k++ {
			cut := rec[:k]
			whole := strings.Count(cut, ",") >= 21 && strings.Count(cut, `"`)%2 == 0
			if k >= len(rec)-len(nl) {
				whole = true // only (part of) the newline is missing
			}
			data := []byte(head + cut)
			got := readCSVWith(data, 1<<16, true)
			if got.err != "" {
				t.Errorf("%q cut at %d: %s", nl, k, got.err)
				continue
			}
			want := 2
			if whole {
				want = 3
			}
			if len(got.entries) != want {
				t.Errorf("%q cut at %d (%q): %d statements, want %d", nl, k, cut, len(got.entries), want)
			}
			if whole != (len(got.warn) == 0) || (!whole && (len(got.warn) != 1 || !strings.HasPrefix(got.warn[0], "x.csv:4: the log ends inside this record"))) {
				t.Errorf("%q cut at %d (%q): warnings %q", nl, k, cut, got.warn)
			}
			compareCSVReaders(t, data)
		}
	}
}

// TestPGLevelName: pgLevelName knows the levels of pgLevels, and no
// other word.
func TestPGLevelName(t *testing.T) {
	for l := range pgLevels {
		if got, ok := pgLevelName([]byte(l)); !ok || got != l {
			t.Errorf("%q: %q, %v", l, got, ok)
		}
	}
	for _, w := range []string{"", "log", "LOG ", "DEBUG6", "NOTE", "STATEMENTS"} {
		if got, ok := pgLevelName([]byte(w)); ok || pgLevels[w] {
			t.Errorf("%q: %q, %v", w, got, ok)
		}
	}
}
