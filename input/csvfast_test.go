package input

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// The fast reader of quote-free CSV files (readCSVFast) must give exactly
// what readCSVRows gives for the same bytes: the same table, or the same
// error. These tests compare the two on many files, with chunks small enough
// to put chunk boundaries everywhere.

// csvCase is one file for the differential tests.
type csvCase struct {
	name    string
	content string
	tsv     bool
	types   map[string]shardkey.Type
}

// chunkSizes are the csvChunkSize values every case is read with.
var chunkSizes = []int{1, 2, 3, 7, 16, 64, 1000, 4 << 20}

// setChunkSize sets csvChunkSize for the rest of the test.
func setChunkSize(t testing.TB, n int) {
	old := csvChunkSize
	csvChunkSize = n
	t.Cleanup(func() { csvChunkSize = old })
}

// lines returns n lines made by f(i), i from 0, each ending in "\n".
func lines(n int, f func(i int) string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(f(i))
		b.WriteByte('\n')
	}
	return b.String()
}

func csvCases() []csvCase {
	many := func(i int) string { return fmt.Sprintf("%d,%d.5,u%d", i, i, i%7) }
	return []csvCase{
		{name: "ints", content: "a,b\n1,2\n3,4\n-5,-6\n"},
		{name: "plus sign", content: "a,b\n+5,1\n7,+0\n-0,2\n"},
		{name: "spaces", content: "a,b,c\n 7,1.5 , x \n8 , 2,y\n"},
		{name: "leading zeros", content: "a\n007\n0\n-00\n"},
		{name: "19 digits", content: "a\n1234567890123456789\n-9223372036854775808\n9223372036854775807\n"},
		{name: "18 and 19 digits", content: "a\n999999999999999999\n-999999999999999999\n1000000000000000000\n"},
		{name: "int overflow", content: "a\n9223372036854775808\n1\n"},
		{name: "floats", content: "x,y\n1.5,1e3\n-2.25,0\n3,1E-7\n.5,-0.0\n"},
		{name: "float nan inf forced", content: "x\nNaN\nInf\n-inf\n1\n", types: map[string]shardkey.Type{"x": shardkey.Float64}},
		{name: "text", content: "name,city\nalice,paris\nbob,  new york \nçé,日本\n"},
		{name: "empty cells", content: "i,f,s\n1,1.5,x\n,,\n3,,z\n,2.5,\n"},
		{name: "all empty column", content: "i,s\n1,\n2,\n"},
		{name: "null first row", content: "i,f\n,\n1,2.5\n"},
		{name: "timestamps", content: "ts\n2024-01-02 03:04:05\n2024-01-02T03:04:05Z\n2024-01-02\n2024-01-02 03:04:05.123456\n\n2024-01-02T03:04:05+02:00\n"},
		{name: "timestamp nulls", content: "ts,k\n2024-01-02,1\n,2\n2024-02-03,3\n"},
		{name: "uuids", content: "id\n123e4567-e89b-12d3-a456-426614174000\n00000000-0000-0000-0000-000000000000\n\nFFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF\n"},
		{name: "uuid forced", content: "id\n123e4567e89b12d3a456426614174000\n{123e4567-e89b-12d3-a456-426614174000}\n\n", types: map[string]shardkey.Type{"id": shardkey.UUID}},
		{name: "bad uuid forced", content: "id\n123e4567e89b12d3a456426614174000\nnope\n", types: map[string]shardkey.Type{"id": shardkey.UUID}},
		{name: "bytes", content: "b,k\n0xdeadbeef,1\n\\x00ff,2\nabcd,3\n,4\n", types: map[string]shardkey.Type{"b": shardkey.Bytes}},
		{name: "bad bytes", content: "b,k\n0xdeadbeef,1\nxyz,2\n", types: map[string]shardkey.Type{"t.b": shardkey.Bytes}},
		{name: "typed by table", content: "a,b\n1,2\n3,4\n", types: map[string]shardkey.Type{"t.a": shardkey.Text, "b": shardkey.Float32}},
		{name: "int16 int32 uint64", content: "a,b,c\n1,2,3\n-32768,2147483647,18446744073709551615\n,,\n", types: map[string]shardkey.Type{"a": shardkey.Int16, "b": shardkey.Int32, "c": shardkey.Uint64}},
		{name: "int16 overflow", content: "a\n1\n32768\n", types: map[string]shardkey.Type{"a": shardkey.Int16}},
		{name: "int64 forced text value", content: "a\n1\nx\n", types: map[string]shardkey.Type{"a": shardkey.Int64}},
		{name: "float32", content: "a\n0.1\n1e38\n", types: map[string]shardkey.Type{"a": shardkey.Float32}},
		{name: "float32 overflow", content: "a\n0.1\n1e39\n", types: map[string]shardkey.Type{"a": shardkey.Float32}},
		{name: "timestamp forced bad", content: "a\n2024-01-01\n2024-13-01\n", types: map[string]shardkey.Type{"a": shardkey.Timestamp}},
		{name: "weight", content: "a,weight\n1,0.5\n2,1.5\n3, 2 \n4,0\n"},
		{name: "WEIGHT upper", content: "a,WEIGHT\n1,0.5\n2,3\n"},
		{name: "Weight first", content: "Weight,a,b\n1,x,2\n2,y,3\n"},
		{name: "weight only", content: "weight\n1\n2\n"},
		{name: "two weights", content: "weight,Weight\n1,2\n3,4\n"},
		{name: "weight typed", content: "a,weight\n1,2\n", types: map[string]shardkey.Type{"weight": shardkey.Text}},
		{name: "weight negative", content: "a,weight\n1,1\n2,-2\n"},
		{name: "weight NaN", content: "a,weight\n1,1\n2,NaN\n"},
		{name: "weight Inf", content: "a,weight\n1,1\n2,+Inf\n"},
		{name: "weight huge", content: "a,weight\n1,1\n2,1e301\n"},
		{name: "weight text", content: "a,weight\n1,1\n2,heavy\n"},
		{name: "weight empty", content: "a,weight\n1,1\n2,\n"},
		{name: "weight bad after many", content: "a,weight\n" + lines(1500, func(i int) string { return fmt.Sprintf("%d,%d", i, i%3) }) + "9,x\n"},
		{name: "bom", content: "\ufeffa,b\n1,2\n"},
		{name: "bom only", content: "\ufeff"},
		{name: "bom newline", content: "\ufeff\na\n1\n"},
		{name: "bom twice", content: "\ufeff\ufeffa\n1\n"},
		{name: "bom weight", content: "\ufeffweight,a\n1,2\n"},
		{name: "crlf", content: "a,b\r\n1,x\r\n2,y\r\n"},
		{name: "crlf empty lines", content: "a,b\r\n\r\n1,x\r\n\r\n\r\n2,y\r\n\r\n"},
		{name: "trailing cr at eof", content: "a,b\n1,x\n2,y\r"},
		{name: "cr only line at eof", content: "a,b\n1,x\n\r"},
		{name: "double cr", content: "a,b\n1,x\r\r\n2,y\r\r"},
		{name: "cr in middle", content: "a,b\n1,x\ry\n2,\r\n"},
		{name: "cr line", content: "a\n1\n\r\r\n2\n"},
		{name: "cr header", content: "a,b\r\n1,2\n"},
		{name: "no final newline", content: "a,b\n1,2\n3,4"},
		{name: "empty lines middle", content: "a,b\n1,2\n\n\n3,4\n\n5,6\n"},
		{name: "empty lines start", content: "\n\na,b\n1,2\n"},
		{name: "crlf lines start", content: "\r\n\r\na,b\r\n1,2\r\n"},
		{name: "empty lines end", content: "a,b\n1,2\n\n\n\n"},
		{name: "empty lines only after header", content: "a,b\n\n\n\r\n"},
		{name: "empty lines then error", content: "\n\na,b\n\n1,2\n\n3\n"},
		{name: "too many fields", content: "a,b\n1,2\n3,4,5\n"},
		{name: "too few fields", content: "a,b\n1,2\n3\n"},
		{name: "too few fields first", content: "a,b\n3\n1,2\n"},
		{name: "trailing comma", content: "a,b\n1,2,\n"},
		{name: "short row after many", content: "a,b\n" + lines(1200, func(i int) string { return fmt.Sprintf("%d,%d", i, i) }) + "1\n"},
		{name: "duplicate header", content: "a,b,a\n1,2,3\n"},
		{name: "duplicate header spaces", content: "a, a\n1,2\n"},
		{name: "empty header name", content: "a,,b\n1,2,3\n"},
		{name: "space header name", content: "a, \n1,2\n"},
		{name: "trailing comma header", content: "a,b,\n1,2,3\n"},
		{name: "header spaces", content: " a , b\t\n1,2\n"},
		{name: "header only", content: "a,b\n"},
		{name: "header only no newline", content: "a,b"},
		{name: "header only crlf", content: "a,b\r\n\r\n"},
		{name: "empty file", content: ""},
		{name: "only newlines", content: "\n\n\n"},
		{name: "only crlf", content: "\r\n\r\n"},
		{name: "only cr", content: "\r"},
		{name: "single column", content: "a\n1\n2\n3\n"},
		{name: "single empty column values", content: "a\n\n\n"},
		{name: "type fails after 1000", content: "a\n" + lines(1000, func(i int) string { return fmt.Sprint(i) }) + "x\n"},
		{name: "type fails after 1000 with gaps", content: "a,b\n" + lines(1000, func(i int) string {
			if i%10 == 0 {
				return ""
			}
			return fmt.Sprintf("%d,%d", i, i)
		}) + lines(200, func(i int) string { return fmt.Sprintf("%d,1", i) }) + "5,1.5\n"},
		{name: "float after 1000", content: "a\n" + lines(1000, func(i int) string { return fmt.Sprint(i) }) + "1.5\n"},
		{name: "int inferred float later", content: "a\n" + lines(1001, func(i int) string { return fmt.Sprintf("%d.25", i) }) + "7\n,\n"},
		{name: "null after 1000", content: "a,b\n" + lines(1100, func(i int) string { return fmt.Sprintf("%d,x", i) }) + ",y\n5,\n"},
		{name: "many rows", content: "a,f,s\n" + lines(3000, many)},
		{name: "many rows crlf", content: "a,f,s\r\n" + strings.ReplaceAll(lines(2500, many), "\n", "\r\n")},
		{name: "tsv", content: "a\tb\tc\n1\tx,y\t1.5\n2\t\t\n", tsv: true},
		{name: "tsv weight", content: "weight\tk\n1\t2\n-1\t3\n", tsv: true},
		{name: "tsv fields", content: "a\tb\n1\t2\t3\n", tsv: true},
		{name: "tsv commas", content: "a,b\tc\n1,2\t3\n", tsv: true},
		{name: "tsv crlf", content: "a\tb\r\n\r\n1\t2\r\n3\t4", tsv: true},
		{name: "tsv header dup", content: "a\ta\n1\t2\n", tsv: true},
		{name: "invalid utf8", content: "a,b\n\xff,1\n\xfe\xfe,2\n"},
		{name: "nul bytes", content: "a,b\n\x00,1\nx\x00y,2\n"},
		{name: "quote-like", content: "a,b\n'x',1\n`y`,2\n"},
		// fastRow, the one-pass parse of a line of plain ints, text and
		// a weight, must give up on each of these as the slow path does.
		{name: "text last, a field too many", content: "a,s\n1,x\n2,y,z\n"},
		{name: "text last, a field too few", content: "a,s\n1,x\n2\n"},
		{name: "weight last, a field too many", content: "a,weight\n1,1\n2,1,3\n"},
		{name: "weight last, a field too few", content: "a,s,weight\n1,x,1\n2,y\n"},
		{name: "int last, a field too many", content: "s,a\nx,1\ny,2,\n"},
		{name: "ints text weight", content: "a,s,weight\n-12,x,0.25\n999999999999999999,y,1\n-0,,2\n7,z,2.871580110239838e-07\n"},
		{name: "int64 forced junk", content: "a,s\n1,x\n12a,y\n", types: map[string]shardkey.Type{"a": shardkey.Int64}},
		{name: "int64 forced minus only", content: "a,s\n1,x\n-,y\n", types: map[string]shardkey.Type{"a": shardkey.Int64}},
		{name: "int64 forced empty", content: "a,s\n1,x\n,y\n", types: map[string]shardkey.Type{"a": shardkey.Int64}},
		{name: "int64 forced 19 digits", content: "a,s\n1,x\n1234567890123456789,y\n", types: map[string]shardkey.Type{"a": shardkey.Int64}},
		{name: "weight 17 digits and bad", content: "a,weight\n1,0.12345678901234567\n2,-1\n"},
		{name: "weight spaces", content: "a,weight\n1, 0.5\n2,0.5 \n"},
		// The weight is read where it starts (exactFloatPrefix): a field
		// with more after the number, in the middle of the line or last,
		// is left to the slow path, which reports it or reads it.
		{name: "weight first, junk after the number", content: "weight,a\n1.5,1\n2.5x,2\n"},
		{name: "weight middle, junk after the number", content: "a,weight,s\n1,1.5,x\n2,2.5e,y\n3,2.5e+,z\n"},
		{name: "weight middle, exponent then junk", content: "a,weight,s\n1,1e5,x\n2,1e5e5,y\n"},
		{name: "weight last, junk after the number", content: "a,weight\n1,1.5\n2,2.5.5\n"},
		{name: "weight last, a second number", content: "a,weight\n1,1.5\n2,2.5-3\n"},
		{name: "weight last, text after", content: "a,weight\n1,1.5\n2,1.5 kg\n"},
		{name: "weight middle, empty", content: "a,weight,s\n1,1,x\n2,,y\n"},
		{name: "weight middle, 20 digits", content: "a,weight,s\n1,1,x\n2,12345678901234567890,y\n"},
		{name: "weight middle, 19 digits then junk", content: "a,weight,s\n1,1,x\n2,1234567890123456789q,y\n"},
		{name: "weight middle, infinity", content: "a,weight,s\n1,1,x\n2,1e400,y\n"},
		{name: "weight middle, exact forms", content: "a,weight,s\n1,2.871580110239838e-07,x\n2,4.3231893968012104e-07,y\n3,-0,z\n4,.5,w\n5,5.,v\n6,1E+2,u\n"},
		{name: "tsv weight middle, junk", content: "a\tweight\ts\n1\t1.5\tx\n2\t1.5,5\ty\n", tsv: true},
	}
}

