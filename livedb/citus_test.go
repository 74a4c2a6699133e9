package livedb

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shardkey/shardkey"
)

// citusTestDB creates a throwaway database holding
// testdata/citus_metadata.sql (a hand-made Citus coordinator's catalog)
// and returns its DSN; the database is dropped when the test ends. It
// skips when PostgreSQL does not answer (outside CI) or its user is not
// a superuser (the catalog tables go into pg_catalog).
func citusTestDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pgAdminDSN())
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no PostgreSQL at %s: %v", pgAdminDSN(), err)
		}
		t.Skipf("no PostgreSQL at %s: %v", pgAdminDSN(), err)
	}
	t.Cleanup(func() { admin.Close(ctx) })
	var super bool
	if err := admin.QueryRow(ctx, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&super); err != nil {
		t.Fatal(err)
	}
	if !super {
		t.Skip("creating Citus' catalog tables in pg_catalog needs a superuser")
	}
	dsn := pgThrowaway(t, ctx, admin, fmt.Sprintf("shardkey_test_citusmeta_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6))
	db, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	sql, err := os.ReadFile("testdata/citus_metadata.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, string(sql), pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatalf("testdata/citus_metadata.sql: %v", err)
	}
	return dsn
}

// TestRead_CitusMetadata reads the design from a hand-made Citus catalog:
// the hash tables keyed by their distribution column on the intervals
// most of them share (users and orders, colocation group 1, 4 shards of
// create_shards.c's formula, worked by hand in the SQL file), the
// reference table replicated, the local table unsharded, and events (8
// shards) named in a warning.
func TestRead_CitusMetadata(t *testing.T) {
	dsn := citusTestDB(t)
	w := &shardkey.Workload{Seed: 1}
	if err := Read(context.Background(), w, dsn, Options{}); err != nil {
		t.Fatal(err)
	}
	d := w.Catalog.Distribution
	if d == nil {
		t.Fatal("no distribution read")
	}
	if want := "countries:replicate; events:hash(user_id); orders:hash(user_id); users:hash(id)"; d.Design != want {
		t.Errorf("design %q, want %q", d.Design, want)
	}
	want := [][2]int32{{-2147483648, -1073741825}, {-1073741824, -1}, {0, 1073741823}, {1073741824, 2147483647}}
	if d.Shards != 4 || !slices.Equal(d.Ranges, want) {
		t.Errorf("%d shards %v, want 4 %v", d.Shards, d.Ranges, want)
	}
	if !strings.HasPrefix(d.System, "citus") {
		t.Errorf("system %q", d.System)
	}
	found := false
	for _, wn := range d.Warnings {
		found = found || strings.Contains(wn, "table events has 8 shards")
	}
	if !found || len(d.Warnings) != 1 {
		t.Errorf("warnings %q, want one naming events' 8 shards", d.Warnings)
	}
	var said bool
	for _, e := range w.Warnings {
		said = said || strings.Contains(e.Error(), "the design in use is countries:replicate; events:hash(user_id); orders:hash(user_id); users:hash(id), 4 shards")
	}
	if !said {
		t.Errorf("no warning tells the design: %v", w.Warnings)
	}
}

// TestRead_NotCitus: a database without Citus' catalog reads as before,
// without a distribution or a word about Citus.
func TestRead_NotCitus(t *testing.T) {
	dsn, _ := pgTestDB(t)
	w := &shardkey.Workload{Seed: 1}
	if err := Read(context.Background(), w, dsn, Options{SampleRows: 100}); err != nil {
		t.Fatal(err)
	}
	if w.Catalog.Distribution != nil {
		t.Errorf("distribution %+v on a database without Citus", w.Catalog.Distribution)
	}
	for _, e := range w.Warnings {
		if strings.Contains(strings.ToLower(e.Error()), "citus") {
			t.Errorf("warning about Citus: %v", e)
		}
	}
}

// TestCitusDesign: the design from metadata rows, without a database:
// tables of one colocation group keyed alike, the intervals most tables
// share chosen, and a warning for each thing the design cannot hold as
// Citus has it.
func TestCitusDesign(t *testing.T) {
	four := [][2]int32{{0, 1073741823}, {-2147483648, -1073741825}, {1073741824, 2147483647}, {-1073741824, -1}}
	two := [][2]int32{{-2147483648, -1}, {0, 2147483647}}
	col := func(names ...string) []*shardkey.ColumnInfo {
		var out []*shardkey.ColumnInfo
		for _, n := range names {
			out = append(out, &shardkey.ColumnInfo{Name: n})
		}
		return out
	}
	tables := []*shardkey.TableInfo{
		{Name: "a", Columns: col("id")}, {Name: "b", Columns: col("a_id")}, {Name: "c", Columns: col("id")},
		{Name: "logs", Columns: col("at")}, {Name: "ref", Columns: col("code")}, {Name: "solo", Columns: col("x")},
		{Name: "hidden", Columns: col("y")},
	}
	cts := []*citusTable{
		{name: "a", method: "h", column: "id", colocation: 1, ranges: append([][2]int32(nil), four...)},
		{name: "b", method: "h", column: "a_id", colocation: 2, ranges: append([][2]int32(nil), four...)},
		{name: "c", method: "h", column: "id", colocation: 3, ranges: two},
		{name: "logs", method: "r", column: "at", colocation: 4},
		{name: "ref", method: "n", colocation: 5, repmodel: "t"},
		{name: "solo", method: "n", colocation: 6, repmodel: "s"},
		{name: "hidden", method: "h", column: "z", colocation: 1, ranges: four},
		{name: "gone", method: "h", column: "id", colocation: 1, ranges: four},
	}
	d := &shardkey.Distribution{}
	citusDesign(d, cts, tables, nil)
	if want := "a:hash(id); b:hash(a_id); c:hash(id); ref:replicate"; d.Design != want {
		t.Errorf("design %q, want %q", d.Design, want)
	}
	sorted := [][2]int32{{-2147483648, -1073741825}, {-1073741824, -1}, {0, 1073741823}, {1073741824, 2147483647}}
	if d.Shards != 4 || !slices.Equal(d.Ranges, sorted) {
		t.Errorf("%d shards %v, want 4 %v", d.Shards, d.Ranges, sorted)
	}
	for _, want := range []string{
		"table c has 2 shards whose intervals differ from the 4 of a",
		"table logs is range-distributed",
		"table solo is a single-shard distributed table",
		`table hidden: distribution column "z" was not read`,
		"table gone is in the Citus metadata but was not sampled",
		"different colocation groups, 1 (a); 2 (b)",
	} {
		if !slices.ContainsFunc(d.Warnings, func(w string) bool { return strings.Contains(w, want) }) {
			t.Errorf("no warning %q in %q", want, d.Warnings)
		}
	}
	if len(d.Warnings) != 6 {
		t.Errorf("%d warnings, want 6: %q", len(d.Warnings), d.Warnings)
	}
}

// TestCitusDesignQuotedNames: a table and a column whose names are SQL
// delimited identifiers ("user-data", "the id") are in the design quoted,
// as the design grammar reads them, not left out.
func TestCitusDesignQuotedNames(t *testing.T) {
	two := [][2]int32{{-2147483648, -1}, {0, 2147483647}}
	tables := []*shardkey.TableInfo{
		{Name: "user-data", Columns: []*shardkey.ColumnInfo{{Name: "the id"}}},
		{Name: "a;b", Columns: []*shardkey.ColumnInfo{{Name: "code"}}},
	}
	cts := []*citusTable{
		{name: "user-data", method: "h", column: "the id", colocation: 1, ranges: two},
		{name: "a;b", method: "n", colocation: 2, repmodel: "t"},
	}
	d := &shardkey.Distribution{}
	citusDesign(d, cts, tables, nil)
	if want := `"user-data":hash("the id"); "a;b":replicate`; d.Design != want {
		t.Errorf("design %q, want %q (warnings %q)", d.Design, want, d.Warnings)
	}
	pd, err := shardkey.ParseDesign(d.Design)
	if err != nil {
		t.Fatal(err)
	}
	if c := pd.Tables["user-data"].Columns(); !slices.Equal(c, []string{"the id"}) {
		t.Errorf("user-data keyed by %q", c)
	}
	if d.Shards != 2 || len(d.Warnings) != 0 {
		t.Errorf("%d shards, warnings %q; want 2, none", d.Shards, d.Warnings)
	}
}

// TestRead_CitusShells: on a real coordinator a distributed table's own
// relation is an empty shell (its rows are in its shards on the
// workers). With users, orders and events emptied as a coordinator
// holds them, their row counts become unknown (RowEstimate -1, not 0),
// the warning names the three with their pg_dist_shard counts (4, 4 and
// 8, as the SQL file lists them), and the rows still sampled (audit's
// 50, countries' 4) are set aside so no row load rests on part of the data.
// countries (1 shard, 4 rows here) is not called a shell: it has rows.
func TestRead_CitusShells(t *testing.T) {
	dsn := citusTestDB(t)
	ctx := context.Background()
	db, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "TRUNCATE users, orders, events; ANALYZE"); err != nil {
		t.Fatal(err)
	}
	db.Close(ctx)
	w := &shardkey.Workload{Seed: 1}
	if err := Read(ctx, w, dsn, Options{}); err != nil {
		t.Fatal(err)
	}
	var msg string
	for _, wn := range w.Warnings {
		if strings.Contains(wn.Error(), "empty shells") {
			msg = wn.Error()
		}
	}
	for _, want := range []string{"events (8 shards;", "orders (4 shards;", "users (4 shards;", "(audit 50 rows, countries 4 rows)", "read row statistics from a worker"} {
		if !strings.Contains(msg, want) {
			t.Errorf("warning %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "countries (") {
		t.Errorf("countries has rows, yet is called a shell: %q", msg)
	}
	for _, name := range []string{"users", "orders", "events"} {
		ti := w.Catalog.Table(name)
		if ti == nil || ti.RowEstimate != -1 {
			t.Errorf("%s: row estimate %+v, want -1 (unknown)", name, ti)
			continue
		}
		// Statistics computed inside the database (the default,
		// --stats db) describe the empty shell: 0 rows, 0 distinct.
		for _, c := range ti.Columns {
			if c.Measured != nil {
				t.Errorf("%s.%s keeps the shell's measured statistics %+v", name, c.Name, c.Measured)
			}
		}
	}
	for _, tb := range w.Tables {
		if tb.Rows != 0 {
			t.Errorf("table %s keeps %d sampled rows", tb.Name, tb.Rows)
		}
	}

	// Without shells (the fixture as written) nothing is said or set aside.
	dsn = citusTestDB(t)
	w = &shardkey.Workload{Seed: 1}
	if err := Read(ctx, w, dsn, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, wn := range w.Warnings {
		if strings.Contains(wn.Error(), "empty shells") {
			t.Errorf("a coordinator whose tables hold rows is warned about: %v", wn)
		}
	}
	if tb := w.Table("users"); tb == nil || tb.Rows != 400 {
		t.Errorf("users: %+v, want its 400 rows", tb)
	}
}
