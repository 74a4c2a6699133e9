package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Acceptance tests for entity groups (issue 12), each with the answer an
// experienced engineer gives by hand, not the advisor's own output:
//
//   - orders (seed 000's worked example): customers, orders, order_items
//     keyed by order_id without customer_id, payments keyed by order_id;
//     one customer owns 30% of orders. Shard by customer_id, carry
//     customer_id into order_items and payments (every transaction writes
//     one customer's order, its items and its payment: 0% cross-shard),
//     isolate customer_id = 1001 with its whole group, and serve fetch by
//     order id with a shard-encoded id or a lookup.
//   - workspace (seed 002's industry example): workspaces, documents,
//     blocks, comments keyed by document_id only: shard by workspace_id,
//     carried into comments.
//   - chat (seed 003): conversations, messages, reactions keyed by
//     message_id: shard by conversation_id, carried into reactions.

type files map[string]*strings.Builder

func (f files) w(name, format string, args ...any) {
	if f[name] == nil {
		f[name] = &strings.Builder{}
	}
	fmt.Fprintf(f[name], format, args...)
}

func (f files) write(t *testing.T) string {
	dir := t.TempDir()
	for name, b := range f {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type adviceJSON struct {
	Recommended string   `json:"recommended"`
	Summary     []string `json:"summary"`
	Warnings    []string `json:"warnings"`
	Candidates  []struct {
		Key      string `json:"key"`
		Viable   bool   `json:"viable"`
		Criteria struct {
			Local         float64 `json:"local_fraction"`
			SingleShard   float64 `json:"single_shard_fraction"`
			CrossShardTxn float64 `json:"cross_shard_txn_fraction"`
		} `json:"criteria"`
		Fixes []struct {
			Kind   string `json:"kind"`
			Target string `json:"target"`
			Text   string `json:"text"`
		} `json:"fixes"`
		Carry []struct {
			Table  string `json:"table"`
			Column string `json:"column"`
		} `json:"carry"`
	} `json:"candidates"`
}

func adviseJSON(t *testing.T, args ...string) *adviceJSON {
	t.Helper()
	code, out, errs := runCmd(t, "", append(args, "--format", "json", "--sweep", "", "--bootstrap", "0")...)
	if code != 0 {
		t.Fatalf("shardkey %s: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	var a adviceJSON
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("decoding: %v\n%s", err, out)
	}
	return &a
}

// carries reports whether the recommended design carries col into each
// of tables.
func (a *adviceJSON) carries(col string, tables ...string) bool {
	got := map[string]bool{}
	for _, c := range a.Candidates[0].Carry {
		if c.Column == col {
			got[c.Table] = true
		}
	}
	for _, t := range tables {
		if !got[t] {
			return false
		}
	}
	return true
}

func (a *adviceJSON) noReplicated(tables ...string) error {
	for _, t := range tables {
		if strings.Contains(a.Recommended, t+":replicate") {
			return fmt.Errorf("%s, written by every transaction, recommended as a reference table: %s", t, a.Recommended)
		}
	}
	return nil
}

// ordersFiles writes the orders service: 1,000 customers, 3,000 orders
// (customer 1001 places 30% of them), 3 items and 1 payment per order;
// 1,000 interactive queries and a nightly report; 300 transactions each
// placing one order with its items and payment.
func ordersFiles(t *testing.T) (dir string, args []string) {
	r := rand.New(rand.NewPCG(7, 12))
	cust := func() int {
		if r.Float64() < 0.3 {
			return 1001
		}
		return 1000 + r.IntN(1000)
	}
	f := files{}
	f.w("customers.csv", "customer_id,name\n")
	for c := 1000; c < 2000; c++ {
		f.w("customers.csv", "%d,c%d\n", c, c)
	}
	f.w("orders.csv", "order_id,customer_id,created_at\n")
	f.w("order_items.csv", "order_id,line_no,product_id\n")
	f.w("payments.csv", "payment_id,order_id,amount\n")
	for o := 1; o <= 3000; o++ {
		f.w("orders.csv", "%d,%d,%d\n", o, cust(), 1700000000+60*o)
		for l := 1; l <= 3; l++ {
			f.w("order_items.csv", "%d,%d,%d\n", o, l, 1+r.IntN(500))
		}
		f.w("payments.csv", "%d,%d,%d\n", 50000+o, o, 5+r.IntN(500))
	}
	q := func(n int, name, table, where string, val func() int) {
		for i := 0; i < n; i++ {
			f.w("q.jsonl", `{"name": %q, "table": %q, "where": {%q: %d}}`+"\n", name, table, where, val())
		}
	}
	order := func() int { return 1 + r.IntN(3000) }
	q(400, "list a customer's orders", "orders", "customer_id", cust)
	q(200, "fetch an order by id", "orders", "order_id", order)
	q(200, "items of an order", "order_items", "order_id", order)
	q(100, "customer profile", "customers", "customer_id", cust)
	q(100, "payment of an order", "payments", "order_id", order)
	f.w("q.jsonl", `{"name": "nightly report", "table": "orders", "where": {"created_at": {"gte": 1700000000, "lt": 1700086400}}, "latency": "batch"}`+"\n")
	for i := 0; i < 300; i++ {
		o := 3001 + i
		f.w("t.jsonl", `{"name": "place an order", "writes": [{"order_id": %d, "customer_id": %d, "created_at": %d}`, o, cust(), 1700000000+60*o)
		for l := 1; l <= 3; l++ {
			f.w("t.jsonl", `, {"order_id": %d, "line_no": %d, "product_id": %d}`, o, l, 1+r.IntN(500))
		}
		f.w("t.jsonl", `, {"payment_id": %d, "order_id": %d, "amount": 10}]}`+"\n", 50000+o, o)
	}
	dir = f.write(t)
	for _, tb := range []string{"customers", "orders", "order_items", "payments"} {
		args = append(args, "--rows", tb+"="+filepath.Join(dir, tb+".csv"))
	}
	args = append(args, "--queries", filepath.Join(dir, "q.jsonl"), "--txns", filepath.Join(dir, "t.jsonl"))
	return dir, args
}

func TestAdviseOrdersEntityGroup(t *testing.T) {
	_, args := ordersFiles(t)
	a := adviseJSON(t, append([]string{"advise"}, args...)...)
	if a.Recommended != "hash(customer_id)" || !a.carries("customer_id", "order_items", "payments") {
		t.Fatalf("recommended %s carrying %+v; want hash(customer_id) with customer_id carried into order_items and payments", a.Recommended, a.Candidates[0].Carry)
	}
	best := a.Candidates[0]
	// Every transaction writes one customer's rows: none crosses shards.
	if best.Criteria.CrossShardTxn != 0 {
		t.Errorf("cross-shard transactions %.3f; want 0", best.Criteria.CrossShardTxn)
	}
	// Interactive requests: 1,000; all but the 200 fetches by order id
	// name the customer (the items' and payment's through the order).
	if d := best.Criteria.SingleShard - 0.8; d > 1e-9 || d < -1e-9 {
		t.Errorf("single-shard %.4f; want 800/1000 = 0.8", best.Criteria.SingleShard)
	}
	var whale, byID bool
	for _, f := range best.Fixes {
		if f.Kind == "isolate" && strings.Contains(f.Target, "customer_id = 1001") && !strings.Contains(f.Target, ",") {
			whale = true
		}
		if (f.Kind == "shard-encoded-id" || f.Kind == "global-index") && f.Target == "fetch an order by id" {
			byID = true
		}
	}
	if !whale || !byID {
		t.Errorf("want customer_id = 1001 isolated and fetch by order id served by a shard-encoded id or a lookup: %+v", best.Fixes)
	}
	for _, as := range a.Candidates {
		if strings.Contains(as.Key, "order_items:replicate") || strings.Contains(as.Key, "payments:replicate") {
			t.Errorf("candidate %s replicates a table every transaction writes", as.Key)
		}
	}
}
