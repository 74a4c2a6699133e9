package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// vitessFirstByte is the first byte of the keyspace id Vitess's hash
// vindex gives the integers 1..6: the known answers of Vitess's own test,
// go/vt/vtgate/vindexes/hash_test.go (TestHashMap). Under N shards split
// into even keyspace-id ranges (N = 2, 4, 8), the value's shard is
// firstByte * N / 256.
var vitessFirstByte = map[int]int{1: 0x16, 2: 0x06, 3: 0x4e, 4: 0xd2, 5: 0x70, 6: 0xf0}

// vitessShards returns the shards of values (from 1..6) under n shards.
func vitessShards(n int, values ...int) []int {
	seen := map[int]bool{}
	out := []int{}
	for _, v := range values {
		sh := vitessFirstByte[v] * n / 256
		if !seen[sh] {
			seen[sh] = true
			out = append(out, sh)
		}
	}
	sort.Ints(out)
	return out
}

func distinct(xs []int) int {
	seen := map[int]bool{}
	for _, x := range xs {
		seen[x] = true
	}
	return len(seen)
}

type routed struct {
	Shards      []int  `json:"shards"` // nil for null: known only at run time
	KnownShards []int  `json:"known_shards"`
	Scatter     bool   `json:"scatter"`
	Reason      string `json:"reason"`
	Route       string `json:"route"`
	AnyShard    bool   `json:"any_shard"`
}

// routeCase is one statement and where the engine's router sends it,
// derived from the engine's rules (cited per class), not from shardkey:
// the key values it routes by (their shards from Vitess's vectors), or a
// route kind that lists no values (scatter, none, any_shard, or single
// with the shard known only at run time).
type routeCase struct {
	dialect string // "" for both
	design  string // "" for hash(id)
	sql     string
	values  []int  // the key values the router routes by
	kind    string // when values is nil: scatter, none, any_shard, single (run-time value)
	reason  string // a text the reason must contain
	noText  string // a text the reason must not contain
}

func checkRoutes(t *testing.T, cases []routeCase) {
	t.Helper()
	for _, c := range cases {
		for _, d := range []string{"postgresql", "mysql"} {
			if c.dialect != "" && c.dialect != d {
				continue
			}
			for _, n := range []int{2, 4, 8} {
				design := c.design
				if design == "" {
					design = "hash(id)"
				}
				code, out, errs := runCmd(t, "", "explain", "--format", "json", "--engine", "vitess", "--shards", fmt.Sprint(n),
					"--dialect", d, "-k", design, c.sql)
				if code != 0 {
					t.Errorf("%s %d shards %q: exit %d: %s", d, n, c.sql, code, errs)
					continue
				}
				var r routed
				if err := json.Unmarshal([]byte(out), &r); err != nil {
					t.Fatalf("%s: %v", out, err)
				}
				wantShards, wantKind, wantScatter := []int{}, c.kind, false
				switch {
				case c.values != nil:
					// Vitess names a route by one key value EqualUnique
					// (single), by several IN (multi), whatever shards
					// they share.
					wantShards = vitessShards(n, c.values...)
					wantKind = "multi"
					if distinct(c.values) == 1 {
						wantKind = "single"
					}
				case c.kind == "scatter":
					wantShards, wantScatter = allShardsOf(n), true
				case c.kind == "single" || c.kind == "multi":
					// Shards known only at run time: null, not [].
					wantShards = nil
				}
				if !reflect.DeepEqual(r.Shards, wantShards) || r.Route != wantKind || r.Scatter != wantScatter || (wantKind == "any_shard") != r.AnyShard {
					t.Errorf("%s %d shards %q:\n got shards %v route %q scatter %v any_shard %v (%s)\nwant shards %v route %q scatter %v",
						d, n, c.sql, r.Shards, r.Route, r.Scatter, r.AnyShard, r.Reason, wantShards, wantKind, wantScatter)
				}
				if c.reason != "" && !strings.Contains(r.Reason, c.reason) || c.noText != "" && strings.Contains(r.Reason, c.noText) {
					t.Errorf("%s %q: reason %q; want it to contain %q and not %q", d, c.sql, r.Reason, c.reason, c.noText)
				}
			}
		}
	}
}

// TestRouting_Boolean: Vitess rewrites the WHERE into conjunctive normal
// form and turns ORs of equalities on one column into IN lists
// (operators/sharded_routing.go tryImprove; sqlparser.ExtractINFromOR),
// folding constant expressions with its evalengine; Citus prunes each
// disjunct and unions the shards (planner/shard_pruning.c). So an OR binds
// the key when every disjunct does, NOT is pushed to its atoms, and a
// constant false disjunct drops out.
func TestRouting_Boolean(t *testing.T) {
	checkRoutes(t, []routeCase{
		{sql: "SELECT * FROM t WHERE id = 1 OR id = 2 OR id = 3", values: []int{1, 2, 3}},
		{sql: "SELECT * FROM t WHERE id = 1 OR (id = 2 OR id = 6)", values: []int{1, 2, 6}},
		{sql: "SELECT * FROM t WHERE id IN (1, 2) OR id IN (5)", values: []int{1, 2, 5}},
		{sql: "SELECT * FROM t WHERE (id = 5 AND a = 'x') OR (id = 5 AND b = 'y')", values: []int{5}},
		{sql: "SELECT * FROM t WHERE (id = 1 OR id = 4) AND a = 7", values: []int{1, 4}},
		{sql: "SELECT * FROM t WHERE (id = 1 OR a = 2) AND id = 3", values: []int{3}},
		{sql: "SELECT * FROM t WHERE (id = 1 AND a = 2) OR (id = 6 AND b = 3) OR (id = 2 AND c = 4)", values: []int{1, 6, 2}},
		{sql: "SELECT * FROM t WHERE NOT (id <> 4)", values: []int{4}},
		{sql: "SELECT * FROM t WHERE NOT (id <> 4 OR a = 1)", values: []int{4}},
		{sql: "SELECT * FROM t WHERE NOT (id NOT IN (1, 6))", values: []int{1, 6}},
		{sql: "SELECT * FROM t WHERE NOT (id = 4)", kind: "scatter", reason: "bind no value", noText: "no condition on the key"},
		{sql: "SELECT * FROM t WHERE id NOT IN (1, 2) AND a = 3", kind: "scatter", reason: "bind no value", noText: "no condition on the key"},
		{sql: "SELECT * FROM t WHERE id = 2 + 3", values: []int{5}},
		{sql: "SELECT * FROM t WHERE id = 3 * 2", values: []int{6}},
		{sql: "SELECT * FROM t WHERE id = 10 - 7", values: []int{3}},
		{sql: "SELECT * FROM t WHERE id = 1 OR 1 = 0", values: []int{1}},
		{sql: "SELECT * FROM t WHERE id = abs(-5)", values: []int{5}},
		{sql: "SELECT * FROM t WHERE id = +4", values: []int{4}},
		{sql: "SELECT * FROM t WHERE id = coalesce(NULL, 3)", values: []int{3}},
		{sql: "SELECT * FROM t WHERE id = greatest(1, 6, 2)", values: []int{6}},
		{sql: "SELECT * FROM t WHERE id = 4 AND 1 = 1", values: []int{4}},
		{sql: "SELECT * FROM t WHERE 1 = 1 AND (id = 2 OR 2 > 3)", values: []int{2}},
		{sql: "SELECT * FROM t WHERE id = 42 OR a = 7", kind: "scatter", reason: "OR", noText: "no condition on the key"},
		{sql: "SELECT * FROM t WHERE user_id = 42 OR post_id = 7", design: "hash(user_id)", kind: "scatter", reason: "OR", noText: "no condition on the key"},
		{sql: "UPDATE t SET a = 1 WHERE id = 1 OR id = 5", values: []int{1, 5}},
		{sql: "DELETE FROM t WHERE NOT (id <> 3)", values: []int{3}},
	})
}