// fastAndSlow reads content with both readers and returns "" if they agree,
// else what differs.
func fastAndSlow(content string, tsv bool, types map[string]shardkey.Type) string {
	file, sep := "f.csv", byte(',')
	if tsv {
		file, sep = "f.tsv", '\t'
	}
	o := Options{Types: types}
	fast, ferr := readCSVFast([]byte(content), file, "t", sep, o, false)
	slow, serr := readCSVRows(strings.NewReader(content), file, "t", o)
	if d := mappedAndSlow(content, file, sep, o, slow, serr); d != "" {
		return "mapped: " + d
	}
	return sameRead(fast, ferr, slow, serr)
}

// mappedAndSlow reads content from a file through readCSVMapped and
// returns "" if it agrees with slow (or does not take the file: a '"',
// or no mapping on this system). The table is compared once the mapping
// is released, so a value still referring to it would fault here.
func mappedAndSlow(content, file string, sep byte, o Options, slow *shardkey.Table, serr error) string {
	f, err := os.CreateTemp("", "csvmapped-*.csv")
	if err != nil {
		return err.Error()
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		return err.Error()
	}
	mapped, ok, merr := readCSVMapped(f, file, "t", sep, o)
	if !ok {
		if strings.Contains(content, `"`) || len(content) == 0 {
			return ""
		}
		if m, unmap := mapFile(f); m != nil {
			unmap()
			return "not taken, though the file maps and holds no quote"
		}
		return ""
	}
	return sameRead(mapped, merr, slow, serr)
}

