package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/vtgate/vindexes"
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

// undefinedLookupVSchema: users' lookup_unique email_lkp names a backing
// table, users_email_lkp, that the VSchema does not define; accounts'
// lookup login_lkp has its table login_lkp_t defined in an unsharded
// keyspace, which shards it by no vindex.
const undefinedLookupVSchema = `{"keyspaces": {
 "main": {"sharded": true,
  "vindexes": {
   "user_index": {"type": "hash"},
   "email_lkp": {"type": "lookup_unique", "owner": "users", "params": {"table": "users_email_lkp", "from": "email", "to": "keyspace_id"}},
   "login_lkp": {"type": "lookup_unique", "owner": "accounts", "params": {"table": "lk.login_lkp_t", "from": "login", "to": "keyspace_id"}}},
  "tables": {
   "users": {"column_vindexes": [{"column": "user_id", "name": "user_index"}, {"column": "email", "name": "email_lkp"}]},
   "accounts": {"column_vindexes": [{"column": "user_id", "name": "user_index"}, {"column": "login", "name": "login_lkp"}]}}},
 "lk": {"tables": {"login_lkp_t": {}}}}}`

// TestVSchemaLookupTablePlacementWarned: a lookup whose backing table the
// VSchema does not define has rows nothing places (Vitess would fail to
// write them: the table is not in the VSchema), and one whose table is
// unsharded is not placed by a vindex: shardkey's placement of them is
// an assumption, and every output format says so in a warning naming
// the vindex and the table. The first is reported with engine
// "unknown", not the design's engine.
func TestVSchemaLookupTablePlacementWarned(t *testing.T) {
	dir := t.TempDir()
	vs := filepath.Join(dir, "vs.json")
	logf := filepath.Join(dir, "general.log")
	var stmts []string
	for i := 1; i <= 8; i++ {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO users (user_id, email) VALUES (%d, 'u%d@x.com')", i, i),
			fmt.Sprintf("SELECT * FROM users WHERE email = 'u%d@x.com'", i),
			fmt.Sprintf("INSERT INTO accounts (user_id, login) VALUES (%d, 'L%d')", i, i))
	}
	for f, s := range map[string]string{vs: undefinedLookupVSchema, logf: mariaLog(stmts)} {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	undefined := []string{"vindex email_lkp", "users_email_lkp", "does not define"}
	assumed := []string{"vindex login_lkp", "lk.login_lkp_t", "assumption"}
	has := func(s string, parts []string) bool {
		for _, p := range parts {
			if !strings.Contains(s, p) {
				return false
			}
		}
		return true
	}
	for _, format := range []string{"table", "json", "markdown", "html"} {
		// score has no html format: advise's page is checked instead.
		args := []string{"score", "--format", format, "--shards", "4", "--log", logf, "-k", "@" + vs}
		if format == "html" {
			args = []string{"advise", "--format", format, "--bootstrap", "0", "--shards", "4", "--log", logf, "-k", "@" + vs}
		}
		code, out, errs := runCmd(t, "", args...)
		if code != 0 {
			t.Fatalf("%s --format %s: exit %d\n%s", args[0], format, code, errs)
		}
		if format == "table" {
			// The table's warnings are standard error's "warning:"
			// lines (checked below).
			out = errs
		}
		for _, w := range [][]string{undefined, assumed} {
			if !has(errs, w) {
				t.Errorf("score --format %s: stderr lacks a warning with %q:\n%s", format, w, errs)
			}
			// The output's own text may wrap or escape: look for the
			// vindex name and the word that says what is wrong.
			if !strings.Contains(out, w[0]) || !strings.Contains(out, w[2]) {
				t.Errorf("score --format %s: output lacks the warning %q", format, w)
			}
		}
		if format == "json" {
			var doc struct {
				Candidates []struct {
					Lookups []struct {
						Column  string `json:"column"`
						Engine  string `json:"engine"`
						Table   string `json:"lookup_table"`
						Assumed bool   `json:"engine_assumed"`
					} `json:"lookups"`
				} `json:"candidates"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Candidates) != 1 {
				t.Fatalf("score json: %v\n%s", err, out)
			}
			for _, l := range doc.Candidates[0].Lookups {
				switch l.Column {
				case "email":
					if l.Engine != "unknown" || l.Table != "users_email_lkp" {
						t.Errorf("email lookup: engine %q table %q; want unknown, users_email_lkp", l.Engine, l.Table)
					}
				case "login":
					if !l.Assumed || l.Table != "lk.login_lkp_t" {
						t.Errorf("login lookup: assumed %v table %q; want true, lk.login_lkp_t", l.Assumed, l.Table)
					}
				}
			}
		}
	}
	code, out, errs := runCmd(t, "", "explain", "--format", "json", "--dialect", "mysql", "--shards", "4", "-k", "@"+vs, "INSERT INTO users (user_id, email) VALUES (1, 'a@x.com')")
	if code != 0 || !has(errs, undefined) || !strings.Contains(out, "users_email_lkp") {
		t.Errorf("explain: exit %d, stderr %q; want the warning on email_lkp\n%s", code, errs, out)
	}
}

// TestLookupNullWriteWarned: an INSERT or UPDATE that sets an owned
// lookup column to NULL is refused by Vitess unless the vindex has
// ignore_nulls (the expected behaviour is Vitess's own: its lookup_unique
// vindex's Create fails with VT03028 on a NULL, and writes nothing
// without error with ignore_nulls "true"); shardkey warns, once per
// vindex, and not when ignore_nulls is set.
func TestLookupNullWriteWarned(t *testing.T) {
	for _, c := range []struct {
		params  map[string]string
		refuses bool
	}{
		{map[string]string{"table": "t", "from": "email", "to": "keyspace_id"}, true},
		{map[string]string{"table": "t", "from": "email", "to": "keyspace_id", "ignore_nulls": "true"}, false},
	} {
		vx, err := vindexes.CreateVindex("lookup_unique", "email_lkp", c.params)
		if err != nil {
			t.Fatal(err)
		}
		err = vx.(vindexes.Lookup).Create(context.Background(), nil, [][]sqltypes.Value{{sqltypes.NULL}}, [][]byte{{1}}, false)
		if got := err != nil && strings.Contains(err.Error(), "VT03028"); got != c.refuses {
			t.Fatalf("Vitess lookup_unique %v Create(NULL): %v; the test assumes refuses=%v", c.params, err, c.refuses)
		}
		vsText := strings.Replace(lookupVSchema, `"to": "keyspace_id"}`, `"to": "keyspace_id"`+map[bool]string{true: `}`, false: `, "ignore_nulls": "true"}`}[c.refuses], 1)
		dir := t.TempDir()
		vs := filepath.Join(dir, "vs.json")
		logf := filepath.Join(dir, "general.log")
		stmts := []string{
			"INSERT INTO users (user_id, email) VALUES (1, NULL)",
			"INSERT INTO users (user_id, email) VALUES (2, NULL)",
			"UPDATE users SET email = NULL WHERE user_id = 3",
			"INSERT INTO users (user_id, email) VALUES (4, 'd@x.com')",
			"SELECT * FROM accounts WHERE login = 'a'",
		}
		for f, s := range map[string]string{vs: vsText, logf: mariaLog(stmts)} {
			if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, _, errs := runCmd(t, "", "score", "--shards", "4", "--log", logf, "-k", "@"+vs)
		if code != 0 {
			t.Fatalf("score: exit %d\n%s", code, errs)
		}
		if n := strings.Count(errs, "VT03028"); c.refuses && n != 1 || !c.refuses && n != 0 {
			t.Errorf("ignore_nulls=%v: %d warnings with VT03028; want %d:\n%s", !c.refuses, n, map[bool]int{true: 1}[c.refuses], errs)
		}
		for _, sql := range []string{"INSERT INTO users (user_id, email) VALUES (1, NULL)", "UPDATE users SET email = NULL WHERE user_id = 3"} {
			code, _, errs := runCmd(t, "", "explain", "--dialect", "mysql", "--shards", "4", "-k", "@"+vs, sql)
			if code != 0 || strings.Contains(errs, "VT03028") != c.refuses {
				t.Errorf("ignore_nulls=%v: explain %s: exit %d, stderr %q; want a VT03028 warning: %v", !c.refuses, sql, code, errs, c.refuses)
			}
		}
	}
}

// TestLookupUpdateReadsVindexFirst: an UPDATE that assigns an owned
// lookup column costs, in vtgate (Update.TryExecute and
// updateVindexEntries, go/vt/vtgate/engine/update.go; lookupInternal.Update,
// go/vt/vtgate/vindexes/lookup_internal.go), the SELECT ... FOR UPDATE
// of the rows' vindex columns on every shard the update goes to, the
// delete of the old lookup row and the insert of the new one (one shard
// each, one row), and the update itself on its shards. By hand, on 4
// shards: by the key, 1 + 1 + 1 + 1 = 4 units; by another column
// (scatter), 4 + 4 + 1 + 1 = 10.
func TestLookupUpdateReadsVindexFirst(t *testing.T) {
	dir := t.TempDir()
	vs := filepath.Join(dir, "vs.json")
	logf := filepath.Join(dir, "general.log")
	stmts := []string{
		"INSERT INTO users (user_id, name, email) VALUES (9, 'z', 'z@x.com')",
		"UPDATE users SET email = 'n@x.com' WHERE user_id = 3",
		"UPDATE users SET email = 'm@x.com' WHERE name = 'bob'",
		"SELECT * FROM accounts WHERE login = 'a'",
	}
	for f, s := range map[string]string{vs: lookupVSchema, logf: mariaLog(stmts)} {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := runCmd(t, "", "score", "--format", "json", "--shards", "4", "--log", logf, "-k", "@"+vs)
	if code != 0 {
		t.Fatalf("score: exit %d\n%s", code, errs)
	}
	var doc struct {
		Candidates []struct {
			Operations []struct {
				Name string  `json:"name"`
				Work float64 `json:"work_per_s"`
			} `json:"operations"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Candidates) != 1 {
		t.Fatalf("score json: %v\n%s", err, out)
	}
	want := map[string]float64{"update users where user_id = ?": 4, "update users where name = ?": 10}
	for _, o := range doc.Candidates[0].Operations {
		if w, ok := want[o.Name]; ok {
			if !near(o.Work, w, 1e-9) {
				t.Errorf("%s: %v units/s; want %v", o.Name, o.Work, w)
			}
			delete(want, o.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("operations missing: %v", want)
	}
}

// TestUnicodeLooseINOneKeyspaceID: under unicode_loose_md5, 'abc' and
// 'ABC' are one keyspace id (Vitess's own vindex maps both to the same
// bytes), so login IN ('abc', 'ABC') asks one shard: a single route,
// as IN (3, 3) is; 'abc' and 'abd' are two keys.
func TestUnicodeLooseINOneKeyspaceID(t *testing.T) {
	vx, err := vindexes.CreateVindex("unicode_loose_md5", "login_index", nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := vx.(vindexes.SingleColumn).Map(context.Background(), nil, []sqltypes.Value{sqltypes.NewVarChar("abc"), sqltypes.NewVarChar("ABC")})
	if err != nil || len(d) != 2 || d[0].String() != d[1].String() {
		t.Fatalf("Vitess's unicode_loose_md5: %v, %v; the test assumes one keyspace id", d, err)
	}
	dir := t.TempDir()
	vs := filepath.Join(dir, "vs.json")
	if err := os.WriteFile(vs, []byte(mixedVSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	abc, abd := realVitessShard(t, "unicode_loose_md5", sqltypes.NewVarChar("abc")), realVitessShard(t, "unicode_loose_md5", sqltypes.NewVarChar("abd"))
	for _, c := range []struct {
		sql    string
		shards []int
		route  string
	}{
		{"SELECT * FROM accounts WHERE login IN ('abc', 'ABC')", []int{abc}, "single"},
		{"SELECT * FROM accounts WHERE login IN ('abc', 'abc  ')", []int{abc}, "single"},
		{"SELECT * FROM accounts WHERE login IN ('abc', 'abd')", sortedInts(abc, abd), map[bool]string{true: "single", false: "multi"}[abc == abd]},
	} {
		code, out, errs := runCmd(t, "", "explain", "--format", "json", "--dialect", "mysql", "--shards", "8", "-k", "@"+vs, c.sql)
		var r struct {
			Shards []int  `json:"shards"`
			Route  string `json:"route"`
		}
		if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
			t.Fatalf("%s: exit %d %v\n%s%s", c.sql, code, err, out, errs)
		}
		if jsonInts(r.Shards) != jsonInts(c.shards) || r.Route != c.route {
			t.Errorf("%s: shards %v route %s; want %v %s", c.sql, r.Shards, r.Route, c.shards, c.route)
		}
	}
}

func sortedInts(a, b int) []int {
	switch {
	case a == b:
		return []int{a}
	case a < b:
		return []int{a, b}
	}
	return []int{b, a}
}

// TestPrefixedLiteralsRoute: a literal with a character set introducer
// and a COLLATE clause (MySQL) is its value: Vitess's planner
// translates it with evalengine (makeEvalEngineExpr,
// go/vt/vtgate/planbuilder/operators/sharded_routing.go) and routes by
// the column's vindex, so login = _utf8mb4'abc' COLLATE
// utf8mb4_general_ci goes to unicode_loose_md5('abc')'s shard (Vitess's
// own vindex). PostgreSQL's U&'d\0061t\+000061' is 'data' (the example
// of PostgreSQL's manual, "String Constants With Unicode Escapes"), so
// it routes as 'data' does.
func TestPrefixedLiteralsRoute(t *testing.T) {
	dir := t.TempDir()
	vs := filepath.Join(dir, "vs.json")
	if err := os.WriteFile(vs, []byte(mixedVSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	type route struct {
		Shards []int  `json:"shards"`
		Route  string `json:"route"`
		Reason string `json:"reason"`
	}
	explain := func(args ...string) route {
		t.Helper()
		code, out, errs := runCmd(t, "", append([]string{"explain", "--format", "json"}, args...)...)
		var r route
		if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
			t.Fatalf("%v: exit %d %v\n%s%s", args, code, err, out, errs)
		}
		return r
	}
	abc := realVitessShard(t, "unicode_loose_md5", sqltypes.NewVarChar("abc"))
	for _, sql := range []string{
		"SELECT * FROM accounts WHERE login = _utf8mb4'abc' COLLATE utf8mb4_general_ci",
		"SELECT * FROM accounts WHERE login = 'abc' COLLATE utf8mb4_bin",
		"SELECT * FROM accounts WHERE login IN (_utf8mb4'abc' COLLATE utf8mb4_bin, _latin1'ABC')",
	} {
		r := explain("--dialect", "mysql", "--shards", "8", "-k", "@"+vs, sql)
		if jsonInts(r.Shards) != jsonInts([]int{abc}) || r.Route != "single" {
			t.Errorf("%s: shards %v route %s (%s); want [%d] single", sql, r.Shards, r.Route, r.Reason, abc)
		}
	}
	want := explain("--dialect", "postgresql", "--shards", "8", "-k", "hash(login)", "SELECT * FROM accounts WHERE login = 'data'")
	for _, sql := range []string{
		`SELECT * FROM accounts WHERE login = U&'d\0061t\+000061'`,
		`SELECT * FROM accounts WHERE login = u&'d\0061ta'`,
	} {
		got := explain("--dialect", "postgresql", "--shards", "8", "-k", "hash(login)", sql)
		if jsonInts(got.Shards) != jsonInts(want.Shards) || got.Route != "single" || !strings.Contains(got.Reason, "'data'") {
			t.Errorf("%s: shards %v route %s (%s); want %v single, as login = 'data'", sql, got.Shards, got.Route, got.Reason, want.Shards)
		}
	}
}
