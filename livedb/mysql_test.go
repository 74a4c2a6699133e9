package livedb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shardkey/shardkey"
)

// myAdminDSN is the MySQL/MariaDB server the tests create their database
// on (SHARDKEY_TEST_MYSQL overrides it); tests skip when it does not answer.
func myAdminDSN() string {
	if s := os.Getenv("SHARDKEY_TEST_MYSQL"); s != "" {
		return s
	}
	return "mysql://root@127.0.0.1:3306/mysql"
}

func myOpen(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := myConfig(u)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MultiStatements = true
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sql.OpenDB(c)
}

// myTestDB creates a throwaway database with a small schema; it is dropped
// when the test ends.
func myTestDB(t *testing.T) (string, *sql.DB) {
	t.Helper()
	ctx := context.Background()
	admin := myOpen(t, myAdminDSN())
	if err := admin.PingContext(ctx); err != nil {
		admin.Close()
		t.Skipf("no MySQL at %s: %v", myAdminDSN(), err)
	}
	name := fmt.Sprintf("shardkey_livedb_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(ctx, "DROP DATABASE "+name); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
		admin.Close()
	})
	u, _ := url.Parse(myAdminDSN())
	u.Path = "/" + name
	dsn := u.String()
	db := myOpen(t, dsn)
	t.Cleanup(func() { db.Close() })
	for _, q := range []string{
		`CREATE TABLE users (id BIGINT AUTO_INCREMENT PRIMARY KEY, email VARCHAR(64) NOT NULL, region CHAR(2),
		   created_at DATETIME(6) NOT NULL, score DOUBLE, flag TINYINT(1), UNIQUE KEY (email), KEY (region)) ENGINE=InnoDB`,
		`CREATE TABLE orders (id INT UNSIGNED PRIMARY KEY, user_id BIGINT NOT NULL, note VARBINARY(8), placed DATE,
		   FOREIGN KEY (user_id) REFERENCES users (id)) ENGINE=InnoDB`,
		`INSERT INTO users (email, region, created_at, score, flag)
		   SELECT CONCAT('u', seq, '@example.com'), ELT(1 + seq % 3, 'eu', 'us', 'ap'),
		          TIMESTAMPADD(MINUTE, seq, '2024-01-01 00:00:00'), seq / 4, seq % 2
		   FROM seq_1_to_3000`,
		`INSERT INTO orders SELECT seq, 1 + (seq * 7) % 3000, UNHEX(LPAD(HEX(seq), 4, '0')), '2024-02-01' + INTERVAL (seq % 30) DAY
		   FROM seq_1_to_6000`,
		`ANALYZE TABLE users, orders`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Skipf("%s: %v (seq_1_to_N needs MariaDB's Sequence engine)", q, err)
		}
	}
	return dsn, db
}

// myState is everything a write could change.
func myState(t *testing.T, db *sql.DB) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	var objects string
	if err := db.QueryRowContext(ctx, `SELECT CONCAT(COUNT(*), ' ', MD5(GROUP_CONCAT(TABLE_NAME, ':', TABLE_TYPE ORDER BY TABLE_NAME)))
		FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()`).Scan(&objects); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "objects %s\n", objects)
	rows, err := db.QueryContext(ctx, "CHECKSUM TABLE users, orders EXTENDED")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var tab string
		var sum sql.NullInt64
		if err := rows.Scan(&tab, &sum); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %d\n", tab, sum.Int64)
	}
	return b.String()
}

