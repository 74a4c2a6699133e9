package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vitess.io/vitess/go/sqltypes"
)

// lookupVSchema: users keyed by the hash vindex on user_id with an owned
// lookup_unique on email, whose backing table users_email_lkp is sharded
// by unicode_loose_md5 on email; accounts keyed by unicode_loose_md5 on
// login. One sharded keyspace.
const lookupVSchema = `{"sharded": true,
 "vindexes": {
   "user_index": {"type": "hash"},
   "login_index": {"type": "unicode_loose_md5"},
   "email_index": {"type": "unicode_loose_md5"},
   "email_lkp": {"type": "lookup_unique", "owner": "users", "params": {"table": "users_email_lkp", "from": "email", "to": "keyspace_id"}}},
 "tables": {
   "users": {"column_vindexes": [{"column": "user_id", "name": "user_index"}, {"column": "email", "name": "email_lkp"}]},
   "users_email_lkp": {"column_vindexes": [{"column": "email", "name": "email_index"}]},
   "accounts": {"column_vindexes": [{"column": "login", "name": "login_index"}]}}}`

// mariaLog returns a MariaDB general log of the statements, one session.
func mariaLog(stmts []string) string {
	var b strings.Builder
	b.WriteString("/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1 (Debian 12). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n261130 23:05:19\t    11 Quit\t\n")
	for _, s := range stmts {
		b.WriteString("\t\t    12 Query\t" + s + "\n")
	}
	return b.String()
}

// TestAdviseCurrentVSchemaLikeForLike: advise --current @vschema.json on
// a workload whose cross-shard transactions all come from the email
// lookup (each users insert writes its lookup row on the shard
// unicode_loose_md5(email) gives, usually not the row's hash(user_id)
// shard) must not recommend re-keying accounts to user_id because the
// candidate drops the lookup. The expected cross-shard share is computed
// with Vitess's own vindexes (hash, unicode_loose_md5): an insert
// crosses when the two shards differ; an accounts insert never does.
// Every generated candidate that keys users by user_id carries
// lookup(email) and shows that same share, and the design in use is kept
// (it serves the login reads on one shard; hash(user_id) scatters them).
func TestAdviseCurrentVSchemaLikeForLike(t *testing.T) {
	dir := t.TempDir()
	vs := filepath.Join(dir, "vs.json")
	logf := filepath.Join(dir, "general.log")
	var stmts []string
	crossing, txns := 0, 0
	for i := 1; i <= 48; i++ {
		u, e := int64(1000+i*7), fmt.Sprintf("u%d@x.com", i)
		stmts = append(stmts, fmt.Sprintf("INSERT INTO users (user_id, email) VALUES (%d, '%s')", u, e))
		txns++
		if realVitessShard(t, "hash", sqltypes.NewInt64(u)) != realVitessShard(t, "unicode_loose_md5", sqltypes.NewVarChar(e)) {
			crossing++
		}
		stmts = append(stmts, fmt.Sprintf("SELECT * FROM users WHERE user_id = %d", u))
		if i%4 == 0 {
			stmts = append(stmts, fmt.Sprintf("INSERT INTO accounts (login, user_id) VALUES ('L%d', %d)", i, u))
			txns++
		}
		if i%2 == 0 {
			stmts = append(stmts, fmt.Sprintf("SELECT * FROM accounts WHERE login = 'L%d'", i))
		}
	}
	for f, s := range map[string]string{vs: lookupVSchema, logf: mariaLog(stmts)} {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := float64(crossing) / float64(txns)
	if crossing == 0 {
		t.Fatalf("no users insert crosses shards: the test proves nothing")
	}
	code, out, errs := runCmd(t, "", "advise", "--format", "json", "--shards", "8", "--bootstrap", "0", "--log", logf, "--current", "@"+vs)
	if code != 0 {
		t.Fatalf("advise: exit %d\n%s", code, errs)
	}
	var doc struct {
		InUse      string `json:"in_use"`
		KeepInUse  bool   `json:"keep_in_use"`
		Candidates []struct {
			Key   string `json:"key"`
			Score struct {
				Cross float64 `json:"cross_shard_txn_fraction"`
			} `json:"score"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("advise json: %v\n%s", err, out)
	}
	if !doc.KeepInUse {
		t.Errorf("keep_in_use false: the advice changes the design in use %s to %s", doc.InUse, doc.Candidates[0].Key)
	}
	for _, c := range doc.Candidates {
		usersByID := c.Key == doc.InUse || strings.Contains(c.Key, "users:hash(user_id)") || strings.HasPrefix(c.Key, "hash(user_id)")
		if !usersByID {
			continue
		}
		if c.Key != doc.InUse && !strings.Contains(c.Key, "lookup(email)") {
			t.Errorf("candidate %s keys users by user_id without the lookup(email) of the design in use", c.Key)
		}
		if !near(c.Score.Cross, want, 1e-9) {
			t.Errorf("candidate %s: cross-shard transactions %v; want %d/%d = %v (Vitess's vindexes)", c.Key, c.Score.Cross, crossing, txns, want)
		}
	}
}
