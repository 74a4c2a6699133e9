package input

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
)

// The streaming reader has two parsers for one format: scan, which takes
// the common line shape without allocating, and parseLine (fastjson),
// which takes everything. The tests below hold scan to parseLine's
// answers, and the streamed read (Builder.Sink) to the materialised one.

// scanLines are lines the scanner must accept (ok) or must leave to the
// slow path (!ok), for queries (txns false) and transactions.
var scanLines = []struct {
	line string
	txns bool
	ok   bool
}{
	// Queries the scanner takes.
	{`{"where": {"customer_id": 42}}`, false, true},
	{`{"where":{"customer_id":-42,"order_month":"2024-03"},"weight":3}`, false, true},
	{`{"where": {"b": null, "a": "x"}, "weight": 2.5}`, false, true},
	{`{"where": {"z": 1, "y": -2, "x": "3", "w": null}}`, false, true},
	{`{"where": {}}`, false, true},
	{`{}`, false, true},
	{`{"weight": 2}`, false, true},
	{`{ "where" : { "a" : 1 } , "weight" : 1e2 }`, false, true},
	{"{\t\"where\":\t{\"a\":\t1,\r\"b\" :\"x\"}\t}", false, true},
	{`{"where":{"a":1},"table":"orders","kind":"update","name":"bump","latency":"batch"}`, false, true},
	{`{"latency": "interactive", "name": "n", "kind": "delete", "table": "t", "weight": 0, "where": {"a": 0}}`, false, true},
	{`{"where": {"a": 123456789012345678}}`, false, true},
	{`{"where": {"a": -123456789012345678}}`, false, true},
	{`{"where": {"a": 0, "b": -0}}`, false, true},
	{`{"where": {"a": "héllo wörld"}}`, false, true},
	{`{"where": {"a": "a string longer than twenty-four bytes, not interned"}}`, false, true},
	{`{"where": {"": 1}}`, false, true},
	{`{"where": {"a": ""}}`, false, true},
	{`{"where": {"a": 1}, "kind": "bogus"}`, false, true},    // resolution rejects it, not the scanner
	{`{"where": {"a": 1}, "latency": "slow"}`, false, true},  // likewise
	{`{"where": {"a": 1}, "weight": -1}`, false, true},       // checkWeight rejects it
	{`{"where": {"a": 1}, "weight": 0.125e-2}`, false, true}, // any JSON number
	{`{"where": {"a": 1}, "weight": 1E+2}`, false, true},
	{`{"where": {"a": 1}, "table": ""}`, false, true}, // pickTable rejects it

	// Queries the scanner leaves to fastjson.
	{`{"where": {"a": {"in": [1, 2]}}}`, false, false},
	{`{"where": {"a": {"gte": 1, "lt": 5}}}`, false, false},
	{`{"where": {"a": {"eq": 5}}}`, false, false},
	{`{"where": {"a": [1, 2]}}`, false, false},
	{`{"where": {"a": 1.5}}`, false, false},
	{`{"where": {"a": 1e3}}`, false, false},
	{`{"where": {"a": 1E3}}`, false, false},
	{`{"where": {"a": -1.0}}`, false, false},
	{`{"where": {"a": "a\"b"}}`, false, false},
	{`{"where": {"a": "x\u0041"}}`, false, false},
	{`{"where": {"a\n": 1}}`, false, false},
	{`{"wh\u0065re": {"a": 1}}`, false, false},
	{"{\"where\": {\"a\": \"x\ty\"}}", false, false}, // a control character in a string
	{`{"where": {"a": 007}}`, false, false},
	{`{"where": {"a": -007}}`, false, false},
	{`{"where": {"a": 00}}`, false, false},
	{`{"where": {"a": 1234567890123456789}}`, false, false},
	{`{"where": {"a": -1234567890123456789}}`, false, false},
	{`{"where": {"a": 12345678901234567890}}`, false, false},
	{`{"where": {"a": true}}`, false, false},
	{`{"where": {"a": false}}`, false, false},
	{`{"where": {"a": nul}}`, false, false},
	{`{"where": {"a": -}}`, false, false},
	{`{"where": {"a": 1, "a": 2}}`, false, false},
	{`{"where": {"a": 1}, "where": {"a": 2}}`, false, false},
	{`{"where": {"a": 1}, "weight": 1, "weight": 2}`, false, false},
	{`{"where": {"a": 1}, "name": "x", "name": "y"}`, false, false},
	{`{"where": {"a": 1}, "table": "x", "table": "y"}`, false, false},
	{`{"where": {"a": 1}, "kind": "read", "kind": "update"}`, false, false},
	{`{"where": {"a": 1}, "latency": "batch", "latency": "batch"}`, false, false},
	{`{"where": {"a": 1}, "wieght": 1}`, false, false},
	{`{"where": {"a": 1}, "writes": []}`, false, false},
	{`{"where": {"a": 1}, "weight": "2"}`, false, false},
	{`{"where": {"a": 1}, "weight": null}`, false, false},
	{`{"where": {"a": 1}, "weight": +1}`, false, false},
	{`{"where": {"a": 1}, "weight": .5}`, false, false},
	{`{"where": {"a": 1}, "weight": 1e400}`, false, false},
	{`{"where": {"a": 1}, "weight": 1e}`, false, false},
	{`{"where": {"a": 1}, "name": ""}`, false, false},
	{`{"where": {"a": 1}, "kind": ""}`, false, false},
	{`{"where": {"a": 1}, "name": 5}`, false, false},
	{`{"where": {"a": 1}, "table": null}`, false, false},
	{`{"where": null}`, false, false},
	{`{"where": [1]}`, false, false},
	{`{"where": "a"}`, false, false},
	{`{"where": {"a": 1}}x`, false, false},
	{`{"where": {"a": 1}}}`, false, false},
	{`{"where": {"a": 1}} {}`, false, false},
	{`{"where": {"a": 1},}`, false, false},
	{`{"where": {"a": 1,}}`, false, false},
	{`{"where": {"a" 1}}`, false, false},
	{`{"where": {"a": 1 "b": 2}}`, false, false},
	{`"where": {"a": 1}`, false, false},
	{`{"where": {"a": 1}`, false, false},
	{`{"where": {"a": 1`, false, false},
	{`[{"where": {"a": 1}}]`, false, false},
	{`{where: {"a": 1}}`, false, false},

	// Transactions the scanner takes.
	{`{"writes": [{"a": 1}, {"a": 2, "b": "x"}]}`, true, true},
	{`{"writes": [{"o": 1}], "weight": 2, "table": "orders", "name": "place"}`, true, true},
	{`{"writes": []}`, true, true},
	{`{"writes": [{}]}`, true, true},
	{`{"writes": [{}, {"a": 1}, {}]}`, true, true},
	{`{"writes":[{"b":null,"a":-5}],"weight":0}`, true, true},
	{`{ "writes" : [ { "a" : 1 } , { "c" : 2, "b": 3 } ] , "name" : "t" }`, true, true},
	{`{"name": "first", "writes": [{"a": 123456789012345678}]}`, true, true},
	{`{}`, true, true},

	// Transactions the scanner leaves to fastjson.
	{`{"writes": [{"a": {"in": [1]}}]}`, true, false},
	{`{"writes": [{"a": 1.0}]}`, true, false},
	{`{"writes": {"a": 1}}`, true, false},
	{`{"writes": [1]}`, true, false},
	{`{"writes": [[{"a": 1}]]}`, true, false},
	{`{"writes": [{"a": 1}], "kind": "insert"}`, true, false},
	{`{"writes": [{"a": 1}], "latency": "batch"}`, true, false},
	{`{"where": {"a": 1}}`, true, false},
	{`{"writes": [{"a": 1}], "writes": []}`, true, false},
	{`{"writes": [{"a": 1}],}`, true, false},
	{`{"writes": [{"a": 1},]}`, true, false},
	{`{"writes": [{"a": 1}}`, true, false},
	{`{"writes": [{"a": 1} {"a": 2}]}`, true, false},
	{`{"writes": [{"a": 1, "a": 1}]}`, true, false},
	{`{"writes": [{"a": "\/"}]}`, true, false},
	{`{"writes": [{"a": 01}]}`, true, false},
	{`{"writes": [{"a": 1}]}]`, true, false},
	{`{"writes": [{"a": 1}], "weight": true}`, true, false},
}

