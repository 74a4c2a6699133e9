package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLookupTxnPgStatStatements: a pg_stat_statements shape's lookup
// rows draw their values from the rows as its operations do. An INSERT of
// ($1,$2,$3) with hash(user_id), lookup(email) on 8 shards writes a
// lookup row on the shard of a value independent of the row's, so it is
// on the row's shard with probability 1/8: the lookup's figure (share of
// lookup rows off their row's shard) is 7/8. One kept sample scored every
// call alike: 0% or 100% (it was 100%). The export does not say which
// statements ran together, so no transaction is scored: the cross-shard
// transaction shares are unknown (null), not 0.
func TestLookupTxnPgStatStatements(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	schema := write("schema.sql", "CREATE TABLE users (user_id bigint PRIMARY KEY, email text, name text);\n")
	var rows strings.Builder
	rows.WriteString("user_id,email,name\n")
	for i := 1; i <= 400; i++ {
		fmt.Fprintf(&rows, "%d,u%d@example.com,name%d\n", i, i, i)
	}
	users := write("users.csv", rows.String())
	pgss := write("pgss.csv", "query,calls,rows\n"+
		"\"INSERT INTO users (user_id, email, name) VALUES ($1,$2,$3)\",4000,4000\n"+
		"\"SELECT * FROM users WHERE email = $1\",500,500\n")
	r := runJSON(t, "score", "--schema", schema, "--rows", "users="+users, "--log", pgss, "--shards", "8", "-k", "hash(user_id), lookup(email)")
	c := candidate(t, r, "hash(user_id), lookup(email)")
	// 4000 draws: one standard error of the share is sqrt(7/64/4000) = 0.005.
	if c.LookupCrossShardTxnFraction != nil {
		t.Errorf("lookup cross-shard transactions %v, want null (no transactions)", *c.LookupCrossShardTxnFraction)
	}
	if len(c.Lookups) != 1 || !near(c.Lookups[0].CrossShardWriteFraction, 7.0/8, 0.03) {
		t.Errorf("lookups %+v: the lookup rows' cross-shard share should be 7/8", c.Lookups)
	}
	code, out, errs := runCmd(t, "", "score", "--schema", schema, "--rows", "users="+users, "--log", pgss, "--shards", "8", "-k", "hash(user_id), lookup(email)", "--format", "json")
	if code != 0 || !strings.Contains(out, `"cross_shard_txn_fraction": null`) {
		t.Errorf("exit %d (%s): cross_shard_txn_fraction not null", code, errs)
	}
}

// TestLookupGrammarErrors: a bare lookup on a column no placed table has,
// and contradictory lookup options, are usage errors (exit 2) that say
// what is wrong; they used to score silently.
func TestLookupGrammarErrors(t *testing.T) {
	dir := t.TempDir()
	users := filepath.Join(dir, "users.csv")
	if err := os.WriteFile(users, []byte("user_id,email\n1,a@x\n2,b@x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ key, want string }{
		{"hash(user_id), lookup(nosuch)", `has a column "nosuch" (tables it places: users)`},
		{"hash(user_id), lookup(email, unique, nonunique)", "options unique and nonunique contradict"},
	} {
		code, _, errs := runCmd(t, "", "score", "--rows", "users="+users, "-k", c.key)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("-k %q: exit %d, stderr %q; want exit 2 and %q", c.key, code, errs, c.want)
		}
	}
}
