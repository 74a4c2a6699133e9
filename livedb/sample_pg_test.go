package livedb

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/shardkey/shardkey"
)

// Issue 17's sampling reproductions on PostgreSQL. A table of 3,000,000
// rows whose first 100,000 (physical order) hold value 0 and the others
// values 1..999 in turn: 1,000 distinct values, the hottest (0) 3.33% of
// rows. The old reader, finding no statistics (never analysed:
// pg_class.reltuples = -1), read the first 100,000 rows: 1 distinct
// value, hottest 100%. With statistics it drew TABLESAMPLE BERNOULLI
// with a LIMIT that cut the rows the scan returned last, and synchronized
// scans changed which rows those were from run to run.
func TestSample_PostgreSQL(t *testing.T) {
	if testing.Short() {
		t.Skip("3,000,000 rows")
	}
	dsn, db := pgTestDB(t)
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE public.hits (id bigserial PRIMARY KEY, v int NOT NULL) WITH (autovacuum_enabled = false)`,
		`INSERT INTO public.hits (v) SELECT CASE WHEN i <= 100000 THEN 0 ELSE 1 + (i - 100001) % 999 END FROM generate_series(1, 3000000) i`,
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var reltuples float64
	if err := db.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'public.hits'::regclass`).Scan(&reltuples); err != nil {
		t.Fatal(err)
	}
	if reltuples != -1 {
		t.Fatalf("hits.reltuples = %v; want -1 (never analysed) for this test", reltuples)
	}

	// Concurrent sequential scans of the table, as on a busy server:
	// with synchronize_seqscans on, a new scan would join them mid-table.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c, err := pgxConnect(ctx, dsn)
		if err != nil {
			return
		}
		defer c.Close(ctx)
		for {
			select {
			case <-stop:
				return
			default:
			}
			var n int64
			_ = c.QueryRow(ctx, "SELECT count(*) FROM public.hits WHERE v >= 0").Scan(&n)
		}
	}()
	defer func() { close(stop); wg.Wait() }()

	read := func(seed int64) *shardkey.Workload {
		t.Helper()
		w := &shardkey.Workload{Seed: seed}
		if err := Read(ctx, w, dsn, Options{NoStatements: true}); err != nil {
			t.Fatal(err)
		}
		return w
	}
	check := func(name string, w *shardkey.Workload) {
		t.Helper()
		h := w.Table("hits")
		if h == nil || h.Rows != 100000 {
			t.Fatalf("%s: hits = %v; want the default 100,000-row sample", name, h)
		}
		counts := map[int64]int{}
		prev := int64(-1)
		for i := 0; i < h.Rows; i++ {
			counts[h.Column("v").Value(i).Int]++
			id := h.Column("id").Value(i).Int
			if id <= prev {
				t.Fatalf("%s: row %d id %d after %d: want the sample in physical (insert) order", name, i, id, prev)
			}
			prev = id
		}
		// 1,000 values of which 999 hold 0.0968% of rows each: ~97 rows
		// of the sample, so every one is there.
		if len(counts) != 1000 {
			t.Errorf("%s: %d distinct values; want 1000", name, len(counts))
		}
		// Value 0: 3.33% of rows; the sample's share has a standard
		// error of 0.057 points.
		if share := float64(counts[0]) / float64(h.Rows); share < 0.031 || share > 0.036 {
			t.Errorf("%s: value 0 holds %.2f%% of the sample; want 3.33%% +- 0.2", name, 100*share)
		}
		if !hasWarning(w, "row sample", "hits 100000 rows: TABLESAMPLE BERNOULLI", "reservoir of 100000") {
			t.Errorf("%s: no warning gives the sample's size and method: %v", name, w.Warnings)
		}
	}
	same := func(a, b *shardkey.Workload) bool {
		ha, hb := a.Table("hits"), b.Table("hits")
		if ha.Rows != hb.Rows {
			return false
		}
		for _, col := range []string{"id", "v"} {
			for i := 0; i < ha.Rows; i++ {
				if ha.Column(col).Value(i) != hb.Column(col).Value(i) {
					return false
				}
			}
		}
		return true
	}

	w1, w2 := read(7), read(7)
	for i, w := range []*shardkey.Workload{w1, w2} {
		check("never analysed", w)
		if !hasWarning(w, "table hits has no statistics", "never analysed") {
			t.Errorf("run %d: no warning that hits was never analysed: %v", i+1, w.Warnings)
		}
	}
	if !same(w1, w2) {
		t.Errorf("never analysed: two reads with seed 7 drew different samples")
	}
	if same(w1, read(8)) {
		t.Errorf("seeds 7 and 8 drew the same sample")
	}

	if _, err := db.Exec(ctx, "ANALYZE public.hits"); err != nil {
		t.Fatal(err)
	}
	w3, w4 := read(7), read(7)
	for _, w := range []*shardkey.Workload{w3, w4} {
		check("analysed", w)
		if hasWarning(w, "table hits has no statistics") {
			t.Errorf("analysed: warned of missing statistics: %v", w.Warnings)
		}
		if h := w.Table("hits"); !h.Monotonic["id"] {
			t.Errorf("analysed: hits.id (a bigserial in insert order, correlation 1) not monotonic")
		}
	}
	if !same(w3, w4) {
		t.Errorf("analysed: two reads with seed 7 drew different samples")
	}
	if !strings.Contains(w3.Catalog.Table("hits").SampleMethod, "REPEATABLE (7)") {
		t.Errorf("catalog sample method = %q", w3.Catalog.Table("hits").SampleMethod)
	}
}

// A table vacuumed while empty and filled since has reltuples = 0: its
// statistics describe an empty table. It is warned about like a table
// never analysed, and still sampled over its whole size.
func TestSample_PostgreSQLStaleEmpty(t *testing.T) {
	dsn, db := pgTestDB(t)
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE public.late (id int, v int) WITH (autovacuum_enabled = false)`,
		`VACUUM public.late`,
		`INSERT INTO public.late SELECT i, i % 10 FROM generate_series(1, 50000) i`,
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var reltuples float64
	if err := db.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'public.late'::regclass`).Scan(&reltuples); err != nil {
		t.Fatal(err)
	}
	if reltuples != 0 {
		t.Fatalf("late.reltuples = %v; want 0 for this test", reltuples)
	}
	w := &shardkey.Workload{Seed: 5}
	if err := Read(ctx, w, dsn, Options{SampleRows: 1000, NoStatements: true}); err != nil {
		t.Fatal(err)
	}
	if !hasWarning(w, "table late has no statistics") {
		t.Errorf("no warning about late's statistics: %v", w.Warnings)
	}
	l := w.Table("late")
	if l == nil || l.Rows != 1000 {
		t.Fatalf("late = %v; want a 1000-row sample", l)
	}
	// Drawn over the whole table: ids spread over 1..50,000, not the
	// first 1,000.
	if last := l.Column("id").Value(l.Rows - 1).Int; last < 45000 {
		t.Errorf("largest sampled id %d; want one near 50,000 (a sample of the whole table)", last)
	}
}
