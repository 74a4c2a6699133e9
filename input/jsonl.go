package input

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
)

// maxLine bounds one JSONL line.
const maxLine = 64 << 20

// lineReader yields non-blank lines with their numbers.
type lineReader struct {
	sc   *bufio.Scanner
	line int
	file string
}

func newLineReader(r io.Reader, file string) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), maxLine)
	return &lineReader{sc: sc, file: file}
}

func (lr *lineReader) next() ([]byte, bool) {
	for lr.sc.Scan() {
		lr.line++
		b := lr.sc.Bytes()
		if lr.line == 1 {
			b = bytes.TrimPrefix(b, utf8BOM)
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		return b, true
	}
	return nil, false
}

func (lr *lineReader) err() error {
	if err := lr.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return shardkey.LineTooLong(lr.file, lr.line+1, maxLine)
		}
		return shardkey.Errorf(lr.file, lr.line+1, "", "%v", err)
	}
	return nil
}

// jsonErr turns a decoding error into a message with the byte offset.
func jsonErr(err error) error {
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

func decodeObject(b []byte) (map[string]json.RawMessage, error) {
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("want a JSON object, got %.20q", b)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, jsonErr(err)
	}
	return m, nil
}

// scalar is one JSON scalar: a number (its literal), a string, or null;
// or a BSON value written in MongoDB Extended JSON (an object such as
// {"$oid": ...}, an array, true or false), held in bson.
type scalar struct {
	num   string
	str   string
	isStr bool
	null  bool
	// isInt and i hold an integer literal parsed off the consumer's path.
	isInt bool
	i     int64
	// isBSON: bson is an ObjectID, Date, Bool or ExtJSON value.
	isBSON bool
	bson   shardkey.Value
}

// bsonScalar reads raw, a JSON object, array or boolean, as MongoDB
// Extended JSON v2 (shardkey.ParseExtJSON, as mongoexport writes _id
// {"$oid": ...} and dates {"$date": ...}): numbers ({"$numberLong": ...},
// {"$numberInt": ...}, {"$numberDouble": ...}), strings and null become
// the plain scalars, other values keep their BSON type (shardkey.NativeBSON).
func bsonScalar(raw []byte) (scalar, error) {
	v, err := shardkey.ParseExtJSON(string(raw))
	if err != nil {
		return scalar{}, err
	}
	v = shardkey.NativeBSON(v)
	switch v.Type {
	case shardkey.Null:
		return scalar{null: true}, nil
	case shardkey.Int32, shardkey.Int64:
		return scalar{isInt: true, i: v.Int}, nil
	case shardkey.Float64:
		if math.IsNaN(v.Float) || math.IsInf(v.Float, 0) {
			return scalar{}, fmt.Errorf("%.30s: NaN and infinities are not key values", raw)
		}
		return scalar{num: strconv.FormatFloat(v.Float, 'g', -1, 64)}, nil
	case shardkey.Text:
		return scalar{str: v.Str, isStr: true}, nil
	}
	return scalar{isBSON: true, bson: v}, nil
}

func parseScalar(raw json.RawMessage) (scalar, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return scalar{}, fmt.Errorf("missing value")
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return scalar{}, jsonErr(err)
		}
		return scalar{str: s, isStr: true}, nil
	case 'n':
		if string(raw) == "null" {
			return scalar{null: true}, nil
		}
	case 't', 'f', '{', '[':
		return bsonScalar(raw)
	default:
		if _, err := strconv.ParseFloat(string(raw), 64); err == nil {
			return scalar{num: string(raw)}, nil
		}
	}
	return scalar{}, fmt.Errorf("invalid JSON value %.30q", raw)
}

// inferJSONType returns the type a first-seen scalar suggests.
func inferJSONType(s scalar) shardkey.Type {
	switch {
	case s.null:
		return shardkey.Null
	case s.isStr:
		t := shardkey.InferType([]string{s.str})
		if t == shardkey.Int64 || t == shardkey.Float64 {
			return shardkey.Text // a quoted number is text
		}
		return t
	case s.isInt:
		return shardkey.Int64
	case s.isBSON:
		return s.bson.Type
	}
	return shardkey.InferType([]string{s.num}) // int64, uint64 or float64
}