// TestRouting_None: a WHERE that holds for no row asks no shard. Vitess's
// UpdateRoutingLogic (operators/route.go) returns a NoneRouting for a
// constant false predicate, any comparison with a literal NULL, IN (NULL)
// and NOT IN (..., NULL); its hash vindex maps NULL and values outside its
// integer domain to DestinationNone (vindexes/hash.go Map), so they route
// nowhere while the list's other values still route.
func TestRouting_None(t *testing.T) {
	checkRoutes(t, []routeCase{
		{sql: "SELECT * FROM t WHERE 1 = 0", kind: "none"},
		{sql: "SELECT * FROM t WHERE false", kind: "none"},
		{dialect: "mysql", sql: "SELECT * FROM t WHERE 0", kind: "none"},
		{dialect: "mysql", sql: "SELECT * FROM t WHERE 1 AND id = 2", values: []int{2}},
		{sql: "SELECT * FROM t WHERE id = 5 AND 1 = 0", kind: "none"},
		{sql: "SELECT * FROM t WHERE id = NULL", kind: "none"},
		{sql: "SELECT * FROM t WHERE id IN (NULL)", kind: "none"},
		{sql: "SELECT * FROM t WHERE a NOT IN (1, NULL)", kind: "none"},
		{sql: "SELECT * FROM t WHERE id IS NULL", kind: "none"},
		{sql: "SELECT * FROM t WHERE id = 1 AND id = 2", kind: "none"},
		{sql: "SELECT * FROM t WHERE id IN (NULL, 4)", values: []int{4}},
		{sql: "SELECT * FROM t WHERE id = 1 OR id = NULL", values: []int{1}},
		{sql: "SELECT * FROM t WHERE (id = 3 AND 1 = 0) OR id = 6", values: []int{6}},
		{sql: "SELECT * FROM t WHERE id = 'abc'", kind: "none"},
		{sql: "SELECT * FROM t WHERE id IN ('abc', 3)", values: []int{3}},
		{sql: "DELETE FROM t WHERE 1 = 0", kind: "none"},
		{sql: "INSERT INTO t (id, a) SELECT id, a FROM u WHERE 1 = 0", kind: "none"},
	})
}

// TestRouting_Pushdown: PostgreSQL pulls simple subqueries up into the
// outer query (pull_up_subqueries, optimizer/prep/prepjointree.c) and
// inlines a CTE referenced once; Vitess pushes predicates through derived
// tables into the route; MySQL merges derived tables. Each UNION arm is
// routed on its own and the statement asks the union of their shards
// (Vitess's Union operator over its inputs' routes).
func TestRouting_Pushdown(t *testing.T) {
	checkRoutes(t, []routeCase{
		{sql: "SELECT id FROM (SELECT id FROM (SELECT id FROM t) a) b WHERE id = 5", values: []int{5}},
		{sql: "SELECT x FROM (SELECT id AS x FROM (SELECT * FROM t WHERE a = 1) a) b WHERE x = 2", values: []int{2}},
		{sql: "SELECT * FROM (SELECT * FROM (SELECT * FROM (SELECT id, a FROM t) q WHERE a = 1) r) s WHERE s.id = 3", values: []int{3}},
		{sql: "WITH c AS (SELECT * FROM t) SELECT * FROM c WHERE id = 3", values: []int{3}},
		{sql: "WITH c AS (SELECT id FROM (SELECT id FROM t) q) SELECT * FROM c WHERE id = 6", values: []int{6}},
		{sql: "SELECT id FROM t WHERE id = 1 UNION SELECT id FROM t WHERE id = 4", values: []int{1, 4}},
		{sql: "SELECT id FROM t WHERE id = 1 UNION ALL SELECT id FROM (SELECT id FROM t) d WHERE id = 6", values: []int{1, 6}},
		{sql: "SELECT * FROM (SELECT id FROM t WHERE id = 1 UNION SELECT id FROM t WHERE id = 2) u", values: []int{1, 2}},
		{sql: "SELECT id FROM t WHERE id = 1 UNION SELECT id FROM t WHERE id = 2 UNION SELECT id FROM t WHERE id = 5", values: []int{1, 2, 5}},
		{sql: "SELECT id FROM t WHERE id = 1 UNION SELECT id FROM t", kind: "scatter"},
		// A condition on a derived UNION binds every arm, by position
		// (PostgreSQL's subquery_push_qual into set operations; Vitess's
		// union_cases.json: "select * from (select name, id as foo from
		// user union select 'extra', user_id from user_extra) X where
		// X.foo = 3" is one EqualUnique route).
		{design: "t:hash(id); u:hash(user_id)", sql: "SELECT * FROM (SELECT name, id AS foo FROM t UNION SELECT 'extra', user_id FROM u) x WHERE x.foo = 3", values: []int{3}},
		{design: "t:hash(id); u:hash(user_id)", sql: "SELECT * FROM (SELECT id FROM t WHERE a = 1 UNION ALL SELECT user_id FROM u) x WHERE id IN (1, 6)", values: []int{1, 6}},
		{design: "t:hash(id); u:hash(user_id)", sql: "SELECT * FROM (SELECT id FROM t UNION SELECT user_id FROM u) x", kind: "scatter"},
		// A condition on a grouping column is pushed below the grouping
		// (PostgreSQL's subquery_push_qual, allpaths.c); one on an
		// aggregate is not, nor any through LIMIT.
		{sql: "SELECT * FROM (SELECT id, count(*) AS n FROM t GROUP BY id) g WHERE id = 3", values: []int{3}},
		{sql: "SELECT * FROM (SELECT id, count(*) AS n FROM t GROUP BY id) g WHERE n = 3", kind: "scatter"},
		{sql: "SELECT * FROM (SELECT a, count(*) AS n FROM t GROUP BY a) g WHERE a = 3", kind: "scatter"},
		{sql: "SELECT * FROM (SELECT id FROM t LIMIT 5) g WHERE id = 3", kind: "scatter"},
	})
}

// TestRouting_Joins: tables co-located on the key are joined on one shard
// when the join equates their key columns (Vitess merges the two routes,
// operators/join_merging.go; Citus's router plans co-located joins). A
// LEFT join keeps its preserved side's rows, so its ON filters only the
// other side: with the preserved side bound, the ON equality binds the
// other side to the same value (Vitess keeps the ON with the right-hand
// route; PostgreSQL pushes ON to the nullable side, initsplan.c). A WHERE
// condition on the nullable side makes the join inner (reduce_outer_joins).
// Equalities are transitive within a table too. A scalar subquery yielding
// the key is pulled out and its value routes the outer query to one shard
// known at run time (PulloutValue, operators/subquery.go).
func TestRouting_Joins(t *testing.T) {
	checkRoutes(t, []routeCase{
		{sql: "SELECT * FROM t JOIN u ON t.id = u.id WHERE t.id = 5", values: []int{5}},
		{sql: "SELECT * FROM t a JOIN u b ON a.id = b.id WHERE b.id = 6", values: []int{6}},
		{sql: "SELECT * FROM t JOIN u ON u.id = t.id JOIN v ON v.id = u.id WHERE v.id = 2", values: []int{2}},
		{sql: "SELECT * FROM t LEFT JOIN u ON t.id = u.id WHERE t.id = 5", values: []int{5}},
		{sql: "SELECT * FROM t RIGHT JOIN u ON t.id = u.id WHERE u.id = 5", values: []int{5}},
		{sql: "SELECT * FROM t LEFT JOIN u USING (id) WHERE t.id = 4", values: []int{4}},
		{sql: "SELECT * FROM t LEFT JOIN u ON t.id = u.id WHERE u.id = 1", values: []int{1}},
		{sql: "SELECT * FROM u LEFT JOIN t ON t.id = u.id AND t.id = 3", kind: "scatter"},
		{sql: "SELECT * FROM t WHERE t.id = t.col AND t.col = 2", values: []int{2}},
		{sql: "SELECT * FROM t WHERE col = 6 AND id = col", values: []int{6}},
		{sql: "SELECT * FROM t WHERE id = (SELECT id FROM r WHERE name = 'bob')", design: "t:hash(id); r:replicate", kind: "single"},
	})
}

