package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExitCodes: usage errors exit 2, input errors exit 1, each with one
// clear message naming the file, line and field where there is one.
func TestExitCodes(t *testing.T) {
	rows := writeFile(t, "rows.csv", "user_id,weight\n1,1\n2,1\n")
	badRows := writeFile(t, "bad.csv", "user_id,weight\n1,1\n2,NaN\n")
	badYAML := writeFile(t, "bad.yaml", "name: x\ntables:\n  - name: t\n    columns:\n      - {name: a, gen: nope}\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, 2, "Usage"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"score", "--rows", rows, "-k", "hash(user_id"}, 2, `key "hash(user_id": at 13`},
		{[]string{"score", "--rows", rows, "-k", "hash(nope)"}, 2, `no table has column(s) nope`},
		{[]string{"score", "--rows", rows, "-k", "hash(user_id)", "--shards", "0"}, 2, "--shards 0"},
		{[]string{"score", "--rows", rows, "-k", "hash(user_id)", "--shards", "-3"}, 2, "--shards -3"},
		{[]string{"score", "--rows", rows, "-k", "hash(user_id)", "--format", "xml"}, 2, "--format"},
		{[]string{"score", "--rows", rows, "-k", "hash(user_id)", "--engine", "oracle"}, 2, `unknown engine "oracle"`},
		{[]string{"score", "--rows", rows}, 2, "no keys to score"},
		{[]string{"score"}, 2, "no workload"},
		{[]string{"score", "--rows", badRows, "-k", "hash(user_id)"}, 1, "bad.csv:3: weight: weight is NaN"},
		{[]string{"score", "--rows", filepath.Join(t.TempDir(), "missing.csv"), "-k", "x"}, 2, "missing.csv: no such file or directory"},
		{[]string{"score", "--workload", badYAML, "-k", "a"}, 1, `bad.yaml:5: t.a: unknown gen "nope"`},
		{[]string{"demo", "nosuch"}, 2, `no built-in scenario "nosuch"`},
		{[]string{"score", "--from", "notadsn", "-k", "hash(a)"}, 2, "--from: DSN notadsn: want postgres://... or mysql://..."},
		{[]string{"advise", "--column-type", "user_id=nosuch"}, 2, `unknown type "nosuch"`},
		{[]string{"advise", "--column-type", "user_id=int64"}, 2, "--column-type applies to files and databases read"},
		{[]string{"score", "--rows", rows, "-k", "directory(user_id, " + filepath.Join(t.TempDir(), "nope.csv") + ")"}, 2, "nope.csv does not exist"},
		{[]string{"advise", "--from", "oracle://u:secret@h/db"}, 2, "want postgres://"},
		{[]string{"demo", "social", "--variant", "nosuch"}, 2, `no variant "nosuch"`},
		{[]string{"score", "--rows", rows, "-k", "hash(user_id)"}, 0, "hash(user_id)"},
	} {
		code, out, errs := runCmd(t, "", c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("shardkey %s: exit %d, output %q; want exit %d and %q", strings.Join(c.args, " "), code, out+errs, c.code, c.want)
		}
	}
	// Nothing the user gave is modified.
	data, _ := os.ReadFile(badRows)
	if string(data) != "user_id,weight\n1,1\n2,NaN\n" {
		t.Error("input file changed")
	}
}

// TestPlaceJSON: place --format json prints value, hash and shard as
// PRODUCT.md pins them; the shard is the engine's layout of its point.
func TestPlaceJSON(t *testing.T) {
	code, out, errs := runCmd(t, "", "place", "--engine", "redis", "--shards", "3", "--format", "json", "somekey", "foo{hash_tag}")
	if code != 0 {
		t.Fatal(errs)
	}
	var got []struct {
		Value string
		Hash  int64
		Shard int
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	// Redis documents CLUSTER KEYSLOT somekey = 11058 and foo{hash_tag} =
	// 2515; redis-cli gives 3 masters 0-5460, 5461-10922, 10923-16383.
	if len(got) != 2 || got[0].Hash != 11058 || got[0].Shard != 2 || got[1].Hash != 2515 || got[1].Shard != 0 {
		t.Errorf("place redis = %+v", got)
	}
	// Values from standard input, generic engine: xxhash64 mod shards.
	code, out, _ = runCmd(t, "42\n7\n", "place", "--shards", "5", "--format", "json")
	if code != 0 {
		t.Fatal(out)
	}
	var gen []struct {
		Value string
		Hash  uint64
		Shard int
	}
	if err := json.Unmarshal([]byte(out), &gen); err != nil {
		t.Fatal(err)
	}
	for i, v := range []int64{42, 7} {
		p, _ := partition.Generic{}.Point([]shardkey.Value{shardkey.IntValue(v)})
		if gen[i].Hash != p || gen[i].Shard != int(p%5) {
			t.Errorf("place %d = %+v; want hash %d shard %d", v, gen[i], p, p%5)
		}
	}
	if code, _, errs := runCmd(t, "", "place", "--type", "int32", "x"); code != 1 || !strings.Contains(errs, `"x" is not an int32`) {
		t.Errorf("bad value: exit %d %s", code, errs)
	}
}

// TestFormats: table and markdown output carry the numbers.
func TestFormats(t *testing.T) {
	code, out, _ := runCmd(t, "", "demo", "social")
	if code != 0 || !strings.Contains(out, "34,600/s") || !strings.Contains(out, "5,200 requests/s on 8 shards") {
		t.Errorf("table output lacks the seed's numbers:\n%s", out)
	}
	code, out, _ = runCmd(t, "", "demo", "social", "--format", "markdown")
	if code != 0 || !strings.Contains(out, "| 34,600 |") {
		t.Errorf("markdown output lacks 34,600:\n%s", out)
	}
}

// TestExplainKeyUpdate: an UPDATE that assigns the shard key moves the row:
// the old value's shard and the new value's shard, each placed by the
// generic engine (xxhash64 mod 8).
func TestExplainKeyUpdate(t *testing.T) {
	shard := func(v int64) int { return int(partition.Generic{}.PointInt64(v) % 8) }
	for _, sql := range []string{"UPDATE posts SET user_id = 2 WHERE user_id = 1", "UPDATE `posts` SET user_id = 2 WHERE user_id = 1"} {
		code, out, errs := runCmd(t, "", "explain", "-k", "hash(user_id)", "--format", "json", sql)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", sql, code, errs)
		}
		var r struct {
			Shards []int
			Reason string
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		want := map[int]bool{shard(1): true, shard(2): true}
		got := map[int]bool{}
		for _, s := range r.Shards {
			got[s] = true
		}
		if len(got) != len(want) || !got[shard(1)] || !got[shard(2)] || !strings.Contains(r.Reason, "moves") {
			t.Errorf("%s: shards %v reason %q; want shards %d and %d and a move", sql, r.Shards, r.Reason, shard(1), shard(2))
		}
	}
}

// TestUnboundWrites: a transaction whose writes do not give the key column
// is scored as rows placed at random (two independent uniform shards of 2:
// cross-shard with probability 1/2), and the output says so; a write with
// an IN list or a range is an input error naming the field.
func TestUnboundWrites(t *testing.T) {
	rows := writeFile(t, "rows.csv", "customer_id,order_id\n1,101\n2,201\n")
	txns := writeFile(t, "txns.jsonl", `{"writes": [{"order_id": 101}, {"order_id": 201}]}`+"\n")
	code, out, errs := runCmd(t, "", "score", "--rows", rows, "--txns", txns, "--shards", "2", "-k", "hash(customer_id)", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Candidates []struct {
			Cross    float64  `json:"cross_shard_txn_fraction"`
			Warnings []string `json:"warnings"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	c := r.Candidates[0]
	if c.Cross != 0.5 || !strings.Contains(strings.Join(c.Warnings, "\n"), "2 transaction write(s) give no value for the key column(s)") {
		t.Errorf("cross %v, warnings %q; want 0.5 and a warning about the 2 writes", c.Cross, c.Warnings)
	}
	// Byte-identical writes are read once, but a repeated write that
	// gives no key value is still its own draw: (1/2 + 0) / 2 = 0.25.
	rep := writeFile(t, "rep.jsonl", `{"writes": [{"order_id": 101}, {"order_id": 101}]}`+"\n"+
		`{"writes": [{"customer_id": 1}, {"customer_id": 1}, {"customer_id": 1}]}`+"\n")
	code, out, errs = runCmd(t, "", "score", "--rows", rows, "--txns", rep, "--shards", "2", "-k", "hash(customer_id)", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	c = r.Candidates[0]
	if c.Cross != 0.25 || !strings.Contains(strings.Join(c.Warnings, "\n"), "2 transaction write(s) give no value for the key column(s)") {
		t.Errorf("repeated writes: cross %v, warnings %q; want 0.25 and a warning about the 2 writes", c.Cross, c.Warnings)
	}
	bad := writeFile(t, "bad.jsonl", `{"writes": [{"customer_id": 1}]}`+"\n"+`{"writes": [{"customer_id": {"gte": 1}}]}`+"\n")
	code, _, errs = runCmd(t, "", "score", "--rows", rows, "--txns", bad, "-k", "hash(customer_id)")
	if code != 1 || !strings.Contains(errs, "bad.jsonl:2: writes[0].customer_id: a write gives the row's values") {
		t.Errorf("range in a write: exit %d, %q", code, errs)
	}
}

// TestAdviseHTML: the self-contained report has, for each of the top
// candidates, a chart of per-shard work with a bar per shard and labels
// (the busiest shard and its ratio to the mean: 1.24x for hash(user_id) on
// the social scenario, seed 001), and a fan-out chart whose legend names
// the operations.
func TestAdviseHTML(t *testing.T) {
	code, out, errs := runCmd(t, "", "advise", "--format", "html")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"<!doctype html>", `aria-label="per-shard work (units/s)"`, "(1.24x the mean)</text>",
		`text-anchor="start">shard 0</text>`, `text-anchor="end">shard 7</text>`, `<ol class="legend"><li>write a post</li>`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the report", want)
		}
	}
	fig := out[strings.Index(out, `aria-label="per-shard work (units/s)"`):]
	fig = fig[:strings.Index(fig, "</svg>")]
	if n := strings.Count(fig, "<rect "); n != 8 {
		t.Errorf("%d bars in the first work chart; want 8 (one per shard)", n)
	}
	if strings.Contains(out, "<script") {
		t.Error("the report runs scripts; it should be static")
	}
}

// TestScoreWithLogAddingTable: a log read after the samples may add tables
// and columns, so score does not stream then (it did, and a key on a table
// only the log names crashed it).
func TestScoreWithLogAddingTable(t *testing.T) {
	rows := writeFile(t, "users.csv", "id\n1\n2\n")
	q := writeFile(t, "q.jsonl", `{"where":{"id":1}}`+"\n")
	log := writeFile(t, "o.log", "2024-03-01 10:00:00.000 UTC [1] LOG:  statement: SELECT * FROM orders WHERE user_id = 5\n")
	for _, k := range []string{"hash(id)", "users:hash(id); orders:hash(user_id)"} {
		code, out, errs := runCmd(t, "", "score", "--rows", rows, "--queries", q, "--log", log, "-k", k, "--format", "json")
		if code != 0 || !strings.Contains(out, `"requests_per_s": 2`) {
			t.Errorf("-k %s: exit %d, %s %s; want a score of 2 requests/s", k, code, errs, out[:min(len(out), 200)])
		}
	}
}

// TestAdviseTransactionsOnly: with no queries, the candidates come from the
// columns transactions write: a customer's two orders commit together, so
// a key on customer_id keeps every transaction on one shard and
// hash(order_id) does not (two order ids on 4 shards: cross-shard unless
// they collide).
func TestAdviseTransactionsOnly(t *testing.T) {
	rows := writeFile(t, "r.csv", "customer_id,order_id\n1,10\n2,20\n3,30\n")
	var tx strings.Builder
	for c := 1; c <= 40; c++ {
		fmt.Fprintf(&tx, `{"writes":[{"customer_id":%d,"order_id":%d},{"customer_id":%d,"order_id":%d}]}`+"\n", c, 100+2*c, c, 101+2*c)
	}
	txns := writeFile(t, "t.jsonl", tx.String())
	code, out, errs := runCmd(t, "", "advise", "--rows", rows, "--txns", txns, "--shards", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "(customer_id). The workload has no queries") || !strings.Contains(out, "0% of transactions cross shards") {
		t.Errorf("advice:\n%s", out)
	}
}

// TestIsolateRange: isolate() over a range key sends the whale's requests
// to its own shard, as over a hash key. Social with the celebrity (seed
// 001): 1,000 writes and 4,000 reads a second, one unit each, and 200
// scatter reads on 8 shards: 6,600 units/s in all; the celebrity's shard
// does its 30% of the 5,000 plus the 200 scatter reads, 1,700/s.
func TestIsolateRange(t *testing.T) {
	for _, k := range []string{"isolate(range(user_id), top=1)", "isolate(hash(user_id), top=1)"} {
		code, out, errs := runCmd(t, "", "demo", "social", "--variant", "celebrity", "-k", k, "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", k, code, errs)
		}
		var r struct {
			Candidates []struct {
				Work float64 `json:"work_per_s"`
				Max  float64 `json:"max_shard_work"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if c := r.Candidates[0]; math.Abs(c.Work-6600) > 1e-6 || math.Abs(c.Max-1700) > 1e-6 {
			t.Errorf("%s: work %v, busiest %v; want 6600 and 1700", k, c.Work, c.Max)
		}
	}
}

// TestMarkdownEscapes: names from the workload cannot inject HTML into the
// Markdown report or break its tables.
func TestMarkdownEscapes(t *testing.T) {
	rows := writeFile(t, "r.csv", "id\n1\n2\n")
	q := writeFile(t, "q.jsonl", `{"where": {"id": 1}, "name": "<script>x</script> a|b"}`+"\n")
	code, out, errs := runCmd(t, "", "score", "--rows", rows, "--queries", q, "-k", "hash(id)", "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out, "<script>") || !strings.Contains(out, `&lt;script&gt;x&lt;/script&gt; a\|b`) {
		t.Errorf("operation name not escaped:\n%s", out)
	}
}

// TestNullKeyValue: a NULL key value an engine cannot place (Citus has no
// shard for it) makes a read ask every shard, rather than failing the
// run: one such read and one single-shard read on 8 shards ask 4.5 shards
// on average.
func TestNullKeyValue(t *testing.T) {
	rows := writeFile(t, "u.csv", "user_id\n1\n2\n")
	q := writeFile(t, "q.jsonl", `{"where":{"user_id":null}}`+"\n"+`{"where":{"user_id":1}}`+"\n")
	for _, eng := range []string{"citus", "vitess", "redis"} {
		code, out, errs := runCmd(t, "", "score", "--rows", rows, "--queries", q, "-k", "hash(user_id)", "--engine", eng, "--format", "json")
		if code != 0 || !strings.Contains(out, `"fanout_mean": 4.5`) {
			t.Errorf("%s: exit %d %s; want fan-out mean 4.5", eng, code, errs)
		}
	}
}

// TestNullKeyRowsAndLists: under Citus, rows with a NULL key are reported
// (the database refuses them) rather than failing the run, and a NULL in
// an IN list matches nothing: IN (NULL, 2) asks one shard.
func TestNullKeyRowsAndLists(t *testing.T) {
	rows := writeFile(t, "n.csv", "user_id,weight\n1,1\n2,1\n,1\n,1\n")
	q := writeFile(t, "q.jsonl", `{"where":{"user_id":{"in":[null,2]}}}`+"\n")
	code, out, errs := runCmd(t, "", "score", "--rows", rows, "--queries", q, "-k", "hash(user_id)", "--engine", "citus", "--format", "json")
	if code != 0 || !strings.Contains(out, `"fanout_mean": 1,`) || !strings.Contains(out, "2 row(s) have a NULL key that citus cannot place") {
		t.Errorf("exit %d %s:\n%s", code, errs, out)
	}
}

// TestEngineCannotPlaceKey: a key an engine cannot place at all (Citus
// distributes a table by one column; Vitess's hash vindex takes no text)
// is a usage error naming the key and the engine when the key is
// compiled, not an input error on the first line that routes it.
func TestEngineCannotPlaceKey(t *testing.T) {
	rows := writeFile(t, "rows.csv", "customer_id,order_month\n1,2024-01\n2,2024-02\n")
	queries := writeFile(t, "q.jsonl", `{"where": {"order_month": "2024-01"}}`+"\n"+`{"where": {"customer_id": 1, "order_month": "2024-01"}}`+"\n")
	for _, c := range []struct{ engine, key, want string }{
		{"citus", "hash(customer_id, order_month)", "engine citus cannot place a key of (customer_id int64, order_month text): citus: a table is distributed by one column, not 2"},
		{"vitess", "hash(order_month)", `engine vitess cannot place a key of (order_month text): vitess: the hash vindex maps unsigned integers only: the engine has no shard for values of these types`},
	} {
		code, _, errs := runCmd(t, "", "score", "--rows", rows, "--queries", queries, "--engine", c.engine, "-k", c.key)
		// The probe value shardkey tries ("a") is not the user's: it is
		// not named.
		if code != 2 || !strings.Contains(errs, c.want) || strings.Contains(errs, "q.jsonl") || strings.Contains(errs, `"a"`) {
			t.Errorf("--engine %s -k %s: exit %d, %q; want exit 2 and %q", c.engine, c.key, code, errs, c.want)
		}
	}
}

// TestAdviseDeterministic: the same log gives the same advice every time
// (candidate ties were broken by map order; found by review).
func TestAdviseDeterministic(t *testing.T) {
	for _, log := range []string{"../../sqllog/testdata/pg-jsonlog.json", "../../sqllog/testdata/mariadb-general.log"} {
		var first string
		for i := 0; i < 8; i++ {
			code, out, errs := runCmd(t, "", "advise", "--log", log, "--format", "json")
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", log, code, errs)
			}
			if i == 0 {
				first = out
			} else if out != first {
				t.Fatalf("%s: run %d differs from run 1", log, i+1)
			}
		}
	}
}

// TestAdviseWarnings: a warning goes to standard error in table form (not
// as a line of the advice) and into the document in every other format.
func TestAdviseWarnings(t *testing.T) {
	// One text value in a column of integers: a warning names it.
	var sb strings.Builder
	sb.WriteString("user_id\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&sb, "%d\n", i)
	}
	sb.WriteString("abc\n")
	rows := writeFile(t, "rows.csv", sb.String())
	q := writeFile(t, "q.jsonl", `{"where": {"user_id": "1"}}`+"\n"+`{"where": {"user_id": "2"}}`+"\n")
	args := []string{"advise", "--rows", rows, "--queries", q, "--shards", "2", "--sweep", "", "--bootstrap", "0"}
	code, out, errs := runCmd(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	tableCarriesWarnings(t, "advise", out, errs)
	for format, want := range map[string]string{"json": `"warnings": [`, "markdown": "## Warnings", "html": "<h2>Warnings</h2>"} {
		_, out, _ := runCmd(t, "", append(args, "--format", format)...)
		if !strings.Contains(out, want) {
			t.Errorf("%s: no warnings section %q in\n%s", format, want, out)
		}
	}
}

// tableCarriesWarnings checks that a table output (stdout) ends with
// every warning its command wrote to stderr ("warning: TEXT" lines), the
// same text, under "warnings:" ("  - TEXT"), so that stdout redirected to
// a file keeps them; and that there is at least one.
func tableCarriesWarnings(t *testing.T, what, stdout, stderr string) {
	t.Helper()
	var want []string
	for _, l := range strings.Split(stderr, "\n") {
		if text, ok := strings.CutPrefix(l, "warning: "); ok {
			want = append(want, "  - "+text)
		}
	}
	if len(want) == 0 {
		t.Fatalf("%s: no warning on stderr %q", what, stderr)
	}
	i := strings.LastIndex(stdout, "\nwarnings:\n")
	if i < 0 {
		t.Fatalf("%s: no warnings block in stdout:\n%s", what, stdout)
	}
	got := strings.TrimSuffix(stdout[i+len("\nwarnings:\n"):], "\n")
	if w := strings.Join(want, "\n"); got != w {
		t.Errorf("%s: stdout's warnings block\n%s\nwant (stderr's)\n%s", what, got, w)
	}
}

// TestTableWarnings: the table formats of score, demo's score document and
// explain end with the warnings their stderr carries. score on rows
// alone warns that there are no operations; explain of a statement with a
// bind parameter warns that its value is known only at run time.
func TestTableWarnings(t *testing.T) {
	rows := writeFile(t, "rows.csv", "user_id\n1\n2\n3\n")
	code, out, errs := runCmd(t, "", "score", "--rows", rows, "-k", "hash(user_id)", "--shards", "2")
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "no operations") {
		t.Errorf("score: stderr %q; want the no-operations warning", errs)
	}
	tableCarriesWarnings(t, "score", out, errs)
	code, out, errs = runCmd(t, "", "explain", "-k", "hash(user_id)", "SELECT * FROM posts WHERE user_id = $1")
	if code != 0 {
		t.Fatalf("explain: exit %d: %s", code, errs)
	}
	tableCarriesWarnings(t, "explain", out, errs)
	// No warning, no block.
	code, out, errs = runCmd(t, "", "explain", "-k", "hash(user_id)", "SELECT * FROM posts WHERE user_id = 7")
	if code != 0 || strings.Contains(errs, "warning: ") || strings.Contains(out, "warnings:") {
		t.Errorf("explain without a warning: exit %d, stdout %q, stderr %q; want no warnings block", code, out, errs)
	}
}

// TestAdviseOneShard: "1 shard", not "1 shards".
func TestAdviseOneShard(t *testing.T) {
	_, out, _ := runCmd(t, "", "advise", "--shards", "1", "--sweep", "", "--bootstrap", "0")
	if !strings.Contains(out, "advice for 1 shard,") || strings.Contains(out, "1 shards") {
		t.Errorf("want \"advice for 1 shard,\" and never \"1 shards\":\n%s", out)
	}
}

// TestSameFileTwice: a log or sample file given twice (by one path or two)
// is a usage error, not doubled rates.
func TestSameFileTwice(t *testing.T) {
	log := "../../sqllog/testdata/pg-stderr.log"
	for _, args := range [][]string{
		{"advise", "--log", log, "--log", log},
		{"score", "-k", "hash(id)", "--log", log, "--log", "../../sqllog/../sqllog/testdata/pg-stderr.log"},
	} {
		code, _, errs := runCmd(t, "", args...)
		if code != 2 || !strings.Contains(errs, "counted twice") {
			t.Errorf("%v: exit %d, %q; want exit 2 saying it would be counted twice", args, code, errs)
		}
	}
}

// TestSchemaAlone: --schema only describes tables; alone it is a usage
// error, not advice on the built-in scenario.
func TestSchemaAlone(t *testing.T) {
	schema := writeFile(t, "s.sql", "CREATE TABLE t (id int PRIMARY KEY);\n")
	for _, cmd := range []string{"advise", "score"} {
		code, out, errs := runCmd(t, "", cmd, "--schema", schema, "-k", "hash(id)")
		if code != 2 || !strings.Contains(errs, "--schema describes the tables") || strings.Contains(out, "social") {
			t.Errorf("%s --schema alone: exit %d, stdout %.80q, stderr %q; want exit 2 asking for a workload", cmd, code, out, errs)
		}
	}
}

// TestWatchOneLog: watch reads one log; a second --log was silently
// replacing the first.
func TestWatchOneLog(t *testing.T) {
	code, _, errs := runCmd(t, "", "watch", "--log", "a.log", "--log", "b.log", "-k", "hash(id)")
	if code != 2 || !strings.Contains(errs, "given twice (a.log, then b.log)") {
		t.Errorf("watch --log a.log --log b.log: exit %d, %q; want exit 2", code, errs)
	}
}

// TestLogNoneParsed: a log none of whose statements parses is an input
// error (exit 1) naming the file and line of the first, for advise
// ("no candidate keys" before) and score (a usage error before).
func TestLogNoneParsed(t *testing.T) {
	log := filepath.Join("..", "..", "sqllog", "testdata", "bad", "stderr-unparsable.log")
	want := log + `:1: no statement could be read: none of its 3 statements could be parsed as PostgreSQL SQL: ` + log + `:1: syntax error at or near "SELEC"`
	for _, args := range [][]string{{"advise", "--log", log}, {"score", "--log", log, "-k", "hash(id)"}} {
		code, _, errs := runCmd(t, "", args...)
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("%v: exit %d, %q; want exit 1 and %q", args, code, errs, want)
		}
	}
}

// TestExplainKeyUpdateVitess: under a vitess engine an UPDATE that assigns
// the primary vindex's column is refused when Vitess plans it
// (buildChangedVindexesValues, go/vt/vtgate/planbuilder/operators/
// update.go: "VT12001: unsupported: you cannot UPDATE primary vindex
// columns; invalid update on vindex: user_index", the name music's first
// column vindex has in testdata/vitess/vschema.json): no row moves, the
// statement is routed by its WHERE alone (user_id = 1's shard), with a
// warning.
func TestExplainKeyUpdateVitess(t *testing.T) {
	for _, c := range []struct{ key, sql, vindex string }{
		{"@testdata/vitess/vschema.json", "UPDATE music SET user_id = 5 WHERE user_id = 1", "; invalid update on vindex: user_index"},
		{"music:hash(user_id)", "UPDATE music SET user_id = 5 WHERE user_id = 1", ""},
	} {
		code, out, errs := runCmd(t, "", "explain", "--dialect", "mysql", "--engine", "vitess", "--shards", "4", "-k", c.key, "--format", "json", c.sql)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.sql, code, errs)
		}
		var r struct {
			Shards   []int
			Reason   string
			Warnings []string
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		want := "VT12001: unsupported: you cannot UPDATE primary vindex columns" + c.vindex + ")"
		if !slices.Equal(r.Shards, vitessShards(4, 1)) || !strings.Contains(r.Reason, want) || strings.Contains(r.Reason, "moves to") ||
			!slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, want) }) {
			t.Errorf("%s: shards %v reason %q warnings %q; want shards %v only, %q in the reason and a warning", c.sql, r.Shards, r.Reason, r.Warnings, vitessShards(4, 1), want)
		}
	}
}