// sameRead returns "" if two readers' results agree, else what differs.
func sameRead(fast *shardkey.Table, ferr error, slow *shardkey.Table, serr error) string {
	switch {
	case ferr != nil || serr != nil:
		if ferr == nil || serr == nil || ferr.Error() != serr.Error() {
			return fmt.Sprintf("errors differ:\nfast: %v\nslow: %v", ferr, serr)
		}
		if fast != nil || slow != nil {
			return "a table with an error"
		}
		return ""
	}
	return diffTables(fast, slow)
}

// diffTables describes how a (fast) differs from b (slow); floats compare by
// bits so that NaNs are equal to themselves.
func diffTables(a, b *shardkey.Table) string {
	if a.Name != b.Name || a.Rows != b.Rows {
		return fmt.Sprintf("table %q %d rows, want %q %d rows", a.Name, a.Rows, b.Name, b.Rows)
	}
	if !floatsEqual(a.Weights, b.Weights) {
		return fmt.Sprintf("weights\nfast: %#v\nslow: %#v", a.Weights, b.Weights)
	}
	if len(a.Columns) != len(b.Columns) || (a.Columns == nil) != (b.Columns == nil) {
		return fmt.Sprintf("columns %v, want %v", a.ColumnNames(), b.ColumnNames())
	}
	for i, ca := range a.Columns {
		cb := b.Columns[i]
		if ca.Name != cb.Name || ca.Type != cb.Type {
			return fmt.Sprintf("column %d is %s %s, want %s %s", i, ca.Name, ca.Type, cb.Name, cb.Type)
		}
		if !reflect.DeepEqual(ca.Ints, cb.Ints) {
			return fmt.Sprintf("column %s Ints\nfast: %#v\nslow: %#v", ca.Name, ca.Ints, cb.Ints)
		}
		if !floatsEqual(ca.Floats, cb.Floats) {
			return fmt.Sprintf("column %s Floats\nfast: %#v\nslow: %#v", ca.Name, ca.Floats, cb.Floats)
		}
		if !reflect.DeepEqual(ca.Strs, cb.Strs) {
			return fmt.Sprintf("column %s Strs\nfast: %#v\nslow: %#v", ca.Name, ca.Strs, cb.Strs)
		}
		if !reflect.DeepEqual(ca.Nulls, cb.Nulls) {
			return fmt.Sprintf("column %s Nulls\nfast: %#v\nslow: %#v", ca.Name, ca.Nulls, cb.Nulls)
		}
	}
	// Anything the checks above missed (fields added to Table or Column).
	if !reflect.DeepEqual(nanFree(a), nanFree(b)) {
		return "tables differ (reflect.DeepEqual)"
	}
	return ""
}

