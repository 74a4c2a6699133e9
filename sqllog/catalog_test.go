package sqllog

import (
	"context"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestCatalogColumns: with a catalog (what --from or --schema give),
// an INSERT without a column list binds the table's columns in their
// declared order, and an unqualified column of a join belongs to the table
// the catalog lists it in.
func TestCatalogColumns(t *testing.T) {
	cat := &shardkey.Catalog{Tables: []*shardkey.TableInfo{
		{Name: "orders", Columns: []*shardkey.ColumnInfo{{Name: "id", Type: shardkey.Int64}, {Name: "customer_id", Type: shardkey.Int64}, {Name: "total", Type: shardkey.Float64}}},
		{Name: "customers", Columns: []*shardkey.ColumnInfo{{Name: "cid", Type: shardkey.Int64}, {Name: "name", Type: shardkey.Text}}},
	}}
	check := func(d Dialect, sql, want string) {
		t.Helper()
		st, err := ParseStatement(sql, d)
		if err != nil {
			t.Fatalf("%q: %v", sql, err)
		}
		w := &shardkey.Workload{}
		w.Catalog = cat
		defer func() { w.Catalog = nil }()
		accs, err := st.Bind(w, nil)
		if err != nil {
			t.Fatalf("%q: %v", sql, err)
		}
		var parts []string
		for _, a := range accs {
			parts = append(parts, a.Kind.String()+" "+w.Tables[a.Table].Name+" "+condsText(w.Tables[a.Table], a.Conds))
		}
		if got := strings.Join(parts, " | "); got != want {
			t.Errorf("%s %q\n got %s\nwant %s", d, sql, got, want)
		}
	}
	for _, d := range []Dialect{Postgres, MySQL} {
		check(d, "INSERT INTO orders VALUES (7, 42, 9.5)", "insert orders {id=7 customer_id=42 total=9.5}")
		check(d, "INSERT INTO orders VALUES (7, 42, 9.5), (8, 43, 1)", "insert orders {id=7 customer_id=42 total=9.5} | insert orders {id=8 customer_id=43 total=1.0}")
		check(d, "SELECT * FROM orders o, customers c WHERE customer_id = cid AND cid = 5", "read orders {customer_id=5} | read customers {cid=5}")
	}
}

// TestFoldedInLogs: constants a statement's shape hides behind
// placeholders (abs(-5), 1 IN ('aa', 'bb')) are folded in a log as in
// explain: the statement is read as written.
func TestFoldedInLogs(t *testing.T) {
	log := "/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:\n" +
		"Tcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock\nTime                 Id Command    Argument\n" +
		"2024-05-01T10:00:01.000000Z\t   10 Query\tSELECT * FROM t WHERE id = abs(-5)\n" +
		"2024-05-01T10:00:02.000000Z\t   10 Query\tSELECT * FROM t WHERE id = abs(-7)\n" +
		"2024-05-01T10:00:03.000000Z\t   10 Query\tSELECT * FROM t WHERE 1 IN ('aa', 'bb') AND id = 3\n"
	sum := summary(readText(t, log, Options{}))
	for _, want := range []string{"{id=5}", "{id=7}", `op "read t (matches no row)"`} {
		if !strings.Contains(sum, want) {
			t.Errorf("no %q in\n%s", want, sum)
		}
	}
}

// TestStarInsertWithoutCatalog: INSERT INTO t SELECT * FROM s with no
// catalog (no --schema, no --from) cannot say which of t's columns the
// SELECT binds (s's columns are unknown), so it binds none; that is
// warned about, naming the statement's line (2), because in the database the
// SELECT's id = 5 may well bind t's key. With s's columns in a catalog,
// no warning: the binding is known.
func TestStarInsertWithoutCatalog(t *testing.T) {
	log := "2024-03-01 00:00:01.000 UTC [8] app@db LOG:  statement: SELECT 1\n" +
		"2024-03-01 00:00:02.000 UTC [8] app@db LOG:  statement: INSERT INTO archive SELECT * FROM orders WHERE id = 5\n"
	w := readText(t, log, Options{})
	var found []string
	for _, e := range w.Warnings {
		if s := e.Error(); strings.Contains(s, "SELECT * from orders") {
			found = append(found, s)
		}
	}
	if len(found) != 1 || !strings.Contains(found[0], "test.log:2") || !strings.Contains(found[0], "unknown without a schema") {
		t.Errorf("want one warning at test.log:4 that orders' columns are unknown without a schema; got %q (all: %v)", found, w.Warnings)
	}
	wc := &shardkey.Workload{Catalog: &shardkey.Catalog{Tables: []*shardkey.TableInfo{
		{Name: "orders", Columns: []*shardkey.ColumnInfo{{Name: "id", Type: shardkey.Int64}}},
		{Name: "archive", Columns: []*shardkey.ColumnInfo{{Name: "id", Type: shardkey.Int64}}},
	}}}
	if err := Read(context.Background(), wc, strings.NewReader(log), "test.log", Options{}); err != nil {
		t.Fatal(err)
	}
	for _, e := range wc.Warnings {
		if strings.Contains(e.Error(), "SELECT * from") {
			t.Errorf("with a catalog: unexpected warning %v", e)
		}
	}
}
