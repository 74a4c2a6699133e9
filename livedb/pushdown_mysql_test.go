package livedb

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/shardkey/shardkey"
)

// TestPushdown_MySQL is TestPushdown_PostgreSQL's MySQL/MariaDB
// counterpart on 200,000 rows (seq = 1..N, inserted in that order):
//
//	id  BIGINT AUTO_INCREMENT PRIMARY KEY = seq
//	m   INT     = seq % 1000              1000 distinct, N/1000 rows each
//	z   INT     = NULL if seq%10 = 0,     N/10 NULLs; -1 on N/2 rows;
//	              -1 if seq%10 in 1..5,   40,000 values on N/100,000 rows
//	              else seq % 100000       each
//	k   VARCHAR = CONCAT('k', seq % 5000) 5000 distinct
//
// MySQL has no function of the postgres or citus engines' hash, so the
// per-shard sums stay the sample's: none are measured.
func TestPushdown_MySQL(t *testing.T) {
	ctx := context.Background()
	admin := myOpen(t, myAdminDSN())
	defer admin.Close()
	if err := admin.PingContext(ctx); err != nil {
		skipOrFail(t, "no MySQL at %s: %v", myAdminDSN(), err)
	}
	name := fmt.Sprintf("shardkey_test_pushdown_%d", os.Getpid())
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
	dsn := u.String()
	db := myOpen(t, dsn)
	defer db.Close()
	const n = 200000
	for _, q := range []string{
		`CREATE TABLE big (id BIGINT AUTO_INCREMENT PRIMARY KEY, m INT NOT NULL, z INT, k VARCHAR(8) NOT NULL) ENGINE=InnoDB`,
		fmt.Sprintf(`INSERT INTO big (m, z, k) SELECT seq %% 1000, CASE WHEN seq %% 10 = 0 THEN NULL WHEN seq %% 10 <= 5 THEN -1 ELSE seq %% 100000 END,
		   CONCAT('k', seq %% 5000) FROM seq_1_to_%d ORDER BY seq`, n),
		`ANALYZE TABLE big`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Skipf("%s: %v (seq_1_to_N needs MariaDB's Sequence engine)", q, err)
		}
	}
	w := &shardkey.Workload{Seed: 1}
	start := time.Now()
	if err := Read(ctx, w, dsn, Options{NoStatements: true, SampleRows: 1000, Engine: "postgres", Shards: 8}); err != nil {
		t.Fatal(err)
	}
	t.Logf("read in %v", time.Since(start).Round(time.Millisecond))
	ms := map[string]*shardkey.MeasuredStats{}
	for _, c := range w.Catalog.Table("big").Columns {
		if c.Measured == nil {
			t.Fatalf("column %s: no measured statistics; warnings %v", c.Name, w.Warnings)
		}
		if c.Measured.ShardRows != nil {
			t.Errorf("column %s: per-shard sums %v measured on MySQL, which has no postgres hash", c.Name, c.Measured.ShardRows)
		}
		ms[c.Name] = c.Measured
	}
	check := func(name string, rows, nulls, distinct int64, top ...shardkey.ValueCount) {
		t.Helper()
		m := ms[name]
		if m.Rows != rows || m.Nulls != nulls || m.Distinct != distinct {
			t.Errorf("%s: rows %d, nulls %d, distinct %d; want %d, %d, %d", name, m.Rows, m.Nulls, m.Distinct, rows, nulls, distinct)
		}
		if fmt.Sprint(m.Top) != fmt.Sprint(top) {
			t.Errorf("%s: top values %v; want %v", name, m.Top, top)
		}
	}
	e := int64(n / 100000)
	check("id", n, 0, n, vc("1", 1), vc("2", 1), vc("3", 1), vc("4", 1), vc("5", 1), vc("6", 1), vc("7", 1), vc("8", 1), vc("9", 1), vc("10", 1))
	check("m", n, 0, 1000, vc("0", n/1000), vc("1", n/1000), vc("2", n/1000), vc("3", n/1000), vc("4", n/1000), vc("5", n/1000), vc("6", n/1000), vc("7", n/1000), vc("8", n/1000), vc("9", n/1000))
	check("z", n, n/10, 40001, vc("-1", n/2), vc("6", e), vc("7", e), vc("8", e), vc("9", e), vc("16", e), vc("17", e), vc("18", e), vc("19", e), vc("26", e))
	check("k", n, 0, 5000, vc("k0", n/5000), vc("k1", n/5000), vc("k10", n/5000), vc("k100", n/5000), vc("k1000", n/5000), vc("k1001", n/5000), vc("k1002", n/5000), vc("k1003", n/5000), vc("k1004", n/5000), vc("k1005", n/5000))
	// Insert order is the AUTO_INCREMENT key: id is it (r = 1); m
	// repeats 0..999 along it (|r| about 1000/N).
	if m := ms["id"]; !m.HasCorrelation || m.Correlation < 1-1e-9 {
		t.Errorf("id: correlation %v (known %v); want 1", m.Correlation, m.HasCorrelation)
	}
	if m := ms["m"]; !m.HasCorrelation || math.Abs(m.Correlation) > 0.01 {
		t.Errorf("m: correlation %v (known %v); want |r| < 0.01", m.Correlation, m.HasCorrelation)
	}
	if m := ms["k"]; m.HasCorrelation {
		t.Errorf("k: a text column has a correlation %v; want none", m.Correlation)
	}
}
