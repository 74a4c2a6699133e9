package advisor

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sim"
	"github.com/shardkey/shardkey/sqllog"
)

// counterLog is a PostgreSQL log of n write transactions, the k-th for
// tenant 1 + k%3: INSERT an invoice, UPDATE the one global counter row
// counters where name = 'invoices', UPDATE the tenant; each followed by a
// read of the tenant's invoices.
func counterLog(n int) string {
	return counterLogOf(n, func(k int) int { return 1 + k%3 })
}

// counterLogOf is counterLog with the k-th transaction for tenant(k).
func counterLogOf(n int, tenant func(int) int) string {
	var b strings.Builder
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for k := range n {
		st := t0.Add(time.Duration(k)*time.Second).Format("2006-01-02 15:04:05") + ".000 UTC [10] app@db LOG:  statement: "
		ten := tenant(k)
		b.WriteString(st + "BEGIN;\n")
		fmt.Fprintf(&b, "%sINSERT INTO invoices (id, tenant_id, amount) VALUES (%d, %d, 10);\n", st, 100+k, ten)
		b.WriteString(st + "UPDATE counters SET n = n + 1 WHERE name = 'invoices';\n")
		fmt.Fprintf(&b, "%sUPDATE tenants SET invoice_count = invoice_count + 1 WHERE id = %d;\n", st, ten)
		b.WriteString(st + "COMMIT;\n")
		fmt.Fprintf(&b, "%sSELECT * FROM invoices WHERE tenant_id = %d;\n", st, ten)
	}
	return b.String()
}

