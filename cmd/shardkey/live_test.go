package main

import (
	"context"
	"database/sql"
	"fmt"
	_ "github.com/go-sql-driver/mysql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestAdviseOrdersFromLivePostgres: the orders service on a live
// PostgreSQL (a throwaway database on 127.0.0.1:5432, or
// SHARDKEY_TEST_PG), with its foreign keys declared and no customer_id in
// order_items or payments: --from reads the rows and the foreign keys,
// and the answer is the expert's: customer_id, carried into order_items
// and payments along their foreign keys to orders.
func TestAdviseOrdersFromLivePostgres(t *testing.T) {
	admin := os.Getenv("SHARDKEY_TEST_PG")
	if admin == "" {
		admin = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Skipf("no PostgreSQL at %s: %v", admin, err)
	}
	// The admin connection lives until the cleanup has dropped the
	// database (a deferred Close ran before the cleanup, so the DROP
	// failed and every run left its database behind).
	t.Cleanup(func() { conn.Close(ctx) })
	name := fmt.Sprintf("shardkey_advise_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	cfg, _ := pgx.ParseConfig(admin)
	dsn := fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Host, cfg.Port, name)
	db, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE customers (customer_id bigint PRIMARY KEY, name text)`,
		`CREATE TABLE orders (order_id bigint PRIMARY KEY, customer_id bigint NOT NULL REFERENCES customers, created_at bigint)`,
		`CREATE TABLE order_items (order_id bigint REFERENCES orders, line_no int, product_id int, PRIMARY KEY (order_id, line_no))`,
		`CREATE TABLE payments (payment_id bigint PRIMARY KEY, order_id bigint REFERENCES orders, amount int)`,
		`INSERT INTO customers SELECT i, 'c' || i FROM generate_series(1000, 1999) i`,
		// 30% of orders are customer 1001's.
		`INSERT INTO orders SELECT i, CASE WHEN i % 10 < 3 THEN 1001 ELSE 1000 + (i * 7) % 1000 END, 1700000000 + 60 * i FROM generate_series(1, 3000) i`,
		`INSERT INTO order_items SELECT o, l, 1 + (o * l) % 500 FROM generate_series(1, 3000) o, generate_series(1, 3) l`,
		`INSERT INTO payments SELECT 50000 + i, i, 10 FROM generate_series(1, 3000) i`,
		`ANALYZE`,
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close(ctx)
	// The application's queries, as a file.
	var q strings.Builder
	for i := 0; i < 400; i++ {
		c := 1000 + (i*13)%1000
		if i%10 < 3 {
			c = 1001
		}
		fmt.Fprintf(&q, `{"name": "list a customer's orders", "table": "orders", "where": {"customer_id": %d}}`+"\n", c)
		fmt.Fprintf(&q, `{"name": "items of an order", "table": "order_items", "where": {"order_id": %d}}`+"\n", 1+(i*17)%3000)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "q.jsonl"), []byte(q.String()), 0o644)
	a := adviseJSON(t, "advise", "--from", dsn, "--queries", filepath.Join(dir, "q.jsonl"))
	if a.Recommended != "hash(customer_id)" || !a.carries("customer_id", "order_items", "payments") {
		t.Fatalf("recommended %s carrying %+v; want hash(customer_id) carried into order_items and payments", a.Recommended, a.Candidates[0].Carry)
	}
	// Every query names the customer, directly or through its order.
	if cr := a.Candidates[0].Criteria; cr.SingleShard < 1-1e-9 {
		t.Errorf("single-shard %.3f; want 1", cr.SingleShard)
	}
}

// TestAdviseOrdersFromLiveMariaDB: the same on MariaDB/MySQL
// (127.0.0.1:3306, user root without a password; the test skips without
// one, or on MySQL, which lacks MariaDB's seq_ tables).
func TestAdviseOrdersFromLiveMariaDB(t *testing.T) {
	admin := "root@tcp(127.0.0.1:3306)/mysql?multiStatements=true"
	ctx := context.Background()
	db, err := sql.Open("mysql", admin)
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		t.Skipf("no MySQL at %s: %v", admin, err)
	}
	t.Cleanup(func() { db.Close() }) // after the DROP below (cleanups run last first)
	name := fmt.Sprintf("shardkey_advise_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := db.ExecContext(ctx, "DROP DATABASE "+name); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	for _, q := range []string{
		`CREATE TABLE customers (customer_id bigint PRIMARY KEY, name text) ENGINE=InnoDB`,
		`CREATE TABLE orders (order_id bigint PRIMARY KEY, customer_id bigint NOT NULL, created_at bigint, FOREIGN KEY (customer_id) REFERENCES customers (customer_id)) ENGINE=InnoDB`,
		`CREATE TABLE order_items (order_id bigint, line_no int, product_id int, PRIMARY KEY (order_id, line_no), FOREIGN KEY (order_id) REFERENCES orders (order_id)) ENGINE=InnoDB`,
		`CREATE TABLE payments (payment_id bigint PRIMARY KEY, order_id bigint, amount int, FOREIGN KEY (order_id) REFERENCES orders (order_id)) ENGINE=InnoDB`,
		`INSERT INTO customers SELECT seq, CONCAT('c', seq) FROM seq_1000_to_1999`,
		`INSERT INTO orders SELECT seq, IF(seq % 10 < 3, 1001, 1000 + (seq * 7) % 1000), 1700000000 + 60 * seq FROM seq_1_to_3000`,
		`INSERT INTO order_items SELECT o.seq, l.seq, 1 + (o.seq * l.seq) % 500 FROM seq_1_to_3000 o, seq_1_to_3 l`,
		`INSERT INTO payments SELECT 50000 + seq, seq, 10 FROM seq_1_to_3000`,
		`ANALYZE TABLE customers, orders, order_items, payments`,
	} {
		if _, err := db.ExecContext(ctx, "USE "+name+"; "+q); err != nil {
			if strings.Contains(err.Error(), "seq_") {
				t.Skipf("not MariaDB (no sequence engine): %v", err)
			}
			t.Fatalf("%s: %v", q, err)
		}
	}
	var q strings.Builder
	for i := 0; i < 400; i++ {
		c := 1000 + (i*13)%1000
		if i%10 < 3 {
			c = 1001
		}
		fmt.Fprintf(&q, `{"name": "list a customer's orders", "table": "orders", "where": {"customer_id": %d}}`+"\n", c)
		fmt.Fprintf(&q, `{"name": "items of an order", "table": "order_items", "where": {"order_id": %d}}`+"\n", 1+(i*17)%3000)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "q.jsonl"), []byte(q.String()), 0o644)
	a := adviseJSON(t, "advise", "--from", "mysql://root@127.0.0.1:3306/"+name, "--queries", filepath.Join(dir, "q.jsonl"))
	if a.Recommended != "hash(customer_id)" || !a.carries("customer_id", "order_items", "payments") {
		t.Fatalf("recommended %s carrying %+v; want hash(customer_id) carried into order_items and payments", a.Recommended, a.Candidates[0].Carry)
	}
}
