-- shardkey design "orders:hash(customer_id, order_month); order_line:range(order_id, bounds=[5000, 10000])" for workload orders on Citus, 3 shards.
-- WARNING: Citus distributes by hash (create_distributed_table), not by ranges, so this configuration hash-distributes the range-keyed tables (order_line) by their key's first column: the placement Citus gets is not the range placement shardkey scored.
SET citus.shard_count = 3;

-- orders: hash(customer_id, order_month): Citus distributes by one column; distributing by customer_id, the first.
SELECT create_distributed_table('orders', 'customer_id');
-- order_line: range(order_id, bounds=[5000, 10000]): Citus distributes by hash, so range reads on order_id touch every shard; PostgreSQL partitioning of each shard by order_id (create_time_partitions for time) keeps them pruned within shards.
SELECT create_distributed_table('order_line', 'order_id', colocate_with => 'orders');
