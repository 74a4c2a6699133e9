package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// carrySQL runs advise with args and returns the recommended design's
// carried tables' backfill and index texts, by table.
func carrySQL(t *testing.T, args ...string) (backfill, index map[string]string) {
	t.Helper()
	code, out, errs := runCmd(t, "", append([]string{"advise", "--format", "json", "--sweep", "", "--bootstrap", "0"}, args...)...)
	if code != 0 {
		t.Fatalf("advise: exit %d: %s", code, errs)
	}
	var a struct {
		Recommended string `json:"recommended"`
		Candidates  []struct {
			Carry []struct {
				Table, Backfill, Index string
			} `json:"carry"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	backfill, index = map[string]string{}, map[string]string{}
	for _, c := range a.Candidates[0].Carry {
		backfill[c.Table], index[c.Table] = c.Backfill, c.Index
	}
	if a.Recommended != "hash(customer_id)" || backfill["order_items"] == "" {
		t.Fatalf("recommended %s carrying %v; want hash(customer_id) carried into order_items", a.Recommended, backfill)
	}
	return backfill, index
}

// backfillStatements splits a backfill text into its statements, without
// the closing remark in parentheses.
func backfillStatements(s string) []string {
	s = strings.TrimSuffix(s, " (in batches, while new writes set it)")
	return strings.Split(s, "; ")
}

// carryQueries writes the application's queries on table orders (named
// as the database names it), as a file.
func carryQueries(t *testing.T, orders string) string {
	var q strings.Builder
	for i := 0; i < 400; i++ {
		c := 1000 + (i*13)%1000
		fmt.Fprintf(&q, `{"name": "list a customer's orders", "table": %q, "where": {"customer_id": %d}}`+"\n", orders, c)
		fmt.Fprintf(&q, `{"name": "items of an order", "table": "order_items", "where": {"order_id": %d}}`+"\n", 1+(i*17)%3000)
	}
	f := filepath.Join(t.TempDir(), "q.jsonl")
	os.WriteFile(f, []byte(q.String()), 0o644)
	return f
}

// TestCarryBackfillPostgres: the carry's backfill SQL runs as written on
// the PostgreSQL it was read from, whose orders table is "Orders" (a
// name PostgreSQL folds to orders unless quoted), and fills every item's
// customer_id with its order's, which the database itself checks.
func TestCarryBackfillPostgres(t *testing.T) {
	admin := os.Getenv("SHARDKEY_TEST_PG")
	if admin == "" {
		admin = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Skipf("no PostgreSQL at %s: %v", admin, err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	name := fmt.Sprintf("shardkey_carry_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
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
	defer db.Close(ctx)
	for _, q := range []string{
		`CREATE TABLE customers (customer_id bigint PRIMARY KEY, name text)`,
		`CREATE TABLE "Orders" (order_id bigint PRIMARY KEY, customer_id bigint NOT NULL REFERENCES customers, created_at bigint)`,
		`CREATE TABLE order_items (order_id bigint REFERENCES "Orders", line_no int, product_id int, PRIMARY KEY (order_id, line_no))`,
		`INSERT INTO customers SELECT i, 'c' || i FROM generate_series(1000, 1999) i`,
		`INSERT INTO "Orders" SELECT i, 1000 + (i * 7) % 1000, 1700000000 + 60 * i FROM generate_series(1, 3000) i`,
		`INSERT INTO order_items SELECT o, l, 1 + (o * l) % 50 FROM generate_series(1, 3000) o, generate_series(1, 3) l`,
		`CREATE TABLE payments (payment_id bigint PRIMARY KEY, order_id bigint REFERENCES "Orders", amount int)`,
		`INSERT INTO payments SELECT 50000 + i, i, 10 FROM generate_series(1, 3000) i`,
		`ANALYZE`,
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	backfill, index := carrySQL(t, "--from", dsn, "--queries", carryQueries(t, "Orders"), "--engine", "postgres")
	for _, q := range backfillStatements(backfill["order_items"]) {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("backfill %q: %v", q, err)
		}
	}
	var wrong, filled int64
	if err := db.QueryRow(ctx, `SELECT count(*) FILTER (WHERE i.customer_id IS DISTINCT FROM o.customer_id), count(i.customer_id)
		FROM order_items i JOIN "Orders" o ON o.order_id = i.order_id`).Scan(&wrong, &filled); err != nil {
		t.Fatal(err)
	}
	if wrong != 0 || filled != 9000 {
		t.Errorf("after %q: %d items with another customer than their order's, %d of 9000 filled", backfill["order_items"], wrong, filled)
	}
	if ix := index["order_items"]; strings.Contains(ix, "Citus") {
		t.Errorf("engine postgres: index note %q names Citus", ix)
	}
}

// TestCarryBackfillMariaDB: the same on MariaDB, whose orders table is
// `Order` (ORDER is a reserved word): MySQL's multi-table UPDATE (it has
// no UPDATE ... FROM), backticks, and under --engine vitess no Citus
// note.
func TestCarryBackfillMariaDB(t *testing.T) {
	admin := "root@tcp(127.0.0.1:3306)/mysql?multiStatements=true"
	ctx := context.Background()
	db, err := sql.Open("mysql", admin)
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		t.Skipf("no MySQL at %s: %v", admin, err)
	}
	t.Cleanup(func() { db.Close() })
	name := fmt.Sprintf("shardkey_carry_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := db.ExecContext(ctx, "DROP DATABASE "+name); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	for _, q := range []string{
		"CREATE TABLE customers (customer_id bigint PRIMARY KEY, name text) ENGINE=InnoDB",
		"CREATE TABLE `Order` (order_id bigint PRIMARY KEY, customer_id bigint NOT NULL, created_at bigint, FOREIGN KEY (customer_id) REFERENCES customers (customer_id)) ENGINE=InnoDB",
		"CREATE TABLE order_items (order_id bigint, line_no int, product_id int, PRIMARY KEY (order_id, line_no), FOREIGN KEY (order_id) REFERENCES `Order` (order_id)) ENGINE=InnoDB",
		"INSERT INTO customers SELECT seq, CONCAT('c', seq) FROM seq_1000_to_1999",
		"INSERT INTO `Order` SELECT seq, 1000 + (seq * 7) % 1000, 1700000000 + 60 * seq FROM seq_1_to_3000",
		"INSERT INTO order_items SELECT o.seq, l.seq, 1 + (o.seq * l.seq) % 50 FROM seq_1_to_3000 o, seq_1_to_3 l",
		"CREATE TABLE payments (payment_id bigint PRIMARY KEY, order_id bigint, amount int, FOREIGN KEY (order_id) REFERENCES `Order` (order_id)) ENGINE=InnoDB",
		"INSERT INTO payments SELECT 50000 + seq, seq, 10 FROM seq_1_to_3000",
		"ANALYZE TABLE customers, `Order`, order_items, payments",
	} {
		if _, err := db.ExecContext(ctx, "USE "+name+"; "+q); err != nil {
			if strings.Contains(err.Error(), "seq_") {
				t.Skipf("not MariaDB (no sequence engine): %v", err)
			}
			t.Fatalf("%s: %v", q, err)
		}
	}
	backfill, index := carrySQL(t, "--from", "mysql://root@127.0.0.1:3306/"+name, "--queries", carryQueries(t, "Order"), "--engine", "vitess")
	for _, q := range backfillStatements(backfill["order_items"]) {
		if _, err := db.ExecContext(ctx, "USE "+name+"; "+q); err != nil {
			t.Fatalf("backfill %q: %v", q, err)
		}
	}
	var wrong, filled int64
	if err := db.QueryRowContext(ctx, "SELECT SUM(NOT (i.customer_id <=> o.customer_id)), COUNT(i.customer_id) FROM "+name+".order_items i JOIN "+name+".`Order` o ON o.order_id = i.order_id").Scan(&wrong, &filled); err != nil {
		t.Fatal(err)
	}
	if wrong != 0 || filled != 9000 {
		t.Errorf("after %q: %d items with another customer than their order's, %d of 9000 filled", backfill["order_items"], wrong, filled)
	}
	if ix := index["order_items"]; strings.Contains(ix, "Citus") {
		t.Errorf("engine vitess: index note %q names Citus", ix)
	}
}
