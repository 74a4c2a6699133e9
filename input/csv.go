package input

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/shardkey/shardkey"
)

// readCSVRows reads a CSV (or, for .tsv, tab-separated) file with a header.
func readCSVRows(r io.Reader, file, name string, o Options) (*shardkey.Table, error) {
	br := bufio.NewReader(&lineLimit{r: r, max: maxLine})
	if b, err := br.Peek(len(utf8BOM)); err == nil && bytes.Equal(b, utf8BOM) {
		br.Discard(len(utf8BOM)) // before a quoted first field, which csv would reject
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = false
	cr.FieldsPerRecord = -1 // checked below, with both counts in the message
	if strings.HasSuffix(strings.ToLower(file), ".tsv") {
		cr.Comma = '\t'
	}
	header, err := cr.Read()
	if err == io.EOF {
		return nil, shardkey.Errorf(file, 1, "", "empty file: want a header line naming the columns")
	}
	if err != nil {
		return nil, csvErr(file, err)
	}
	hline, _ := cr.FieldPos(0) // after any empty lines
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	t := &shardkey.Table{Name: name}
	weightCol, err := csvHeader(file, hline, header)
	if err != nil {
		return nil, err
	}
	// Buffer the first rows to infer types.
	var buf [][]string
	var lines []int
	for len(buf) < InferRows {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvErr(file, err)
		}
		line, _ := cr.FieldPos(0)
		buf = append(buf, rec)
		lines = append(lines, line)
	}
	types := csvTypes(file, header, weightCol, name, o, buf, lines)
	cols := make([]*shardkey.Column, len(header))
	for i, h := range header {
		if i != weightCol {
			cols[i] = &shardkey.Column{Name: h, Type: types[i]}
			t.Columns = append(t.Columns, cols[i])
		}
	}
	if weightCol >= 0 {
		t.Weights = []float64{}
	}
	add := func(rec []string, line int) error {
		if len(rec) != len(header) {
			return shardkey.Errorf(file, line, "", "%d fields, header has %d", len(rec), len(header))
		}
		for i, s := range rec {
			if i == weightCol {
				w, err := parseWeight(s)
				if err != nil {
					return shardkey.Errorf(file, line, header[i], "%v", err)
				}
				t.Weights = append(t.Weights, w)
				continue
			}
			v, err := shardkey.ParseValue(s, types[i])
			if err != nil {
				return shardkey.Errorf(file, line, header[i], "%v (type %s; set it with --column-type %s=TYPE)", err, types[i], header[i])
			}
			if err := cols[i].Append(v); err != nil {
				return shardkey.Errorf(file, line, header[i], "%v", err)
			}
		}
		t.Rows++
		return nil
	}
	for j, rec := range buf {
		if err := add(rec, lines[j]); err != nil {
			return nil, err
		}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvErr(file, err)
		}
		line, _ := cr.FieldPos(0)
		if err := add(rec, line); err != nil {
			return nil, err
		}
	}
	if t.Rows == 0 {
		return nil, shardkey.Errorf(file, 2, "", "no rows after the header")
	}
	return t, nil
}

// lineLimit fails a read once a line runs past max bytes: encoding/csv
// would otherwise buffer an endless line (a device, a binary file) until
// memory runs out.
type lineLimit struct {
	r     io.Reader
	max   int
	since int // bytes since the last newline
}

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if k := bytes.LastIndexByte(p[:n], '\n'); k >= 0 {
		l.since = n - k - 1
	} else {
		l.since += n
	}
	if l.since > l.max {
		return n, shardkey.LineTooLong("", 0, l.max)
	}
	return n, err
}

// csvHeader trims the names of a header (read at line) and checks that
// none is empty or repeated; it returns the index of the weight column, or
// -1.
func csvHeader(file string, line int, header []string) (int, error) {
	weightCol := -1
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		header[i] = h
		if h == "" {
			return 0, shardkey.Errorf(file, line, fmt.Sprintf("column %d", i+1), "empty column name in header")
		}
		// A name no column could have (a binary file, a Latin-1 or
		// UTF-16 export): said here, not as a key naming no column.
		if k := strings.IndexByte(h, 0); k >= 0 {
			return 0, shardkey.Errorf(file, line, fmt.Sprintf("column %d", i+1), "column name in header holds a NUL byte (byte %d of the name): not a text header (a binary or UTF-16 file?)", k+1)
		}
		if !utf8.ValidString(h) {
			k := 0
			for k < len(h) {
				r, n := utf8.DecodeRuneInString(h[k:])
				if r == utf8.RuneError && n <= 1 {
					break
				}
				k += n
			}
			return 0, shardkey.Errorf(file, line, fmt.Sprintf("column %d", i+1), "column name in header is not UTF-8 (byte %d of the name, 0x%02x): save the file as UTF-8", k+1, h[k])
		}
		if seen[h] {
			return 0, shardkey.Errorf(file, line, h, "column named twice in header")
		}
		seen[h] = true
		if strings.EqualFold(h, "weight") {
			weightCol = i
		}
	}
	return weightCol, nil
}

// csvTypes returns each column's type: the one Options give, else the one
// its values in sample (the first records, read at lines) suggest. A
// column whose type one stray value decided (an id column typed float64 by
// "1e3") is reported to o.Warn.
func csvTypes(file string, header []string, weightCol int, table string, o Options, sample [][]string, lines []int) []shardkey.Type {
	types := make([]shardkey.Type, len(header))
	for i, h := range header {
		if i == weightCol {
			continue
		}
		typ, ok := o.typeOf(table, h)
		if !ok {
			vals := make([]string, len(sample))
			for j, rec := range sample {
				if i < len(rec) {
					vals[j] = rec[i]
				}
			}
			var odd int
			var want shardkey.Type
			typ, odd, want = shardkey.InferTypeOdd(vals)
			if odd >= 0 {
				o.warn(oddValue(file, lines[odd], h, vals[odd], typ, want, vals))
			}
		}
		types[i] = typ
	}
	return types
}

// oddValue is the warning about a column one value widened from want to
// typ.
func oddValue(file string, line int, col, val string, typ, want shardkey.Type, vals []string) error {
	n := 0
	for _, v := range vals {
		if !shardkey.IsNullText(v) {
			n++
		}
	}
	what := map[shardkey.Type]string{shardkey.Int64: "integers", shardkey.Uint64: "integers", shardkey.Float64: "numbers",
		shardkey.UUID: "UUIDs", shardkey.Timestamp: "timestamps"}[want]
	return shardkey.Errorf(file, line, col, "%q makes the column %s although nearly all of its other %d values are %s, so every value is placed as %s; give --column-type %s=%s if that is the column's type (a value that is not one is then an error)", val, typ, n-1, what, typ, col, want)
}

func csvErr(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return shardkey.Errorf(file, pe.Line, fmt.Sprintf("column %d", pe.Column), "%v", pe.Err)
	}
	var ie *shardkey.InputError
	if errors.As(err, &ie) {
		if ie.File != "" {
			return err // it names its file (and line) already
		}
		return shardkey.Errorf(file, ie.Line, ie.Field, "%w", ie.Err)
	}
	return shardkey.Errorf(file, 0, "", "%v", err)
}