// TestExplainLookupUpdate: an UPDATE assigning an owned lookup's column
// makes Vitess delete the old value's lookup row and insert the new
// one's (Lookup.Update: Delete then Create, go/vt/vtgate/vindexes/
// lookup.go; updateVindexEntries, engine/update.go). The lookup table of
// lookup(n) is sharded by n with the hash vindex, so the new row of n = 7
// is on the hash shard of 7 (vitessHashShard); the row itself stays on
// id 3's shard.
func TestExplainLookupUpdate(t *testing.T) {
	code, out, errs := runCmd(t, "", "explain", "--dialect", "mysql", "--engine", "vitess", "--shards", "4", "-k", "users:hash(id), lookup(n)", "--format", "json", "UPDATE users SET n = 7 WHERE id = 3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Shards  []int
		Lookups []int `json:"lookup_shards"`
		Reason  string
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("deletes the row's old lookup row (its shard known once the row is read) and inserts the new value's lookup row on shard %d", vitessHashShard(t, 7, 4))
	if !slices.Equal(r.Shards, vitessShards(4, 3)) || !slices.Equal(r.Lookups, []int{vitessHashShard(t, 7, 4)}) || !strings.Contains(r.Reason, want) {
		t.Errorf("shards %v lookup_shards %v reason %q; want %v, [%d], %q", r.Shards, r.Lookups, r.Reason, vitessShards(4, 3), vitessHashShard(t, 7, 4), want)
	}
}

// TestScoreLookupUpdate: score --log counts the lookup rows an UPDATE
// that assigns an owned lookup's column rewrites (the old value's
// deleted, the new one's inserted: lookupInternal.Update,
// go/vt/vtgate/vindexes/lookup_internal.go), in the statement's
// transaction, and explain places the new row where score does. The log
// has no timestamps: rates are statement counts. Under the vitess engine
// the lookup table of n is sharded by n with the hash vindex
// (vitessHashShard), the rows by id.
func TestScoreLookupUpdate(t *testing.T) {
	log := writeFile(t, "u.log", "/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1 (Debian 12). started with:\n"+
		"Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\n"+
		"Time\t\t    Id Command\tArgument\n"+
		"\t\t    12 Query\tINSERT INTO users (id, n) VALUES (1, 10)\n"+
		"\t\t    12 Query\tINSERT INTO users (id, n) VALUES (2, 20)\n"+
		"\t\t    12 Query\tUPDATE users SET n = 7 WHERE id = 3\n"+
		"\t\t    12 Query\tUPDATE users SET n = n + 1 WHERE id = 2\n"+
		"\t\t    12 Query\tUPDATE users SET n = 8 WHERE n = 20\n")
	code, out, errs := runCmd(t, "", "score", "--log", log, "--engine", "vitess", "--shards", "4", "-k", "users:hash(id), lookup(n)", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Candidates []struct {
			Cross   float64 `json:"cross_shard_txn_fraction"`
			Lookups []struct {
				Writes  float64 `json:"writes_per_s"`
				Updates float64 `json:"update_writes_per_s"`
			}
			Operations []struct {
				Name string
				Work float64 `json:"work_per_s"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	c := r.Candidates[0]
	// insert: row and lookup row, 2/s x 2. update by id: row, the
	// SELECT ... FOR UPDATE vtgate reads the vindex columns with on the
	// row's shard (Update.updateVindexEntries, engine/update.go; planned
	// for n = n + 1 too: buildChangedVindexesValues takes expressions),
	// old and new lookup rows, 2/s x 4. update by n: the lookup hop, the
	// row, the FOR UPDATE read, old and new lookup rows, 1/s x 5.
	want := map[string]float64{"insert users": 4, "update users where id = ?": 8, "update users where n = ?": 5}
	for _, o := range c.Operations {
		if w, ok := want[o.Name]; !ok || math.Abs(o.Work-w) > 1e-9 {
			t.Errorf("%s: work %v/s; want %v (of %v)", o.Name, o.Work, w, want)
		}
	}
	if len(c.Lookups) != 1 || c.Lookups[0].Writes != 8 || c.Lookups[0].Updates != 6 {
		t.Errorf("lookups %+v; want 8 writes/s, 6 of them by updates", c.Lookups)
	}
	// Each statement is a transaction of its own (autocommit). One is
	// on one shard when its row and every lookup row of it are: a row or
	// lookup row at an unknown place is one of 4 shards at random.
	h := func(v uint64) int { return vitessHashShard(t, v, 4) }
	b := func(x bool) float64 {
		if x {
			return 1
		}
		return 0
	}
	single := b(h(10) == h(1)) + b(h(20) == h(2)) + // the inserts
		b(h(7) == h(3))/4 + // new row on 7's shard, old one at random
		1.0/16 + // old and new rows at random, row on 2's shard
		b(h(20) == h(8))/4 // lookup hop and old row on 20's shard, new on 8's, the row (not in a sample) at random
	if wantX := 1 - single/5; math.Abs(c.Cross-wantX) > 1e-9 {
		t.Errorf("cross_shard_txn_fraction %v; want %v", c.Cross, wantX)
	}
	// explain places the new lookup row of n = 7 where score does.
	code, out, errs = runCmd(t, "", "explain", "--dialect", "mysql", "--engine", "vitess", "--shards", "4", "-k", "users:hash(id), lookup(n)", "--format", "json", "UPDATE users SET n = 7 WHERE id = 3")
	if code != 0 {
		t.Fatalf("explain: exit %d: %s", code, errs)
	}
	var e struct {
		Lookups []int `json:"lookup_shards"`
	}
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.Lookups, []int{h(7)}) {
		t.Errorf("explain lookup_shards %v; want [%d]", e.Lookups, h(7))
	}
}

// TestSlotsOutOfRange: --slots given as 0 or negative is out of range,
// said as such (it read "--nodes 3 needs --slots", as if none was given).
func TestSlotsOutOfRange(t *testing.T) {
	for _, v := range []string{"0", "-5"} {
		code, _, errs := runCmd(t, "", "score", "--slots", v, "--nodes", "3", "-k", "hash(user_id)")
		if want := "--slots " + v + ": must be in 1..65536"; code != 2 || !strings.Contains(errs, want) {
			t.Errorf("--slots %s: exit %d, %q; want exit 2 and %q", v, code, errs, want)
		}
	}
}

// TestExplainVitessDialect: under --engine vitess a statement both
// parsers accept is read as MySQL, the dialect vtgate speaks: "abc" is a
// string in MySQL (an identifier in PostgreSQL), so login = "abc" routes
// by the key, as vtgate routes it.
func TestExplainVitessDialect(t *testing.T) {
	code, out, errs := runCmd(t, "", "explain", "--engine", "vitess", "--shards", "4", "-k", "users:hash(login, vindex=unicode_loose_md5)", `SELECT * FROM users WHERE login = "abc"`)
	if code != 0 || !strings.Contains(out, "dialect: mysql (Vitess (vtgate) speaks MySQL's dialect") || !strings.Contains(out, "route:   single") {
		t.Errorf("exit %d %s:\n%s", code, errs, out)
	}
	// Without Vitess the same statement is detected as before.
	code, out, _ = runCmd(t, "", "explain", "--shards", "4", "-k", "hash(login)", `SELECT * FROM users WHERE login = 'abc'`)
	if code != 0 || !strings.Contains(out, "dialect: postgresql") {
		t.Errorf("generic engine: exit %d:\n%s", code, out)
	}
}
