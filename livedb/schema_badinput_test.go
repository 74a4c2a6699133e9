package livedb

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeSchema(t *testing.T, name, sql string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadSchema_Unreadable: a MySQL CREATE TABLE that Vitess's lenient
// Parse reads only up to a syntax error (the column option WEIRDOPT) is
// an error naming the statement's first line, line 8 (line 7 is blank;
// the comment on line 1 and the users table come before), and not a
// table with its later columns silently dropped.
func TestReadSchema_Unreadable(t *testing.T) {
	p := writeSchema(t, "s1.sql", `-- orders schema (MySQL)
CREATE TABLE users (
  id bigint NOT NULL AUTO_INCREMENT,
  name varchar(64),
  PRIMARY KEY (id)
) ENGINE=InnoDB;

CREATE TABLE orders (
  id bigint NOT NULL,
  user_id bigint NOT NULL,
  total decimal(10,2) WEIRDOPT 5,
  PRIMARY KEY (id)
) ENGINE=InnoDB;
`)
	cat, _, err := ReadSchema(p)
	if err == nil {
		var cols []string
		if o := cat.Table("orders"); o != nil {
			for _, c := range o.Columns {
				cols = append(cols, c.Name)
			}
		}
		t.Fatalf("no error; orders read with columns %v", cols)
	}
	want := p + ":8: statement neither PostgreSQL nor MySQL parses: "
	if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "WEIRDOPT") {
		t.Errorf("error %q; want it to start %q and name WEIRDOPT", err, want)
	}

	// The same for a statement after a block comment spanning lines 2-3:
	// its first line is 4.
	p = writeSchema(t, "s3.sql", "CREATE TABLE a (id int PRIMARY KEY);\n/* b\n */\nCREATE TABLE b (id int, FROBNICATE);\n")
	_, _, err = ReadSchema(p)
	if want := p + ":4: "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("s3.sql: error %v; want it to start %q", err, want)
	}

	// Each statement one dialect's, the file both: a PostgreSQL array
	// column on line 1, MySQL backquotes on line 3. Named at line 3, the
	// later of the two, with both.
	p = writeSchema(t, "mixed.sql", "CREATE TABLE a (id bigint PRIMARY KEY, tags text[]);\n\nCREATE TABLE `b` (id bigint NOT NULL, PRIMARY KEY (id)) ENGINE=InnoDB;\n")
	_, _, err = ReadSchema(p)
	if want := p + ":3: the file mixes dialects: the statement at line 1 only PostgreSQL parses"; err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "the one at line 3 only MySQL") {
		t.Errorf("mixed.sql: error %v; want it to start %q and name line 3 as MySQL's", err, want)
	}
}

