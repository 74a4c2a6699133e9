-- A hand-made Citus coordinator's metadata, for the tests of package livedb
-- and of the command: the catalog tables as Citus creates them
-- (citusdata/citus: src/backend/distributed/sql/citus--8.0-1.sql, which
-- creates them in schema citus and moves them to pg_catalog; autoconverted
-- added in 11.0), filled with what create_distributed_table,
-- create_reference_table and citus_add_local_table_to_metadata would
-- write. Needs a superuser (allow_system_table_mods).
--
-- Shard intervals: create_shards.c's CreateShardsWithRoundRobinPolicy
-- gives shard i of S the hashes INT32_MIN + i * (2^32 / S) up to one
-- less than the next shard's minimum, the last up to INT32_MAX. Worked by
-- hand: S = 4, 2^30 = 1073741824 hashes each; S = 8, 2^29 = 536870912.
--
-- partkey is the distribution column's Var as nodeToString writes it in
-- PostgreSQL 15 (PostgreSQL 16 adds :varnullingrels); varattno is the
-- column's number.
SET allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_partition (
    logicalrelid regclass NOT NULL,
    partmethod "char" NOT NULL,
    partkey text,
    colocationid integer DEFAULT 0 NOT NULL,
    repmodel "char" DEFAULT 'c' NOT NULL,
    autoconverted boolean DEFAULT false
);
CREATE TABLE pg_catalog.pg_dist_shard (
    logicalrelid regclass NOT NULL,
    shardid int8 NOT NULL,
    shardstorage "char" NOT NULL,
    shardminvalue text,
    shardmaxvalue text
);
RESET allow_system_table_mods;

CREATE TABLE users (id int PRIMARY KEY, email text);
CREATE TABLE orders (id bigint PRIMARY KEY, user_id int NOT NULL, total numeric);
CREATE TABLE countries (code text PRIMARY KEY, name text);
CREATE TABLE audit (id int, msg text);
CREATE TABLE events (id bigint, user_id int);
INSERT INTO users SELECT i, 'u' || i || '@example.com' FROM generate_series(1, 400) i;
INSERT INTO orders SELECT i, 1 + i % 400, i / 10.0 FROM generate_series(1, 1200) i;
INSERT INTO countries VALUES ('de', 'Germany'), ('fr', 'France'), ('jp', 'Japan'), ('us', 'United States');
INSERT INTO audit SELECT i, 'm' || i FROM generate_series(1, 50) i;
INSERT INTO events SELECT i, 1 + i % 400 FROM generate_series(1, 300) i;
ANALYZE;

INSERT INTO pg_catalog.pg_dist_partition (logicalrelid, partmethod, partkey, colocationid, repmodel) VALUES
    ('users', 'h', '{VAR :varno 1 :varattno 1 :vartype 23 :vartypmod -1 :varcollid 0 :varlevelsup 0 :varnosyn 1 :varattnosyn 1 :location -1}', 1, 's'),
    ('orders', 'h', '{VAR :varno 1 :varattno 2 :vartype 23 :vartypmod -1 :varcollid 0 :varlevelsup 0 :varnosyn 1 :varattnosyn 2 :location -1}', 1, 's'),
    ('events', 'h', '{VAR :varno 1 :varattno 2 :vartype 23 :vartypmod -1 :varcollid 0 :varlevelsup 0 :varnosyn 1 :varattnosyn 2 :location -1}', 3, 's'),
    ('countries', 'n', NULL, 2, 't'),
    ('audit', 'n', NULL, 0, 's');

INSERT INTO pg_catalog.pg_dist_shard VALUES
    ('users', 102008, 't', '-2147483648', '-1073741825'),
    ('users', 102009, 't', '-1073741824', '-1'),
    ('users', 102010, 't', '0', '1073741823'),
    ('users', 102011, 't', '1073741824', '2147483647'),
    ('orders', 102012, 't', '-2147483648', '-1073741825'),
    ('orders', 102013, 't', '-1073741824', '-1'),
    ('orders', 102014, 't', '0', '1073741823'),
    ('orders', 102015, 't', '1073741824', '2147483647'),
    ('countries', 102016, 't', NULL, NULL),
    ('events', 102017, 't', '-2147483648', '-1610612737'),
    ('events', 102018, 't', '-1610612736', '-1073741825'),
    ('events', 102019, 't', '-1073741824', '-536870913'),
    ('events', 102020, 't', '-536870912', '-1'),
    ('events', 102021, 't', '0', '536870911'),
    ('events', 102022, 't', '536870912', '1073741823'),
    ('events', 102023, 't', '1073741824', '1610612735'),
    ('events', 102024, 't', '1610612736', '2147483647');
