package sqllog

import (
	"context"
	"testing"

	"github.com/shardkey/shardkey"
)

// statsWorkload is a sampled table accounts(aid, bid) with aid 100..109 and
// bid 1..2, as livedb reads one.
func statsWorkload(t *testing.T) *shardkey.Workload {
	t.Helper()
	tab := &shardkey.Table{Name: "accounts"}
	aid := &shardkey.Column{Name: "aid", Type: shardkey.Int32}
	bid := &shardkey.Column{Name: "bid", Type: shardkey.Int32}
	for i := 0; i < 10; i++ {
		if err := aid.Append(shardkey.Value{Type: shardkey.Int32, Int: int64(100 + i)}); err != nil {
			t.Fatal(err)
		}
		if err := bid.Append(shardkey.Value{Type: shardkey.Int32, Int: int64(1 + i%2)}); err != nil {
			t.Fatal(err)
		}
	}
	tab.Columns, tab.Rows = []*shardkey.Column{aid, bid}, 10
	return &shardkey.Workload{Tables: []*shardkey.Table{tab}, Seed: 1}
}

// TestReadStatementStats: statement statistics read as a pg_stat_statements
// export is: 600 calls over 60 s are 10 requests/s; placeholders take
// values from the sample; a catalog table the sample does not hold is
// skipped, also inside a join; the operation is named by its shape.
func TestReadStatementStats(t *testing.T) {
	for _, c := range []struct {
		d     Dialect
		stats []StatementStat
	}{
		{Postgres, []StatementStat{
			{"SELECT abalance FROM accounts WHERE aid = $1", 600},
			{"SELECT * FROM pg_class WHERE oid = $1", 5},
			{"SELECT a.abalance FROM accounts a JOIN pg_namespace n ON n.oid = a.bid WHERE a.aid = $1", 0}, // never ran
		}},
		{MySQL, []StatementStat{
			{"SELECT `abalance` FROM `accounts` WHERE `aid` = ?", 300},
			{"SELECT `a`.`abalance` FROM `accounts` `a` JOIN `mysql`.`user` `u` ON `u`.`id` = `a`.`bid` WHERE `a`.`aid` = ?", 300},
		}},
	} {
		w := statsWorkload(t)
		if err := ReadStatementStats(context.Background(), w, c.stats, c.d, 60, "db", Options{}); err != nil {
			t.Fatalf("%v: %v", c.d, err)
		}
		if len(w.Tables) != 1 {
			t.Errorf("%v: %d tables; want only the sampled accounts", c.d, len(w.Tables))
		}
		if len(w.Ops) != 1 {
			t.Fatalf("%v: %d operations; want 1 (read accounts by aid)", c.d, len(w.Ops))
		}
		op := w.Ops[0]
		if op.Name != "read accounts where aid = ?" || op.Kind != shardkey.Read || op.Rate != 10 {
			t.Errorf("%v: op %q kind %v rate %v; want \"read accounts where aid = ?\", read, 10/s", c.d, op.Name, op.Kind, op.Rate)
		}
		if len(op.Instances) < 2 {
			t.Errorf("%v: %d instances; want values drawn from the sample", c.d, len(op.Instances))
		}
		for _, in := range op.Instances {
			if len(in.Conds) != 1 || in.Conds[0].Val.Int < 100 || in.Conds[0].Val.Int >= 110 {
				t.Fatalf("%v: instance %+v; want aid bound to a sampled value", c.d, in.Conds)
			}
		}
		if err := w.Validate(); err != nil {
			t.Errorf("%v: %v", c.d, err)
		}
	}
}

// TestReadStatementStats_Shapes: the statement shapes of pgbench, sysbench
// and TPC-C as the servers' statistics normalise them become the operations
// those clients run: an equality per placeholder on a key column, a
// BETWEEN of placeholders a range, an IN list, an OR of two columns no
// condition (it asks every shard under either key), a placeholder inside
// an expression no binding of its column, a join read on the sampled side.
func TestReadStatementStats_Shapes(t *testing.T) {
	check := func(d Dialect, q, table string, cols []string, want string) {
		t.Helper()
		tab := &shardkey.Table{Name: table, Rows: 1}
		for _, n := range cols {
			c := &shardkey.Column{Name: n, Type: shardkey.Int64}
			if err := c.Append(shardkey.Value{Type: shardkey.Int64, Int: 7}); err != nil {
				t.Fatal(err)
			}
			tab.Columns = append(tab.Columns, c)
		}
		w := &shardkey.Workload{Tables: []*shardkey.Table{tab}}
		if err := ReadStatementStats(context.Background(), w, []StatementStat{{q, 10}}, d, 0, "db", Options{}); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var got []string
		for _, op := range w.Ops {
			got = append(got, op.Name)
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s: operations %q; want [%q]", q, got, want)
		}
	}
	// pgbench's TPC-B-like script, as pg_stat_statements normalises it.
	check(Postgres, "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2", "pgbench_accounts", []string{"aid", "abalance"}, "update pgbench_accounts where aid = ?")
	check(Postgres, "SELECT abalance FROM pgbench_accounts WHERE aid = $1", "pgbench_accounts", []string{"aid", "abalance"}, "read pgbench_accounts where aid = ?")
	check(Postgres, "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)", "pgbench_history", []string{"tid", "bid", "aid", "delta", "mtime"}, "insert pgbench_history")
	// sysbench oltp_read_write, as MySQL digests print it.
	check(MySQL, "SELECT `c` FROM `sbtest1` WHERE `id` = ?", "sbtest1", []string{"id", "c", "k"}, "read sbtest1 where id = ?")
	check(MySQL, "SELECT `c` FROM `sbtest1` WHERE `id` BETWEEN ? AND ? ORDER BY `c`", "sbtest1", []string{"id", "c", "k"}, "read sbtest1 where id in range")
	check(MySQL, "SELECT SUM ( `k` ) FROM `sbtest1` WHERE `id` BETWEEN ? AND ?", "sbtest1", []string{"id", "c", "k"}, "read sbtest1 where id in range")
	check(MySQL, "DELETE FROM `sbtest1` WHERE `id` = ?", "sbtest1", []string{"id", "c", "k"}, "delete sbtest1 where id = ?")
	// TPC-C shapes (a shape names its columns in name order).
	check(Postgres, "SELECT c_discount, c_last FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3 FOR UPDATE", "customer", []string{"c_id", "c_d_id", "c_w_id", "c_discount", "c_last"}, "read customer where c_d_id = ? and c_id = ? and c_w_id = ?")
	check(Postgres, "SELECT i_price FROM item WHERE i_id IN ($1, $2, $3)", "item", []string{"i_id", "i_price"}, "read item where i_id in (?)")
	check(Postgres, "SELECT * FROM t WHERE a = $1 OR b = $2", "t", []string{"a", "b"}, "read t (all rows)")
	check(Postgres, "SELECT * FROM t WHERE a = $1 + 1 AND b = $2", "t", []string{"a", "b"}, "read t where b = ?")
	check(Postgres, "SELECT * FROM t x WHERE x.a = $1::int8", "t", []string{"a", "b"}, "read t where a = ?")
	check(Postgres, `SELECT "Name" FROM public."Users" WHERE "Id" = $1`, "Users", []string{"Id", "Name"}, "read Users where Id = ?")
	// What livedb's own tokenizer could not read: a join.
	check(Postgres, "SELECT * FROM t JOIN u ON t.a = u.a WHERE t.a = $1", "t", []string{"a", "b"}, "read t where a = ?")
}
