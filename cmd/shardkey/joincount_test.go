package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// joinLog writes a PostgreSQL log of 1,000 statements 10 ms apart
// (10:00:00.010 to 10:00:10.000 stamped to the millisecond: a span of
// 9.99 s + 1 ms, logSpan), each the given
// SELECT with account_id = i mod 300.
func joinLog(t *testing.T, dir, name, sql string) string {
	var sb strings.Builder
	for i := range 1000 {
		ms := (i + 1) * 10
		fmt.Fprintf(&sb, "2026-12-01 10:00:%02d.%03d UTC [%d] app@shop LOG:  statement: %s;\n", ms/1000, ms%1000, 100+i, fmt.Sprintf(sql, i%300))
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestJoinCountsOnce: a join statement is one request under every engine,
// whose fan-out is the union of its tables' shards. The log: 1,000
// SELECT * FROM orders o JOIN order_items i ON ... WHERE o.account_id =
// ? over 9.991 s, so each table's read runs r = 1000/9.991 = 100.09/s.
// Under hash(account_id) on 8 shards (order_items has its own
// account_id: sharded by it):
//
//   - joined on order_id: order_items is bound by nothing, so every
//     statement asks all 8 shards (orders' one among them): r requests/s
//     (was 2r), fan-out 8 (was 4.5), 0% single-shard (was 50%); work
//     r + 8r = 9r (each table's part a unit on each shard it asks); the
//     order_items read is no request (merged_per_s r) and is named "read
//     order_items joined to orders on order_id", not "(all rows)"; the
//     advisor's single-shard share is 0 too.
//   - joined on account_id (co-located): both reads on the account's
//     shard: r requests/s, fan-out 1, 100% single-shard, work 2r.
func TestJoinCountsOnce(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "schema.sql")
	if err := os.WriteFile(schema, []byte(`CREATE TABLE accounts (id bigint PRIMARY KEY, email text UNIQUE, name text);
CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint REFERENCES accounts(id), total numeric);
CREATE TABLE order_items (order_id bigint REFERENCES orders(id), account_id bigint, sku int, qty int, PRIMARY KEY (order_id, sku));
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := 1000 / 9.991
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6*math.Max(1, math.Abs(b)) }
	for _, tc := range []struct {
		name, sql, items              string
		fanout, single, work, itemsFo float64
	}{
		{"scatter", "SELECT * FROM orders o JOIN order_items i ON i.order_id = o.id WHERE o.account_id = %d",
			"read order_items joined to orders on order_id", 8, 0, 9 * r, 8},
		{"co-located", "SELECT * FROM orders o JOIN order_items i ON i.account_id = o.account_id WHERE o.account_id = %d",
			"read order_items where account_id = ?", 1, 1, 2 * r, 1},
	} {
		logf := joinLog(t, dir, tc.name+".log", tc.sql)
		for _, eng := range []string{"generic", "citus", "vitess"} {
			rep := runJSON(t, "score", "--log", logf, "--schema", schema, "-k", "hash(account_id)", "--engine", eng)
			c := rep.Candidates[0]
			what := tc.name + " " + eng
			if !near(c.RequestsPerS, r) || !near(c.FanoutMean, tc.fanout) || !near(c.SingleShardFraction, tc.single) || !near(c.WorkPerS, tc.work) {
				t.Errorf("%s: requests %v, fan-out %v, single-shard %v, work %v; want %v, %v, %v, %v", what, c.RequestsPerS, c.FanoutMean, c.SingleShardFraction, c.WorkPerS, r, tc.fanout, tc.single, tc.work)
			}
			found := false
			for _, o := range c.Operations {
				switch o.Table {
				case "orders":
					if !near(o.RequestsPerS, r) || !near(o.SingleShardFraction, tc.single) {
						t.Errorf("%s: %s: requests %v, single-shard %v; want %v, %v", what, o.Name, o.RequestsPerS, o.SingleShardFraction, r, tc.single)
					}
				case "order_items":
					found = true
					if o.Name != tc.items || o.RequestsPerS != 0 || !near(o.MergedPerS, r) || !near(o.FanoutMean, tc.itemsFo) {
						t.Errorf("%s: %q: requests %v, merged %v, fan-out %v; want %q, 0, %v, %v", what, o.Name, o.RequestsPerS, o.MergedPerS, o.FanoutMean, tc.items, r, tc.itemsFo)
					}
				}
			}
			if !found {
				t.Errorf("%s: no order_items operation", what)
			}
		}
		code, out, errs := runCmd(t, "", "advise", "--log", logf, "--schema", schema, "-k", "hash(account_id)", "--format", "json")
		if code != 0 {
			t.Fatalf("advise: exit %d: %s", code, errs)
		}
		var adv struct {
			Candidates []struct {
				Criteria struct {
					Single float64 `json:"single_shard_fraction"`
				} `json:"criteria"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(out), &adv); err != nil || len(adv.Candidates) == 0 {
			t.Fatalf("advise: %v\n%s", err, out)
		}
		if got := adv.Candidates[0].Criteria.Single; !near(got, tc.single) {
			t.Errorf("%s: advise single-shard %v; want %v", tc.name, got, tc.single)
		}
	}
}

// TestWriteReadsOnce: a write that reads other tables (INSERT ... SELECT,
// UPDATE ... FROM) is one request, at its write, whose fan-out is the
// union of its tables' shards, as a join is (TestJoinCountsOnce). The
// same log of 1,000 statements over 9.991 s, r = 1000/9.991 per table,
// under hash(account_id) on 8 shards (generic):
//
//   - INSERT INTO order_archive ... SELECT ... FROM orders WHERE
//     account_id = ?: the row inserted has the account_id read, so both
//     on the account's shard: r requests/s (was 2r), fan-out 1, 100%
//     single-shard, work 2r; the orders read is no request (merged r).
//   - UPDATE orders o SET total = 0 FROM order_items i WHERE i.order_id =
//     o.id AND o.account_id = ?: order_items is bound by nothing, so
//     every statement asks all 8 shards: r requests/s (was 2r), fan-out
//     8, 0% single-shard, work r + 8r = 9r; the order_items read is no
//     request (merged r), fan-out 8.
func TestWriteReadsOnce(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "schema.sql")
	if err := os.WriteFile(schema, []byte(`CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint, total numeric);
CREATE TABLE order_archive (id bigint PRIMARY KEY, account_id bigint, total numeric);
CREATE TABLE order_items (order_id bigint REFERENCES orders(id), account_id bigint, sku int, qty int, PRIMARY KEY (order_id, sku));
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := 1000 / 9.991
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6*math.Max(1, math.Abs(b)) }
	for _, tc := range []struct {
		name, sql, writeTable, readTable string
		fanout, single, work, readFo     float64
	}{
		{"insert-select", "INSERT INTO order_archive (id, account_id, total) SELECT id, account_id, total FROM orders WHERE account_id = %d",
			"order_archive", "orders", 1, 1, 2 * r, 1},
		{"update-from", "UPDATE orders o SET total = 0 FROM order_items i WHERE i.order_id = o.id AND o.account_id = %d",
			"orders", "order_items", 8, 0, 9 * r, 8},
	} {
		logf := joinLog(t, dir, tc.name+".log", tc.sql)
		rep := runJSON(t, "score", "--log", logf, "--schema", schema, "-k", "hash(account_id)", "--shards", "8")
		c := rep.Candidates[0]
		if !near(c.RequestsPerS, r) || !near(c.FanoutMean, tc.fanout) || !near(c.SingleShardFraction, tc.single) || !near(c.WorkPerS, tc.work) {
			t.Errorf("%s: requests %v, fan-out %v, single-shard %v, work %v; want %v, %v, %v, %v", tc.name, c.RequestsPerS, c.FanoutMean, c.SingleShardFraction, c.WorkPerS, r, tc.fanout, tc.single, tc.work)
		}
		seen := 0
		for _, o := range c.Operations {
			switch o.Table {
			case tc.writeTable:
				seen++
				if !near(o.RequestsPerS, r) || o.MergedPerS != 0 || !near(o.SingleShardFraction, tc.single) {
					t.Errorf("%s: %s: requests %v, merged %v, single-shard %v; want %v, 0, %v", tc.name, o.Name, o.RequestsPerS, o.MergedPerS, o.SingleShardFraction, r, tc.single)
				}
			case tc.readTable:
				seen++
				if o.RequestsPerS != 0 || !near(o.MergedPerS, r) || !near(o.FanoutMean, tc.readFo) {
					t.Errorf("%s: %q: requests %v, merged %v, fan-out %v; want 0, %v, %v", tc.name, o.Name, o.RequestsPerS, o.MergedPerS, o.FanoutMean, r, tc.readFo)
				}
			}
		}
		if seen != 2 {
			t.Errorf("%s: %d operations on %s and %s; want 2", tc.name, seen, tc.writeTable, tc.readTable)
		}
	}
}
