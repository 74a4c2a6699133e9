package report

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/sim"
)

// TestAdviceTableLongKeys: a design of many tables (TPC-C's nine, 200
// characters) made the rank table's key column as wide as a screen and
// more; past 100 characters the table leaves the column out and the
// designs follow it, numbered by rank and wrapped under 88 columns. Short
// designs keep their column.
func TestAdviceTableLongKeys(t *testing.T) {
	long := "customer:range(c_w_id); district:range(d_w_id); history:range(h_c_w_id); item:replicate; new_order:range(no_w_id); order_line:range(ol_w_id); orders:range(o_w_id); stock:range(s_w_id); warehouse:range(w_id)"
	table := func(keys ...string) string {
		adv := &advisor.Advice{Workload: "w", Shards: 8, Engine: "generic"}
		for i, k := range keys {
			adv.Candidates = append(adv.Candidates, &advisor.Assessment{Rank: i + 1, Key: k, Verdict: "possible", Score: &sim.Candidate{}})
		}
		var b strings.Builder
		if err := WriteAdviceTable(&b, adv); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	out := table(long, "hash(w_id)")
	if strings.Contains(out, "rank  key") || !strings.Contains(out, "rank  local  ") {
		t.Errorf("long designs: the rank table keeps a key column:\n%s", out)
	}
	want := "The designs ranked:\n" +
		"1.  customer:range(c_w_id); district:range(d_w_id); history:range(h_c_w_id);\n" +
		"    item:replicate; new_order:range(no_w_id); order_line:range(ol_w_id);\n" +
		"    orders:range(o_w_id); stock:range(s_w_id); warehouse:range(w_id)\n" +
		"2.  hash(w_id)\n"
	if !strings.Contains(out, want) {
		t.Errorf("long designs: want the list\n%s\nin\n%s", want, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "1 ") && strings.Contains(l, "customer:") {
			t.Errorf("a rank row holds the long design: %q", l)
		}
	}
	out = table("hash(w_id)", "range(w_id)")
	if !strings.Contains(out, "rank  key          local") || strings.Contains(out, "The designs ranked") {
		t.Errorf("short designs: want the key column and no list:\n%s", out)
	}
}

// TestNothingExpensiveButStatements: with no access over one shard on its
// own (no operation in the expensive list) but 9% of requests statements
// whose rows or tables land on several shards (20-row INSERTs under
// hash(id)), the advice said "every operation asks one shard" (second
// fresh-clone review); it says what does cross.
func TestNothingExpensiveButStatements(t *testing.T) {
	adv := &advisor.Advice{Workload: "w", Shards: 8, Engine: "generic"}
	adv.Candidates = append(adv.Candidates, &advisor.Assessment{Rank: 1, Key: "hash(id)", Verdict: "recommended",
		Criteria: advisor.Criteria{SingleShard: 2000.0 / 2200, CrossShardTxn: 1},
		Score:    &sim.Candidate{RequestsPerS: 2200, Transactions: 200}})
	var b strings.Builder
	if err := WriteAdviceTable(&b, adv); err != nil {
		t.Fatal(err)
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	if strings.Contains(out, "every operation asks one shard") {
		t.Errorf("says every operation asks one shard:\n%s", b.String())
	}
	if want := "expensive under this key: no access asks more than one shard on its own, but 9.1% of requests are statements whose accesses land on several (a multi-row INSERT's rows, a join's tables), and 100% of transactions cross shards"; !strings.Contains(out, want) {
		t.Errorf("want %q in\n%s", want, b.String())
	}
}