// allowedFields returns the top-level fields of a query or transaction
// line, as ReadQueries and ReadTxns check them.
func allowedFields(txns bool) []string {
	if txns {
		return []string{"writes", "weight", "table", "name"}
	}
	return []string{"where", "weight", "table", "kind", "name", "latency"}
}

// checkScan runs scan on line and, when it accepts it, checks that
// parseLine accepts the line with the same conditions and fields. It
// returns scan's answer.
func checkScan(t *testing.T, p *lineParser, line []byte, txns bool) bool {
	t.Helper()
	var got scanned
	// Scratch left over from a previous line must not leak into this one.
	got.conds = append(got.conds, jcond{col: "stale", one: scalar{isInt: true, i: 99}})
	got.groups = append(got.groups, span{0, 1})
	got.name, got.kind = "stale", "stale"
	if !scan(&got, line, txns) {
		return false
	}
	jl := parseLine(p, line, 7)
	if jl.err != nil {
		t.Fatalf("%q (txns %v): scan accepts it, parseLine says %v", line, txns, jl.err)
	}
	for _, f := range jl.fields {
		if !slices.Contains(allowedFields(txns), f) {
			t.Fatalf("%q (txns %v): scan accepts it, but it has field %q", line, txns, f)
		}
	}
	var want scanned
	want.fromJline(&jl)
	if d := diffScanned(&got, &want); d != "" {
		t.Fatalf("%q (txns %v): scan and parseLine differ: %s", line, txns, d)
	}
	return true
}

// diffScanned describes how a and b differ ("" when they do not).
func diffScanned(a, b *scanned) string {
	groups := func(s *scanned) [][]jcond {
		var g [][]jcond
		for i := 0; i < len(s.groups); i++ {
			g = append(g, append([]jcond{}, s.group(i)...))
		}
		return g
	}
	ga, gb := groups(a), groups(b)
	if len(ga) != len(gb) {
		return fmt.Sprintf("%d groups (%v) vs %d (%v)", len(ga), ga, len(gb), gb)
	}
	for i := range ga {
		if len(ga[i]) != len(gb[i]) {
			return fmt.Sprintf("group %d: %+v vs %+v", i, ga[i], gb[i])
		}
		for k := range ga[i] {
			x, y := ga[i][k], gb[i][k]
			if x.x != nil || y.x != nil || x.col != y.col || x.op != y.op || x.one != y.one {
				return fmt.Sprintf("group %d condition %d: %+v vs %+v", i, k, x, y)
			}
		}
	}
	for _, s := range []*scanned{a, b} {
		for g, sp := range s.groups {
			if sp.lo > sp.hi || sp.hi > len(s.conds) || g > 0 && sp.lo < s.groups[g-1].lo {
				return fmt.Sprintf("groups %v over %d conditions", s.groups, len(s.conds))
			}
		}
	}
	type fields struct {
		HasWhr, HasWr, HasWt, HasTbl bool
		Weight                       float64
		Table, Kind, Name, Latency   string
	}
	fa := fields{a.hasWhr, a.hasWr, a.hasWt, a.hasTbl, a.weight, a.table, a.kind, a.name, a.latency}
	fb := fields{b.hasWhr, b.hasWr, b.hasWt, b.hasTbl, b.weight, b.table, b.kind, b.name, b.latency}
	if fa != fb {
		return fmt.Sprintf("fields %+v vs %+v", fa, fb)
	}
	return ""
}