// TestRouting_Reference: reference tables have a copy on every shard
// (Vitess's Reference opcode; Citus reference tables): read alone, any one
// shard answers; read with a sharded table, they go where it goes.
func TestRouting_Reference(t *testing.T) {
	checkRoutes(t, []routeCase{
		{sql: "SELECT * FROM r JOIN s ON r.a = s.a", design: "r:replicate; s:replicate", kind: "any_shard"},
		{sql: "SELECT * FROM r WHERE a = 1", design: "r:replicate", kind: "any_shard"},
		{sql: "SELECT * FROM t JOIN r ON t.a = r.a WHERE t.id = 3", design: "t:hash(id); r:replicate", values: []int{3}},
	})
}

// TestRouting_LongIN: an IN list (or OR chain) routes value by value
// whatever its length, as Vitess's IN opcode maps every value.
func TestRouting_LongIN(t *testing.T) {
	var in, or []string
	for i := 0; i < 12000; i++ {
		in = append(in, fmt.Sprint([]int{1, 2, 5}[i%3]))
	}
	for i := 0; i < 3000; i++ {
		or = append(or, fmt.Sprintf("id = %d", []int{2, 6}[i%2]))
	}
	checkRoutes(t, []routeCase{
		{sql: "SELECT * FROM t WHERE id IN (" + strings.Join(in, ", ") + ")", values: []int{1, 2, 5}},
		{sql: "SELECT * FROM t WHERE " + strings.Join(or, " OR "), values: []int{2, 6}},
	})
}

// TestRouting_Hints: Vitess's USE VINDEX / IGNORE VINDEX decide which of
// the table's vindexes newShardedRouting considers
// (operators/sharded_routing.go); with the key's vindex (emit names it by
// its type, hash) excluded, the statement scatters.
func TestRouting_Hints(t *testing.T) {
	checkRoutes(t, []routeCase{
		{dialect: "mysql", sql: "SELECT * FROM t IGNORE VINDEX (hash) WHERE id = 5", kind: "scatter", reason: "IGNORE VINDEX"},
		{dialect: "mysql", sql: "SELECT * FROM t USE VINDEX (hash) WHERE id = 5", values: []int{5}},
		{dialect: "mysql", sql: "SELECT * FROM t USE VINDEX (name_lookup) WHERE id = 5", kind: "scatter", reason: "USE VINDEX"},
		{dialect: "mysql", sql: "SELECT * FROM t IGNORE VINDEX (name_lookup) WHERE id = 5", values: []int{5}},
		{dialect: "mysql", sql: "SELECT * FROM t WHERE id <=> 5", kind: "scatter"},
	})
}