// toValue converts a scalar to type t. Any scalar converts to ExtJSON
// (its BSON form); a BSON scalar converts to its own type, and a Date to
// a Timestamp of the same instant.
func toValue(s scalar, t shardkey.Type) (shardkey.Value, error) {
	if t == shardkey.ExtJSON && !s.null {
		v := s.bson
		if !s.isBSON {
			var err error
			if v, err = toValue(s, inferJSONType(s)); err != nil {
				return shardkey.Value{}, err
			}
		}
		if b, ok := shardkey.ToBSON(v); ok {
			return b, nil
		}
		return shardkey.Value{}, fmt.Errorf("%s is beyond BSON's int64", v)
	}
	switch {
	case s.null:
		return shardkey.Value{}, nil
	case s.isBSON:
		switch {
		case s.bson.Type == t:
			return s.bson, nil
		case s.bson.Type == shardkey.Date && t == shardkey.Timestamp && s.bson.Int <= math.MaxInt64/1000 && s.bson.Int >= math.MinInt64/1000:
			return shardkey.TimeValue(s.bson.Int * 1000), nil
		}
		return shardkey.Value{}, fmt.Errorf("%s value %s in a %s column", s.bson.Type, s.bson, t)
	case s.isStr:
		return shardkey.ParseValue(s.str, t)
	}
	if s.isInt {
		switch t {
		case shardkey.Int64:
			return shardkey.IntValue(s.i), nil
		case shardkey.Int16, shardkey.Int32, shardkey.Uint64, shardkey.Timestamp:
			return shardkey.ParseValue(strconv.FormatInt(s.i, 10), t)
		case shardkey.Float32, shardkey.Float64:
			return shardkey.Value{Type: t, Float: float64(s.i)}, nil
		default:
			s.num = strconv.FormatInt(s.i, 10)
		}
	}
	switch t {
	case shardkey.Text:
		return shardkey.TextValue(s.num), nil
	case shardkey.Int16, shardkey.Int32, shardkey.Int64, shardkey.Uint64:
		if strings.ContainsAny(s.num, ".eE") {
			f, err := strconv.ParseFloat(s.num, 64)
			if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<62 {
				return shardkey.Value{}, fmt.Errorf("%s is not an integer (column type %s)", s.num, t)
			}
			return shardkey.Value{Type: t, Int: int64(f)}, nil
		}
	}
	return shardkey.ParseValue(s.num, t)
}