func newLineParser() *lineParser { return &lineParser{names: map[string]string{}} }

// TestScanMatchesParseLine: scan accepts exactly the lines listed as
// common, and reads each as parseLine does.
func TestScanMatchesParseLine(t *testing.T) {
	p := newLineParser()
	for _, c := range scanLines {
		if got := checkScan(t, p, []byte(c.line), c.txns); got != c.ok {
			t.Errorf("scan(%q, txns %v) = %v; want %v", c.line, c.txns, got, c.ok)
		}
	}
	// Closed-form reading of one line, so the two parsers cannot agree on
	// a wrong answer: groups sorted by column, ints, strings, null.
	var s scanned
	line := `{"writes": [{"b": "x", "a": -7}, {}, {"c": null}], "weight": 4, "table": "t", "name": "n"}`
	if !scan(&s, []byte(line), true) {
		t.Fatalf("scan rejects %s", line)
	}
	want := []jcond{
		{col: "a", op: shardkey.Eq, one: scalar{isInt: true, i: -7}},
		{col: "b", op: shardkey.Eq, one: scalar{isStr: true, str: "x"}},
		{col: "c", op: shardkey.Eq, one: scalar{null: true}},
	}
	if !reflect.DeepEqual(s.conds, want) || !reflect.DeepEqual(s.groups, []span{{0, 2}, {2, 2}, {2, 3}}) {
		t.Errorf("conds %+v groups %v; want %+v and [{0 2} {2 2} {2 3}]", s.conds, s.groups, want)
	}
	if !s.hasWr || s.hasWhr || !s.hasWt || s.weight != 4 || !s.hasTbl || s.table != "t" || s.name != "n" {
		t.Errorf("fields %+v", s)
	}
	// A write repeated byte for byte is read once and shares its
	// conditions; one that differs by a space is read again.
	var r scanned
	line = `{"writes": [{"a": 1, "b": "x"}, {"a": 1, "b": "x"},{"a": 1, "b": "x"}, {"a": 1,  "b": "x"}, {"a": 1, "b": "x"}]}`
	if !scan(&r, []byte(line), true) {
		t.Fatalf("scan rejects %s", line)
	}
	if want := []span{{0, 2}, {0, 2}, {0, 2}, {2, 4}, {4, 6}}; !reflect.DeepEqual(r.groups, want) {
		t.Errorf("groups %v; want %v", r.groups, want)
	}
	for g, rep := range []bool{false, true, true, false, false} {
		if r.repeats(g) != rep {
			t.Errorf("repeats(%d) = %v; want %v", g, !rep, rep)
		}
	}
}

// FuzzScan: whatever the line, scan either leaves it to parseLine or
// reads it exactly as parseLine does (weights included, both through
// strconv: see TestStreamWeightsAsMaterialised).
func FuzzScan(f *testing.F) {
	for _, c := range scanLines {
		f.Add([]byte(c.line), c.txns)
	}
	p := newLineParser()
	f.Fuzz(func(t *testing.T, data []byte, txns bool) {
		// The reader hands over lines without their newline, trimmed.
		if bytes.IndexByte(data, '\n') >= 0 {
			return
		}
		data = bytes.TrimSpace(data)
		if len(data) == 0 {
			return
		}
		checkScan(t, p, data, txns)
	})
}

