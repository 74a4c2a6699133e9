package input

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
)

// readCSVRows reads a CSV (or, for .tsv, tab-separated) file with a header.
func readCSVRows(r io.Reader, file, name string, o Options) (*shardkey.Table, error) {
	cr := csv.NewReader(r)
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
	weightCol := -1
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		header[i] = h
		if h == "" {
			return nil, shardkey.Errorf(file, hline, fmt.Sprintf("column %d", i+1), "empty column name in header")
		}
		if seen[h] {
			return nil, shardkey.Errorf(file, hline, h, "column named twice in header")
		}
		seen[h] = true
		if strings.EqualFold(h, "weight") {
			weightCol = i
		}
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
	types := make([]shardkey.Type, len(header))
	cols := make([]*shardkey.Column, len(header))
	for i, h := range header {
		if i == weightCol {
			continue
		}
		typ, ok := o.typeOf(name, h)
		if !ok {
			sample := make([]string, len(buf))
			for j, rec := range buf {
				if i < len(rec) {
					sample[j] = rec[i]
				}
			}
			typ = shardkey.InferType(sample)
		}
		types[i] = typ
		cols[i] = &shardkey.Column{Name: h, Type: typ}
		t.Columns = append(t.Columns, cols[i])
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
				w, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
				if err != nil {
					return shardkey.Errorf(file, line, header[i], "%q is not a number", s)
				}
				if err := checkWeight(w); err != nil {
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

func csvErr(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return shardkey.Errorf(file, pe.Line, fmt.Sprintf("column %d", pe.Column), "%v", pe.Err)
	}
	return shardkey.Errorf(file, 0, "", "%v", err)
}
