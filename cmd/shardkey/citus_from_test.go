package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// citusPG creates a throwaway database holding a hand-made Citus
// coordinator's metadata (../../livedb/testdata/citus_metadata.sql),
// dropped when the test ends, and returns its DSN and a connection to
// it. It skips when PostgreSQL does not answer (outside CI) or its user
// is not a superuser.
func citusPG(t *testing.T) (string, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	admin := os.Getenv("SHARDKEY_TEST_PG")
	if admin == "" {
		admin = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	a, err := pgx.Connect(ctx, admin)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no PostgreSQL at %s: %v", admin, err)
		}
		t.Skipf("no PostgreSQL at %s: %v", admin, err)
	}
	t.Cleanup(func() { a.Close(ctx) })
	var super bool
	if err := a.QueryRow(ctx, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&super); err != nil {
		t.Fatal(err)
	}
	if !super {
		t.Skip("creating Citus' catalog tables in pg_catalog needs a superuser")
	}
	name := fmt.Sprintf("shardkey_test_citusmeta_cli_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
	if _, err := a.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := a.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	cfg, _ := pgx.ParseConfig(admin)
	dsn := fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Host, cfg.Port, name)
	db, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(ctx) })
	sql, err := os.ReadFile("../../livedb/testdata/citus_metadata.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, string(sql), pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatalf("citus_metadata.sql: %v", err)
	}
	return dsn, db
}

// score --from on a Citus coordinator, without -k, scores the design the
// metadata describes, on Citus' engine and 4 shards, and shows each
// shard's interval beside its load. The loads are counted by PostgreSQL
// itself: each table's rows whose hashint4 of the distribution column
// falls in the shard's interval (events, of 8 shards in the metadata, is
// scored on the 4), plus the reference table's 4 rows spread over the 4
// shards and the local table's 50 rows on shard 0 (a table the design
// leaves unsharded is one copy on shard 0).
func TestFromCitusDesign(t *testing.T) {
	dsn, db := citusPG(t)
	code, out, errs := runCmd(t, "", "score", "--from", dsn, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	var doc struct {
		Engine     string
		Shards     int
		Warnings   []string
		Candidates []struct {
			Key             string
			ShardLoad       []float64    `json:"shard_load"`
			ShardHashRanges [][][2]int32 `json:"shard_hash_ranges"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	design := "countries:replicate; events:hash(user_id); orders:hash(user_id); users:hash(id)"
	if doc.Engine != "citus" || doc.Shards != 4 || len(doc.Candidates) != 1 || doc.Candidates[0].Key != design {
		t.Fatalf("engine %q, %d shards, candidates %+v; want citus, 4, %q", doc.Engine, doc.Shards, doc.Candidates, design)
	}
	c := doc.Candidates[0]
	ranges := [][2]int32{{-2147483648, -1073741825}, {-1073741824, -1}, {0, 1073741823}, {1073741824, 2147483647}}
	for s, r := range ranges {
		if len(c.ShardHashRanges) != 4 || !slices.Equal(c.ShardHashRanges[s], [][2]int32{r}) {
			t.Fatalf("shard_hash_ranges %v, want one interval a shard: %v", c.ShardHashRanges, ranges)
		}
		var rows float64
		err := db.QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM users WHERE hashint4(id) BETWEEN $1 AND $2) +
			(SELECT count(*) FROM orders WHERE hashint4(user_id) BETWEEN $1 AND $2) +
			(SELECT count(*) FROM events WHERE hashint4(user_id) BETWEEN $1 AND $2)`, r[0], r[1]).Scan(&rows)
		if err != nil {
			t.Fatal(err)
		}
		want := rows + 4.0/4
		if s == 0 {
			want += 50
		}
		if c.ShardLoad[s] != want {
			t.Errorf("shard %d (%d..%d): load %v, want %v", s, r[0], r[1], c.ShardLoad[s], want)
		}
	}
	said := false
	for _, wn := range doc.Warnings {
		said = said || strings.Contains(wn, "runs, from its citus") && strings.Contains(wn, design)
	}
	if !said || !strings.Contains(errs, "the design scored as @from") {
		t.Errorf("the report does not say the design came from the database:\n%v\n%s", doc.Warnings, errs)
	}

	// explain routes under it: users.id = 1 hashes (PostgreSQL's
	// hashint4) into the first shard's interval.
	var h int32
	if err := db.QueryRow(context.Background(), "SELECT hashint4(1)").Scan(&h); err != nil {
		t.Fatal(err)
	}
	wantShard := slices.IndexFunc(ranges, func(r [2]int32) bool { return r[0] <= h && h <= r[1] })
	code, out, errs = runCmd(t, "", "explain", "--from", dsn, "-k", "@from", "--format", "json", "SELECT email FROM users WHERE id = 1")
	var ex struct{ Shards []int }
	if code != 0 || json.Unmarshal([]byte(out), &ex) != nil || !slices.Equal(ex.Shards, []int{wantShard}) {
		t.Errorf("explain -k @from: exit %d, shards %v, want [%d] (hashint4(1) = %d)\n%s%s", code, ex.Shards, wantShard, h, out, errs)
	}

	// advise prices a reshard from the design in use (the metadata has no
	// statements to generate candidates from: they are named).
	code, out, errs = runCmd(t, "", "advise", "--from", dsn, "--current", "@from", "-k", "@from", "-k", "hash(id)", "--sweep", "", "--bootstrap", "0", "--format", "json")
	if code != 0 {
		t.Fatalf("advise --current @from: exit %d\n%s", code, errs)
	}
	var adv struct {
		Engine  string
		Reshard []struct {
			From, To string
		}
	}
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatal(err)
	}
	if adv.Engine != "citus" || len(adv.Reshard) != 1 || adv.Reshard[0].From != design || adv.Reshard[0].To != "hash(id)" {
		t.Errorf("advise --current @from: engine %q, reshard plans %+v; want citus and one from %q to hash(id)\n%s", adv.Engine, adv.Reshard, design, out)
	}
}

