package input

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shardkey/shardkey"
)

// Line templates (template.go) must hand the sink what the general path
// (scan, or fastjson, then resolveInto) hands it for every line: the
// general path, with templates off, is the oracle. The lines mix the
// common shapes templates take with their near misses, which must fall
// back: reordered columns, other spacing, escapes, floats, nulls, nested
// objects, unicode, other fields, another table's columns, errors.

// tmplSink records what a reader hands it, in merge order, as text.
type tmplSink struct {
	mu      sync.Mutex
	out     strings.Builder
	touches bool
}

type tmplBatch struct {
	ev      []tmplEv
	touches bool
}

// Touches, Touch and Load make the reader queue lines (routeQueue) when
// touches is set.
func (b *tmplBatch) Touches() bool                   { return b.touches }
func (b *tmplBatch) Touch(int, []shardkey.Cond, int) {}
func (b *tmplBatch) Load()                           {}

// tmplEv is one call: an instance of batch operation op, or a transaction
// (op -1).
type tmplEv struct {
	op   int
	text string
}

func (s *tmplSink) NewBatch() shardkey.Batch { return &tmplBatch{touches: s.touches} }

func (s *tmplSink) Merge(b shardkey.Batch, ops []int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range b.(*tmplBatch).ev {
		if e.op >= 0 {
			fmt.Fprintf(&s.out, "op %d ", ops[e.op])
		}
		s.out.WriteString(e.text)
		s.out.WriteByte('\n')
	}
}

// condText prints a condition's every field (Bounds by value, values
// with their types: a Value prints as its text alone).
func condText(c shardkey.Cond) string {
	bd := c.Bounds
	c.Bounds = nil
	s := fmt.Sprintf("%+v (type %d", c, c.Val.Type)
	for _, v := range c.List {
		s += fmt.Sprintf(" %d", v.Type)
	}
	s += ")"
	if bd != nil {
		s += fmt.Sprintf(" bounds %+v (types %d %d)", *bd, bd.Lo.Type, bd.Hi.Type)
	}
	return s
}

func (b *tmplBatch) Instance(op, table int, kind shardkey.Kind, conds, sets []shardkey.Cond, w float64) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "table %d kind %v w %v", table, kind, w)
	for _, c := range conds {
		sb.WriteString(" | " + condText(c))
	}
	for _, c := range sets {
		sb.WriteString(" set " + condText(c))
	}
	b.ev = append(b.ev, tmplEv{op, sb.String()})
	return nil
}

func (b *tmplBatch) Txn(stmts []shardkey.Stmt, w float64) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "txn w %v", w)
	for k, st := range stmts {
		shared := k > 0 && len(st.Conds) > 0 && len(stmts[k-1].Conds) > 0 && &st.Conds[0] == &stmts[k-1].Conds[0]
		fmt.Fprintf(&sb, " || table %d kind %v shared %v", st.Table, st.Kind, shared)
		for _, c := range st.Conds {
			sb.WriteString(" | " + condText(c))
		}
	}
	b.ev = append(b.ev, tmplEv{-1, sb.String()})
	return nil
}

// streamRec reads file (queries or txns) into a recording sink over
// e2eWorkload's tables, with line templates on or off, and returns what
// the sink got, the workload's operations and the error.
func streamRec(t *testing.T, orders, lines, file string, txns, templates bool) (string, error) {
	t.Helper()
	a, errA := streamRecQ(t, orders, lines, file, txns, templates, false)
	b, errB := streamRecQ(t, orders, lines, file, txns, templates, true)
	if a != b || fmt.Sprint(errA) != fmt.Sprint(errB) {
		t.Errorf("queued and not, templates %v: %v and %v:\n%s", templates, errA, errB, firstDiff(a, b))
	}
	return a, errA
}

// streamRecQ is streamRec with the lines queued (routeQueue) or not.
func streamRecQ(t *testing.T, orders, lines, file string, txns, templates, queued bool) (string, error) {
	t.Helper()
	defer func(on bool) { lineTemplates = on }(lineTemplates)
	lineTemplates = templates
	w := e2eWorkload(t, orders, lines)
	b := NewBuilder(w, Options{})
	s := &tmplSink{touches: queued}
	b.Sink = s
	var err error
	if txns {
		err = b.ReadTxns(file)
	} else {
		err = b.ReadQueries(file)
	}
	for i, op := range w.Ops {
		fmt.Fprintf(&s.out, "op %d: %q table %d kind %v latency %q rate %v\n", i, op.Name, op.Table, op.Kind, op.Latency, op.Rate)
	}
	return s.out.String(), err
}

