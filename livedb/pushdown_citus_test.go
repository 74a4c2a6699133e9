package livedb

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/pgserver"
	"github.com/shardkey/shardkey/partition"
)

// startPG starts a throwaway PostgreSQL server (internal/pgserver) and
// returns its port.
func startPG(t *testing.T) int { return pgserver.Start(t) }

// TestPushdown_CitusWorkers: on a Citus coordinator whose distributed
// tables are empty shells, the statistics are computed on the workers,
// over their shard tables, and merged.
//
// The cluster is built by hand: the coordinator is a throwaway database
// with Citus' catalog (testdata/citus_metadata.sql's two tables, and
// pg_dist_placement and pg_dist_node as citus--7.0-1--7.0-2.sql and
// Citus' metadata reference define them), two throwaway servers are the
// workers. orders is hash-distributed on user_id over three shards of
// intervals split by hand (not create_shards.c's uniform ones): shards 0
// and 2 on worker A, shard 1 on worker B (and on a node marked inactive,
// whose port no server listens on: it must not be used). countries is a
// reference table with its one shard on both workers. The rows, i = 1..N:
//
//	id      bigint = i                          N distinct
//	user_id int    = 1 + i % 500                500 distinct, N/500 rows each
//	amount  int    = floor(sqrt(i % 10000))     100 distinct, v on 2(2v+1) rows a 10,000
//	status  text   = NULL if i % 13 = 0, else 's' || i % 7
//
// placed into the shard partition.Citus (split points) gives user_id, as
// Citus' worker_hash does. Every expected figure is a closed form of that
// construction or counted here over the same rows; the per-shard rows and
// bytes are counted here with partition.Citus and the heap tuple layout
// (24-byte header with the NULL bitmap inside it, int8 and two int4, a
// short text varlena of 1 + len bytes).
func TestPushdown_CitusWorkers(t *testing.T) {
	const n = 20000
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pgAdminDSN())
	if err != nil {
		skipOrFail(t, "no PostgreSQL at %s: %v", pgAdminDSN(), err)
	}
	t.Cleanup(func() { admin.Close(ctx) })
	var super bool
	if err := admin.QueryRow(ctx, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&super); err != nil {
		t.Fatal(err)
	}
	if !super {
		t.Skip("creating Citus' catalog tables in pg_catalog needs a superuser")
	}
	portA, portB := startPG(t), startPG(t)
	name := fmt.Sprintf("shardkey_test_citus15_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
	dsn := pgThrowaway(t, ctx, admin, name)

	ranges := [][2]int32{{math.MinInt32, -1000000001}, {-1000000000, 499999999}, {500000000, math.MaxInt32}}
	spec, err := partition.CitusEngine(ranges)
	if err != nil {
		t.Fatal(err)
	}
	if spec != "citus(split_points=-1000000001,499999999)" {
		t.Fatalf("engine %q", spec)
	}
	eng, err := partition.Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := eng.Layout(3)
	if err != nil {
		t.Fatal(err)
	}
	shardOf := func(v shardkey.Value) int {
		p, err := eng.Point([]shardkey.Value{v})
		if err != nil {
			t.Fatal(err)
		}
		return layout.Shard(p)
	}
	ids := []int64{103000, 103001, 103002}
	onA := map[int]bool{0: true, 2: true}

	coord, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer coord.Close(ctx)
	sql, err := os.ReadFile("testdata/citus_metadata.sql")
	if err != nil {
		t.Fatal(err)
	}
	// The file's catalog tables, without its tables and rows.
	head, _, _ := strings.Cut(string(sql), "RESET allow_system_table_mods;")
	const schema = `CREATE TABLE orders (id bigint NOT NULL, user_id int NOT NULL, amount int NOT NULL, status text);
CREATE TABLE countries (code text PRIMARY KEY);`
	stmts := head + `
CREATE TYPE pg_catalog.noderole AS ENUM ('primary', 'secondary', 'unavailable');
CREATE TABLE pg_catalog.pg_dist_placement (
    placementid bigint NOT NULL, shardid bigint NOT NULL, shardstate int NOT NULL,
    shardlength bigint NOT NULL, groupid int NOT NULL);
CREATE TABLE pg_catalog.pg_dist_node (
    nodeid int NOT NULL, groupid int NOT NULL, nodename text NOT NULL, nodeport int NOT NULL DEFAULT 5432,
    noderack text NOT NULL DEFAULT 'default', hasmetadata bool NOT NULL DEFAULT false,
    isactive bool NOT NULL DEFAULT true, noderole pg_catalog.noderole NOT NULL DEFAULT 'primary',
    nodecluster name NOT NULL DEFAULT 'default', metadatasynced bool DEFAULT false,
    shouldhaveshards bool NOT NULL DEFAULT true);
RESET allow_system_table_mods;
` + schema + fmt.Sprintf(`
INSERT INTO pg_catalog.pg_dist_partition (logicalrelid, partmethod, partkey, colocationid, repmodel) VALUES
    ('orders', 'h', '{VAR :varno 1 :varattno 2 :vartype 23 :vartypmod -1 :varcollid 0 :varlevelsup 0 :varnosyn 1 :varattnosyn 2 :location -1}', 1, 's'),
    ('countries', 'n', NULL, 2, 't');
INSERT INTO pg_catalog.pg_dist_shard VALUES
    ('orders', 103000, 't', '%d', '%d'), ('orders', 103001, 't', '%d', '%d'), ('orders', 103002, 't', '%d', '%d'),
    ('countries', 103010, 't', NULL, NULL);
INSERT INTO pg_catalog.pg_dist_node (nodeid, groupid, nodename, nodeport, isactive) VALUES
    (1, 0, '127.0.0.1', 5432, true), (2, 1, '127.0.0.1', 1, false), (3, 2, '127.0.0.1', %d, true), (4, 3, '127.0.0.1', %d, true);
INSERT INTO pg_catalog.pg_dist_placement VALUES
    (1, 103000, 1, 0, 2), (2, 103001, 1, 0, 1), (3, 103001, 1, 0, 3), (4, 103002, 1, 0, 2),
    (5, 103010, 1, 0, 2), (6, 103010, 1, 0, 3);
ANALYZE;`, ranges[0][0], ranges[0][1], ranges[1][0], ranges[1][1], ranges[2][0], ranges[2][1], portA, portB)
	if _, err := coord.Exec(ctx, stmts, pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatalf("coordinator: %v", err)
	}

	// The rows, placed by Citus' hash; counted here as they are placed.
	type row struct {
		id, user, amount int64
		status           *string
	}
	rowsOf := make([][]row, 3)
	for i := int64(1); i <= n; i++ {
		r := row{id: i, user: 1 + i%500, amount: int64(math.Floor(math.Sqrt(float64(i % 10000))))}
		if i%13 != 0 {
			s := "s" + strconv.FormatInt(i%7, 10)
			r.status = &s
		}
		sh := shardOf(shardkey.IntValue(r.user))
		rowsOf[sh] = append(rowsOf[sh], r)
	}
	for _, port := range []int{portA, portB} {
		wadmin, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := wadmin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
			t.Fatal(err)
		}
		wadmin.Close(ctx)
		wdb, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", port, name))
		if err != nil {
			t.Fatal(err)
		}
		q := "CREATE TABLE countries_103010 (code text PRIMARY KEY); INSERT INTO countries_103010 VALUES ('de'), ('fr'), ('jp'), ('us');"
		for sh, id := range ids {
			if onA[sh] != (port == portA) {
				continue
			}
			table := fmt.Sprintf("orders_%d", id)
			q += "CREATE TABLE " + table + " (id bigint NOT NULL, user_id int NOT NULL, amount int NOT NULL, status text);"
			if _, err := wdb.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
			q = ""
			var src [][]any
			for _, r := range rowsOf[sh] {
				src = append(src, []any{r.id, int32(r.user), int32(r.amount), r.status})
			}
			if _, err := wdb.CopyFrom(ctx, pgx.Identifier{table}, []string{"id", "user_id", "amount", "status"}, pgx.CopyFromRows(src)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := wdb.Exec(ctx, q+"ANALYZE"); err != nil {
			t.Fatal(err)
		}
		wdb.Close(ctx)
	}

	w := &shardkey.Workload{Seed: 1}
	// The command line's engine and shards: the per-shard sums must be
	// the database's placement all the same.
	start := time.Now()
	if err := Read(ctx, w, dsn, Options{NoStatements: true, SampleRows: 1000, Engine: "generic", Shards: 8}); err != nil {
		t.Fatal(err)
	}
	t.Logf("read, every column measured on the workers: %v", time.Since(start).Round(time.Millisecond))
	col := func(table, name string) *shardkey.MeasuredStats {
		t.Helper()
		for _, c := range w.Catalog.Table(table).Columns {
			if c.Name == name {
				if c.Measured == nil {
					t.Fatalf("%s.%s: no measured statistics; warnings %v", table, name, w.Warnings)
				}
				return c.Measured
			}
		}
		t.Fatalf("no column %s.%s", table, name)
		return nil
	}
	counts := func(name string, m *shardkey.MeasuredStats, rows, nulls, distinct int64) {
		t.Helper()
		if m.Rows != rows || m.Nulls != nulls || m.Distinct != distinct {
			t.Errorf("%s: rows %d, nulls %d, distinct %d; want %d, %d, %d", name, m.Rows, m.Nulls, m.Distinct, rows, nulls, distinct)
		}
	}
	top := func(name string, m *shardkey.MeasuredStats, want []shardkey.ValueCount) {
		t.Helper()
		if fmt.Sprint(m.Top) != fmt.Sprint(want) {
			t.Errorf("%s: top values %v; want %v", name, m.Top, want)
		}
	}
	id, user, amount, status := col("orders", "id"), col("orders", "user_id"), col("orders", "amount"), col("orders", "status")
	counts("id", id, n, 0, n)
	counts("user_id", user, n, 0, 500)
	counts("amount", amount, n, 0, 100)
	counts("status", status, n, n/13, 7)
	// user_id: 500 values of N/500 rows each, ties by value.
	var want []shardkey.ValueCount
	for v := 1; v <= 10; v++ {
		want = append(want, vc(strconv.Itoa(v), n/500))
	}
	top("user_id", user, want)
	// amount: v on 2(2v+1) rows of every 10,000, largest first.
	want = nil
	for v := 99; v >= 90; v-- {
		want = append(want, vc(strconv.Itoa(v), int64(n/10000*(2*v+1))))
	}
	top("amount", amount, want)
	// status: i % 7 = r on the rows not multiples of 13, counted here.
	sc := map[string]int64{}
	for i := int64(1); i <= n; i++ {
		if i%13 != 0 {
			sc["s"+strconv.FormatInt(i%7, 10)]++
		}
	}
	want = nil
	for v, c := range sc {
		want = append(want, vc(v, c))
	}
	sort.Slice(want, func(i, j int) bool {
		if want[i].Rows != want[j].Rows {
			return want[i].Rows > want[j].Rows
		}
		return want[i].Value < want[j].Value
	})
	top("status", status, want)
	// id: unique, on both workers; the ten named are of one row each.
	if len(id.Top) != 10 || id.Top[0].Rows != 1 || id.Top[9].Rows != 1 {
		t.Errorf("id: top values %v; want ten of one row", id.Top)
	}
	// Correlation within each shard table, averaged: id rises with each
	// one's physical order (r within 1e-3 of 1: the position, block +
	// offset/65536, is a staircase of some 40 blocks a shard); user_id
	// cycles along it.
	if !id.HasCorrelation || id.Correlation < 0.999 {
		t.Errorf("id: correlation %v (known %v); want > 0.999", id.Correlation, id.HasCorrelation)
	}
	if !user.HasCorrelation || math.Abs(user.Correlation) > 0.05 {
		t.Errorf("user_id: correlation %v (known %v); want |r| < 0.05", user.Correlation, user.HasCorrelation)
	}

	// Per-shard rows and bytes, for the database's intervals, counted here.
	size := func(r row) int64 {
		b := int64(24 + 8 + 4 + 4)
		if r.status != nil {
			b += int64(1 + len(*r.status))
		}
		return b
	}
	expect := func(key func(r row) shardkey.Value) ([]int64, []int64) {
		rows, bytes := make([]int64, 3), make([]int64, 3)
		for _, rs := range rowsOf {
			for _, r := range rs {
				s := shardOf(key(r))
				rows[s]++
				bytes[s] += size(r)
			}
		}
		return rows, bytes
	}
	check := func(name string, m *shardkey.MeasuredStats, wantRows, wantBytes []int64) {
		t.Helper()
		if m.ShardEngine != spec || m.Shards != 3 {
			t.Fatalf("%s: per-shard sums for %q on %d shards; want the database's %q on 3 (%s)", name, m.ShardEngine, m.Shards, spec, m.ShardMethod)
		}
		if fmt.Sprint(m.ShardRows) != fmt.Sprint(wantRows) || fmt.Sprint(m.ShardBytes) != fmt.Sprint(wantBytes) {
			t.Errorf("%s: rows %v bytes %v; counted here: rows %v bytes %v", name, m.ShardRows, m.ShardBytes, wantRows, wantBytes)
		}
	}
	rows, bytes := expect(func(r row) shardkey.Value { return shardkey.IntValue(r.user) })
	// The distribution column's per-shard rows are the shard tables' rows.
	for s := range rowsOf {
		if rows[s] != int64(len(rowsOf[s])) {
			t.Fatalf("shard %d: %d rows placed, %d counted", s, len(rowsOf[s]), rows[s])
		}
	}
	check("user_id", user, rows, bytes)
	rows, bytes = expect(func(r row) shardkey.Value { return shardkey.IntValue(r.amount) })
	check("amount", amount, rows, bytes)
	rows, bytes = expect(func(r row) shardkey.Value { return shardkey.IntValue(r.id) })
	check("id", id, rows, bytes)

	// The reference table, read on one worker.
	counts("countries.code", col("countries", "code"), 4, 0, 4)

	// The report names the workers; the shells' measured figures stay.
	var note, shells string
	for _, e := range w.Warnings {
		switch s := e.Error(); {
		case strings.Contains(s, "computed inside the database"):
			note = s
		case strings.Contains(s, "empty shells"):
			shells = s
		}
	}
	for _, want := range []string{fmt.Sprintf("orders on 127.0.0.1:%d, 127.0.0.1:%d", portA, portB), "engine " + spec + " on 3 shards"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q does not say %q", note, want)
		}
	}
	if !strings.Contains(shells, "computed the key statistics of countries, orders on the workers") && !strings.Contains(shells, "computed the key statistics of orders, countries on the workers") {
		t.Errorf("shells warning %q does not say the workers measured them", shells)
	}
	if !strings.Contains(id.Method, fmt.Sprintf("127.0.0.1:%d (2 shard tables)", portA)) {
		t.Errorf("method %q", id.Method)
	}

	// --stats db:sample=50%: each shard table sampled on its worker by
	// the same clause, seeded by the seed plus its shard id (so shards do
	// not keep the same blocks); the rows drawn, counted here by a plain
	// query on each, over 0.5.
	w = &shardkey.Workload{Seed: 3}
	if err := Read(ctx, w, dsn, Options{NoStatements: true, SampleRows: 1000, Stats: "db:sample=50%", StatsColumns: []string{"user_id", "amount"}}); err != nil {
		t.Fatal(err)
	}
	var drawn int64
	sampled := map[int64]int64{} // amount's sampled rows by value, over both workers
	for _, port := range []int{portA, portB} {
		wdb, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", port, name))
		if err != nil {
			t.Fatal(err)
		}
		for sh, id := range ids {
			if onA[sh] != (port == portA) {
				continue
			}
			rs, err := wdb.Query(ctx, fmt.Sprintf("SELECT amount, count(*) FROM orders_%d TABLESAMPLE SYSTEM (50) REPEATABLE (%d) GROUP BY 1", id, 3+id))
			if err != nil {
				t.Fatal(err)
			}
			for rs.Next() {
				var v, c int64
				if err := rs.Scan(&v, &c); err != nil {
					t.Fatal(err)
				}
				sampled[v] += c
				drawn += c
			}
			rs.Close()
		}
		wdb.Close(ctx)
	}
	// amount is not the distribution column: counts merged by hash,
	// scaled by 2; distinct values by Duj1 over the merged sample.
	am := col("orders", "amount")
	var f1 int64
	var cs []int64
	for _, c := range sampled {
		if c == 1 {
			f1++
		}
		cs = append(cs, 2*c)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i] > cs[j] })
	nn, d := float64(drawn), float64(len(sampled))
	wantD := int64(math.Round(max(d, min(2*nn, nn*d/((nn-float64(f1))+float64(f1)*nn/(2*nn))))))
	if am.Distinct != wantD || am.Rows != 2*drawn || am.Sampled == "" {
		t.Errorf("sampled amount: %d distinct of %d rows (sampled %q); want %d (Duj1: n %d, d %d, f1 %d) of %d", am.Distinct, am.Rows, am.Sampled, wantD, drawn, len(sampled), f1, 2*drawn)
	}
	if len(am.Top) != 10 {
		t.Fatalf("sampled amount: top %v", am.Top)
	}
	for i, tv := range am.Top {
		v, _ := strconv.ParseInt(tv.Value, 10, 64)
		if tv.Rows != cs[i] || tv.Rows != 2*sampled[v] {
			t.Errorf("sampled amount: top %v; want the counts %v, each twice its value's sampled rows", am.Top, cs[:10])
			break
		}
	}
	user = col("orders", "user_id")
	if user.Rows != 2*drawn || user.Sampled == "" || !strings.Contains(user.Method, "TABLESAMPLE SYSTEM (50%) REPEATABLE (3 + its shard id) of each shard table, inside the Citus workers") {
		t.Errorf("sampled: user_id rows %d (want 2 x %d drawn), sampled %q, method %q", user.Rows, drawn, user.Sampled, user.Method)
	}
	if drawn == 0 || drawn == n {
		t.Errorf("the 50%% sample drew %d of %d rows", drawn, n)
	}

	// Worker B unreachable (its node's port now one no server listens
	// on): orders, with a shard there, keeps no measured figures (its
	// shell's are unknown, not 0) and a warning names the worker;
	// countries, read on worker A, is still measured.
	if _, err := coord.Exec(ctx, "SET allow_system_table_mods = on; UPDATE pg_catalog.pg_dist_node SET nodeport = 1 WHERE groupid = 3"); err != nil {
		t.Fatal(err)
	}
	w = &shardkey.Workload{Seed: 1}
	if err := Read(ctx, w, dsn, Options{NoStatements: true, SampleRows: 1000}); err != nil {
		t.Fatal(err)
	}
	for _, c := range w.Catalog.Table("orders").Columns {
		if c.Measured != nil {
			t.Errorf("orders.%s measured with a worker down: %+v", c.Name, c.Measured)
		}
	}
	counts("countries.code", col("countries", "code"), 4, 0, 4)
	var down bool
	for _, e := range w.Warnings {
		down = down || strings.Contains(e.Error(), "table orders: its statistics could not be computed on the Citus workers (Citus worker 127.0.0.1:1:")
	}
	if !down {
		t.Errorf("no warning names the unreachable worker: %v", w.Warnings)
	}
}

