// shardkey design "orders:salt(hash(customer_id), 4, top=2); order_line:range(order_month)" for workload orders on MongoDB, 64 shards.
// An empty collection sharded on a key whose first field is hashed starts with one chunk per shard
// (MongoDB >= 7.2; older versions: pass { numInitialChunks: <shards> } as shardCollection's options).
// One whose first field is ranged starts as one chunk on the primary shard, split and moved by the
// balancer as data arrives (initial_split_policy.cpp; presplitHashedZones with zones presplits it).
sh.enableSharding("app")

// orders: salt: MongoDB has no salting; add a salt field (0..3) for the hot customer_id values (1, 2) as the key's second field and read those values from every salt.
sh.shardCollection("app.orders", { customer_id: "hashed" })

// order_line: order_month is monotonic: every insert goes to the chunk holding the largest value, one shard; a hashed key spreads them.
sh.shardCollection("app.order_line", { order_month: 1 })
// WARNING: order_line: range(order_month) has no range boundaries (bounds=[...]): its chunks are split by the balancer as data arrives, not at the boundaries shardkey scored.
