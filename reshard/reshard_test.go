package reshard

import (
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
