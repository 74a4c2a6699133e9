package input

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/shardkey/shardkey"
)

func write(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadCSVRows(t *testing.T) {
	p := write(t, "orders.csv", "customer_id,order_month,weight\n1,2024-03,0.5\n2,2024-04,1.5\n")
	tb, err := ReadRows(p, "orders", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tb.Rows != 2 || len(tb.Columns) != 2 || tb.Columns[0].Type != shardkey.Int64 || tb.Columns[1].Type != shardkey.Text {
		t.Fatalf("got %d rows, columns %v types %s %s", tb.Rows, tb.ColumnNames(), tb.Columns[0].Type, tb.Columns[1].Type)
	}
	if tb.Weights[1] != 1.5 || tb.Columns[0].Value(1) != shardkey.IntValue(2) {
		t.Errorf("row 2 = %v weight %v", tb.Columns[0].Value(1), tb.Weights[1])
	}
	tb, err = ReadRows(p, "orders", Options{Types: map[string]shardkey.Type{"customer_id": shardkey.Int32}})
	if err != nil || tb.Columns[0].Type != shardkey.Int32 {
		t.Errorf("--column-type not applied: %v %v", err, tb)
	}
}

// TestBadInput: every bad file gives one clear error naming the file, the
// line and the field.
func TestBadInput(t *testing.T) {
	rows := func(name, content string) error {
		_, err := ReadRows(write(t, name, content), "t", Options{})
		return err
	}
	queries := func(content string) error {
		w := &shardkey.Workload{}
		return NewBuilder(w, Options{}).ReadQueries(write(t, "q.jsonl", content))
	}
	txns := func(content string) error {
		w := &shardkey.Workload{}
		return NewBuilder(w, Options{}).ReadTxns(write(t, "t.jsonl", content))
	}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"empty csv", rows("e.csv", ""), "e.csv:1: empty file"},
		{"header only", rows("h.csv", "a,b\n"), "h.csv:2: no rows"},
		{"short row", rows("s.csv", "a,b\n1,2\n3\n"), "s.csv:3"},
		{"bad quote", rows("q.csv", "a,b\n1,\"x\n"), "q.csv:"},
		{"not int", rows("i.csv", "a\n"+strings.Repeat("1\n", 1001)+"x\n"), `i.csv:1003: a: "x" is not an int64`},
		{"NaN weight", rows("n.csv", "a,weight\n1,NaN\n"), "n.csv:2: weight: weight is NaN"},
		{"negative weight", rows("w.csv", "a,weight\n1,-2\n"), "w.csv:2: weight: weight -2 is negative"},
		{"duplicate column", rows("d.csv", "a,a\n1,2\n"), "d.csv:1: a: column named twice"},
		// A header no column could have: file, line 1, the column's
		// position, and the byte of the name (b\x00c: byte 2; caf\xe9, a
		// Latin-1 é: byte 4).
		{"NUL in header", rows("z.csv", "a,b\x00c\n1,2\n"), "z.csv:1: column 2: column name in header holds a NUL byte (byte 2 of the name)"},
		{"Latin-1 header", rows("l.csv", "id,caf\xe9\n1,2\n"), "l.csv:1: column 2: column name in header is not UTF-8 (byte 4 of the name, 0xe9)"},
		{"Latin-1 TSV header", rows("l.tsv", "caf\xe9\tid\n1\t2\n"), "l.tsv:1: column 1: column name in header is not UTF-8 (byte 4 of the name, 0xe9)"},
		{"empty jsonl", rows("e.jsonl", "\n\n"), "e.jsonl:1: empty file"},
		{"bad json", rows("b.jsonl", "{\"a\": 1}\n{\"a\": \n"), "b.jsonl:2: invalid JSON"},
		{"json not object", rows("a.jsonl", "[1,2]\n"), "a.jsonl:1: want a JSON object"},
		{"jsonl new column", rows("c.jsonl", strings.Repeat("{\"a\": 1}\n", 1000)+"{\"b\": 2}\n"), "c.jsonl:1001: b: column not in"},
		{"query no where", queries("{\"weight\": 1}\n"), "q.jsonl:1: where: missing"},
		{"query list", queries("{\"where\": {\"a\": [1, 2]}}\n"), `q.jsonl:1: a: a list is ambiguous`},
		{"query bad op", queries("{\"where\": {\"a\": {\"like\": 1}}}\n"), `q.jsonl:1: a.like: unknown comparison`},
		{"query weight", queries("{\"where\": {\"a\": 1}, \"weight\": -1}\n"), "q.jsonl:1: weight: weight -1 is negative"},
		{"query field", queries("{\"where\": {\"a\": 1}, \"wieght\": 1}\n"), "q.jsonl:1: wieght: unknown field"},
		{"empty queries", queries(""), "q.jsonl:1: empty file"},
		{"txn empty", txns("{\"writes\": []}\n"), "t.jsonl:1: writes: empty transaction"},
		{"txn not list", txns("{\"writes\": {\"a\": 1}}\n"), "t.jsonl:1: writes: want a list"},
	} {
		if c.err == nil {
			t.Errorf("%s: no error; want %q", c.name, c.want)
			continue
		}
		if !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %q; want it to contain %q", c.name, c.err, c.want)
		}
	}
}