func counterWorkload(t *testing.T, n int) *shardkey.Workload {
	t.Helper()
	w := &shardkey.Workload{}
	if err := sqllog.Read(context.Background(), w, strings.NewReader(counterLog(n)), "counters.log", sqllog.Options{}); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestHotRows: of 12 write transactions, every one updates counters
// where name = 'invoices' (one value: a hot row, 12 of 12); tenants is
// updated by three values (1, 2, 3), more than maxHotValues (2): not one;
// invoices is only inserted into (new rows each time): not one. With 9
// transactions, fewer than minHotTxns (10), nothing is named.
func TestHotRows(t *testing.T) {
	w := counterWorkload(t, 12)
	h := hotRows(w)
	if len(h) != 1 {
		t.Fatalf("hotRows = %+v; want one (counters)", h)
	}
	got := h[0]
	if tn := w.Tables[got.Table].Name; tn != "counters" || w.Tables[got.Table].Columns[got.Col].Name != "name" || !slices.Equal(got.Values, []string{"invoices"}) || got.N != 12 || got.Txns != got.Of {
		t.Errorf("hot row = %s.%s %v, %d txns, %v of %v; want counters.name [invoices], 12 txns, all of them", tn, w.Tables[got.Table].Columns[got.Col].Name, got.Values, got.N, got.Txns, got.Of)
	}
	if wh := got.where(w); wh != "name = 'invoices'" {
		t.Errorf("where = %q; want name = 'invoices'", wh)
	}
	if h := hotRows(counterWorkload(t, 9)); len(h) != 0 {
		t.Errorf("9 transactions: hotRows = %+v; want none", h)
	}
}

// TestHotRowFix: under invoices:hash(tenant_id); tenants:hash(id), a
// transaction without the counter's update touches tenant_id = t and
// id = t, the same integer hashed the same way: one shard, so 0% of
// transactions cross shards without the row. The fix names tenant_id,
// the key of the other tables' writes (invoices by tenant_id and
// tenants by id tie at 12 writes; a reference to an entity is preferred
// to a table's own id), and no whale note repeats counters' value.
func TestHotRowFix(t *testing.T) {
	w := counterWorkload(t, 12)
	key := "counters:hash(name); invoices:hash(tenant_id); tenants:hash(id)"
	o := sim.Options{Shards: 8}
	c, err := sim.Score(w, key, o)
	if err != nil {
		t.Fatal(err)
	}
	as := &Assessment{Viable: true, Key: key, Score: c}
	a := &analysis{w: w, hot: hotRows(w)}
	a.hotRowFix(as, w, o)
	if len(as.Fixes) != 1 || as.Fixes[0].Kind != "hot-row" {
		t.Fatalf("fixes = %+v; want one hot-row fix", as.Fixes)
	}
	f := as.Fixes[0]
	if f.Target != "counters where name = 'invoices'" {
		t.Errorf("target = %q", f.Target)
	}
	if f.After == nil {
		t.Fatalf("no re-scored numbers: %+v", f)
	}
	if !strings.Contains(f.Text, "without its writes 0% of transactions would cross shards") || !strings.Contains(f.Text, "add tenant_id to the key of counters") {
		t.Errorf("text = %q", f.Text)
	}
	as.Criteria.LargestOf = &PartitionValue{Tables: []string{"counters"}, Columns: []string{"name"}, Value: "invoices", Share: 1, Measure: "requests", Observations: 12, ShareLow: 0.9, ShareHigh: 1}
	a.whaleNote(as, 8)
	if len(as.Fixes) != 1 {
		t.Errorf("whale note added beside the hot-row fix: %+v", as.Fixes[1:])
	}
}

// TestOtherWhales: 40 transactions, every other one for tenant 7, the
// rest each for its own tenant (101, 103, ...): under invoices:
// hash(tenant_id); tenants:hash(id), tenant 7 is 20 of the 40 statements
// naming id on tenants and 40 of the 80 naming tenant_id on invoices
// (insert and read each): 50%, whose 95% interval on 40 statements
// (about 35%..65%) is above the whale threshold on 8 shards, 1.5/8 =
// 18.75%. counters' one value (100%, a hot row) is one value seen, no
// evidence of a whale (its spread is unknown), so the largest partition
// is tenant 7 on invoices: tenant 7 must be named on both tables, on
// invoices as the largest partition and on tenants as another table's
// whale.
func TestOtherWhales(t *testing.T) {
	w := &shardkey.Workload{}
	log := counterLogOf(40, func(k int) int {
		if k%2 == 0 {
			return 7
		}
		return 100 + k
	})
	if err := sqllog.Read(context.Background(), w, strings.NewReader(log), "counters.log", sqllog.Options{}); err != nil {
		t.Fatal(err)
	}
	key := "counters:hash(name); invoices:hash(tenant_id); tenants:hash(id)"
	o := sim.Options{Shards: 8}
	c, err := sim.Score(w, key, o)
	if err != nil {
		t.Fatal(err)
	}
	as := &Assessment{Viable: true, Key: key, Score: c}
	as.Criteria.LargestOf = largestPartition(w, c, nil, 8)
	if p := as.Criteria.LargestOf; p == nil || p.Name() != "invoices.tenant_id = 7" {
		t.Fatalf("largest partition = %+v; want invoices.tenant_id = 7 (counters' one value is no evidence)", p)
	}
	a := &analysis{w: w, hot: hotRows(w)}
	a.hotRowFix(as, w, o)
	a.whaleNote(as, 8)
	var targets, text []string
	for _, f := range as.Fixes {
		if f.Kind == "whale" {
			targets = append(targets, f.Target)
			text = append(text, f.Text)
		}
	}
	slices.Sort(targets)
	if want := []string{"invoices.tenant_id = 7", "tenants.id = 7"}; !slices.Equal(targets, want) {
		t.Fatalf("whale fixes for %q; want %q", targets, want)
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{"50% of the requests naming tenant_id on invoices", "50% of the requests naming id on tenants", "(a directory override, isolate(...))"} {
		if !strings.Contains(all, want) {
			t.Errorf("whale fixes lack %q: %s", want, all)
		}
	}
}

// TestTxnValueEntityCandidate: without a schema, the name id puts
// invoices.id and tenants.id in one class, and invoices.tenant_id joins
// it by carrying tenants.id's value in every transaction (12 of 12). The
// reads by invoices.id make id the more bound column of invoices, so the
// class's design keys invoices by id; a candidate must still key
// invoices by tenant_id with tenants by id, the design under which a
// transaction's invoice and tenant rows are on one shard.
func TestTxnValueEntityCandidate(t *testing.T) {
	var b strings.Builder
	b.WriteString(counterLog(12))
	for k := range 30 {
		fmt.Fprintf(&b, "2026-12-01 01:00:%02d.000 UTC [11] app@db LOG:  statement: SELECT * FROM invoices WHERE id = %d;\n", k, 100+k%12)
	}
	w := &shardkey.Workload{}
	if err := sqllog.Read(context.Background(), w, strings.NewReader(b.String()), "counters.log", sqllog.Options{}); err != nil {
		t.Fatal(err)
	}
	a := analyse(w, 8)
	cands, why := a.candidates()
	found := ""
	for _, c := range cands {
		if strings.Contains(c, "invoices:hash(tenant_id)") && strings.Contains(c, "tenants:hash(id)") {
			found = c
		}
	}
	if found == "" {
		t.Fatalf("no candidate keys invoices by tenant_id and tenants by id: %q", cands)
	}
	if !strings.Contains(why[found], "invoices.tenant_id holds the values of tenants.id") {
		t.Errorf("why %q = %q", found, why[found])
	}
}
