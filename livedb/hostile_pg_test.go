package livedb

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shardkey/shardkey"
)

// The tests in this file are issue 17's attacks on --from: a database
// whose owner attaches code to what a reader touches. Every trap calls
// public.pwn(what), which, as a superuser (SECURITY DEFINER), writes a row
// that persists whatever the caller's transaction does (dblink_exec opens
// its own connection) and runs a shell command (COPY ... TO PROGRAM) that
// creates a file. Each test first springs its traps the way the old
// reader's queries did, to show they are armed, then reads the database
// as a superuser and as a role that can only read, and checks that no row
// was written and no file created.

// pgRole creates a login role that is not a superuser, with CONNECT on the
// test database and USAGE on public; grants are the caller's. It is
// dropped when the test ends. It returns the role's name and DSN.
func pgRole(t *testing.T, db *pgx.Conn, dsn string) (string, string) {
	t.Helper()
	ctx := context.Background()
	role := fmt.Sprintf("shardkey_reader_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
	admin, err := pgx.Connect(ctx, pgAdminDSN())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE ROLE "+role+" LOGIN NOSUPERUSER NOBYPASSRLS"); err != nil {
		admin.Close(ctx)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// DROP OWNED revokes its privileges here and on the database.
		if _, err := db.Exec(ctx, "DROP OWNED BY "+role); err != nil {
			t.Errorf("DROP OWNED BY %s: %v", role, err)
		}
		if _, err := admin.Exec(ctx, "DROP ROLE "+role); err != nil {
			t.Errorf("DROP ROLE %s: %v", role, err)
		}
		admin.Close(ctx)
	})
	var dbname string
	if err := db.QueryRow(ctx, "SELECT current_database()").Scan(&dbname); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"GRANT CONNECT ON DATABASE " + dbname + " TO " + role,
		"GRANT USAGE ON SCHEMA public TO " + role,
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	u, _ := url.Parse(dsn)
	u.User = url.User(role)
	return role, u.String()
}

// pgTrap installs public.pwn and its evidence: the table public.evidence
// and a directory the server may write files into. It returns the
// directory.
func pgTrap(t *testing.T, db *pgx.Conn) string {
	t.Helper()
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "shardkey-pwn-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil { // the server's user writes here
		t.Fatal(err)
	}
	var dbname string
	if err := db.QueryRow(ctx, "SELECT current_database()").Scan(&dbname); err != nil {
		t.Fatal(err)
	}
	cfg, _ := pgx.ParseConfig(pgAdminDSN())
	conninfo := fmt.Sprintf("host=%s port=%d dbname=%s user=%s", cfg.Host, cfg.Port, dbname, cfg.User)
	for _, q := range []string{
		`CREATE EXTENSION dblink`,
		`CREATE TABLE public.evidence (what text)`,
		`GRANT SELECT ON public.evidence TO PUBLIC`,
		fmt.Sprintf(`CREATE FUNCTION public.pwn(what text) RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER
		  SET search_path = pg_catalog, public AS $$
		BEGIN
		  PERFORM public.dblink_exec(%s, 'INSERT INTO public.evidence VALUES (' || quote_literal(what) || ')');
		  EXECUTE format('COPY (SELECT 1) TO PROGRAM %%L', 'cat > ' || %s || '/' || what);
		  RETURN true;
		END $$`, quoteLiteral(conninfo), quoteLiteral(dir)),
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return dir
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// pgEvidence returns what the traps left: rows of public.evidence and
// files in dir, sorted.
func pgEvidence(t *testing.T, db *pgx.Conn, dir string) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	rows, err := db.Query(ctx, "SELECT 'row ' || what FROM public.evidence")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	rows.Close()
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		out = append(out, "file "+f.Name())
	}
	sort.Strings(out)
	return out
}

// pgClearEvidence empties the evidence after the traps were shown armed.
func pgClearEvidence(t *testing.T, db *pgx.Conn, dir string) {
	t.Helper()
	if _, err := db.Exec(context.Background(), "DELETE FROM public.evidence"); err != nil {
		t.Fatal(err)
	}
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		os.Remove(filepath.Join(dir, f.Name()))
	}
}

// springAs runs q in a read-only transaction on a new connection to dsn
// (errors ignored: a trap may fire and then fail).
func springAs(t *testing.T, dsn string, q string) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	tx, err := c.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, q)
	if err == nil {
		for rows.Next() {
		}
		rows.Close()
	}
}

