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
// order_line: chunk i (from split point i-1 to split point i) on the i-th shard, as scored. The balancer
// (by data size, MongoDB >= 6.0.3) may move chunks later: sh.disableBalancing("app.order_line") keeps this layout.
{
  const shardIds = db.adminCommand({ listShards: 1 }).shards.map(s => s._id).sort();
  if (shardIds.length < 3) throw new Error("the scored layout of order_line needs 3 shards");
  db.adminCommand({ moveChunk: "app.order_line", bounds: [{ order_id: MinKey }, { order_id: NumberLong("5000") }], to: shardIds[0] })
  db.adminCommand({ moveChunk: "app.order_line", bounds: [{ order_id: NumberLong("5000") }, { order_id: NumberLong("10000") }], to: shardIds[1] })
  db.adminCommand({ moveChunk: "app.order_line", bounds: [{ order_id: NumberLong("10000") }, { order_id: MaxKey }], to: shardIds[2] })
}
