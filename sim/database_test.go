package sim

import (
	"fmt"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// TestDatabaseStats: a key column measured inside the database reports the
// database's figures (the catalog's counts, shares of its row count) in
// place of the sample's, says which came from where, and carries the
// per-shard sums only for the engine and shard count they were computed
// for and for a plain hash of that one column.
func TestDatabaseStats(t *testing.T) {
	// A 4-row sample of a 1,000-row table: the sample sees 4 distinct
	// values, the database 250.
	tb := &shardkey.Table{Name: "orders", Rows: 4}
	c := &shardkey.Column{Name: "cust", Type: shardkey.Int64, Ints: []int64{1, 2, 3, 4}}
	tb.Columns = []*shardkey.Column{c}
	m := &shardkey.MeasuredStats{Method: "whole table, inside test", Rows: 1000, Nulls: 100, Distinct: 250,
		Top:         []shardkey.ValueCount{{Value: "7", Rows: 300}, {Value: "8", Rows: 2}},
		Correlation: 0.9, HasCorrelation: true, CorrelationDef: "r with position",
		ShardEngine: "postgres", Shards: 4, ShardRows: []int64{100, 200, 300, 400}, ShardBytes: []int64{1, 2, 3, 4}}
	w := &shardkey.Workload{Tables: []*shardkey.Table{tb}, Catalog: &shardkey.Catalog{Tables: []*shardkey.TableInfo{
		{Name: "orders", Columns: []*shardkey.ColumnInfo{{Name: "cust", Type: shardkey.Int64, Measured: m}}}}}}
	score := func(engine, key string, shards int) TableKey {
		t.Helper()
		e, err := partition.Lookup(engine)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Score(w, key, Options{Shards: shards, Engine: e})
		if err != nil {
			t.Fatal(err)
		}
		return c.Tables[0]
	}
	tk := score("postgres", "hash(cust)", 4)
	d := tk.Database
	if d == nil {
		t.Fatal("no database figures")
	}
	if tk.Cardinality != 250 || fmt.Sprint(tk.TopValues) != "[{7 0.3} {8 0.002}]" || tk.Monotonicity != 0.9 || !tk.Monotonic {
		t.Errorf("cardinality %d, top %v, monotonicity %v %v; want 250, [{7 0.3} {8 0.002}], 0.9 true", tk.Cardinality, tk.TopValues, tk.Monotonicity, tk.Monotonic)
	}
	if d.NullShare != 0.1 || d.Rows != 1000 || fmt.Sprint(d.ShardRows) != "[100 200 300 400]" || fmt.Sprint(d.ShardBytes) != "[1 2 3 4]" || d.ShardRowsRatio != 1.6 {
		t.Errorf("database figures %+v; want null share 0.1, 1000 rows, shard rows [100 200 300 400] (ratio 400/250 = 1.6), bytes [1 2 3 4]", d)
	}
	if fmt.Sprint(d.Figures) != "[cardinality top_values null_share monotonicity shard_rows shard_bytes]" || fmt.Sprint(d.FromSample) != "[entropy shard_load work]" {
		t.Errorf("figures %v, from the sample %v", d.Figures, d.FromSample)
	}
	// Another engine, another shard count, a salted key: the sums do not
	// apply, and the report says the shard figures are the sample's.
	for _, x := range []struct {
		engine, key string
		shards      int
	}{{"citus", "hash(cust)", 4}, {"postgres", "hash(cust)", 8}, {"postgres", "salt(hash(cust), 2, top=1)", 4}} {
		tk := score(x.engine, x.key, x.shards)
		if tk.Database == nil || tk.Database.ShardRows != nil || tk.Cardinality != 250 {
			t.Errorf("%s %s on %d shards: database %+v, cardinality %d; want the counts without shard sums", x.engine, x.key, x.shards, tk.Database, tk.Cardinality)
		}
	}
	// Without measured statistics the sample speaks.
	w.Catalog.Tables[0].Columns[0].Measured = nil
	if tk := score("postgres", "hash(cust)", 4); tk.Database != nil || tk.Cardinality != 4 {
		t.Errorf("unmeasured: database %+v, cardinality %d; want none and the sample's 4", tk.Database, tk.Cardinality)
	}
}

// TestDatabaseStatsNoSample: a table with no row sampled (a Citus
// coordinator's shell, whose rows are on the workers) but measured inside
// the database (on the workers) reports the database's figures, not the
// statements' values alone.
func TestDatabaseStatsNoSample(t *testing.T) {
	tb := &shardkey.Table{Name: "orders", Columns: []*shardkey.Column{{Name: "cust", Type: shardkey.Int64}}}
	m := &shardkey.MeasuredStats{Method: "whole table, inside the Citus workers", Rows: 1000, Distinct: 250,
		Top:         []shardkey.ValueCount{{Value: "7", Rows: 300}},
		ShardEngine: "citus", Shards: 2, ShardRows: []int64{400, 600}}
	w := &shardkey.Workload{Tables: []*shardkey.Table{tb}, Catalog: &shardkey.Catalog{Tables: []*shardkey.TableInfo{
		{Name: "orders", Columns: []*shardkey.ColumnInfo{{Name: "cust", Type: shardkey.Int64, Measured: m}}}}}}
	e, err := partition.Lookup("citus")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Score(w, "hash(cust)", Options{Shards: 2, Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	tk := c.Tables[0]
	if tk.Basis != "" {
		t.Errorf("basis %q: no statement binds the key, the figures are the database's", tk.Basis)
	}
	if tk.Database == nil || tk.Cardinality != 250 || fmt.Sprint(tk.Database.ShardRows) != "[400 600]" || tk.Database.ShardRowsRatio != 1.2 {
		t.Errorf("database %+v, cardinality %d; want the measured 250 distinct and rows [400 600] (ratio 600/500 = 1.2)", tk.Database, tk.Cardinality)
	}
}