func floatsEqual(a, b []float64) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// nanFree returns a copy of t with NaNs replaced, for reflect.DeepEqual.
func nanFree(t *shardkey.Table) *shardkey.Table {
	c := *t
	c.Columns = nil
	for _, col := range t.Columns {
		cc := *col
		if cc.Floats != nil {
			cc.Floats = make([]float64, len(col.Floats))
			for i, f := range col.Floats {
				if f != f {
					f = 0
				}
				cc.Floats[i] = f
			}
		}
		c.Columns = append(c.Columns, &cc)
	}
	return &c
}

func TestCSVFastMatchesCSVRows(t *testing.T) {
	for _, c := range csvCases() {
		if strings.Contains(c.content, `"`) {
			t.Fatalf("%s: the fast reader is only for files without '\"'", c.name)
		}
		t.Run(c.name, func(t *testing.T) {
			for _, n := range chunkSizes {
				setChunkSize(t, n)
				if d := fastAndSlow(c.content, c.tsv, c.types); d != "" {
					t.Fatalf("csvChunkSize %d, content %q:\n%s", n, truncate(c.content), d)
				}
			}
		})
	}
}

// TestCSVFastFormerDifferences checks inputs on which the two readers once
// differed: header errors after empty lines (now both at the header's
// line) and a column typed Null (only Nulls kept).
func TestCSVFastFormerDifferences(t *testing.T) {
	for _, c := range []csvCase{
		{name: "header error after empty lines", content: "\n\na,a\n1,2\n"},
		{name: "empty header name after crlf line", content: "\r\na,\n1,2\n"},
		{name: "null-typed column", content: "a,b\n1,2\n,3\n", types: map[string]shardkey.Type{"a": shardkey.Null}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, n := range chunkSizes {
				setChunkSize(t, n)
				if d := fastAndSlow(c.content, c.tsv, c.types); d != "" {
					t.Fatalf("csvChunkSize %d, content %q:\n%s", n, c.content, d)
				}
			}
		})
	}
	// The header's line is the one named.
	_, err := readCSVFast([]byte("\n\na,a\n1,2\n"), "f.csv", "t", ',', Options{}, false)
	if err == nil || !strings.HasPrefix(err.Error(), "f.csv:3:") {
		t.Errorf("header error %v, want it at f.csv:3", err)
	}
}

