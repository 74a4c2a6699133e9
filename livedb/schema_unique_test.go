package livedb

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestReadSchema_UniqueKeys: the unique keys a schema declares besides
// the primary key, in each dialect's spellings (a column's UNIQUE, a
// table's UNIQUE (a, b), MySQL's UNIQUE KEY, PostgreSQL's CREATE UNIQUE
// INDEX), each its columns in order; a plain index, a partial unique
// index and the primary key are not among them.
func TestReadSchema_UniqueKeys(t *testing.T) {
	for _, c := range []struct{ name, sql string }{
		{"pg.sql", `CREATE TABLE users (id bigint PRIMARY KEY, login varchar(64) NOT NULL UNIQUE, email text, tenant int, handle text, UNIQUE (tenant, handle));
CREATE UNIQUE INDEX users_email ON users (email);
CREATE UNIQUE INDEX users_live ON users (handle) WHERE tenant IS NOT NULL;
CREATE INDEX users_tenant ON users (tenant);`},
		{"my.sql", "CREATE TABLE users (id bigint PRIMARY KEY, login varchar(64) NOT NULL UNIQUE, email varchar(128), tenant int, handle varchar(64), UNIQUE KEY (tenant, handle), UNIQUE INDEX users_email (email), KEY users_tenant (tenant));"},
	} {
		p := filepath.Join(t.TempDir(), c.name)
		if err := os.WriteFile(p, []byte(c.sql), 0o644); err != nil {
			t.Fatal(err)
		}
		cat, _, err := ReadSchema(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		u := cat.Table("users")
		want := [][]string{{"login"}, {"tenant", "handle"}, {"email"}}
		if !reflect.DeepEqual(u.UniqueKeys, want) || !reflect.DeepEqual(u.PrimaryKey, []string{"id"}) {
			t.Errorf("%s: unique keys %q, primary key %q; want %q, [id]", c.name, u.UniqueKeys, u.PrimaryKey, want)
		}
	}
}
