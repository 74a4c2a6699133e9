package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/key"
	"vitess.io/vitess/go/vt/vtgate/vindexes"
)

// mixedVSchema: users keyed by the hash vindex, accounts by
// unicode_loose_md5, in one sharded keyspace.
const mixedVSchema = `{"sharded": true,
 "vindexes": {"user_index": {"type": "hash"}, "login_index": {"type": "unicode_loose_md5"}},
 "tables": {
   "users": {"column_vindexes": [{"column": "user_id", "name": "user_index"}]},
   "accounts": {"column_vindexes": [{"column": "login", "name": "login_index"}]}}}`

// realVitessShard is the shard of 8 even keyspace-id ranges (-20, 20-40,
// ..., e0-: key.EvenShardsKeyRange) that Vitess's own vindex vtype maps v
// to, computed with vitess.io/vitess's vindexes package (CreateVindex and
// Map), not with shardkey's.
func realVitessShard(t *testing.T, vtype string, v sqltypes.Value) int {
	t.Helper()
	vx, err := vindexes.CreateVindex(vtype, vtype, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := vx.(vindexes.SingleColumn).Map(context.Background(), nil, []sqltypes.Value{v})
	if err != nil {
		t.Fatal(err)
	}
	ksid, ok := d[0].(key.DestinationKeyspaceID)
	if !ok || len(ksid) == 0 {
		t.Fatalf("%s(%v): destination %v", vtype, v, d[0])
	}
	return int(ksid[0]) / 32 // 8 even ranges of the first byte
}

// TestMixedVSchemaPlacesEachTable: a VSchema whose tables use different
// primary vindex types places each by its own, in one run and whatever
// --engine says: users.user_id = 5 on the hash vindex's shard, and
// accounts.login = 'O”Brien' on unicode_loose_md5's (the real Vitess
// vindexes' keyspace ids: hash 5 is 70bb023c..., shard 3; O'Brien is
// c3103b2f..., shard 6). An --engine that disagrees with a table's
// vindex is warned about, naming the table and the vindex; one that is
// not Vitess's is refused.
func TestMixedVSchemaPlacesEachTable(t *testing.T) {
	dir := t.TempDir()
	vs := filepath.Join(dir, "vs.json")
	if err := os.WriteFile(vs, []byte(mixedVSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	user5 := realVitessShard(t, "hash", sqltypes.NewInt64(5))
	obrien := realVitessShard(t, "unicode_loose_md5", sqltypes.NewVarChar("O'Brien"))
	if user5 != 3 || obrien != 6 {
		t.Fatalf("Vitess's own shards: user 5 on %d, O'Brien on %d; the comment says 3 and 6", user5, obrien)
	}
	type route struct {
		Shards []int  `json:"shards"`
		Route  string `json:"route"`
		Reason string `json:"reason"`
	}
	for _, engine := range [][]string{nil, {"--engine", "vitess"}, {"--engine", "vitess-unicode-loose-md5"}, {"--engine", "vitess-xxhash"}} {
		for _, c := range []struct {
			sql  string
			want []int
		}{
			{"SELECT * FROM users WHERE user_id = 5", []int{user5}},
			{"SELECT * FROM accounts WHERE login = 'O''Brien'", []int{obrien}},
			{"SELECT * FROM accounts WHERE login = 'o''brien  '", []int{obrien}}, // case and trailing spaces: the same key
			{"SELECT * FROM users u, accounts a WHERE u.user_id = 5 AND a.login = 'O''Brien'", []int{user5, obrien}},
			// A text for the hash vindex's integer column matches no
			// row; the unicode_loose_md5 column keeps its text.
			{"SELECT * FROM users WHERE user_id = 'abc' UNION SELECT * FROM accounts WHERE login = 'O''Brien'", []int{obrien}},
		} {
			args := append([]string{"explain", "--format", "json", "--dialect", "mysql", "-k", "@" + vs, "--shards", "8"}, engine...)
			code, out, errs := runCmd(t, "", append(args, c.sql)...)
			var r route
			if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
				t.Fatalf("%v %s: exit %d %v\n%s%s", engine, c.sql, code, err, out, errs)
			}
			if jsonInts(r.Shards) != jsonInts(c.want) {
				t.Errorf("%v %s: shards %v (%s); want %v", engine, c.sql, r.Shards, r.Reason, c.want)
			}
			all := out + errs
			if strings.Contains(all, "accounts.login") || strings.Contains(all, "login holds a value that is not") {
				t.Errorf("%v %s: login's text read as another type:\n%s", engine, c.sql, all)
			}
			if strings.Contains(c.sql, "'abc'") && !strings.Contains(errs, `users.user_id: "abc" is not a 64-bit integer): they match no row (Vitess's hash vindex maps`) {
				t.Errorf("%v %s: no warning on user_id 'abc':\n%s", engine, c.sql, all)
			}
			switch {
			case len(engine) == 0:
				if strings.Contains(errs, "placed by its primary vindex") {
					t.Errorf("%v: stderr %q; want no warning on --engine", engine, errs)
				}
			case engine[1] == "vitess":
				if !strings.Contains(errs, "table accounts is placed by its primary vindex login_index (type unicode_loose_md5, engine vitess-unicode-loose-md5), not by --engine vitess") || strings.Contains(errs, "table users") {
					t.Errorf("%v: stderr %q; want a warning on accounts alone", engine, errs)
				}
			case engine[1] == "vitess-xxhash":
				if !strings.Contains(errs, "table accounts is placed by its primary vindex login_index") || !strings.Contains(errs, "table users is placed by its primary vindex user_index (type hash, engine vitess), not by --engine vitess-xxhash") {
					t.Errorf("%v: stderr %q; want warnings on both tables", engine, errs)
				}
			}
		}
	}
	code, _, errs := runCmd(t, "", "explain", "--dialect", "mysql", "-k", "@"+vs, "--engine", "citus", "--shards", "8", "SELECT * FROM users WHERE user_id = 5")
	if code != 2 || !strings.Contains(errs, "--engine citus is not a Vitess engine") {
		t.Errorf("--engine citus: exit %d, %q; want a usage error", code, errs)
	}
}

func jsonInts(v []int) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestMixedVSchemaScoreAdvise: score -k, advise --current and advise -k
// --emit vschema place the rows of a mixed VSchema's tables by their own
// vindexes too: users 1, 2, 5, 6 and accounts TEST, Bést, O'Brien, hello
// fall on the shards Vitess's vindexes give them, so the busiest shard
// holds the row load the real keyspace ids give (max over mean); the
// VSchema emitted for it keeps each table's vindex.
func TestMixedVSchemaScoreAdvise(t *testing.T) {
	dir := t.TempDir()
	vs := filepath.Join(dir, "vs.json")
	users := filepath.Join(dir, "users.csv")
	accounts := filepath.Join(dir, "accounts.csv")
	for f, s := range map[string]string{vs: mixedVSchema, users: "user_id\n1\n2\n5\n6\n", accounts: "login\nTEST\nBést\nO'Brien\nhello\n"} {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load := make([]float64, 8)
	for _, v := range []int64{1, 2, 5, 6} {
		load[realVitessShard(t, "hash", sqltypes.NewInt64(v))]++
	}
	for _, v := range []string{"TEST", "Bést", "O'Brien", "hello"} {
		load[realVitessShard(t, "unicode_loose_md5", sqltypes.NewVarChar(v))]++
	}
	var busiest float64
	for _, l := range load {
		busiest = max(busiest, l)
	}
	wantRatio := busiest / 1 // 8 rows over 8 shards: a mean of 1
	rows := []string{"--rows", "users=" + users, "--rows", "accounts=" + accounts, "--shards", "8"}
	for _, engine := range [][]string{nil, {"--engine", "vitess-xxhash"}} {
		args := append(append([]string{"score", "--format", "json", "-k", "@" + vs}, rows...), engine...)
		code, out, errs := runCmd(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errs)
		}
		var doc struct {
			Candidates []struct {
				Key       string    `json:"key"`
				ShardLoad []float64 `json:"shard_load"`
				LoadRatio float64   `json:"load_ratio"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Candidates) != 1 {
			t.Fatalf("score json: %v\n%s", err, out)
		}
		c := doc.Candidates[0]
		got := c.ShardLoad
		for i := range load {
			if len(got) != 8 || !near(got[i]/sumOf(got), load[i]/8, 1e-9) {
				t.Errorf("%v: shard load %v; want in proportion to %v", engine, got, load)
				break
			}
		}
		if !near(c.LoadRatio, wantRatio, 1e-9) {
			t.Errorf("%v: load ratio %v; want %v", engine, c.LoadRatio, wantRatio)
		}
	}
	code, out, errs := runCmd(t, "", append([]string{"advise", "--format", "json", "--current", "@" + vs}, rows...)...)
	if code != 0 || !strings.Contains(out, `"accounts:hash(login, vindex=unicode_loose_md5); users:hash(user_id, vindex=hash)"`) {
		t.Errorf("advise --current: exit %d %s\n%s", code, errs, out)
	}
	code, out, errs = runCmd(t, "", append([]string{"advise", "-k", "@" + vs, "--emit", "vschema"}, rows...)...)
	if code != 0 {
		t.Fatalf("advise --emit vschema: exit %d %s", code, errs)
	}
	for _, want := range []string{`"type": "unicode_loose_md5"`, `"type": "hash"`} {
		if !strings.Contains(out, want) {
			t.Errorf("advise --emit vschema lacks %s:\n%s", want, out)
		}
	}
}

func sumOf(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}
