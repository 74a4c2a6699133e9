-- shardkey design "orders:hash(customer_id, order_month); order_line:range(order_id, bounds=[5000, 10000])" for workload orders on CockroachDB, 3 buckets (hash keys), 3 ranges (range keys).
-- New primary-key columns must be NOT NULL (ALTER TABLE ... ALTER COLUMN ... SET NOT NULL);
-- ALTER PRIMARY KEY rewrites the table and keeps the old primary key as a unique index.

-- orders: (customer_id, order_month) is not unique, and USING HASH hashes every primary-key column, which would scatter
-- one key value's rows over the buckets: the bucket is a column computed as USING HASH computes its own.
ALTER TABLE orders ADD COLUMN customer_id_order_month_bucket_3 INT8 NOT NULL AS (mod(fnv32(md5(crdb_internal.datums_to_bytes(customer_id, order_month))), 3)) STORED;
ALTER TABLE orders ALTER PRIMARY KEY USING COLUMNS (customer_id_order_month_bucket_3, customer_id, order_month, order_id);

-- order_line: range(order_id, bounds=[5000, 10000]): the primary key must start with (order_id); else ALTER TABLE order_line ALTER PRIMARY KEY USING COLUMNS (order_id, line_id).
-- order_id is monotonic: every insert goes to the last range, a hot spot that load-based splitting
-- cannot fix; hash(order_id) (USING HASH) spreads the inserts.
-- The ranges shardkey scored: split at its 2 split points, range i holding [bound i-1, bound i).
-- CockroachDB's allocator, not this file, puts each range on a node (balancing range count and load),
-- and may split a range further by size or load; manual split points stay until unsplit.
ALTER TABLE order_line SPLIT AT VALUES (5000), (10000);
