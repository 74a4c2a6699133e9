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
