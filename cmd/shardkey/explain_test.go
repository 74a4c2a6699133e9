package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// genericShard computes the shard of an int64 key independently of sim:
// the generic engine's point mod n.
func genericShard(t *testing.T, v int64, n int) int {
	t.Helper()
	p, err := partition.Generic{}.Point([]shardkey.Value{shardkey.IntValue(v)})
	if err != nil {
		t.Fatal(err)
	}
	return int(p % uint64(n))
}

// genericShards returns the distinct shards of vs under genericShard, in
// order.
func genericShards(t *testing.T, n int, vs ...int64) []int {
	t.Helper()
	var out []int
	for _, v := range vs {
		if s := genericShard(t, v, n); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	sort.Ints(out)
	return out
}

type route struct {
	Shards  []int  `json:"shards"`
	Scatter bool   `json:"scatter"`
	Reason  string `json:"reason"`
}

func explainJSON(t *testing.T, args ...string) route {
	t.Helper()
	code, out, errs := runCmd(t, "", append([]string{"explain", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("explain %q: exit %d: %s", args, code, errs)
	}
	// The three pinned fields, and only the documented others.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("explain output %q: %v", out, err)
	}
	if raw["shards"] == nil || raw["scatter"] == nil || raw["reason"] == nil || raw["route"] == nil {
		t.Fatalf("explain output %s: want shards, scatter, reason, route", out)
	}
	for k := range raw {
		switch k {
		case "shards", "scatter", "reason", "route", "any_shard", "warnings", "version", "known_shards":
		default:
			t.Fatalf("explain output %s: unknown field %q", out, k)
		}
	}
	if string(raw["version"]) != `"devel"` {
		t.Errorf("explain output %s: version %s, want \"devel\" (a test binary has no VCS stamp)", out, raw["version"])
	}
	var r route
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestExplain_HashKey(t *testing.T) {
	r := explainJSON(t, "-k", "hash(user_id)", "SELECT * FROM posts WHERE user_id = 42")
	want := route{
		Shards: []int{genericShard(t, 42, 8)},
		Reason: "user_id = 42 binds every column of the key hash(user_id) on posts: single-shard, shard " + itoa(genericShard(t, 42, 8)),
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got %+v; want %+v", r, want)
	}
	// The same in MySQL syntax, with 16 shards.
	r = explainJSON(t, "--shards", "16", "-k", "hash(user_id)", "SELECT * FROM `posts` WHERE `user_id` = 42")
	if !reflect.DeepEqual(r.Shards, []int{genericShard(t, 42, 16)}) || r.Scatter {
		t.Errorf("mysql: got %+v", r)
	}
}

func TestExplain_Scatter(t *testing.T) {
	r := explainJSON(t, "-k", "hash(user_id)", "SELECT * FROM posts WHERE body = 'x'")
	if !r.Scatter || !reflect.DeepEqual(r.Shards, []int{0, 1, 2, 3, 4, 5, 6, 7}) || !strings.Contains(r.Reason, "scatter-gather to all 8 shards") {
		t.Errorf("got %+v", r)
	}
}

func TestExplain_InList(t *testing.T) {
	r := explainJSON(t, "-k", "hash(user_id)", "SELECT * FROM posts WHERE user_id IN (1, 2, 3, 42)")
	set := map[int]bool{}
	for _, v := range []int64{1, 2, 3, 42} {
		set[genericShard(t, v, 8)] = true
	}
	var want []int
	for s := range set {
		want = append(want, s)
	}
	sort.Ints(want)
	if r.Scatter || !reflect.DeepEqual(r.Shards, want) {
		t.Errorf("got %+v; want shards %v", r, want)
	}
}

func TestExplain_ReferenceTable(t *testing.T) {
	key := "posts:hash(user_id); users:replicate"
	r := explainJSON(t, "-k", key, "SELECT p.body FROM posts p JOIN users u ON u.id = p.user_id WHERE p.user_id = 42")
	if r.Scatter || !reflect.DeepEqual(r.Shards, []int{genericShard(t, 42, 8)}) || !strings.Contains(r.Reason, "users is a reference table") {
		t.Errorf("join with a reference table: got %+v", r)
	}
	r = explainJSON(t, "-k", key, "UPDATE users SET name = 'x' WHERE id = 42")
	if !r.Scatter || len(r.Shards) != 8 || !strings.Contains(r.Reason, "must change every copy") {
		t.Errorf("write to a reference table: got %+v", r)
	}
}

func TestExplain_Inputs(t *testing.T) {
	// With a query log as input, the table and column types come from it.
	log := filepath.Join("..", "..", "sqllog", "testdata", "pg-stderr.log")
	if _, err := os.Stat(log); err != nil {
		t.Skip(err)
	}
	r := explainJSON(t, "--log", log, "-k", "hash(user_id)", "SELECT * FROM posts WHERE user_id = 42")
	if r.Scatter || !reflect.DeepEqual(r.Shards, []int{genericShard(t, 42, 8)}) {
		t.Errorf("got %+v", r)
	}
}

func TestExplain_Errors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"explain", "-k", "hash(a)"}, 2, "give the SQL statement"},
		{[]string{"explain", "SELECT 1 FROM t"}, 2, "give one key with -k"},
		{[]string{"explain", "-k", "hash(a)", "--dialect", "oracle", "SELECT * FROM t"}, 2, "unknown dialect"},
		{[]string{"explain", "-k", "hash(a)", "SELEC * FROM t"}, 1, "neither parser accepts the statement"},
		// A bind parameter is a value known at run time (Vitess plans
		// a = :v1 as one shard): a warning, not an error.
		{[]string{"explain", "-k", "hash(a)", "SELECT * FROM t WHERE a = $1"}, 0, "bind parameters"},
		{[]string{"explain", "-k", "hash(a)", "BEGIN"}, 1, "reads or writes no table"},
	} {
		code, _, errs := runCmd(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, %q; want exit %d with %q", c.args, code, errs, c.code, c.want)
		}
	}
}