// templateQueries are query lines of one template family and their near
// misses; %d is an integer, %s a month.
var templateQueries = []string{
	`{"where": {"customer_id": %d, "order_month": "%s"}}`,
	`{"where": {"line_id": %d}}`,
	`{"where": {"order_month": "%s"}}`,
	`{"where": {"item_id": %d, "line_id": %d}}`,
	`{"where": {"customer_id": %d}}`,                      // in both tables: an error
	`{"where": {"order_id": %d}}`,                         // in both tables: an error
	`{"where": {"order_month": "%s", "customer_id": %d}}`, // reordered
	`{"where": {"line_id": %d, "item_id": %d}}`,
	`{"where": {"line_id":  %d}}`, // spacing
	`{"where": {"line_id": %d} }`,
	`{ "where": {"line_id": %d}}`,
	`{"where":{"line_id":%d}}`,
	`{"where": {"line_id": %d.0}}`, // floats
	`{"where": {"line_id": %de0}}`,
	`{"where": {"line_id": 0%d}}`,
	`{"where": {"line_id": -%d}}`,
	`{"where": {"line_id": 1234567890123456789}}`,
	`{"where": {"line_id": 123456789012345678}}`,
	`{"where": {"line_id": null}}`,                // null
	`{"where": {"line_id": "%d"}}`,                // a string for an integer column
	`{"where": {"order_month": %d}}`,              // an integer for a text column
	`{"where": {"order_month": "2024\u002d0%d"}}`, // escapes
	`{"where": {"order_month": "a\"%d"}}`,
	`{"where": {"order_month": "héllo wörld %d"}}`, // unicode
	`{"where": {"order_month": "%s\t"}}`,           // a control character
	`{"where": {"line_id": {"in": [%d, 3]}}}`,      // nested objects
	`{"where": {"line_id": {"gte": %d}}}`,
	`{"where": {"line_id": %d}, "weight": 2}`, // other fields
	`{"weight": 3, "where": {"line_id": %d}}`,
	`{"where": {"line_id": %d}, "kind": "update"}`,
	`{"where": {"line_id": %d}, "name": "by customer"}`,
	`{"where": {"line_id": %d}, "table": "orders"}`,
	`{"where": {"line_id": %d}, "latency": "batch"}`,
	`{"where": {"line_id": %d, "line_id": 4}}`, // a column twice
	`{"where": {"line_id": %d}}`,               // order_line's
	`{"where": {"item_id": %d, "line_id": 7}}`,
	`{"where": {"line_id": %d}}x`, // malformed
	`{"where": {"line_id": %d},}`,
	`{"where": {"line_id": %d}`,
	`{"where": {"line_id": %d}}}`,
	`{"where": {}}`,
	`{"where": {"line_id": %d, }}`,
}

// templateTxns are transaction lines likewise; %w is one write.
var templateTxns = []string{
	`{"writes": [%w]}`,
	`{"writes": [%w, %w]}`,
	`{"writes": [%w, %w, %w, %w, %w]}`,
	`{"writes": [%w,%w]}`,   // another separator
	`{"writes": [%w , %w]}`, // and another
	`{"writes": [ %w]}`,
	`{"writes": [%w] }`,
	`{"writes": [%w, %w], "weight": 2}`,
	`{"writes": [%w, %w], "table": "orders"}`,
	`{"writes": [%w, {"customer_id": 5.5}]}`,
	`{"writes": [%w, {"line_id": 4, "item_id": 5}]}`, // order_line's
	`{"writes": [%w, {}]}`,
	`{"writes": [%w, %w,]}`,
	`{"writes": [%w, %w]`,
	`{"writes": []}`,
	`{"writes": [%w]}x`,
	`{"writes": [%w, %w]}}`,
	`{"writes": [%w, %w]]}`,
}

// templateWrites are writes for templateTxns' %w.
var templateWrites = []string{
	`{"customer_id": %d, "order_id": %d, "order_month": "%s"}`,
	`{"customer_id": %d, "order_id": %d, "order_month": "%s"}`,
	`{"customer_id": %d, "order_id": %d, "order_month": "%s"}`,
	`{"order_id": %d, "customer_id": %d, "order_month": "%s"}`,
	`{"customer_id": %d, "order_id": %d, "order_month": null}`,
	`{"customer_id": %d, "order_id": %d.5, "order_month": "%s"}`,
	`{"customer_id": %d, "order_id": %d, "order_month": "%s\u0041"}`,
	`{"customer_id":%d,"order_id":%d,"order_month":"%s"}`,
}