func TestRead_MySQL(t *testing.T) {
	dsn, db := myTestDB(t)
	ctx := context.Background()
	before := myState(t, db)
	w := &shardkey.Workload{Seed: 7}
	if err := Read(ctx, w, dsn, Options{SampleRows: 1000}); err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	u, o := w.Table("users"), w.Table("orders")
	if u == nil || o == nil {
		t.Fatalf("tables %v; want users and orders", columnsOf(w))
	}
	if u.Rows < 500 || u.Rows > 1000 || o.Rows < 500 || o.Rows > 1000 {
		t.Errorf("sampled %d users, %d orders; want 500..1000 each", u.Rows, o.Rows)
	}
	wantTypes := map[string]shardkey.Type{"users.id": shardkey.Int64, "users.email": shardkey.Text, "users.created_at": shardkey.Timestamp,
		"users.score": shardkey.Float64, "users.flag": shardkey.Int16, "orders.id": shardkey.Int64, "orders.note": shardkey.Bytes,
		"orders.placed": shardkey.Timestamp}
	for name, want := range wantTypes {
		tab, col, _ := strings.Cut(name, ".")
		if c := w.Table(tab).Column(col); c == nil || c.Type != want {
			t.Errorf("%s: %v; want type %s", name, c, want)
		}
	}
	for i := 0; i < u.Rows; i++ {
		id := u.Column("id").Value(i).Int
		if got, want := u.Column("created_at").Value(i).Int, time.Date(2024, 1, 1, 0, int(id), 0, 0, time.UTC).UnixMicro(); got != want {
			t.Fatalf("user %d created_at %d; want %d", id, got, want)
		}
	}
	cat := w.Catalog
	if cat == nil || !strings.HasPrefix(cat.Engine, "mariadb") && !strings.HasPrefix(cat.Engine, "mysql") {
		t.Fatalf("catalog = %+v", cat)
	}
	ot := cat.Table("orders")
	if strings.Join(ot.PrimaryKey, ",") != "id" || len(ot.ForeignKeys) != 1 || ot.ForeignKeys[0].RefTable != "users" {
		t.Errorf("orders catalog = %+v; want PK id, FK user_id -> users", ot)
	}
	// The unique key besides the primary key; KEY (region) is no unique key.
	if uk := cat.Table("users").UniqueKeys; len(uk) != 1 || strings.Join(uk[0], ",") != "email" {
		t.Errorf("users unique keys %q; want [[email]]", uk)
	}
	if reg := cat.Table("users").Columns[2]; reg.Stats == nil || reg.Stats.NDistinct <= 0 {
		t.Errorf("users.region stats = %+v; want an index cardinality", reg.Stats)
	}
	if after := myState(t, db); after != before {
		t.Errorf("database changed while sampling:\nbefore:\n%safter:\n%s", before, after)
	}
}

func TestSession_MySQLRejectsWrites(t *testing.T) {
	dsn, db := myTestDB(t)
	ctx := context.Background()
	before := myState(t, db)
	u, _ := url.Parse(dsn)
	for _, q := range []string{
		"INSERT INTO users (email, created_at) VALUES ('x', NOW())",
		"UPDATE orders SET placed = NULL",
		"DELETE FROM orders",
		"CREATE TEMPORARY TABLE evil (id INT) ENGINE=InnoDB; INSERT INTO evil VALUES (1)",
		"COMMIT; INSERT INTO users (email, created_at) VALUES ('x', NOW())",
		"COMMIT; DELETE FROM orders",
	} {
		s, err := openMySQL(ctx, u, Options{StatementTimeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		var last error
		for _, part := range strings.Split(q, "; ") {
			if last = s.exec(ctx, part); last != nil {
				break
			}
		}
		s.close()
		if last == nil || !strings.Contains(strings.ToLower(last.Error()), "read only") {
			t.Errorf("%s: %v; want a READ ONLY transaction error", q, last)
		}
	}
	s, err := openMySQL(ctx, u, Options{StatementTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.exec(ctx, "SELECT SLEEP(2) FROM users LIMIT 1"); err == nil {
		// MariaDB interrupts SLEEP and returns 1 rather than failing.
		var got int
		if qerr := s.conn.QueryRowContext(ctx, "SELECT SLEEP(2)").Scan(&got); qerr == nil && got != 1 {
			t.Errorf("SLEEP(2) under a 200ms timeout ran to the end; want it interrupted")
		}
	}
	s.close()
	if after := myState(t, db); after != before {
		t.Errorf("database changed:\nbefore:\n%safter:\n%s", before, after)
	}
}