func TestExplain_Text(t *testing.T) {
	code, out, errs := runCmd(t, "", "explain", "-k", "hash(user_id)", "SELECT * FROM `posts` WHERE user_id = 42")
	if code != 0 {
		t.Fatal(errs)
	}
	for _, want := range []string{"dialect: mysql (backtick-quoted identifiers)", "shards:  " + itoa(genericShard(t, 42, 8)), "reason:  user_id = 42"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// TestExplain_BadValue: a value that does not fit its column matches no
// row (Vitess's hash vindex maps it to DestinationNone; PostgreSQL rejects
// the statement): no shard, with a warning naming the table, column and
// value.
func TestExplain_BadValue(t *testing.T) {
	_, spec, _ := runCmd(t, "", "demo", "social", "--print")
	file := filepath.Join(t.TempDir(), "social.yaml")
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "", "explain", "--format", "json", "--workload", file, "-k", "hash(user_id)", "SELECT * FROM posts WHERE user_id = 'abc'")
	if code != 0 || !strings.Contains(errs, `posts.user_id: "abc" is not an int64`) || !strings.Contains(out, `"shards":[]`) || !strings.Contains(out, `"route":"none"`) {
		t.Errorf("exit %d, %q, %q; want exit 0, no shard, a warning naming posts.user_id and \"abc\"", code, out, errs)
	}
}

// TestExplain_KeyCase: a key naming a column in another case than the
// statement does is an error listing the statement's columns, not a
// silent scatter.
func TestExplain_KeyCase(t *testing.T) {
	code, _, errs := runCmd(t, "", "explain", "-k", "posts:hash(USER_ID)", "SELECT * FROM posts WHERE user_id = 1")
	if code != 2 || !strings.Contains(errs, `no column "USER_ID" (columns: user_id)`) {
		t.Errorf("exit %d, %q", code, errs)
	}
}

// TestExplain_ReferenceRead: a read of a reference table is answered by
// any one shard, which the JSON says apart from asking none.
func TestExplain_ReferenceRead(t *testing.T) {
	code, out, errs := runCmd(t, "", "explain", "-k", "posts:hash(user_id); users:replicate", "--format", "json", "SELECT * FROM users WHERE id = 7")
	if code != 0 || !strings.Contains(out, `"shards":[]`) || !strings.Contains(out, `"any_shard":true`) {
		t.Errorf("exit %d %s: %s", code, errs, out)
	}
	_, out, _ = runCmd(t, "", "explain", "-k", "hash(user_id)", "--format", "json", "SELECT * FROM posts WHERE user_id = NULL")
	if strings.Contains(out, "any_shard") {
		t.Errorf("a statement asking no shard is marked any_shard: %s", out)
	}
}

// TestExplain_InsertSelect: INSERT ... SELECT inserts the rows the SELECT
// reads, so a key column the SELECT binds (by WHERE, a literal target, or
// an IN list) places the inserted rows on that value's shard, in both
// dialects; a target the SELECT leaves free may put rows on every shard.
func TestExplain_InsertSelect(t *testing.T) {
	three, in34 := genericShard(t, 3, 8), genericShards(t, 8, 3, 4)
	for _, dialect := range []string{"postgresql", "mysql"} {
		for _, c := range []struct {
			sql     string
			shards  []int
			scatter bool
			reason  string
		}{
			{"INSERT INTO posts (user_id, body) SELECT user_id, 'x' FROM likes WHERE user_id = 3", []int{three}, false,
				"insert posts: user_id = 3 binds every column of the key hash(user_id) on posts: single-shard, shard " + itoa(three)},
			{"INSERT INTO posts (body, user_id) SELECT 'x', l.user_id FROM likes l WHERE l.user_id IN (3, 4)", in34, false, "insert posts: user_id IN (3, 4)"},
			{"INSERT INTO posts (user_id, body) SELECT 3, body FROM drafts WHERE id = 9", []int{0, three}, false, "insert posts: user_id = 3 binds"},
			// A key column the SELECT leaves free: each row goes to its
			// own value's shard, which ones known only at run time
			// (shards null), and no scatter-gather; unless the SELECT's
			// own read of a sharded table scatters (below: a read of
			// drafts with no condition on its key asks every shard).
			{"INSERT INTO posts (user_id, body) SELECT user_id, body FROM drafts", nil, false,
				"insert posts: user_id (any value): each inserted row goes to the shard of its own value"},
			// Found by review: the bound value must be the target's own
			// table's, through a derived table's renaming, and a UNION
			// inserts the values of both arms.
			{"INSERT INTO posts (user_id) SELECT user_id FROM (SELECT draft_id AS user_id, user_id AS uid FROM drafts) x WHERE uid = 3", nil, false, "insert posts: user_id (any value)"},
			{"INSERT INTO posts (user_id) SELECT x.uid FROM (SELECT user_id AS uid FROM drafts) x WHERE x.uid = 3", []int{three}, false, "insert posts: user_id = 3"},
			{"INSERT INTO posts (user_id) SELECT a.user_id FROM drafts a, drafts b WHERE b.user_id = 3", allShardsOf(8), true, "insert posts: user_id (any value)"},
			{"INSERT INTO posts (user_id) SELECT user_id FROM drafts WHERE body IN (SELECT body FROM drafts WHERE user_id = 3)", allShardsOf(8), true, "insert posts: user_id (any value)"},
			{"INSERT INTO posts (user_id) SELECT 3 UNION SELECT 4", in34, false, "user_id IN (3, 4) routes"},
		} {
			r := explainJSON(t, "-k", "hash(user_id)", "--dialect", dialect, c.sql)
			if r.Scatter != c.scatter || !reflect.DeepEqual(r.Shards, c.shards) || !strings.HasPrefix(r.Reason, c.reason) {
				t.Errorf("%s %q:\n got %+v\nwant shards %v scatter %v, reason starting %q", dialect, c.sql, r, c.shards, c.scatter, c.reason)
			}
		}
	}
}

// unshardedAnd returns shard 0 (where an unsharded table lives) and s.
func unshardedAnd(s int) []int {
	if s == 0 {
		return []int{0}
	}
	return []int{0, s}
}

func allShardsOf(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// TestExplain_DerivedTable: a derived table that only filters one table
// (SELECT columns or * FROM t WHERE ...) is read as that table, so the
// outer query's conditions on its columns, renamed or not, route as the
// table's (pushed down, as a planner does); a derived table that groups,
// limits or computes the column keeps the conservative scatter.
func TestExplain_DerivedTable(t *testing.T) {
	three, seven, in34 := genericShard(t, 3, 8), genericShard(t, 7, 8), genericShards(t, 8, 3, 4)
	for _, dialect := range []string{"postgresql", "mysql"} {
		for _, c := range []struct {
			key, sql string
			shards   []int
		}{
			{"hash(user_id)", "SELECT * FROM (SELECT * FROM posts) t WHERE t.user_id = 3", []int{three}},
			{"hash(user_id)", "SELECT x.b FROM (SELECT user_id AS uid, body AS b FROM posts p WHERE p.id > 5) x WHERE x.uid IN (3, 4)", in34},
			{"hash(user_id)", "SELECT * FROM (SELECT body FROM posts WHERE user_id = 3) t", []int{three}},
			{"posts:hash(user_id); users:hash(id)", "SELECT * FROM users u JOIN (SELECT * FROM posts) p ON p.user_id = u.id WHERE u.id = 7", []int{seven}},
			// A condition on a grouping column is pushed below the
			// grouping (PostgreSQL's subquery_push_qual, allpaths.c):
			// the derived table reads one user's posts.
			{"hash(user_id)", "SELECT * FROM (SELECT user_id, count(*) AS n FROM posts GROUP BY user_id) t WHERE user_id = 3", []int{three}},
			{"hash(user_id)", "SELECT * FROM (SELECT * FROM posts LIMIT 5) t WHERE user_id = 3", allShardsOf(8)},
			{"hash(user_id)", "SELECT * FROM (SELECT lower(body) AS user_id FROM posts) t WHERE user_id = 3", allShardsOf(8)},
			// An outer join keeps every row of its preserved side: ON
			// binds nothing and carries nothing (found by review).
			{"hash(user_id)", "SELECT * FROM users u LEFT JOIN (SELECT * FROM posts WHERE user_id = 3) p ON p.user_id = u.user_id", allShardsOf(8)},
			{"hash(user_id)", "SELECT * FROM posts p LEFT JOIN users u ON u.user_id = p.user_id AND u.user_id = 3", allShardsOf(8)},
			// The preserved side bound, co-located tables: the ON
			// equality carries its value into the null-supplying side,
			// as Vitess merges the two routes on the vindex column.
			{"hash(user_id)", "SELECT * FROM posts p LEFT JOIN users u ON u.user_id = p.user_id WHERE p.user_id = 3", []int{three}},
			{"hash(user_id)", "SELECT * FROM posts p JOIN users u ON u.user_id = p.user_id WHERE p.user_id = 3", []int{three}},
			// Found by the regression review: USING follows a derived
			// table's renaming, and an unqualified column a derived table
			// does not show belongs to another table.
			{"posts:hash(user_id); likes:hash(user_id)", "SELECT * FROM (SELECT post_id AS user_id FROM posts) x JOIN likes USING (user_id) WHERE likes.user_id = 3", allShardsOf(8)},
			{"posts:hash(user_id)", "SELECT * FROM (SELECT post_id AS pid FROM likes) x JOIN posts p ON p.post_id = x.pid WHERE user_id = 3", unshardedAnd(three)},
		} {
			r := explainJSON(t, "-k", c.key, "--dialect", dialect, c.sql)
			if !reflect.DeepEqual(r.Shards, c.shards) || r.Scatter != (len(c.shards) == 8) {
				t.Errorf("%s %q: got %+v; want shards %v", dialect, c.sql, r, c.shards)
			}
		}
	}
}

// TestExplain_InsertSelectByPosition: without a column list, an INSERT ...
// SELECT's targets go to the table's columns in order when the inputs give
// them (a row file's header): a free one at the key's position may put rows
// on every shard, a bound one places them (found by review: both read as
// no value).
func TestExplain_InsertSelectByPosition(t *testing.T) {
	posts := writeFile(t, "posts.csv", "post_id,user_id,body\n1,42,a\n2,7,b\n")
	drafts := writeFile(t, "drafts.csv", "draft_id,user_id,body\n1,42,a\n2,7,b\n")
	key := "posts:hash(user_id); drafts:replicate"
	for _, c := range []struct {
		sql    string
		shards []int
	}{
		{"INSERT INTO posts SELECT 1, user_id, 2 FROM drafts", nil},
		{"INSERT INTO posts SELECT 1, user_id, 2 FROM drafts WHERE user_id = 42", []int{genericShard(t, 42, 8)}},
		{"INSERT INTO posts SELECT user_id, draft_id, body FROM drafts WHERE user_id = 42", nil},
	} {
		r := explainJSON(t, "--rows", posts, "--rows", drafts, "-k", key, c.sql)
		if !reflect.DeepEqual(r.Shards, c.shards) {
			t.Errorf("%q: got %+v; want shards %v", c.sql, r, c.shards)
		}
	}
}

// TestExplain_CTE: a CTE that only filters one table and is referenced
// once is read as that table where it is referenced (as PostgreSQL 12 and
// later inline it, and MySQL merges it), so outer conditions reach it; one
// referenced twice, MATERIALIZED or RECURSIVE is read as written.
func TestExplain_CTE(t *testing.T) {
	three := genericShard(t, 3, 8)
	for _, dialect := range []string{"postgresql", "mysql"} {
		for _, c := range []struct {
			sql    string
			shards []int
		}{
			{"WITH t AS (SELECT * FROM posts) SELECT * FROM t WHERE user_id = 3", []int{three}},
			{"WITH t AS (SELECT user_id AS uid FROM posts WHERE body = 'x') SELECT * FROM t WHERE uid IN (3, 4)", genericShards(t, 8, 3, 4)},
			{"WITH t AS (SELECT * FROM posts WHERE user_id = 3) SELECT * FROM t", []int{three}},
			{"WITH t AS (SELECT * FROM posts) SELECT * FROM t a JOIN t b ON a.user_id = b.user_id WHERE a.user_id = 3", allShardsOf(8)},
			{"WITH RECURSIVE t AS (SELECT * FROM posts) SELECT * FROM t WHERE user_id = 3", allShardsOf(8)},
			{"WITH t AS (SELECT user_id, count(*) AS n FROM posts GROUP BY user_id) SELECT * FROM t WHERE user_id = 3", []int{three}}, // pushed below the grouping, as PostgreSQL 12+ inlines the CTE
		} {
			r := explainJSON(t, "-k", "hash(user_id)", "--dialect", dialect, c.sql)
			if !reflect.DeepEqual(r.Shards, c.shards) {
				t.Errorf("%s %q: got %+v; want shards %v", dialect, c.sql, r, c.shards)
			}
		}
	}
	r := explainJSON(t, "-k", "hash(user_id)", "--dialect", "postgresql", "WITH t AS MATERIALIZED (SELECT * FROM posts) SELECT * FROM t WHERE user_id = 3")
	if !r.Scatter {
		t.Errorf("a MATERIALIZED CTE: got %+v; want the scatter", r)
	}
}

// TestExplain_InsertSelectEdges: found by the regression review. A SELECT
// whose WHERE binds the key to NULL reads no row, so its INSERT inserts
// none; EXCEPT inserts some of its left arm's rows; under a range key, a
// free key column may put rows on every range.
func TestExplain_InsertSelectEdges(t *testing.T) {
	three := genericShard(t, 3, 8)
	if r := explainJSON(t, "-k", "hash(user_id)", "INSERT INTO likes (user_id, post_id) SELECT user_id, post_id FROM posts WHERE user_id = NULL"); len(r.Shards) != 0 {
		t.Errorf("WHERE user_id = NULL: got %+v; want no shard", r)
	}
	r := explainJSON(t, "-k", "likes:hash(user_id)", "INSERT INTO likes (user_id, post_id) SELECT user_id, post_id FROM posts WHERE user_id = 3 EXCEPT SELECT user_id, post_id FROM posts WHERE post_id = 1")
	if !reflect.DeepEqual(r.Shards, unshardedAnd(three)) {
		t.Errorf("EXCEPT: got %+v; want shards %v", r, unshardedAnd(three))
	}
	// A VALUES arm of a UNION inserts its rows' values.
	r = explainJSON(t, "-k", "likes:hash(user_id)", "--dialect", "postgresql", "INSERT INTO likes (user_id, post_id) VALUES (1, 2) UNION SELECT 3, 4")
	if want := genericShards(t, 8, 1, 3); !reflect.DeepEqual(r.Shards, want) {
		t.Errorf("VALUES UNION SELECT: got %+v; want shards %v", r, want)
	}
	users := writeFile(t, "users.csv", "id,name\n1,a\n2,b\n3,c\n4,d\n5,e\n6,f\n7,g\n8,h\n9,i\n10,j\n")
	// A set-returning function in FROM reads no sharded table: each
	// inserted row goes to its own id's shard, ids the statement
	// computes. Which shards, and how many, is known only at run time
	// (shards null, route multi), and it is no scatter-gather, under a
	// range key or a hash key alike.
	for _, k := range []string{"users:range(id)", "users:hash(id)"} {
		code, out, errs := runCmd(t, "", "explain", "--format", "json", "--rows", users, "-k", k, "INSERT INTO users (id, name) SELECT g, 'n' FROM generate_series(1, 100) g")
		var r struct {
			Shards  []int
			Scatter bool
			Route   string
			Reason  string
		}
		if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
			t.Fatalf("explain: exit %d, %v: %s", code, err, errs)
		}
		if r.Scatter || r.Shards != nil || r.Route != "multi" || !strings.Contains(r.Reason, "known only at run time") || strings.Contains(r.Reason, "scatter-gather to") {
			t.Errorf("%s, ids from generate_series: got %+v; want no scatter, shards null, route multi, values known at run time", k, r)
		}
	}
}

// TestExplain_OneStatement: explain reads exactly one statement; two
// (which it used to merge into one answer) or none are usage errors.
func TestExplain_OneStatement(t *testing.T) {
	for _, c := range []struct {
		sql  string
		code int
		want string
	}{
		{"SELECT * FROM posts WHERE user_id = 1; DELETE FROM posts", 2, "2 statements given"},
		{"SELECT * FROM posts WHERE user_id = 1; SELECT 1;", 2, "2 statements given"},
		{"", 2, "the statement is empty"},
		{" ; ", 2, "the statement is empty"},
		{"SELECT * FROM posts WHERE user_id = 1;", 0, ""},
		{"SELECT * FROM posts WHERE body = 'a;b' AND user_id = 1", 0, ""},
	} {
		code, _, errs := runCmd(t, "", "explain", "-k", "hash(user_id)", c.sql)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("explain %q: exit %d, stderr %q; want exit %d with %q", c.sql, code, errs, c.code, c.want)
		}
	}
}