// fill replaces %d and %s in f, in order, from rng.
func fill(f string, rng *rand.Rand) string {
	var sb strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			sb.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'd':
			fmt.Fprint(&sb, 1+rng.IntN(700))
		case 's':
			fmt.Fprintf(&sb, "2024-%02d", 1+rng.IntN(12))
		}
	}
	return sb.String()
}

// templateLine returns one generated line: mostly the common shapes,
// now and then (misses) a near miss.
func templateLine(rng *rand.Rand, txns, misses bool) string {
	if !txns {
		k := rng.IntN(4)
		if misses && rng.IntN(4) == 0 {
			k = rng.IntN(len(templateQueries))
		}
		return fill(templateQueries[k], rng)
	}
	k := rng.IntN(3)
	if misses && rng.IntN(4) == 0 {
		k = rng.IntN(len(templateTxns))
	}
	f := templateTxns[k]
	var sb strings.Builder
	var prev string
	for i := 0; i < len(f); i++ {
		if f[i] == '%' && i+1 < len(f) && f[i+1] == 'w' {
			i++
			if prev == "" || rng.IntN(2) == 0 { // else a repeat, as orders' lines repeat
				wk := rng.IntN(3)
				if misses && rng.IntN(6) == 0 {
					wk = rng.IntN(len(templateWrites))
				}
				prev = fill(templateWrites[wk], rng)
			}
			sb.WriteString(prev)
			continue
		}
		sb.WriteByte(f[i])
	}
	return sb.String()
}