// TestRetarget: a worker's connection goes to the node only, whatever
// hosts and TLS modes the DSN names: every attempt (the main one and
// pgx's fallbacks: the other hosts, the plain attempt of sslmode=prefer)
// is on the node's host and port, one per TLS mode, and with TLS the
// certificate is checked against the node's name. The user, password and
// database are the DSN's.
func TestRetarget(t *testing.T) {
	node := &citusNode{host: "10.0.0.7", port: 6432}
	for _, dsn := range []string{
		"postgres://u:secret@coord.example:5432/db?sslmode=prefer",
		"postgres://u:secret@coord.example:5432,other.example:5433/db?sslmode=require",
		"host=coord.example,other.example port=5432,5433 user=u password=secret dbname=db sslmode=verify-full",
		"postgres://u:secret@coord.example/db?sslmode=disable",
	} {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		retarget(cfg, node)
		if cfg.Host != "10.0.0.7" || cfg.Port != 6432 || cfg.User != "u" || cfg.Password != "secret" || cfg.Database != "db" {
			t.Errorf("%s: main attempt %s:%d as %s to %s", Redact(dsn), cfg.Host, cfg.Port, cfg.User, cfg.Database)
		}
		if cfg.TLSConfig != nil && cfg.TLSConfig.ServerName != "10.0.0.7" {
			t.Errorf("%s: TLS server name %q", Redact(dsn), cfg.TLSConfig.ServerName)
		}
		modes := map[bool]int{cfg.TLSConfig == nil: 1}
		for _, fb := range cfg.Fallbacks {
			if fb.Host != "10.0.0.7" || fb.Port != 6432 {
				t.Errorf("%s: a fallback to %s:%d", Redact(dsn), fb.Host, fb.Port)
			}
			if fb.TLSConfig != nil && fb.TLSConfig.ServerName != "10.0.0.7" {
				t.Errorf("%s: fallback TLS server name %q", Redact(dsn), fb.TLSConfig.ServerName)
			}
			modes[fb.TLSConfig == nil]++
		}
		for plain, n := range modes {
			if n > 1 {
				t.Errorf("%s: %d attempts with TLS %v", Redact(dsn), n, !plain)
			}
		}
		if strings.Contains(dsn, "prefer") && len(cfg.Fallbacks) != 1 {
			t.Errorf("%s: %d fallbacks; want the plain attempt after TLS", Redact(dsn), len(cfg.Fallbacks))
		}
	}
}