// TestExplain_UnknownTable: a table none of the inputs has is routed with
// what the statement shows, and said so on stderr and in JSON warnings; a
// table the input has draws no such warning.
func TestExplain_UnknownTable(t *testing.T) {
	log := filepath.Join("..", "..", "sqllog", "testdata", "pg-stderr.log")
	if _, err := os.Stat(log); err != nil {
		t.Skip(err)
	}
	code, out, errs := runCmd(t, "", "explain", "--format", "json", "--log", log, "-k", "hash(user_id)", "SELECT * FROM postz WHERE user_id = 42")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	// The design's own warnings (tables without the key's columns)
	// come too; one warning names postz.
	named := 0
	for _, w := range r.Warnings {
		if strings.Contains(w, "postz") {
			named++
		}
	}
	if named != 1 || !slices.ContainsFunc(r.Warnings, func(w string) bool {
		return strings.HasPrefix(w, "table postz is not in the workload "+log+" (its tables: ") && strings.Contains(w, "posts") && strings.HasSuffix(w, "): routed with the columns and types the statement shows, holding no rows (check the name, or give the input that has them)")
	}) || !strings.Contains(errs, "warning: table postz is not in the workload") {
		t.Errorf("warnings %q, stderr %q; want one naming postz in both", r.Warnings, errs)
	}
	code, out, errs = runCmd(t, "", "explain", "--format", "json", "--log", log, "-k", "hash(user_id)", "SELECT * FROM posts WHERE user_id = 42")
	if code != 0 || strings.Contains(out, "not in the workload") || strings.Contains(errs, "not in the workload") {
		t.Errorf("posts (in the log): exit %d, %s %s; want no warning", code, out, errs)
	}
}

