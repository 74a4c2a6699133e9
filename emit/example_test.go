package emit_test

import (
	"fmt"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/emit"
	"github.com/shardkey/shardkey/scenario"
)

// The orders scenario with its three heaviest customers isolated, as Citus
// SQL. The other formats: emit.Formats().
func ExampleEmit() {
	spec, _ := scenario.Builtin("orders")
	w, _ := scenario.Build(spec, "")
	d, _ := shardkey.ParseDesign("isolate(hash(customer_id), top=3)")
	sql, _, err := emit.Emit("citus", w, d, emit.Options{Shards: 32})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(sql))
	// Output:
	// -- shardkey design "isolate(hash(customer_id), top=3)" for workload orders on Citus, 32 shards.
	// SET citus.shard_count = 32;
	//
	// SELECT create_distributed_table('orders', 'customer_id');
	// SELECT create_distributed_table('order_line', 'customer_id', colocate_with => 'orders');
	//
	// -- Isolate the hottest 3 customer_id values: each gets a shard of its own in orders and, by CASCADE, in every table co-located with it.
	// -- The new shards stay on their node; citus_move_shard_placement moves one to a node of its own.
	// SELECT isolate_tenant_to_new_shard('orders', 1, 'CASCADE');
	// SELECT isolate_tenant_to_new_shard('orders', 2, 'CASCADE');
	// SELECT isolate_tenant_to_new_shard('orders', 3, 'CASCADE');
}
