package sim

import (
	"testing"

	"github.com/shardkey/shardkey"
)

// TestJoinIsOneRequest: SELECT ... FROM orders o JOIN order_items i ON
// ... WHERE o.account_id = ?, with both tables keyed by hash(account_id)
// under vitess-numeric on 8 shards (value sh(k) on shard k). The reader
// gives the orders read the order_items read as a part and marks the
// order_items read a rider; each op runs 10/s. Worked by hand:
//
//   - scatter: joined on order_id, order_items unbound: orders asks shard
//     3, order_items all 8; the statement asks the union, 8 shards: 10
//     requests/s, fan-out 8, 0% single-shard; work 10 + 80 = 90 (each
//     table's part a unit on each shard it asks). Before: 20 requests/s,
//     fan-out (1+8)/2 = 4.5, 50% single-shard.
//   - co-located: joined on account_id (the reader carries o.account_id
//     = sh(3) into order_items): both on shard 3: 10 requests/s, fan-out
//     1, 100% single-shard, work 20.
//   - apart: order_items bound to sh(1): shards {3, 1}: fan-out 2, 0%.
//   - mixed: the scatter join plus a plain read of orders by account_id
//     at 10/s: 20 requests/s, fan-out (10x8 + 10x1)/20 = 4.5, 50%.
func TestJoinIsOneRequest(t *testing.T) {
	i64 := func(v int64) shardkey.Value { return shardkey.Value{Type: shardkey.Int64, Int: v} }
	acct := func(k int64) []shardkey.Cond { return []shardkey.Cond{{Col: 1, Op: shardkey.Eq, Val: i64(sh(k))}} }
	build := func(items []shardkey.Cond, plain bool) *shardkey.Workload {
		w := &shardkey.Workload{Tables: []*shardkey.Table{
			{Name: "orders", Rows: 2, Columns: []*shardkey.Column{
				{Name: "id", Type: shardkey.Int64, Ints: []int64{1, 2}},
				{Name: "account_id", Type: shardkey.Int64, Ints: []int64{sh(3), sh(1)}}}},
			{Name: "order_items", Rows: 2, Columns: []*shardkey.Column{
				{Name: "order_id", Type: shardkey.Int64, Ints: []int64{1, 2}},
				{Name: "account_id", Type: shardkey.Int64, Ints: []int64{sh(3), sh(1)}}}},
		}, Ops: []*shardkey.Operation{
			{Name: "orders joined", Table: 0, Kind: shardkey.Read, Rate: 10, Instances: []shardkey.Instance{{Weight: 1, Conds: acct(3),
				Parts: []shardkey.Part{{Table: 1, Conds: items}}}}},
			{Name: "order_items joined", Table: 1, Kind: shardkey.Read, Rate: 10, Instances: []shardkey.Instance{{Weight: 1, Conds: items, Rider: true}}},
		}}
		if plain {
			w.Ops = append(w.Ops, &shardkey.Operation{Name: "orders alone", Table: 0, Kind: shardkey.Read, Rate: 10, Instances: []shardkey.Instance{{Weight: 1, Conds: acct(3)}}})
		}
		if err := w.Validate(); err != nil {
			t.Fatal(err)
		}
		return w
	}
	for _, tc := range []struct {
		name                      string
		items                     []shardkey.Cond
		plain                     bool
		requests, fanout, single  float64
		work, opSingle, itemsFout float64
	}{
		{"scatter", nil, false, 10, 8, 0, 90, 0, 8},
		{"co-located", acct(3), false, 10, 1, 1, 20, 1, 1},
		{"apart", acct(1), false, 10, 2, 0, 20, 0, 1},
		{"mixed", nil, true, 20, 4.5, 0.5, 100, 0, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := scoreLookup(t, build(tc.items, tc.plain), "orders:hash(account_id); order_items:hash(account_id)")
			check := func(what string, got, want float64) {
				t.Helper()
				if !near(got, want) {
					t.Errorf("%s = %v; want %v", what, got, want)
				}
			}
			check("requests_per_s", c.RequestsPerS, tc.requests)
			check("fanout_mean", c.FanoutMean, tc.fanout)
			check("single_shard_fraction", c.SingleShardFraction, tc.single)
			check("work_per_s", c.WorkPerS, tc.work)
			o, it := c.Operations[0], c.Operations[1]
			check("orders requests", o.RequestsPerS, 10)
			check("orders own fan-out", o.FanoutMean, 1)
			check("orders single-shard (its statements')", o.SingleShardFraction, tc.opSingle)
			check("order_items requests", it.RequestsPerS, 0)
			check("order_items merged", it.MergedPerS, 10)
			check("order_items fan-out", it.FanoutMean, tc.itemsFout)
		})
	}
}
