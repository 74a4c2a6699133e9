package main

import (
	"encoding/json"
	"fmt"
	"github.com/shardkey/shardkey"
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
		Root *struct {
			Column    string   `json:"column"`
			Tables    []string `json:"tables"`
			TopValues []struct {
				Value string  `json:"value"`
				Share float64 `json:"share"`
			} `json:"top_values"`
		} `json:"root"`
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
	// The whale is found across the group: customer 1001's orders (30%
	// of 3,000), their 3 items and 1 payment each, and its customer row:
	// about (900 x 5 + 1) / 16,000 = 28% of the group's rows.
	if rt := best.Root; rt == nil || rt.Column != "customer_id" || len(rt.Tables) != 4 || len(rt.TopValues) == 0 ||
		rt.TopValues[0].Value != "1001" || rt.TopValues[0].Share < 0.25 || rt.TopValues[0].Share > 0.31 {
		t.Errorf("root checklist %+v; want customer_id over 4 tables, customer_id = 1001 at about 28%% of the group's rows", best.Root)
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

// TestAdviseWorkspaceEntityGroup: 200 workspaces (workspace 7 holds 20%
// of documents), 2,000 documents, 10 blocks per document carrying
// workspace_id and document_id, comments keyed by document_id only. Every
// query names the workspace (page loads, document lists, settings) or a
// document (its comments); a page edit writes a block and a comment of
// one document. Expert answer: workspace_id, carried into comments.
func TestAdviseWorkspaceEntityGroup(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	f := files{}
	ws := func() int {
		if r.Float64() < 0.2 {
			return 7
		}
		return 1 + r.IntN(200)
	}
	f.w("workspaces.csv", "workspace_id,name\n")
	for i := 1; i <= 200; i++ {
		f.w("workspaces.csv", "%d,w%d\n", i, i)
	}
	docWS := map[int]int{}
	f.w("documents.csv", "document_id,workspace_id,title\n")
	f.w("blocks.csv", "block_id,document_id,workspace_id,body\n")
	f.w("comments.csv", "comment_id,document_id,body\n")
	block, comment := 0, 0
	for d := 1; d <= 2000; d++ {
		w := ws()
		docWS[d] = w
		f.w("documents.csv", "%d,%d,t%d\n", d, w, d)
		for i := 0; i < 10; i++ {
			block++
			f.w("blocks.csv", "%d,%d,%d,b\n", block, d, w)
		}
		for i := 0; i < 2; i++ {
			comment++
			f.w("comments.csv", "%d,%d,c\n", comment, d)
		}
	}
	doc := func() int { return 1 + r.IntN(2000) }
	for i := 0; i < 500; i++ {
		d := doc()
		f.w("q.jsonl", `{"name": "load a page", "table": "blocks", "where": {"workspace_id": %d, "document_id": %d}}`+"\n", docWS[d], d)
	}
	for i := 0; i < 200; i++ {
		f.w("q.jsonl", `{"name": "list a workspace's documents", "table": "documents", "where": {"workspace_id": %d}}`+"\n", ws())
	}
	for i := 0; i < 200; i++ {
		f.w("q.jsonl", `{"name": "comments of a document", "table": "comments", "where": {"document_id": %d}}`+"\n", doc())
	}
	for i := 0; i < 100; i++ {
		f.w("q.jsonl", `{"name": "workspace settings", "table": "workspaces", "where": {"workspace_id": %d}}`+"\n", ws())
	}
	for i := 0; i < 300; i++ {
		d := doc()
		f.w("t.jsonl", `{"name": "edit a page", "writes": [{"block_id": %d, "document_id": %d, "workspace_id": %d, "body": "x"}, {"comment_id": %d, "document_id": %d, "body": "y"}]}`+"\n",
			30000+i, d, docWS[d], 10000+i, d)
	}
	dir := f.write(t)
	args := []string{"advise"}
	for _, tb := range []string{"workspaces", "documents", "blocks", "comments"} {
		args = append(args, "--rows", tb+"="+filepath.Join(dir, tb+".csv"))
	}
	a := adviseJSON(t, append(args, "--queries", filepath.Join(dir, "q.jsonl"), "--txns", filepath.Join(dir, "t.jsonl"))...)
	if a.Recommended != "hash(workspace_id)" || !a.carries("workspace_id", "comments") {
		t.Fatalf("recommended %s carrying %+v; want hash(workspace_id) carried into comments", a.Recommended, a.Candidates[0].Carry)
	}
	// Every query names a workspace or a document of one: all
	// single-shard; every edit stays in one document's workspace.
	if cr := a.Candidates[0].Criteria; cr.SingleShard < 1-1e-9 || cr.CrossShardTxn != 0 {
		t.Errorf("single-shard %.3f, cross-shard transactions %.3f; want 1 and 0", cr.SingleShard, cr.CrossShardTxn)
	}
	if err := a.noReplicated("comments", "blocks"); err != nil {
		t.Error(err)
	}
}

// TestAdviseChatEntityGroup: 500 conversations, 20,000 messages,
// reactions keyed by message_id. Reads: a conversation's recent messages,
// its header, a message's reactions; transactions: send a message
// (message and the conversation's last-message time), react to a message.
// Expert answer (seed 003): conversation_id, carried into reactions.
func TestAdviseChatEntityGroup(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	f := files{}
	f.w("conversations.csv", "conversation_id,title\n")
	for i := 1; i <= 500; i++ {
		f.w("conversations.csv", "%d,c%d\n", i, i)
	}
	msgConv := map[int]int{}
	f.w("messages.csv", "message_id,conversation_id,sender_id\n")
	f.w("reactions.csv", "reaction_id,message_id,user_id\n")
	for m := 1; m <= 20000; m++ {
		c := 1 + r.IntN(500)
		msgConv[m] = c
		f.w("messages.csv", "%d,%d,%d\n", m, c, 1+r.IntN(5000))
		if m%4 == 0 {
			f.w("reactions.csv", "%d,%d,%d\n", m/4, m, 1+r.IntN(5000))
		}
	}
	msg := func() int { return 1 + r.IntN(20000) }
	for i := 0; i < 600; i++ {
		f.w("q.jsonl", `{"name": "recent messages", "table": "messages", "where": {"conversation_id": %d}}`+"\n", 1+r.IntN(500))
	}
	for i := 0; i < 200; i++ {
		f.w("q.jsonl", `{"name": "conversation header", "table": "conversations", "where": {"conversation_id": %d}}`+"\n", 1+r.IntN(500))
	}
	for i := 0; i < 200; i++ {
		f.w("q.jsonl", `{"name": "reactions of a message", "table": "reactions", "where": {"message_id": %d}}`+"\n", msg())
	}
	for i := 0; i < 200; i++ {
		c := 1 + r.IntN(500)
		f.w("t.jsonl", `{"name": "send a message", "writes": [{"message_id": %d, "conversation_id": %d, "sender_id": %d}, {"conversation_id": %d, "title": "t"}]}`+"\n", 20001+i, c, 1+r.IntN(5000), c)
		m := msg()
		f.w("t.jsonl", `{"name": "react", "writes": [{"reaction_id": %d, "message_id": %d, "user_id": %d}]}`+"\n", 10000+i, m, 1+r.IntN(5000))
	}
	dir := f.write(t)
	args := []string{"advise"}
	for _, tb := range []string{"conversations", "messages", "reactions"} {
		args = append(args, "--rows", tb+"="+filepath.Join(dir, tb+".csv"))
	}
	a := adviseJSON(t, append(args, "--queries", filepath.Join(dir, "q.jsonl"), "--txns", filepath.Join(dir, "t.jsonl"))...)
	if a.Recommended != "hash(conversation_id)" || !a.carries("conversation_id", "reactions") {
		t.Fatalf("recommended %s carrying %+v; want hash(conversation_id) carried into reactions", a.Recommended, a.Candidates[0].Carry)
	}
	if cr := a.Candidates[0].Criteria; cr.SingleShard < 1-1e-9 || cr.CrossShardTxn != 0 {
		t.Errorf("single-shard %.3f, cross-shard transactions %.3f; want 1 and 0", cr.SingleShard, cr.CrossShardTxn)
	}
	if err := a.noReplicated("messages", "reactions"); err != nil {
		t.Error(err)
	}
}

// TestAdviseChatCapacity: seed 003's chat at 500 units/s per shard. Under
// hash(conversation_id) every shard is over capacity; the headline says
// so first. With the proposed fixes (the inbox read from a projection
// keyed by user_id, written with every inbox insert; the moderation queue
// on a replica) the work is, by hand: 2,000 sends + 2,000 inbox inserts +
// 4,000 conversation opens + 1,500 inbox lookups + 2,000 projection
// writes = 11,500 units/s, a mean of 359/s on 32 shards.
func TestAdviseChatCapacity(t *testing.T) {
	code, out, errs := runCmd(t, "", "advise", "chat", "--format", "json", "--sweep", "", "--bootstrap", "0")
	if code != 0 {
		t.Fatal(errs)
	}
	var a struct {
		Summary []string `json:"summary"`
		Cap     struct {
			Before struct {
				Over int `json:"over_capacity"`
			} `json:"before"`
			After struct {
				Work float64 `json:"work_per_s"`
			} `json:"after"`
			Needed int `json:"shards_needed"`
		} `json:"capacity_check"`
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	if a.Cap.Before.Over != 32 || !strings.HasPrefix(a.Summary[0], "Over capacity: 32 of 32 shards exceed 500 units/s") {
		t.Errorf("headline %q, %d shards over; want capacity first, all 32 over", a.Summary[0], a.Cap.Before.Over)
	}
	if d := a.Cap.After.Work - 11500; d > 1e-6 || d < -1e-6 {
		t.Errorf("work after fixes %.3f units/s; want 11,500", a.Cap.After.Work)
	}
	if a.Cap.Needed <= 32 {
		t.Errorf("shards needed %d; want more than 32 (zipf conversations leave a shard over at 32)", a.Cap.Needed)
	}
}

// TestAdviseOrdersSchema: the same orders service with its schema; the
// relations come from the declared foreign keys.
func TestAdviseOrdersSchema(t *testing.T) {
	dir, args := ordersFiles(t)
	schema := filepath.Join(dir, "schema.sql")
	os.WriteFile(schema, []byte(`CREATE TABLE customers (customer_id bigint PRIMARY KEY, name text);
CREATE TABLE orders (order_id bigint PRIMARY KEY, customer_id bigint REFERENCES customers, created_at bigint);
CREATE TABLE order_items (order_id bigint REFERENCES orders (order_id), line_no int, product_id int, PRIMARY KEY (order_id, line_no));
CREATE TABLE payments (payment_id bigint PRIMARY KEY, order_id bigint REFERENCES orders (order_id), amount int);
`), 0o644)
	code, out, errs := runCmd(t, "", append([]string{"advise", "--schema", schema, "--format", "json", "--sweep", "", "--bootstrap", "0"}, args...)...)
	if code != 0 {
		t.Fatal(errs)
	}
	var a struct {
		Recommended string `json:"recommended"`
		Candidates  []struct {
			Carry []struct {
				Table, Source string
			} `json:"carry"`
		} `json:"candidates"`
	}
	json.Unmarshal([]byte(out), &a)
	if a.Recommended != "hash(customer_id)" || len(a.Candidates[0].Carry) != 2 {
		t.Fatalf("recommended %s carrying %+v", a.Recommended, a.Candidates[0].Carry)
	}
	for _, c := range a.Candidates[0].Carry {
		if !strings.HasPrefix(c.Source, "foreign key "+c.Table+".order_id -> orders.order_id") {
			t.Errorf("carry into %s from %q; want the declared foreign key", c.Table, c.Source)
		}
	}
}

// TestAdviseOrdersFromLog: the orders service from a PostgreSQL log alone
// (no rows): 300 BEGIN...COMMIT blocks each inserting one order, its 3
// items and its payment (customer 1001 places 30%), and 900 autocommit
// reads. The expert's answer is the same: customer_id, carried into
// order_items and payments (the log's own inserts map each order to its
// customer), no transaction crossing shards, customer 1001 found from the
// traffic and isolated.
func TestAdviseOrdersFromLog(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	cust := func() int {
		if r.Float64() < 0.3 {
			return 1001
		}
		return 1000 + r.IntN(1000)
	}
	var b strings.Builder
	ms := 0
	stmt := func(pid int, sql string, args ...any) {
		ms += 7
		fmt.Fprintf(&b, "2026-11-30 10:%02d:%02d.%03d UTC [%d] app@shop LOG:  statement: %s\n", ms/60000, ms/1000%60, ms%1000, pid, fmt.Sprintf(sql, args...))
	}
	for o := 1; o <= 300; o++ {
		pid := 100 + o%7
		stmt(pid, "BEGIN")
		stmt(pid, "INSERT INTO orders (order_id, customer_id, created_at) VALUES (%d, %d, now())", o, cust())
		for l := 1; l <= 3; l++ {
			stmt(pid, "INSERT INTO order_items (order_id, line_no, product_id) VALUES (%d, %d, %d)", o, l, 1+r.IntN(500))
		}
		stmt(pid, "INSERT INTO payments (payment_id, order_id, amount) VALUES (%d, %d, 10)", 50000+o, o)
		stmt(pid, "COMMIT")
		for k := 0; k < 3; k++ {
			x := 1 + r.IntN(o)
			switch p := r.Float64(); {
			case p < 0.4:
				stmt(200+k, "SELECT * FROM orders WHERE customer_id = %d ORDER BY created_at DESC LIMIT 20", cust())
			case p < 0.6:
				stmt(200+k, "SELECT * FROM orders WHERE order_id = %d", x)
			case p < 0.8:
				stmt(200+k, "SELECT * FROM order_items WHERE order_id = %d", x)
			case p < 0.9:
				stmt(200+k, "SELECT * FROM customers WHERE customer_id = %d", cust())
			default:
				stmt(200+k, "SELECT * FROM payments WHERE order_id = %d", x)
			}
		}
	}
	f := files{"orders.log": &b}
	dir := f.write(t)
	a := adviseJSON(t, "advise", "--log", filepath.Join(dir, "orders.log"))
	if a.Recommended != "hash(customer_id)" || !a.carries("customer_id", "order_items", "payments") {
		t.Fatalf("recommended %s carrying %+v; want hash(customer_id) carried into order_items and payments", a.Recommended, a.Candidates[0].Carry)
	}
	best := a.Candidates[0]
	if best.Criteria.CrossShardTxn != 0 {
		t.Errorf("cross-shard transactions %.3f; want 0 (each places one customer's order)", best.Criteria.CrossShardTxn)
	}
	whale := false
	for _, f := range best.Fixes {
		whale = whale || f.Kind == "isolate" && strings.Contains(f.Target, "customer_id = 1001")
	}
	if rt := best.Root; !whale || rt == nil || len(rt.TopValues) == 0 || rt.TopValues[0].Value != "1001" {
		t.Errorf("want customer_id = 1001 found from the traffic and isolated: root %+v, fixes %+v", best.Root, best.Fixes)
	}
}

// TestAdvisePgbench: pgbench's TPC-B-like transactions from a real log
// (testdata/pgbench/README.md). Expert answer: accounts by aid, the
// history rows co-located with their account (the insert carries aid),
// tellers and branches by their own ids and never reference tables (every
// transaction writes one of each: a copy on every shard would take every
// write on every shard). The teller and branch are drawn independently of
// the account, so nearly every transaction crosses shards under any key:
// on 8 shards a transaction is local only when its account, teller and
// branch hash to one shard, about 1/8 x 1/8 = 1.6% of them.
func TestAdvisePgbench(t *testing.T) {
	a := adviseJSON(t, "advise", "--log", filepath.Join("testdata", "pgbench", "pgbench-tpcb-s4.log"))
	want := map[string]string{"pgbench_accounts": "hash(aid)", "pgbench_history": "hash(aid)", "pgbench_tellers": "hash(tid)", "pgbench_branches": "hash(bid)"}
	d, err := shardkey.ParseDesign(a.Recommended)
	if err != nil {
		t.Fatal(err)
	}
	for table, key := range want {
		e := d.For(table, func(c string) bool { return c == "aid" && table != "pgbench_tellers" && table != "pgbench_branches" })
		if e == nil || e.String() != key {
			t.Errorf("%s keyed by %v in %s; want %s", table, e, a.Recommended, key)
		}
	}
	if err := a.noReplicated("pgbench_tellers", "pgbench_branches", "pgbench_accounts", "pgbench_history"); err != nil {
		t.Error(err)
	}
	if x := a.Candidates[0].Criteria.CrossShardTxn; x < 0.95 {
		t.Errorf("cross-shard transactions %.3f; want about 0.98 (independent aid, tid, bid)", x)
	}
}

// pgLog collects statements as a PostgreSQL stderr log, 7 ms apart.
type pgLog struct {
	b  strings.Builder
	ms int
}

func (l *pgLog) stmt(pid int, sql string, args ...any) {
	l.ms += 7
	fmt.Fprintf(&l.b, "2026-11-30 10:%02d:%02d.%03d UTC [%d] app@db LOG:  statement: %s\n", l.ms/60000, l.ms/1000%60, l.ms%1000, pid, fmt.Sprintf(sql, args...))
}

func (l *pgLog) file(t *testing.T) string {
	return filepath.Join(files{"app.log": &l.b}.write(t), "app.log")
}

// TestAdviseWorkspaceFromLog: the workspace product from its PostgreSQL
// log alone: documents created with their first blocks in one
// transaction, comments added by document_id, pages loaded by workspace
// and document, document lists and settings by workspace, a few documents
// opened by id. Same answer as from rows: workspace_id, carried into
// comments (each comment's document maps to its workspace through the
// log's own document inserts).
func TestAdviseWorkspaceFromLog(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	ws := func() int {
		if r.Float64() < 0.2 {
			return 7
		}
		return 1 + r.IntN(200)
	}
	var l pgLog
	docWS := map[int]int{}
	block, comment := 0, 0
	for d := 1; d <= 300; d++ {
		w := ws()
		docWS[d] = w
		pid := 100 + d%5
		l.stmt(pid, "BEGIN")
		l.stmt(pid, "INSERT INTO documents (document_id, workspace_id, title) VALUES (%d, %d, 'd%d')", d, w, d)
		for i := 0; i < 3; i++ {
			block++
			l.stmt(pid, "INSERT INTO blocks (block_id, document_id, workspace_id, body) VALUES (%d, %d, %d, 'b')", block, d, w)
		}
		l.stmt(pid, "COMMIT")
		for k := 0; k < 4; k++ {
			x := 1 + r.IntN(d)
			switch k {
			case 0:
				l.stmt(200, "SELECT * FROM blocks WHERE workspace_id = %d AND document_id = %d", docWS[x], x)
			case 1:
				l.stmt(201, "SELECT * FROM documents WHERE workspace_id = %d", ws())
			case 2:
				l.stmt(202, "SELECT * FROM comments WHERE document_id = %d", x)
			case 3:
				comment++
				l.stmt(203, "INSERT INTO comments (comment_id, document_id, body) VALUES (%d, %d, 'c')", comment, x)
			}
		}
		if d%5 == 0 {
			l.stmt(204, "SELECT * FROM documents WHERE document_id = %d", 1+r.IntN(d))
		}
		l.stmt(205, "SELECT * FROM workspaces WHERE workspace_id = %d", ws())
	}
	a := adviseJSON(t, "advise", "--log", l.file(t))
	if a.Recommended != "hash(workspace_id)" || !a.carries("workspace_id", "comments") {
		t.Fatalf("recommended %s carrying %+v; want hash(workspace_id) carried into comments", a.Recommended, a.Candidates[0].Carry)
	}
	if x := a.Candidates[0].Criteria.CrossShardTxn; x != 0 {
		t.Errorf("cross-shard transactions %.3f; want 0", x)
	}
}

// TestAdviseChatFromLog: the chat service from its log: conversations
// created, messages sent and reacted to (each an autocommit insert, a
// transaction of its own), recent messages read by conversation, a message
// opened by id, reactions read by message_id. Same answer as from rows:
// conversation_id, carried into reactions.
func TestAdviseChatFromLog(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	var l pgLog
	for c := 1; c <= 100; c++ {
		l.stmt(100, "INSERT INTO conversations (conversation_id, title) VALUES (%d, 't%d')", c, c)
	}
	msgConv := map[int]int{}
	reaction := 0
	for m := 1; m <= 600; m++ {
		c := 1 + r.IntN(100)
		msgConv[m] = c
		l.stmt(101+m%3, "INSERT INTO messages (message_id, conversation_id, sender_id) VALUES (%d, %d, %d)", m, c, 1+r.IntN(5000))
		x := 1 + r.IntN(m)
		if m%2 == 0 {
			reaction++
			l.stmt(110, "INSERT INTO reactions (reaction_id, message_id, user_id) VALUES (%d, %d, %d)", reaction, x, 1+r.IntN(5000))
		}
		l.stmt(120, "SELECT * FROM messages WHERE conversation_id = %d ORDER BY message_id DESC LIMIT 50", 1+r.IntN(100))
		l.stmt(121, "SELECT * FROM reactions WHERE message_id = %d", x)
		if m%3 == 0 {
			l.stmt(122, "SELECT * FROM messages WHERE message_id = %d", x)
			l.stmt(123, "SELECT * FROM conversations WHERE conversation_id = %d", 1+r.IntN(100))
		}
	}
	a := adviseJSON(t, "advise", "--log", l.file(t))
	if a.Recommended != "hash(conversation_id)" || !a.carries("conversation_id", "reactions") {
		t.Fatalf("recommended %s carrying %+v; want hash(conversation_id) carried into reactions", a.Recommended, a.Candidates[0].Carry)
	}
	if x := a.Candidates[0].Criteria.CrossShardTxn; x != 0 {
		t.Errorf("cross-shard transactions %.3f; want 0 (each is one insert)", x)
	}
}

// TestAdviseJoinRelatesTables: comments name their document by a column
// called doc, which no transaction relates to documents.document_id; the
// log's JOIN ... ON c.doc = d.document_id does, and the advice carries
// workspace_id into comments along it.
func TestAdviseJoinRelatesTables(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	var l pgLog
	docWS := map[int]int{}
	for d := 1; d <= 300; d++ {
		w := 1 + r.IntN(100)
		docWS[d] = w
		l.stmt(100, "INSERT INTO documents (document_id, workspace_id, title) VALUES (%d, %d, 't')", d, w)
		x := 1 + r.IntN(d)
		l.stmt(101, "INSERT INTO comments (comment_id, doc, body) VALUES (%d, %d, 'c')", d, x)
		l.stmt(102, "SELECT * FROM documents WHERE workspace_id = %d", 1+r.IntN(100))
		l.stmt(103, "SELECT * FROM comments WHERE doc = %d", x)
		if d%3 == 0 {
			l.stmt(104, "SELECT d.title, c.body FROM documents d JOIN comments c ON c.doc = d.document_id WHERE d.document_id = %d", x)
		}
	}
	a := adviseJSON(t, "advise", "--log", l.file(t))
	if a.Recommended != "hash(workspace_id)" || !a.carries("workspace_id", "comments") {
		t.Fatalf("recommended %s carrying %+v; want hash(workspace_id) carried into comments", a.Recommended, a.Candidates[0].Carry)
	}
}

// TestAdviseNoWriteHeavyReference: named by the user, a design that
// copies order_items (9,000 rows, written by every transaction) to every
// shard is rejected, whatever else it scores.
func TestAdviseNoWriteHeavyReference(t *testing.T) {
	_, args := ordersFiles(t)
	bad := "hash(customer_id); order_items:replicate; payments:replicate"
	a := adviseJSON(t, append(append([]string{"advise"}, args...), "-k", bad, "-k", "hash(order_id); customers:replicate")...)
	if a.Recommended == bad {
		t.Fatalf("recommended %s", bad)
	}
	for _, as := range a.Candidates {
		if as.Key == bad && as.Viable {
			t.Errorf("%s is viable; want it rejected (order_items is large and written)", bad)
		}
	}
}