func TestQueriesGroupByShape(t *testing.T) {
	w := &shardkey.Workload{}
	b := NewBuilder(w, Options{})
	err := b.ReadQueries(write(t, "q.jsonl", `{"where": {"c": 1}}
{"where": {"c": 2}, "weight": 3}
{"where": {"c": {"in": [1, 2]}}}
{"where": {"d": {"gte": "2024-01", "lt": "2024-03"}}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Ops) != 3 || w.Ops[0].Rate != 4 || len(w.Ops[0].Instances) != 2 {
		t.Fatalf("ops %d, first rate %v instances %d; want 3 ops, rate 4, 2 instances", len(w.Ops), w.Ops[0].Rate, len(w.Ops[0].Instances))
	}
	if w.Ops[1].Instances[0].Conds[0].Op != shardkey.In || w.Ops[2].Instances[0].Conds[0].Op != shardkey.Range {
		t.Errorf("IN and range conditions not recognised")
	}
}

func FuzzReadRows(f *testing.F) {
	f.Add("a,b,weight\n1,x,0.5\n", false)
	f.Add("{\"a\": 1, \"b\": \"x\"}\n{\"a\": 2.5}\n", true)
	f.Add("a\n\"\n", false)
	f.Add("{\"_id\": {\"$oid\": \"5b2be413c06d924ab26ff9ca\"}, \"d\": {\"$date\": \"2024-01-01T00:00:00Z\"}, \"b\": true, \"o\": {\"x\": [1]}}\n", true)
	f.Fuzz(func(t *testing.T, content string, jsonl bool) {
		name := "f.csv"
		if jsonl {
			name = "f.jsonl"
		}
		tb, err := ReadRows(write(t, name, content), "t", Options{})
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := tb.Validate(); err != nil {
			t.Fatalf("reader returned an invalid table: %v", err)
		}
	})
}

func FuzzReadQueries(f *testing.F) {
	f.Add("{\"where\": {\"a\": 1}, \"weight\": 2}\n{\"where\": {\"a\": {\"in\": [1, \"x\"]}}}\n")
	f.Add("{\"where\": {\"_id\": {\"$oid\": \"5b2be413c06d924ab26ff9ca\"}}}\n{\"where\": {\"d\": {\"gte\": {\"$date\": \"2024-01-01T00:00:00Z\"}}}}\n")
	f.Add("{\"where\": {\"a\": {\"gte\": 1, \"lt\": 5}}, \"kind\": \"update\"}\n")
	f.Fuzz(func(t *testing.T, content string) {
		w := &shardkey.Workload{}
		err := NewBuilder(w, Options{}).ReadQueries(write(t, "q.jsonl", content))
		if err != nil {
			if !strings.Contains(err.Error(), "q.jsonl") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("invalid workload: %v", err)
		}
	})
}

func FuzzReadTxns(f *testing.F) {
	f.Add("{\"writes\": [{\"a\": 1}, {\"a\": 2, \"b\": \"x\"}]}\n")
	f.Fuzz(func(t *testing.T, content string) {
		w := &shardkey.Workload{}
		err := NewBuilder(w, Options{}).ReadTxns(write(t, "t.jsonl", content))
		if err != nil {
			if !strings.Contains(err.Error(), "t.jsonl") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("invalid workload: %v", err)
		}
	})
}

// TestStrayValueWarning: an integer column that one value makes float64 is
// reported, with the line and column, by both CSV readers; a clean column
// is not.
func TestStrayValueWarning(t *testing.T) {
	content := "id,n,weight\n1,1,1\n2,2,1\n3,3,1\n\n4,4,1\n5,5,1\n6,6,1\n7,7,1\n8,8,1\n9,9,1\n1e3,10,1\n"
	const want = `f.csv:12: id: "1e3" makes the column float64`
	for name, read := range map[string]func(o Options) (*shardkey.Table, error){
		"fast": func(o Options) (*shardkey.Table, error) {
			return readCSVFast([]byte(content), "f.csv", "t", ',', o, false)
		},
		"csv": func(o Options) (*shardkey.Table, error) {
			return readCSVRows(strings.NewReader(content), "f.csv", "t", o)
		},
	} {
		var got []string
		tb, err := read(Options{Warn: func(e error) { got = append(got, e.Error()) }})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], want) {
			t.Errorf("%s: warnings %q; want one starting %q", name, got, want)
		}
		if tb.Column("id").Type != shardkey.Float64 || tb.Column("n").Type != shardkey.Int64 {
			t.Errorf("%s: types %s %s", name, tb.Column("id").Type, tb.Column("n").Type)
		}
	}
}

// TestJSONLRowTypes: JSONL row files type numbers as CSV files do: ids
// above int64 are uint64, integers beyond float64's exact range beside a
// float are text (distinct ids stay distinct), and a stray value among
// integers is reported.
func TestJSONLRowTypes(t *testing.T) {
	read := func(lines ...string) (*shardkey.Table, []string) {
		t.Helper()
		var warns []string
		f := write(t, "r.jsonl", strings.Join(lines, "\n")+"\n")
		tb, err := ReadRows(f, "r", Options{Warn: func(e error) { warns = append(warns, e.Error()) }})
		if err != nil {
			t.Fatal(err)
		}
		return tb, warns
	}
	tb, _ := read(`{"id": 9223372036854775808}`, `{"id": 18446744073709551615}`)
	if c := tb.Column("id"); c.Type != shardkey.Uint64 || c.Value(1).String() != "18446744073709551615" {
		t.Errorf("big ids: %s %v; want uint64", c.Type, c.Value(1))
	}
	tb, _ = read(`{"id": 1152921504606846977}`, `{"id": 1152921504606846978}`, `{"id": 1.0}`)
	if c := tb.Column("id"); c.Type != shardkey.Text || c.Value(0).Str == c.Value(1).Str {
		t.Errorf("ids beyond 2^53 beside a float: %s %v %v; want distinct text", c.Type, c.Value(0), c.Value(1))
	}
	var lines []string
	for i := 1; i <= 20; i++ {
		lines = append(lines, fmt.Sprintf(`{"id": %d}`, i))
	}
	_, warns := read(append(lines, `{"id": 1e3}`)...)
	if len(warns) != 1 || !strings.Contains(warns[0], `r.jsonl:21: id: "1e3" makes the column float64`) {
		t.Errorf("warnings %q; want one about 1e3 at line 21", warns)
	}
	_, warns = read(append(lines, `{"id": "x"}`)...)
	if len(warns) != 1 || !strings.Contains(warns[0], `r.jsonl:21: id: "x" makes the column text`) {
		t.Errorf("warnings %q; want one about \"x\" at line 21", warns)
	}
}

// TestBOMQuotedHeader: a byte-order mark before a quoted first header
// field (Excel's "CSV UTF-8") is read, not rejected by encoding/csv.
func TestBOMQuotedHeader(t *testing.T) {
	f := write(t, "b.csv", "\ufeff\"customer_id\",region\n1,eu\n2,\"us, west\"\n")
	tb, err := ReadRows(f, "b", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := tb.Column("customer_id"); c == nil || c.Type != shardkey.Int64 || tb.Rows != 2 || tb.Column("region").Value(1).Str != "us, west" {
		t.Errorf("columns %v, %d rows", tb.ColumnNames(), tb.Rows)
	}
}

// TestWeightMessages: a weight's error says what is wrong with it.
func TestWeightMessages(t *testing.T) {
	for in, want := range map[string]string{
		"1e999": "1e999 is out of range", "-1e999": "-1e999 is out of range", "1e201": "is too large (at most 1e+200)",
		"-2": "weight -2 is negative", "abc": `"abc" is not a number`, "NaN": "weight is NaN", "+Inf": "is not finite",
		"1_000": `"1_000" is not a number`, "0x1p4": `"0x1p4" is not a number`, // Go literals strconv takes
	} {
		if _, err := parseWeight(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseWeight(%q): %v; want %q", in, err, want)
		}
	}
	if w, err := parseWeight(" 0.25 "); err != nil || w != 0.25 {
		t.Errorf("parseWeight(0.25) = %v, %v", w, err)
	}
}

// TestLineLimit: a reader fails once a line runs past the limit, and not
// before.
func TestLineLimit(t *testing.T) {
	ok := &lineLimit{r: strings.NewReader("abc\ndefg\nhi"), max: 4}
	if _, err := io.ReadAll(ok); err != nil {
		t.Errorf("lines of at most 4 bytes: %v", err)
	}
	long := &lineLimit{r: strings.NewReader("abc\ndefgh\n"), max: 4}
	if _, err := io.ReadAll(iotest.OneByteReader(long)); err == nil || !strings.Contains(err.Error(), "longer than 4 bytes") {
		t.Errorf("a 5-byte line: %v", err)
	}
}

// TestEmptyRange: a range whose lower bound is above its upper one (or
// equal, with an end excluded) is an error naming the column, not a query
// that asks no shard.
func TestEmptyRange(t *testing.T) {
	rows := write(t, "r.csv", "id\n1\n2\n")
	for in, bad := range map[string]bool{`{"gte": 5, "lt": 1}`: true, `{"gte": 1, "lt": 1}`: true, `{"gte": 1, "lte": 1}`: false, `{"gt": 1, "lt": 3}`: false} {
		q := write(t, "q.jsonl", `{"where": {"id": `+in+`}}`+"\n")
		tb, err := ReadRows(rows, "r", Options{})
		if err != nil {
			t.Fatal(err)
		}
		w := &shardkey.Workload{Tables: []*shardkey.Table{tb}}
		err = NewBuilder(w, Options{}).ReadQueries(q)
		if bad != (err != nil) || bad && !strings.Contains(err.Error(), "q.jsonl:1: id: the range from") {
			t.Errorf("%s: %v", in, err)
		}
	}
}

// TestInputMessages: a directory given as a file, and a JSONL row whose
// weight is a string, are refused with a message that says so.
func TestInputMessages(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"rows.csv", "q.jsonl"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ReadRows(filepath.Join(dir, "rows.csv"), "t", Options{}); err == nil || err.Error() != filepath.Join(dir, "rows.csv")+": is a directory; give a file" {
		t.Errorf("rows directory: %v", err)
	}
	w := &shardkey.Workload{Tables: []*shardkey.Table{{Name: "t", Rows: 1, Columns: []*shardkey.Column{{Name: "id", Type: shardkey.Int64, Ints: []int64{1}}}}}}
	if err := NewBuilder(w, Options{}).ReadQueries(filepath.Join(dir, "q.jsonl")); err == nil || err.Error() != filepath.Join(dir, "q.jsonl")+": is a directory; give a file" {
		t.Errorf("queries directory: %v", err)
	}
	rows := filepath.Join(dir, "r.jsonl")
	if err := os.WriteFile(rows, []byte(`{"id": 1, "weight": "2"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRows(rows, "t", Options{}); err == nil || err.Error() != rows+`:1: weight: "2": a weight is a number, not a string` {
		t.Errorf("string weight: %v", err)
	}
}
