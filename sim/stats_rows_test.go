package sim

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTableKeyRowsUnknown: a table with no row sampled (a workload read
// from a log) has an unknown row count, null in JSON, never 0; a sampled
// table's count is written as it is.
func TestTableKeyRowsUnknown(t *testing.T) {
	check := func(tk TableKey, want string) {
		t.Helper()
		b, err := json.Marshal(tk)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s: want %s", b, want)
		}
	}
	// Traffic basis: the statements bound 3 distinct values, no row read.
	check(TableKey{KeyStats: KeyStats{Table: "orders", Columns: []string{"customer_id"}, Cardinality: 3, Basis: "traffic"}, Key: "hash(customer_id)"}, `"rows":null`)
	check(TableKey{KeyStats: KeyStats{Table: "orders", Columns: []string{"customer_id"}, Rows: 12, Cardinality: 3}, Key: "hash(customer_id)"}, `"rows":12`)
}