// TestRouting_LogScoring: score --log routes each logged statement by the
// same rules as explain (one semantics): in a MySQL general log, a
// statement whose WHERE is false costs no work, an OR of one key value,
// a nested derived table, a folded constant and a LEFT join with its
// preserved side bound are single-shard.
func TestRouting_LogScoring(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:\nTcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock\nTime                 Id Command    Argument\n")
	for i, q := range []string{
		"SELECT * FROM t WHERE 1 = 0",
		"SELECT * FROM t WHERE (id = 5 AND a = 'x') OR (id = 5 AND b = 'y')",
		"SELECT id FROM (SELECT id FROM (SELECT id FROM t) a) b WHERE id = 5",
		"SELECT * FROM t WHERE id = 2 + 3",
		"SELECT * FROM t LEFT JOIN u ON t.id = u.id WHERE t.id = 3",
	} {
		fmt.Fprintf(&sb, "2024-05-01T10:00:0%d.000000Z\t   10 Query\t%s\n", i+1, q)
	}
	file := t.TempDir() + "/general.log"
	if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "", "score", "--log", file, "-k", "hash(id)", "--engine", "vitess", "--shards", "8", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Candidates []struct {
			Operations []struct {
				Name       string  `json:"name"`
				FanoutMean float64 `json:"fanout_mean"`
			} `json:"operations"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, o := range rep.Candidates[0].Operations {
		got[o.Name] = o.FanoutMean
	}
	want := map[string]float64{
		"read t (matches no row)": 0,
		"read t where id in (?)":  1, // (id = 5 ...) OR (id = 5 ...): one value
		"read t where id = ?":     1, // derived table, 2 + 3, the LEFT join's t
		"read u where id = ?":     1, // the LEFT join's u, bound through ON
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fan-out by operation = %v; want %v", got, want)
	}
}

// TestRouting_VitessConstants: cases of Vitess's own planner tests
// (go/vt/vtgate/planbuilder/testdata/filter_cases.json, select_cases.json)
// with the plan Vitess gives: a constant IN folded to false and IN (NULL)
// on any column are None routes; a subquery that returns no row makes
// the statement None through AND but not through OR (Scatter); a hex
// number is the binary string of its bytes (select_cases.json, "select *
// from user where id = 0x04": Route EqualUnique, Values "_binary'\u0004'"),
// which the hash vindex cannot read as a number: DestinationNone
// (Hash.Map, go/vt/vtgate/vindexes/hash.go), so no shard is asked.
func TestRouting_VitessConstants(t *testing.T) {
	d := "music:hash(user_id); user:hash(id)"
	checkRoutes(t, []routeCase{
		{dialect: "mysql", design: d, sql: "select Id from user where 1 in ('aa', 'bb')", kind: "none"},
		{dialect: "mysql", design: d, sql: "select id from music where user_id = 4 and id IN (null)", kind: "none"},
		{dialect: "mysql", design: d, sql: "SELECT music.id FROM music WHERE music.id IN (SELECT music.id FROM music WHERE music.user_id IN (NULL)) AND music.user_id = 5", kind: "none"},
		{dialect: "mysql", design: d, sql: "SELECT music.id FROM music WHERE music.id IN (SELECT music.id FROM music WHERE music.user_id IN (NULL)) OR music.user_id = 5", kind: "scatter"},
		{dialect: "mysql", design: d, sql: "select * from user where id = 0x04", kind: "none"},
		{dialect: "mysql", design: d, sql: "select user.col from user_extra left outer join user on user_extra.user_id = user.id WHERE user.id IS NULL", kind: "scatter"},
		{dialect: "mysql", design: d, sql: "with t as (select id from user where id = 5) select t.id from t join music on t.id = music.user_id", values: []int{5}},
		{dialect: "mysql", design: d, sql: "select * from (select rank() over (partition by col) as r, id from user) as t where id = 1", values: []int{1}},
		{dialect: "mysql", design: d, sql: "select * from user ignore vindex (user_index) where id = 1", kind: "scatter"},
	})
}

// TestRouting_Correlated: a subquery correlated with the outer query on
// the key (ue.user_id = u.id) reads the outer row's shard only, as Vitess
// merges it into the outer route (operators/subquery_planning.go) and
// Citus's router plans it with the outer query when both are pruned to
// one shard.
func TestRouting_Correlated(t *testing.T) {
	d := "users:hash(id); user_extra:hash(user_id)"
	checkRoutes(t, []routeCase{
		{design: d, sql: "SELECT u.id FROM users u WHERE EXISTS (SELECT 1 FROM user_extra ue WHERE ue.user_id = u.id) AND u.id = 5", values: []int{5}},
		{design: d, sql: "SELECT * FROM users u WHERE u.id IN (1, 6) AND u.col = (SELECT max(col) FROM user_extra ue WHERE ue.user_id = u.id)", values: []int{1, 6}},
		{design: d, sql: "SELECT u.id FROM users u WHERE EXISTS (SELECT 1 FROM user_extra ue WHERE ue.user_id = u.id)", kind: "scatter"},
		// Vitess's select_cases.json: one EqualUnique route.
		{design: d, sql: "SELECT (SELECT 1 FROM users u1 JOIN users u2 ON u1.id = u2.id AND u1.id = u3.id) AS s FROM users u3 WHERE u3.id = 1", values: []int{1}},
	})
}

// TestRouting_DerivedStatement: a derived table that groups or limits is
// read as a statement of its own, but the key value its WHERE binds is in
// every row it returns, so a join equality on the key carries it to the
// outer table (Vitess's tpcc_cases.json: orders1 joined to its own grouped
// derived table with o_w_id = 1 is one EqualUnique route).
func TestRouting_DerivedStatement(t *testing.T) {
	checkRoutes(t, []routeCase{
		{design: "orders:hash(w_id)", sql: "SELECT o.id FROM orders o, (SELECT w_id, d_id, count(*) AS n FROM orders WHERE w_id = 2 GROUP BY w_id, d_id LIMIT 1) t WHERE t.w_id = o.w_id AND t.d_id = o.d_id", values: []int{2}},
		{design: "orders:hash(w_id)", sql: "SELECT o.id FROM orders o JOIN (SELECT w_id FROM orders WHERE w_id IN (1, 5) GROUP BY w_id) t ON t.w_id = o.w_id", values: []int{1, 5}},
	})
}

// TestRouting_VSchemaDesign: -k @vschema.json evaluates the design a
// Vitess VSchema runs (each table's primary vindex; reference tables
// replicated), with the engine of its vindex type (hash: vitess).
func TestRouting_VSchemaDesign(t *testing.T) {
	file := t.TempDir() + "/vschema.json"
	js := `{"sharded": true, "vindexes": {"user_index": {"type": "hash"}},
	  "tables": {"user": {"column_vindexes": [{"column": "Id", "name": "user_index"}]},
	             "user_extra": {"column_vindexes": [{"column": "user_id", "name": "user_index"}]},
	             "ref": {"type": "reference"}}}`
	if err := os.WriteFile(file, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sql    string
		shards []int
		route  string
	}{
		// Under 4 shards, 1 and 5 hash to keyspace ids 0x16.. and
		// 0x70.. (Vitess's hash_test.go): shards 0 and 1.
		{"select * from user where id in (1, 5)", vitessShards(4, 1, 5), "multi"},
		{"select * from user where id in (1, 2)", vitessShards(4, 1, 2), "multi"}, // one shard, two values: IN
		{"select * from user join user_extra on user.id = user_extra.user_id where user.id = 6", vitessShards(4, 6), "single"},
		{"select * from ref", []int{}, "any_shard"},
		{"select * from user ignore vindex (user_index) where id = 1", allShardsOf(4), "scatter"},
	} {
		code, out, errs := runCmd(t, "", "explain", "--format", "json", "--dialect", "mysql", "--shards", "4", "-k", "@"+file, c.sql)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", c.sql, code, errs)
		}
		var r routed
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.Shards, c.shards) || r.Route != c.route {
			t.Errorf("%q: shards %v route %q (%s); want %v %q", c.sql, r.Shards, r.Route, r.Reason, c.shards, c.route)
		}
	}
}

// TestRouting_BindLists: an IN list of bind parameters without values is
// planned as Vitess plans IN ::list or IN (:a, :b) on a unique vindex: an
// IN route (planInOp, go/vt/vtgate/planbuilder/operators/sharded_routing.go;
// engine.IN in go/vt/vtgate/engine/routing.go), to the shards of the values
// once they are known, so no shard is listed and the route is multi; a
// one-value tuple is planned as an equality (planInOp hands it to
// planEqualOp): single, and the reason names a bind parameter. Citus plans
// such a query with Job.deferredPruning and prunes it at execution
// (multi_router_planner.c, executor/citus_custom_scan.c): the same shards.
func TestRouting_BindLists(t *testing.T) {
	checkRoutes(t, []routeCase{
		{dialect: "postgresql", sql: "SELECT * FROM t WHERE id IN ($1, $2)", kind: "multi", reason: "at most 2 of the"},
		{dialect: "postgresql", sql: "SELECT * FROM t WHERE id = $1 OR id = $2 OR id = $3", kind: "multi", reason: "3 values known only at run time"},
		{dialect: "postgresql", sql: "SELECT * FROM t WHERE id = ANY($1)", kind: "multi", reason: "their number too"},
		{dialect: "postgresql", sql: "SELECT * FROM t WHERE id IN ($1)", kind: "single", reason: "a bind parameter", noText: "subquery"},
		{dialect: "postgresql", sql: "SELECT * FROM t WHERE id = $1", kind: "single", reason: "a bind parameter", noText: "subquery"},
		{dialect: "mysql", sql: "SELECT * FROM t WHERE id IN (?, ?, ?)", kind: "multi", reason: "at most"},
		{dialect: "mysql", sql: "SELECT * FROM t WHERE id IN (:a, :b)", kind: "multi", reason: "bind parameters"},
		{dialect: "mysql", sql: "SELECT * FROM t WHERE id IN ::list", kind: "multi", reason: "their number too"},
		// A tuple IN a list bind variable binds each column at its
		// position (planCompositeInOpArg, sharded_routing.go: MultiEqual;
		// Vitess's filter_cases.json "list args: single column vindex").
		// PostgreSQL has no list bind variable of tuples.
		{dialect: "mysql", sql: "SELECT * FROM t WHERE (id, col) IN ::vals", kind: "multi", reason: "their number too"},
		{dialect: "mysql", sql: "SELECT * FROM t WHERE (col, id) IN ::vals", kind: "multi", reason: "their number too"},
		{dialect: "mysql", sql: "SELECT * FROM t WHERE id IN (?)", kind: "single", reason: "a bind parameter"},
		{dialect: "mysql", sql: "SELECT * FROM t WHERE id = :vtg1", kind: "single", reason: "a bind parameter", noText: "subquery"},
		{sql: "SELECT * FROM t WHERE id = (SELECT id FROM u WHERE name = 'bob')", design: "t:hash(id); u:replicate", kind: "single", reason: "a subquery's result"},
		// A parameter list beside a false condition still asks no shard.
		{dialect: "postgresql", sql: "SELECT * FROM t WHERE id IN ($1, $2) AND 1 = 0", kind: "none"},
	})
	// A known value and a parameter: the known value's shard, and at most
	// one more known at run time: route multi, shards null (how many is
	// known only at run time), known_shards listing 1's shard.
	for _, c := range []struct{ d, sql string }{{"postgresql", "SELECT * FROM t WHERE id IN (1, $1)"}, {"mysql", "SELECT * FROM t WHERE id IN (1, ?)"}} {
		code, out, errs := runCmd(t, "", "explain", "--format", "json", "--engine", "vitess", "--shards", "8", "--dialect", c.d, "-k", "hash(id)", c.sql)
		var r routed
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("%s: exit %d: %s %s", c.sql, code, out, errs)
		}
		if want := vitessShards(8, 1); r.Shards != nil || !reflect.DeepEqual(r.KnownShards, want) || r.Route != "multi" || r.Scatter {
			t.Errorf("%s: %+v; want shards null, known_shards %v, route multi", c.sql, r, want)
		}
	}
}

// TestRouting_BindListsScored: score --log on pg_stat_statements text,
// whose parameters have no values and with no row sample to draw them from:
// IN ($1, $2, $3) costs the expected number of distinct shards of 3 keys
// hashed uniformly among 8, 8(1-(7/8)^3) = 2.640625 (not 8, a scatter, nor
// 1); = $1 costs 1.
func TestRouting_BindListsScored(t *testing.T) {
	csv := "query,calls,rows\n" +
		"\"SELECT * FROM t WHERE id IN ($1, $2, $3)\",10,0\n" +
		"\"SELECT * FROM t WHERE id = $1\",10,0\n"
	file := t.TempDir() + "/pgss.csv"
	if err := os.WriteFile(file, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "", "score", "--log", file, "-k", "hash(id)", "--shards", "8", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Candidates []struct {
			Operations []struct {
				Name       string  `json:"name"`
				FanoutMean float64 `json:"fanout_mean"`
				Scatter    float64 `json:"scatter_fraction"`
			} `json:"operations"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, o := range rep.Candidates[0].Operations {
		got[o.Name] = o.FanoutMean
		if o.Scatter != 0 {
			t.Errorf("%s: scatter share %v; want 0", o.Name, o.Scatter)
		}
	}
	want := map[string]float64{"read t where id in (?)": 2.640625, "read t where id = ?": 1}
	for k, v := range want {
		if g, ok := got[k]; !ok || math.Abs(g-v) > 1e-9 {
			t.Errorf("fan-out of %q = %v; want %v (all: %v)", k, g, v, got)
		}
	}
}

// TestRouting_HintsScored: score --log honours Vitess vindex hints as
// explain does (newShardedRouting, operators/sharded_routing.go): IGNORE
// VINDEX naming the key's vindex (hash) leaves the key unused, 8 shards
// of 8; USE VINDEX naming it changes nothing, 1 shard; USE VINDEX naming
// another vindex scatters. Each hinted shape is an operation of its own.
func TestRouting_HintsScored(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:\nTcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock\nTime                 Id Command    Argument\n")
	for i, q := range []string{
		"SELECT * FROM t IGNORE VINDEX (hash) WHERE id = 5",
		"SELECT * FROM t USE VINDEX (hash) WHERE id = 6",
		"SELECT * FROM t USE VINDEX (name_lookup) WHERE id = 6",
		"SELECT * FROM t WHERE id = 7",
	} {
		fmt.Fprintf(&sb, "2024-05-01T10:00:0%d.000000Z\t   10 Query\t%s\n", i+1, q)
	}
	file := t.TempDir() + "/general.log"
	if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "", "score", "--log", file, "-k", "hash(id)", "--engine", "vitess", "--shards", "8", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Candidates []struct {
			Operations []struct {
				Name       string  `json:"name"`
				FanoutMean float64 `json:"fanout_mean"`
			} `json:"operations"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, o := range rep.Candidates[0].Operations {
		got[o.Name] = o.FanoutMean
	}
	want := map[string]float64{
		"read t where id = ? (IGNORE VINDEX (hash))":     8,
		"read t where id = ? (USE VINDEX (hash))":        1,
		"read t where id = ? (USE VINDEX (name_lookup))": 8,
		"read t where id = ?":                            1,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fan-out by operation = %v; want %v", got, want)
	}
}

// TestRouting_Casts: a cast of the key column is an expression, not the
// column. Citus prunes only on the column itself compared with a constant
// once implicit coercions are stripped (PrunableExpressionsWalker,
// planner/shard_pruning.c: strip_implicit_coercions, then IsA(Var)); an
// explicit id::text stays, so every shard. Vitess plans a vindex only for
// a comparison whose side is a *sqlparser.ColName (planEqualOp,
// operators/sharded_routing.go): CAST(id AS CHAR) scatters. A cast of the
// value is the value.
func TestRouting_Casts(t *testing.T) {
	checkRoutes(t, []routeCase{
		{dialect: "postgresql", sql: "SELECT * FROM t WHERE id::text = '4'", kind: "scatter", reason: "a cast of the column"},
		{dialect: "postgresql", sql: "SELECT * FROM t WHERE CAST(id AS varchar) = '4'", kind: "scatter", reason: "a cast of the column"},
		{dialect: "postgresql", sql: "SELECT * FROM t WHERE id = '4'::bigint", values: []int{4}},
		{dialect: "mysql", sql: "SELECT * FROM t WHERE CAST(id AS CHAR) = '4'", kind: "scatter", reason: "a cast of the column"},
		{dialect: "mysql", sql: "SELECT * FROM t WHERE '4' = CONVERT(id, CHAR)", kind: "scatter"},
		{dialect: "mysql", sql: "SELECT * FROM t WHERE id = CAST('4' AS SIGNED)", values: []int{4}},
	})
}

// TestRouting_RunTimeRange: a range whose end is known only at run time
// (created_at > now() - interval '1 day', MySQL NOW() - INTERVAL 1 DAY)
// is still a range. Its end is placed against the row sample's newest
// created_at, taken as now; an end the data cannot place (current_date,
// whose offset from now is not a constant) asks every range it could
// reach, never a silent single shard. 8 monthly rows 2026-01-01 ..
// 2026-08-01 in 4 equal ranges put boundaries at 03-01, 05-01 and 07-01
// (shard 0 below 03-01, 1 to 05-01, 2 to 07-01, 3 above). By hand, from
// the newest, 2026-08-01: less 1 day is 07-31 (shard 3); less 5 years
// (of 365.25 days) is 2021, below every boundary (shards 0-3); less 120
// and 119 days are 04-03 and 04-04 (shard 1); less 100 and 40 days are
// 04-23 and 06-22 (shards 1-2). Under a hash key it scatters, and the
// reason says a range on a hash key is why (every engine hashes the
// value, so a range of values lies on every shard).
func TestRouting_RunTimeRange(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("id,created_at\n")
	for m := 1; m <= 8; m++ {
		fmt.Fprintf(&sb, "%d,2026-%02d-01\n", m, m)
	}
	rows := t.TempDir() + "/posts.csv"
	if err := os.WriteFile(rows, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		d, key, sql string
		shards      []int
		scatter     bool
		reason      string
	}{
		{"postgresql", "range(created_at)", "SELECT * FROM posts WHERE created_at > now() - interval '1 day'", []int{3}, false, "now() - interval '1 day' = 2026-07-31T00:00:00Z"},
		{"mysql", "range(created_at)", "SELECT * FROM posts WHERE created_at > NOW() - INTERVAL 1 DAY", []int{3}, false, "now() - interval '1 day' = 2026-07-31T00:00:00Z"},
		{"postgresql", "range(created_at)", "SELECT * FROM posts WHERE created_at > now() - interval '5 years'", []int{0, 1, 2, 3}, false, "newest created_at, 2026-08-01T00:00:00Z, as now"},
		{"mysql", "range(created_at)", "SELECT * FROM posts WHERE created_at > DATE_SUB(NOW(), INTERVAL 5 YEAR)", []int{0, 1, 2, 3}, false, "newest created_at, 2026-08-01T00:00:00Z, as now"},
		{"postgresql", "range(created_at)", "SELECT * FROM posts WHERE created_at BETWEEN now() - interval '120 days' AND now() - interval '119 days'", []int{1}, false, "now() - interval '119 days' = 2026-04-04T00:00:00Z"},
		{"mysql", "range(created_at)", "SELECT * FROM posts WHERE created_at BETWEEN NOW() - INTERVAL 120 DAY AND NOW() - INTERVAL 119 DAY", []int{1}, false, "now() - interval '119 days' = 2026-04-04T00:00:00Z"},
		{"postgresql", "range(created_at)", "SELECT * FROM posts WHERE created_at >= now() - interval '100 days' AND created_at < now() - interval '40 days'", []int{1, 2}, false, "now() - interval '40 days' = 2026-06-22T00:00:00Z"},
		{"mysql", "range(created_at)", "SELECT * FROM posts WHERE created_at >= NOW() - INTERVAL 100 DAY AND created_at < NOW() - INTERVAL 40 DAY", []int{1, 2}, false, "now() - interval '100 days' = 2026-04-23T00:00:00Z"},
		{"postgresql", "range(created_at)", "SELECT * FROM posts WHERE created_at >= current_date", []int{0, 1, 2, 3}, false, "every range it could reach is asked"},
		{"mysql", "range(created_at)", "SELECT * FROM posts WHERE created_at >= CURDATE()", []int{0, 1, 2, 3}, false, "every range it could reach is asked"},
		{"postgresql", "hash(created_at)", "SELECT * FROM posts WHERE created_at > now() - interval '1 day'", []int{0, 1, 2, 3}, true, "a range on the hash key"},
		{"mysql", "hash(created_at)", "SELECT * FROM posts WHERE created_at > NOW() - INTERVAL 1 DAY", []int{0, 1, 2, 3}, true, "a range on the hash key"},
	} {
		code, out, errs := runCmd(t, "", "explain", "--format", "json", "--rows", "posts="+rows, "--shards", "4", "--dialect", c.d, "-k", c.key, c.sql)
		var r routed
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("%s: exit %d: %s %s", c.sql, code, out, errs)
		}
		if !reflect.DeepEqual(r.Shards, c.shards) || r.Scatter != c.scatter || !strings.Contains(r.Reason, c.reason) {
			t.Errorf("%s %s %q: %+v; want shards %v scatter %v, reason with %q", c.d, c.key, c.sql, r, c.shards, c.scatter, c.reason)
		}
	}
}

// TestRouting_LookupBindParams: a bind parameter on a lookup column is
// routed through the lookup, as Vitess plans a lookup vindex on a bind
// variable (planEqualOp and planInOp in
// go/vt/vtgate/planbuilder/operators/sharded_routing.go: EqualUnique for
// = :v, IN for a list): = $1 one shard (single), known once the lookup
// answers; IN ($1, $2) at most 2 shards (multi); IN ('u1@x.com', $1) u1's
// shard plus at most one more (multi). None scatters, none asks no shard.
func TestRouting_LookupBindParams(t *testing.T) {
	rows := t.TempDir() + "/users.csv"
	if err := os.WriteFile(rows, []byte("user_id,email\n1,u1@x.com\n2,u2@x.com\n3,u3@x.com\n4,u4@x.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		d, sql  string
		route   string
		nShards int
		reason  string
	}{
		{"postgresql", "SELECT * FROM users WHERE email = $1", "single", 0, "then the one shard of the row it names, known once the lookup answers"},
		{"mysql", "SELECT * FROM users WHERE email = ?", "single", 0, "then the one shard of the row it names, known once the lookup answers"},
		{"postgresql", "SELECT * FROM users WHERE email IN ($1, $2)", "multi", 0, "at most 2, known once the lookup answers"},
		{"mysql", "SELECT * FROM users WHERE email IN (?, ?)", "multi", 0, "at most 2, known once the lookup answers"},
		{"postgresql", "SELECT * FROM users WHERE email IN ('u1@x.com', $1)", "multi", 1, "and at most 1 more"},
		{"mysql", "SELECT * FROM users WHERE email IN ('u1@x.com', ?)", "multi", 1, "and at most 1 more"},
	} {
		code, out, errs := runCmd(t, "", "explain", "--format", "json", "--rows", "users="+rows, "--shards", "4", "--dialect", c.d, "-k", "hash(user_id), lookup(email)", c.sql)
		var r routed
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("%s: exit %d: %s %s", c.sql, code, out, errs)
		}
		// shards is null (how many known only at run time), the known
		// ones in known_shards.
		if r.Route != c.route || r.Shards != nil || len(r.KnownShards) != c.nShards || r.Scatter || !strings.Contains(r.Reason, c.reason) || !strings.Contains(r.Reason, "lookup email -> keyspace id") {
			t.Errorf("%s %q: %+v; want route %s with shards null and %d known shards listed, reason with %q", c.d, c.sql, r, c.route, c.nShards, c.reason)
		}
	}
}

// TestRouting_NonUniqueLookupUnseen: a non-unique lookup's value the row
// sample does not hold spans as many shards as the sample's values do
// (docs/product.md, lookup): 4 rows, each city on one row, so 1 shard:
// route single, and the reason says why rather than "the one shard of
// the row" (a non-unique lookup names rows, not a row).
func TestRouting_NonUniqueLookupUnseen(t *testing.T) {
	rows := t.TempDir() + "/users.csv"
	if err := os.WriteFile(rows, []byte("user_id,city\n1,a\n2,b\n3,c\n4,d\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "", "explain", "--format", "json", "--rows", "users="+rows, "--shards", "4", "-k", "hash(user_id), lookup(city, nonunique)", "SELECT * FROM users WHERE city = 'zzz'")
	var r routed
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	if r.Route != "single" || strings.Contains(r.Reason, "the one shard of the row") || !strings.Contains(r.Reason, "as many shards as the sample's values do on average, 1 here") {
		t.Errorf("%+v; want route single, reason giving the sample's shards per value", r)
	}
}

// TestRouting_UniqueLookupMerge: two reads of one table compared on a
// unique lookup column are one route in Vitess, which merges routes whose
// predicate compares columns of the same unique vindex (a value of it is
// on one row, so on one shard): operators/route_planning.go
// (canMergeOnFilter, getColName: MAX or MIN of the column counts as the
// column), subquery_planning.go (mergeSubqueryInputs; isMergeable: a
// subquery that limits or aggregates merges only on one shard, or when it
// groups by a unique vindex column; a subquery that is not a conjunct of
// the WHERE is not used for routing). The merged route takes the cheapest
// of both routes' vindex options (sharded_routing.go,
// PickBestAvailableVindex; route.go less: EqualUnique before IN), on a
// tie the later, the outer query's; a join of two routes that chose the
// same vindex keeps the left-hand one's (join_merging.go,
// mergeShardedRouting). Without the unique lookup nothing merges
// (canMergeOnFilter wants IsUnique) and the outer read, bound by
// nothing, scatters. Both dialects.
func TestRouting_UniqueLookupMerge(t *testing.T) {
	const d = "music:hash(user_id), lookup(id)"
	checkRoutes(t, []routeCase{
		{design: d, sql: "SELECT id FROM music WHERE id IN (SELECT id FROM music WHERE user_id IN (1, 2, 3))", values: []int{1, 2, 3}, reason: "a unique lookup"},
		{design: d, sql: "SELECT id FROM music WHERE id IN (SELECT id FROM music WHERE user_id IN (1, 2, 3)) AND user_id = 5", values: []int{5}},
		{design: d, sql: "SELECT id FROM music WHERE id IN (SELECT id FROM music WHERE user_id = 4) AND user_id IN (1, 2)", values: []int{4}},
		{design: d, sql: "SELECT id FROM music WHERE id IN (SELECT id FROM music WHERE user_id IN (1, 2)) AND user_id IN (3, 4)", values: []int{3, 4}},
		{design: d, sql: "SELECT id FROM music WHERE id IN (SELECT id FROM music WHERE genre = 'pop') AND user_id IN (3, 4)", values: []int{3, 4}},
		{design: d, sql: "SELECT id FROM music WHERE id = (SELECT MAX(id) FROM music WHERE user_id = 6)", values: []int{6}},
		{design: d, sql: "SELECT id FROM music WHERE id IN (SELECT MIN(id) FROM music WHERE user_id IN (1, 6) GROUP BY user_id)", values: []int{1, 6}},
		{design: d, sql: "SELECT id FROM music WHERE id IN (SELECT * FROM (SELECT id FROM music WHERE user_id = 2 LIMIT 3) t)", values: []int{2}},
		{design: d, sql: "SELECT music.id FROM music JOIN (SELECT id FROM music WHERE user_id IN (5, 6)) o ON o.id = music.id", values: []int{5, 6}},
		{design: d, sql: "SELECT music.id FROM (SELECT MAX(id) AS m FROM music WHERE user_id = 1) o JOIN music ON o.m = music.id", values: []int{1}},
		{design: d, sql: "SELECT a.id FROM music a JOIN music b ON a.id = b.id WHERE b.user_id = 3", values: []int{3}},
		{design: d, sql: "SELECT a.id FROM music a JOIN music b ON a.id = b.id WHERE a.user_id IN (1, 2) AND b.user_id = 3", values: []int{1, 2}},
		{design: d, sql: "SELECT id FROM music WHERE id IN (SELECT id FROM music WHERE user_id = 5) OR genre = 'pop'", kind: "scatter"},
		{design: "music:hash(user_id)", sql: "SELECT id FROM music WHERE id IN (SELECT id FROM music WHERE user_id = 5)", kind: "scatter"},
		{design: "music:hash(user_id), lookup(id, nonunique)", sql: "SELECT music.id FROM music JOIN (SELECT id FROM music WHERE user_id = 5) o ON o.id = music.id", kind: "scatter"},
	})
}

// TestRouting_UniqueLookupMergeScored: score --log routes a read merged
// with another read of its table on a unique lookup column as explain
// does (TestRouting_UniqueLookupMerge): on the shards of the other read's
// key values (Vitess's hash, vitessShards), not on every shard; without
// the lookup the outer read, bound by nothing, scatters.
func TestRouting_UniqueLookupMergeScored(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:\nTcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock\nTime                 Id Command    Argument\n")
	for i, q := range []string{
		"SELECT id FROM music WHERE id IN (SELECT id FROM music WHERE user_id IN (1, 2, 3))",
		"SELECT music.id FROM music JOIN (SELECT id FROM music WHERE user_id = 5) o ON o.id = music.id",
	} {
		fmt.Fprintf(&sb, "2024-05-01T10:00:0%d.000000Z\t   10 Query\t%s\n", i+1, q)
	}
	file := t.TempDir() + "/general.log"
	if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const outer = "read music (all rows) (id tied to another read of music)"
	in := float64(len(vitessShards(8, 1, 2, 3)))
	for design, want := range map[string]float64{
		"music:hash(user_id), lookup(id)": (in + 1) / 2, // the two statements' outer reads, equally weighted
		"music:hash(user_id)":             8,
	} {
		code, out, errs := runCmd(t, "", "score", "--log", file, "-k", design, "--engine", "vitess", "--shards", "8", "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", design, code, errs)
		}
		var rep struct {
			Candidates []struct {
				Operations []struct {
					Name       string  `json:"name"`
					FanoutMean float64 `json:"fanout_mean"`
				} `json:"operations"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		got, ok := 0.0, false
		for _, o := range rep.Candidates[0].Operations {
			if o.Name == outer {
				got, ok = o.FanoutMean, true
			}
		}
		if !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: %q fan-out %v (found %v); want %v", design, outer, got, ok, want)
		}
	}
}

