package emit_test

import (
	"fmt"
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/emit"
)

// pgCalls parses sql with PostgreSQL's own parser (pg_query) and returns
// each statement as text: "SET name = value" or "fn(arg, name => arg)"
// for a SELECT of one function call. Anything else fails the test.
//
// Citus itself is not packaged for Debian bookworm, so the SQL is checked
// by PostgreSQL's grammar and by the calls it makes, not run on a Citus
// cluster.
func pgCalls(t *testing.T, sql string) []string {
	t.Helper()
	tree, err := pg_query.Parse(sql)
	if err != nil {
		t.Fatalf("pg_query: %v\n%s", err, sql)
	}
	var calls []string
	for _, raw := range tree.Stmts {
		st := raw.Stmt
		if set := st.GetVariableSetStmt(); set != nil {
			calls = append(calls, fmt.Sprintf("SET %s = %s", set.Name, pgArg(t, set.Args[0])))
			continue
		}
		sel := st.GetSelectStmt()
		if sel == nil || len(sel.TargetList) != 1 || sel.TargetList[0].GetResTarget().GetVal().GetFuncCall() == nil {
			t.Fatalf("statement is not SELECT fn(...): %v", st)
		}
		fc := sel.TargetList[0].GetResTarget().GetVal().GetFuncCall()
		var args []string
		for _, a := range fc.Args {
			if na := a.GetNamedArgExpr(); na != nil {
				args = append(args, na.Name+" => "+pgArg(t, na.Arg))
				continue
			}
			args = append(args, pgArg(t, a))
		}
		calls = append(calls, fmt.Sprintf("%s(%s)", fc.Funcname[len(fc.Funcname)-1].GetString_().Sval, strings.Join(args, ", ")))
	}
	return calls
}

func pgArg(t *testing.T, n *pg_query.Node) string {
	t.Helper()
	c := n.GetAConst()
	switch {
	case c == nil:
		t.Fatalf("argument is not a constant: %v", n)
	case c.GetSval() != nil:
		return "'" + c.GetSval().Sval + "'"
	case c.GetIval() != nil:
		return fmt.Sprint(c.GetIval().Ival)
	}
	t.Fatalf("unexpected constant %v", c)
	return ""
}

