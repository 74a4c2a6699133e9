package livedb

import (
	"context"
	"testing"

	"github.com/shardkey/shardkey"
)

// Issue 17's sampling on MariaDB: the sample covers the whole table (no
// LIMIT cutting the rows read last), is the same for the same seed, keeps
// primary-key order, and the report says how it was drawn. The table's
// first 30,000 of 300,000 rows hold value 0 (10%); the others values
// 1..99 in turn.
func TestSample_MySQL(t *testing.T) {
	dsn, db := myTestDB(t)
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE hits (id INT AUTO_INCREMENT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB`,
		`INSERT INTO hits (v) SELECT CASE WHEN seq <= 30000 THEN 0 ELSE 1 + (seq - 30001) % 99 END FROM seq_1_to_300000`,
		// InnoDB recalculates a table's persistent statistics in the
		// background after a bulk insert; the sample's rate follows
		// TABLE_ROWS, so two reads must not straddle that recalculation.
		`ANALYZE TABLE hits`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	read := func(seed int64) *shardkey.Table {
		t.Helper()
		w := &shardkey.Workload{Seed: seed}
		if err := Read(ctx, w, dsn, Options{SampleRows: 10000, NoStatements: true}); err != nil {
			t.Fatal(err)
		}
		h := w.Table("hits")
		if h == nil || h.Rows != 10000 {
			t.Fatalf("hits = %v; want a 10,000-row sample", h)
		}
		if !hasWarning(w, "row sample", "hits 10000 rows: WHERE RAND(", "reservoir of 10000") {
			t.Errorf("no warning gives the sample's size and method: %v", w.Warnings)
		}
		counts := map[int64]int{}
		prev := int64(0)
		for i := 0; i < h.Rows; i++ {
			counts[h.Column("v").Value(i).Int]++
			id := h.Column("id").Value(i).Int
			if id <= prev {
				t.Fatalf("row %d id %d after %d: want primary-key order", i, id, prev)
			}
			prev = id
		}
		if len(counts) != 100 {
			t.Errorf("%d distinct values; want 100", len(counts))
		}
		// Value 0: 10% of rows; the sample's share has a standard error
		// of 0.3 points.
		if share := float64(counts[0]) / float64(h.Rows); share < 0.088 || share > 0.112 {
			t.Errorf("value 0 holds %.2f%% of the sample; want 10%% +- 1.2", 100*share)
		}
		return h
	}
	a, b, c := read(7), read(7), read(8)
	same := func(x, y *shardkey.Table) bool {
		for i := 0; i < x.Rows; i++ {
			if x.Column("id").Value(i) != y.Column("id").Value(i) {
				return false
			}
		}
		return true
	}
	if !same(a, b) {
		t.Errorf("two reads with seed 7 drew different samples")
	}
	if same(a, c) {
		t.Errorf("seeds 7 and 8 drew the same sample")
	}
}
