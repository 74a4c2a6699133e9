package emit_test

import (
	"strconv"
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/emit"
	"github.com/shardkey/shardkey/partition"
)

// crdbStatements returns the statements of a CockroachDB script, each
// checked lexically with PostgreSQL's scanner (pg_query.Scan: quotes,
// parentheses balanced, one statement per line, ending in ";").
//
// CockroachDB's grammar (ALTER PRIMARY KEY ... USING HASH, SPLIT AT VALUES)
// is not PostgreSQL's, so pg_query cannot parse it, and CockroachDB's own
// parser is not under an open-source licence; the goldens (TestEmit_Golden)
// and the checks here are what there is.
func crdbStatements(t *testing.T, script string) []string {
	t.Helper()
	var stmts []string
	for _, line := range strings.Split(script, "\n") {
		if line == "" || strings.HasPrefix(line, "--") {
			continue
		}
		if !strings.HasSuffix(line, ";") {
			t.Errorf("statement does not end in ';': %s", line)
		}
		res, err := pg_query.Scan(line)
		if err != nil {
			t.Errorf("scanning %q: %v", line, err)
			continue
		}
		depth := 0
		for _, tok := range res.Tokens {
			switch line[tok.Start:tok.End] {
			case "(":
				depth++
			case ")":
				depth--
			case ";":
				if tok.End != int32(len(line)) {
					t.Errorf("two statements on one line: %s", line)
				}
			}
			if depth < 0 {
				break
			}
		}
		if depth != 0 {
			t.Errorf("unbalanced parentheses: %s", line)
		}
		stmts = append(stmts, line)
	}
	return stmts
}

func TestCockroachDB_OrdersIsolate(t *testing.T) {
	script, err := emit.CockroachDB(orders(t), design(t, "isolate(hash(customer_id), top=3)"), emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stmts := crdbStatements(t, script)
	if len(stmts) != 10 {
		t.Errorf("%d statements; want 10 (bucket column and primary key per table, 3 splits per table)", len(stmts))
	}
	want := "ALTER TABLE orders ADD COLUMN customer_id_bucket_64 INT8 NOT NULL AS (mod(fnv32(md5(crdb_internal.datums_to_bytes(customer_id))), 64)) STORED;"
	if stmts[0] != want {
		t.Errorf("first statement %s; want %s", stmts[0], want)
	}
	// Each hot customer's split is in its bucket as the cockroachdb engine
	// computes it.
	for _, c := range []int64{1, 2, 3} {
		p, err := partition.CockroachDB{}.Point([]shardkey.Value{shardkey.IntValue(c)})
		if err != nil {
			t.Fatal(err)
		}
		b := p % 64
		want := "ALTER TABLE orders SPLIT AT VALUES (" + itoa(int64(b)) + ", " + itoa(c) + "), (" + itoa(int64(b)) + ", " + itoa(c+1) + ");"
		if !strings.Contains(script, want) {
			t.Errorf("no %s in\n%s", want, script)
		}
	}
}

func TestCockroachDB_Keys(t *testing.T) {
	check := func(d string, o emit.Options, want ...string) {
		t.Helper()
		script, err := emit.CockroachDB(orders(t), design(t, d), o)
		if err != nil {
			t.Fatal(err)
		}
		crdbStatements(t, script)
		for _, w := range want {
			if !strings.Contains(script, w) {
				t.Errorf("%s: no %q in\n%s", d, w, script)
			}
		}
	}
	// A unique key column: a hash-sharded primary key.
	check("orders:hash(order_id)", emit.Options{Shards: 16},
		"ALTER TABLE orders ALTER PRIMARY KEY USING COLUMNS (order_id) USING HASH WITH (bucket_count = 16);")
	// Older generations' bucket expressions.
	check("order_line:hash(order_id)", emit.Options{Engine: "cockroachdb:generation=1"},
		"AS (mod(fnv32(COALESCE(CAST(order_id AS STRING), '')), 64)) STORED;",
		"ALTER PRIMARY KEY USING COLUMNS (order_id_bucket_64, order_id, line_id);")
	check("order_line:hash(order_id)", emit.Options{Engine: "cockroachdb:generation=2"},
		"AS (mod(fnv32(crdb_internal.datums_to_bytes(order_id)), 64)) STORED;")
	// A monotonic range key is flagged; bounds become splits.
	check("orders:range(order_id, bounds=[5000, 10000])", emit.Options{},
		"-- order_id is monotonic: every insert goes to the last range",
		"ALTER TABLE orders SPLIT AT VALUES (5000), (10000);")
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