// e2eRows writes the row samples of two tables: orders (order_id,
// customer_id, order_month) and order_line (order_id, customer_id,
// line_id, item_id), with integer weights.
func e2eRows(t *testing.T, dir string) (orders, lines string) {
	t.Helper()
	var o, l strings.Builder
	o.WriteString("order_id,customer_id,order_month,weight\n")
	for i := 1; i <= 600; i++ {
		fmt.Fprintf(&o, "%d,%d,2024-%02d,%d\n", i, e2eCustomer(i), i%12+1, 1+i%4)
	}
	l.WriteString("line_id,order_id,customer_id,item_id,weight\n")
	for i := 1; i <= 1500; i++ {
		oid := i%600 + 1
		fmt.Fprintf(&l, "%d,%d,%d,%d,%d\n", i, oid, e2eCustomer(oid), i%97, 1+i%3)
	}
	orders, lines = filepath.Join(dir, "orders.csv"), filepath.Join(dir, "order_line.csv")
	if err := os.WriteFile(orders, []byte(o.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lines, []byte(l.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return orders, lines
}

func e2eCustomer(order int) int { return (order*7919)%53 + 1 }

// e2eWorkload reads the two row files into a new workload.
func e2eWorkload(t *testing.T, orders, lines string) *shardkey.Workload {
	t.Helper()
	w := &shardkey.Workload{Shards: 8}
	for _, f := range [][2]string{{"orders", orders}, {"order_line", lines}} {
		tb, err := ReadRows(f[1], f[0], Options{})
		if err != nil {
			t.Fatal(err)
		}
		w.Tables = append(w.Tables, tb)
	}
	return w
}

// e2eQuery returns query line i (0-based) and its weight: common lines the
// scanner reads and others it leaves to fastjson (IN lists, ranges,
// escapes, integral floats), several tables, kinds, names and latencies,
// and operations that first appear only in later batches.
func e2eQuery(i int) (string, float64) {
	w := 1 + i%5
	c := i*31%60 + 1 // some customers have no rows
	o := i*17%650 + 1
	switch {
	case i >= 5000 && i%7 == 3:
		return fmt.Sprintf(`{"where": {"item_id": %d, "line_id": %d}, "name": "late op", "weight": %d}`, i%97, i%1500+1, w), float64(w)
	case i >= 2300 && i < 2400 && i%3 == 0:
		return `{"where": {"customer_id": {"in": []}}, "table": "orders", "name": "matches nothing"}`, 1
	case i >= 6000 && i%11 == 5:
		return fmt.Sprintf(`{"where":{"customer_id":%d,"item_id":%d},"weight":%d}`, c, i%97, w), float64(w)
	case i >= 4200 && i%13 == 0:
		return fmt.Sprintf(`{"where": {"order_id": {"gt": %d}}, "table": "orders", "kind": "delete", "latency": "batch"}`, o), 1
	}
	switch i % 10 {
	case 0:
		return fmt.Sprintf(`{"where": {"customer_id": %d}, "table": "orders", "weight": %d}`, c, w), float64(w)
	case 1:
		return fmt.Sprintf(`{"where":{"order_id":%d,"customer_id":%d,"order_month":"2024-%02d"},"weight":%d}`, o, c, i%12+1, w), float64(w)
	case 2:
		return fmt.Sprintf(`{"where": {"customer_id": {"in": [%d, %d, %d]}}, "table": "orders", "weight": %d}`, c, c+1, c+9, w), float64(w)
	case 3:
		return fmt.Sprintf(`{"where": {"order_id": {"gte": %d, "lt": %d}}, "table": "order_line", "weight": %d}`, o, o+i%40, w), float64(w)
	case 4:
		return fmt.Sprintf(`{"where": {"order_id": %d}, "table": "orders", "kind": "update", "name": "bump order", "weight": %d}`, o, w), float64(w)
	case 5:
		return fmt.Sprintf(`{"where": {"line_id": %d}}`, i%1600+1), 1
	case 6:
		return fmt.Sprintf(`{"where": {"order_month": "2024\u002d%02d"}, "latency": "batch", "name": "monthly report"}`, i%12+1), 1
	case 7:
		return fmt.Sprintf(`{"where": {"order_id": %d.0, "line_id": %d}, "weight": %d}`, o, i%1500+1, w), float64(w)
	case 8:
		return fmt.Sprintf(`{ "kind" : "delete" , "where" : { "item_id" : %d } }`, i%97), 1
	default:
		return fmt.Sprintf(`{"where": {"order_id": %d, "customer_id": %d, "order_month": "2024-%02d"}, "kind": "insert", "table": "orders", "weight": %d}`, o, c, i%12+1, w), float64(w)
	}
}

// e2eTxn returns transaction line i and its weight.
func e2eTxn(i int) (string, float64) {
	w := 1 + i%3
	o := i*13%700 + 1
	c, c2 := e2eCustomer(o), i%60+1
	switch i % 6 {
	case 0:
		return fmt.Sprintf(`{"writes": [{"order_id": %d, "customer_id": %d, "order_month": "2024-%02d"}, {"order_id": %d, "customer_id": %d, "line_id": %d, "item_id": %d}], "weight": %d}`, o, c, i%12+1, o, c, i, i%97, w), float64(w)
	case 1:
		return fmt.Sprintf(`{"writes": [{"order_id": %d, "customer_id": %d}], "table": "orders", "name": "t"}`, o, c), 1
	case 2:
		return fmt.Sprintf(`{"writes": [{"order_id": %d, "customer_id": %d, "order_month": "2024\u002d01"}], "weight": 3}`, o, c), 3
	case 3:
		return fmt.Sprintf(`{"writes": [{"line_id": %d, "item_id": %d}]}`, i, i%97), 1
	case 4:
		return fmt.Sprintf(`{"writes":[{"order_id":%d,"customer_id":%d},{"order_id":%d,"customer_id":%d}],"table":"orders","weight":%d}`, o, c, o+1, c2, w), float64(w)
	default:
		return fmt.Sprintf(`{"writes": [{"order_id": %d, "customer_id": %d}], "table": "orders", "name": "t\u0031"}`, o, c), 1
	}
}

// writeLines writes n lines from gen to file (a blank line every 997th,
// which only shifts the numbering) and returns the summed weight.
func writeLines(t *testing.T, file string, n int, gen func(int) (string, float64)) float64 {
	t.Helper()
	var sb strings.Builder
	sum := 0.0
	for i := 0; i < n; i++ {
		if i%997 == 500 {
			sb.WriteString("  \n")
		}
		l, w := gen(i)
		sb.WriteString(l)
		sb.WriteByte('\n')
		sum += w
	}
	if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return sum
}

var e2eKeys = []string{
	"hash(customer_id)",
	"range(order_id)",
	"hash(customer_id, order_month)",
	"orders: hash(customer_id); order_line: hash(order_id)",
	"orders: range(order_id); order_line: replicate",
}

func compileAll(t *testing.T, w *shardkey.Workload, keys []string) []*sim.Scheme {
	t.Helper()
	return compileAllWith(t, w, keys, nil)
}

// compileAllWith compiles keys under engine eng (nil: the default).
func compileAllWith(t *testing.T, w *shardkey.Workload, keys []string, eng partition.Engine) []*sim.Scheme {
	t.Helper()
	var out []*sim.Scheme
	for _, k := range keys {
		d, err := shardkey.ParseDesign(k)
		if err != nil {
			t.Fatal(err)
		}
		s, err := sim.Compile(w, d, sim.Options{Shards: w.Shards, Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// readBoth reads queries and txns (either may be "") into a materialised
// workload and a streamed one, and returns each key's report both ways.
func readBoth(t *testing.T, orders, lines, queries, txns string, keys []string) (mat, str []*sim.Candidate, wm, ws *shardkey.Workload) {
	t.Helper()
	var q []string
	if queries != "" {
		q = []string{queries}
	}
	return readBothFiles(t, orders, lines, q, txns, keys)
}

// readBothFiles is readBoth for several query files, read in order.
func readBothFiles(t *testing.T, orders, lines string, queries []string, txns string, keys []string) (mat, str []*sim.Candidate, wm, ws *shardkey.Workload) {
	t.Helper()
	return readBothWith(t, nil, orders, lines, queries, txns, keys)
}

// readBothWith is readBothFiles under engine eng (nil: the default).
func readBothWith(t *testing.T, eng partition.Engine, orders, lines string, queries []string, txns string, keys []string) (mat, str []*sim.Candidate, wm, ws *shardkey.Workload) {
	t.Helper()
	wm = e2eWorkload(t, orders, lines)
	bm := NewBuilder(wm, Options{})
	ws = e2eWorkload(t, orders, lines)
	bs := NewBuilder(ws, Options{})
	if !bs.Frozen() {
		t.Fatal("row-sampled tables: want Frozen")
	}
	st := sim.NewStream(compileAllWith(t, ws, keys, eng))
	bs.Sink = st
	for _, b := range []*Builder{bm, bs} {
		for _, q := range queries {
			if err := b.ReadQueries(q); err != nil {
				t.Fatal(err)
			}
		}
		if txns != "" {
			if err := b.ReadTxns(txns); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, s := range compileAllWith(t, wm, keys, eng) {
		p, err := sim.Run(wm, s, 2)
		if err != nil {
			t.Fatal(err)
		}
		mat = append(mat, s.Report(p))
		q, err := st.Total(i, 2)
		if err != nil {
			t.Fatal(err)
		}
		str = append(str, st.Schemes[i].Report(q))
	}
	return mat, str, wm, ws
}

// TestStreamMatchesMaterialised: reading the samples into a Sink scores
// every key exactly as reading them into the workload does. Weights are
// integers and shards a power of two, so every sum is exact whatever the
// order of addition, and the reports must be equal bit for bit.
func TestStreamMatchesMaterialised(t *testing.T) {
	dir := t.TempDir()
	orders, lines := e2eRows(t, dir)
	queries, txns := filepath.Join(dir, "q.jsonl"), filepath.Join(dir, "t.jsonl")
	const nq, nt = 12000, 8000
	qWeight := writeLines(t, queries, nq, e2eQuery)
	writeLines(t, txns, nt, e2eTxn)
	// Several batches (blocks of blockSize bytes) each, and operations
	// that first appear beyond the first.
	qData, _ := os.ReadFile(queries)
	tData, _ := os.ReadFile(txns)
	if len(qData) < 3*blockSize || len(tData) < 2*blockSize || bytes.Index(qData, []byte("late op")) < blockSize {
		t.Fatalf("queries %d bytes, transactions %d, first late op at %d: make the files longer than blocks of %d",
			len(qData), len(tData), bytes.Index(qData, []byte("late op")), blockSize)
	}
	// A second query file: its operations continue the first file's, and
	// one ("second file") is new.
	queries2 := filepath.Join(dir, "q2.jsonl")
	qWeight += writeLines(t, queries2, 300, func(i int) (string, float64) {
		if i%4 == 1 {
			return fmt.Sprintf(`{"where": {"customer_id": %d, "order_month": "2024-01"}, "name": "second file", "weight": 2}`, i%60+1), 2
		}
		return e2eQuery(i * 23)
	})

	mat, str, wm, ws := readBothFiles(t, orders, lines, []string{queries, queries2}, txns, e2eKeys)

	// The workloads: the same operations in the same order (first use in
	// the file), the streamed one without instances or transactions.
	if len(wm.Ops) != len(ws.Ops) {
		t.Fatalf("%d operations materialised, %d streamed", len(wm.Ops), len(ws.Ops))
	}
	late := -1
	for i, a := range wm.Ops {
		b := ws.Ops[i]
		if a.Name != b.Name || a.Table != b.Table || a.Kind != b.Kind || a.Latency != b.Latency || a.Rate != b.Rate {
			t.Errorf("op %d: materialised %q table %d kind %v latency %q rate %v; streamed %q %d %v %q %v",
				i, a.Name, a.Table, a.Kind, a.Latency, a.Rate, b.Name, b.Table, b.Kind, b.Latency, b.Rate)
		}
		if len(b.Instances) != 0 {
			t.Errorf("op %d (%s): streamed workload holds %d instances", i, b.Name, len(b.Instances))
		}
		if a.Name == "late op" {
			late = i
		}
	}
	if late < 0 || wm.Ops[len(wm.Ops)-1].Name != "second file" {
		t.Fatal(`no "late op" or "second file" last: the generator no longer makes operations that start in a later batch or file`)
	}
	if len(ws.Txns) != 0 || len(wm.Txns) != nt {
		t.Errorf("transactions: %d materialised (want %d), %d streamed (want 0)", len(wm.Txns), nt, len(ws.Txns))
	}

	for i, k := range e2eKeys {
		a, err := json.Marshal(mat[i])
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(str[i])
		if !bytes.Equal(a, b) {
			t.Errorf("%s: reports differ\nmaterialised: %s\nstreamed:     %s", k, a, b)
			continue
		}
		// Independent totals: the file's summed weights and line count.
		if mat[i].RequestsPerS != qWeight || str[i].Transactions != nt {
			t.Errorf("%s: requests/s %v, transactions %d; want %v and %d", k, str[i].RequestsPerS, str[i].Transactions, qWeight, nt)
		}
		if len(str[i].Operations) != len(ws.Ops) || str[i].Operations[late].RequestsPerS == 0 {
			t.Errorf("%s: operations %+v", k, str[i].Operations)
		}
	}
}

// TestStreamZeroWeightOperation: an operation whose every line has weight
// 0 adds nothing to the fan-out statistics, streamed or not. Its instances
// count in neither the rate-weighted histogram nor (with Run, which skips
// an operation whose instances weigh 0 in all) the p99's instance count:
// here 99 single-shard and 1 scatter-gather requests give p99 1 (the
// sorted fan-out at floor(0.99 x 99) = 98 is 1). Counting the 101 weight-0
// instances too would make it the element at floor(0.99 x 200) = 198 of
// 201, whose weight share 199/201 x 100 = 99.005 exceeds the 99 requests of
// fan-out 1: p99 8.
func TestStreamZeroWeightOperation(t *testing.T) {
	dir := t.TempDir()
	orders, lines := e2eRows(t, dir)
	queries := filepath.Join(dir, "q.jsonl")
	writeLines(t, queries, 201, func(i int) (string, float64) {
		switch {
		case i < 99:
			return fmt.Sprintf(`{"where": {"customer_id": %d}, "table": "orders"}`, i%50+1), 1
		case i == 99:
			return `{"where": {"order_month": "2024-01"}}`, 1
		}
		return fmt.Sprintf(`{"where": {"item_id": %d}, "weight": 0}`, i%97), 0
	})
	mat, str, _, _ := readBoth(t, orders, lines, queries, "", []string{"hash(customer_id)"})
	if mat[0].FanoutP99 != 1 {
		t.Errorf("materialised fanout_p99 %v; want 1", mat[0].FanoutP99)
	}
	if str[0].FanoutP99 != 1 {
		t.Errorf("streamed fanout_p99 %v; want 1 (the weight-0 instances count in the p99's instance count)", str[0].FanoutP99)
	}
}

// TestStreamErrors: a bad line stops the streamed read with the message
// the materialised read gives, naming the file, line and field.
func TestStreamErrors(t *testing.T) {
	dir := t.TempDir()
	orders, lines := e2eRows(t, dir)
	goodQ := func(i int) string { l, _ := e2eQuery(i % 2000); return l }
	goodT := func(i int) string { l, _ := e2eTxn(i); return l }
	type bad struct {
		at   int // 1-based line number of the bad line
		line string
	}
	for _, c := range []struct {
		name  string
		txns  bool
		n     int // good lines around the bad ones
		bad   []bad
		field string // in the message
	}{
		{"unknown field", false, 600, []bad{{400, `{"where": {"customer_id": 1}, "table": "orders", "wieght": 2}`}}, "wieght"},
		{"unknown field on the slow path", false, 600, []bad{{400, `{"where": {"customer_id": {"in": [1]}}, "table": "orders", "x": 1}`}}, "x"},
		{"weight not a number", false, 600, []bad{{300, `{"where": {"customer_id": 1}, "table": "orders", "weight": "2"}`}}, "weight"},
		{"negative weight", false, 600, []bad{{300, `{"where": {"customer_id": 1}, "table": "orders", "weight": -2}`}}, "weight"},
		{"weight not finite", false, 600, []bad{{300, `{"where": {"customer_id": 1}, "table": "orders", "weight": 1e301}`}}, "weight"},
		{"missing where", false, 600, []bad{{451, `{"table": "orders", "weight": 2}`}}, "where"},
		{"where not an object", false, 600, []bad{{451, `{"where": [1], "table": "orders"}`}}, "where"},
		{"unknown column", false, 600, []bad{{212, `{"where": {"customer": 1}, "table": "orders"}`}}, "customer"},
		{"no table has the column", false, 600, []bad{{212, `{"where": {"customer": 1}}`}}, "table"},
		{"ambiguous table", false, 600, []bad{{212, `{"where": {"customer_id": 1}}`}}, "table"},
		{"unknown table", false, 600, []bad{{212, `{"where": {"customer_id": 1}, "table": "order"}`}}, "table"},
		{"value of the wrong type", false, 600, []bad{{333, `{"where": {"customer_id": "abc"}, "table": "orders"}`}}, "customer_id"},
		{"bad kind", false, 600, []bad{{500, `{"where": {"customer_id": 1}, "table": "orders", "kind": "upsert"}`}}, "kind"},
		{"bad latency", false, 600, []bad{{501, `{"where": {"customer_id": 1}, "table": "orders", "latency": "slow"}`}}, "latency"},
		{"invalid JSON", false, 600, []bad{{502, `{"where": {"customer_id": 1}, "table": "orders"`}}, ""},
		{"not an object", false, 600, []bad{{502, `["where"]`}}, ""},
		{"bad range", false, 600, []bad{{77, `{"where": {"order_id": {"gte": 1, "like": 2}}, "table": "orders"}`}}, "order_id.like"},
		{"first of two, in a later batch", false, 6000, []bad{{4500, `{"where": {"customer_id": 1}, "table": "orders", "kind": "upsert"}`}, {5500, `{"weight": 1}`}}, "kind"},
		{"first of two, in different batches", false, 6000, []bad{{5500, `{"where": {"customer_id": 1}, "table": "orders", "kind": "upsert"}`}, {1000, `{"weight": 1}`}}, "where"},
		{"missing writes", true, 600, []bad{{350, `{"weight": 1}`}}, "writes"},
		{"empty writes", true, 600, []bad{{351, `{"writes": []}`}}, "writes"},
		{"writes not a list", true, 600, []bad{{352, `{"writes": {"order_id": 1}}`}}, "writes"},
		{"write not an object", true, 600, []bad{{353, `{"writes": [{"order_id": 1, "customer_id": 2}, 5], "table": "orders"}`}}, "writes[1]"},
		{"unknown column in a write", true, 600, []bad{{354, `{"writes": [{"order_id": 1, "custid": 2}], "table": "orders"}`}}, "writes[0].custid"},
		{"kind in a transaction", true, 600, []bad{{355, `{"writes": [{"order_id": 1}], "table": "orders", "kind": "insert"}`}}, "kind"},
		{"transaction weight", true, 600, []bad{{356, `{"writes": [{"order_id": 1}], "table": "orders", "weight": -1}`}}, "weight"},
		{"invalid JSON transaction", true, 600, []bad{{357, `{"writes": [{"order_id": 1}`}}, ""},
		{"transaction in a later batch", true, 6000, []bad{{5500, `{"writes": [{"order_id": 1, "custid": 2}], "table": "orders"}`}}, "writes[0].custid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "samples.jsonl")
			var sb strings.Builder
			badAt := map[int]string{}
			for _, b := range c.bad {
				badAt[b.at] = b.line
			}
			first := c.bad[0].at
			for _, b := range c.bad {
				first = min(first, b.at)
			}
			for ln, g := 1, 0; ln <= c.n+len(c.bad); ln++ {
				if l, ok := badAt[ln]; ok {
					sb.WriteString(l)
				} else if c.txns {
					sb.WriteString(goodT(g))
					g++
				} else {
					sb.WriteString(goodQ(g))
					g++
				}
				sb.WriteByte('\n')
			}
			if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(c.name, "later batch") && strings.Index(sb.String(), c.bad[0].line) < blockSize {
				t.Fatalf("the bad line is in the first block of %d bytes", blockSize)
			}
			errM, errS := readErrs(t, orders, lines, file, c.txns)
			if errM == nil || errS == nil {
				t.Fatalf("materialised error %v, streamed error %v; want both", errM, errS)
			}
			if errM.Error() != errS.Error() {
				t.Errorf("materialised: %v\nstreamed:     %v", errM, errS)
			}
			prefix := fmt.Sprintf("%s:%d: ", file, first)
			if c.field != "" {
				prefix += c.field + ": "
			}
			if !strings.HasPrefix(errS.Error(), prefix) {
				t.Errorf("streamed error %q; want it to start %q", errS, prefix)
			}
		})
	}

	for _, content := range []string{"", "\n\n  \n"} {
		for _, txns := range []bool{false, true} {
			file := filepath.Join(t.TempDir(), "empty.jsonl")
			if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			errM, errS := readErrs(t, orders, lines, file, txns)
			if errM == nil || errS == nil || errM.Error() != errS.Error() || !strings.HasPrefix(errS.Error(), file+":1: empty file") {
				t.Errorf("empty file %q (txns %v): materialised %v, streamed %v; want both %s:1: empty file", content, txns, errM, errS, file)
			}
		}
	}
}

// readErrs reads file as queries (or transactions) materialised and
// streamed, and returns the two errors.
func readErrs(t *testing.T, orders, lines, file string, txns bool) (errM, errS error) {
	t.Helper()
	wm := e2eWorkload(t, orders, lines)
	ws := e2eWorkload(t, orders, lines)
	bm, bs := NewBuilder(wm, Options{}), NewBuilder(ws, Options{})
	bs.Sink = sim.NewStream(compileAll(t, ws, e2eKeys[:2]))
	if txns {
		return bm.ReadTxns(file), bs.ReadTxns(file)
	}
	return bm.ReadQueries(file), bs.ReadQueries(file)
}

// TestStreamWeightsAsMaterialised: a weight in any JSON number form is
// read as the correctly rounded float64 (strconv.ParseFloat, as the row
// readers read weights), by the scanner, by parseLine, and so in both the
// streamed and the materialised read.
func TestStreamWeightsAsMaterialised(t *testing.T) {
	nums := []string{"2.5", "0.125", "1e-3", "1.5e2", "3.6e-05", "36e-3", "8.41e21", "0.7e-20", "71e-22", "17e-23", "123456.789e3", "9007199254740993"}
	p := newLineParser()
	var fastBad []string
	for _, n := range nums {
		want, err := strconv.ParseFloat(n, 64)
		if err != nil {
			t.Fatal(err)
		}
		line := []byte(`{"where": {"customer_id": 1}, "table": "orders", "weight": ` + n + `}`)
		var s scanned
		if !scan(&s, line, false) || s.weight != want {
			t.Errorf("scan %s: weight %v; want %v", line, s.weight, want)
		}
		if jl := parseLine(p, line, 1); jl.err != nil || jl.weight != want {
			fastBad = append(fastBad, fmt.Sprintf("%s -> %v (want %v)", n, jl.weight, want))
		}
	}
	dir := t.TempDir()
	orders, lines := e2eRows(t, dir)
	queries := filepath.Join(dir, "q.jsonl")
	writeLines(t, queries, len(nums), func(i int) (string, float64) {
		return fmt.Sprintf(`{"where": {"customer_id": 1}, "table": "orders", "name": "w%d", "weight": %s}`, i, nums[i]), 0
	})
	_, _, wm, ws := readBoth(t, orders, lines, queries, "", e2eKeys[:1])
	var rateBad []string
	for i, n := range nums {
		want, _ := strconv.ParseFloat(n, 64)
		if ws.Ops[i].Rate != want {
			t.Errorf("streamed %s: rate %v; want %v", n, ws.Ops[i].Rate, want)
		}
		if wm.Ops[i].Rate != ws.Ops[i].Rate {
			rateBad = append(rateBad, fmt.Sprintf("%s: materialised %v, streamed %v", n, wm.Ops[i].Rate, ws.Ops[i].Rate))
		}
	}
	if len(fastBad) > 0 || len(rateBad) > 0 {
		t.Errorf("parseLine weights %v; rates %v", fastBad, rateBad)
	}
}

// TestMappedFileTruncated: a sample file that is truncated while it is
// read through its memory mapping (SIGBUS on the pages beyond the new
// end) gives an input error naming the file, not a crash.
func TestMappedFileTruncated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.jsonl")
	var sb strings.Builder
	for sb.Len() < 4<<20 {
		sb.WriteString(`{"where": {"user_id": 12345}}` + "\n")
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
		err = forEachBatch(path, f, true, func(p *lineParser, b *batch) {
			for _, l := range b.lines {
				if len(l) > 0 && l[0] == '{' {
					b.n++ // touch every line's bytes
				}
			}
		}, func(*batch) error { return nil })
		f.Close()
		if !mapped {
			t.Skip("the file was not mapped on this system")
		}
		if err == nil || !strings.Contains(err.Error(), path+": the file changed") {
			t.Errorf("truncated to %d bytes: error %v; want one saying %s changed while being read", keep, err, path)
		}
	}
}

// TestStreamErrorLineFarIn: an error on a line many blocks into a
// streamed file names that line (the mapped reader does not count lines;
// they are numbered batch by batch), as does a line too long.
func TestStreamErrorLineFarIn(t *testing.T) {
	dir := t.TempDir()
	rows := filepath.Join(dir, "users.csv")
	if err := os.WriteFile(rows, []byte("user_id\n1\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const bad = 54321
	var sb strings.Builder
	for i := 1; i < bad; i++ {
		if i%1000 == 0 {
			sb.WriteString("\n") // blank lines count too
		} else {
			sb.WriteString(`{"where": {"user_id": 1}}` + "\n")
		}
	}
	sb.WriteString(`{"where": {"user_idd": 1}}` + "\n")
	sb.WriteString(`{"where": {"user_id": 2}}` + "\n")
	queries := filepath.Join(dir, "q.jsonl")
	if err := os.WriteFile(queries, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &shardkey.Workload{}
	tb, err := ReadRows(rows, "users", Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Tables = append(w.Tables, tb)
	d, _ := shardkey.ParseDesign("hash(user_id)")
	s, err := sim.Compile(w, d, sim.Options{Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(w, Options{})
	b.Sink = sim.NewStream([]*sim.Scheme{s})
	err = b.ReadQueries(queries)
	if want := fmt.Sprintf("%s:%d: ", queries, bad); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v; want it at %s", err, want)
	}
}

// TestScannedReset: reset leaves no field of a line's metadata set (every
// field of lineMeta, by reflection, so that a field added later and not
// reset fails here) and empties the conditions, keeping their memory.
func TestScannedReset(t *testing.T) {
	var s scanned
	s.conds = append(s.conds, jcond{col: "a"})
	s.groups = append(s.groups, span{0, 1})
	v := reflect.ValueOf(&s.lineMeta).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem() // unexported
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.String:
			f.SetString("x")
		case reflect.Float64:
			f.SetFloat(7)
		default:
			t.Fatalf("lineMeta.%s: kind %s not set by this test", v.Type().Field(i).Name, f.Kind())
		}
	}
	s.reset()
	if s.lineMeta != (lineMeta{weight: 1}) {
		t.Errorf("after reset: %+v; want only weight 1", s.lineMeta)
	}
	if len(s.conds) != 0 || len(s.groups) != 0 || cap(s.conds) == 0 {
		t.Errorf("after reset: %d conds (cap %d), %d groups", len(s.conds), cap(s.conds), len(s.groups))
	}
}
