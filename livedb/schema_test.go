package livedb

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/shardkey/shardkey"
)

func TestReadSchema(t *testing.T) {
	for _, c := range []struct{ name, sql, engine string }{
		{"postgres.sql", `CREATE TABLE customers (customer_id bigint PRIMARY KEY, name text);
CREATE TABLE orders (order_id bigserial PRIMARY KEY, customer_id bigint NOT NULL REFERENCES customers(customer_id), note varchar(20));
CREATE TABLE order_items (order_id bigint NOT NULL, line_no int NOT NULL, PRIMARY KEY (order_id, line_no));
ALTER TABLE order_items ADD CONSTRAINT fk FOREIGN KEY (order_id) REFERENCES orders (order_id);`, "postgresql"},
		{"mysql.sql", "CREATE TABLE customers (customer_id bigint NOT NULL, name text, PRIMARY KEY (customer_id)) ENGINE=InnoDB;\n" +
			"CREATE TABLE orders (order_id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, customer_id bigint NOT NULL, note varchar(20), CONSTRAINT f1 FOREIGN KEY (customer_id) REFERENCES customers (customer_id));\n" +
			"CREATE TABLE `order_items` (order_id bigint NOT NULL, line_no int NOT NULL, PRIMARY KEY (order_id, line_no), FOREIGN KEY (order_id) REFERENCES orders (order_id));", "mysql"},
	} {
		p := filepath.Join(t.TempDir(), c.name)
		if err := os.WriteFile(p, []byte(c.sql), 0o644); err != nil {
			t.Fatal(err)
		}
		cat, _, err := ReadSchema(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(cat.Tables) != 3 {
			t.Fatalf("%s: %d tables; want 3", c.name, len(cat.Tables))
		}
		o := cat.Table("orders")
		var cols []string
		for _, col := range o.Columns {
			cols = append(cols, col.Name)
		}
		if !reflect.DeepEqual(cols, []string{"order_id", "customer_id", "note"}) || o.Columns[0].Type != shardkey.Int64 || o.Columns[2].Type != shardkey.Text {
			t.Errorf("%s: orders columns %v (types %v, %v); want order_id int64, customer_id, note text", c.name, cols, o.Columns[0].Type, o.Columns[2].Type)
		}
		if !reflect.DeepEqual(o.PrimaryKey, []string{"order_id"}) || !reflect.DeepEqual(cat.Table("order_items").PrimaryKey, []string{"order_id", "line_no"}) {
			t.Errorf("%s: primary keys %v, %v", c.name, o.PrimaryKey, cat.Table("order_items").PrimaryKey)
		}
		want := []shardkey.ForeignKey{{Columns: []string{"customer_id"}, RefTable: "customers", RefColumns: []string{"customer_id"}}}
		if !reflect.DeepEqual(o.ForeignKeys, want) {
			t.Errorf("%s: orders foreign keys %+v; want %+v", c.name, o.ForeignKeys, want)
		}
		want = []shardkey.ForeignKey{{Columns: []string{"order_id"}, RefTable: "orders", RefColumns: []string{"order_id"}}}
		if got := cat.Table("order_items").ForeignKeys; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: order_items foreign keys %+v; want %+v", c.name, got, want)
		}
	}
	p := filepath.Join(t.TempDir(), "bad.sql")
	os.WriteFile(p, []byte("CREATE TABLE ( nonsense"), 0o644)
	if _, _, err := ReadSchema(p); err == nil {
		t.Error("bad.sql: no error")
	}
}