func truncate(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// fuzzTypes are the column types the fuzz test can fix for column "a"
// (index 0: none, the type is inferred).
var fuzzTypes = []shardkey.Type{shardkey.Null, shardkey.Int16, shardkey.Int32, shardkey.Int64, shardkey.Uint64,
	shardkey.Float32, shardkey.Float64, shardkey.Text, shardkey.Bytes, shardkey.UUID, shardkey.Timestamp, shardkey.Null}

func FuzzCSVFast(f *testing.F) {
	for i, c := range csvCases() {
		typ := uint8(0)
		if t, ok := c.types["a"]; ok {
			typ = uint8(t)
		}
		f.Add(c.content, uint16(chunkSizes[i%len(chunkSizes)]%1000), c.tsv, typ)
	}
	for _, s := range []string{
		"a,b\n1,2\n\n3,4\r\n5,6\r",
		"a\n1\n\r\n\r\r\n2",
		"weight\n\n1\n\n",
		"a\n\n\n",
		"a\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\nx\n",
	} {
		f.Add(s, uint16(1), false, uint8(0))
	}
	f.Fuzz(func(t *testing.T, content string, chunk uint16, tsv bool, typ uint8) {
		if strings.Contains(content, `"`) {
			return
		}
		var types map[string]shardkey.Type
		if k := int(typ) % len(fuzzTypes); k > 0 {
			types = map[string]shardkey.Type{"a": fuzzTypes[k]}
		}
		setChunkSize(t, int(chunk)+1)
		if d := fastAndSlow(content, tsv, types); d != "" {
			t.Fatalf("csvChunkSize %d, types %v, content %q:\n%s", chunk+1, types, content, d)
		}
	})
}

// TestReadRowsFastCSV reads files larger than a chunk through ReadRows, which
// takes the fast path for them, and compares with readCSVRows.
func TestReadRowsFastCSV(t *testing.T) {
	row := func(i int) string {
		w := fmt.Sprint(i % 5)
		f := ""
		if i%17 != 0 {
			f = fmt.Sprintf("%d.%d", i/3, i%10)
		}
		line := fmt.Sprintf("%d,%d,c%d,%s,2024-01-%02d %02d:%02d:00,%s", i, -i*7919, i%101, f, 1+i%28, i%24, i%60, w)
		if i%1000 == 999 {
			line += "\r"
		}
		if i%777 == 0 {
			line += "\n"
		}
		return line
	}
	header := "\ufeffid,user_id,country,score,created_at,weight\n"
	small := header + lines(20_000, row)
	// With the default chunk size, a file of a few chunks.
	big := header + lines(250_000, row)
	if len(big) <= 4<<20 {
		t.Fatalf("big file is %d bytes, not more than a chunk", len(big))
	}
	bad := header + lines(20_000, row)
	badLine := strings.Count(bad, "\n") + 1
	bad += "1,2,x,1.5,2024-01-01,-1\n" + lines(10, row)
	for _, c := range []struct {
		name, content string
		chunk         int
	}{
		{"small chunks", small, 1 << 10},
		{"default chunks", big, 4 << 20},
		{"error in a late chunk", bad, 1 << 12},
	} {
		t.Run(c.name, func(t *testing.T) {
			setChunkSize(t, c.chunk)
			p := filepath.Join(t.TempDir(), "rows.csv")
			if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			o := Options{Types: map[string]shardkey.Type{"user_id": shardkey.Int32}}
			fast, ferr := ReadRows(p, "t", o)
			slow, serr := readCSVRows(strings.NewReader(c.content), p, "t", o)
			if ferr != nil || serr != nil {
				if ferr == nil || serr == nil || ferr.Error() != serr.Error() {
					t.Fatalf("errors differ:\nfast: %v\nslow: %v", ferr, serr)
				}
				if want := fmt.Sprintf(":%d: weight: weight -1 is negative", badLine); !strings.Contains(ferr.Error(), want) {
					t.Errorf("error %v, want one at line %d", ferr, badLine)
				}
				return
			}
			if d := diffTables(fast, slow); d != "" {
				t.Fatal(d)
			}
			if fast.Weights == nil || fast.Columns[0].Type != shardkey.Int64 || fast.Columns[3].Type != shardkey.Float64 ||
				fast.Columns[3].Nulls == nil || fast.Columns[4].Type != shardkey.Timestamp || fast.Columns[1].Type != shardkey.Int32 {
				t.Errorf("unexpected table: columns %v, types %v %v %v", fast.ColumnNames(), fast.Columns[0].Type, fast.Columns[3].Type, fast.Columns[4].Type)
			}
			if err := fast.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestReadAllAtShrunk: a file shorter than the size it had when opened (it
// was truncated meanwhile) is an error that says so, not "EOF".
func TestReadAllAtShrunk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rows.csv")
	if err := os.WriteFile(path, []byte("id\n1\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := readAllAt(f, make([]byte, 20)); err != errShrunk {
		t.Errorf("reading 20 bytes of a 7-byte file: %v; want %v", err, errShrunk)
	}
	if q, err := readAllAt(f, make([]byte, 7)); err != nil || q {
		t.Errorf("reading it whole: quoted %v, %v", q, err)
	}
}

// TestCSVMappedTruncated: a row file truncated while its mapping is read
// (after mapping it, before parsing) is an error saying the file changed,
// not a crash, wherever the cut falls: before the header's end or within
// the rows.
func TestCSVMappedTruncated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rows.csv")
	var sb strings.Builder
	sb.WriteString("id,name,weight\n")
	for i := 0; sb.Len() < 4<<20; i++ {
		fmt.Fprintf(&sb, "%d,n%d,%d\n", i, i%7, i%3+1)
	}
	defer func() { afterMap = nil }()
	for _, keep := range []int64{0, 2 << 20} {
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		mapped := false
		afterMap = func(*os.File) {
			mapped = true
			if err := os.Truncate(path, keep); err != nil {
				t.Fatal(err)
			}
		}
		_, ok, err := readCSVMapped(f, path, "t", ',', Options{})
		f.Close()
		if !mapped {
			t.Skip("the file was not mapped on this system")
		}
		if !ok || err == nil || !strings.Contains(err.Error(), path+": the file changed") {
			t.Errorf("truncated to %d bytes: taken %v, error %v; want one saying %s changed while being read", keep, ok, err, path)
		}
	}
}

// TestCSVMappedQuoted: a mapped file holding a '"' anywhere (its header,
// a header that split at every comma would repeat a name, the first
// body line, a middle chunk, its last byte) is not taken by
// readCSVMapped (false, no error, whatever else the fast reader would
// have said of it), and ReadRows reads it as encoding/csv does.
func TestCSVMappedQuoted(t *testing.T) {
	body := lines(3000, func(i int) string { return fmt.Sprintf("%d,x%d", i, i%7) })
	for _, c := range []struct{ name, content string }{
		{"header", "\"a\",b\n" + body},
		{"header split would repeat a name", "\"a,a\",b\n1,2\n"},
		{"first line", "a,b\n\"1\",y\n" + body},
		{"middle", "a,b\n" + body + "5,\"q\"\n" + body},
		{"last byte", "a,b\n" + body + "5,\"q\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, n := range []int{1, 100, 4 << 20} {
				setChunkSize(t, n)
				path := filepath.Join(t.TempDir(), "q.csv")
				if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
					t.Fatal(err)
				}
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				tb, ok, err := readCSVMapped(f, path, "t", ',', Options{})
				f.Close()
				if ok || tb != nil || err != nil {
					t.Fatalf("chunk size %d: readCSVMapped took a quoted file: %v, %v", n, ok, err)
				}
				got, gerr := ReadRows(path, "t", Options{})
				want, werr := readCSVRows(strings.NewReader(c.content), path, "t", Options{})
				if d := sameRead(got, gerr, want, werr); d != "" {
					t.Fatalf("chunk size %d: ReadRows and encoding/csv differ: %s", n, d)
				}
			}
		})
	}
}
