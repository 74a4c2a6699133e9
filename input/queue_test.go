package input

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
)

// TestStreamQueuedMatchesMaterialised: under a memoised engine (blake2b)
// the streamed read defers and touches lines in groups (routeQueue) before
// routing them; the reports still equal the materialised read's bit for
// bit (integer weights, 8 shards). The generated lines mix queueable ones
// with IN lists, ranges, escaped strings and transactions that repeat a
// write, so queues are flushed early, full and at each batch's end.
func TestStreamQueuedMatchesMaterialised(t *testing.T) {
	dir := t.TempDir()
	orders, lines := e2eRows(t, dir)
	queries, txns := filepath.Join(dir, "q.jsonl"), filepath.Join(dir, "t.jsonl")
	writeLines(t, queries, 12000, e2eQuery)
	writeLines(t, txns, 8000, e2eTxn)
	eng, err := partition.Lookup("blake2b")
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"hash(customer_id)", "hash(order_id)", "hash(customer_id, order_month)",
		"orders: hash(customer_id); order_line: hash(order_id)"}
	// The stream's batches do queue: they have memo tables to touch.
	ws := e2eWorkload(t, orders, lines)
	if tb, ok := sim.NewStream(compileAllWith(t, ws, keys, eng)).NewBatch().(toucher); !ok || !tb.Touches() {
		t.Fatal("blake2b stream batches do not touch: the queue is not exercised")
	}
	if tb, ok := sim.NewStream(compileAll(t, ws, keys)).NewBatch().(toucher); !ok || tb.Touches() {
		t.Fatal("default engine: want no touching (nothing memoised)")
	}
	mat, str, _, _ := readBothWith(t, eng, orders, lines, []string{queries}, txns, keys)
	for i, k := range keys {
		if !reflectEqualJSON(t, mat[i], str[i]) {
			t.Errorf("%s: streamed report differs from the materialised one", k)
		}
	}
}

// reflectEqualJSON compares two reports by their JSON.
func reflectEqualJSON(t *testing.T, a, b *sim.Candidate) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// recBatch records what it is given, as text, and fails the instance or
// transaction of weight fail.
type recBatch struct {
	calls   *[]string
	fail    float64
	touched int
	loads   int
}

func (b *recBatch) Touches() bool { return true }
func (b *recBatch) Touch(table int, conds []shardkey.Cond, pass int) {
	b.touched++
}
func (b *recBatch) Load() { b.loads++ }

func condsText(conds []shardkey.Cond) string {
	var s []string
	for _, c := range conds {
		s = append(s, fmt.Sprintf("%d=%s", c.Col, c.Val.String()))
	}
	slices.Sort(s) // in column order, whatever the line's
	return strings.Join(s, ",")
}

func (b *recBatch) Instance(op, table int, kind shardkey.Kind, conds, sets []shardkey.Cond, w float64) error {
	*b.calls = append(*b.calls, fmt.Sprintf("q%g %s", w, condsText(conds)))
	if w == b.fail {
		return errors.New("cannot place")
	}
	return nil
}

func (b *recBatch) Txn(stmts []shardkey.Stmt, w float64) error {
	s := fmt.Sprintf("t%g", w)
	for k, st := range stmts {
		s += " [" + condsText(st.Conds) + "]"
		if k > 0 && &st.Conds[0] == &stmts[k-1].Conds[0] {
			s += "="
		}
	}
	*b.calls = append(*b.calls, s)
	if w == b.fail {
		return errors.New("cannot place")
	}
	return nil
}

// recSink hands out recBatches that record into one list (the reader's
// workers run one batch at a time each; one batch here).
type recSink struct {
	calls []string
	fail  float64
	b     []*recBatch
}

func (s *recSink) NewBatch() shardkey.Batch {
	b := &recBatch{calls: &s.calls, fail: s.fail}
	s.b = append(s.b, b)
	return b
}
func (s *recSink) Merge(shardkey.Batch, []int) {}

