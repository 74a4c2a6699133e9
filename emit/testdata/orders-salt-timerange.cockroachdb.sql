-- shardkey design "orders:salt(hash(customer_id), 4, top=2); order_line:range(order_month)" for workload orders on CockroachDB, 64 buckets (hash keys), 64 ranges (range keys).
-- New primary-key columns must be NOT NULL (ALTER TABLE ... ALTER COLUMN ... SET NOT NULL);
-- ALTER PRIMARY KEY rewrites the table and keeps the old primary key as a unique index.

-- orders: salt: add a salt column (0..3) for the hot customer_id values (1, 2) after the key columns and read those values from every salt.
-- orders: (customer_id) is not unique, and USING HASH hashes every primary-key column, which would scatter
-- one key value's rows over the buckets: the bucket is a column computed as USING HASH computes its own.
ALTER TABLE orders ADD COLUMN customer_id_bucket_64 INT8 NOT NULL AS (mod(fnv32(md5(crdb_internal.datums_to_bytes(customer_id))), 64)) STORED;
ALTER TABLE orders ALTER PRIMARY KEY USING COLUMNS (customer_id_bucket_64, customer_id, order_id);

-- order_line: range(order_month): CockroachDB splits ranges of the primary key by size and load: nothing to run
-- if the primary key starts with (order_month); else ALTER TABLE order_line ALTER PRIMARY KEY USING COLUMNS (order_month, line_id).
-- order_month is monotonic: every insert goes to the last range, a hot spot that load-based splitting
-- cannot fix; hash(order_month) (USING HASH) spreads the inserts.
-- WARNING: order_line: range(order_month) has no range boundaries (bounds=[...]): CockroachDB will split it by size and load, not at the boundaries shardkey scored.
