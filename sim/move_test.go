package sim

import (
	"testing"

	"github.com/shardkey/shardkey"
)

// moveWorkload: orders(id, user_id), 8 shards under vitess-numeric (value
// v on shard v>>61, sh above), and an UPDATE of user_id at 10/s, two
// instances of weight 1:
//
//	instance  WHERE                          SET               old shard (user_id / id)  new shard (user_id)
//	I1        user_id = sh(1) AND id = 1     user_id = sh(2)   1 / 0                     2
//	I2        user_id = sh(3) AND id = sh(2)+1 user_id = sh(3)+9 3 / 2                     3
//
// plus a read by user_id = sh(1) at 4/s.
func moveWorkload(t *testing.T, txns bool) *shardkey.Workload {
	t.Helper()
	tb := &shardkey.Table{Name: "orders", Rows: 2, Columns: []*shardkey.Column{
		{Name: "id", Type: shardkey.Int64, Ints: []int64{1, sh(2) + 1}},
		{Name: "user_id", Type: shardkey.Int64, Ints: []int64{sh(1), sh(3)}},
	}}
	i64 := func(v int64) shardkey.Value { return shardkey.Value{Type: shardkey.Int64, Int: v} }
	eq := func(c int, v int64) shardkey.Cond { return shardkey.Cond{Col: c, Op: shardkey.Eq, Val: i64(v)} }
	w1, s1 := []shardkey.Cond{eq(1, sh(1)), eq(0, 1)}, []shardkey.Cond{eq(1, sh(2))}
	w2, s2 := []shardkey.Cond{eq(1, sh(3)), eq(0, sh(2)+1)}, []shardkey.Cond{eq(1, sh(3)+9)}
	w := &shardkey.Workload{Tables: []*shardkey.Table{tb},
		Ops: []*shardkey.Operation{
			{Name: "move", Table: 0, Kind: shardkey.Update, Rate: 10, Instances: []shardkey.Instance{{Weight: 1, Conds: w1, Sets: s1}, {Weight: 1, Conds: w2, Sets: s2}}},
			{Name: "read", Table: 0, Kind: shardkey.Read, Rate: 4, Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{eq(1, sh(1))}}}},
		}}
	if txns {
		w.Txns = []shardkey.Txn{
			{Weight: 1, Stmts: []shardkey.Stmt{{Table: 0, Kind: shardkey.Update, Conds: w1, Sets: s1}}},
			{Weight: 1, Stmts: []shardkey.Stmt{{Table: 0, Kind: shardkey.Update, Conds: w2, Sets: s2}}},
		}
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestKeyMove checks the row moves of moveWorkload by hand: under
// hash(user_id) each update is one unit on its old shard and one on its
// new (I1: shards 1 and 2; I2: shard 3 twice), 20 units/s for 10
// requests/s; I1 crosses shards, I2 does not (half the updates, half the
// autocommit writes or transactions). Under hash(id) the SET is no key:
// one unit each (shards 0 and 2), nothing moves.
func TestKeyMove(t *testing.T) {
	for _, txns := range []bool{false, true} {
		w := moveWorkload(t, txns)
		c, _ := scoreLookup(t, w, "orders:hash(user_id)")
		mv := c.Operations[0]
		if !near(mv.RequestsPerS, 10) || !near(mv.WorkPerS, 20) || !near(mv.KeyMovesPerS, 10) || !near(mv.KeyMoveCrossFraction, 0.5) {
			t.Errorf("txns %v: hash(user_id) move: requests %v work %v moves %v cross %v; want 10 20 10 0.5", txns, mv.RequestsPerS, mv.WorkPerS, mv.KeyMovesPerS, mv.KeyMoveCrossFraction)
		}
		// Shards: 1: I1 old 5 + read 4; 2: I1 new 5; 3: I2 old and new 10.
		want := []float64{0, 9, 5, 10, 0, 0, 0, 0}
		for i := range want {
			if !near(c.ShardWork[i], want[i]) {
				t.Errorf("txns %v: hash(user_id) shard_work = %v, want %v", txns, c.ShardWork, want)
				break
			}
		}
		if !near(c.WorkPerS, 24) || !near(c.CrossShardTxnFraction, 0.5) {
			t.Errorf("txns %v: hash(user_id): work %v cross-shard txns %v; want 24 0.5", txns, c.WorkPerS, c.CrossShardTxnFraction)
		}
		c, _ = scoreLookup(t, w, "orders:hash(id)")
		mv = c.Operations[0]
		if !near(mv.WorkPerS, 10) || mv.KeyMovesPerS != 0 || mv.KeyMoveCrossFraction != 0 || c.CrossShardTxnFraction != 0 {
			t.Errorf("txns %v: hash(id) move: work %v moves %v cross %v txn cross %v; want 10 0 0 0", txns, mv.WorkPerS, mv.KeyMovesPerS, mv.KeyMoveCrossFraction, c.CrossShardTxnFraction)
		}
		want = []float64{5, 0, 5, 0, 0, 0, 0, 0}
		for i := range want {
			// The read by user_id scatters: 4 units/s on each of the 8.
			if !near(c.ShardWork[i], want[i]+4) {
				t.Errorf("txns %v: hash(id) shard_work = %v, want %v + 4", txns, c.ShardWork, want)
				break
			}
		}
	}
}

// TestKeyMoveUnknown: a SET value known only at run time (a bind
// parameter without its value) moves the row to one shard of 8 at random:
// the unit spread evenly (10/8 on each), crossing shards but with chance
// 1/8. A SET of the value the WHERE binds moves nothing.
func TestKeyMoveUnknown(t *testing.T) {
	w := moveWorkload(t, false)
	op := w.Ops[0]
	op.Instances = op.Instances[:1]
	op.Instances[0].Sets = []shardkey.Cond{{Col: 1, Op: shardkey.Eq, Fresh: shardkey.FreshUnique, Param: true}}
	c, _ := scoreLookup(t, w, "orders:hash(user_id)")
	mv := c.Operations[0]
	if !near(mv.WorkPerS, 20) || !near(mv.KeyMovesPerS, 10) || !near(mv.KeyMoveCrossFraction, 7.0/8) || !near(c.CrossShardTxnFraction, 7.0/8) {
		t.Errorf("unknown SET: work %v moves %v cross %v txn cross %v; want 20 10 0.875 0.875", mv.WorkPerS, mv.KeyMovesPerS, mv.KeyMoveCrossFraction, c.CrossShardTxnFraction)
	}
	// Shard 1: old 10 + read 4 + 10/8; the others 10/8.
	for i, x := range c.ShardWork {
		want := 1.25
		if i == 1 {
			want = 15.25
		}
		if !near(x, want) {
			t.Errorf("unknown SET: shard_work = %v", c.ShardWork)
			break
		}
	}
	op.Instances[0].Sets = []shardkey.Cond{{Col: 1, Op: shardkey.Eq, Val: shardkey.Value{Type: shardkey.Int64, Int: sh(1)}}}
	c, _ = scoreLookup(t, w, "orders:hash(user_id)")
	if mv := c.Operations[0]; !near(mv.WorkPerS, 10) || mv.KeyMovesPerS != 0 || c.CrossShardTxnFraction != 0 {
		t.Errorf("SET to the WHERE's value: work %v moves %v txn cross %v; want 10 0 0", mv.WorkPerS, mv.KeyMovesPerS, c.CrossShardTxnFraction)
	}
}
