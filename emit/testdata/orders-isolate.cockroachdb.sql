-- shardkey design "isolate(hash(customer_id), top=3)" for workload orders on CockroachDB, 64 buckets.
-- New primary-key columns must be NOT NULL (ALTER TABLE ... ALTER COLUMN ... SET NOT NULL);
-- ALTER PRIMARY KEY rewrites the table and keeps the old primary key as a unique index.

-- orders: (customer_id) is not unique, and USING HASH hashes every primary-key column, which would scatter
-- one key value's rows over the buckets: the bucket is a column computed as USING HASH computes its own.
ALTER TABLE orders ADD COLUMN customer_id_bucket_64 INT8 NOT NULL AS (mod(fnv32(md5(crdb_internal.datums_to_bytes(customer_id))), 64)) STORED;
ALTER TABLE orders ALTER PRIMARY KEY USING COLUMNS (customer_id_bucket_64, customer_id, order_id);
-- orders: isolate the hottest 3 customer_id values: a range of its own each (bucket, value); CockroachDB also
-- splits hot ranges by load. Pinning one to its own nodes needs PARTITION BY LIST and zone configurations.
ALTER TABLE orders SPLIT AT VALUES (27, 1), (27, 2);
ALTER TABLE orders SPLIT AT VALUES (6, 2), (6, 3);
ALTER TABLE orders SPLIT AT VALUES (61, 3), (61, 4);

-- order_line: (customer_id) is not unique, and USING HASH hashes every primary-key column, which would scatter
-- one key value's rows over the buckets: the bucket is a column computed as USING HASH computes its own.
ALTER TABLE order_line ADD COLUMN customer_id_bucket_64 INT8 NOT NULL AS (mod(fnv32(md5(crdb_internal.datums_to_bytes(customer_id))), 64)) STORED;
ALTER TABLE order_line ALTER PRIMARY KEY USING COLUMNS (customer_id_bucket_64, customer_id, line_id);
-- order_line: isolate the hottest 3 customer_id values: a range of its own each (bucket, value); CockroachDB also
-- splits hot ranges by load. Pinning one to its own nodes needs PARTITION BY LIST and zone configurations.
ALTER TABLE order_line SPLIT AT VALUES (27, 1), (27, 2);
ALTER TABLE order_line SPLIT AT VALUES (6, 2), (6, 3);
ALTER TABLE order_line SPLIT AT VALUES (61, 3), (61, 4);
