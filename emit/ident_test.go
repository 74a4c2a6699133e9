package emit_test

import (
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/emit"
)

// quotedNames is a workload whose table and column names need quotes in
// PostgreSQL: a reserved word (user), upper case (Orders, "CustomerId"),
// a hyphen (user-data), and one that needs none (plain).
func quotedNames(t *testing.T) *shardkey.Workload {
	t.Helper()
	w := &shardkey.Workload{Name: "quoted", Shards: 4}
	for _, tn := range []struct{ name, col string }{{"user", "id"}, {"Orders", "CustomerId"}, {"user-data", "user id"}, {"plain", "id"}} {
		tb := &shardkey.Table{Name: tn.name, Rows: 8}
		tb.AddColumn(tn.col, shardkey.Int64)
		for r := 0; r < 8; r++ {
			if err := tb.Columns[0].Append(shardkey.IntValue(int64(r))); err != nil {
				t.Fatal(err)
			}
		}
		w.Tables = append(w.Tables, tb)
	}
	return w
}

// TestCitus_QuotedNames: a table name is passed to Citus as regclass text,
// which PostgreSQL reads as an identifier (folding case, splitting on
// dots), so a name that needs quotes is quoted inside the literal; the
// distribution column is looked up verbatim by Citus
// (BuildDistributionKeyFromColumnName, distribution_column.c) and is not.
// Checked by reading each literal back as PostgreSQL reads a name:
// parsing it as the table of a SELECT gives back the table's name.
func TestCitus_QuotedNames(t *testing.T) {
	d := design(t, `user:hash(id); Orders:hash(CustomerId); "user-data":hash("user id"); plain:hash(id)`)
	sql, err := emit.Citus(quotedNames(t), d, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tree, err := pg_query.Parse(sql)
	if err != nil {
		t.Fatalf("pg_query: %v\n%s", err, sql)
	}
	var tables, cols []string
	for _, raw := range tree.Stmts {
		fc := raw.Stmt.GetSelectStmt().GetTargetList()
		if len(fc) != 1 || fc[0].GetResTarget().GetVal().GetFuncCall() == nil {
			continue
		}
		call := fc[0].GetResTarget().GetVal().GetFuncCall()
		if call.Funcname[len(call.Funcname)-1].GetString_().Sval != "create_distributed_table" {
			continue
		}
		lit := func(i int) string {
			a := call.Args[i]
			if na := a.GetNamedArgExpr(); na != nil {
				a = na.Arg
			}
			return a.GetAConst().GetSval().GetSval()
		}
		// regclassin: the text is a (possibly quoted) name.
		sel, err := pg_query.Parse("SELECT 1 FROM " + lit(0))
		if err != nil {
			t.Fatalf("table argument %q is not a name PostgreSQL reads: %v", lit(0), err)
		}
		rv := sel.Stmts[0].Stmt.GetSelectStmt().FromClause[0].GetRangeVar()
		if rv == nil {
			t.Errorf("table argument %q is not read as a table name by PostgreSQL", lit(0))
			continue
		}
		tables = append(tables, rv.Relname)
		cols = append(cols, lit(1))
	}
	if got, want := strings.Join(tables, "|"), "user|Orders|user-data|plain"; got != want {
		t.Errorf("tables as PostgreSQL reads them: %s; want %s\n%s", got, want, sql)
	}
	if got, want := strings.Join(cols, "|"), "id|CustomerId|user id|id"; got != want {
		t.Errorf("distribution columns: %s; want %s", got, want)
	}
	if !strings.Contains(sql, "create_distributed_table('plain', 'id'") {
		t.Errorf("a plain name is quoted needlessly:\n%s", sql)
	}
}

// TestCockroachDB_QuotedNames: ALTER TABLE and the primary-key columns
// quote names that need it, as PostgreSQL (and CockroachDB) read
// identifiers: the scanner gives one identifier token per name, whose
// text unquoted is the name.
func TestCockroachDB_QuotedNames(t *testing.T) {
	d := design(t, `user:hash(id); Orders:hash(CustomerId); "user-data":hash("user id"); plain:hash(id)`)
	script, err := emit.CockroachDB(quotedNames(t), d, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`ALTER TABLE "user" ALTER PRIMARY KEY USING COLUMNS (id) USING HASH WITH (bucket_count = 4);`,
		`ALTER TABLE "Orders" ALTER PRIMARY KEY USING COLUMNS ("CustomerId") USING HASH WITH (bucket_count = 4);`,
		`ALTER TABLE "user-data" ALTER PRIMARY KEY USING COLUMNS ("user id") USING HASH WITH (bucket_count = 4);`,
		`ALTER TABLE plain ALTER PRIMARY KEY USING COLUMNS (id) USING HASH WITH (bucket_count = 4);`,
	}
	got := crdbStatements(t, script)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("statements:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