// readJSONLRows reads one JSON object per line into a table.
func readJSONLRows(r io.Reader, file, name string, o Options) (*shardkey.Table, error) {
	lr := newLineReader(r, file)
	type rec struct {
		m    map[string]json.RawMessage
		line int
	}
	var buf []rec
	var names []string
	seen := map[string]bool{}
	for len(buf) < InferRows {
		b, ok := lr.next()
		if !ok {
			break
		}
		m, err := decodeObject(b)
		if err != nil {
			return nil, shardkey.Errorf(file, lr.line, "", "%v", err)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
		buf = append(buf, rec{m, lr.line})
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	if len(buf) == 0 {
		return nil, shardkey.Errorf(file, 1, "", "empty file: want one JSON object per line")
	}
	t := &shardkey.Table{Name: name}
	cols := map[string]*shardkey.Column{}
	hasWeight := false
	for _, n := range names {
		if strings.EqualFold(n, "weight") {
			hasWeight = true
			continue
		}
		typ, ok := o.typeOf(name, n)
		if !ok {
			// Numbers are typed together, as CSV values are (int64,
			// uint64, float64, or text when no number type holds them
			// all exactly); strings by what they hold; a mix is text.
			var nums []string
			var numLines []int
			strTyp, firstStr, firstStrLine, strs := shardkey.Null, "", 0, 0
			bsonTyp, bsons := shardkey.Null, 0
			for _, rc := range buf {
				raw, ok := rc.m[n]
				if !ok {
					continue
				}
				s, err := parseScalar(raw)
				if err != nil {
					return nil, shardkey.Errorf(file, rc.line, n, "%v", err)
				}
				switch {
				case s.null:
				case s.isBSON:
					if bsons++; bsonTyp == shardkey.Null {
						bsonTyp = s.bson.Type
					} else if bsonTyp != s.bson.Type {
						bsonTyp = shardkey.ExtJSON
					}
				case s.isStr && shardkey.IsNullText(s.str):
					// "", "NULL", "\N": NULL in a typed column, as in CSV
				case s.isStr:
					if strs == 0 {
						firstStr, firstStrLine = s.str, rc.line
					}
					strs++
					switch st := inferJSONType(s); {
					case strTyp == shardkey.Null:
						strTyp = st
					case strTyp != st:
						strTyp = shardkey.Text
					}
				default:
					nums = append(nums, s.num)
					numLines = append(numLines, rc.line)
				}
			}
			switch {
			case bsons > 0 && strs == 0 && len(nums) == 0:
				typ = bsonTyp // ObjectIds, dates or bools; ExtJSON when mixed
			case bsons > 0:
				typ = shardkey.ExtJSON // BSON values beside strings or numbers: any BSON value
			case strs == 0 && len(nums) == 0:
				typ = shardkey.Text
			case strs == 0:
				var odd int
				var want shardkey.Type
				if typ, odd, want = shardkey.InferTypeOdd(nums); odd >= 0 {
					o.warn(oddValue(file, numLines[odd], n, nums[odd], typ, want, nums))
				}
			case len(nums) == 0:
				typ = strTyp
			default:
				typ = shardkey.Text
				if len(nums) >= 9*strs {
					want := shardkey.InferType(nums)
					o.warn(oddValue(file, firstStrLine, n, firstStr, typ, want, append(nums, firstStr)))
				}
			}
		}
		c := &shardkey.Column{Name: n, Type: typ}
		cols[n] = c
		t.Columns = append(t.Columns, c)
	}
	if hasWeight {
		t.Weights = []float64{}
	}
	add := func(m map[string]json.RawMessage, line int) error {
		for k := range m {
			if cols[k] == nil && !strings.EqualFold(k, "weight") {
				return shardkey.Errorf(file, line, k, "column not in the first %d rows; every row must have the same columns", InferRows)
			}
		}
		for _, c := range t.Columns {
			raw, ok := m[c.Name]
			var v shardkey.Value
			if ok {
				s, err := parseScalar(raw)
				if err != nil {
					return shardkey.Errorf(file, line, c.Name, "%v", err)
				}
				if v, err = toValue(s, c.Type); err != nil {
					return shardkey.Errorf(file, line, c.Name, "%v", err)
				}
			}
			if err := c.Append(v); err != nil {
				return shardkey.Errorf(file, line, c.Name, "%v", err)
			}
		}
		if hasWeight {
			w := 1.0
			nw := 0
			for k := range m {
				if strings.EqualFold(k, "weight") {
					if nw++; nw > 1 {
						return shardkey.Errorf(file, line, k, "a row has one weight (weight named twice, in another case)")
					}
				}
			}
			for k, raw := range m {
				if strings.EqualFold(k, "weight") {
					var err error
					if len(raw) > 0 && raw[0] == '"' {
						return shardkey.Errorf(file, line, k, "%s: a weight is a number, not a string", raw)
					}
					if w, err = parseWeight(string(raw)); err != nil {
						return shardkey.Errorf(file, line, k, "%v", err)
					}
				}
			}
			t.Weights = append(t.Weights, w)
		}
		t.Rows++
		return nil
	}
	for _, rc := range buf {
		if err := add(rc.m, rc.line); err != nil {
			return nil, err
		}
	}
	for {
		b, ok := lr.next()
		if !ok {
			break
		}
		m, err := decodeObject(b)
		if err != nil {
			return nil, shardkey.Errorf(file, lr.line, "", "%v", err)
		}
		if err := add(m, lr.line); err != nil {
			return nil, err
		}
	}
	return t, lr.err()
}
