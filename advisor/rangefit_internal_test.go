package advisor

import (
	"slices"
	"testing"

	"github.com/shardkey/shardkey/sim"
)

// TestOrderRangeFit: a design with ranges fitted value by value to the
// sample's traffic (3 values on one of 8 shards, more than ceil(10/8))
// loses to one equal on access whatever their busiest shards (200/s
// against 300/s), but what the operations and transactions touch still
// decides first: with 10 points more of its requests local, the fitted
// design goes first; two fitted designs compare by load as before; a
// split as even as whole values get (2, 1, 1, 1, 2, 1, 1, 1) is weighed
// on load like any design.
func TestOrderRangeFit(t *testing.T) {
	mk := func(local, after float64, fit bool) *Assessment {
		as := &Assessment{Viable: true, Score: &sim.Candidate{RequestsPerS: 1000},
			Criteria: Criteria{Local: local, SingleShard: 1, WorkPerRequest: 1, AfterFixes: after, Bounded: true}}
		if fit {
			as.RangeFit = &RangeFit{Cardinality: 10, ValuesPerShard: []int{3, 1, 1, 1, 1, 1, 1, 1}, Fitted: true}
		}
		return as
	}
	check := func(x, y *Assessment, want bool, what string) {
		t.Helper()
		if got, decided := orderBanded(x, y, 0.02); got != want || !decided {
			t.Errorf("%s: x first %v (decided %v); want %v, decided", what, got, decided, want)
		}
	}
	// As even as whole values get (10 on 8: no shard over ceil(10/8) =
	// 2): weighed on load as any design, so the lighter goes first.
	even := mk(0.9, 200, false)
	even.RangeFit = &RangeFit{Cardinality: 10, ValuesPerShard: []int{2, 1, 1, 1, 2, 1, 1, 1}}
	check(even, mk(0.9, 300, false), true, "even split of whole values, lighter")
	check(mk(0.9, 200, true), mk(0.9, 300, false), false, "fitted, lighter, equal access")
	check(mk(0.9, 300, false), mk(0.9, 200, true), true, "unfitted against fitted")
	check(mk(1.0, 200, true), mk(0.9, 300, false), true, "fitted, 10 points more local")
	check(mk(0.9, 200, true), mk(0.9, 300, true), true, "both fitted: load")
}

// TestSweepCounts: a key of 10 values on 8 shards adds 5 and 10 to the
// sweep (sorted in); one of 12 adds 4, 6 and 12; a value per sampled row
// (10 rows, 10 values) adds none, nor a key of 80 values (10 a shard),
// nor an empty sweep.
func TestSweepCounts(t *testing.T) {
	as := func(card, rows int) *Assessment {
		return &Assessment{Score: &sim.Candidate{Cardinality: card, Tables: []sim.TableKey{{KeyStats: sim.KeyStats{Rows: rows, Cardinality: card}}}}}
	}
	pow := []int{4, 8, 16}
	for _, c := range []struct {
		best   *Assessment
		counts []int
		want   []int
	}{
		{as(10, 50), pow, []int{4, 5, 8, 10, 16}},
		{as(12, 50), pow, []int{4, 6, 8, 12, 16}},
		{as(10, 10), pow, pow},
		{as(80, 800), pow, pow},
		{as(10, 50), nil, nil},
	} {
		if got := sweepCounts(c.counts, c.best, 8); !slices.Equal(got, c.want) {
			t.Errorf("card %d, rows %d: sweep %v; want %v", c.best.Score.Cardinality, c.best.Score.Tables[0].Rows, got, c.want)
		}
	}
}
