-- shardkey design "warehouse:hash(w_id); district:hash(d_w_id); customer:isolate(hash(c_w_id), top=1); stock:hash(s_w_id); item:replicate" for workload tpcc on Citus, 8 shards.
SET citus.shard_count = 8;

-- Reference tables first (a copy on every node; writes touch every node): distributed tables' foreign keys may reference them.
SELECT create_reference_table('item');

SELECT create_distributed_table('warehouse', 'w_id');
SELECT create_distributed_table('district', 'd_w_id', colocate_with => 'warehouse');
SELECT create_distributed_table('customer', 'c_w_id', colocate_with => 'warehouse');
SELECT create_distributed_table('stock', 's_w_id', colocate_with => 'warehouse');

-- Isolate the hottest 1 w_id value: each gets a shard of its own in warehouse and, by CASCADE, in every table co-located with it.
-- The new shards stay on their node; citus_move_shard_placement moves one to a node of its own.
SELECT isolate_tenant_to_new_shard('warehouse', 3, 'CASCADE');

-- history: the design does not place it: it stays a local table on the coordinator.
