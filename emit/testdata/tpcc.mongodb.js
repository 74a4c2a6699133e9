// shardkey design "warehouse:hash(w_id); district:hash(d_w_id); customer:isolate(hash(c_w_id), top=1); stock:hash(s_w_id); item:replicate" for workload tpcc on MongoDB, 8 shards.
// An empty collection sharded on a key whose first field is hashed starts with one chunk per shard
// (MongoDB >= 7.2; older versions: pass { numInitialChunks: <shards> } as shardCollection's options).
// One whose first field is ranged starts as one chunk on the primary shard, split and moved by the
// balancer as data arrives (initial_split_policy.cpp; presplitHashedZones with zones presplits it).
sh.enableSharding("tpcc")

sh.shardCollection("tpcc.warehouse", { w_id: "hashed" })

sh.shardCollection("tpcc.district", { d_w_id: "hashed" })

sh.shardCollection("tpcc.customer", { c_w_id: "hashed" })

sh.shardCollection("tpcc.stock", { s_w_id: "hashed" })

// item: replicate: MongoDB has no reference collections; left unsharded, it lives on the database's primary shard,
// and every $lookup of it from a sharded collection reads from that one shard.

// history: the design does not place it: left unsharded, on the database's primary shard.

// Isolate 1 value: zone whale-i on a shard of its own (the last 1 shard that listShards returns, sorted),
// zone rest on the other shards, covering every other key value of the collections with isolated values.
// The balancer then moves the chunks; other collections may still use the isolated shards.
const shardIds = db.adminCommand({ listShards: 1 }).shards.map(s => s._id).sort();
if (shardIds.length < 2) throw new Error("isolating 1 value needs at least 2 shards");
shardIds.slice(-1).forEach((id, i) => sh.addShardToZone(id, "whale-" + i));
shardIds.slice(0, -1).forEach(id => sh.addShardToZone(id, "rest"));
// customer
sh.updateZoneKeyRange("tpcc.customer", { c_w_id: MinKey }, { c_w_id: NumberLong("-1529429926180645992") }, "rest")
// c_w_id 3: hashed value -1529429926180645992
sh.updateZoneKeyRange("tpcc.customer", { c_w_id: NumberLong("-1529429926180645992") }, { c_w_id: NumberLong("-1529429926180645991") }, "whale-0")
sh.updateZoneKeyRange("tpcc.customer", { c_w_id: NumberLong("-1529429926180645991") }, { c_w_id: MaxKey }, "rest")