// TestRouting_ReferenceDML: Vitess plans an UPDATE or DELETE of a
// reference table without a source as a Route with the Reference opcode,
// which RoutingParameters.findRoute sends to any one shard (anyShard,
// go/vt/vtgate/engine/routing.go): route any_shard, the reason saying the
// other copies are written by replication, not by the statement. The
// score still counts the write on every copy (fan-out 8 of 8), and under
// Citus, which writes every placement of a reference table, it stays a
// write to every shard.
func TestRouting_ReferenceDML(t *testing.T) {
	checkRoutes(t, []routeCase{
		{sql: "DELETE FROM r WHERE a = 1", design: "r:replicate", kind: "any_shard", reason: "written by replication"},
		{sql: "UPDATE r SET b = 2 WHERE a = 1", design: "r:replicate", kind: "any_shard", reason: "counts the write on all"},
	})
	code, out, errs := runCmd(t, "", "explain", "--format", "json", "--engine", "citus", "--shards", "4", "-k", "r:replicate", "DELETE FROM r WHERE a = 1")
	var r routed
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	if r.Route != "scatter" || len(r.Shards) != 4 {
		t.Errorf("citus: %+v; want every shard", r)
	}
	log := "/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:\nTcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock\nTime                 Id Command    Argument\n" +
		"2024-05-01T10:00:01.000000Z\t   10 Query\tDELETE FROM r WHERE a = 1\n"
	file := t.TempDir() + "/general.log"
	if err := os.WriteFile(file, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCmd(t, "", "score", "--log", file, "-k", "r:replicate", "--engine", "vitess", "--shards", "8", "--format", "json")
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, errs)
	}
	var rep struct {
		Candidates []struct {
			Operations []struct {
				FanoutMean float64 `json:"fanout_mean"`
			} `json:"operations"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Candidates) == 0 || len(rep.Candidates[0].Operations) != 1 || rep.Candidates[0].Operations[0].FanoutMean != 8 {
		t.Errorf("score: %s; want one operation of fan-out 8 (every copy)", out)
	}
}

// TestRouting_HintLookup: a Vitess vindex hint filters every column
// vindex of the table, lookups too (newShardedRouting in
// go/vt/vtgate/planbuilder/operators/sharded_routing.go: USE VINDEX keeps
// only the vindexes it names, IGNORE VINDEX drops them). USE VINDEX
// (email_user_map), a lookup vindex named as VSchemas name them, routes
// by that lookup (one shard, the row's, known once the lookup answers:
// a unique lookup, EqualUnique) and not by the key; IGNORE VINDEX of the
// lookup, or a USE VINDEX that names only the key's, leaves a read by
// email to every shard.
func TestRouting_HintLookup(t *testing.T) {
	const d = "users:hash(id), lookup(email)"
	checkRoutes(t, []routeCase{
		{dialect: "mysql", design: d, sql: "SELECT * FROM users USE VINDEX (email_user_map) WHERE email = 'a@x.com'", kind: "single", reason: "lookup email"},
		{dialect: "mysql", design: d, sql: "SELECT * FROM users USE VINDEX (email_user_map) WHERE id = 5", kind: "scatter", reason: "USE VINDEX"},
		{dialect: "mysql", design: d, sql: "SELECT * FROM users IGNORE VINDEX (email_user_map) WHERE email = 'a@x.com'", kind: "scatter"},
		{dialect: "mysql", design: d, sql: "SELECT * FROM users USE VINDEX (hash) WHERE email = 'a@x.com'", kind: "scatter"},
		{dialect: "mysql", design: d, sql: "SELECT * FROM users USE VINDEX (email_user_map, hash) WHERE id = 5", values: []int{5}},
		{dialect: "mysql", design: d, sql: "SELECT * FROM users IGNORE VINDEX (email_user_map) WHERE id = 5", values: []int{5}},
	})
}

// TestRouting_HintVSchemaNames: under a design read from a VSchema, a
// vindex hint names the VSchema's column vindexes, compared
// case-insensitively, and nothing else (newShardedRouting and
// indexesContains, go/vt/vtgate/planbuilder/operators/sharded_routing.go):
// in testdata/vitess/vschema.json music's primary vindex is user_index
// (user_id) and music_user_map its lookup_unique on id; user_metadata's
// lookups are email_user_map (email) and address_user_map (address). A
// name that is no vindex of the table (hash, the vindex type) is kept by
// no vindex under USE VINDEX. Under a hand-written design (no names), a
// hint name sharing a word with a lookup's column is not read as the key's
// by its overlap with the table's name.
func TestRouting_HintVSchemaNames(t *testing.T) {
	const vs = "@testdata/vitess/vschema.json"
	checkRoutes(t, []routeCase{
		{dialect: "mysql", design: vs, sql: "SELECT * FROM music USE VINDEX (music_user_map) WHERE id = 5", kind: "single", reason: "lookup id"},
		{dialect: "mysql", design: vs, sql: "SELECT * FROM music IGNORE VINDEX (music_user_map) WHERE id = 5", kind: "scatter"},
		{dialect: "mysql", design: vs, sql: "SELECT * FROM music USE VINDEX (music_user_map) WHERE user_id = 5", kind: "scatter"},
		{dialect: "mysql", design: vs, sql: "SELECT * FROM music USE VINDEX (USER_INDEX) WHERE user_id = 5", values: []int{5}},
		{dialect: "mysql", design: vs, sql: "SELECT * FROM music USE VINDEX (user_index) WHERE id = 5", kind: "scatter"},
		{dialect: "mysql", design: vs, sql: "SELECT * FROM music IGNORE VINDEX (user_index) WHERE user_id = 5", kind: "scatter"},
		{dialect: "mysql", design: vs, sql: "SELECT * FROM user USE VINDEX (hash) WHERE id = 5", kind: "scatter"},
		{dialect: "mysql", design: vs, sql: "SELECT * FROM user_metadata IGNORE VINDEX (email_user_map) WHERE email = 'a'", kind: "scatter"},
		{dialect: "mysql", design: vs, sql: "SELECT * FROM user_metadata USE VINDEX (address_user_map) WHERE email = 'a'", kind: "scatter"},
		{dialect: "mysql", design: vs, sql: "SELECT * FROM user_metadata USE VINDEX (Email_User_Map) WHERE email = 'a'", kind: "single", reason: "lookup email"},
		{dialect: "mysql", design: "users:hash(user_id), lookup(email)", sql: "SELECT * FROM users IGNORE VINDEX (users_email_idx) WHERE user_id = 5", values: []int{5}},
	})
}

// TestRouting_MergePrimaryVindex: a subquery of another table compared
// with the outer table's key on its own key column is one route with the
// outer read when both columns have the very same unique vindex
// (canMergeOnFilter, route_planning.go: rVindex == lVindex;
// mergeSubqueryInputs, subquery_planning.go), routed by the better
// condition of both: in testdata/vitess/vschema.json user.Id and
// user_extra.user_id are both user_index (hash), so the inner user_id = 6
// routes the outer read to 6's shard, and the outer id = 5 the inner one
// to 5's. samecolvin.col is vindex1, another hash vindex: no merge, the
// outer read scatters. A hand-written design merges co-located hash keys
// alike.
func TestRouting_MergePrimaryVindex(t *testing.T) {
	const vs = "@testdata/vitess/vschema.json"
	checkRoutes(t, []routeCase{
		{dialect: "mysql", design: vs, sql: "SELECT * FROM user WHERE id IN (SELECT user_id FROM user_extra WHERE user_id = 6)", values: []int{6}, reason: "user_index"},
		{dialect: "mysql", design: vs, sql: "SELECT * FROM user WHERE id = 5 AND id IN (SELECT user_id FROM user_extra WHERE col = 6)", values: []int{5}},
		{dialect: "mysql", design: vs, sql: "SELECT * FROM user WHERE id IN (SELECT col FROM samecolvin WHERE col = 6)", kind: "scatter"},
		{design: "users:hash(id); posts:hash(user_id)", sql: "SELECT * FROM users WHERE id IN (SELECT user_id FROM posts WHERE user_id = 6)", values: []int{6}},
		{design: "users:hash(id); posts:hash(user_id)", sql: "SELECT * FROM users WHERE id IN (SELECT user_id FROM posts WHERE title = 'x') AND id = 5", values: []int{5}},
	})
}

// TestRouting_HintUnknownVindex: Vitess checks every vindex a hint names
// against the table's column vindexes when it plans the statement and
// refuses an unknown one with VT09021 "Vindex '%s' does not exist in
// table '%s'" (checkValidVindexHints, go/vt/vtgate/semantics/
// table_collector.go; vterrors/code.go): explain warns so, in JSON too;
// the VSchema's own names (user_index, music_user_map) raise nothing.
func TestRouting_HintUnknownVindex(t *testing.T) {
	vs := filepath.Join("testdata", "vitess", "vschema.json")
	for _, c := range []struct {
		sql  string
		warn bool
	}{
		{"SELECT * FROM music USE VINDEX (nosuch) WHERE id = 5", true},
		{"SELECT * FROM music IGNORE VINDEX (NoSuch) WHERE user_id = 5", true},
		{"SELECT * FROM music USE VINDEX (music_user_map) WHERE id = 5", false},
		{"SELECT * FROM music IGNORE VINDEX (USER_INDEX) WHERE id = 5", false},
	} {
		code, out, errs := runCmd(t, "", "explain", "--format", "json", "--dialect", "mysql", "-k", "@"+vs, "--engine", "vitess", "--shards", "4", c.sql)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.sql, code, errs)
		}
		var r struct {
			Warnings []string `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		got := false
		for _, w := range r.Warnings {
			if strings.Contains(w, "VT09021") && strings.Contains(w, "does not exist in table 'music'") {
				got = true
			}
		}
		if got != c.warn {
			t.Errorf("%s: VT09021 warning %v, want %v (warnings %q)", c.sql, got, c.warn, r.Warnings)
		}
	}
}