func hasWarning(w *shardkey.Workload, parts ...string) bool {
	for _, e := range w.Warnings {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(e.Error(), p)
		}
		if ok {
			return true
		}
	}
	return false
}

// pgAttack is one of issue 17's attacks: SQL that sets the trap (run as a
// superuser; {role} is the reader role, {dir} the evidence directory and
// {db} the database), queries that spring it (as the superuser, or as the
// reader when asReader), and checks on what each role's read returns.
type pgAttack struct {
	name     string
	setup    []string
	spring   []string
	asReader bool
	fires    []string // evidence the springs leave
	check    func(t *testing.T, w *shardkey.Workload, super bool)
}

var pgAttacks = []pgAttack{{
	// The old sample read every column as "col"::text: a cast from the
	// owner's type to text ran once per row.
	name: "cast",
	setup: []string{
		`CREATE TYPE public.mood AS ENUM ('happy', 'sad')`,
		`CREATE FUNCTION public.mood_text(public.mood) RETURNS text LANGUAGE plpgsql AS $$
		 BEGIN PERFORM public.pwn('cast'); RETURN 'x'; END $$`,
		`CREATE CAST (public.mood AS text) WITH FUNCTION public.mood_text(public.mood)`,
		`CREATE DOMAIN public.feeling AS public.mood`,
		`CREATE TYPE public.pair AS (a int, m public.mood)`,
		`CREATE FUNCTION public.pair_text(public.pair) RETURNS text LANGUAGE plpgsql AS $$
		 BEGIN PERFORM public.pwn('cast'); RETURN 'x'; END $$`,
		`CREATE CAST (public.pair AS text) WITH FUNCTION public.pair_text(public.pair)`,
		`CREATE TABLE public.feelings (id int PRIMARY KEY, m public.mood, d public.feeling, ms public.mood[], p public.pair)`,
		`INSERT INTO public.feelings SELECT i, m, m, ARRAY[m], ROW(i, m)::public.pair FROM (SELECT i, (ARRAY['happy', 'sad'])[1 + i % 2]::public.mood m FROM generate_series(1, 3) i) s`,
		`GRANT SELECT ON public.feelings TO {role}`,
	},
	spring: []string{`SELECT "m"::text FROM "feelings"`},
	fires:  []string{"cast"},
	check: func(t *testing.T, w *shardkey.Workload, super bool) {
		f := w.Table("feelings")
		if f == nil || f.Rows != 3 || len(f.Columns) != 5 {
			t.Fatalf("feelings = %+v; want 3 rows of 5 columns", f)
		}
		// Read through the enum's built-in output: id i is happy when i
		// is even.
		for i := 0; i < f.Rows; i++ {
			want := map[bool]string{true: "happy", false: "sad"}[f.Column("id").Value(i).Int%2 == 0]
			m, d, ms, p := f.Column("m").Value(i).Str, f.Column("d").Value(i).Str, f.Column("ms").Value(i).Str, f.Column("p").Value(i).Str
			if m != want || d != want || ms != "{"+want+"}" || p != fmt.Sprintf("(%d,%s)", f.Column("id").Value(i).Int, want) {
				t.Errorf("row %d: m %q d %q ms %q p %q; want %s", i, m, d, ms, p, want)
			}
		}
	},
}, {
	// Functions and an operator that shadow pg_catalog's in every
	// session whose search_path puts public first.
	name: "search_path",
	setup: []string{
		`CREATE FUNCTION public.format_type(oid, integer) RETURNS text LANGUAGE plpgsql AS $$
		 BEGIN PERFORM public.pwn('format_type'); RETURN 'x'; END $$`,
		`CREATE FUNCTION public.current_setting(text) RETURNS text LANGUAGE plpgsql AS $$
		 BEGIN PERFORM public.pwn('current_setting'); RETURN 'x'; END $$`,
		`CREATE FUNCTION public.current_schema() RETURNS name LANGUAGE plpgsql AS $$
		 BEGIN PERFORM public.pwn('current_schema'); RETURN 'public'; END $$`,
		`CREATE FUNCTION public.oid_eq(oid, oid) RETURNS boolean LANGUAGE plpgsql AS $$
		 BEGIN PERFORM public.pwn('operator'); RETURN $1 OPERATOR(pg_catalog.=) $2; END $$`,
		`CREATE OPERATOR public.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = public.oid_eq)`,
		`ALTER DATABASE {db} SET search_path = public, pg_catalog`,
	},
	spring:   []string{`SELECT format_type(23, -1), current_setting('server_version'), current_schema(), 1::oid = 1::oid`},
	asReader: true,
	fires:    []string{"format_type", "current_setting", "current_schema", "operator"},
	check: func(t *testing.T, w *shardkey.Workload, super bool) {
		if u := w.Table("users"); u == nil || u.Rows != 1000 {
			t.Errorf("users = %v; want a 1000-row sample", u)
		}
	},
}, {
	// A table named like a catalog table: an unqualified name reads
	// pg_catalog's.
	name: "catalog_name",
	setup: []string{
		`CREATE TABLE public.pg_class (id int)`,
		`INSERT INTO public.pg_class SELECT generate_series(1, 7)`,
		`GRANT SELECT ON public.pg_class TO {role}`,
	},
	check: func(t *testing.T, w *shardkey.Workload, super bool) {
		if p := w.Table("pg_class"); p == nil || p.Rows != 7 || strings.Join(p.ColumnNames(), ",") != "id" {
			t.Errorf("pg_class = %v; want the user's table: 7 rows, column id", p)
		}
	},
}, {
	name: "view",
	setup: []string{
		`CREATE VIEW public.cheerful AS SELECT id, public.pwn('view') AS x FROM public.users`,
		`GRANT SELECT ON public.cheerful TO {role}`,
	},
	spring: []string{`SELECT * FROM public.cheerful LIMIT 1`},
	fires:  []string{"view"},
	check: func(t *testing.T, w *shardkey.Workload, super bool) {
		if w.Table("cheerful") != nil {
			t.Errorf("the view cheerful was sampled; want base tables only")
		}
	},
}, {
	// Row-level security whose policy calls a function.
	name: "policy",
	setup: []string{
		`CREATE TABLE public.guarded (id int PRIMARY KEY, v text)`,
		`INSERT INTO public.guarded SELECT i, 'v' || i FROM generate_series(1, 5) i`,
		`ALTER TABLE public.guarded ENABLE ROW LEVEL SECURITY`,
		`CREATE POLICY everyone ON public.guarded USING (public.pwn('policy'))`,
		`GRANT SELECT ON public.guarded TO {role}`,
	},
	spring:   []string{`SELECT * FROM public.guarded`},
	asReader: true,
	fires:    []string{"policy"},
	check: func(t *testing.T, w *shardkey.Workload, super bool) {
		if super { // a superuser bypasses row-level security: no policy runs
			if g := w.Table("guarded"); g == nil || g.Rows != 5 {
				t.Errorf("guarded = %v; want its 5 rows", g)
			}
		} else if w.Table("guarded") != nil || !hasWarning(w, "table guarded skipped", "row-level security") {
			t.Errorf("guarded (row-level security) not skipped with a warning: %v", w.Warnings)
		}
	},
}, {
	// A partition that is a foreign table running a program, and an
	// inheritance child that is one.
	name: "foreign",
	setup: []string{
		`CREATE EXTENSION file_fdw`,
		`CREATE SERVER files FOREIGN DATA WRAPPER file_fdw`,
		`CREATE TABLE public.events (id int, k int) PARTITION BY RANGE (id)`,
		`CREATE TABLE public.events_a PARTITION OF public.events FOR VALUES FROM (0) TO (100)`,
		`INSERT INTO public.events_a VALUES (1, 1), (2, 2)`,
		`CREATE FOREIGN TABLE public.events_b PARTITION OF public.events FOR VALUES FROM (100) TO (200)
		   SERVER files OPTIONS (program 'touch {dir}/partition; echo 150,1', format 'csv')`,
		`CREATE TABLE public.base (id int)`,
		`INSERT INTO public.base VALUES (1), (2), (3), (4)`,
		`CREATE FOREIGN TABLE public.child () INHERITS (public.base)
		   SERVER files OPTIONS (program 'touch {dir}/child; echo 9', format 'csv')`,
		`GRANT SELECT ON public.events, public.base, public.child TO {role}`,
	},
	spring: []string{`SELECT * FROM public.events`, `SELECT * FROM public.base`},
	fires:  []string{"file partition", "file child"},
	check: func(t *testing.T, w *shardkey.Workload, super bool) {
		if b := w.Table("base"); b == nil || b.Rows != 4 {
			t.Errorf("base = %v; want its own 4 rows (not the foreign child's)", b)
		}
		if w.Table("events") != nil || !hasWarning(w, "table events skipped", "foreign table") {
			t.Errorf("events (a foreign partition) not skipped with a warning: %v", w.Warnings)
		}
	},
}, {
	// A table the reader may not read, and a column it may not read.
	name: "permissions",
	setup: []string{
		`CREATE TABLE public.secret (id int, v text)`,
		`INSERT INTO public.secret VALUES (1, 'x')`,
		`CREATE TABLE public.partial (id int, ssn text)`,
		`INSERT INTO public.partial VALUES (1, '078-05-1120'), (2, '219-09-9999')`,
		`GRANT SELECT (id) ON public.partial TO {role}`,
	},
	check: func(t *testing.T, w *shardkey.Workload, super bool) {
		if super {
			if s := w.Table("secret"); s == nil || s.Rows != 1 {
				t.Errorf("secret = %v; want its row", s)
			}
			if p := w.Table("partial"); p == nil || len(p.Columns) != 2 {
				t.Errorf("partial = %v; want both columns", p)
			}
			return
		}
		if w.Table("secret") != nil || !hasWarning(w, "table secret skipped", "permission denied") {
			t.Errorf("secret (no privilege) not skipped with a warning: %v", w.Warnings)
		}
		if p := w.Table("partial"); p == nil || strings.Join(p.ColumnNames(), ",") != "id" || p.Rows != 2 ||
			!hasWarning(w, "table partial", "ssn", "permission denied") {
			t.Errorf("partial = %v; want its id column only, and a warning about ssn: %v", p, w.Warnings)
		}
		if u := w.Table("users"); u == nil || u.Rows != 1000 {
			t.Errorf("users = %v; want a 1000-row sample", u)
		}
	},
}}

