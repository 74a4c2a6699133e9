package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestExplain_CitusRealCluster routes statements as a real Citus 12.1.12
// coordinator planned them (docs/own-database.md, "Verified on a real
// Citus cluster"): for each, `SET citus.explain_all_tasks = on; EXPLAIN
// (FORMAT JSON) ...` listed the shard tables of its tasks, and the shard
// index is the shard id less the table's first (users 102008.., orders
// 102040.., ev_int 102072.., docs 102104.., sess 102136..; 32 shards
// each, created in shardminvalue order). "SELECT * FROM users WHERE id IN
// (1, 2, 3, 4)" ran on users_102009, _102016, _102023 and _102032: shards
// 1, 8, 15 and 24. A reference table's read is one task on its one shard
// (any shard here). Tables with other shard counts are left out: a design
// has one shard count.
func TestExplain_CitusRealCluster(t *testing.T) {
	dir := t.TempDir()
	ddl := `CREATE TABLE users (id bigint PRIMARY KEY, name text, country text);
CREATE TABLE orders (id bigint, user_id bigint, amount numeric, created date, PRIMARY KEY (user_id, id));
CREATE TABLE ev_int (id int, payload text);
CREATE TABLE docs (k text, body text);
CREATE TABLE sess (u uuid, n int);
CREATE TABLE countries (code text PRIMARY KEY, name text);
`
	schema := filepath.Join(dir, "schema.sql")
	if err := os.WriteFile(schema, []byte(ddl), 0o644); err != nil {
		t.Fatal(err)
	}
	key := "users:hash(id); orders:hash(user_id); ev_int:hash(id); docs:hash(k); sess:hash(u); countries:replicate"
	all := make([]int, 32)
	for i := range all {
		all[i] = i
	}
	for _, c := range []struct {
		sql    string
		shards []int // the shards of Citus' tasks; empty: a task on no shard table
	}{
		{"SELECT * FROM orders WHERE user_id = 42", []int{27}},                                                   // orders_102067
		{"SELECT * FROM users WHERE id IN (1, 2, 3, 4)", []int{1, 8, 15, 24}},                                    // users_102009, _102016, _102023, _102032
		{"SELECT * FROM users WHERE id = 7 OR id = 9", []int{8, 28}},                                             // users_102016, _102036
		{"SELECT * FROM users WHERE id > 100", all},                                                              // 32 tasks
		{"SELECT * FROM users u JOIN orders o ON o.user_id = u.id WHERE u.id = 5", []int{6}},                     // users_102014 with orders_102046
		{"SELECT * FROM users u JOIN orders o ON o.user_id = u.id", all},                                         // 32 tasks, each a colocated pair
		{"SELECT * FROM users u JOIN countries c ON c.code = u.country WHERE u.id = 77", []int{7}},               // users_102015 with countries_102198
		{"SELECT * FROM ev_int WHERE id = -5", []int{26}},                                                        // ev_int_102098
		{"SELECT * FROM docs WHERE k = 'user_1'", []int{16}},                                                     // docs_102120
		{"SELECT * FROM sess WHERE u = 'c4ca4238-a0b9-3382-8dcc-509a6f75849b'", []int{18}},                       // sess_102154
		{"UPDATE users SET name = 'x' WHERE id = 12", []int{30}},                                                 // users_102038
		{"DELETE FROM orders WHERE user_id = 13 AND id = 5", []int{23}},                                          // orders_102063
		{"INSERT INTO users (id, name, country) VALUES (900001, 'a', 'c1'), (900002, 'b', 'c2')", []int{11, 29}}, // users_102019, _102037
		{"SELECT * FROM orders WHERE id = 5", all},                                                               // 32 tasks
		{"SELECT * FROM users WHERE id = 1 AND id = 2", []int{}},                                                 // one task, no shard table
	} {
		r := explainJSON(t, "--schema", schema, "-k", key, "--engine", "citus", "--shards", "32", c.sql)
		got := r.Shards
		if got == nil {
			got = []int{}
		}
		if !slices.Equal(got, c.shards) {
			t.Errorf("%s: shards %v, Citus ran on %v (%s)", c.sql, got, c.shards, r.Reason)
		}
	}
}
