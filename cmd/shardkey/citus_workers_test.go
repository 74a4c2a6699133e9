package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/pgserver"
	"github.com/shardkey/shardkey/partition"
)

// startWorker starts a throwaway PostgreSQL server (internal/pgserver)
// and returns its port.
func startWorker(t *testing.T) int { return pgserver.Start(t) }

// score --from a Citus coordinator -k @from, its distributed table's rows
// on two workers (throwaway servers; the coordinator's catalog made by
// hand as in citus_metadata.sql, plus pg_dist_placement and
// pg_dist_node): every format shows the figures computed on the workers
// and names them, and the rows per shard are those the shard tables hold
// (users.id = 1..1000 placed by partition.Citus on 4 uniform intervals,
// shards 0 and 1 on worker A, 2 and 3 on worker B; counted here).
func TestFromCitusWorkers(t *testing.T) {
	dsn, coord := citusPG(t)
	ctx := context.Background()
	portA, portB := startWorker(t), startWorker(t)
	cfg, _ := pgx.ParseConfig(dsn)
	name := cfg.Database
	stmts := fmt.Sprintf(`SET allow_system_table_mods = on;
CREATE TYPE pg_catalog.noderole AS ENUM ('primary', 'secondary', 'unavailable');
CREATE TABLE pg_catalog.pg_dist_placement (placementid bigint NOT NULL, shardid bigint NOT NULL, shardstate int NOT NULL, shardlength bigint NOT NULL, groupid int NOT NULL);
CREATE TABLE pg_catalog.pg_dist_node (nodeid int NOT NULL, groupid int NOT NULL, nodename text NOT NULL, nodeport int NOT NULL DEFAULT 5432,
    noderack text NOT NULL DEFAULT 'default', hasmetadata bool NOT NULL DEFAULT false, isactive bool NOT NULL DEFAULT true,
    noderole pg_catalog.noderole NOT NULL DEFAULT 'primary', nodecluster name NOT NULL DEFAULT 'default',
    metadatasynced bool DEFAULT false, shouldhaveshards bool NOT NULL DEFAULT true);
RESET allow_system_table_mods;
INSERT INTO pg_catalog.pg_dist_node (nodeid, groupid, nodename, nodeport) VALUES (1, 1, '127.0.0.1', %d), (2, 2, '127.0.0.1', %d);
INSERT INTO pg_catalog.pg_dist_placement VALUES (1, 102008, 1, 0, 1), (2, 102009, 1, 0, 1), (3, 102010, 1, 0, 2), (4, 102011, 1, 0, 2);
TRUNCATE users;`, portA, portB)
	if _, err := coord.Exec(ctx, stmts, pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatalf("coordinator: %v", err)
	}
	eng, _ := partition.Lookup("citus")
	layout, err := eng.Layout(4)
	if err != nil {
		t.Fatal(err)
	}
	perShard := make([][]int64, 4)
	for id := int64(1); id <= 1000; id++ {
		p, err := eng.Point([]shardkey.Value{shardkey.IntValue(id)})
		if err != nil {
			t.Fatal(err)
		}
		s := layout.Shard(p)
		perShard[s] = append(perShard[s], id)
	}
	for i, port := range []int{portA, portB} {
		admin, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
			t.Fatal(err)
		}
		admin.Close(ctx)
		db, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", port, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []int{2 * i, 2*i + 1} {
			table := fmt.Sprintf("users_%d", 102008+s)
			if _, err := db.Exec(ctx, "CREATE TABLE "+table+" (id int PRIMARY KEY, email text)"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(ctx, "INSERT INTO "+table+" SELECT i, 'u' || i || '@example.com' FROM unnest($1::int8[]) i", perShard[s]); err != nil {
				t.Fatal(err)
			}
		}
		db.Close(ctx)
	}

	code, out, errs := runCmd(t, "", "score", "--from", dsn, "-k", "@from", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	var doc struct {
		Candidates []struct {
			Tables []struct {
				Table       string
				Cardinality int
				Database    *struct {
					Method    string
					Rows      int64
					ShardRows []int64 `json:"shard_rows"`
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	workers := fmt.Sprintf("inside the Citus workers 127.0.0.1:%d (2 shard tables), 127.0.0.1:%d (2 shard tables)", portA, portB)
	found := false
	for _, tk := range doc.Candidates[0].Tables {
		if tk.Table != "users" {
			continue
		}
		found = true
		d := tk.Database
		if d == nil {
			t.Fatalf("users: no database figures\n%s", errs)
		}
		want := fmt.Sprint([]int{len(perShard[0]), len(perShard[1]), len(perShard[2]), len(perShard[3])})
		if tk.Cardinality != 1000 || d.Rows != 1000 || fmt.Sprint(d.ShardRows) != want || !strings.Contains(d.Method, workers) {
			t.Errorf("users: cardinality %d, database %+v; want 1000 distinct of 1000 rows, rows per shard %s, method naming %q", tk.Cardinality, d, want, workers)
		}
	}
	if !found {
		t.Fatal("users not reported")
	}
	for _, format := range []string{"table", "markdown"} {
		code, out, errs = runCmd(t, "", "score", "--from", dsn, "-k", "@from", "--format", format)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", format, code, errs)
		}
		// The key's line, and the warning listing the measured columns
		// (stderr beside a table, in the document in Markdown).
		wants := []string{"users: computed inside the database (whole table, " + workers, fmt.Sprintf("users on 127.0.0.1:%d, 127.0.0.1:%d", portA, portB),
			"; unknown (no row sampled): entropy, shard_load, work"}
		if format == "table" {
			wants = append(wants, "key id on users: 1,000 distinct values, hottest 1 at 0.1% of rows' weight, entropy unknown (no row sampled)")
		}
		for _, want := range wants {
			if !strings.Contains(out+errs, want) {
				t.Errorf("%s output does not say %q:\n%s", format, want, out)
			}
		}
	}
}
