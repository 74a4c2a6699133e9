// shardkey design "isolate(hash(customer_id), top=3)" for workload orders on MongoDB, 64 shards.
// An empty collection sharded on a key whose first field is hashed starts with one chunk per shard
// (MongoDB >= 7.2; older versions: pass { numInitialChunks: <shards> } as shardCollection's options).
// One whose first field is ranged starts as one chunk on the primary shard, split and moved by the
// balancer as data arrives (initial_split_policy.cpp; presplitHashedZones with zones presplits it).
sh.enableSharding("app")

sh.shardCollection("app.orders", { customer_id: "hashed" })

sh.shardCollection("app.order_line", { customer_id: "hashed" })

// Isolate 3 values: zone whale-i on a shard of its own (the last 3 shards that listShards returns, sorted),
// zone rest on the other shards, covering every other key value of the collections with isolated values.
// The balancer then moves the chunks; other collections may still use the isolated shards.
const shardIds = db.adminCommand({ listShards: 1 }).shards.map(s => s._id).sort();
if (shardIds.length < 4) throw new Error("isolating 3 values needs at least 4 shards");
shardIds.slice(-3).forEach((id, i) => sh.addShardToZone(id, "whale-" + i));
shardIds.slice(0, -3).forEach(id => sh.addShardToZone(id, "rest"));
// orders
sh.updateZoneKeyRange("app.orders", { customer_id: MinKey }, { customer_id: NumberLong("-1529429926180645992") }, "rest")
// customer_id 3: hashed value -1529429926180645992
sh.updateZoneKeyRange("app.orders", { customer_id: NumberLong("-1529429926180645992") }, { customer_id: NumberLong("-1529429926180645991") }, "whale-0")
sh.updateZoneKeyRange("app.orders", { customer_id: NumberLong("-1529429926180645991") }, { customer_id: NumberLong("848411777775835583") }, "rest")
// customer_id 2: hashed value 848411777775835583
sh.updateZoneKeyRange("app.orders", { customer_id: NumberLong("848411777775835583") }, { customer_id: NumberLong("848411777775835584") }, "whale-1")
sh.updateZoneKeyRange("app.orders", { customer_id: NumberLong("848411777775835584") }, { customer_id: NumberLong("5902408780260971510") }, "rest")
// customer_id 1: hashed value 5902408780260971510
sh.updateZoneKeyRange("app.orders", { customer_id: NumberLong("5902408780260971510") }, { customer_id: NumberLong("5902408780260971511") }, "whale-2")
sh.updateZoneKeyRange("app.orders", { customer_id: NumberLong("5902408780260971511") }, { customer_id: MaxKey }, "rest")
// order_line
sh.updateZoneKeyRange("app.order_line", { customer_id: MinKey }, { customer_id: NumberLong("-1529429926180645992") }, "rest")
// customer_id 3: hashed value -1529429926180645992
sh.updateZoneKeyRange("app.order_line", { customer_id: NumberLong("-1529429926180645992") }, { customer_id: NumberLong("-1529429926180645991") }, "whale-0")
sh.updateZoneKeyRange("app.order_line", { customer_id: NumberLong("-1529429926180645991") }, { customer_id: NumberLong("848411777775835583") }, "rest")
// customer_id 2: hashed value 848411777775835583
sh.updateZoneKeyRange("app.order_line", { customer_id: NumberLong("848411777775835583") }, { customer_id: NumberLong("848411777775835584") }, "whale-1")
sh.updateZoneKeyRange("app.order_line", { customer_id: NumberLong("848411777775835584") }, { customer_id: NumberLong("5902408780260971510") }, "rest")
// customer_id 1: hashed value 5902408780260971510
sh.updateZoneKeyRange("app.order_line", { customer_id: NumberLong("5902408780260971510") }, { customer_id: NumberLong("5902408780260971511") }, "whale-2")
sh.updateZoneKeyRange("app.order_line", { customer_id: NumberLong("5902408780260971511") }, { customer_id: MaxKey }, "rest")