// TestRouteQueueOrder: lines deferred by the queue reach the batch in
// file order with their own conditions (copied: the parser's scratch is
// reused by the next line), each touched in two passes before routing;
// a repeated write shares its predecessor's copy; a line that cannot be
// queued (an IN list) routes after those before it. An error names the
// line whose routing failed, even when a later line is malformed.
func TestRouteQueueOrder(t *testing.T) {
	dir := t.TempDir()
	orders, lines := e2eRows(t, dir)
	var q, want []string
	for i := 1; i <= 40; i++ {
		if i == 20 {
			q = append(q, `{"where": {"customer_id": {"in": [5, 6]}}, "table": "orders", "weight": 20}`)
			want = append(want, "q20 1=None") // IN: no Val
			continue
		}
		q = append(q, fmt.Sprintf(`{"where": {"customer_id": %d, "order_month": "2024-%02d"}, "table": "orders", "weight": %d}`, i, i%12+1, i))
		want = append(want, fmt.Sprintf("q%d 1=%d,2=2024-%02d", i, i, i%12+1))
	}
	tx := []string{
		`{"writes": [{"order_id": 1, "customer_id": 2}, {"order_id": 1, "customer_id": 2}, {"order_id": 3, "customer_id": 2}], "table": "orders", "weight": 1}`,
		`{"writes": [{"order_id": 4, "customer_id": 5}], "table": "orders", "weight": 2}`,
	}
	wantTx := []string{"t1 [0=1,1=2] [0=1,1=2]= [0=3,1=2]", "t2 [0=4,1=5]"}

	read := func(t *testing.T, content []string, txns bool, fail float64) (*recSink, error) {
		t.Helper()
		file := filepath.Join(t.TempDir(), "s.jsonl")
		if err := os.WriteFile(file, []byte(strings.Join(content, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		b := NewBuilder(e2eWorkload(t, orders, lines), Options{})
		sink := &recSink{fail: fail}
		b.Sink = sink
		if txns {
			return sink, b.ReadTxns(file)
		}
		return sink, b.ReadQueries(file)
	}

	sink, err := read(t, q, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sink.calls, want) {
		t.Errorf("queries routed:\n%s\nwant:\n%s", strings.Join(sink.calls, "\n"), strings.Join(want, "\n"))
	}
	// 39 queued lines touched twice each (passes 0 and 1); a load per
	// pass of each flush: before line 20, when 16 are queued again
	// (lines 21-36), and at the end (37-40).
	if b := sink.b[0]; b.touched != 2*39 || b.loads != 2*4 {
		t.Errorf("touched %d, loads %d; want 78 and 8", b.touched, b.loads)
	}

	sink, err = read(t, tx, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sink.calls, wantTx) {
		t.Errorf("transactions routed:\n%s\nwant:\n%s", strings.Join(sink.calls, "\n"), strings.Join(wantTx, "\n"))
	}
	// The repeated write is touched once: 2 + 1 statements, two passes.
	if b := sink.b[0]; b.touched != 6 || b.loads != 2 {
		t.Errorf("transactions touched %d, loads %d; want 6 and 2", b.touched, b.loads)
	}

	// Line 3 fails when routed (deferred); line 5 is malformed.
	bad := slices.Clone(q[:10])
	bad[4] = `{"where": {"customer_id": 1}, "table": "orders", "kind": "upsert"}`
	sink, err = read(t, bad, false, 3)
	if err == nil || !strings.Contains(err.Error(), "s.jsonl:3: where: cannot place") {
		t.Errorf("error %v; want line 3's routing error", err)
	}
	if len(sink.calls) != 3 {
		t.Errorf("routed %d lines; want 3 (none after the failure)", len(sink.calls))
	}
	_, err = read(t, q[:10], false, 7)
	if err == nil || !strings.Contains(err.Error(), "s.jsonl:7: where: cannot place") {
		t.Errorf("error %v; want line 7's routing error", err)
	}
	_, err = read(t, tx, true, 2)
	if err == nil || !strings.Contains(err.Error(), "s.jsonl:2: writes: cannot place") {
		t.Errorf("error %v; want line 2's routing error", err)
	}
}
