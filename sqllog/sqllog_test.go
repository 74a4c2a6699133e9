package sqllog

import (
	"context"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/shardkey/shardkey"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// The logs in testdata are excerpts of real server logs: PostgreSQL 15
// (stderr with log_statement = 'all' and prefix '%m [%p] %q%u@%d ';
// stderr with log_min_duration_statement = 0 and a pgbadger-style prefix
// with %c; csvlog and jsonlog; a pg_stat_statements \copy export) and
// MariaDB 10.11 (general and slow logs), from two interleaved psql
// sessions, pgbench -M extended and -M prepared, and go-sql-driver
// prepared statements.
var logFiles = []struct {
	file, format string
}{
	{"pg-stderr.log", "stderr"},
	{"pg-stderr-duration.log", "stderr"},
	{"pg-csvlog.csv", "csvlog"},
	{"pg-jsonlog.json", "jsonlog"},
	{"pg-stat-statements.csv", "pg_stat_statements"},
	{"mariadb-general.log", "mysql-general"},
	{"mariadb-slow.log", "mysql-slow"},
}

func readLog(t testing.TB, file string, o Options) *shardkey.Workload {
	t.Helper()
	w := &shardkey.Workload{}
	if err := ReadFile(context.Background(), w, file, o); err != nil {
		t.Fatalf("ReadFile(%s): %v", file, err)
	}
	if err := w.Validate(); err != nil {
		t.Fatalf("%s: Validate: %v", file, err)
	}
	return w
}

func readText(t testing.TB, text string, o Options) *shardkey.Workload {
	t.Helper()
	w := &shardkey.Workload{}
	if err := Read(context.Background(), w, strings.NewReader(text), "test.log", o); err != nil {
		t.Fatalf("Read: %v", err)
	}
	if err := w.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return w
}

func TestDetect(t *testing.T) {
	for _, lf := range logFiles {
		head, err := os.ReadFile(filepath.Join("testdata", lf.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := detect(head); got != lf.format {
			t.Errorf("detect(%s) = %q; want %q", lf.file, got, lf.format)
		}
	}
}

// TestGolden reads every real log excerpt and compares a summary of the
// workload (tables, operations with rates and instances, transactions,
// warnings) with testdata/golden/<file>.golden; -update rewrites them.
func TestGolden(t *testing.T) {
	for _, lf := range logFiles {
		t.Run(lf.file, func(t *testing.T) {
			w := readLog(t, filepath.Join("testdata", lf.file), Options{})
			got := summary(w)
			golden := filepath.Join("testdata", "golden", lf.file+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				out := filepath.Join(t.TempDir(), lf.file+".got")
				_ = os.WriteFile(out, []byte(got), 0o644)
				t.Errorf("summary differs from %s; got written to %s (diff them, or run with -update)", golden, out)
			}
		})
	}
}

// has reports whether the summary has a line containing every part.
func has(sum string, parts ...string) bool {
	for _, l := range strings.Split(sum, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return true
		}
	}
	return false
}

func TestRealLogs(t *testing.T) {
	check := func(file string, parts ...string) {
		t.Helper()
		sum := summary(readLog(t, filepath.Join("testdata", file), Options{}))
		if !has(sum, parts...) {
			t.Errorf("%s: no line with %q in\n%s", file, parts, sum)
		}
	}
	for _, f := range []string{"pg-stderr.log", "pg-stderr-duration.log", "pg-csvlog.csv", "pg-jsonlog.json", "mariadb-general.log", "mariadb-slow.log"} {
		// Transactions of two interleaved sessions.
		check(f, "txn", "insert orders {customer_id=5 id=1001 order_month=202402 total=19.9} | update orders {customer_id=5 id=1001}")
		// Multi-line join: u.id = 7 carried to posts.user_id.
		check(f, `op "read posts where user_id = ?"`)
		check(f, "{user_id=7}")
		// Row values, IN and BETWEEN.
		check(f, "{followee_id IN (2,4) follower_id IN (1,3)}")
		check(f, "{customer_id IN (5,6,7) order_month in [202401,202403]}")
		check(f, "{created_at in [2024-01-01T00:00:00Z,2024-02-01T00:00:00Z)}")
	}
	for _, f := range []string{"pg-stderr.log", "pg-stderr-duration.log", "pg-csvlog.csv", "pg-jsonlog.json"} {
		// Multi-line UPDATE inside a transaction, with a multi-row INSERT:
		// one insert per row.
		check(f, "txn", "insert posts {body=hello user_id=1} | insert posts {body=it's me user_id=2} | update users {id=1}")
		// pgbench -M extended/prepared: values from DETAIL parameters,
		// BEGIN ... END transactions.
		check(f, "txn", "insert follows {followee_id=", "} | update users {id=")
		check(f, "{user_id IN (") // an autocommit read: an operation's instance, not a transaction
		check(f, "table users(id int64, region text)")
	}
	for _, f := range []string{"mariadb-general.log", "mariadb-slow.log"} {
		check(f, "txn", "insert users {id=1 name=ann region=eu} | insert users {id=2 name=bob region=us} | insert users {id=3 name=it's region=us} | update users {id=1}")
		check(f, "insert posts {body=multi")
	}
	// MariaDB prepared statements (Execute lines) and autocommit = 0.
	check("mariadb-general.log", `op "read users where id = ?" rate=7 n=7`)
	check("mariadb-general.log", "txn w=1: update users {id=3}")
	check("mariadb-general.log", "warning:", "1 statement could not be parsed", "SELEC oops FROM users")
	// pg_stat_statements: shapes and counts without values.
	check("pg-stat-statements.csv", `op "read users where id = ?" rate=10`)
	check("pg-stat-statements.csv", "{id=<unique>}")
}

// TestPGSSRowSample: with a row sample, pg_stat_statements parameters take
// values from the rows.
func TestPGSSRowSample(t *testing.T) {
	w := &shardkey.Workload{Seed: 1}
	ids := &shardkey.Column{Name: "id", Type: shardkey.Int64}
	for i := range 10 {
		_ = ids.Append(shardkey.IntValue(int64(100 + i)))
	}
	w.Tables = append(w.Tables, &shardkey.Table{Name: "users", Columns: []*shardkey.Column{ids}, Rows: 10})
	if err := ReadFile(context.Background(), w, "testdata/pg-stat-statements.csv", Options{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, op := range w.Ops {
		if op.Name != "read users where id = ?" {
			continue
		}
		if len(op.Instances) != 10 {
			t.Fatalf("%d instances; want 10 (calls)", len(op.Instances))
		}
		for _, in := range op.Instances {
			v := in.Conds[0].Val
			if in.Conds[0].Fresh != shardkey.NotFresh || v.Int < 100 || v.Int > 109 {
				t.Fatalf("instance %+v: want a value from the rows", in.Conds)
			}
		}
		return
	}
	t.Fatal("no read users operation")
}

const interleaved = `2024-03-01 10:00:00.000 UTC [101] app@db LOG:  statement: BEGIN;
2024-03-01 10:00:00.100 UTC [202] app@db LOG:  statement: BEGIN
2024-03-01 10:00:00.200 UTC [101] app@db LOG:  execute <unnamed>: UPDATE accounts
	   SET balance = balance - 10
	 WHERE id = $1
2024-03-01 10:00:00.200 UTC [101] app@db DETAIL:  parameters: $1 = '7'
2024-03-01 10:00:00.300 UTC [202] app@db LOG:  statement: INSERT INTO accounts (id, owner) VALUES (8, 'o''brien')
2024-03-01 10:00:00.400 UTC [101] app@db LOG:  execute <unnamed>: UPDATE accounts SET balance = balance + 10 WHERE id = $1
2024-03-01 10:00:00.400 UTC [101] app@db DETAIL:  parameters: $1 = '9'
2024-03-01 10:00:00.500 UTC [202] app@db LOG:  statement: ROLLBACK
2024-03-01 10:00:00.600 UTC [101] app@db LOG:  statement: COMMIT;
2024-03-01 10:00:00.700 UTC [303] app@db LOG:  statement: SELEC broken FROM accounts
2024-03-01 10:00:00.800 UTC [303] app@db LOG:  statement: SELECT * FROM accounts WHERE id = -3
2024-03-01 10:00:01.000 UTC [303] app@db LOG:  statement: SELEC broken FROM accounts
`

func TestTransactionsInterleaved(t *testing.T) {
	w := readText(t, interleaved, Options{})
	sum := summary(w)
	for _, want := range []string{
		// The log spans 10:00:00.000 to 10:00:01.000 in milliseconds:
		// 1.001 s (logSpan). 1/1.001 = 0.999, 2/1.001 = 1.998.
		"txn w=0.999: update accounts {id=7} | update accounts {id=9}",
		// Session 202's insert was rolled back: work (an operation),
		// not a committed transaction, kept as a rolled-back one.
		`op "insert accounts" rate=0.999 n=1`,
		"rollback w=0.999: insert accounts {id=8 owner=o'brien}",
		"1 transaction ended in ROLLBACK",
		"{id=-3}", // an autocommit read: an operation, not a transaction
		`op "update accounts where id = ?" rate=1.998 n=2`,
		"2 statements could not be parsed",
		`"SELEC broken FROM accounts" (2×, first at line 12`,
	} {
		if !has(sum, want) {
			t.Errorf("no %q in\n%s", want, sum)
		}
	}
	if len(w.Txns) != 2 || countCommitted(w.Txns) != 1 || w.RolledBackTxns != 1 {
		t.Errorf("%d transactions, %d committed, %g rolled back; want 2, 1 (the reads are autocommit, 202's insert rolled back), 1\n%s", len(w.Txns), countCommitted(w.Txns), w.RolledBackTxns, sum)
	}
}

func TestStatements(t *testing.T) {
	check := func(d Dialect, sql, want string) {
		t.Helper()
		st, err := ParseStatement(sql, d)
		if err != nil {
			t.Errorf("ParseStatement(%q): %v", sql, err)
			return
		}
		w := &shardkey.Workload{}
		accs, err := st.Bind(w, nil)
		if err != nil {
			t.Errorf("Bind(%q): %v", sql, err)
			return
		}
		var parts []string
		for _, a := range accs {
			parts = append(parts, a.Kind.String()+" "+w.Tables[a.Table].Name+" "+condsText(w.Tables[a.Table], a.Conds))
		}
		if got := strings.Join(parts, " | "); got != want {
			t.Errorf("%s %q\n got %s\nwant %s", d, sql, got, want)
		}
	}
	for _, d := range []Dialect{Postgres, MySQL} {
		check(d, "SELECT * FROM t WHERE a = 1 AND b IN (2, 3) AND c BETWEEN 4 AND 5", "read t {a=1 b IN (2,3) c in [4,5]}")
		check(d, "SELECT * FROM t WHERE (a, b) IN ((1, 2), (3, 4))", "read t {a IN (1,3) b IN (2,4)}")
		check(d, "SELECT * FROM t WHERE (a, b) = (1, 'x')", "read t {a=1 b=x}")
		check(d, "SELECT * FROM t WHERE a = 1 OR a = 2", "read t {a IN (1,2)}")
		check(d, "SELECT * FROM t WHERE 10 < a AND a <= 20 AND b > -5", "read t {a in (10,20] b in (-5,+inf)}")
		check(d, "INSERT INTO t (a, b) VALUES (1, 'x'), (2, 'y')", "insert t {a=1 b=x} | insert t {a=2 b=y}")
		check(d, "SELECT * FROM a JOIN b ON a.x = b.y WHERE a.x = 5", "read a {x=5} | read b {y=5}")
		check(d, "SELECT * FROM a, b WHERE b.y IN (1, 2) AND a.x = b.y", "read a {x IN (1,2)} | read b {y IN (1,2)}")
		check(d, "UPDATE t SET v = v + 1 WHERE id = 7", "update t {id=7}")
		check(d, "DELETE FROM t WHERE id = 7 AND k NOT IN (1)", "delete t {id=7}")
		check(d, "SELECT * FROM t WHERE id IN (SELECT uid FROM u WHERE g = 3)", "read u {g=3} | read t {}")
		check(d, "INSERT INTO t (id, at) VALUES (DEFAULT, now())", "insert t {at=<newest> id=<newest>}")
	}
	check(Postgres, "SELECT * FROM t WHERE ts >= '2024-01-01'::timestamptz AND id = '42'::bigint", "read t {id=42 ts in [2024-01-01T00:00:00Z,+inf)}")
	check(Postgres, "SELECT * FROM t WHERE a = ANY(ARRAY[1, 2])", "read t {a IN (1,2)}")
	check(Postgres, "SELECT * FROM t WHERE a = NULL", "read t {a IN ()}") // never true: matches no row
	for _, d := range []Dialect{Postgres, MySQL} {
		check(d, "SELECT * FROM t WHERE a = 1 AND a = 2", "read t {a IN ()}") // contradictory: no row
		check(d, "SELECT * FROM t WHERE a = 1 AND b = 3 AND a = 1", "read t {a=1 b=3}")
	}
	check(Postgres, "SELECT * FROM t WHERE d = DATE '2024-01-02'", "read t {d=2024-01-02T00:00:00Z}")
	check(MySQL, "SELECT * FROM `t` WHERE `a` = 'it\\'s' AND b = \"q\"", "read t {a=it's b=q}")
	// Integer arithmetic in placeholders (argArith), folded when bound as
	// the engines fold constants: the values worked by hand.
	for _, d := range []Dialect{Postgres, MySQL} {
		check(d, "SELECT * FROM t WHERE a >= 3001 - 20 AND a < 3001", "read t {a in [2981,3001)}")
		check(d, "SELECT * FROM t WHERE a = 3 * -2 AND b = 10 - 2 - 3", "read t {a=-6 b=5}")
		check(d, "SELECT * FROM t WHERE a = 1 + 2 * 3 AND b = -(3 + 2)", "read t {a=7 b=-5}")
		check(d, "SELECT * FROM t WHERE a = 9223372036854775807 + 1", "read t {a=9223372036854775808}")
		check(d, "SELECT * FROM t WHERE a = 4294967296 * 4294967296", "read t {a=18446744073709551616}")
		check(d, "SELECT * FROM t WHERE a IN (1 + 1, 2 * 3)", "read t {a IN (2,6)}")
		check(d, "SELECT * FROM t WHERE a = 1 + 1 AND a = 3", "read t {a IN ()}") // 2 and 3: no row
		check(d, "SELECT * FROM t WHERE a = 5 AND 1 + 2 = 4", "read t {a IN ()}") // FALSE: no row
		check(d, "SELECT * FROM t WHERE a = 5 AND 1 + 2 = 3", "read t {a=5}")     // TRUE
		check(d, "SELECT * FROM t WHERE a = 1 + 2.5 AND b = 1", "read t {b=1}")   // a decimal: not folded
		check(d, "INSERT INTO t (a, b) VALUES (1 + 1, 2)", "insert t {a=2 b=2}")
	}
	check(0, "SELECT * FROM `t` WHERE a = 1", "read t {a=1}")
}

func TestNormalize(t *testing.T) {
	check := func(d Dialect, sql, want string, nlits int) {
		t.Helper()
		got, lits := normalize(nil, sql, d)
		if string(got) != want || len(lits) != nlits {
			t.Errorf("normalize(%q) = %q, %d literals; want %q, %d", sql, got, len(lits), want, nlits)
		}
	}
	check(Postgres, "SELECT * FROM t1 WHERE a = 1 -- c\n AND b = 'x''y';", "SELECT * FROM t1 WHERE a = $100001 AND b = $100002", 2)
	check(Postgres, "SELECT $1, E'a\\'b', 1.5e3, x FROM t /* c */", "SELECT $1, $100001, $100002, x FROM t", 2)
	check(Postgres, "SELECT DATE '2024-01-01', $$a 'b'$$", "SELECT DATE '2024-01-01', $$a 'b'$$", 0)
	check(MySQL, "SELECT * FROM `t` WHERE a = \"s\" # c\n AND b = 0x1F AND c = _utf8mb4'z'", "SELECT * FROM `t` WHERE a = :sk0 AND b = 0x1F AND c = _utf8mb4'z'", 1)
	// Integer arithmetic: placeholders marked as integers, so that the
	// shape does not stand for its constants.
	check(MySQL, "UPDATE district SET d_next_o_id = 3061 + 1 WHERE d_id = 5", "UPDATE district SET d_next_o_id = :ski0 + :ski1 WHERE d_id = :sk2", 3)
	check(Postgres, "SELECT * FROM t WHERE a >= 3001 - 20 AND b = 3 * -2", "SELECT * FROM t WHERE a >= $200001 - $200002 AND b = $200003 * -$200004", 4)
	check(Postgres, "SELECT * FROM t WHERE a = 1 + 2.5 AND b = '1' + 2", "SELECT * FROM t WHERE a = 1 + 2.5 AND b = '1' + 2", 0)
	check(MySQL, "SELECT * FROM t WHERE a = 1 + 1 = 2", "SELECT * FROM t WHERE a = :ski0 + :ski1 = :sk2", 3)
	if _, lits := normalize(nil, `SELECT 'a\'b'`, MySQL); len(lits) != 1 || lits[0].s != "a'b" {
		t.Errorf("MySQL backslash escape: %+v", lits)
	}
}

func TestParams(t *testing.T) {
	got, ok := pgParams("parameters: $1 = '42', $2 = NULL, $3 = 'it''s, ok'")
	if !ok || len(got) != 3 || got[0].s != "42" || got[1].kind != litNull || got[2].s != "it's, ok" {
		t.Errorf("pgParams = %+v, %v", got, ok)
	}
}

// TestBadFiles: files that are not logs of their format fail with the
// file and line of the problem.
func TestBadFiles(t *testing.T) {
	for _, c := range []struct {
		file, format, want string
	}{
		{"csvlog-short-record.csv", "", "testdata/bad/csvlog-short-record.csv:2: not a csvlog record: 8 fields, want at least 22"},
		{"csvlog-bad-quote.csv", "csvlog", `testdata/bad/csvlog-bad-quote.csv:2: not a csvlog record: extraneous or missing " in quoted-field`},
		{"jsonlog-truncated.json", "", "testdata/bad/jsonlog-truncated.json:2: not a jsonlog record: unexpected end of JSON input"},
		{"jsonlog-bad-time.json", "jsonlog", `testdata/bad/jsonlog-bad-time.json:1: timestamp: "yesterday" is not a timestamp`},
		{"pgss-bad-calls.csv", "", `testdata/bad/pgss-bad-calls.csv:3: calls: "many" is not a non-negative number`},
		{"pgss-no-calls.csv", "pg_stat_statements", `testdata/bad/pgss-no-calls.csv:1: header "query,total_time": want columns query and calls`},
		{"unknown-format.log", "", "testdata/bad/unknown-format.log:1: unknown log format"},
		{"unknown-format.log", "stderr", "testdata/bad/unknown-format.log:1: no PostgreSQL log lines found"},
		{"unknown-format.log", "mysql-general", "testdata/bad/unknown-format.log:1: no general log entries found"},
		{"unknown-format.log", "mysql-slow", "testdata/bad/unknown-format.log:1: no slow log entries found"},
		// Nothing to read is a usage error (exit 2), as a --log
		// directory with no file is (it was exit 1, "empty log").
		{"empty.log", "", "testdata/bad/empty.log: an empty log (no lines but blank ones): no statement to read"},
		// Named .gz, but plain text of no known format.
		{"not-gzip.log.gz", "", "testdata/bad/not-gzip.log.gz:1: not gzip data (named .gz, but it does not start with gzip's magic number 1f 8b), nor a log of a known format"},
		// Real gzip (it starts with 1f 8b and decompresses), of text no
		// known format reads: the message says so, not "not gzip data".
		{"gzip-not-a-log.log.gz", "", "testdata/bad/gzip-not-a-log.log.gz:1: gzip data, decompressed, but not a log of a known format"},
		{"stderr-no-statements.log", "", "testdata/bad/stderr-no-statements.log:2: no statements found in this stderr log"},
		// None of its statements parses: an error with the first ones'
		// places and errors (pg_query's message), not a workload of no
		// operations and a warning.
		{"stderr-unparsable.log", "", `testdata/bad/stderr-unparsable.log:1: no statement could be read: none of its 3 statements could be parsed as PostgreSQL SQL: testdata/bad/stderr-unparsable.log:1: syntax error at or near "SELEC" ("SELEC * FROM users WHERE id = 1"); testdata/bad/stderr-unparsable.log:2: syntax error at or near "=" ("UPDATE SET x = 1")`},
	} {
		w := &shardkey.Workload{}
		err := ReadFile(context.Background(), w, filepath.Join("testdata", "bad", c.file), Options{Format: c.format})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s (format %q): error %v; want prefix %q", c.file, c.format, err, c.want)
		}
	}
	// A quote opened on line 2 and never closed: encoding/csv reads to
	// the end of the file (line 5) before it gives up; the error names
	// the record's line.
	err := Read(context.Background(), &shardkey.Workload{}, strings.NewReader("query,calls\n\"SELECT 1,5\nSELECT 2,3\nSELECT 3,4\nSELECT 4,1\n"), "x.csv", Options{Format: "pg_stat_statements"})
	if want := `x.csv:2: extraneous or missing " in quoted-field (found on line 5)`; err == nil || err.Error() != want {
		t.Errorf("unclosed quote: %v, want %s", err, want)
	}
	err = Read(context.Background(), &shardkey.Workload{}, strings.NewReader(""), "x", Options{Format: "oracle"})
	if err == nil || !strings.Contains(err.Error(), `--log-format "oracle"`) {
		t.Errorf("unknown format: %v", err)
	}
}

// TestSampleBounded: the reservoir keeps Options.Sample instances of a
// shape while the rate counts all of them.
func TestSampleBounded(t *testing.T) {
	var sb strings.Builder
	for i := range 1000 {
		sb.WriteString("2024-03-01 10:00:")
		sb.WriteString([]string{"00", "10"}[i%2])
		sb.WriteString(".000 UTC [1] LOG:  statement: SELECT * FROM t WHERE id = ")
		sb.WriteString(strings.Repeat("1", 1+i%5))
		sb.WriteString("\n")
	}
	w := readText(t, sb.String(), Options{Sample: 16})
	// 1000 statements over 10:00:00.000 to 10:00:10.000 stamped in
	// milliseconds: 10.001 s.
	if len(w.Ops) != 1 || len(w.Ops[0].Instances) != 16 || math.Abs(w.Ops[0].Rate-1000/10.001) > 1e-9 {
		t.Fatalf("ops: %s", summary(w))
	}
	if len(w.Txns) != 0 {
		t.Fatalf("%d transactions; want 0 (autocommit reads are operations, not transactions)", len(w.Txns))
	}
}

// anyArrays is a log of list queries as pgx and other drivers send them:
// col = ANY($1) with an array parameter, and array literals in the text.
const anyArrays = `2024-03-01 10:00:00.000 UTC [101] app@db LOG:  execute <unnamed>: SELECT * FROM users WHERE id = ANY($1)
2024-03-01 10:00:00.000 UTC [101] app@db DETAIL:  parameters: $1 = '{3,5,8}'
2024-03-01 10:00:00.100 UTC [101] app@db LOG:  execute <unnamed>: SELECT * FROM users WHERE id = ANY($1::bigint[])
2024-03-01 10:00:00.100 UTC [101] app@db DETAIL:  parameters: $1 = '{13, 21}'
2024-03-01 10:00:00.200 UTC [101] app@db LOG:  statement: SELECT * FROM users WHERE name = ANY('{"a b",c,NULL}')
2024-03-01 10:00:00.300 UTC [101] app@db LOG:  execute <unnamed>: SELECT * FROM users WHERE id = ANY($1)
2024-03-01 10:00:00.300 UTC [101] app@db DETAIL:  parameters: $1 = '{}'
2024-03-01 10:00:00.400 UTC [101] app@db LOG:  execute <unnamed>: SELECT * FROM users WHERE id = ANY($1)
2024-03-01 10:00:00.400 UTC [101] app@db DETAIL:  parameters: $1 = '{{1,2},{3,4}}'
2024-03-01 10:00:00.500 UTC [101] app@db LOG:  execute <unnamed>: SELECT * FROM orders WHERE id = ANY($1)
`

// TestAnyArray: col = ANY(array) binds the array's elements as an IN list;
// an array that cannot be read (nested) binds nothing; one whose value
// the log does not hold is a list of values known only at run time, of
// unknown length (routed IN, at most every shard).
func TestAnyArray(t *testing.T) {
	w := readText(t, anyArrays, Options{})
	sum := summary(w)
	for _, want := range []string{
		"  {id IN (3,5,8)}",
		"  {id IN (13,21)}",
		"  {name IN (a b,c)}", // NULL equals no value: x IN (.., NULL) never matches it
		"  {id IN ()}",
		"  {id IN (<list>)}", // orders: no parameters logged: an array of unknown length
	} {
		if !has(sum, want) {
			t.Errorf("no %q in\n%s", want, sum)
		}
	}
	// The nested array, the fourth users instance, binds nothing.
	if op := w.Ops[0]; len(op.Instances) != 4 || len(op.Instances[3].Conds) != 0 {
		t.Errorf("nested array: %+v; want a fourth instance with no condition", op.Instances)
	}
	if c := w.Table("users").Column("id"); c == nil || c.Type != shardkey.Int64 {
		t.Errorf("users.id: %+v, want an int64 column (the array's elements are integers)", c)
	}
}

func TestParseArray(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []lit
		ok   bool
	}{
		{"{1,2,3}", []lit{{s: "1", kind: litNum}, {s: "2", kind: litNum}, {s: "3", kind: litNum}}, true},
		{"{}", []lit{}, true},
		{" { -1 , 2.5e3 } ", []lit{{s: "-1", kind: litNum}, {s: "2.5e3", kind: litNum}}, true},
		{`{"a,b","c\"d",NULL,null,e}`, []lit{{s: "a,b", kind: litStr}, {s: `c"d`, kind: litStr}, {kind: litNull}, {kind: litNull}, {s: "e", kind: litStr}}, true},
		{`{"NULL"}`, []lit{{s: "NULL", kind: litStr}}, true},
		{"{{1,2},{3,4}}", nil, false},
		{"{1,,2}", nil, false},
		{"{1,2", nil, false},
		{"1,2", nil, false},
		{`{"a}`, nil, false},
		{"{Infinity}", []lit{{s: "Infinity", kind: litStr}}, true},
	} {
		got, ok := parseArray(c.in)
		if ok != c.ok || ok && !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseArray(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestArrayArgUnknown: an array parameter the log holds no value for is a
// list of unknown length (unknownLen), not one value to be drawn from the
// rows; a number where an array belongs binds nothing.
func TestArrayArgUnknown(t *testing.T) {
	g := arg{kind: argParam, n: 0, array: true}
	if v := g.resolve(nil, nil); !v.unknownLen || v.elems != nil || !v.param {
		t.Errorf("unlogged array parameter resolves to %+v; want a list of unknown length", v)
	}
	if v := g.resolve(nil, []lit{{kind: litNum, s: "3"}}); v.kind != litNone || v.unknownLen {
		t.Errorf("array parameter with a number resolves to %+v; want litNone", v)
	}
	if v := (arg{kind: argParam, n: 0}).resolve(nil, nil); v.kind != litNoValue {
		t.Errorf("unlogged scalar parameter resolves to %+v; want litNoValue", v)
	}
	v := g.resolve(nil, []lit{{s: "{4,5}", kind: litStr}})
	if len(v.elemList()) != 2 || v.elemList()[1].s != "5" {
		t.Errorf("logged array parameter resolves to %+v; want elements 4 and 5", v)
	}
}

// sqlPrepared is a log of SQL-level prepared statements, which the log
// shows only as EXECUTE name(args).
const sqlPrepared = `2024-03-01 10:00:00.000 UTC [101] app@db LOG:  statement: PREPARE byid (bigint) AS SELECT * FROM users WHERE id = $1
2024-03-01 10:00:00.100 UTC [101] app@db LOG:  statement: EXECUTE byid(42)
2024-03-01 10:00:00.200 UTC [101] app@db LOG:  statement: execute BYID ( '43' )
2024-03-01 10:00:00.300 UTC [101] app@db LOG:  statement: PREPARE two AS UPDATE users SET name = $2 WHERE id = $1;
2024-03-01 10:00:00.400 UTC [101] app@db LOG:  statement: EXECUTE two(7, 'it''s, ok')
2024-03-01 10:00:00.500 UTC [202] app@db LOG:  statement: EXECUTE byid(5)
2024-03-01 10:00:00.600 UTC [101] app@db LOG:  statement: DEALLOCATE byid
2024-03-01 10:00:00.700 UTC [101] app@db LOG:  statement: EXECUTE byid(6)
`

// TestSQLPrepared: an EXECUTE of a statement its session prepared is read
// as that statement with the arguments bound; one prepared elsewhere (or
// deallocated) is left as it is, an EXECUTE that binds nothing known.
func TestSQLPrepared(t *testing.T) {
	w := readText(t, sqlPrepared, Options{})
	sum := summary(w)
	for _, want := range []string{
		"  {id=42}",
		"  {id=43}",
		"update users {id=7}",
		`op "read users where id = ?" rate=3.328 n=2`, // 2 reads in the log's 0.601 s (0.6 s between its first and last statement, plus the millisecond of its timestamps)
	} {
		if !has(sum, want) {
			t.Errorf("no %q in\n%s", want, sum)
		}
	}
	if has(sum, "{id=5}") || has(sum, "{id=6}") {
		t.Errorf("an EXECUTE of a statement its session did not prepare was bound:\n%s", sum)
	}
}

func TestExecuteParams(t *testing.T) {
	for in, want := range map[string]string{
		"42":                    "parameters: $1 = '42'",
		"7, 'it''s, ok'":        "parameters: $1 = '7', $2 = 'it''s, ok'",
		"NULL, -3.5, '5'::int":  "parameters: $1 = NULL, $2 = '-3.5', $3 = '5'",
		"now(), 9":              "parameters: $2 = '9'",
		"":                      "parameters: ",
		"(1 + 2), 'a(b', 'c,d'": "parameters: $2 = 'a(b', $3 = 'c,d'",
	} {
		if got := executeParams(in); got != want {
			t.Errorf("executeParams(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestPreparedRewrite: the session's prepared statements across PREPAREs
// with nested type lists, DETAIL-logged PREPAREs, DISCARD ALL,
// multi-statement lines and pg_stat_statements rows.
func TestPreparedRewrite(t *testing.T) {
	ps := &prepared{}
	run := func(session, sql, prepare string, weight float64) entry {
		return ps.rewrite(entry{session: session, sql: sql, prepare: prepare, weight: weight})
	}
	if e := run("a", "PREPARE q (numeric(10,2), int) AS SELECT * FROM t WHERE id = $2", "", 0); e.sql != "" {
		t.Errorf("PREPARE with a nested type list kept as %q", e.sql)
	}
	if e := run("a", "EXECUTE q(1.5, 7)", "", 0); e.sql != "SELECT * FROM t WHERE id = $2" || e.params != "parameters: $1 = '1.5', $2 = '7'" {
		t.Errorf("EXECUTE q: %q %q", e.sql, e.params)
	}
	// Prepared before the log: the DETAIL holds the PREPARE.
	if e := run("b", "EXECUTE r(3)", "PREPARE r (int) AS DELETE FROM t WHERE id = $1", 0); e.sql != "DELETE FROM t WHERE id = $1" || e.params != "parameters: $1 = '3'" {
		t.Errorf("EXECUTE with a DETAIL prepare: %q %q", e.sql, e.params)
	}
	// Several statements on one line are left as they are.
	if e := run("a", "EXECUTE q(1, 10); EXECUTE q(2, 20)", "", 0); e.sql != "EXECUTE q(1, 10); EXECUTE q(2, 20)" {
		t.Errorf("multi-statement line rewritten to %q", e.sql)
	}
	// An expression argument binds nothing; the literal after it binds.
	if e := run("a", "EXECUTE q('a' || 'b', 5)", "", 0); e.params != "parameters: $2 = '5'" {
		t.Errorf("expression argument: %q", e.params)
	}
	if e := run("a", "DISCARD ALL", "", 0); e.sql != "" || ps.sessions["a"] != nil {
		t.Errorf("DISCARD ALL: %q, statements %v", e.sql, ps.sessions["a"])
	}
	if e := run("a", "EXECUTE q(1, 2)", "", 0); e.sql != "EXECUTE q(1, 2)" {
		t.Errorf("EXECUTE after DISCARD ALL rewritten to %q", e.sql)
	}
	// Comments around an EXECUTE do not hide it.
	run("c", "PREPARE g (int) AS SELECT * FROM t WHERE id = $1", "", 0)
	if e := run("c", "/* app=x */ EXECUTE g(8) -- done", "", 0); e.sql != "SELECT * FROM t WHERE id = $1" || e.params != "parameters: $1 = '8'" {
		t.Errorf("EXECUTE with comments: %q %q", e.sql, e.params)
	}
	// An EXECUTE of an unknown statement is counted for a warning.
	if run("d", "EXECUTE nobody(1)", "", 0); ps.unknownN != 2 {
		t.Errorf("unknown EXECUTEs counted %d; want 2 (after DISCARD ALL, and nobody)", ps.unknownN)
	}
	// pg_stat_statements: a PREPARE row stands for its executions.
	if e := run("row1", "PREPARE s AS SELECT * FROM t WHERE id = $1", "", 1000); e.sql != "SELECT * FROM t WHERE id = $1" {
		t.Errorf("pg_stat_statements PREPARE row: %q", e.sql)
	}
}

// Statements shardkey --from sent (marked with OwnMark) are not workload:
// a MySQL general log and a PostgreSQL stderr log holding them read as if
// they were absent.
func TestOwnStatementsSkipped(t *testing.T) {
	general := `/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1 (Debian 12). started with:
Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock
Time		    Id Command	Argument
261130 23:05:19	    12 Connect	root@127.0.0.1 on sk using TCP/IP
		    12 Query	SELECT name FROM users WHERE id = 7
		    14 Query	/* shardkey livedb */ SELECT ` + "`id`, `name`" + ` FROM ` + "`sk`.`users` AS `shardkey_livedb`" + ` WHERE RAND(7) < 0.5 ORDER BY ` + "`id`" + `
		    14 Prepare	/* shardkey livedb */
SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_NAME = ?
		    14 Execute	/* shardkey livedb */
SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_NAME = 'users'
		    12 Query	SELECT name FROM users WHERE id = 8
`
	pg := `2026-11-30 23:05:19.001 UTC [100] app@sk LOG:  statement: SELECT name FROM users WHERE id = 7
2026-11-30 23:05:19.002 UTC [101] postgres@sk LOG:  execute stmtcache_1: /* shardkey livedb */ SELECT tableoid, ctid, "id", "name" FROM "public"."users" TABLESAMPLE pg_catalog.bernoulli (50.000000) REPEATABLE (7)
2026-11-30 23:05:19.003 UTC [100] app@sk LOG:  statement: SELECT name FROM users WHERE id = 8
`
	for _, c := range []struct{ name, text, format string }{{"mysql-general", general, "mysql-general"}, {"stderr", pg, "stderr"}} {
		w := readText(t, c.text, Options{Format: c.format})
		// Only the application's two point reads remain: one table, one
		// column (the sample query's RAND/TABLESAMPLE and the catalog
		// query would add operations, a full scan and information_schema).
		if len(w.Tables) != 1 || w.Tables[0].Name != "users" {
			t.Errorf("%s: tables %v; want only users", c.name, tableNames(w))
		}
		total := 0.0
		for _, op := range w.Ops {
			total += float64(len(op.Instances))
			if !strings.Contains(op.Name, "id = ?") {
				t.Errorf("%s: operation %q: shardkey's own statement read as workload", c.name, op.Name)
			}
		}
		if total != 2 {
			t.Errorf("%s: %v instances; want the 2 point reads\n%s", c.name, total, summary(w))
		}
	}
}

func tableNames(w *shardkey.Workload) []string {
	var out []string
	for _, t := range w.Tables {
		out = append(out, t.Name)
	}
	return out
}

// TestSkippedLinesCounted: a stderr log with 8 lines that are not log
// lines lists the first 5 and says how many more were skipped, from the
// sixth's line (line 4 + 5 = 9): "3 more lines skipped from here on, like
// those above (8 skipped in all)". It said "see the counts above" with no
// count anywhere (review).
func TestSkippedLinesCounted(t *testing.T) {
	var b strings.Builder
	b.WriteString("2024-03-01 00:00:00.000 UTC [1] LOG:  statement: SELECT * FROM users WHERE id = 1\n")
	b.WriteString("2024-03-01 00:00:01.000 UTC [1] LOG:  statement: SELECT * FROM users WHERE id = 2\n")
	b.WriteString("2024-03-01 00:00:02.000 UTC [1] LOG:  statement: SELECT * FROM users WHERE id = 3\n")
	for i := 0; i < 8; i++ {
		b.WriteString("garbage line\n")
	}
	b.WriteString("2024-03-01 00:00:03.000 UTC [1] LOG:  statement: SELECT * FROM users WHERE id = 4\n")
	file := filepath.Join(t.TempDir(), "skip.log")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &shardkey.Workload{}
	if err := ReadFile(context.Background(), w, file, Options{Format: "stderr"}); err != nil {
		t.Fatal(err)
	}
	listed, more := 0, ""
	for _, e := range w.Warnings {
		wn := e.Error()
		if strings.Contains(wn, "garbage line") {
			listed++
		}
		if strings.Contains(wn, "more lines skipped") {
			more = wn
		}
	}
	if want := "skip.log:9: 3 more lines skipped from here on, like those above (8 skipped in all)"; listed != 5 || !strings.Contains(more, want) {
		t.Errorf("listed %d, %q; want 5 listed and %q; warnings %q", listed, more, want, w.Warnings)
	}
}

// TestRVSize: an rv is written for every value bound and read by the
// aggregator, so its size is memory traffic on the read path: a string
// (16 bytes) and its kind, a pointer, three one-byte fields, 40 bytes on
// a 64-bit machine (64 when elems was a slice).
func TestRVSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) == 8 && unsafe.Sizeof(rv{}) != 40 {
		t.Errorf("rv is %d bytes, want 40", unsafe.Sizeof(rv{}))
	}
}