// TestRouting_StringLiteralQuoted: a reason quotes the statement's
// conditions as SQL writes them: a string literal keeps its single quotes
// (a quote inside doubled, standard SQL's escape), in text and JSON;
// numbers stay bare. The expected texts are the statements' own
// conditions, written out by hand.
func TestRouting_StringLiteralQuoted(t *testing.T) {
	for _, c := range []struct {
		design, sql, want string
	}{
		{"hash(name)", "SELECT * FROM t WHERE name = 'x'", "name = 'x' binds every column of the key hash(name) on t"},
		{"hash(name)", "SELECT * FROM t WHERE name = 'it''s'", "name = 'it''s' binds every column"},
		{"hash(name)", "SELECT * FROM t WHERE name IN ('a', 'b')", "name IN ('a', 'b') routes by the key hash(name)"},
		{"hash(id)", "SELECT * FROM t WHERE id = 42", "id = 42 binds every column"},
		{"users:hash(id), lookup(email)", "SELECT * FROM users WHERE email = 'a@x.com'", "email = 'a@x.com' does not bind the key hash(id) on users"},
	} {
		for _, format := range []string{"table", "json"} {
			code, out, errs := runCmd(t, "", "explain", "--format", format, "--dialect", "mysql", "-k", c.design, c.sql)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", c.sql, code, errs)
			}
			reason := out
			if format == "json" {
				var r routed
				if err := json.Unmarshal([]byte(out), &r); err != nil {
					t.Fatal(err)
				}
				reason = r.Reason
			}
			if !strings.Contains(reason, c.want) {
				t.Errorf("%s (%s): reason %q; want it to contain %q", c.sql, format, reason, c.want)
			}
		}
	}
}

