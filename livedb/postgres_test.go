package livedb

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shardkey/shardkey"
)

// pgAdminDSN is the server the PostgreSQL tests create their database on;
// SHARDKEY_TEST_PG overrides it. Tests skip when it does not answer.
func pgAdminDSN() string {
	if s := os.Getenv("SHARDKEY_TEST_PG"); s != "" {
		return s
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// pgTestDB creates a throwaway database with a small schema and returns
// its DSN and a connection to it as a user with every write right. The
// database is dropped when the test ends.
func pgTestDB(t *testing.T) (string, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pgAdminDSN())
	if err != nil {
		t.Skipf("no PostgreSQL at %s: %v", pgAdminDSN(), err)
	}
	t.Cleanup(func() { admin.Close(ctx) })
	dsn := pgThrowaway(t, ctx, admin, fmt.Sprintf("shardkey_livedb_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6))
	db, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(ctx) })
	for _, q := range []string{
		`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`,
		`CREATE TABLE users (id bigserial PRIMARY KEY, email text NOT NULL UNIQUE, region text, created_at timestamptz NOT NULL, token uuid, active boolean)`,
		`CREATE TABLE orders (id int PRIMARY KEY, user_id bigint NOT NULL REFERENCES users (id), total numeric(10,2), note bytea, placed date)`,
		`INSERT INTO users (email, region, created_at, token, active)
		   SELECT 'u' || i || '@example.com', (ARRAY['eu','us','ap'])[1 + i % 3],
		          timestamptz '2024-01-01 00:00:00+00' + i * interval '1 minute',
		          md5(i::text)::uuid, i % 2 = 0
		   FROM generate_series(1, 5000) i`,
		`INSERT INTO orders SELECT i, 1 + (i * 7) % 5000, i / 100.0, decode(lpad(to_hex(i), 4, '0'), 'hex'), date '2024-02-01' + i % 30
		   FROM generate_series(1, 20000) i`,
		`ANALYZE`,
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return dsn, db
}

// pgState is everything a write could change, read by the test's own
// connection.
func pgState(t *testing.T, db *pgx.Conn) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	var objects string
	if err := db.QueryRow(ctx, `SELECT count(*) || ' ' || md5(string_agg(n.nspname || '.' || c.relname || ':' || c.relkind::text, ',' ORDER BY 1))
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace`).Scan(&objects); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "objects %s\n", objects)
	for _, tab := range []string{"users", "orders"} {
		var sum string
		if err := db.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) || ' ' || md5(string_agg(t::text, ',' ORDER BY t::text)) FROM %s t`, tab)).Scan(&sum); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s\n", tab, sum)
	}
	var ins, upd, del int64
	if _, err := db.Exec(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(ctx, `SELECT tup_inserted, tup_updated, tup_deleted FROM pg_stat_database WHERE datname = current_database()`).Scan(&ins, &upd, &del); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "tuples inserted %d updated %d deleted %d\n", ins, upd, del)
	return b.String()
}

// settle waits for backends' pending statistics to reach pg_stat_database
// (PostgreSQL 15 flushes them at most once a second, and at exit).
func settle() { time.Sleep(1500 * time.Millisecond) }

func TestRead_PostgreSQL(t *testing.T) {
	dsn, db := pgTestDB(t)
	ctx := context.Background()
	settle()
	before := pgState(t, db)

	w := &shardkey.Workload{Seed: 7}
	var progress strings.Builder
	if err := Read(ctx, w, dsn, Options{SampleRows: 1000, Progress: &progress}); err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	users, orders := w.Table("users"), w.Table("orders")
	if users == nil || orders == nil {
		t.Fatalf("tables %v; want users and orders", columnsOf(w))
	}
	if users.Rows < 500 || users.Rows > 1000 || orders.Rows < 500 || orders.Rows > 1000 {
		t.Errorf("sampled %d users, %d orders; want 500..1000 each (--sample-rows 1000)", users.Rows, orders.Rows)
	}
	wantTypes := map[string]shardkey.Type{"users.id": shardkey.Int64, "users.email": shardkey.Text, "users.created_at": shardkey.Timestamp,
		"users.token": shardkey.UUID, "users.active": shardkey.Int16, "orders.id": shardkey.Int32, "orders.total": shardkey.Float64,
		"orders.note": shardkey.Bytes, "orders.placed": shardkey.Timestamp}
	for name, want := range wantTypes {
		tab, col, _ := strings.Cut(name, ".")
		c := w.Table(tab).Column(col)
		if c == nil || c.Type != want {
			t.Errorf("%s: %v; want type %s", name, c, want)
		}
	}
	// Values read back exactly: user i was created i minutes after 2024-01-01.
	u := w.Table("users")
	for i := 0; i < u.Rows; i++ {
		id := u.Column("id").Value(i).Int
		created := u.Column("created_at").Value(i).Int
		if want := time.Date(2024, 1, 1, 0, int(id), 0, 0, time.UTC).UnixMicro(); created != want {
			t.Fatalf("user %d created_at %d; want %d", id, created, want)
		}
	}
	if !u.Monotonic["id"] {
		t.Errorf("users.id not marked monotonic (a bigserial in insert order)")
	}

	cat := w.Catalog
	if cat == nil || !strings.HasPrefix(cat.Engine, "postgresql 15") && !strings.HasPrefix(cat.Engine, "postgresql") {
		t.Fatalf("catalog = %+v", cat)
	}
	ot := cat.Table("orders")
	if ot.RowEstimate != 20000 || strings.Join(ot.PrimaryKey, ",") != "id" || len(ot.ForeignKeys) != 1 ||
		ot.ForeignKeys[0].RefTable != "users" || ot.ForeignKeys[0].Columns[0] != "user_id" {
		t.Errorf("orders catalog = %+v; want 20000 rows, PK id, FK user_id -> users", ot)
	}
	// The unique key besides the primary key (pg_constraint contype 'u').
	if uk := cat.Table("users").UniqueKeys; len(uk) != 1 || strings.Join(uk[0], ",") != "email" {
		t.Errorf("users unique keys %q; want [[email]]", uk)
	}
	reg := cat.Table("users").Columns[2]
	if reg.Name != "region" || reg.Stats == nil || reg.Stats.NDistinct != 3 || len(reg.Stats.MostCommon) != 3 {
		t.Errorf("users.region stats = %+v; want 3 distinct, 3 most common values", reg.Stats)
	}
	if id := cat.Table("users").Columns[0]; id.Stats == nil || id.Stats.NDistinct != -1 || id.Stats.Correlation < 0.99 {
		t.Errorf("users.id stats = %+v; want unique, correlation 1", id.Stats)
	}
	// pg_stat_statements is installed but not preloaded: a warning, not a failure.
	t.Logf("warnings: %v", w.Warnings)

	// Nothing changed: same objects, same rows, no tuple written.
	settle()
	if after := pgState(t, db); after != before {
		t.Errorf("database changed while sampling:\nbefore:\n%safter:\n%s", before, after)
	}
}

func TestSession_PostgreSQLRejectsWrites(t *testing.T) {
	dsn, db := pgTestDB(t)
	ctx := context.Background()
	settle()
	before := pgState(t, db)
	for _, q := range []string{
		// (The session's search_path is pg_catalog, pg_temp: names are
		// qualified.)
		"INSERT INTO public.users (email, created_at) VALUES ('x', now())",
		"UPDATE public.orders SET total = 0",
		"DELETE FROM public.orders",
		"CREATE TABLE evil (id int)",
		"CREATE TEMP TABLE evil (id int)",
		"SET TRANSACTION READ WRITE",
		"COMMIT; INSERT INTO public.users (email, created_at) VALUES ('x', now())",
	} {
		// (Only an explicit BEGIN READ WRITE after ending the transaction
		// would escape, and the reader never ends its transaction before
		// closing: it has no statement that could.)
		s, err := openPostgres(ctx, dsn, Options{StatementTimeout: 5 * time.Second})
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
		if last == nil {
			t.Errorf("%s: succeeded inside the sampler's session; want it rejected", q)
		} else if !strings.Contains(last.Error(), "read-only") && !strings.Contains(last.Error(), "must be called before any query") && !strings.Contains(last.Error(), "before any query") {
			t.Errorf("%s: %v; want a read-only error", q, last)
		}
	}
	// The session's statement timeout holds.
	s, err := openPostgres(ctx, dsn, Options{StatementTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.exec(ctx, "SELECT pg_sleep(2)"); err == nil || !strings.Contains(err.Error(), "statement timeout") {
		t.Errorf("pg_sleep(2) under a 200ms timeout: %v; want a statement timeout", err)
	}
	s.close()
	settle()
	if after := pgState(t, db); after != before {
		t.Errorf("database changed:\nbefore:\n%safter:\n%s", before, after)
	}
}

func columnsOf(w *shardkey.Workload) []string {
	var out []string
	for _, t := range w.Tables {
		out = append(out, t.Name+"("+strings.Join(t.ColumnNames(), ",")+")")
	}
	return out
}

func pgxConnect(ctx context.Context, dsn string) (*pgx.Conn, error) { return pgx.Connect(ctx, dsn) }

// pgThrowaway creates the database name on admin's server, drops it (WITH
// FORCE) when the test ends, and returns its DSN. admin must stay open
// until then: close it in a t.Cleanup registered before this call.
func pgThrowaway(t *testing.T, ctx context.Context, admin *pgx.Conn, name string) string {
	t.Helper()
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	cfg, _ := pgx.ParseConfig(pgAdminDSN())
	return fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Host, cfg.Port, name)
}