func TestHostile_PostgreSQL(t *testing.T) {
	for _, a := range pgAttacks {
		t.Run(a.name, func(t *testing.T) {
			dsn, db := pgTestDB(t)
			ctx := context.Background()
			dir := pgTrap(t, db)
			role, readerDSN := pgRole(t, db, dsn)
			var dbname string
			if err := db.QueryRow(ctx, "SELECT current_database()").Scan(&dbname); err != nil {
				t.Fatal(err)
			}
			for _, q := range append(a.setup, "GRANT SELECT ON public.users, public.orders TO {role}", "ANALYZE") {
				q = strings.NewReplacer("{role}", role, "{dir}", dir, "{db}", dbname).Replace(q)
				if _, err := db.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			// The trap is armed: the old reader's queries (or plain ones
			// any reader could send) set it off.
			springDSN := dsn
			if a.asReader {
				springDSN = readerDSN
			}
			for _, q := range a.spring {
				springAs(t, springDSN, q)
			}
			armed := strings.Join(pgEvidence(t, db, dir), ", ")
			for _, want := range a.fires {
				if !strings.HasPrefix(want, "file ") && !strings.Contains(armed, "row "+want) {
					t.Fatalf("trap %q wrote no row when sprung (evidence: %s)", want, armed)
				}
				if f := strings.TrimPrefix(want, "file "); !strings.Contains(armed, "file "+f) {
					t.Fatalf("trap %q ran no program when sprung (evidence: %s)", want, armed)
				}
			}
			pgClearEvidence(t, db, dir)
			settle()
			before := pgState(t, db)
			for _, c := range []struct {
				name, dsn string
				super     bool
			}{{"superuser", dsn, true}, {"reader", readerDSN, false}} {
				t.Run(c.name, func(t *testing.T) {
					w := &shardkey.Workload{Seed: 3}
					if err := Read(ctx, w, c.dsn, Options{SampleRows: 1000}); err != nil {
						t.Fatal(err)
					}
					if ev := pgEvidence(t, db, dir); len(ev) > 0 {
						t.Errorf("user code ran while shardkey read the database: %v", ev)
						pgClearEvidence(t, db, dir)
					}
					if got := hasWarning(w, "SUPERUSER CONNECTION"); got != c.super {
						t.Errorf("superuser warning %v; want %v (warnings %v)", got, c.super, w.Warnings)
					}
					a.check(t, w, c.super)
				})
			}
			settle()
			if after := pgState(t, db); after != before {
				t.Errorf("database changed:\nbefore:\n%safter:\n%s", before, after)
			}
		})
	}
}