func TestCitus_OrdersIsolate(t *testing.T) {
	sql, err := emit.Citus(orders(t), design(t, "isolate(hash(customer_id), top=3)"), emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(pgCalls(t, sql), "\n")
	want := strings.Join([]string{
		"SET citus.shard_count = 64",
		"create_distributed_table('orders', 'customer_id')",
		"create_distributed_table('order_line', 'customer_id', colocate_with => 'orders')",
		"isolate_tenant_to_new_shard('orders', 1, 'CASCADE')",
		"isolate_tenant_to_new_shard('orders', 2, 'CASCADE')",
		"isolate_tenant_to_new_shard('orders', 3, 'CASCADE')",
	}, "\n")
	if got != want {
		t.Errorf("calls:\n%s\nwant:\n%s", got, want)
	}
}

func TestCitus_TPCC(t *testing.T) {
	sql, err := emit.Citus(tpcc(t), design(t, tpccDesign), emit.Options{Shards: 32})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(pgCalls(t, sql), "\n")
	want := strings.Join([]string{
		"SET citus.shard_count = 32",
		// Reference tables first: a distributed table's foreign key may
		// reference one only once it exists (foreign_constraint.c).
		"create_reference_table('item')",
		"create_distributed_table('warehouse', 'w_id')",
		"create_distributed_table('district', 'd_w_id', colocate_with => 'warehouse')",
		"create_distributed_table('customer', 'c_w_id', colocate_with => 'warehouse')",
		"create_distributed_table('stock', 's_w_id', colocate_with => 'warehouse')",
		"isolate_tenant_to_new_shard('warehouse', 1, 'CASCADE')",
	}, "\n")
	if got != want {
		t.Errorf("calls:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(sql, "-- history: the design does not place it") {
		t.Errorf("no comment on history:\n%s", sql)
	}
}

// TestCitus_Types: tables co-locate only with a distribution column of the
// same type; text values are quoted; compound keys use the first column.
func TestCitus_Types(t *testing.T) {
	sql, err := emit.Citus(tpcc(t), design(t, "warehouse:hash(w_id); customer:isolate(hash(c_last, c_id)); item:hash(i_name)"), emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(pgCalls(t, sql), "\n")
	want := strings.Join([]string{
		"SET citus.shard_count = 8",
		"create_distributed_table('warehouse', 'w_id')",
		"create_distributed_table('customer', 'c_last')",
		"create_distributed_table('item', 'i_name', colocate_with => 'customer')",
		"isolate_tenant_to_new_shard('customer', 'ANTICALLYESE', 'CASCADE')",
	}, "\n")
	if got != want {
		t.Errorf("calls:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(sql, "Citus distributes by one column; distributing by c_last, the first") {
		t.Errorf("no comment on the compound key:\n%s", sql)
	}
}

// TestCitus_UniqueKeysWithoutDistributionColumn: Citus refuses to
// distribute a table whose PRIMARY KEY or UNIQUE constraint leaves out the
// distribution column (its regression test multi_create_table_constraints:
// "Citus cannot distribute unique constraints that do not include the
// partition column on hash-partitioned tables"). orders declared with
// PRIMARY KEY (order_id) and UNIQUE (order_month, customer_id), distributed
// by customer_id: the primary key leaves it out (warned, with (customer_id,
// order_id) as the way out), the unique key includes it (not warned);
// order_line's PRIMARY KEY (customer_id, order_id, line_id) includes it.
func TestCitus_UniqueKeysWithoutDistributionColumn(t *testing.T) {
	w := orders(t)
	w.Catalog = &shardkey.Catalog{Tables: []*shardkey.TableInfo{
		{Name: "orders", PrimaryKey: []string{"order_id"}, UniqueKeys: [][]string{{"order_month", "customer_id"}}},
		{Name: "order_line", PrimaryKey: []string{"customer_id", "order_id", "line_id"}},
	}}
	var warned []string
	sql, err := emit.Citus(w, design(t, "hash(customer_id)"), emit.Options{Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "PRIMARY KEY (order_id) does not include the distribution column customer_id") || !strings.Contains(warned[0], "(customer_id, order_id)") {
		t.Fatalf("warnings %q; want one, on orders' PRIMARY KEY (order_id)", warned)
	}
	if !strings.Contains(sql, "-- WARNING: orders: Citus rejects create_distributed_table while PRIMARY KEY (order_id)") {
		t.Errorf("the SQL does not carry the warning:\n%s", sql)
	}
	pgCalls(t, sql) // still SQL PostgreSQL parses
}

// TestCitus_ShardCountOption: scored with citus(shard_count=32) on 8
// nodes (--shards 8), the design was placed on 32 shards round-robin
// over 8 workers, so the configuration sets citus.shard_count to 32, not
// to the 8 of --shards, and its header says 32 shards over 8 nodes.
// Without the option, --shards is the shard count (one per node).
func TestCitus_ShardCountOption(t *testing.T) {
	for _, c := range []struct {
		engine string
		want   string
		header string
	}{
		{"citus(shard_count=32)", "SET citus.shard_count = 32", "on Citus, 32 shards over 8 worker nodes"},
		{"citus", "SET citus.shard_count = 8", "on Citus, 8 shards."},
	} {
		sql, err := emit.Citus(orders(t), design(t, "hash(customer_id)"), emit.Options{Shards: 8, Engine: c.engine})
		if err != nil {
			t.Fatal(err)
		}
		if calls := pgCalls(t, sql); len(calls) == 0 || calls[0] != c.want {
			t.Errorf("engine %s: calls %q; want first %q", c.engine, calls, c.want)
		}
		if !strings.Contains(sql, c.header) {
			t.Errorf("engine %s: header not %q:\n%s", c.engine, c.header, sql)
		}
	}
}
