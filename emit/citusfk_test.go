package emit_test

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/emit"
)

// shop is the reviewer's schema (CREATE TABLE accounts (id bigint PRIMARY
// KEY, ...); orders (id bigint PRIMARY KEY, account_id bigint REFERENCES
// accounts(id), ...); order_items (order_id bigint REFERENCES orders(id),
// account_id bigint, sku int, ...); inventory (sku int PRIMARY KEY, ...)),
// its tables in the order given, and the order_items foreign key fk.
func shop(order []string, fk shardkey.ForeignKey) *shardkey.Workload {
	col := func(n string, typ shardkey.Type) *shardkey.Column { return &shardkey.Column{Name: n, Type: typ} }
	tables := map[string]*shardkey.Table{
		"accounts":    {Name: "accounts", Columns: []*shardkey.Column{col("id", shardkey.Int64), col("email", shardkey.Text)}},
		"orders":      {Name: "orders", Columns: []*shardkey.Column{col("id", shardkey.Int64), col("account_id", shardkey.Int64)}},
		"order_items": {Name: "order_items", Columns: []*shardkey.Column{col("order_id", shardkey.Int64), col("account_id", shardkey.Int64), col("sku", shardkey.Int32)}},
		"inventory":   {Name: "inventory", Columns: []*shardkey.Column{col("sku", shardkey.Int32), col("qty", shardkey.Int32)}},
	}
	infos := map[string]*shardkey.TableInfo{
		"accounts":    {Name: "accounts", PrimaryKey: []string{"id"}},
		"orders":      {Name: "orders", PrimaryKey: []string{"account_id", "id"}, ForeignKeys: []shardkey.ForeignKey{{Columns: []string{"account_id"}, RefTable: "accounts", RefColumns: []string{"id"}}}},
		"order_items": {Name: "order_items", ForeignKeys: []shardkey.ForeignKey{fk}},
		"inventory":   {Name: "inventory", PrimaryKey: []string{"sku"}},
	}
	w := &shardkey.Workload{Name: "shop", Shards: 8, Catalog: &shardkey.Catalog{}}
	for _, n := range order {
		w.Tables = append(w.Tables, tables[n])
		w.Catalog.Tables = append(w.Catalog.Tables, infos[n])
	}
	return w
}

var (
	shopOrder = []string{"accounts", "orders", "order_items", "inventory"}
	// order_items (order_id) REFERENCES orders (id): the reviewer's.
	itemsByID = shardkey.ForeignKey{Columns: []string{"order_id"}, RefTable: "orders", RefColumns: []string{"id"}}
	// order_items (account_id, order_id) REFERENCES orders (account_id,
	// id): the distribution column carried into the key.
	itemsByAccount = shardkey.ForeignKey{Columns: []string{"account_id", "order_id"}, RefTable: "orders", RefColumns: []string{"account_id", "id"}}
)