// TestReadSchema_Warnings: a table created twice keeps its first
// definition (users: id, name; not id, name, id, email, name) with a
// warning at the second's line 8, and a foreign key to a table the file
// does not create (shops, from orders on line 2) is a warning at its
// statement's line, in line order; in PostgreSQL's dialect and MySQL's.
func TestReadSchema_Warnings(t *testing.T) {
	for _, c := range []struct{ name, sql string }{
		{"pg.sql", `CREATE TABLE users (id bigint PRIMARY KEY, name text);
CREATE TABLE orders (
  id bigint PRIMARY KEY,
  user_id bigint REFERENCES users(id),
  shop_id bigint REFERENCES shops(id)
);
/* a second definition, as a careless concatenation of dumps gives */
CREATE TABLE users (id bigint PRIMARY KEY, email text, name text);
`},
		{"my.sql", "CREATE TABLE users (id bigint PRIMARY KEY, name text) ENGINE=InnoDB;\n" +
			"CREATE TABLE orders (\n" +
			"  id bigint PRIMARY KEY,\n" +
			"  user_id bigint, shop_id bigint,\n" +
			"  FOREIGN KEY (user_id) REFERENCES users (id), FOREIGN KEY (shop_id) REFERENCES shops (id)\n" +
			") ENGINE=InnoDB;\n" +
			"-- a second definition\n" +
			"CREATE TABLE `users` (id bigint PRIMARY KEY, email text, name text) ENGINE=InnoDB;\n"},
	} {
		p := writeSchema(t, c.name, c.sql)
		cat, warns, err := ReadSchema(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var cols []string
		for _, col := range cat.Table("users").Columns {
			cols = append(cols, col.Name)
		}
		if !reflect.DeepEqual(cols, []string{"id", "name"}) {
			t.Errorf("%s: users columns %v; want [id name] (the first definition)", c.name, cols)
		}
		var got []string
		for _, w := range warns {
			got = append(got, w.Error())
		}
		want := []string{
			p + ":2: foreign key orders(shop_id) references table shops, which the schema does not create: the reference is kept, but nothing is known of shops",
			p + ":8: CREATE TABLE users again (first at line 1): kept the first definition, ignored this one",
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: warnings\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestReadSchema_Dumps: what mysqldump and pg_dump write around the
// tables reads. mysqldump (triggers are dumped by default) sets the
// client's DELIMITER to ;; around a trigger whose body holds semicolons;
// Vitess's parser does not read CREATE TRIGGER, so it is skipped with a
// warning at its first line (11), and both tables keep every column.
// pg_dump writes psql meta-commands (\connect; \restrict since 17.6),
// which are the client's and not SQL.
func TestReadSchema_Dumps(t *testing.T) {
	p := writeSchema(t, "mysqldump.sql", "-- MySQL dump 10.13\n"+
		"/*!40101 SET NAMES utf8mb4 */;\n"+
		"DROP TABLE IF EXISTS `orders`;\n"+
		"CREATE TABLE `orders` (\n"+
		"  `id` bigint NOT NULL AUTO_INCREMENT,\n"+
		"  `user_id` bigint NOT NULL,\n"+
		"  PRIMARY KEY (`id`),\n"+
		"  KEY `idx_user` (`user_id`)\n"+
		") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n"+
		"DELIMITER ;;\n"+
		"CREATE TRIGGER `t1` BEFORE INSERT ON `orders` FOR EACH ROW BEGIN\n"+
		"  SET NEW.user_id = NEW.user_id + 0;\n"+
		"END ;;\n"+
		"DELIMITER ;\n"+
		"CREATE TABLE `users` (`id` bigint NOT NULL, `login` varchar(32), PRIMARY KEY (`id`)) ENGINE=InnoDB;\n")
	cat, warns, err := ReadSchema(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{"orders": {"id", "user_id"}, "users": {"id", "login"}} {
		tb := cat.Table(name)
		if tb == nil {
			t.Errorf("%s: table missing", name)
			continue
		}
		var got []string
		for _, c := range tb.Columns {
			got = append(got, c.Name)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: columns %v, want %v", name, got, want)
		}
	}
	if len(warns) != 1 || !strings.HasPrefix(warns[0].Error(), p+":11: CREATE TRIGGER statement skipped") {
		t.Errorf("warnings %v; want one at line 11 naming CREATE TRIGGER", warns)
	}

	p = writeSchema(t, "pgdump.sql", "\\restrict Xk2m\n--\n-- PostgreSQL database dump\n--\n\\connect shop\n"+
		"SET statement_timeout = 0;\n"+
		"CREATE TABLE public.orders (\n    id bigint NOT NULL,\n    user_id bigint\n);\n"+
		"ALTER TABLE ONLY public.orders ADD CONSTRAINT orders_pkey PRIMARY KEY (id);\n"+
		"\\unrestrict Xk2m\n")
	cat, warns, err = ReadSchema(p)
	if err != nil {
		t.Fatal(err)
	}
	if tb := cat.Table("orders"); tb == nil || len(tb.Columns) != 2 || !reflect.DeepEqual(tb.PrimaryKey, []string{"id"}) {
		t.Errorf("pg_dump: orders %+v; want columns id, user_id and primary key id", tb)
	}
	if len(warns) != 0 {
		t.Errorf("pg_dump: warnings %v; want none", warns)
	}

	// A CREATE TABLE no parser reads is still an error, after a DELIMITER
	// block too: skipping it would lose the table.
	p = writeSchema(t, "bad.sql", "DELIMITER ;;\nCREATE TRIGGER t BEFORE INSERT ON a FOR EACH ROW BEGIN SET NEW.x = 1; END ;;\nDELIMITER ;\nCREATE TABLE b (id int, FROBNICATE);\n")
	if _, _, err := ReadSchema(p); err == nil || !strings.HasPrefix(err.Error(), p+":4: ") {
		t.Errorf("bad.sql: error %v; want one at line 4", err)
	}
}

// TestReadSchema_RealMariaDBDump reads what MariaDB 10.11's mysqldump
// (--no-data --routines) wrote for users (id, login UNIQUE), orders (id,
// user_id REFERENCES users), a trigger, a procedure and a view: the two
// tables with their keys, and the trigger, which Vitess's parser does
// not read, skipped with a warning at its line (43 of the file).
func TestReadSchema_RealMariaDBDump(t *testing.T) {
	p := filepath.Join("testdata", "mariadb_dump_triggers.sql")
	cat, warns, err := ReadSchema(p)
	if err != nil {
		t.Fatal(err)
	}
	o, u := cat.Table("orders"), cat.Table("users")
	if o == nil || u == nil {
		t.Fatalf("tables %v; want orders and users", cat.Tables)
	}
	if len(o.ForeignKeys) != 1 || o.ForeignKeys[0].RefTable != "users" || !reflect.DeepEqual(o.ForeignKeys[0].Columns, []string{"user_id"}) {
		t.Errorf("orders foreign keys %+v; want user_id -> users", o.ForeignKeys)
	}
	if !reflect.DeepEqual(u.PrimaryKey, []string{"id"}) || !reflect.DeepEqual(u.UniqueKeys, [][]string{{"login"}}) {
		t.Errorf("users keys %v / %v; want primary id, unique login", u.PrimaryKey, u.UniqueKeys)
	}
	if len(warns) != 1 || !strings.HasPrefix(warns[0].Error(), p+":43: CREATE TRIGGER statement skipped") {
		t.Errorf("warnings %v; want one at line 43 naming CREATE TRIGGER", warns)
	}
}