// TestRouting_HintMultipleVindex: Vitess refuses a table with more than
// one vindex hint (USE VINDEX then IGNORE VINDEX, or two USE VINDEX)
// before it plans the statement: VT09020 "can not use multiple vindex
// hints for table %s", the table as the statement names it
// (checkAliasedTableExpr, go/vt/vtgate/semantics/check_invalid.go, and
// its test check_invalid_test.go; vterrors/code.go, v0.24.4). explain
// warns so, in text and JSON; one hint naming two vindexes is allowed.
func TestRouting_HintMultipleVindex(t *testing.T) {
	vs := filepath.Join("testdata", "vitess", "vschema.json")
	for _, c := range []struct {
		sql  string
		want string // the Vitess error text, "" for none
	}{
		{"SELECT * FROM music USE VINDEX (music_user_map) IGNORE VINDEX (user_index) WHERE id = 5", "can not use multiple vindex hints for table music"},
		{"SELECT * FROM music USE VINDEX (music_user_map) USE VINDEX (user_index) WHERE id = 5", "can not use multiple vindex hints for table music"},
		{"SELECT * FROM user_extra WHERE user_id IN (SELECT user_id FROM music IGNORE VINDEX (user_index) IGNORE VINDEX (music_user_map) WHERE id = 5)", "can not use multiple vindex hints for table music"},
		{"SELECT * FROM music USE VINDEX (music_user_map, user_index) WHERE id = 5", ""},
		{"SELECT * FROM music IGNORE VINDEX (user_index) WHERE id = 5", ""},
	} {
		for _, format := range []string{"table", "json"} {
			code, out, errs := runCmd(t, "", "explain", "--format", format, "--dialect", "mysql", "-k", "@"+vs, "--engine", "vitess", "--shards", "4", c.sql)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", c.sql, code, errs)
			}
			warnings := errs
			if format == "json" {
				var r struct {
					Warnings []string `json:"warnings"`
				}
				if err := json.Unmarshal([]byte(out), &r); err != nil {
					t.Fatal(err)
				}
				warnings = strings.Join(r.Warnings, "\n")
			}
			got := strings.Contains(warnings, "VT09020")
			if got != (c.want != "") || c.want != "" && strings.Count(warnings, c.want+" (VT09020)") != 1 {
				t.Errorf("%s (%s): warnings %q; want %q (VT09020) once", c.sql, format, warnings, c.want)
			}
		}
	}
}

