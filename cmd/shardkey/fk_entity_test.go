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
// lookup (a global index; under Vitess a lookup_unique vindex). So advise recommends
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
	// The text says what the lookup is and costs, in the field's terms
	// (engine generic: a global index, not a Vitess vindex).
	code, out, errs = runCmd(t, "", "advise", "--log", log, "--schema", schema, "--shards", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"Shard by orders:hash(user_id); users:hash(id), lookup(login).",
		"lookup(login) on users is a secondary index table keyed by login, a global index (a table from login to the row's key, sharded by login; a value names one row): each of the 8.00 requests/s by login first reads its shard (+8.00 units/s), then the one shard of its row;",
		"the workload inserts and deletes no users rows, so it writes no lookup rows here",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

// TestForeignKeyReferenceTableStays: a read-only table that foreign keys
// reference is an entity root only in its own entity's designs. TPC-C's
// shape in small: stock(s_w_id REFERENCES warehouse, s_i_id REFERENCES
// item), each new-order-like transaction reads one item by i_id, reads
// and updates its warehouse's stock row and adds to the warehouse's
// w_ytd. Keyed by warehouse, item read-only is a reference table (a copy
// on every shard) and every transaction stays on its warehouse's shard:
// 0 cross-shard. Keying item by i_id in that design (as an entity root)
// would send each item read to the item's own shard: 3 of 4 transactions
// crossing shards on 4 shards. So the recommendation keys stock by
// s_w_id with item:replicate, and no transaction crosses shards.
func TestForeignKeyReferenceTableStays(t *testing.T) {
	schema := writeFile(t, "tpcc.sql", `CREATE TABLE warehouse (w_id INT PRIMARY KEY, w_ytd DECIMAL(12,2));
CREATE TABLE item (i_id INT PRIMARY KEY, i_price DECIMAL(5,2));
CREATE TABLE stock (s_w_id INT REFERENCES warehouse(w_id), s_i_id INT REFERENCES item(i_id), s_quantity INT, PRIMARY KEY (s_w_id, s_i_id));
`)
	var b strings.Builder
	b.WriteString("/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1 (Debian 12). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n")
	for i := 0; i < 300; i++ {
		w, it := i%16+1, (i*7919)%1000+1
		sess := 100 + i%8
		fmt.Fprintf(&b, "240301 00:%02d:%02d\t  %d Query\tBEGIN\n", i/60, i%60, sess)
		for _, q := range []string{
			fmt.Sprintf("SELECT i_price FROM item WHERE i_id = %d", it),
			fmt.Sprintf("SELECT s_quantity FROM stock WHERE s_w_id = %d AND s_i_id = %d", w, it),
			fmt.Sprintf("UPDATE stock SET s_quantity = s_quantity - 1 WHERE s_w_id = %d AND s_i_id = %d", w, it),
			fmt.Sprintf("UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = %d", w),
			"COMMIT",
		} {
			fmt.Fprintf(&b, "\t\t  %d Query\t%s\n", sess, q)
		}
	}
	log := writeFile(t, "tpcc.log", b.String())
	code, out, errs := runCmd(t, "", "advise", "--log", log, "--schema", schema, "--shards", "4", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Recommended string `json:"recommended"`
		Candidates  []struct {
			Key   string `json:"key"`
			Score struct {
				CrossShardTxnFraction *float64 `json:"cross_shard_txn_fraction"`
			} `json:"score"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	d, err := shardkey.ParseDesign(r.Recommended)
	if err != nil {
		t.Fatalf("recommended %q: %v", r.Recommended, err)
	}
	if e := d.For("item", nil); e == nil || len(e.Columns()) != 0 {
		t.Errorf("recommended %q: item is not a reference table", r.Recommended)
	}
	if e := d.For("stock", nil); e == nil || len(e.Columns()) != 1 || e.Columns()[0] != "s_w_id" {
		t.Errorf("recommended %q: stock not keyed by s_w_id", r.Recommended)
	}
	for _, c := range r.Candidates {
		if c.Key == r.Recommended {
			if x := c.Score.CrossShardTxnFraction; x == nil {
				t.Errorf("%s: cross-shard transactions unknown; want 0", c.Key)
			} else if *x != 0 {
				t.Errorf("%s: cross-shard transactions %v; want 0", c.Key, *x)
			}
		}
	}
}
