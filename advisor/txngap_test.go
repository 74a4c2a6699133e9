package advisor

import (
	"testing"

	"github.com/shardkey/shardkey/sim"
)

// TestTxnGapOutweighsMarginalLoad: two designs equal on access, their
// cross-shard transactions 10% and 11.5% of 20,000 (within orderAccess's
// 2-point band, but the difference's standard error is sqrt(0.1 x 0.9 /
// 20000 + 0.115 x 0.885 / 20000) = 0.0031, so 0.015 is 4.8 of them): a
// busiest shard 3% lighter does not put the one with more cross-shard
// commits first; 2.4 times lighter does. With 200 transactions each the
// same gap is 0.44 standard errors (se 0.031): noise, and the load
// decides.
func TestTxnGapOutweighsMarginalLoad(t *testing.T) {
	mk := func(cross, after float64, txns int64) *Assessment {
		return &Assessment{Viable: true, Score: &sim.Candidate{Transactions: txns},
			Criteria: Criteria{Local: 0.9, SingleShard: 1, CrossShardTxn: cross, WorkPerRequest: 1, Boundary: true, Bounded: true, AfterFixes: after}}
	}
	check := func(name string, x, y *Assessment, xFirst bool) {
		t.Helper()
		if got := better(x, y); got != xFirst {
			t.Errorf("%s: better = %v; want %v", name, got, xFirst)
		}
		if got := better(y, x); got == xFirst {
			t.Errorf("%s (swapped): better = %v; want %v", name, got, !xFirst)
		}
	}
	check("fewer cross-shard, 3% busier", mk(0.100, 206, 20000), mk(0.115, 200, 20000), true)
	check("fewer cross-shard, 2.4x busier", mk(0.092, 506, 20000), mk(0.107, 211, 20000), false)
	check("gap within noise", mk(0.100, 206, 200), mk(0.115, 200, 200), false)
}
