package livedb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shardkey/shardkey"
)

// myRole creates a user that can only read what the caller grants it,
// dropped when the test ends; it returns the user's name and DSN.
func myRole(t *testing.T, db *sql.DB, dsn string) (string, string) {
	t.Helper()
	ctx := context.Background()
	user := fmt.Sprintf("sk_reader_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
	if _, err := db.ExecContext(ctx, "CREATE USER '"+user+"'@'%'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := db.ExecContext(ctx, "DROP USER '"+user+"'@'%'"); err != nil {
			t.Errorf("DROP USER %s: %v", user, err)
		}
	})
	u, _ := url.Parse(dsn)
	u.User = url.User(user)
	return user, u.String()
}

func myEvidence(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), "SELECT what FROM evidence ORDER BY what")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// Issue 17's MariaDB attacks: a DSN parameter the driver turned into a
// statement before the session was read-only (?%40x=(SELECT f()) sent
// SET @x = (SELECT f()), and f's INSERT persisted); a table the user may
// not read (skipped silently before, or failing the run); a view calling
// a function.
func TestHostile_MySQL(t *testing.T) {
	dsn, db := myTestDB(t)
	ctx := context.Background()
	user, readerDSN := myRole(t, db, dsn)
	var dbname string
	if err := db.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&dbname); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE evidence (what VARCHAR(32)) ENGINE=InnoDB`,
		`CREATE FUNCTION pwn(what VARCHAR(32)) RETURNS INT MODIFIES SQL DATA SQL SECURITY DEFINER
		 BEGIN INSERT INTO evidence VALUES (what); RETURN 1; END`,
		`CREATE VIEW cheerful AS SELECT id, pwn('view') AS x FROM users`,
		`CREATE TABLE secret (id INT PRIMARY KEY, v TEXT) ENGINE=InnoDB`,
		`INSERT INTO secret VALUES (1, 'x')`,
		`CREATE TABLE partial (id INT PRIMARY KEY, ssn CHAR(11)) ENGINE=InnoDB`,
		`INSERT INTO partial VALUES (1, '078-05-1120'), (2, '219-09-9999')`,
		`GRANT SELECT ON ` + dbname + `.users TO '` + user + `'@'%'`,
		`GRANT SELECT ON ` + dbname + `.orders TO '` + user + `'@'%'`,
		`GRANT SELECT ON ` + dbname + `.cheerful TO '` + user + `'@'%'`,
		`GRANT EXECUTE ON FUNCTION ` + dbname + `.pwn TO '` + user + `'@'%'`,
		`GRANT INSERT ON ` + dbname + `.secret TO '` + user + `'@'%'`,
		`GRANT SELECT (id) ON ` + dbname + `.partial TO '` + user + `'@'%'`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// The trap is armed: the statement the driver sent for the DSN
	// parameter, and the view, write a row.
	for _, q := range []string{"SET @x = (SELECT pwn('dsn'))", "SELECT * FROM cheerful LIMIT 1"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if got := strings.Join(myEvidence(t, db), ","); got != "dsn,view" {
		t.Fatalf("traps left %q; want dsn,view: the test cannot show they are avoided", got)
	}
	if _, err := db.ExecContext(ctx, "DELETE FROM evidence"); err != nil {
		t.Fatal(err)
	}
	before := myState(t, db)

	for _, c := range []struct {
		name, dsn string
		super     bool
	}{{"root", dsn, true}, {"reader", readerDSN, false}} {
		t.Run(c.name, func(t *testing.T) {
			// DSN parameters that would become statements are refused
			// before connecting.
			for _, param := range []string{"%40x=(SELECT%20pwn('dsn'))", "sql_mode=(SELECT%20pwn('dsn'))", "autocommit=1", "password=hunter2"} {
				w := &shardkey.Workload{Seed: 3}
				err := Read(ctx, w, c.dsn+"?"+param, Options{SampleRows: 1000})
				if err == nil || !strings.Contains(err.Error(), "not accepted") {
					t.Errorf("?%s: %v; want the parameter refused", param, err)
				}
				if err != nil && strings.Contains(err.Error(), "hunter2") {
					t.Errorf("?%s: the error shows the password: %v", param, err)
				}
			}
			w := &shardkey.Workload{Seed: 3}
			if err := Read(ctx, w, c.dsn, Options{SampleRows: 1000}); err != nil {
				t.Fatal(err)
			}
			if ev := myEvidence(t, db); len(ev) > 0 {
				t.Errorf("user code ran while shardkey read the database: %v", ev)
			}
			if got := hasWarning(w, "SUPERUSER CONNECTION"); got != c.super {
				t.Errorf("superuser warning %v; want %v (warnings %v)", got, c.super, w.Warnings)
			}
			if w.Table("cheerful") != nil {
				t.Errorf("the view cheerful was sampled; want base tables only")
			}
			if u := w.Table("users"); u == nil || u.Rows != 1000 {
				t.Errorf("users = %v; want a 1000-row sample", u)
			}
			if c.super {
				if s := w.Table("secret"); s == nil || s.Rows != 1 {
					t.Errorf("secret = %v; want its row", s)
				}
				return
			}
			if w.Table("secret") != nil || !hasWarning(w, "table secret skipped", "denied") {
				t.Errorf("secret (INSERT only) not skipped with a warning: %v", w.Warnings)
			}
			if p := w.Table("partial"); p == nil || strings.Join(p.ColumnNames(), ",") != "id" || p.Rows != 2 {
				t.Errorf("partial = %v; want the id column only", p)
			}
		})
	}
	if after := myState(t, db); after != before {
		t.Errorf("database changed:\nbefore:\n%safter:\n%s", before, after)
	}
}