// TestRouting_MergedReasonOnce: a read merged with another read of its
// table on a unique lookup (TestRouting_UniqueLookupMerge) is routed by
// the same condition as that read, so the reason states the condition
// once and says that both reads are one route and why, instead of
// repeating the inner read's clause for the outer read. 5's shard under
// 4 shards is vitessShards(4, 5) (Vitess's own hash vector).
func TestRouting_MergedReasonOnce(t *testing.T) {
	const d = "music:hash(user_id), lookup(id)"
	shard := vitessShards(4, 5)[0]
	for _, sql := range []string{
		"SELECT id FROM music WHERE id IN (SELECT id FROM music WHERE user_id = 5)",
		"SELECT id FROM music WHERE id IN (SELECT id FROM music WHERE user_id = 5) AND user_id IN (1, 2)",
		"SELECT a.id FROM music a JOIN music b ON a.id = b.id WHERE b.user_id = 5",
	} {
		code, out, errs := runCmd(t, "", "explain", "--format", "json", "--dialect", "mysql", "--engine", "vitess", "--shards", "4", "-k", d, sql)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", sql, code, errs)
		}
		var r routed
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		clause := fmt.Sprintf("read music: user_id = 5 binds every column of the key hash(user_id) on music: single-shard, shard %d", shard)
		if strings.Count(r.Reason, "user_id = 5") != 1 || !strings.HasPrefix(r.Reason, clause) ||
			!strings.Contains(r.Reason, "both reads of music: one route, as they are compared on id, a unique lookup") {
			t.Errorf("%s: reason %q; want %q once, then that both reads of music are one route (compared on id, a unique lookup)", sql, r.Reason, clause)
		}
	}
}
