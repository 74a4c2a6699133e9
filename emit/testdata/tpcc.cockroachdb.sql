-- shardkey design "warehouse:hash(w_id); district:hash(d_w_id); customer:isolate(hash(c_w_id), top=1); stock:hash(s_w_id); item:replicate" for workload tpcc on CockroachDB, 8 buckets.
-- New primary-key columns must be NOT NULL (ALTER TABLE ... ALTER COLUMN ... SET NOT NULL);
-- ALTER PRIMARY KEY rewrites the table and keeps the old primary key as a unique index.

ALTER TABLE warehouse ALTER PRIMARY KEY USING COLUMNS (w_id) USING HASH WITH (bucket_count = 8);

-- district: (d_w_id) is not unique, and USING HASH hashes every primary-key column, which would scatter
-- one key value's rows over the buckets: the bucket is a column computed as USING HASH computes its own.
ALTER TABLE district ADD COLUMN d_w_id_bucket_8 INT8 NOT NULL AS (mod(fnv32(md5(crdb_internal.datums_to_bytes(d_w_id))), 8)) STORED;
ALTER TABLE district ALTER PRIMARY KEY USING COLUMNS (d_w_id_bucket_8, d_w_id, d_id);

-- customer: (c_w_id) is not unique, and USING HASH hashes every primary-key column, which would scatter
-- one key value's rows over the buckets: the bucket is a column computed as USING HASH computes its own.
ALTER TABLE customer ADD COLUMN c_w_id_bucket_8 INT8 NOT NULL AS (mod(fnv32(md5(crdb_internal.datums_to_bytes(c_w_id))), 8)) STORED;
ALTER TABLE customer ALTER PRIMARY KEY USING COLUMNS (c_w_id_bucket_8, c_w_id, c_id);
-- customer: isolate the hottest 1 c_w_id value: a range of its own each (bucket, value); CockroachDB also
-- splits hot ranges by load. Pinning one to its own nodes needs PARTITION BY LIST and zone configurations.
ALTER TABLE customer SPLIT AT VALUES (5, 3), (5, 4);

-- stock: (s_w_id) is not unique, and USING HASH hashes every primary-key column, which would scatter
-- one key value's rows over the buckets: the bucket is a column computed as USING HASH computes its own.
ALTER TABLE stock ADD COLUMN s_w_id_bucket_8 INT8 NOT NULL AS (mod(fnv32(md5(crdb_internal.datums_to_bytes(s_w_id))), 8)) STORED;
ALTER TABLE stock ALTER PRIMARY KEY USING COLUMNS (s_w_id_bucket_8, s_w_id, s_i_id);

-- item: replicate: CockroachDB reads every row from its range's leaseholder; in a multi-region
-- database, ALTER TABLE item SET LOCALITY GLOBAL serves reads locally in every region.

-- history: the design does not place it: nothing to run.
