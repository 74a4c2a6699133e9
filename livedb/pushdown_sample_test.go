package livedb

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// TestPushdown_PostgreSQLSample: --stats db:sample=10% computes the
// statistics inside the database over TABLESAMPLE SYSTEM (10)
// REPEATABLE (seed) and scales them. The table, rows i = 1..N:
//
//	id bigint = i (primary key)
//	m  int    = i % 1000
//	z  int    = NULL if i % 10 = 0, else i % 7
//
// The expected figures are computed here from the same sample drawn by a
// plain query (the same TABLESAMPLE clause, whose blocks PostgreSQL draws
// from the seed alone), with the estimators written out: counts scaled by
// the planner's row count (reltuples) over the rows read, Haas-Stokes Duj1 for the distinct values (for m and z every value
// is seen many times, f1 = 0, so the estimate is the sample's distinct
// count: 1000 and 7, the closed forms), per-shard rows by
// partition.Postgres over the sampled values. And the estimates are
// checked against the table's closed forms: N rows within 15%, a tenth
// of them NULL in z.
func TestPushdown_PostgreSQLSample(t *testing.T) {
	const n = 1000000
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pgAdminDSN())
	if err != nil {
		skipOrFail(t, "no PostgreSQL at %s: %v", pgAdminDSN(), err)
	}
	t.Cleanup(func() { admin.Close(ctx) })
	dsn := pgThrowaway(t, ctx, admin, fmt.Sprintf("shardkey_test_pushsample_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6))
	db, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	for _, q := range []string{
		`CREATE UNLOGGED TABLE s (id bigint PRIMARY KEY, m int NOT NULL, z int) WITH (autovacuum_enabled = false)`,
		fmt.Sprintf(`INSERT INTO s SELECT i, i %% 1000, CASE WHEN i %% 10 = 0 THEN NULL ELSE i %% 7 END FROM generate_series(1, %d) i`, n),
		`ANALYZE s`,
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const seed, shards = 7, 4
	const sample = " TABLESAMPLE SYSTEM (10) REPEATABLE (7)"
	w := &shardkey.Workload{Seed: seed}
	if err := Read(ctx, w, dsn, Options{NoStatements: true, SampleRows: 1000, Stats: "db:sample=10%", Engine: "postgres", Shards: shards}); err != nil {
		t.Fatal(err)
	}
	col := func(name string) *shardkey.MeasuredStats {
		t.Helper()
		for _, c := range w.Catalog.Table("s").Columns {
			if c.Name == name && c.Measured != nil {
				return c.Measured
			}
		}
		t.Fatalf("column %s: no measured statistics; warnings %v", name, w.Warnings)
		return nil
	}
	id, m, z := col("id"), col("m"), col("z")
	var rows, zNulls, mDistinct, mOnes int64
	if err := db.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE z IS NULL), count(DISTINCT m),
		(SELECT count(*) FROM (SELECT m FROM s`+sample+` GROUP BY m HAVING count(*) = 1) o) FROM s`+sample).Scan(&rows, &zNulls, &mDistinct, &mOnes); err != nil {
		t.Fatal(err)
	}
	// Counts are scaled by the planner's row count over the rows read
	// (ANALYZE's reltuples; a ratio estimate), not by 1/0.1: f is the
	// share of the table's rows the sample read.
	var reltuples float64
	if err := db.QueryRow(ctx, `SELECT reltuples::float8 FROM pg_class WHERE oid = 's'::regclass`).Scan(&reltuples); err != nil || reltuples <= 0 {
		t.Fatalf("reltuples %v: %v", reltuples, err)
	}
	f := float64(rows) / reltuples
	scale := func(x int64) int64 { return int64(math.Round(float64(x) / f)) }
	if math.Abs(float64(scale(rows))-n) > 0.15*n {
		t.Fatalf("the sample drew %d rows: %d estimated, not within 15%% of %d", rows, scale(rows), n)
	}
	for _, x := range []struct {
		name string
		m    *shardkey.MeasuredStats
	}{{"id", id}, {"m", m}, {"z", z}} {
		if x.m.Rows != scale(rows) || x.m.Sampled == "" || !strings.Contains(x.m.Method, "TABLESAMPLE SYSTEM (10%) REPEATABLE (7)") {
			t.Errorf("%s: rows %d (want %d = %d sampled scaled to the planner's %.0f), sampled %q, method %q", x.name, x.m.Rows, scale(rows), rows, reltuples, x.m.Sampled, x.m.Method)
		}
	}
	if z.Nulls != scale(zNulls) || math.Abs(float64(z.Nulls)/float64(z.Rows)-0.1) > 0.02 {
		t.Errorf("z: %d NULL rows of %d; want %d (%d sampled, scaled), near a tenth", z.Nulls, z.Rows, scale(zNulls), zNulls)
	}
	// Duj1 written out, and the closed forms it reaches here.
	duj1 := func(nn, d, f1, big float64) int64 {
		return int64(math.Round(max(d, min(big, nn*d/((nn-f1)+f1*nn/big)))))
	}
	if want := duj1(float64(rows), float64(mDistinct), float64(mOnes), float64(scale(rows))); m.Distinct != want || want != 1000 {
		t.Errorf("m: %d distinct; Duj1 of the sample gives %d; the table has 1000", m.Distinct, want)
	}
	if z.Distinct != 7 {
		t.Errorf("z: %d distinct; want 7", z.Distinct)
	}
	if id.Distinct != id.Rows || len(id.Top) != 10 || id.Top[0].Rows != 1 {
		t.Errorf("id (primary key): %d distinct of %d rows, top %v; want every row distinct, ten of one row", id.Distinct, id.Rows, id.Top)
	}
	// m's top values: the sample's ten largest groups, scaled.
	r, err := db.Query(ctx, `SELECT m, count(*) FROM s`+sample+` GROUP BY m ORDER BY 2 DESC, 1 LIMIT 10`)
	if err != nil {
		t.Fatal(err)
	}
	var want []shardkey.ValueCount
	for r.Next() {
		var v, c int64
		if err := r.Scan(&v, &c); err != nil {
			t.Fatal(err)
		}
		want = append(want, vc(fmt.Sprint(v), scale(c)))
	}
	r.Close()
	if fmt.Sprint(m.Top) != fmt.Sprint(want) {
		t.Errorf("m: top %v; want %v", m.Top, want)
	}
	// Per-shard rows of m under engine postgres: the sampled values
	// placed here, scaled.
	eng, _ := partition.Lookup("postgres")
	layout, err := eng.Layout(shards)
	if err != nil {
		t.Fatal(err)
	}
	perShard := make([]int64, shards)
	r, err = db.Query(ctx, `SELECT m, count(*) FROM s`+sample+` GROUP BY m`)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var v, c int64
		if err := r.Scan(&v, &c); err != nil {
			t.Fatal(err)
		}
		p, err := eng.Point([]shardkey.Value{shardkey.IntValue(v)})
		if err != nil {
			t.Fatal(err)
		}
		perShard[layout.Shard(p)] += c
	}
	r.Close()
	for i := range perShard {
		perShard[i] = scale(perShard[i])
	}
	if fmt.Sprint(m.ShardRows) != fmt.Sprint(perShard) || !strings.Contains(m.ShardMethod, "estimated from a 10% TABLESAMPLE SYSTEM") {
		t.Errorf("m: rows per shard %v (%s); want %v", m.ShardRows, m.ShardMethod, perShard)
	}
	var note bool
	for _, e := range w.Warnings {
		note = note || strings.Contains(e.Error(), "statistics estimated inside the database from its own sample, TABLESAMPLE SYSTEM (10%) REPEATABLE (7)")
	}
	if !note {
		t.Errorf("no warning says the figures are estimates from the database's sample: %v", w.Warnings)
	}

	// A bad percentage is refused before connecting.
	for _, bad := range []string{"db:sample=0%", "db:sample=101%", "db:sample=5", "db:sample=x%"} {
		if CheckStats(bad) == nil {
			t.Errorf("--stats %s accepted", bad)
		}
	}
}

// TestPushdown_MySQLSample: MySQL and MariaDB have no TABLESAMPLE, so
// --stats db:sample=P% computes nothing inside the database and says so;
// the figures are the row sample's.
func TestPushdown_MySQLSample(t *testing.T) {
	ctx := context.Background()
	admin := myOpen(t, myAdminDSN())
	defer admin.Close()
	if err := admin.PingContext(ctx); err != nil {
		skipOrFail(t, "no MySQL at %s: %v", myAdminDSN(), err)
	}
	name := fmt.Sprintf("shardkey_test_mysample_%d", os.Getpid())
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := admin.ExecContext(ctx, "DROP DATABASE "+name); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	}()
	u, _ := url.Parse(myAdminDSN())
	u.Path = "/" + name
	var db *sql.DB = myOpen(t, u.String())
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY, m INT NOT NULL) ENGINE=InnoDB`,
		`INSERT INTO t (m) VALUES (1), (2), (3), (1)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	w := &shardkey.Workload{Seed: 1}
	if err := Read(ctx, w, u.String(), Options{NoStatements: true, Stats: "db:sample=1%"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range w.Catalog.Table("t").Columns {
		if c.Measured != nil {
			t.Errorf("column %s measured inside MySQL: %+v", c.Name, c.Measured)
		}
	}
	said := false
	for _, e := range w.Warnings {
		said = said || strings.Contains(e.Error(), "has no TABLESAMPLE")
	}
	if !said {
		t.Errorf("no warning says MySQL has no TABLESAMPLE: %v", w.Warnings)
	}
}

// TestPushdown_PostgreSQLSampleSmall: --stats db:sample=P% never lets a
// database sample's estimate stand in for better figures. The table,
// rows i = 1..5000: id bigint = i (primary key), u int = (i * 7919) mod
// 5000 (a permutation of 0..4999: 7919 is prime to 5000), k int = i mod
// 37.
//
//   - The row sample reads every row (5,000 rows, under the default
//     100,000): its figures are the table's exactly, so nothing is
//     estimated inside the database (a 30% block sample of some 30
//     blocks estimates rows, and u's distinct values, well off 5,000),
//     and a warning says the row sample's figures are used.
//   - A sample of 0.0001% of the blocks reads no row (checked here by the
//     same clause): counts scaled from nothing are not the table's 0, so
//     the figures stay the row sample's, with a warning.
//   - A 10% sample reads some 500 rows (counted here), fewer than a row
//     sample of 3,000: the row sample's figures are used, with a warning.
func TestPushdown_PostgreSQLSampleSmall(t *testing.T) {
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pgAdminDSN())
	if err != nil {
		skipOrFail(t, "no PostgreSQL at %s: %v", pgAdminDSN(), err)
	}
	t.Cleanup(func() { admin.Close(ctx) })
	dsn := pgThrowaway(t, ctx, admin, fmt.Sprintf("shardkey_test_pushsmall_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6))
	db, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	for _, q := range []string{
		`CREATE TABLE r (id bigint PRIMARY KEY, u int NOT NULL, k int NOT NULL)`,
		`INSERT INTO r SELECT i, (i * 7919) % 5000, i % 37 FROM generate_series(1, 5000) i`,
		`ANALYZE r`,
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const seed = 5
	drawn := func(pct string) int64 {
		var n int64
		if err := db.QueryRow(ctx, `SELECT count(*) FROM r TABLESAMPLE SYSTEM (`+pct+`) REPEATABLE (5)`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	check := func(name string, o Options, rows int, warning string) {
		t.Helper()
		w := &shardkey.Workload{Seed: seed}
		if err := Read(ctx, w, dsn, o); err != nil {
			t.Fatal(err)
		}
		if got := w.Table("r").Rows; rows > 0 && got != rows {
			t.Errorf("%s: row sample of %d rows; want %d", name, got, rows)
		}
		warning = strings.ReplaceAll(warning, "@ROWS", fmt.Sprint(w.Table("r").Rows))
		for _, c := range w.Catalog.Table("r").Columns {
			if c.Measured != nil {
				t.Errorf("%s: column %s measured inside the database: %+v", name, c.Name, *c.Measured)
			}
		}
		said := false
		for _, e := range w.Warnings {
			said = said || strings.Contains(e.Error(), warning)
		}
		if !said {
			t.Errorf("%s: no warning says %q: %v", name, warning, w.Warnings)
		}
	}
	check("whole row sample", Options{NoStatements: true, Stats: "db:sample=30%"}, 5000,
		"table r: the row sample read every one of its 5000 rows, so its exact figures are used, not estimates from the database's TABLESAMPLE SYSTEM (30%)")
	if n := drawn("0.0001"); n != 0 {
		t.Fatalf("TABLESAMPLE SYSTEM (0.0001) drew %d rows; the test wants none", n)
	}
	for _, c := range []string{"id", "u", "k"} {
		check("empty database sample "+c, Options{NoStatements: true, SampleRows: 100, Stats: "db:sample=0.0001%"}, 100,
			"table r: column "+c+": the database's TABLESAMPLE SYSTEM (0.0001%) read no row, so it estimates nothing: its figures come from the row sample")
	}
	// Scaled by the planner's count: 30% of the blocks of this table
	// (about 30 blocks) read a share of its rows that strays from 30%;
	// ANALYZE counted 5,000 rows, and the estimates are scaled to that:
	// rows 5,000, the primary key's distinct values 5,000, k's 37 values'
	// rows summing to 5,000 within rounding.
	if n := drawn("30"); n < 1000 {
		t.Fatalf("TABLESAMPLE SYSTEM (30) drew %d rows; the test wants more than the row sample's 1000", n)
	}
	{
		w := &shardkey.Workload{Seed: seed}
		if err := Read(ctx, w, dsn, Options{NoStatements: true, SampleRows: 1000, Stats: "db:sample=30%"}); err != nil {
			t.Fatal(err)
		}
		for _, c := range w.Catalog.Table("r").Columns {
			m := c.Measured
			if m == nil {
				t.Errorf("planner-scaled: column %s not measured inside the database", c.Name)
				continue
			}
			if m.Rows != 5000 || !strings.Contains(m.Sampled, "the planner's 5000 rows") {
				t.Errorf("planner-scaled: column %s: %d rows (%s); want 5000, scaled by the planner's count", c.Name, m.Rows, m.Sampled)
			}
			if c.Name == "id" && m.Distinct != 5000 {
				t.Errorf("planner-scaled: id (the primary key): %d distinct values; want 5000", m.Distinct)
			}
			if c.Name == "k" && m.Distinct != 37 {
				t.Errorf("planner-scaled: k (i %% 37): %d distinct values; want 37", m.Distinct)
			}
		}
	}
	n := drawn("10")
	if n == 0 || n >= 2500 {
		t.Fatalf("TABLESAMPLE SYSTEM (10) drew %d rows; the test wants some, fewer than the row sample", n)
	}
	check("small database sample", Options{NoStatements: true, SampleRows: 3000, Stats: "db:sample=10%"}, 0,
		fmt.Sprintf("table r: column u: the database's TABLESAMPLE SYSTEM (10%%) read %d rows, fewer than the row sample's @ROWS: its figures come from the row sample", n))
}

// TestPushdown_PostgreSQLSampleFloor: a block sample misses values
// clustered in the blocks it skips. Rows i = 1..100000, v = i / 100:
// 1,001 values in runs of 100 rows (a block or two each). A 5% SYSTEM
// sample keeps some 5% of the blocks, so sees well under a tenth of the
// values, each many times (f1 near 0: Haas-Stokes stays near what it
// saw); a uniform row sample of 1,000 rows sees some 630 of them
// (1001 (1 - (1 - 1/1001)^1000)). Those values are in the table: the
// estimate is raised to the row sample's distinct count, counted here
// from the sampled rows, and says so.
func TestPushdown_PostgreSQLSampleFloor(t *testing.T) {
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pgAdminDSN())
	if err != nil {
		skipOrFail(t, "no PostgreSQL at %s: %v", pgAdminDSN(), err)
	}
	t.Cleanup(func() { admin.Close(ctx) })
	dsn := pgThrowaway(t, ctx, admin, fmt.Sprintf("shardkey_test_pushfloor_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6))
	db, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	for _, q := range []string{
		`CREATE TABLE c (id bigint PRIMARY KEY, v int NOT NULL)`,
		`INSERT INTO c SELECT i, i / 100 FROM generate_series(1, 100000) i`,
		`ANALYZE c`,
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var dbRows, dbDistinct int64
	if err := db.QueryRow(ctx, `SELECT count(*), count(DISTINCT v) FROM c TABLESAMPLE SYSTEM (5) REPEATABLE (9)`).Scan(&dbRows, &dbDistinct); err != nil {
		t.Fatal(err)
	}
	w := &shardkey.Workload{Seed: 9}
	if err := Read(ctx, w, dsn, Options{NoStatements: true, SampleRows: 1000, Stats: "db:sample=5%"}); err != nil {
		t.Fatal(err)
	}
	sample := w.Table("c")
	seen := map[int64]bool{}
	col := sample.Column("v")
	for i := 0; i < sample.Rows; i++ {
		seen[col.Ints[i]] = true
	}
	rowDistinct := int64(len(seen))
	if dbRows < int64(sample.Rows) || dbDistinct >= rowDistinct {
		t.Fatalf("the database sample read %d rows with %d values, the row sample %d rows with %d values: the test wants more rows and fewer values in the database's", dbRows, dbDistinct, sample.Rows, rowDistinct)
	}
	var m *shardkey.MeasuredStats
	for _, c := range w.Catalog.Table("c").Columns {
		if c.Name == "v" {
			m = c.Measured
		}
	}
	if m == nil {
		t.Fatalf("v not measured: %v", w.Warnings)
	}
	if m.Distinct != rowDistinct || m.Distinct > m.Rows-m.Nulls || !strings.Contains(m.Sampled, fmt.Sprintf("raised to the row sample's %d", rowDistinct)) {
		t.Errorf("v: %d distinct of %d estimated rows (%s); want the row sample's %d (the database sample saw %d)", m.Distinct, m.Rows, m.Sampled, rowDistinct, dbDistinct)
	}
}
