package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// fkEntityCase writes the fresh-clone review's case: users(id primary
// key, login UNIQUE) and orders(id primary key, user_id REFERENCES
// users(id)), and a MariaDB general log of 400 statements over 20
// seconds (a timestamp every 20): users read by login (160, 8/s), by id
// (80, 4/s), orders read by user_id (80, 4/s) and inserted with it (80,
// 4/s). It returns the schema and log paths.
func fkEntityCase(t *testing.T) (schema, log string) {
	t.Helper()
	schema = writeFile(t, "schema.sql", `CREATE TABLE users (id BIGINT PRIMARY KEY, login VARCHAR(64) NOT NULL, email VARCHAR(128), UNIQUE KEY (login));
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
	return schema, writeFile(t, "app.log", b.String())
}

// TestForeignKeyEntity: the entity is the user. users.id and
// orders.user_id hold the same values (the foreign key says so), while
// users.id and orders.id, one name but each its table's own primary key,
// are two entities: no candidate keys both tables by their own id as if
// one ("hash(id)" did). users, the root read by its key, is no reference
// table (a copy of every user on every shard); keyed by id it sits with
// its orders, and login, a declared unique key, is served by a unique
// lookup (a Vitess lookup_unique vindex). So advise recommends
// users:hash(id), lookup(login); orders:hash(user_id): every request on
// one shard after the lookup (fan-out 1.00), no transaction across
// shards (each statement its own, and no statement writes users, so no
// lookup row), while hash(login); orders:hash(user_id) leaves the reads
// by id (20%) asking every shard. Its work, by hand: a login read is the
// lookup row's shard plus the user's, 2 units x 8/s; the reads by id,
// of orders by user_id and the inserts one unit each, 4/s x 3: 28
// units/s for 20 requests/s.
func TestForeignKeyEntity(t *testing.T) {
	schema, log := fkEntityCase(t)
	code, out, errs := runCmd(t, "", "advise", "--log", log, "--schema", schema, "--shards", "4", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Recommended string `json:"recommended"`
		Candidates  []struct {
			Key   string `json:"key"`
			Score struct {
				FanoutMean            float64  `json:"fanout_mean"`
				WorkPerS              float64  `json:"work_per_s"`
				CrossShardTxnFraction *float64 `json:"cross_shard_txn_fraction"`
			} `json:"score"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	has := func(t *shardkey.Table) func(string) bool {
		return func(c string) bool { return t.Column(c) != nil }
	}
	users := &shardkey.Table{Name: "users", Columns: []*shardkey.Column{{Name: "id"}, {Name: "login"}, {Name: "email"}}}
	orders := &shardkey.Table{Name: "orders", Columns: []*shardkey.Column{{Name: "id"}, {Name: "user_id"}, {Name: "total"}}}
	d, err := shardkey.ParseDesign(r.Recommended)
	if err != nil {
		t.Fatalf("recommended %q: %v", r.Recommended, err)
	}
	ue, oe := d.For("users", has(users)), d.For("orders", has(orders))
	ul := d.LookupsFor("users", has(users))
	if ue == nil || ue.String() != "hash(id)" || oe == nil || oe.String() != "hash(user_id)" ||
		len(ul) != 1 || ul[0] != (shardkey.Lookup{Col: "login", Unique: true}) {
		t.Errorf("recommended %q; want users:hash(id), lookup(login); orders:hash(user_id)", r.Recommended)
	}
	for i, c := range r.Candidates {
		if i == 0 {
			if c.Key != r.Recommended {
				t.Errorf("first candidate %q, recommended %q", c.Key, r.Recommended)
			}
			if c.Score.FanoutMean != 1 {
				t.Errorf("%s: fan-out mean %v; want 1.00", c.Key, c.Score.FanoutMean)
			}
			if x := c.Score.CrossShardTxnFraction; x == nil || *x != 0 {
				t.Errorf("%s: cross-shard transactions %v; want 0", c.Key, x)
			}
			if math.Abs(c.Score.WorkPerS-28) > 1e-6 {
				t.Errorf("%s: work %v units/s; want 28", c.Key, c.Score.WorkPerS)
			}
		}
		cd, err := shardkey.ParseDesign(c.Key)
		if err != nil {
			continue // a carried key's display form
		}
		if ue, oe := cd.For("users", has(users)), cd.For("orders", has(orders)); ue != nil && oe != nil && ue.String() == "hash(id)" && oe.String() == "hash(id)" {
			t.Errorf("candidate %q keys users and orders by their own ids as one entity", c.Key)
		}
	}
	// The text says what the lookup is and costs, in the field's terms.
	code, out, errs = runCmd(t, "", "advise", "--log", log, "--schema", schema, "--shards", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"Shard by orders:hash(user_id); users:hash(id), lookup(login).",
		"lookup(login) on users is a Vitess lookup_unique vindex (a global secondary index: a table from login to the keyspace id, sharded by login; a value names one row): each of the 8.00 requests/s by login first reads its shard (+8.00 units/s), then the one shard of its row;",
		"the workload inserts and deletes no users rows, so it writes no lookup rows here",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}