// TestExplain_SchemaAlone: --schema without other inputs gives the
// statement's tables their declared columns (it was ignored before), so
// an INSERT without a column list binds user_id, the second declared
// column, by position: VALUES (1, 5, 'x') and INSERT ... SELECT 1,
// user_id, 'x' ... WHERE user_id = 5 both go to 5's shard, the same as
// the read of posts where user_id = 5; so does INSERT ... SELECT * FROM
// posts WHERE user_id = 5, whose * is posts' declared columns.
func TestExplain_SchemaAlone(t *testing.T) {
	schema := t.TempDir() + "/schema.sql"
	if err := os.WriteFile(schema, []byte("CREATE TABLE posts (id bigint, user_id bigint, body text);\nCREATE TABLE posts_archive (id bigint, user_id bigint, body text);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k := "posts:hash(user_id); posts_archive:hash(user_id)"
	for _, d := range []string{"postgresql", "mysql"} {
		want := explainJSON(t, "--dialect", d, "-k", k, "SELECT * FROM posts WHERE user_id = 5")
		for _, q := range []string{
			"INSERT INTO posts_archive VALUES (1, 5, 'x')",
			"INSERT INTO posts_archive SELECT 1, user_id, 'x' FROM posts WHERE user_id = 5",
			// SELECT *: posts' declared columns, in order.
			"INSERT INTO posts_archive SELECT * FROM posts WHERE user_id = 5",
			"INSERT INTO posts_archive (id, user_id, body) SELECT * FROM posts WHERE user_id = 5",
		} {
			r := explainJSON(t, "--schema", schema, "--dialect", d, "-k", k, q)
			if r.Scatter || !reflect.DeepEqual(r.Shards, want.Shards) || len(want.Shards) != 1 {
				t.Errorf("%s %q: %+v; want shards %v", d, q, r, want.Shards)
			}
		}
	}
}

// TestExplain_InsertBindParameter: an INSERT whose key value is a bind
// parameter takes the value the client sends, not one the database assigns
// (a DEFAULT or a sequence); the reason says which, in both dialects.
func TestExplain_InsertBindParameter(t *testing.T) {
	for _, stmt := range []string{
		"INSERT INTO orders (id, customer_id) VALUES (1, $1)",
		"INSERT INTO orders (id, customer_id) VALUES (1, ?)",
	} {
		r := explainJSON(t, "-k", "orders:hash(customer_id)", stmt)
		if !strings.Contains(r.Reason, "bind parameter") || strings.Contains(r.Reason, "database assigns") {
			t.Errorf("%s: reason %q, want it to name the bind parameter", stmt, r.Reason)
		}
	}
	r := explainJSON(t, "-k", "orders:hash(customer_id)", "INSERT INTO orders (id, customer_id) VALUES (1, DEFAULT)")
	if !strings.Contains(r.Reason, "database assigns") {
		t.Errorf("DEFAULT: reason %q, want a value the database assigns", r.Reason)
	}
}

// TestExplain_JSONDesignWarnings: --format json carries in warnings every
// warning text mode prints (docs/product.md: warnings in every format),
// the design's too: the VSchema's non-unique lookup name_user_map on
// user.name has no row sample, so how many shards a name's rows are on
// is unknown (docs/own-database.md section 4, Lookups).
func TestExplain_JSONDesignWarnings(t *testing.T) {
	args := []string{"explain", "--dialect", "mysql", "-k", "@testdata/vitess/vschema.json", "--engine", "vitess", "--shards", "4", "SELECT * FROM user WHERE name = 'x'"}
	code, _, errs := runCmd(t, "", args...)
	if code != 0 {
		t.Fatalf("text: exit %d: %s", code, errs)
	}
	var want []string
	for _, l := range strings.Split(errs, "\n") {
		if w, ok := strings.CutPrefix(l, "warning: "); ok {
			want = append(want, w)
		}
	}
	code, out, errs := runCmd(t, "", append([]string{args[0], "--format", "json"}, args[1:]...)...)
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	var r struct {
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "no row sample") }) {
		t.Errorf("json warnings %q: want the lookup's no-row-sample warning", r.Warnings)
	}
	slices.Sort(want)
	got := slices.Clone(r.Warnings)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("json warnings %q; text mode printed %q", got, want)
	}
}

