package advisor

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestCitusForeignKeyReasons: under Citus, a candidate that distributes
// order_items by sku (integer) while its foreign key references orders
// distributed by account_id (bigint) says Citus rejects the key (the two
// cannot be co-located: foreign_constraint.c, "relations are not
// colocated or not referencing a reference table"); a candidate keeping
// both by account_id with the key on it, and the same candidate under
// another engine, say nothing.
func TestCitusForeignKeyReasons(t *testing.T) {
	col := func(n string, typ shardkey.Type) *shardkey.Column { return &shardkey.Column{Name: n, Type: typ} }
	w := &shardkey.Workload{
		Tables: []*shardkey.Table{
			{Name: "orders", Columns: []*shardkey.Column{col("id", shardkey.Int64), col("account_id", shardkey.Int64)}},
			{Name: "order_items", Columns: []*shardkey.Column{col("order_id", shardkey.Int64), col("account_id", shardkey.Int64), col("sku", shardkey.Int32)}},
		},
		Catalog: &shardkey.Catalog{Tables: []*shardkey.TableInfo{
			{Name: "orders", PrimaryKey: []string{"account_id", "id"}},
			{Name: "order_items", ForeignKeys: []shardkey.ForeignKey{{Columns: []string{"account_id", "order_id"}, RefTable: "orders", RefColumns: []string{"account_id", "id"}}}},
		}},
	}
	a := &analysis{w: w, engine: "citus"}
	got := a.citusForeignKeys("order_items:hash(sku); orders:hash(account_id)")
	if len(got) != 1 || !strings.Contains(got[0], `order_items: FOREIGN KEY (account_id, order_id) REFERENCES orders (account_id, id): Citus rejects this foreign key (foreign_constraint.c: "relations are not colocated`) {
		t.Errorf("reasons %q; want the rejected order_items key", got)
	}
	if got := a.citusForeignKeys("hash(account_id)"); got != nil {
		t.Errorf("co-located on the key: reasons %q; want none", got)
	}
	a.engine = "generic"
	if got := a.citusForeignKeys("order_items:hash(sku); orders:hash(account_id)"); got != nil {
		t.Errorf("engine generic: reasons %q; want none", got)
	}
}
