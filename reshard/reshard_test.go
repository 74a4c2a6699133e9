package reshard

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sim"
)

// TestEstimateRowBytes: PostgreSQL's heap layout by hand: 24-byte header
// + 4-byte line pointer + int64 (8) + text "abc" (3 + 1-byte header) = 40;
// a NULL text adds nothing (36); the mean is 38.
func TestEstimateRowBytes(t *testing.T) {
	tb := &shardkey.Table{Name: "t", Rows: 2, Columns: []*shardkey.Column{
		{Name: "id", Type: shardkey.Int64, Ints: []int64{1, 2}},
		{Name: "s", Type: shardkey.Text, Strs: []string{"abc", ""}, Nulls: []bool{false, true}},
	}}
	if got := EstimateRowBytes(tb); got != 38 {
		t.Errorf("EstimateRowBytes = %v; want 38", got)
	}
}

// TestSteps: each engine's procedure names its own commands and the new
// key's column.
func TestSteps(t *testing.T) {
	m := &sim.Movement{ToShards: 4, Rows: 10, TargetRows: []float64{3, 3, 2, 2}, Tables: []sim.TableMovement{{Table: "orders", ToKey: "hash(customer_id)", Rewritten: true, Rows: 10}}}
	for engine, want := range map[string][]string{
		"vitess":  {"MoveTables --workflow rekey", "--tables orders", "primary vindex is on customer_id", "VDiff", "switchtraffic"},
		"citus":   {"alter_distributed_table('orders', distribution_column := 'customer_id')", "isolate_tenant_to_new_shard", "citus_move_shard_placement", "citus_rebalance_start"},
		"mongodb": {`reshardCollection: "DB.orders", key: {customer_id: "hashed"}`, "x 2 / shards", "24 hours"},
		"generic": {"Dual-write", "Backfill", "Verify", "Cut over"},
	} {
		p := New(&shardkey.Workload{}, m, Options{RowBytes: 100, Engine: engine})
		all := strings.Join(p.Steps, "\n")
		for _, w := range want {
			if !strings.Contains(all, w) {
				t.Errorf("%s steps lack %q:\n%s", engine, w, all)
			}
		}
	}
}

// TestScaleToTables: the row figures are a sample's; scaled to the table
// when the catalog gives its size, else labelled and the bytes and copy
// time unknown. By hand: orders sampled 4 rows of an estimated 400 (x100),
// items 6 sampled rows not rewritten; 4 rows rewritten, 2 crossing, 3 and
// 1 on the 2 target shards; 100-byte rows at 1,000 bytes/s.
//   - with the catalog: 400 rows, 200 crossing, targets 300 and 100,
//     40,000 bytes, the largest target 30,000 bytes: 30 s;
//   - without (a spec's sample): rows_basis "sample", rows share 4/10 =
//     0.4, crossing share 2/4 = 0.5, bytes and copy_seconds null.
//
// Under mongodb min_seconds is 300 (reshardingMinimumOperationDurationMillis
// = 5 x 60 x 1000 ms in mongo's resharding_server_parameters.idl).
func TestScaleToTables(t *testing.T) {
	mv := func() *sim.Movement {
		return &sim.Movement{ToShards: 2, Rows: 4, RowsCrossing: 2, SourceRows: []float64{2, 2}, SourceOut: []float64{1, 1}, TargetRows: []float64{3, 1}, TargetIn: []float64{2, 0},
			Tables: []sim.TableMovement{{Table: "orders", ToKey: "hash(customer_id)", Rewritten: true, Rows: 4, RowsCrossing: 2}, {Table: "items", ToKey: "-"}}}
	}
	tables := []*shardkey.Table{{Name: "orders", Rows: 4}, {Name: "items", Rows: 6}}
	w := &shardkey.Workload{Tables: tables, Catalog: &shardkey.Catalog{Tables: []*shardkey.TableInfo{{Name: "orders", RowEstimate: 400, SampleRows: 4}}}}
	p := New(w, mv(), Options{RowBytes: 100, CopyRate: 1000, Engine: "generic"})
	if p.RowsBasis != "table" || !p.SizeKnown() || p.Rows != 400 || p.RowsCrossing != 200 || p.Bytes != 40000 || p.TargetRows[0] != 300 || p.TargetRows[1] != 100 || p.CopySeconds != 30 || p.Tables[0].Rows != 400 || p.MinSeconds != 0 {
		t.Errorf("with the catalog: basis %q, rows %v, crossing %v, bytes %v, targets %v, copy %v s, table rows %v, min %v; want table, 400, 200, 40000, [300 100], 30, 400, 0",
			p.RowsBasis, p.Rows, p.RowsCrossing, p.Bytes, p.TargetRows, p.CopySeconds, p.Tables[0].Rows, p.MinSeconds)
	}
	p = New(&shardkey.Workload{Tables: tables}, mv(), Options{RowBytes: 100, CopyRate: 1000, Engine: "mongodb"})
	if p.RowsBasis != "sample" || p.SizeKnown() || p.RowsShare != 0.4 || p.CrossingShare != 0.5 || p.Rows != 4 || p.MinSeconds != 300 {
		t.Errorf("without: basis %q, rows share %v, crossing share %v, rows %v, min %v; want sample, 0.4, 0.5, 4, 300", p.RowsBasis, p.RowsShare, p.CrossingShare, p.Rows, p.MinSeconds)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	js := string(b)
	for _, want := range []string{`"rows_basis":"sample"`, `"bytes":null`, `"copy_seconds":null`, `"target_bytes":null`, `"rows":4`, `"min_seconds":300`} {
		if !strings.Contains(js, want) {
			t.Errorf("without: JSON lacks %s:\n%s", want, js)
		}
	}
	steps := strings.Join(p.Steps, "\n")
	for _, want := range []string{"at least reshardingMinimumOperationDurationMillis, 5 minutes", "unknown bytes (the tables' sizes are not known"} {
		if !strings.Contains(steps, want) {
			t.Errorf("mongodb steps lack %q:\n%s", want, steps)
		}
	}
}