// TestExplain_OutsideTypeWording: a key value outside the column's type
// is explained as the statement wrote it (id = 'abc', not an empty IN
// list), and under the vitess engine the warning says what Vitess's hash
// vindex maps: a signed integer by its 64-bit pattern, anything else cast
// to an unsigned 64-bit integer, so 18446744073709551615 routes and 2^64
// maps to no shard (Hash.Map, Hash.Hash in go/vt/vtgate/vindexes/hash.go).
func TestExplain_OutsideTypeWording(t *testing.T) {
	for _, c := range []struct{ sql, written string }{
		{"SELECT * FROM user WHERE id = 'abc'", "id = 'abc' matches no row"},
		{"SELECT * FROM user WHERE id IN ('abc', 'x')", "id IN ('abc', 'x') matches no row"},
		{"SELECT * FROM user WHERE id = 18446744073709551616", "id = 18446744073709551616 matches no row"},
	} {
		code, out, errs := runCmd(t, "", "explain", "--format", "json", "--dialect", "mysql", "-k", "@testdata/vitess/vschema.json", "--engine", "vitess", "--shards", "4", c.sql)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.sql, code, errs)
		}
		var r struct {
			Route    string
			Reason   string
			Warnings []string
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Route != "none" || !strings.Contains(r.Reason, c.written) || strings.Contains(r.Reason, "IN ()") {
			t.Errorf("%s: route %q reason %q; want none and %q", c.sql, r.Route, r.Reason, c.written)
		}
		if !slices.ContainsFunc(r.Warnings, func(w string) bool {
			return strings.Contains(w, "maps unsigned 64-bit integers") && !strings.Contains(w, "not an int64")
		}) {
			t.Errorf("%s: warnings %q; want the hash vindex's unsigned 64-bit domain, not int64", c.sql, r.Warnings)
		}
	}
	code, out, errs := runCmd(t, "", "explain", "--format", "json", "--dialect", "mysql", "-k", "@testdata/vitess/vschema.json", "--engine", "vitess", "--shards", "4", "SELECT * FROM user WHERE id = 18446744073709551615")
	if want := fmt.Sprintf(`"shards":[%d]`, vitessHashShard(t, 18446744073709551615, 4)); code != 0 || !strings.Contains(out, want) {
		t.Errorf("2^64-1: exit %d, %s %s; want %s", code, out, errs, want)
	}
}

