package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemaBadInput: a --schema statement neither PostgreSQL's parser
// nor Vitess's strict MySQL parser reads (a MySQL CREATE TABLE with an
// unknown column option on line 11; the statement starts on line 8) is
// exit 1 with "FILE:8: ...", and nothing of Vitess's own logger
// ("ignoring error parsing DDL", a JSON or glog record) reaches standard
// error; a table created twice and a foreign key to a table the schema
// lacks are warnings with their lines, on standard error and in the
// table, JSON, Markdown and HTML outputs.
func TestSchemaBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.sql")
	os.WriteFile(bad, []byte("-- MySQL\nCREATE TABLE users (\n  id bigint NOT NULL AUTO_INCREMENT,\n  name varchar(64),\n  PRIMARY KEY (id)\n) ENGINE=InnoDB;\n\n"+
		"CREATE TABLE orders (\n  id bigint NOT NULL,\n  user_id bigint NOT NULL,\n  total decimal(10,2) WEIRDOPT 5,\n  PRIMARY KEY (id)\n) ENGINE=InnoDB;\n"), 0o644)
	pgbench := filepath.Join("testdata", "pgbench", "pgbench-tpcb-s4.log")
	for _, args := range [][]string{
		{"score", "--log", pgbench, "--schema", bad, "-k", "hash(aid)"},
		{"explain", "--schema", bad, "-k", "hash(user_id)", "SELECT * FROM orders WHERE user_id = 5"},
	} {
		code, _, errs := runCmd(t, "", args...)
		want := bad + ":8: statement neither PostgreSQL nor MySQL parses: "
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 saying %q", args[0], code, errs, want)
		}
		if strings.Contains(errs, "ignoring error") || strings.Contains(errs, `"level"`) {
			t.Errorf("%s: Vitess's logger on stderr: %q", args[0], errs)
		}
	}

	warn := filepath.Join(dir, "warn.sql")
	os.WriteFile(warn, []byte(`CREATE TABLE users (id bigint PRIMARY KEY, name text);
CREATE TABLE orders (
  id bigint PRIMARY KEY,
  user_id bigint REFERENCES users(id),
  shop_id bigint REFERENCES shops(id)
);
/* a second definition */
CREATE TABLE users (id bigint PRIMARY KEY, email text, name text);
`), 0o644)
	want := []string{
		warn + ":2: foreign key orders(shop_id) references table shops, which the schema does not create",
		warn + ":8: CREATE TABLE users again (first at line 1): kept the first definition",
	}
	for _, args := range [][]string{
		{"score", "--log", pgbench, "--schema", warn, "-k", "hash(aid)", "--format", "table"},
		{"score", "--log", pgbench, "--schema", warn, "-k", "hash(aid)", "--format", "json"},
		{"advise", "--log", pgbench, "--schema", warn, "--format", "markdown"},
		{"advise", "--log", pgbench, "--schema", warn, "--format", "html"},
		{"explain", "--schema", warn, "-k", "hash(user_id)", "--format", "json", "SELECT * FROM orders WHERE user_id = 5"},
		{"explain", "--schema", warn, "-k", "hash(user_id)", "SELECT * FROM orders WHERE user_id = 5"},
	} {
		code, out, errs := runCmd(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errs)
		}
		for _, w := range want {
			if !strings.Contains(errs, "warning: "+w) {
				t.Errorf("%v: stderr lacks %q:\n%s", args, w, errs)
			}
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q", args, w)
			}
		}
	}
}
