package sqllog

import (
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
		shardkey.SetCatalog(w, cat)
		defer shardkey.SetCatalog(w, nil)
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
