package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestAdviseKeyErrors: a bad key is reported as what it is, naming the
// flag or the spec's file, line and field.
func TestAdviseKeyErrors(t *testing.T) {
	rows := writeFile(t, "ins.csv", "id,tenant\n0,1\n1,0\n2,0\n")
	// The spec: reads by user_id and by email; the third candidate's
	// lookup names a column users does not have (line 20 of the file).
	spec := writeFile(t, "users.yaml", `name: users
shards: 4
tables:
  - name: users
    rows: 200
    columns:
      - {name: user_id, gen: sequential}
      - {name: email, gen: uniform, distinct: 200}
operations:
  - name: by id
    table: users
    rate: 100
    where: {user_id: "?"}
  - name: by email
    table: users
    rate: 10
    where: {email: "?"}
candidates:
  - hash(user_id)
  - "hash(user_id), lookup(nosuch)"
  - "hash(user_id), lookup(email)"
`)
	nocol := writeFile(t, "users.yaml", strings.Replace(readFile(t, spec), `"hash(user_id), lookup(nosuch)"`, "hash(nosuch)", 1))
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		// Rows only (an insert-only workload): the design in use names
		// no column; not "no candidate could be scored".
		{"current", []string{"advise", "--rows", rows, "--current", "hash(nosuch)"}, 2,
			`--current: key "hash(nosuch)": no table has column(s) nosuch`},
		// MongoDB's hashed shard keys hash one field: refused when -k is
		// parsed, before the (missing) rows file is read.
		{"mongo-k", []string{"score", "--rows", "/nonexistent/rows.csv", "--engine", "mongodb", "-k", "hash(id, tenant)"}, 2,
			`-k: key "hash(id, tenant)": hash(id, tenant): a MongoDB hashed shard key takes one field, not 2; write {id: "hashed", tenant: 1}`},
		{"mongo-current", []string{"advise", "--rows", "/nonexistent/rows.csv", "--engine", "mongodb", "--current", "hash(id, tenant)"}, 2,
			`--current: key "hash(id, tenant)": hash(id, tenant): a MongoDB hashed shard key takes one field`},
		// A lone lookup is explained, not an unknown function.
		{"lookup", []string{"score", "--rows", rows, "-k", "lookup(id)"}, 2,
			`lookup(col) follows a table's key, after a comma, as in hash(user_id), lookup(email)`},
		// A spec's bad lookup candidate: the file, line and field.
		{"spec-lookup", []string{"advise", "--workload", spec}, 1,
			`users.yaml:20: candidates: key "hash(user_id), lookup(nosuch)": lookup(nosuch): no table hash(user_id) places has a column "nosuch"`},
		// A spec's candidate naming no column of any table: score said
		// "users.yaml: candidates: ..." with no line; now the line (20)
		// and the column, and, as advise does, it is skipped with that
		// warning while the spec's other candidates are scored.
		{"spec-column-score", []string{"score", "--workload", nocol}, 0,
			`users.yaml:20: candidates: key "hash(nosuch)": no table has column(s) nosuch (tables: users(user_id, email)); this candidate is skipped, the others scored`},
		{"spec-column-advise", []string{"advise", "--workload", nocol, "--bootstrap", "0", "--sweep", ""}, 0,
			`/users.yaml:20: candidates: candidate hash(nosuch) skipped: key "hash(nosuch)": no table has column(s) nosuch`},
	} {
		code, _, errs := runCmd(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.want) || strings.Contains(errs, "unknown function") || strings.Contains(errs, "no candidate could be scored") {
			t.Errorf("%s: exit %d %q; want exit %d and %q", c.name, code, errs, c.code, c.want)
		}
	}
	// Without the bad line, the spec's lookup candidate is advised as
	// named (with its lookup), not cut back to its key.
	good := writeFile(t, "good.yaml", strings.Replace(readFile(t, spec), `  - "hash(user_id), lookup(nosuch)"`+"\n", "", 1))
	code, out, errs := runCmd(t, "", "advise", "--workload", good, "--bootstrap", "0", "--sweep", "", "--format", "json")
	if code != 0 {
		t.Fatalf("good spec: exit %d: %s", code, errs)
	}
	var r struct {
		Candidates []struct{ Key, Origin string }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range r.Candidates {
		found = found || c.Key == "hash(user_id), lookup(email)" || strings.Contains(c.Origin, "the same placement as hash(user_id), lookup(email)")
	}
	if !found {
		t.Errorf("the spec's candidate hash(user_id), lookup(email) is not advised: %+v", r.Candidates)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAdviseNoStatements: advise on inputs that hold tables but no
// statement has nothing to generate candidate keys from. That is a missing
// input, so a usage error (exit 2, README "Exit status") saying what was
// read and what to add, not exit 1 "no candidate keys". Here one row file
// of one table, and a fresh PostgreSQL database of one table that no
// statement has run on (its pg_stat_statements, if installed, names
// none of its tables: the CREATE, INSERT and ANALYZE are not read as
// the application's statements) [the --from case skips without a server].
func TestAdviseNoStatements(t *testing.T) {
	rows := writeFile(t, "accounts.csv", "id,region\n1,eu\n2,us\n")
	add := "; add the workload's statements: --log FILE (the server's query log) or --queries FILE (and --txns FILE), or name the keys to score with -k"
	code, _, errs := runCmd(t, "", "advise", "--rows", rows)
	if want := "shardkey advise: no statements to advise on: --rows gave the rows of 1 table but no statements" + add + "\n"; code != 2 || errs != want {
		t.Errorf("advise --rows: exit %d, %q; want exit 2, %q", code, errs, want)
	}
	// The flag is the way out: with -k it scores.
	if code, _, errs := runCmd(t, "", "advise", "--rows", rows, "-k", "hash(id)"); code != 0 {
		t.Errorf("advise --rows -k hash(id): exit %d, %s", code, errs)
	}
	dsn, _ := fromPG(t)
	code, _, errs = runCmd(t, "", "advise", "--from", dsn)
	want := "shardkey advise: no statements to advise on: --from " + dsn + " read 1 table but no statements on them (pg_stat_statements holds none or is not installed)" + add + "\n"
	if code != 2 || !strings.HasSuffix(errs, want) {
		t.Errorf("advise --from: exit %d, %q; want exit 2 and the last line %q", code, errs, want)
	}
}

// TestAdviseZeroRates: a spec whose operations all have rate 0 asks
// nothing of any shard: nothing to advise on, the same usage error (exit
// 2, README "Exit status") as inputs without statements, not exit 1 "no
// operation filters on a column" (they do filter; they never run).
func TestAdviseZeroRates(t *testing.T) {
	spec := writeFile(t, "zero.yaml", `name: zero
shards: 4
tables:
  - name: users
    rows: 100
    columns:
      - {name: id, gen: sequential}
operations:
  - name: get user
    table: users
    rate: 0
    where: {id: "?"}
`)
	code, _, errs := runCmd(t, "", "advise", "--workload", spec)
	if want := "shardkey advise: no statements to advise on: its one operation has rate 0 (requests/s) and no transaction has a rate; give their rates, or name the keys to score with -k\n"; code != 2 || errs != want {
		t.Errorf("advise on zero rates: exit %d, %q; want exit 2, %q", code, errs, want)
	}
}
