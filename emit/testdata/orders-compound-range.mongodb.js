// shardkey design "orders:hash(customer_id, order_month); order_line:range(order_id, bounds=[5000, 10000])" for workload orders on MongoDB, 3 shards.
// An empty collection sharded on a key whose first field is hashed starts with one chunk per shard
// (MongoDB >= 7.2; older versions: pass { numInitialChunks: <shards> } as shardCollection's options).
// One whose first field is ranged starts as one chunk on the primary shard, split and moved by the
// balancer as data arrives (initial_split_policy.cpp; presplitHashedZones with zones presplits it).
sh.enableSharding("app")

// orders: hash(customer_id, order_month): MongoDB hashes one field of a key; customer_id is hashed and the rest ordered, { a: "hashed", b: 1 }
// (a compound hashed key, MongoDB >= 4.4), so one customer_id's documents stay together and its chunks can still split.
sh.shardCollection("app.orders", { customer_id: "hashed", order_month: 1 })

// order_line: order_id is monotonic: every insert goes to the chunk holding the largest value, one shard; a hashed key spreads them.
sh.shardCollection("app.order_line", { order_id: 1 })
sh.splitAt("app.order_line", { order_id: NumberLong("5000") })
sh.splitAt("app.order_line", { order_id: NumberLong("10000") })
