package advisor

import (
	"testing"

	"github.com/shardkey/shardkey"
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

// TestEvidenceHashTwinFirst: a range design fitted to the sample and
// its hash twin (range( read as hash(), tied within the evidence, rank
// the hash twin first. 72% against 66% single-shard and local differ by
// 0.06: on 21 statements twice the standard error is
// 2 sqrt(0.72 x 0.28 / 21 + 0.66 x 0.34 / 21) = 0.285, a tie, so the
// twin goes first; on 2,000 it is 2 sqrt(0.2016/2000 + 0.2244/2000) =
// 0.029, the range's lead is real and it stays first.
func TestEvidenceHashTwinFirst(t *testing.T) {
	mk := func(key string, local float64, fitted bool) *Assessment {
		as := &Assessment{Key: key, Viable: true, Score: &sim.Candidate{Transactions: 6, RequestsPerS: 20},
			Criteria: Criteria{Local: local, SingleShard: local, CrossShardTxn: 0.17, WorkPerRequest: 1.5, LargestUnknown: true, AfterFixes: 10}}
		if fitted {
			as.RangeFit = &RangeFit{Fitted: true}
		}
		return as
	}
	for _, c := range []struct {
		stmts int
		first string
	}{{21, "hash(id); t:hash(x)"}, {2000, "range(id); t:range(x)"}} {
		list := []*Assessment{mk("range(id); t:range(x)", 0.72, true), mk("hash(customer_id)", 0.70, false), mk("hash(id); t:hash(x)", 0.66, false)}
		if got := hashTwin(list); got != 2 {
			t.Fatalf("hashTwin %d; want 2", got)
		}
		op := &shardkey.Operation{Instances: make([]shardkey.Instance, c.stmts)}
		for i := range op.Instances {
			op.Instances[i].Seq = int64(i + 1)
		}
		a := &analysis{w: &shardkey.Workload{Ops: []*shardkey.Operation{op}}}
		a.evidenceOf(list)
		if list[0].Key != c.first {
			t.Errorf("%d statements: first %s; want %s", c.stmts, list[0].Key, c.first)
		}
	}
}
