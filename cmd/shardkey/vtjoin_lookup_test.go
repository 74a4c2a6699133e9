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

// joinLookupVSchema: users keyed by the hash vindex on id with a
// consistent_lookup_unique (or, nonUnique, consistent_lookup) vindex on
// login, backed by users_login_lkp sharded by unicode_loose_md5; orders
// keyed by the same hash vindex on user_id, so an order is on its user's
// shard. One sharded keyspace.
func joinLookupVSchema(nonUnique bool) string {
	typ := "consistent_lookup_unique"
	if nonUnique {
		typ = "consistent_lookup"
	}
	return `{"sharded": true,
 "vindexes": {
   "hash": {"type": "hash"},
   "md5": {"type": "unicode_loose_md5"},
   "login_lkp": {"type": "` + typ + `", "owner": "users", "params": {"table": "users_login_lkp", "from": "login", "to": "keyspace_id"}}},
 "tables": {
   "users": {"column_vindexes": [{"column": "id", "name": "hash"}, {"column": "login", "name": "login_lkp"}]},
   "orders": {"column_vindexes": [{"column": "user_id", "name": "hash"}]},
   "users_login_lkp": {"column_vindexes": [{"column": "login", "name": "md5"}]}}}`
}

// TestJoinThroughLookupIsOneRoute: SELECT ... FROM users u JOIN orders o
// ON o.user_id = u.id WHERE u.login = 'w'. vtgate routes users by the
// lookup on login (one keyspace id, EqualUnique) and, since orders.user_id
// and users.id are under the same unique hash vindex, merges the join into
// that one route (join_merging.go and sharded_routing.go,
// tryMergeShardedRouting; route_planning.go, canMergeOnFilter), so the
// statement asks one shard: the shard of user 'w' (id 4). Worked by hand
// with Vitess's own vindexes: hash(4) is the keyspace id d2fd8867...,
// shard 0xd2/32 = 6 of 8; the lookup row of 'w' is on the shard
// unicode_loose_md5('w') gives. Each read's fan-out in score is 1.00 (it
// was 8 for orders, a scatter). With orders keyed by its own order_id
// the join does not merge: orders stays a scatter (fan-out 8). A merged
// statement is one request (one route), not one per table.
func TestJoinThroughLookupIsOneRoute(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	users := write("users.csv", "id,login\n1,x\n2,y\n3,abc\n4,w\n")
	orders := write("orders.csv", "order_id,user_id\n10,1\n11,2\n12,3\n13,4\n")
	logins := []string{"x", "y", "abc", "w"}
	var stmts []string
	for _, l := range logins {
		stmts = append(stmts, fmt.Sprintf("SELECT o.order_id FROM users u JOIN orders o ON o.user_id = u.id WHERE u.login = '%s'", l))
	}
	logf := write("general.log", mariaLog(stmts))
	userShard := realVitessShard(t, "hash", sqltypes.NewInt64(4))
	if userShard != 6 {
		t.Fatalf("hash(4) on shard %d; worked by hand: 6", userShard)
	}
	lkpShard := realVitessShard(t, "unicode_loose_md5", sqltypes.NewVarChar("w"))

	for _, nonUnique := range []bool{false, true} {
		vs := write(fmt.Sprintf("vs%v.json", nonUnique), joinLookupVSchema(nonUnique))
		code, out, errs := runCmd(t, "", "explain", "--dialect", "mysql", "--rows", users, "--rows", orders, "--shards", "8", "-k", "@"+vs, "--format", "json", stmts[3])
		if code != 0 {
			t.Fatalf("explain: exit %d: %s", code, errs)
		}
		var rt struct {
			Shards  []int  `json:"shards"`
			Scatter bool   `json:"scatter"`
			Route   string `json:"route"`
			Reason  string `json:"reason"`
			Lookup  []int  `json:"lookup_shards"`
		}
		if err := json.Unmarshal([]byte(out), &rt); err != nil {
			t.Fatal(err)
		}
		// (consistent_lookup: Vitess's Equal opcode, the shards of every
		// keyspace id the lookup returns: one row's here.)
		wantRoute := "single"
		if rt.Scatter || rt.Route != wantRoute || len(rt.Shards) != 1 || rt.Shards[0] != userShard || len(rt.Lookup) != 1 || rt.Lookup[0] != lkpShard {
			t.Errorf("non-unique %v: explain %+v; want route %s on shard %d, lookup shard %d", nonUnique, rt, wantRoute, userShard, lkpShard)
		}
		lk := "lookup(login, consistent)"
		if nonUnique {
			lk = "lookup(login, nonunique, consistent)"
		}
		want := fmt.Sprintf("read orders: no condition binds the key hash(user_id, vindex=hash) on orders, but orders.user_id = users.id joins it with the read of users, which %s routes to shard %d (one route with the read of users: orders.user_id and users.id are the keys of their tables by the same unique vindex hash", lk, userShard)
		if !strings.Contains(rt.Reason, want) {
			t.Errorf("non-unique %v: reason %q\nwant it to say %q", nonUnique, rt.Reason, want)
		}

		r := runJSON(t, "score", "--rows", users, "--rows", orders, "--log", logf, "--shards", "8", "-k", "@"+vs)
		if len(r.Candidates) != 1 {
			t.Fatalf("%d candidates", len(r.Candidates))
		}
		c := r.Candidates[0]
		if c.FanoutMean != 1 {
			t.Errorf("non-unique %v: fan-out mean %.2f; want 1.00", nonUnique, c.FanoutMean)
		}
		// One route a statement, one request: the orders read rides in
		// the users route (merged_per_s), not a request of its own.
		users, merged := 0.0, 0.0
		for _, o := range c.Operations {
			if o.FanoutMean != 1 || o.ScatterFraction != 0 {
				t.Errorf("non-unique %v: %s: fan-out %.2f, scatter %.2f; want 1.00 and 0", nonUnique, o.Name, o.FanoutMean, o.ScatterFraction)
			}
			if strings.HasPrefix(o.Name, "read orders") {
				if o.RequestsPerS != 0 {
					t.Errorf("non-unique %v: %s: %v requests/s; want 0 (one route with the users read)", nonUnique, o.Name, o.RequestsPerS)
				}
				merged += o.MergedPerS
			} else {
				users += o.RequestsPerS
			}
		}
		if users == 0 || merged != users || c.RequestsPerS != users {
			t.Errorf("non-unique %v: users %v requests/s, orders %v merged/s, design %v requests/s; want one request a statement", nonUnique, users, merged, c.RequestsPerS)
		}
	}

	// Control: orders keyed by its own order_id. users.id and
	// orders.user_id are no longer under one vindex, so the routes do not
	// merge and orders, which nothing binds, is read on every shard.
	r := runJSON(t, "score", "--engine", "vitess", "--rows", users, "--rows", orders, "--log", logf, "--shards", "8", "-k", "users:hash(id), lookup(login); orders:hash(order_id)")
	c := r.Candidates[0]
	for _, o := range c.Operations {
		want := 1.0
		if strings.HasPrefix(o.Name, "read orders") {
			want = 8
		}
		if o.FanoutMean != want {
			t.Errorf("control: %s: fan-out %.2f; want %.0f", o.Name, o.FanoutMean, want)
		}
	}
}

