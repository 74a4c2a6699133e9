package sqllog

import (
	"testing"

	"github.com/shardkey/shardkey"
)

// setsOf returns the Sets of the first instance of w's operation name,
// and of the statement of the first transaction that updates.
func setsOf(t *testing.T, w *shardkey.Workload, name string) (inst, stmt []shardkey.Cond) {
	t.Helper()
	for _, op := range w.Ops {
		if op.Name == name {
			inst = op.Instances[0].Sets
			if len(op.Instances) != 1 {
				t.Fatalf("%s: %d instances; want 1", name, len(op.Instances))
			}
		}
	}
	for _, tx := range w.Txns {
		if tx.Name == name && len(tx.Stmts) == 1 {
			stmt = tx.Stmts[0].Sets
		}
	}
	return inst, stmt
}

// TestUpdateSets: an UPDATE's SET columns are kept on its instances and
// transaction statements (shardkey.Instance.Sets) with the new values a
// statement gives (a literal, a logged bind parameter), a value known
// only at run time for an expression, and nothing for a column no
// statement binds or inserts; both dialects.
func TestUpdateSets(t *testing.T) {
	pgLog := `2026-11-30 23:04:50.000 UTC [1] u@db LOG:  statement: INSERT INTO users (id, name, n) VALUES (1, 'ann', 3)
2026-11-30 23:04:51.000 UTC [1] u@db LOG:  statement: UPDATE users SET name = 'zed', n = n + 1, other = 5 WHERE id = 1
2026-11-30 23:04:52.000 UTC [2] u@db LOG:  execute <unnamed>: UPDATE users SET name = $1 WHERE id = $2 AND n = 4
2026-11-30 23:04:52.000 UTC [2] u@db DETAIL:  parameters: $1 = 'kim', $2 = '2'
`
	myLog := "/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1 (Debian 12). started with:\n" +
		"Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\n" +
		"Time\t\t    Id Command\tArgument\n" +
		"261130 23:05:19\t    12 Query\tINSERT INTO users (id, name, n) VALUES (1, 'ann', 3)\n" +
		"261130 23:05:20\t    12 Query\tUPDATE users SET name = 'zed', n = n + 1, other = 5 WHERE id = 1\n" +
		"261130 23:05:21\t    12 Query\tUPDATE users SET name = 'kim' WHERE id = 2 AND n = 4\n"
	for _, c := range []struct{ dialect, log, second string }{
		{"postgresql", pgLog, "update users where id = ? and n = ?"},
		{"mysql", myLog, "update users where id = ? and n = ?"},
	} {
		w := readText(t, c.log, Options{})
		tb := w.Table("users")
		if tb == nil {
			t.Fatalf("%s: no table users", c.dialect)
		}
		name, n := tb.ColumnIndex("name"), tb.ColumnIndex("n")
		if name < 0 || n < 0 || tb.ColumnIndex("other") >= 0 {
			t.Fatalf("%s: columns %v; want name and n, not other (named only by a SET)", c.dialect, tb.ColumnNames())
		}
		// UPDATE users SET name = 'zed', n = n + 1, other = 5: name's
		// value, n's known only at run time (an expression, no bind
		// parameter), other left out.
		want := []shardkey.Cond{
			{Col: name, Op: shardkey.Eq, Val: shardkey.Value{Type: shardkey.Text, Str: "zed"}},
			{Col: n, Op: shardkey.Eq, Fresh: shardkey.FreshUnique},
		}
		inst, stmt := setsOf(t, w, "update users where id = ?")
		for what, got := range map[string][]shardkey.Cond{"instance": inst, "transaction statement": stmt} {
			if !sameSets(got, want) {
				t.Errorf("%s: first update's %s sets = %+v; want %+v", c.dialect, what, got, want)
			}
		}
		inst, _ = setsOf(t, w, c.second)
		want = []shardkey.Cond{{Col: name, Op: shardkey.Eq, Val: shardkey.Value{Type: shardkey.Text, Str: "kim"}}}
		if !sameSets(inst, want) {
			t.Errorf("%s: second update's sets = %+v; want %+v", c.dialect, inst, want)
		}
		for _, op := range w.Ops {
			if op.Kind != shardkey.Update && op.Instances[0].Sets != nil {
				t.Errorf("%s: %s has sets %+v; want none", c.dialect, op.Name, op.Instances[0].Sets)
			}
		}
	}
}

func sameSets(got, want []shardkey.Cond) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Col != w.Col || g.Op != w.Op || g.Fresh != w.Fresh || g.Param != w.Param || shardkey.Compare(g.Val, w.Val) != 0 || g.Val.Type != w.Val.Type {
			return false
		}
	}
	return true
}