// templateFile writes n generated lines, leaving out those the general
// path rejects (an error ends the read), judged once a shape (digits
// aside).
func templateFile(t *testing.T, orders, lines, file string, n int, txns bool, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 2))
	var sb strings.Builder
	bad := map[string]bool{}
	digits := strings.NewReplacer("1", "0", "2", "0", "3", "0", "4", "0", "5", "0", "6", "0", "7", "0", "8", "0", "9", "0")
	for n > 0 {
		l := templateLine(rng, txns, true)
		shape := digits.Replace(l)
		b, seen := bad[shape]
		if !seen {
			one := filepath.Join(filepath.Dir(file), "one.jsonl")
			if err := os.WriteFile(one, []byte(l+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := streamRec(t, orders, lines, one, txns, false)
			b = err != nil
			bad[shape] = b
		}
		if b {
			continue
		}
		sb.WriteString(l)
		sb.WriteByte('\n')
		n--
	}
	if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTemplatesMatchGeneralPath(t *testing.T) {
	dir := t.TempDir()
	orders, lines := e2eRows(t, dir)
	for _, txns := range []bool{false, true} {
		file := filepath.Join(dir, fmt.Sprintf("s%v.jsonl", txns))
		templateFile(t, orders, lines, file, 3000, txns, 1)
		want, werr := streamRec(t, orders, lines, file, txns, false)
		got, gerr := streamRec(t, orders, lines, file, txns, true)
		if werr != nil || gerr != nil {
			t.Fatalf("txns %v: errors %v and %v", txns, werr, gerr)
		}
		if got != want {
			t.Errorf("txns %v: with templates:\n%s\nwithout:\n%s", txns, firstDiff(got, want), firstDiff(want, got))
		}
		// The templates took most lines (a count independent of
		// them: the general path's lines that are a bare "where" or
		// "writes" of plain values).
		if n := strings.Count(want, "\n"); n < 3000 {
			t.Errorf("txns %v: %d events", txns, n)
		}
	}
}

// TestTemplatesErrors: a line the general path rejects after templates are
// learnt is rejected with the same error (file, line, field, message).
func TestTemplatesErrors(t *testing.T) {
	dir := t.TempDir()
	orders, lines := e2eRows(t, dir)
	for _, c := range []struct {
		bad  string
		txns bool
	}{
		{`{"where": {"line_id": 5, "nosuch": 1}}`, false},
		{`{"where": {"line_id": 5, "order_month": "2024-01"}}`, false}, // in no table
		{`{"where": {"customer_id": 5}}`, false},                       // in both tables
		{`{"where": {"line_id": 5}, "weight": -1}`, false},
		{`{"where": {"line_id": 5}}}`, false},
		{`{"where": {"line_id": 5.5}}`, false},
		{`{"where": {"line_id": "x"}}`, false},
		{`{"writes": [{"customer_id": 1, "order_id": 2, "order_month": "2024-01"}, {"nosuch": 1}]}`, true},
		{`{"writes": [{"customer_id": 1, "order_id": 2, "order_month": "2024-01"}, {"customer_id": 1, "order_id": 2, "order_month": "2024-01"},]}`, true},
		{`{"writes": [{"customer_id": 1, "order_id": 2, "order_month": "2024-01"}], "weight": "x"}`, true},
		{`{"writes": [{"customer_id": 1, "order_id": 2, "order_month": "2024-01"}]}}`, true},
		{`{"writes": [{"customer_id": 1, "order_id": 2, "order_month": "2024-01"}, {"customer_id": 1, "order_id": 2, "order_month": "2024-01"}]]}`, true},
	} {
		rng := rand.New(rand.NewPCG(3, 4))
		var sb strings.Builder
		for range 50 {
			sb.WriteString(templateLine(rng, c.txns, false) + "\n")
		}
		sb.WriteString(c.bad + "\n")
		file := filepath.Join(dir, "e.jsonl")
		if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		_, werr := streamRec(t, orders, lines, file, c.txns, false)
		_, gerr := streamRec(t, orders, lines, file, c.txns, true)
		if werr == nil || !strings.Contains(werr.Error(), "e.jsonl:51:") || fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Errorf("%s: with templates %v; without %v", c.bad, gerr, werr)
		}
	}
}

// TestTemplatesLineEnds: the reader walks a batch's bytes without
// cutting them into lines first, a template line ending at its newline; a
// line with anything after its template (spaces, a tab, the carriage
// return of a CRLF file), blank lines, lines of spaces, a line with a
// leading space and a last line without a newline stream as the general
// path streams them (templates off), and an error after them names the
// same line (blank ones counted: the 62nd here).
func TestTemplatesLineEnds(t *testing.T) {
	dir := t.TempDir()
	orders, lines := e2eRows(t, dir)
	for _, txns := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(7, 8))
		var sb strings.Builder
		n := 0
		add := func(s string) {
			sb.WriteString(s)
			n++
		}
		for range 20 {
			add(templateLine(rng, txns, false) + "\n")
		}
		for _, tail := range []string{"  \n", "\t\n", "\r\n", "\n", " \r\n"} {
			add(templateLine(rng, txns, false) + tail)
			add("\n")
			add("   \n")
			add(" " + templateLine(rng, txns, false) + "\n")
			add(templateLine(rng, txns, false) + "\r\n")
			add(templateLine(rng, txns, false) + "\n")
		}
		for range 10 {
			add(templateLine(rng, txns, false) + "\n")
		}
		last := templateLine(rng, txns, false)
		file := filepath.Join(dir, "ends.jsonl")
		for _, end := range []string{"", "\n", "\r\n", "  "} {
			if err := os.WriteFile(file, []byte(sb.String()+last+end), 0o644); err != nil {
				t.Fatal(err)
			}
			want, werr := streamRec(t, orders, lines, file, txns, false)
			got, gerr := streamRec(t, orders, lines, file, txns, true)
			if werr != nil || gerr != nil {
				t.Fatalf("txns %v, end %q: errors %v and %v", txns, end, werr, gerr)
			}
			if got != want {
				t.Errorf("txns %v, end %q: with templates:\n%s\nwithout:\n%s", txns, end, firstDiff(got, want), firstDiff(want, got))
			}
			// Every line but the blank ones is one event (with the
			// operations' summary lines after them).
			if k := strings.Count(want, "\n"); k < n+1-10 {
				t.Errorf("txns %v, end %q: %d events for %d lines", txns, end, k, n+1)
			}
		}
		bad := `{"where": {"line_id": 5, "nosuch": 1}}`
		if txns {
			bad = `{"writes": [{"nosuch": 1}]}`
		}
		if err := os.WriteFile(file, []byte(sb.String()+last+"\r\n"+bad+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, werr := streamRec(t, orders, lines, file, txns, false)
		_, gerr := streamRec(t, orders, lines, file, txns, true)
		at := fmt.Sprintf("ends.jsonl:%d:", n+2)
		if werr == nil || !strings.Contains(werr.Error(), at) || fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Errorf("txns %v: want an error at %s; with templates %v; without %v", txns, at, gerr, werr)
		}
	}
}

// firstDiff returns a's lines from the first that b lacks.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range al {
		if i >= len(bl) || al[i] != bl[i] {
			return fmt.Sprintf("line %d: %s", i+1, al[i])
		}
	}
	return "(a prefix)"
}