// TestHexLiteralAndCollateRouting: vtgate plans X'616263' as any literal
// (makeEvalEngineExpr, operators/sharded_routing.go) whose value is the
// VARBINARY of its bytes (evalengine NewLiteralBinaryFromHex), and the
// vindex maps those bytes: unicode_loose_md5 hashes them as 'abc', hash
// parses them as a decimal number (X'3432' is "42"). The expected shards
// are Vitess's own vindexes applied to that VARBINARY value. A column
// under COLLATE is no bare column, so planEqualOp and planInOp plan no
// vindex for it: a scatter, whose reason says the column is compared in
// a way that binds no value, not that there is no condition on it.
func TestHexLiteralAndCollateRouting(t *testing.T) {
	dir := t.TempDir()
	users := filepath.Join(dir, "users.csv")
	if err := os.WriteFile(users, []byte("id,login\n1,x\n2,y\n3,abc\n4,w\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type route struct {
		Shards  []int  `json:"shards"`
		Scatter bool   `json:"scatter"`
		Route   string `json:"route"`
		Reason  string `json:"reason"`
		Lookup  []int  `json:"lookup_shards"`
	}
	explain := func(engine, key, sql string) route {
		t.Helper()
		code, out, errs := runCmd(t, "", "explain", "--dialect", "mysql", "--rows", users, "--shards", "8", "--engine", engine, "-k", key, "--format", "json", sql)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", sql, code, errs)
		}
		var rt route
		if err := json.Unmarshal([]byte(out), &rt); err != nil {
			t.Fatal(err)
		}
		return rt
	}
	bin := func(s string) sqltypes.Value { return sqltypes.MakeTrusted(sqltypes.VarBinary, []byte(s)) }

	abc := realVitessShard(t, "unicode_loose_md5", bin("abc"))
	for _, sql := range []string{"SELECT * FROM users WHERE login = X'616263'", "SELECT * FROM users WHERE login = x'616263'"} {
		if rt := explain("vitess-unicode-loose-md5", "users:hash(login)", sql); rt.Route != "single" || len(rt.Shards) != 1 || rt.Shards[0] != abc {
			t.Errorf("%s: %+v; want shard %d", sql, rt, abc)
		}
	}
	// Through the lookup: the row whose login is 'abc' (id 3).
	id3 := realVitessShard(t, "hash", sqltypes.NewInt64(3))
	if rt := explain("vitess", "users:hash(id), lookup(login)", "SELECT * FROM users WHERE login = X'616263'"); rt.Route != "single" || len(rt.Shards) != 1 || rt.Shards[0] != id3 {
		t.Errorf("lookup: %+v; want shard %d (id 3)", rt, id3)
	}
	{
		n := realVitessShard(t, "hash", bin("42"))
		if rt := explain("vitess", "users:hash(id)", "SELECT * FROM users WHERE id = X'3432'"); rt.Route != "single" || len(rt.Shards) != 1 || rt.Shards[0] != n {
			t.Errorf("X'3432': %+v; want shard %d", rt, n)
		}
	}

	const loose = "only compared in ways that bind no value (<>, NOT IN, a cast of the column, a COLLATE on it"
	for _, sql := range []string{
		"SELECT * FROM users WHERE login COLLATE utf8mb4_bin = 'abc'",
		"SELECT * FROM users WHERE login COLLATE utf8mb4_bin IN ('abc', 'y')",
	} {
		rt := explain("vitess-unicode-loose-md5", "users:hash(login)", sql)
		if !rt.Scatter || !strings.Contains(rt.Reason, "the key column(s) login are "+loose) {
			t.Errorf("%s (key): %+v", sql, rt)
		}
		rt = explain("vitess", "users:hash(id), lookup(login)", sql)
		if !rt.Scatter || !strings.Contains(rt.Reason, "the column(s) of lookup(login) are "+loose) {
			t.Errorf("%s (lookup): %+v", sql, rt)
		}
	}
	// The value's COLLATE is the value's: routed as login = 'abc'.
	if rt := explain("vitess-unicode-loose-md5", "users:hash(login)", "SELECT * FROM users WHERE login = 'abc' COLLATE utf8mb4_bin"); rt.Route != "single" || len(rt.Shards) != 1 || rt.Shards[0] != abc {
		t.Errorf("value COLLATE: %+v; want shard %d", rt, abc)
	}
}