// -k @from on a database without Citus metadata is a usage error naming
// why; without --from, too.
func TestFromNotCitus(t *testing.T) {
	dsn, _ := fromPG(t)
	code, _, errs := runCmd(t, "", "score", "--from", dsn, "-k", "@from")
	if code != 2 || !strings.Contains(errs, "keeps no Citus metadata") {
		t.Errorf("exit %d, want 2 naming the missing Citus metadata:\n%s", code, errs)
	}
	code, _, errs = runCmd(t, "", "score", "-k", "@from")
	if code != 2 || !strings.Contains(errs, "give --from DSN") {
		t.Errorf("no --from: exit %d, want 2:\n%s", code, errs)
	}
	// Without -k, a database that runs no design asks for keys as before.
	code, _, errs = runCmd(t, "", "score", "--from", dsn)
	if code != 2 || !strings.Contains(errs, "no keys to score") {
		t.Errorf("no -k: exit %d, want 2 asking for keys:\n%s", code, errs)
	}
}

// citusLog writes a PostgreSQL stderr log (log_statement=all) in which
// each of users 1..40 is read by id and has its orders read by user_id.
func citusLog(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	n := 0
	for i := 1; i <= 40; i++ {
		for _, q := range []string{"SELECT email FROM users WHERE id = %d;", "SELECT total FROM orders WHERE user_id = %d;"} {
			n++
			fmt.Fprintf(&b, "2026-11-30 23:04:%02d.%03d UTC [%d] app@app LOG:  statement: "+q+"\n", n/1000, n%1000, 30000+i, i)
		}
	}
	p := t.TempDir() + "/pg.log"
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// reshardTable is one table of a reshard plan in advise's JSON.
type reshardTable struct {
	Table     string
	Rewritten bool
}

// adviceInUse is what TestAdviseCitusInUse reads of advise's JSON.
type adviceInUse struct {
	Recommended string
	InUse       string `json:"in_use"`
	KeepInUse   bool   `json:"keep_in_use"`
	Summary     []string
	Candidates  []struct {
		Key      string
		InUse    bool `json:"in_use"`
		Verdict  string
		Criteria struct {
			SingleShard    float64 `json:"single_shard_fraction"`
			WorkPerRequest float64 `json:"work_per_request"`
		}
	}
	Reshard []struct {
		From, To string
		Tables   []reshardTable
	}
}

// A plain advise --from on a Citus coordinator weighs the design in use
// as the baseline. The log reads users by id and orders by user_id, 40
// times each.
//
// Right design (the fixture: users by id, orders by user_id): every
// statement binds its table's distribution column, so all 80 are
// single-shard (1.0, 1 unit a request); no design does better than one
// shard a request, so the advice keeps it and prices no reshard to
// itself.
//
// Poor design (orders distributed by id, which no statement filters
// on): the 40 order reads scatter to the 4 shards, so 40 of 80 requests
// are single-shard (0.5) and a request costs (40x1 + 40x4)/80 = 2.5
// units; a design keying orders by user_id makes all 80 single-shard, so
// the advice changes it and prices the reshard from the design in use,
// which rewrites orders.
func TestAdviseCitusInUse(t *testing.T) {
	dsn, db := citusPG(t)
	logf := citusLog(t)
	advise := func() adviceInUse {
		t.Helper()
		code, out, errs := runCmd(t, "", "advise", "--from", dsn, "--log", logf, "--sweep", "", "--bootstrap", "0", "--format", "json")
		if code != 0 {
			t.Fatalf("advise: exit %d\n%s", code, errs)
		}
		if !strings.Contains(errs, "scored as the advice's baseline") {
			t.Errorf("stderr does not say the design in use is the baseline:\n%s", errs)
		}
		var a adviceInUse
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	inUse := func(a adviceInUse) int {
		for i, c := range a.Candidates {
			if c.InUse {
				return i
			}
		}
		t.Fatalf("no candidate is the design in use: %+v", a.Candidates)
		return -1
	}

	right := "countries:replicate; events:hash(user_id); orders:hash(user_id); users:hash(id)"
	a := advise()
	i := inUse(a)
	c := a.Candidates[i]
	if a.InUse != right || c.Key != right || c.Criteria.SingleShard != 1 || c.Criteria.WorkPerRequest != 1 {
		t.Errorf("right design: in use %q (candidate %q), single-shard %v, work/request %v; want %q, 1, 1", a.InUse, c.Key, c.Criteria.SingleShard, c.Criteria.WorkPerRequest, right)
	}
	if !a.KeepInUse || a.Recommended != right || i != 0 || !strings.HasPrefix(c.Verdict, "in use (from pg_dist_partition); keep it") ||
		!strings.HasPrefix(a.Summary[0], "Keep the design in use") {
		t.Errorf("right design: keep %v, recommended %q (rank %d, %q), summary %q; want it kept", a.KeepInUse, a.Recommended, i+1, c.Verdict, a.Summary[0])
	}
	for _, p := range a.Reshard {
		if p.From != right || p.To == right {
			t.Errorf("right design: reshard %s -> %s, want from the design in use to the other candidates", p.From, p.To)
		}
	}

	// orders distributed by its column 1, id.
	if _, err := db.Exec(context.Background(), `SET allow_system_table_mods = on;
UPDATE pg_catalog.pg_dist_partition SET partkey = replace(partkey, ':varattno 2 ', ':varattno 1 ') WHERE logicalrelid = 'orders'::regclass`); err != nil {
		t.Fatal(err)
	}
	poor := "countries:replicate; events:hash(user_id); orders:hash(id); users:hash(id)"
	a = advise()
	i = inUse(a)
	c = a.Candidates[i]
	if a.InUse != poor || c.Key != poor || c.Criteria.SingleShard != 0.5 || c.Criteria.WorkPerRequest != 2.5 {
		t.Errorf("poor design: in use %q (candidate %q), single-shard %v, work/request %v; want %q, 0.5, 2.5", a.InUse, c.Key, c.Criteria.SingleShard, c.Criteria.WorkPerRequest, poor)
	}
	if a.KeepInUse || a.Recommended == poor || i == 0 || a.Candidates[0].Criteria.SingleShard != 1 ||
		!strings.HasPrefix(c.Verdict, "in use (from pg_dist_partition); possible, but read orders") ||
		!strings.HasPrefix(a.Summary[0], "Change the design in use") {
		t.Errorf("poor design: keep %v, recommended %q (single-shard %v), in use ranked %d (%q), summary %q; want a change to a 100%% single-shard design",
			a.KeepInUse, a.Recommended, a.Candidates[0].Criteria.SingleShard, i+1, c.Verdict, a.Summary[0])
	}
	var plan bool
	for _, p := range a.Reshard {
		if p.From == poor && p.To == a.Recommended {
			plan = slices.ContainsFunc(p.Tables, func(tb reshardTable) bool { return tb.Table == "orders" && tb.Rewritten })
		}
	}
	if !plan {
		t.Errorf("poor design: no reshard from %q to %q rewriting orders: %+v", poor, a.Recommended, a.Reshard)
	}
}

// On a coordinator whose distributed tables are empty shells (their rows
// on the workers), score says so on stderr and in the report, and each
// shard's row load is "unknown", not 0.
func TestFromCitusShells(t *testing.T) {
	dsn, db := citusPG(t)
	if _, err := db.Exec(context.Background(), "TRUNCATE users, orders, events; ANALYZE"); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "", "score", "--from", dsn, "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if !strings.Contains(errs, "empty shells") || !strings.Contains(out, "empty shells") {
		t.Errorf("the empty shells are not said on stderr and in the report:\n%s\n%s", errs, out)
	}
	for _, r := range []string{"| 0 | -2147483648..-1073741825 |", "| 3 | 1073741824..2147483647 |"} {
		i := strings.Index(out, r)
		if i < 0 || !strings.HasPrefix(out[i+len(r):], " 0 | unknown |") {
			t.Errorf("shard row %q: want work 0 and load unknown:\n%s", r, out)
		}
	}
}

// score --from a Citus coordinator with -k @from: the rows per shard
// computed inside the database are for the placement the database runs
// (its pg_dist_shard intervals, hashint4 of the distribution column), so
// they apply to the design scored and the report shows them, although
// --engine was not given (the sums used to be computed for the default
// engine, generic, which PostgreSQL has no hash of, and were left out).
// Each shard's rows are counted by PostgreSQL itself.
func TestFromCitusShardRows(t *testing.T) {
	dsn, db := citusPG(t)
	code, out, errs := runCmd(t, "", "score", "--from", dsn, "-k", "@from", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	var doc struct {
		Candidates []struct {
			Tables []struct {
				Table    string
				Database *struct {
					ShardRows   []int64 `json:"shard_rows"`
					ShardMethod string  `json:"shard_method"`
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Candidates) != 1 {
		t.Fatalf("%d candidates", len(doc.Candidates))
	}
	ranges := [][2]int32{{-2147483648, -1073741825}, {-1073741824, -1}, {0, 1073741823}, {1073741824, 2147483647}}
	checked := 0
	for _, tk := range doc.Candidates[0].Tables {
		col := map[string]string{"users": "id", "orders": "user_id"}[tk.Table]
		if col == "" {
			continue
		}
		checked++
		if tk.Database == nil || len(tk.Database.ShardRows) != 4 {
			t.Errorf("%s: database figures %+v; want rows on the 4 shards", tk.Table, tk.Database)
			continue
		}
		for s, r := range ranges {
			var want int64
			if err := db.QueryRow(context.Background(), fmt.Sprintf("SELECT count(*) FROM %s WHERE hashint4(%s) BETWEEN $1 AND $2", tk.Table, col), r[0], r[1]).Scan(&want); err != nil {
				t.Fatal(err)
			}
			if tk.Database.ShardRows[s] != want {
				t.Errorf("%s shard %d: %d rows, PostgreSQL counts %d", tk.Table, s, tk.Database.ShardRows[s], want)
			}
		}
		if !strings.Contains(tk.Database.ShardMethod, "pg_dist_shard") {
			t.Errorf("%s: method %q does not say the intervals are the database's", tk.Table, tk.Database.ShardMethod)
		}
	}
	if checked != 2 {
		t.Errorf("%d of users and orders reported", checked)
	}
}
