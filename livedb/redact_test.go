package livedb

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://u:hunter2@h:5432/db?sslmode=disable", "postgres://u:xxxxx@h:5432/db?sslmode=disable"},
		{"postgres://u@h/db?password=hunter2&sslmode=disable", "postgres://u@h/db?password=xxxxx&sslmode=disable"},
		{"postgres://u@h/db?sslmode=require&sslpassword=hunter2", "postgres://u@h/db?sslmode=require&sslpassword=xxxxx"},
		{"postgres://u@h/db?PassWord=hunter2", "postgres://u@h/db?PassWord=xxxxx"},
		{"postgresql://u:hunter2@h/db?password=hunter3", "postgresql://u:xxxxx@h/db?password=xxxxx"},
		{"mysql://root:hunter2@127.0.0.1:3306/shop", "mysql://root:xxxxx@127.0.0.1:3306/shop"},
		{"mysql://root@127.0.0.1/shop?%70assword=hunter2", "mysql://root@127.0.0.1/shop?%70assword=xxxxx"},
		{"host=h user=u password=hunter2 dbname=db", "host=h user=u password=xxxxx dbname=db"},
		{"host=h password = 'hun ter\\'2' dbname=db", "host=h password = xxxxx dbname=db"},
		{"host=h sslpassword=hunter2", "host=h sslpassword=xxxxx"},
		{"postgres://u:hunter2@h/db?%zz=hunter2", "postgres://u:xxxxx@h/db?%zz=xxxxx"}, // a name that does not unescape may be one
		{"postgres://u@h/db", "postgres://u@h/db"},
	} {
		got := Redact(c.in)
		if got != c.want {
			t.Errorf("Redact(%q) = %q; want %q", c.in, got, c.want)
		}
		if strings.Contains(got, "hunter") || strings.Contains(got, "ter\\'2") {
			t.Errorf("Redact(%q) = %q shows the secret", c.in, got)
		}
	}
	err := redactErr(errors.New(`failed: password "hunter2" and 'hunter3'`), "postgresql://u:hunter2@h/db?password=hunter3")
	if strings.Contains(err.Error(), "hunter") {
		t.Errorf("redactErr = %v; want no secret", err)
	}
	err = redactErr(errors.New("bad: hunter2"), "host=h password=hunter2")
	if strings.Contains(err.Error(), "hunter") {
		t.Errorf("redactErr(key=value) = %v; want no secret", err)
	}
	for _, dsn := range []string{"host=h password=hunter2", "oracle://u@h/db?password=hunter2"} {
		if err := CheckDSN(dsn); err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("CheckDSN(%q) = %v; want an error without the password", dsn, err)
		}
	}
}

// A ?password= in a PostgreSQL DSN appears nowhere shardkey reports it:
// not in the catalog's source, the warnings, or an error; a parameter
// that would become a server setting is refused before connecting.
func TestPostgreSQLDSNSecrets(t *testing.T) {
	dsn, _ := pgTestDB(t)
	ctx := context.Background()
	u, _ := url.Parse(dsn)
	q := u.Query()
	q.Set("password", "hunter2secret") // trust authentication ignores it
	u.RawQuery = q.Encode()
	w := &shardkey.Workload{Seed: 1}
	if err := Read(ctx, w, u.String(), Options{SampleRows: 100}); err != nil {
		t.Fatal(err)
	}
	texts := []string{w.Catalog.Source}
	for _, e := range w.Warnings {
		texts = append(texts, e.Error())
	}
	if len(w.Warnings) == 0 {
		t.Fatal("no warnings: want at least the row sample's")
	}
	for _, s := range texts {
		if strings.Contains(s, "hunter2secret") {
			t.Errorf("the password appears in %q", s)
		}
	}
	bad := *u
	bad.Path = "/no_such_database_shardkey"
	err := Read(ctx, &shardkey.Workload{}, bad.String(), Options{})
	if err == nil || strings.Contains(err.Error(), "hunter2secret") || !strings.Contains(err.Error(), "password=xxxxx") {
		t.Errorf("connecting to a missing database: %v; want an error showing password=xxxxx", err)
	}
	for _, p := range []string{"options=-csearch_path%3Dpublic", "search_path=public&row_security=on", "default_transaction_read_only=off"} {
		err := Read(ctx, &shardkey.Workload{}, dsn+"&"+p, Options{})
		if err == nil || !strings.Contains(err.Error(), "not accepted") {
			t.Errorf("?%s: %v; want the parameter refused", p, err)
		}
	}
	// search_path picks the schema to sample.
	db, err := pgxConnect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	for _, s := range []string{"CREATE SCHEMA other", "CREATE TABLE other.things (id int)", "INSERT INTO other.things VALUES (1), (2)"} {
		if _, err := db.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	w = &shardkey.Workload{Seed: 1}
	if err := Read(ctx, w, dsn+"&search_path=other", Options{}); err != nil {
		t.Fatal(err)
	}
	if len(w.Tables) != 1 || w.Tables[0].Name != "things" || w.Tables[0].Rows != 2 {
		t.Errorf("search_path=other: tables %v; want things with 2 rows", columnsOf(w))
	}
}
