package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLookupTxnPgStatStatements: a pg_stat_statements shape's
// transactions draw their values from the rows as its operations do. An
// INSERT of ($1,$2,$3) with hash(user_id), lookup(email) on 8 shards
// writes a lookup row on the shard of a value independent of the row's,
// so it is single-shard with probability 1/8: cross-shard transactions
// 7/8 (87.5%), all of them due to the lookup, and the lookup's own figure
// (share of lookup rows off their row's shard) the same. One kept sample
// scored every call alike: 0% or 100% (it was 100%).
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
	if !near(c.CrossShardTxnFraction, 7.0/8, 0.03) {
		t.Errorf("cross-shard transactions %.3f, want 7/8 = 0.875", c.CrossShardTxnFraction)
	}
	if c.LookupCrossShardTxnFraction == nil || !near(*c.LookupCrossShardTxnFraction, 7.0/8, 0.03) {
		t.Errorf("lookup cross-shard transactions %v, want 0.875", c.LookupCrossShardTxnFraction)
	}
	if len(c.Lookups) != 1 || !near(c.Lookups[0].CrossShardWriteFraction, c.CrossShardTxnFraction, 0.03) {
		t.Errorf("lookups %+v: the lookup rows' cross-shard share should match the transactions' (%.3f)", c.Lookups, c.CrossShardTxnFraction)
	}
	// The bare key: the insert is one row on one shard.
	r = runJSON(t, "score", "--schema", schema, "--rows", "users="+users, "--log", pgss, "--shards", "8", "-k", "hash(user_id)")
	if c := candidate(t, r, "hash(user_id)"); c.CrossShardTxnFraction != 0 {
		t.Errorf("bare key: cross-shard transactions %.3f, want 0", c.CrossShardTxnFraction)
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
