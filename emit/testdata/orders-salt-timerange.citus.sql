-- shardkey design "orders:salt(hash(customer_id), 4, top=2); order_line:range(order_month)" for workload orders on Citus, 64 shards.
-- WARNING: Citus distributes by hash (create_distributed_table), not by ranges, so this configuration hash-distributes the range-keyed tables (order_line) by their key's first column: the placement Citus gets is not the range placement shardkey scored.
SET citus.shard_count = 64;

-- orders: salt: Citus has no salting; distribute by a column holding customer_id plus a salt (0..3) for the hot values (1, 2), and read those values from every salt.
SELECT create_distributed_table('orders', 'customer_id');
-- order_line: range(order_month): Citus distributes by hash, so range reads on order_month touch every shard; PostgreSQL partitioning of each shard by order_month (create_time_partitions for time) keeps them pruned within shards.
SELECT create_distributed_table('order_line', 'order_month');
