package livedb

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shardkey/shardkey"
)

// TestPlanEstimate reads the row estimate of real EXPLAIN (FORMAT JSON)
// output. The Citus plans are a real Citus 12.1.12 coordinator's
// (docs/own-database.md, "Verified on a real Citus cluster"): orders has
// 32 shards, the first of which its worker estimates at 588 rows
// (ANALYZEd: the shard holds 588), and its custom scan's own "Plan Rows"
// is Citus' constant 100000; countries is a reference table, one task of
// 20 rows, whose custom scan says 0. The estimate is tasks x the task's
// rows: 32 x 588 = 18816 and 1 x 20 = 20.
func TestPlanEstimate(t *testing.T) {
	for _, c := range []struct {
		file        string
		est         float64
		tasks       int
		taskRows    float64
		nonCitusEst float64
	}{
		{"testdata/citus_explain_orders.json", 18816, 32, 588, 100000},
		{"testdata/citus_explain_countries.json", 20, 1, 20, 0},
	} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		est, cit, err := planEstimate(string(b))
		if err != nil || cit == nil || est != c.est || cit.tasks != c.tasks || cit.taskRows != c.taskRows {
			t.Errorf("%s: %v, %+v, %v; want %v from %d x %v", c.file, est, cit, err, c.est, c.tasks, c.taskRows)
		}
	}
	// PostgreSQL's own plan: its Plan Rows, no Citus.
	plain := `[{"Plan": {"Node Type": "Seq Scan", "Relation Name": "t", "Plan Rows": 1234, "Plan Width": 4}}]`
	if est, cit, err := planEstimate(plain); err != nil || cit != nil || est != 1234 {
		t.Errorf("plain plan: %v, %+v, %v; want 1234", est, cit, err)
	}
	// A Citus scan whose EXPLAIN shows no task: an error, not 0 rows.
	if _, _, err := planEstimate(`[{"Plan": {"Node Type": "Custom Scan", "Custom Plan Provider": "Citus Adaptive", "Plan Rows": 100000, "Distributed Query": {"Job": {"Task Count": 32, "Tasks": []}}}}]`); err == nil {
		t.Error("a Citus plan without a task: no error")
	}
	if _, _, err := planEstimate(`not json`); err == nil {
		t.Error("bad JSON: no error")
	}
}

// TestRowIdentity: through a Citus coordinator, rows of different shards
// come with the shell's tableoid and the same ctids (a real 5,000-row,
// 32-shard table gave 2,590 distinct (tableoid, ctid) pairs), so their
// identity takes in their values; without Citus it is (tableoid, ctid)
// alone, as before.
func TestRowIdentity(t *testing.T) {
	oid := make([]byte, 4)
	binary.BigEndian.PutUint32(oid, 17227)
	ctid := []byte{0, 0, 0, 0, 0, 1} // (0,1)
	a := [][]byte{oid, ctid, []byte("\x00\x00\x00\x00\x00\x00\x00\x01"), []byte("user 1")}
	b := [][]byte{oid, ctid, []byte("\x00\x00\x00\x00\x00\x00\x00\x0f"), []byte("user 15")}
	if rowIdentity(a, false) != rowIdentity(b, false) {
		t.Error("without Citus, rows of the same tableoid and ctid differ: the identity is (tableoid, ctid)")
	}
	if rowIdentity(a, true) == rowIdentity(b, true) {
		t.Error("through Citus, two shards' rows at (0,1) share an identity")
	}
	if rowIdentity(a, true) != rowIdentity([][]byte{oid, ctid, a[2], a[3]}, true) {
		t.Error("the identity is not a function of the row")
	}
	// NULL and an empty value differ; so does moving bytes between columns.
	if rowIdentity([][]byte{oid, ctid, nil}, true) == rowIdentity([][]byte{oid, ctid, {}}, true) {
		t.Error("NULL and '' share an identity")
	}
	if rowIdentity([][]byte{oid, ctid, []byte("ab"), []byte("c")}, true) == rowIdentity([][]byte{oid, ctid, []byte("a"), []byte("bc")}, true) {
		t.Error("('ab','c') and ('a','bc') share an identity")
	}
	// (0,1) vs (0,2) in one table: distinct as before.
	if rowIdentity([][]byte{oid, ctid}, false) == rowIdentity([][]byte{oid, {0, 0, 0, 0, 0, 2}}, false) {
		t.Error("two ctids share an identity")
	}
}

// TestPushdown_EmptyTable: an empty table's per-shard sums are zeros, not
// an error. array_agg over no group is NULL, which the per-shard parse
// once refused ("unexpected array \"\"", found when a real Citus worker's
// TABLESAMPLE drew no row from its shard tables; a plain empty table did
// the same).
func TestPushdown_EmptyTable(t *testing.T) {
	if _, err := pgIntArray(nil); err != nil {
		t.Errorf("NULL array: %v", err)
	}
	if v, err := pgIntArray([]byte("{3,NULL}")); err != nil || len(v) != 2 || v[0] != 3 || v[1] != -1 {
		t.Errorf("{3,NULL}: %v, %v", v, err)
	}
	if _, err := pgIntArray([]byte("3")); err == nil {
		t.Error("3: no error")
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pgAdminDSN())
	if err != nil {
		skipOrFail(t, "no PostgreSQL at %s: %v", pgAdminDSN(), err)
	}
	t.Cleanup(func() { admin.Close(ctx) })
	dsn := pgThrowaway(t, ctx, admin, fmt.Sprintf("shardkey_test_empty_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6))
	db, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "CREATE TABLE empty_t (id int, v text); ANALYZE empty_t"); err != nil {
		t.Fatal(err)
	}
	db.Close(ctx)
	for _, engine := range []string{"citus", "postgres"} {
		w := &shardkey.Workload{Seed: 1}
		if err := Read(ctx, w, dsn, Options{NoStatements: true, SampleRows: 100, Engine: engine, Shards: 4}); err != nil {
			t.Fatal(err)
		}
		for _, e := range w.Warnings {
			if strings.Contains(e.Error(), "failed") {
				t.Errorf("%s: %v", engine, e)
			}
		}
		c := w.Catalog.Table("empty_t").Columns[0]
		if m := c.Measured; m == nil || m.Rows != 0 || len(m.ShardRows) != 4 || slices.Max(m.ShardRows) != 0 {
			t.Errorf("%s: measured %+v; want 0 rows on each of 4 shards", engine, m)
		}
	}
}
