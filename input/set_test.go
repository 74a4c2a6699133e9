package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sim"
)

// TestQuerySet: an update line's "set" gives the values it assigns
// (Instance.Sets). Under hash(customer_id) an update of order 5 (customer
// 3) that sets customer_id 7, weight 2, moves the row: 2 moves/s, work 2
// where it was (the WHERE binds customer_id) + 2 where it goes = 4; under
// range(order_id) it sets no key: work 2, no move. Materialised and
// streamed reads agree.
func TestQuerySet(t *testing.T) {
	dir := t.TempDir()
	orders, lines := e2eRows(t, dir)
	q := filepath.Join(dir, "q.jsonl")
	content := `{"table": "orders", "kind": "update", "where": {"order_id": 5, "customer_id": 3}, "set": {"customer_id": 7}, "weight": 2}
{"table": "orders", "where": {"customer_id": 3}}
`
	if err := os.WriteFile(q, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	mat, str, wm, _ := readBoth(t, orders, lines, q, "", []string{"hash(customer_id)", "range(order_id)"})
	var in *shardkey.Instance
	for _, op := range wm.Ops {
		if op.Kind == shardkey.Update {
			in = &op.Instances[0]
		}
	}
	if in == nil || len(in.Sets) != 1 || in.Sets[0].Val != shardkey.IntValue(7) {
		t.Fatalf("update instance: %+v; want Sets customer_id = 7", in)
	}
	for i, want := range []struct{ work, moves float64 }{{4, 2}, {2, 0}} {
		for how, cand := range map[string]*sim.Candidate{"materialised": mat[i], "streamed": str[i]} {
			for _, op := range cand.Operations {
				if op.Kind != "update" {
					continue
				}
				if op.WorkPerS != want.work || op.KeyMovesPerS != want.moves {
					t.Errorf("%s %s: update work %v moves %v; want %v %v", cand.Key, how, op.WorkPerS, op.KeyMovesPerS, want.work, want.moves)
				}
			}
		}
	}
	for _, bad := range []struct{ line, want string }{
		{`{"table": "orders", "where": {"order_id": 5}, "set": {"customer_id": 7}}`, `q.jsonl:1: set: only an update`},
		{`{"table": "orders", "kind": "update", "where": {"order_id": 5}, "set": {"customer_id": {"in": [1, 2]}}}`, `q.jsonl:1: set.customer_id: "set" gives the new values`},
	} {
		w := e2eWorkload(t, orders, lines)
		err := NewBuilder(w, Options{}).ReadQueries(write(t, "q.jsonl", bad.line+"\n"))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v; want %q", bad.line, err, bad.want)
		}
	}
}
