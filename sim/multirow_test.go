package sim

import (
	"testing"

	"github.com/shardkey/shardkey"
)

// TestMultiRowInsertIsOneRequest: INSERT INTO t (k) VALUES (a), (b), (c)
// is one statement sent once: the reader gives its first row the others
// as parts (Kind Insert) and marks them riders, as a join's other reads
// (join.go). Under hash(k) with vitess-numeric on 8 shards (sh(k) on
// shard k), 10 statements/s of rows on shards 1, 2, 2, worked by hand:
// 10 requests/s (it counted 30, one a row), each asking the union of
// its rows' shards, {1, 2}: fan-out 2, 0% single-shard; work 30, a unit a
// row on its row's shard (20 on shard 2). Rows that bind no key value (a
// serial key the database assigns) are each one shard known only at run
// time: as inserts, two such rows ask 8(1 - (7/8)^2) = 1.875 shards on
// average (two uniform draws); routed as reads (a part's zero Kind) they
// would ask all 8.
func TestMultiRowInsertIsOneRequest(t *testing.T) {
	i64 := func(v int64) shardkey.Value { return shardkey.Value{Type: shardkey.Int64, Int: v} }
	key := func(k int64) []shardkey.Cond { return []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: i64(sh(k))}} }
	build := func(lead []shardkey.Cond, rest ...[]shardkey.Cond) *shardkey.Workload {
		op := &shardkey.Operation{Name: "insert t", Table: 0, Kind: shardkey.Insert, Rate: 10 * float64(1+len(rest))}
		in := shardkey.Instance{Weight: 10, Conds: lead}
		for _, c := range rest {
			in.Parts = append(in.Parts, shardkey.Part{Table: 0, Conds: c, Kind: shardkey.Insert})
		}
		op.Instances = append(op.Instances, in)
		for _, c := range rest {
			op.Instances = append(op.Instances, shardkey.Instance{Weight: 10, Conds: c, Rider: true})
		}
		w := &shardkey.Workload{Tables: []*shardkey.Table{{Name: "t", Columns: []*shardkey.Column{
			{Name: "k", Type: shardkey.Int64}, {Name: "v", Type: shardkey.Int64}}}}, Ops: []*shardkey.Operation{op}}
		if err := w.Validate(); err != nil {
			t.Fatal(err)
		}
		return w
	}
	check := func(what string, got, want float64) {
		t.Helper()
		if !near(got, want) {
			t.Errorf("%s = %v; want %v", what, got, want)
		}
	}
	c, _ := scoreLookup(t, build(key(1), key(2), key(2)), "hash(k)")
	check("requests_per_s", c.RequestsPerS, 10)
	check("fanout_mean", c.FanoutMean, 2)
	check("single_shard_fraction", c.SingleShardFraction, 0)
	check("work_per_s", c.WorkPerS, 30)
	check("shard 2's work", c.ShardWork[2], 20)
	o := c.Operations[0]
	check("insert requests", o.RequestsPerS, 10)
	check("insert merged (rows after the first)", o.MergedPerS, 20)

	// All rows on one shard: one request, single-shard.
	c, _ = scoreLookup(t, build(key(3), key(3), key(3)), "hash(k)")
	check("one shard: fanout_mean", c.FanoutMean, 1)
	check("one shard: single_shard_fraction", c.SingleShardFraction, 1)

	// Rows without a key value: uniform draws, as inserts.
	c, _ = scoreLookup(t, build(nil, nil), "hash(k)")
	check("keyless rows: fanout_mean", c.FanoutMean, 1.875)
}
