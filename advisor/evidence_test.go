package advisor

import (
	"testing"

	"github.com/shardkey/shardkey/sim"
)

// TestEvidenceTie: 77% against 72% single-shard and local on 21
// statements differ by 0.05, under twice the standard error
// sqrt(0.77 x 0.23 / 21 + 0.72 x 0.28 / 21) = 0.134: a tie; on 2,000
// statements the error is 0.0138 and 0.05 separates them. A boundary in
// the first's favour separates them whatever the counts.
func TestEvidenceTie(t *testing.T) {
	mk := func(local float64, boundary bool) *Assessment {
		return &Assessment{Viable: true, Score: &sim.Candidate{Transactions: 6, RequestsPerS: 20},
			Criteria: Criteria{Local: local, SingleShard: local + 0.08, CrossShardTxn: 0.17, WorkPerRequest: 1.5, Boundary: boundary, LargestUnknown: true, AfterFixes: 10}}
	}
	x, y := mk(0.77, false), mk(0.72, false)
	if !evidenceTie(x, y, 21) {
		t.Errorf("21 statements: want a tie")
	}
	if evidenceTie(x, y, 2000) {
		t.Errorf("2,000 statements: want no tie")
	}
	if evidenceTie(mk(0.77, true), y, 21) {
		t.Errorf("boundary in the first's favour: want no tie")
	}
}
