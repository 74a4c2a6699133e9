package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestForeignKeyEntity: users(id primary key, login unique) and orders(id
// primary key, user_id REFERENCES users(id)), read by login, by users.id
// and by orders.user_id, orders inserted by user (a fresh-clone review's
// case). The entity is the user: users.id and orders.user_id hold the
// same values (the foreign key says so), while users.id and orders.id,
// one name but each its table's own primary key, are two entities. So
// advise scores the design that co-locates each user with its orders,
// users by id and orders by user_id: every write single-shard, no
// transaction (each statement its own) crossing shards; and no candidate
// keys both tables by their own id as if one entity (it did: "hash(id)",
// "root entity id over users, orders").
func TestForeignKeyEntity(t *testing.T) {
	schema := writeFile(t, "schema.sql", `CREATE TABLE users (id BIGINT PRIMARY KEY, login VARCHAR(64) NOT NULL, email VARCHAR(128), UNIQUE KEY (login));
CREATE TABLE orders (id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL, total INT, FOREIGN KEY (user_id) REFERENCES users(id));
`)
	var b strings.Builder
	b.WriteString("/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1 (Debian 12). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n")
	for i := 0; i < 400; i++ {
		ts := "\t\t"
		if i%20 == 0 {
			ts = fmt.Sprintf("240301 00:%02d:%02d\t", i/20/60, i/20%60)
		}
		u := (i*7919)%500 + 1
		var q string
		switch i % 5 {
		case 0, 1:
			q = fmt.Sprintf("SELECT id, login, email FROM users WHERE login = 'user%d'", u)
		case 2:
			q = fmt.Sprintf("SELECT * FROM users WHERE id = %d", u)
		case 3:
			q = fmt.Sprintf("SELECT id, total FROM orders WHERE user_id = %d", u)
		case 4:
			q = fmt.Sprintf("INSERT INTO orders (id, user_id, total) VALUES (%d, %d, 10)", 100000+i, u)
		}
		fmt.Fprintf(&b, "%s  %d Query\t%s\n", ts, 1000+i%16, q)
	}
	log := writeFile(t, "app.log", b.String())
	code, out, errs := runCmd(t, "", "advise", "--log", log, "--schema", schema, "--shards", "4", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Candidates []struct {
			Key   string `json:"key"`
			Score struct {
				CrossShardTxnFraction *float64 `json:"cross_shard_txn_fraction"`
			} `json:"score"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range r.Candidates {
		if strings.Contains(c.Key, "orders:hash(user_id)") && strings.Contains(c.Key, "users:hash(id)") {
			found = true
			if x := c.Score.CrossShardTxnFraction; x == nil || *x != 0 {
				t.Errorf("%s: cross-shard transactions %v; want 0 (each insert names its user)", c.Key, x)
			}
		}
		if c.Key == "hash(id)" {
			t.Errorf("candidate hash(id) keys users and orders by their own ids as one entity")
		}
	}
	if !found {
		var keys []string
		for _, c := range r.Candidates {
			keys = append(keys, c.Key)
		}
		t.Errorf("no candidate co-locates users (by id) with their orders (by user_id): %q", keys)
	}
}