// TestExplain_LookupTableUnplaced: a lookup vindex's backing table
// (params.table) that the VSchema defines no table for has rows nothing
// places, so the lookup's shard is unknown: testdata/vitess/vschema.json's
// music_user_map names name_user_vdx, which is none of its tables, so no
// lookup shard is listed and the reason says it is unknown. When the
// VSchema shards the lookup table by id with the hash vindex, the lookup
// row of id 5 is on the hash shard of 5 (vitessHashShard: 3DES of the
// value, go/vt/vtgate/vindexes/hash.go).
func TestExplain_LookupTableUnplaced(t *testing.T) {
	placed := filepath.Join(t.TempDir(), "vschema.json")
	if err := os.WriteFile(placed, []byte(`{"sharded": true,
 "vindexes": {"hash": {"type": "hash"},
   "music_user_map": {"type": "lookup_unique", "owner": "music", "params": {"table": "music_lookup", "from": "id", "to": "keyspace_id"}}},
 "tables": {"music": {"column_vindexes": [{"column": "user_id", "name": "hash"}, {"column": "id", "name": "music_user_map"}]},
   "music_lookup": {"column_vindexes": [{"column": "id", "name": "hash"}]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key     string
		lookups []int
		reason  string
	}{
		{"@testdata/vitess/vschema.json", nil, "lookup id -> keyspace id on a shard that is unknown (its lookup table name_user_vdx, which the VSchema defines no table or vindex for)"},
		{"@" + placed, []int{vitessHashShard(t, 5, 4)}, fmt.Sprintf("lookup id -> keyspace id on shard %d (the lookup table, sharded by id)", vitessHashShard(t, 5, 4))},
	} {
		code, out, errs := runCmd(t, "", "explain", "--format", "json", "--dialect", "mysql", "-k", c.key, "--engine", "vitess", "--shards", "4", "SELECT * FROM music WHERE id = 5")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.key, code, errs)
		}
		var r struct {
			Route   string
			Reason  string
			Lookups []int `json:"lookup_shards"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Route != "single" || !slices.Equal(r.Lookups, c.lookups) || !strings.Contains(r.Reason, c.reason) {
			t.Errorf("%s: route %q lookup_shards %v reason %q; want single, %v, %q", c.key, r.Route, r.Lookups, r.Reason, c.lookups, c.reason)
		}
	}
}

// TestExplain_ReferenceWritesVSchema: writes of a VSchema's reference
// table as Vitess plans them. Without a source (testdata/vitess/
// vschema.json's ref): an UPDATE or DELETE is a Route with the Reference
// opcode, any one shard (dml_cases.json "delete from reference table - no
// source"; anyShard in engine/routing.go), with a warning that nothing
// keeps the other copies in step; an INSERT is a sharded Insert
// (dml_cases.json "insert into ref") that fails when it runs, the table
// having no primary vindex (getInsertShardedQueries, engine/insert.go:
// "table 'ref' does not have a primary vindex"). With a source, every
// write goes to the source table (delete.go, update.go: "Reference table
// should update the source table"; reference_cases.json "insert into
// ambiguous_ref_with_source"): one shard.
func TestExplain_ReferenceWritesVSchema(t *testing.T) {
	src := filepath.Join(t.TempDir(), "vschema.json")
	if err := os.WriteFile(src, []byte(`{"sharded": true, "vindexes": {"hash": {"type": "hash"}},
 "tables": {"users": {"column_vindexes": [{"column": "id", "name": "hash"}]}, "ref": {"type": "reference", "source": "main.ref"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key, sql, route, reason, warning string
	}{
		{"@testdata/vitess/vschema.json", "DELETE FROM ref", "any_shard", "only that copy changes", "without a source"},
		{"@testdata/vitess/vschema.json", "UPDATE ref SET a = 1", "any_shard", "only that copy changes", "without a source"},
		{"@testdata/vitess/vschema.json", "INSERT INTO ref (id) VALUES (1)", "scatter", "table 'ref' does not have a primary vindex", "does not have a primary vindex"},
		{"@" + src, "INSERT INTO ref (id) VALUES (1)", "any_shard", "source main.ref", ""},
		{"@" + src, "DELETE FROM ref", "any_shard", "source main.ref", ""},
	} {
		code, out, errs := runCmd(t, "", "explain", "--format", "json", "--dialect", "mysql", "-k", c.key, "--engine", "vitess", "--shards", "4", c.sql)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.sql, code, errs)
		}
		var r struct {
			Route    string
			Reason   string
			Warnings []string
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		warned := slices.ContainsFunc(r.Warnings, func(w string) bool { return c.warning != "" && strings.Contains(w, c.warning) })
		if r.Route != c.route || !strings.Contains(r.Reason, c.reason) || warned != (c.warning != "") {
			t.Errorf("%s %s: route %q reason %q warnings %q; want %s, %q, warning %q", c.key, c.sql, r.Route, r.Reason, r.Warnings, c.route, c.reason, c.warning)
		}
	}
}

// TestExplain_LookupWarningOnce: the no-row-sample warning of a lookup is
// about one table's vindex, not the design: it names the table and the
// vindex (testdata/vitess/vschema.json: user's non-unique lookup
// name_user_map on Name), not the whole key; explain shows it for a
// statement of user and not for one of music (which that lookup does not
// route), and score prints it once though two designs have the lookup.
func TestExplain_LookupWarningOnce(t *testing.T) {
	const want = "warning: table user: vindex name_user_map (Vitess lookup on name): no row sample, so how many shards the rows of one name are on is unknown"
	vs := []string{"explain", "--dialect", "mysql", "-k", "@testdata/vitess/vschema.json", "--engine", "vitess", "--shards", "4"}
	code, _, errs := runCmd(t, "", append(vs, "SELECT * FROM user WHERE name = 'x'")...)
	if code != 0 || strings.Count(errs, "no row sample") != 1 || !strings.Contains(errs, want) || strings.Contains(errs, `key "`) {
		t.Errorf("user by name: exit %d, stderr %q; want one warning %q, without the key", code, errs, want)
	}
	code, out, errs := runCmd(t, "", append(vs, "--format", "json", "SELECT * FROM music WHERE id = 3")...)
	if code != 0 || strings.Contains(errs, "no row sample") || strings.Contains(out, "no row sample") {
		t.Errorf("music by id: exit %d, stdout %q, stderr %q; want no warning about user's lookup", code, out, errs)
	}
	// Two designs with the same lookup and no row sample: one warning.
	log := writeFile(t, "general.log", "/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:\nTcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock\nTime                 Id Command    Argument\n"+
		"2024-05-01T10:00:01.000000Z\t   10 Query\tSELECT * FROM users WHERE name = 'a'\n"+
		"2024-05-01T10:00:02.000000Z\t   10 Query\tSELECT * FROM users WHERE id = 7\n")
	code, _, errs = runCmd(t, "", "score", "--log", log, "--engine", "vitess", "-k", "users:hash(id), lookup(name, nonunique)", "-k", "users:range(id), lookup(name, nonunique)")
	const want2 = "warning: table users: lookup(name, nonunique): no row sample"
	if code != 0 || strings.Count(errs, want2) != 1 {
		t.Errorf("score, two designs: exit %d, stderr %q; want %q once", code, errs, want2)
	}
}

// TestExplain_LookupTableVindex: what a warning says shards a lookup
// table agrees with the VSchema. Under 4 even shards a keyspace id's shard
// is its first byte * 4 / 256; the keyspace ids of 'hello' are Vitess's
// own vectors (partition/testdata/vectors/vitess_vindexes.json, from
// go/vt/vtgate/vindexes/*_test.go at v0.24.4): xxhash a36d9f887d82c726
// (shard 2), unicode_loose_md5 e651ea773ebc5733... (shard 3).
//   - a VSchema that shards the backing table name_user_vdx by an xxhash
//     vindex: the lookup row of 'hello' is on shard 2, and no warning
//     names another vindex;
//   - a hand-written design under the hash vindex (which takes integers):
//     shard 3, by unicode_loose_md5, the vindex --emit vschema gives it,
//     as the warning says;
//   - testdata/vitess/vschema.json, which defines no table for
//     name_user_vdx: the reason says so and no warning says a vindex
//     shards it.
func TestExplain_LookupTableVindex(t *testing.T) {
	vs := writeFile(t, "vschema.json", `{"keyspaces": {"main": {"sharded": true,
 "vindexes": {"hash": {"type": "hash"}, "xx": {"type": "xxhash"},
   "name_user_map": {"type": "lookup_unique", "owner": "user", "params": {"table": "name_user_vdx", "from": "name", "to": "keyspace_id"}}},
 "tables": {"user": {"column_vindexes": [{"column": "id", "name": "hash"}, {"column": "name", "name": "name_user_map"}]},
   "name_user_vdx": {"column_vindexes": [{"column": "name", "name": "xx"}]}}}}}`)
	const sql = "SELECT * FROM user WHERE name = 'hello'"
	for _, c := range []struct {
		key          string
		lookupShards []int
		warn         string // a warning that must be there ("" none about sharding)
		reason       string
	}{
		{"@" + vs, []int{2}, "", "lookup name -> keyspace id on shard 2"},
		{"user:hash(id), lookup(name)", []int{3}, "the lookup table is scored as sharded by vitess-unicode-loose-md5 (the vindex --emit vschema gives it)", "on shard 3"},
		{"@testdata/vitess/vschema.json", nil, "", "its lookup table name_user_vdx, which the VSchema defines no table or vindex for"},
	} {
		code, out, errs := runCmd(t, "", "explain", "--format", "json", "--dialect", "mysql", "--engine", "vitess", "--shards", "4", "-k", c.key, sql)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.key, code, errs)
		}
		var r struct {
			Reason       string   `json:"reason"`
			LookupShards []int    `json:"lookup_shards"`
			Warnings     []string `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.LookupShards, c.lookupShards) || !strings.Contains(r.Reason, c.reason) {
			t.Errorf("%s: lookup shards %v, reason %q; want %v and %q", c.key, r.LookupShards, r.Reason, c.lookupShards, c.reason)
		}
		sharding := slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "sharded by") })
		if c.warn == "" && sharding || c.warn != "" && !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, c.warn) }) {
			t.Errorf("%s: warnings %q; want %q", c.key, r.Warnings, c.warn)
		}
	}
}

// TestExplainSchemaUnknownTable: under --schema, a statement on a table
// the schema does not declare fails with exit 1, naming the table and the
// schema file, and prints no route (it used to be routed from the
// statement's own columns, single-shard on user_id = 4). A table another
// input has (--rows comments=...) is not held against the schema; one in
// neither is the same error, saying the other inputs lack it too. A CTE's
// name and a schema-qualified or unquoted upper-case name of a declared
// table are no unknown tables (PostgreSQL folds POSTS to posts).
func TestExplainSchemaUnknownTable(t *testing.T) {
	schema := writeFile(t, "blog.sql", "CREATE TABLE posts (post_id bigint PRIMARY KEY, user_id bigint, body text);\n")
	comments := writeFile(t, "comments.csv", "comment_id,post_id,user_id\n1,1,4\n2,1,5\n")
	for _, c := range []struct {
		args []string
		code int
		want string // in stderr when code is 1
	}{
		{[]string{"SELECT * FROM postz WHERE user_id = 4"}, 1, "table postz is not in --schema " + schema + " (it declares posts)"},
		{[]string{"INSERT INTO postz (user_id) VALUES (4)"}, 1, "table postz is not in --schema"},
		{[]string{"--format", "json", "SELECT * FROM posts p JOIN comments c ON c.post_id = p.post_id WHERE p.user_id = 4"}, 1, "table comments is not in --schema"},
		{[]string{"--rows", "comments=" + comments, "SELECT * FROM comments WHERE user_id = 4"}, 0, ""},
		{[]string{"--rows", "comments=" + comments, "SELECT * FROM likes WHERE user_id = 4"}, 1, "table likes is not in --schema " + schema + " (it declares posts) nor in the other inputs"},
		{[]string{"SELECT * FROM posts WHERE user_id = 4"}, 0, ""},
		{[]string{"SELECT * FROM POSTS WHERE user_id = 4"}, 0, ""},
		{[]string{"SELECT * FROM public.posts WHERE user_id = 4"}, 0, ""},
		{[]string{"WITH mine AS (SELECT * FROM posts WHERE user_id = 4) SELECT * FROM mine"}, 0, ""},
	} {
		args := append([]string{"explain", "--schema", schema, "-k", "hash(user_id)"}, c.args...)
		code, out, errs := runCmd(t, "", args...)
		if code != c.code {
			t.Errorf("%v: exit %d; want %d\n%s%s", c.args, code, c.code, out, errs)
			continue
		}
		if c.code == 1 && (!strings.Contains(errs, c.want) || out != "") {
			t.Errorf("%v: stdout %q, stderr %q; want no route and %q", c.args, out, errs, c.want)
		}
	}
}