// TestCitusWorkerShowsShards: a Citus node hides its shard tables from
// every query on pg_class (Citus' planner hook adds
// "relation_is_a_known_shard(oid) IS NOT TRUE" while
// citus.override_table_visibility is on, its default: citusdata/citus
// src/backend/distributed/worker/worker_shard_visibility.c), so on a real
// Citus 12.1 cluster checkShards found no shard table and every table
// fell back to the row sample. The worker's session turns the hiding off
// for its transaction; the coordinator's session does not (its table list
// must not show the shards Citus keeps there, a reference table's).
// PostgreSQL without Citus keeps the setting as a placeholder, so the
// session's own value is what is checked here.
func TestCitusWorkerShowsShards(t *testing.T) {
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pgAdminDSN())
	if err != nil {
		skipOrFail(t, "no PostgreSQL at %s: %v", pgAdminDSN(), err)
	}
	t.Cleanup(func() { admin.Close(ctx) })
	name := fmt.Sprintf("shardkey_test_citusvis_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
	dsn := pgThrowaway(t, ctx, admin, name)
	s, err := openPostgres(ctx, dsn, Options{StatementTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	cfg, _ := pgx.ParseConfig(dsn)
	ws, err := s.worker(ctx, &citusNode{group: 1, host: cfg.Host, port: int32(cfg.Port)})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.close()
	setting := func(s *pgSession) string {
		var v *string
		if err := s.tx.QueryRow(ctx, "SELECT pg_catalog.current_setting('citus.override_table_visibility', true)").Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v == nil {
			return "(unset)"
		}
		return *v
	}
	if got := setting(ws); got != "off" {
		t.Errorf("worker session: citus.override_table_visibility = %s, want off", got)
	}
	if got := setting(s); got == "off" {
		t.Errorf("coordinator session: citus.override_table_visibility = %s, want Citus' default (shards hidden)", got)
	}
}
