package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sim"
)

// TestWatcher_UnshardedWarning: design hash(id) over a window that also
// reads table u(name), which has no id column, leaves u on shard 0, as
// score and advise warn; watch says so too, in the first window that
// reads u and not again in the next, and says nothing of t, which the
// key places. A design that keys u by a column of its own says nothing.
func TestWatcher_UnshardedWarning(t *testing.T) {
	two := func() *shardkey.Workload {
		w := window([]int64{1, 2, 3, 4}, 0)
		w.Tables = append(w.Tables, &shardkey.Table{Name: "u", Columns: []*shardkey.Column{{Name: "name", Type: shardkey.Text}}})
		w.Ops = append(w.Ops, &shardkey.Operation{Name: "read u where name = ?", Table: 1, Kind: shardkey.Read, Rate: 1,
			Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.TextValue("a")}}}}})
		return w
	}
	const want = `key "hash(id)": table u has none of the key's columns and stays unsharded on shard 0`
	count := func(ws []string, s string) int {
		n := 0
		for _, w := range ws {
			if strings.Contains(w, s) {
				n++
			}
		}
		return n
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		design string
		first  int // the warning's count in the first window; the second has none
	}{
		{"hash(id)", 1},
		{"t:hash(id); u:hash(name)", 0},
	} {
		wt, err := New(Options{Designs: []string{c.design}, Sim: sim.Options{Shards: 4}})
		if err != nil {
			t.Fatal(err)
		}
		for i, n := range []int{c.first, 0} {
			r, err := wt.Add(Span{Start: t0.Add(time.Duration(i) * time.Minute), End: t0.Add(time.Duration(i+1) * time.Minute), Seconds: 60}, two())
			if err != nil {
				t.Fatal(err)
			}
			if got := count(r.Warnings, "stays unsharded"); got != n {
				t.Errorf("%s, window %d: %d unsharded warnings %q; want %d", c.design, i, got, r.Warnings, n)
			}
			if n == 1 && count(r.Warnings, want) != 1 {
				t.Errorf("%s, window %d: warnings %q; want %q", c.design, i, r.Warnings, want)
			}
		}
	}
}
