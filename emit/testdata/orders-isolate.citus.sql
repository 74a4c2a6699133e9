-- shardkey design "isolate(hash(customer_id), top=3)" for workload orders on Citus, 64 shards.
SET citus.shard_count = 64;

SELECT create_distributed_table('orders', 'customer_id');
SELECT create_distributed_table('order_line', 'customer_id', colocate_with => 'orders');

-- Isolate the hottest 3 customer_id values: each gets a shard of its own in orders and, by CASCADE, in every table co-located with it.
-- The new shards stay on their node; citus_move_shard_placement moves one to a node of its own.
SELECT isolate_tenant_to_new_shard('orders', 1, 'CASCADE');
SELECT isolate_tenant_to_new_shard('orders', 2, 'CASCADE');
SELECT isolate_tenant_to_new_shard('orders', 3, 'CASCADE');