// TestCitusForeignKeys: the statement order and the warnings follow
// Citus's foreign-key rules (src/backend/distributed/commands/
// foreign_constraint.c, ErrorIfUnsupportedForeignConstraintExists): the
// referenced table must already be a Citus table (reference tables
// first, then parents before children); distributed -> reference is
// allowed; distributed -> distributed only co-located (same distribution
// column type here) with both distribution columns at the same position
// of the key; reference -> distributed never; distributed -> a local
// table never. Each expected list is worked from those rules by hand.
func TestCitusForeignKeys(t *testing.T) {
	for _, c := range []struct {
		name   string
		order  []string
		fk     shardkey.ForeignKey
		design string
		calls  []string
		warns  []string // one substring per warning expected, in order
	}{{
		// The reviewer's design: accounts is a reference table, so it
		// comes first and orders' key to it is allowed; order_items by
		// sku (integer) cannot co-locate with orders by account_id
		// (bigint).
		name: "reviewer", order: shopOrder, fk: itemsByID,
		design: "hash(sku); accounts:replicate; orders:hash(account_id)",
		calls: []string{
			"SET citus.shard_count = 8",
			"create_reference_table('accounts')",
			"create_distributed_table('orders', 'account_id')",
			"create_distributed_table('order_items', 'sku')",
			"create_distributed_table('inventory', 'sku', colocate_with => 'order_items')",
		},
		warns: []string{`order_items: FOREIGN KEY (order_id) REFERENCES orders (id): Citus rejects this foreign key (foreign_constraint.c: "relations are not colocated or not referencing a reference table"`},
	}, {
		// Both by bigint: co-located, but (order_id) -> (id) does not
		// pair order_items.account_id with orders.account_id. orders ->
		// accounts pairs account_id with id: kept, co-located with
		// accounts.
		name: "colocated-not-on-key", order: shopOrder, fk: itemsByID,
		design: "accounts:hash(id); inventory:hash(sku); order_items:hash(account_id); orders:hash(account_id)",
		calls: []string{
			"SET citus.shard_count = 8",
			"create_distributed_table('accounts', 'id')",
			"create_distributed_table('orders', 'account_id', colocate_with => 'accounts')",
			"create_distributed_table('order_items', 'account_id', colocate_with => 'accounts')",
			"create_distributed_table('inventory', 'sku')",
		},
		warns: []string{`order_items: FOREIGN KEY (order_id) REFERENCES orders (id): Citus rejects this foreign key (foreign_constraint.c: "Foreign keys are supported in two cases`},
	}, {
		// Children listed first: parents still come first, and the
		// key carrying account_id is kept, co-located with its parent.
		name: "parents-first", order: []string{"order_items", "inventory", "orders", "accounts"}, fk: itemsByAccount,
		design: "accounts:replicate; inventory:hash(sku); order_items:hash(account_id); orders:hash(account_id)",
		calls: []string{
			"SET citus.shard_count = 8",
			"create_reference_table('accounts')",
			"create_distributed_table('inventory', 'sku')",
			"create_distributed_table('orders', 'account_id')",
			"create_distributed_table('order_items', 'account_id', colocate_with => 'orders')",
		},
	}, {
		// Reference tables among themselves: parent first.
		name: "references", order: []string{"order_items", "orders", "accounts", "inventory"}, fk: itemsByAccount,
		design: "accounts:replicate; orders:replicate; order_items:replicate; inventory:replicate",
		calls: []string{
			"SET citus.shard_count = 8",
			"create_reference_table('accounts')",
			"create_reference_table('orders')",
			"create_reference_table('order_items')",
			"create_reference_table('inventory')",
		},
	}, {
		// A reference table referencing a distributed one.
		name: "reference-to-distributed", order: shopOrder, fk: itemsByAccount,
		design: "accounts:hash(id); orders:replicate; order_items:replicate; inventory:replicate",
		calls: []string{
			"SET citus.shard_count = 8",
			"create_reference_table('orders')",
			"create_reference_table('order_items')",
			"create_reference_table('inventory')",
			"create_distributed_table('accounts', 'id')",
		},
		warns: []string{`orders: FOREIGN KEY (account_id) REFERENCES accounts (id): Citus rejects this foreign key (foreign_constraint.c: "foreign keys from reference tables to distributed tables are not supported")`},
	}, {
		// A distributed table referencing a table the design leaves local.
		name: "distributed-to-local", order: shopOrder, fk: itemsByAccount,
		design: "orders:hash(account_id); order_items:hash(account_id)",
		calls: []string{
			"SET citus.shard_count = 8",
			"create_distributed_table('orders', 'account_id')",
			"create_distributed_table('order_items', 'account_id', colocate_with => 'orders')",
		},
		warns: []string{`orders: FOREIGN KEY (account_id) REFERENCES accounts (id): Citus rejects this foreign key (foreign_constraint.c: "Referenced table must be a distributed table or a reference table")`},
	}} {
		t.Run(c.name, func(t *testing.T) {
			w := shop(c.order, c.fk)
			d := design(t, c.design)
			var warned []string
			sql, err := emit.Citus(w, d, emit.Options{Warn: func(s string) { warned = append(warned, s) }})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := strings.Join(pgCalls(t, sql), "\n"), strings.Join(c.calls, "\n"); got != want {
				t.Errorf("calls:\n%s\nwant:\n%s", got, want)
			}
			if len(warned) != len(c.warns) {
				t.Fatalf("warnings %q; want %d", warned, len(c.warns))
			}
			for i, want := range c.warns {
				if !strings.Contains(warned[i], want) || !strings.Contains(warned[i], "ways out") {
					t.Errorf("warning %q; want %q and the ways out", warned[i], want)
				}
				if !strings.Contains(sql, "-- WARNING: "+warned[i]+".\n") {
					t.Errorf("the SQL lacks the warning %q:\n%s", warned[i], sql)
				}
			}
			if got := emit.CitusForeignKeyProblems(w, d); strings.Join(got, "\n") != strings.Join(warned, "\n") {
				t.Errorf("CitusForeignKeyProblems = %q; want the emitted warnings %q", got, warned)
			}
		})
	}
}

// TestCitusForeignKeyWaysOut: the rejected key's message names the three
// ways out, with the key that would be kept: the child carries the
// parent's distribution column at the same position on both sides.
func TestCitusForeignKeyWaysOut(t *testing.T) {
	got := emit.CitusForeignKeyProblems(shop(shopOrder, itemsByID), design(t, "hash(sku); accounts:replicate; orders:hash(account_id)"))
	if len(got) != 1 {
		t.Fatalf("problems %q; want 1", got)
	}
	for _, want := range []string{
		"declare FOREIGN KEY (account_id, order_id) REFERENCES orders (account_id, id)",
		"drop the foreign key and enforce it in the application",
		"make orders a reference table (orders:replicate)",
	} {
		if !strings.Contains(got[0], want) {
			t.Errorf("%q lacks %q", got[0], want)
		}
	}
}
