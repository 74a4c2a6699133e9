package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestRangeValues: the values each range holds, for boundaries fitted to
// a key of few values. Ten ids 0..9 of equal weight on 8 shards, by
// hand: the split points are the equal-weight quantiles k x 10/8 = 1.25,
// 2.5, 3.75, 5, 6.25, 7.5, 8.75, each placed at the first id whose
// preceding weight (its own index) reaches it: 2, 3, 4, 5, 7, 8, 9. So
// the ranges hold {0, 1}, {2}, {3}, {4}, {5, 6}, {7}, {8}, {9}: 2, 1, 1,
// 1, 2, 1, 1, 1 values. (Placed where the running weight comes nearest
// each quantile, 1, 3, 4, 5, 6, 8, 9, the busiest range also holds 2:
// a tie, and the first placement is kept; see TestBoundsNearestQuantile.)
// Seven values of `other` on 8 shards: one a range. Given bounds are not a fit (nil), nor 40 values on 8 shards
// (5 a shard, past fewRangeValues); 32 values (4 a shard) are recorded.
func TestRangeValues(t *testing.T) {
	check := func(rows int, key, want string) {
		t.Helper()
		c, err := Score(workload(rows, func(int) float64 { return 1 }), key, Options{Shards: 8})
		if err != nil {
			t.Fatal(err)
		}
		got := "nil"
		if c.RangeValues != nil {
			got = fmt.Sprint(c.RangeValues)
		}
		if got != want {
			t.Errorf("%d rows, %s: range values %s; want %s", rows, key, got, want)
		}
	}
	check(10, "range(id)", "[[0 1] [2] [3] [4] [5 6] [7] [8] [9]]")
	check(10, "range(other)", "[[0] [1] [2] [3] [4] [5] [6]]")
	check(10, "range(id, bounds=[2, 3, 4, 5, 7, 8, 9])", "nil")
	check(40, "range(id)", "nil")
	check(32, "range(id)", "[[0 1 2 3] [4 5 6 7] [8 9 10 11] [12 13 14 15] [16 17 18 19] [20 21 22 23] [24 25 26 27] [28 29 30 31]]")
	check(10, "hash(id)", "nil")
}

// TestBoundsNearestQuantile: ten values of nearly equal weight, id i
// weighing 1 + 0.001 i, on 5 shards: the quantiles are k x 10.045 / 5 =
// 2.009, 4.018, 6.027, 8.036, each a little past the start of id 2k
// (2.001, 4.006, 6.015, 8.028) and far from its end, so each split goes
// before id 2k: 2, 2, 2, 2, 2 values a range, the busiest weighing
// 2.017. Placed at the first id whose start reaches its quantile, each
// came one id late: 3, 2, 2, 2, 1, the busiest 3.003 (fresh-clone review:
// ten about equally busy warehouses on 5 shards, and the range design
// rejected for the uneven split). The lighter busiest range is kept.
func TestBoundsNearestQuantile(t *testing.T) {
	c, err := Score(workload(10, func(i int) float64 { return 1 + 0.001*float64(i) }), "range(id)", Options{Shards: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(c.RangeValues); got != "[[0 1] [2 3] [4 5] [6 7] [8 9]]" {
		t.Errorf("range values %s; want [[0 1] [2 3] [4 5] [6 7] [8 9]]", got)
	}
}

// TestRangeOneValue: a range key whose values (a row sample's, or the
// statements' without one) are one value alone has no boundary that
// could split it: every row is in shard 0. The warning says so, with the
// value and where it came from, and nothing says the boundaries split
// the traffic into equal shares (fresh-clone review: range(a) over one
// value gave that and "no boundaries ... no row sample to take
// quantiles from" together, the one contradicting the other). Two
// values split: neither warning.
func TestRangeOneValue(t *testing.T) {
	warns := func(w *shardkey.Workload) string {
		t.Helper()
		c, err := Score(w, "range(id)", Options{Shards: 8})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(c.Warnings, "\n")
	}
	rows := warns(workload(1, func(int) float64 { return 1 }))
	if !strings.Contains(rows, "the range key has one value, 0, in the row sample") || !strings.Contains(rows, "the other 7 shards are idle") {
		t.Errorf("one row: warnings %q; want the one value 0 of the row sample, 7 shards idle", rows)
	}
	traffic := &shardkey.Workload{Shards: 8, Tables: []*shardkey.Table{{Name: "t", Columns: []*shardkey.Column{{Name: "id", Type: shardkey.Int64}}}}}
	op := &shardkey.Operation{Name: "get", Table: 0, Kind: shardkey.Read, Rate: 10}
	for range 50 {
		op.Instances = append(op.Instances, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(5)}}})
	}
	traffic.Ops = []*shardkey.Operation{op}
	got := warns(traffic)
	if !strings.Contains(got, "the range key has one value, 5, in the statements (no row sample)") {
		t.Errorf("statements binding id = 5 only: warnings %q; want the one value 5 of the statements", got)
	}
	for _, bad := range []string{"equal shares of the traffic", "no boundaries"} {
		if strings.Contains(got, bad) || strings.Contains(rows, bad) {
			t.Errorf("one value: a warning says %q:\n%s\n%s", bad, rows, got)
		}
	}
	if two := warns(workload(2, func(int) float64 { return 1 })); strings.Contains(two, "one value") || strings.Contains(two, "no boundaries") {
		t.Errorf("two rows: warnings %q; want neither", two)
	}
}
