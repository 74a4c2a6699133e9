package explain_test

import (
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/explain"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
	"github.com/shardkey/shardkey/sqllog"
)

// TestJoinSchemaKeyColumns: explain with a schema alone (--schema), a
// bare key hash(account_id), and a join of orders to order_items on
// order_id that binds orders.account_id = 7. The schema declares
// order_items.account_id, so order_items is sharded by it (as score
// shards it); the join binds no value of it, so its read asks all 8
// shards and the statement scatters. Before, order_items got no key
// column (the statement does not name it) and stayed unsharded on
// shard 0: "shards 0, 5".
func TestJoinSchemaKeyColumns(t *testing.T) {
	eng, err := partition.Lookup("generic")
	if err != nil {
		t.Fatal(err)
	}
	design, err := shardkey.ParseDesign("hash(account_id)")
	if err != nil {
		t.Fatal(err)
	}
	col := func(n string) *shardkey.ColumnInfo { return &shardkey.ColumnInfo{Name: n, Type: shardkey.Int64} }
	cat := &shardkey.Catalog{Tables: []*shardkey.TableInfo{
		{Name: "orders", Columns: []*shardkey.ColumnInfo{col("id"), col("account_id"), col("total")}},
		{Name: "order_items", Columns: []*shardkey.ColumnInfo{col("order_id"), col("account_id"), col("sku"), col("qty")}},
	}}
	run := func(sql string) sim.Route {
		t.Helper()
		st, err := sqllog.ParseStatement(sql, sqllog.Postgres)
		if err != nil {
			t.Fatal(err)
		}
		rt, _, err := explain.Statement(st, &shardkey.Workload{Shards: 8, Catalog: cat}, design, explain.Options{Sim: sim.Options{Shards: 8, Engine: eng}})
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}
	rt := run("SELECT * FROM orders o JOIN order_items i ON i.order_id = o.id WHERE o.account_id = 7")
	if !rt.Scatter || rt.Route != sim.RouteScatter || len(rt.Warnings) != 0 {
		t.Errorf("join on order_id: %+v; want scatter to all 8 shards, no warning", rt)
	}
	// Joined on the key: both reads on account 7's shard.
	p, err := partition.Generic{}.Point([]shardkey.Value{shardkey.IntValue(7)})
	if err != nil {
		t.Fatal(err)
	}
	rt = run("SELECT * FROM orders o JOIN order_items i ON i.account_id = o.account_id WHERE o.account_id = 7")
	if rt.Scatter || len(rt.Shards) != 1 || rt.Shards[0] != int(p%8) {
		t.Errorf("join on account_id: %+v; want shard %d alone", rt, p%8)
	}
}