// FuzzTemplates: a line after lines that teach the templates, and the
// same lines again after it, stream as without templates (or fail alike).
func FuzzTemplates(f *testing.F) {
	for _, q := range templateQueries {
		f.Add(fill(q, rand.New(rand.NewPCG(1, 1))), false)
	}
	for range 20 {
		f.Add(templateLine(rand.New(rand.NewPCG(2, 2)), true, true), true)
	}
	dir := f.TempDir()
	var once sync.Once
	var orders, lines string
	f.Fuzz(func(t *testing.T, line string, txns bool) {
		once.Do(func() { orders, lines = e2eRows(t, dir) })
		if strings.ContainsAny(line, "\n\r") {
			return
		}
		rng := rand.New(rand.NewPCG(5, 6))
		var sb strings.Builder
		var common []string
		for range 8 {
			common = append(common, templateLine(rng, txns, false))
		}
		for _, l := range common {
			sb.WriteString(l + "\n")
		}
		sb.WriteString(line + "\n")
		for _, l := range common {
			sb.WriteString(l + "\n")
		}
		file := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		want, werr := streamRec(t, orders, lines, file, txns, false)
		got, gerr := streamRec(t, orders, lines, file, txns, true)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || werr == nil && got != want {
			t.Errorf("%q: with templates %v:\n%s\nwithout %v:\n%s", line, gerr, firstDiff(got, want), werr, firstDiff(want, got))
		}
	})
}

// nopSink takes every statement and keeps nothing.
type nopSink struct{}
type nopBatch struct{}

func (nopSink) NewBatch() shardkey.Batch    { return nopBatch{} }
func (nopSink) Merge(shardkey.Batch, []int) {}
func (nopBatch) Instance(int, int, shardkey.Kind, []shardkey.Cond, []shardkey.Cond, float64) error {
	return nil
}
func (nopBatch) Txn([]shardkey.Stmt, float64) error { return nil }

// BenchmarkStreamStatements reads seed 000's statement lines (as its
// gen.py writes them: 20,000 queries of four shapes, 10,000 transactions
// of 3 to 5 writes, repeated) into a sink that keeps nothing, with line
// templates (template) and with the scanner alone (scanner), side by side.
func BenchmarkStreamStatements(b *testing.B) {
	dir := b.TempDir()
	var rows, q, tx strings.Builder
	rows.WriteString("customer_id,order_id,order_month,weight\n")
	for i := range 5000 {
		fmt.Fprintf(&rows, "%d,%d,2024-%02d,1\n", i%997, 100000+i, 1+i%12)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	month := func() string { return fmt.Sprintf("202%d-%02d", 3+rng.IntN(2), 1+rng.IntN(12)) }
	for range 20000 {
		switch rng.IntN(4) {
		case 0:
			fmt.Fprintf(&q, `{"where": {"customer_id": %d, "order_month": "%s"}}`+"\n", rng.IntN(1000000), month())
		case 1:
			fmt.Fprintf(&q, `{"where": {"order_month": "%s"}}`+"\n", month())
		case 2:
			fmt.Fprintf(&q, `{"where": {"customer_id": %d}}`+"\n", rng.IntN(1000000))
		default:
			fmt.Fprintf(&q, `{"where": {"order_id": %d}}`+"\n", 100000+rng.IntN(4000000))
		}
	}
	order := 4100000
	for range 10000 {
		c, n := rng.IntN(1000000), 3+rng.IntN(3)
		tx.WriteString(`{"writes": [`)
		for k := range n {
			if k > 0 {
				tx.WriteString(", ")
				if rng.IntN(3) == 0 {
					order++
				}
			}
			fmt.Fprintf(&tx, `{"customer_id": %d, "order_id": %d, "order_month": "%s"}`, c, order, "2024-07")
		}
		tx.WriteString("]}\n")
		order++
	}
	files := map[string]string{"rows.csv": rows.String(), "q.jsonl": q.String(), "t.jsonl": tx.String()}
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	tb, err := ReadRows(filepath.Join(dir, "rows.csv"), "orders", Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		on   bool
	}{{"template", true}, {"scanner", false}} {
		b.Run(c.name, func(b *testing.B) {
			defer func(on bool) { lineTemplates = on }(lineTemplates)
			lineTemplates = c.on
			b.SetBytes(int64(q.Len() + tx.Len()))
			for b.Loop() {
				w := &shardkey.Workload{Shards: 64, Tables: []*shardkey.Table{tb}}
				bd := NewBuilder(w, Options{})
				bd.Sink = nopSink{}
				if err := bd.ReadQueries(filepath.Join(dir, "q.jsonl")); err != nil {
					b.Fatal(err)
				}
				if err := bd.ReadTxns(filepath.Join(dir, "t.jsonl")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
