package loggen_test

import (
	"bytes"
	"context"
	"math"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/loggen"
	"github.com/shardkey/shardkey/sim"
	"github.com/shardkey/shardkey/sqllog"
)

// TestFormats: each format is read by sqllog as a log of that format, with
// TPC-C's nine tables, no statement left unparsed, and the same bytes for
// the same options.
func TestFormats(t *testing.T) {
	for _, f := range []string{"stderr", "csvlog", "jsonlog", "mysql-general", "mysql-slow"} {
		var a, b bytes.Buffer
		o := loggen.Options{Format: f, Bytes: 300 << 10, Seed: 9}
		n, err := loggen.Write(&a, o)
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(a.Len()) || n < o.Bytes {
			t.Errorf("%s: wrote %d bytes, said %d, asked %d", f, a.Len(), n, o.Bytes)
		}
		loggen.Write(&b, o)
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two runs with one seed differ", f)
		}
		w := &shardkey.Workload{}
		if err := sqllog.Read(context.Background(), w, &a, f, sqllog.Options{}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var tables []string
		for _, tb := range w.Tables {
			tables = append(tables, tb.Name)
		}
		sort.Strings(tables)
		if got := strings.Join(tables, " "); got != "customer district history item new_order order_line orders stock warehouse" {
			t.Errorf("%s: tables %s", f, got)
		}
		for _, e := range w.Warnings {
			if strings.Contains(e.Error(), "could not be parsed") || strings.Contains(e.Error(), "skipped") {
				t.Errorf("%s: %v", f, e)
			}
		}
		if len(w.Txns) == 0 {
			t.Errorf("%s: no transactions", f)
		}
	}
}

// TestRemoteWarehouses: TPC-C's remote accesses, as go-tpc v1.0.7 draws
// and writes them: 1% of new-order lines supplied by another warehouse
// (2.4.1.5), written into ol_supply_w_id and the order's o_all_local (0
// then) only, its stock statements naming the home warehouse (as
// scripts/e2e/check.py reads go-tpc's new_order.go); 15% of payments
// for a customer of another warehouse (2.5.1.2; history's h_c_w_id the
// customer's, h_w_id the paying warehouse). With one warehouse a shard,
// the share of transactions that cross shards is then the payments'
// alone, 0.43 x 0.15 = 0.0645, as e2e's go-tpc run measures it (it was
// 0: no remote access was written).
func TestRemoteWarehouses(t *testing.T) {
	var buf bytes.Buffer
	if _, err := loggen.Write(&buf, loggen.Options{Format: "stderr", Bytes: 6 << 20, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	within := func(what string, got, want float64, n int) {
		t.Helper()
		sd := math.Sqrt(want * (1 - want) / float64(n))
		if math.Abs(got-want) > 4*sd {
			t.Errorf("%s: %.4f of %d, want %.4f +- %.4f (4 standard deviations)", what, got, n, want, 4*sd)
		}
	}
	hist := regexp.MustCompile(`INSERT INTO history \(h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, [^)]*\) VALUES \((\d+), (\d+), \d+, (\d+), (\d+),`)
	remote, n := 0, 0
	for _, m := range hist.FindAllStringSubmatch(text, -1) {
		n++
		if m[2] != m[4] {
			remote++
		}
	}
	within("payments for another warehouse's customer", float64(remote)/float64(n), 0.15, n)

	orders := regexp.MustCompile(`INSERT INTO orders \([^)]*\) VALUES \((\d+), (\d+), (\d+), \d+, '[^']*', \d+, (\d)\)`)
	allLocal := map[string]string{}
	for _, m := range orders.FindAllStringSubmatch(text, -1) {
		allLocal[m[1]+","+m[2]+","+m[3]] = m[4]
	}
	lines := regexp.MustCompile(`INSERT into order_line \([^)]*\) VALUES (.*)`)
	row := regexp.MustCompile(`\((\d+),(\d+),(\d+),\d+,\d+,(\d+),`)
	remote, n = 0, 0
	for _, m := range lines.FindAllStringSubmatch(text, -1) {
		local := "1"
		key := ""
		for _, r := range row.FindAllStringSubmatch(m[1], -1) {
			n++
			key = r[1] + "," + r[2] + "," + r[3]
			if r[4] != r[3] {
				remote++
				local = "0"
			}
		}
		if got, ok := allLocal[key]; !ok || got != local {
			t.Errorf("order %s: o_all_local %q, its lines say %s", key, got, local)
		}
	}
	within("order lines supplied by another warehouse", float64(remote)/float64(n), 0.01, n)

	// Each warehouse on a shard of its own: range keys bounded at 2..10
	// over 10 shards (the design's keys share these boundaries), item
	// replicated.
	w := &shardkey.Workload{}
	if err := sqllog.Read(context.Background(), w, strings.NewReader(text), "tpcc.log", sqllog.Options{Format: "stderr"}); err != nil {
		t.Fatal(err)
	}
	b := ", bounds=[2, 3, 4, 5, 6, 7, 8, 9, 10])"
	var parts []string
	for tb, col := range map[string]string{"warehouse": "w_id", "district": "d_w_id", "customer": "c_w_id", "history": "h_w_id",
		"new_order": "no_w_id", "orders": "o_w_id", "order_line": "ol_w_id", "stock": "s_w_id"} {
		parts = append(parts, tb+":range("+col+b)
	}
	sort.Strings(parts)
	d, err := shardkey.ParseDesign(strings.Join(parts, "; ") + "; item:replicate")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.Compile(w, d, sim.Options{Shards: 10})
	if err != nil {
		t.Fatal(err)
	}
	p, err := sim.Run(w, s, 1)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Headline(p)
	want := 0.43 * 0.15
	t.Logf("cross-shard %.4f, want %.4f", c.CrossShardTxnFraction, want)
	within("transactions across warehouses", c.CrossShardTxnFraction, want, strings.Count(text, "statement: START TRANSACTION"))
}
