package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestAdviseUnsizedReplica: the fresh-clone review's shop, a PostgreSQL
// log with a schema and no row counts (no --from, no --rows): every 10 ms
// a read of orders by account_id (0, 2, ..., 48) or an autocommit update
// of inventory by sku (1, 3, ..., 49), 50/s each. orders is never
// written, so hash(sku); orders:replicate keeps every request on one
// shard, as the design keyed by account does; but nothing says how many
// rows orders holds, and a copy of it on every shard may be the
// business's growing table. The design that replicates it ranks after the
// keyed one (both 100% single-shard and local, 0% cross-shard), its
// verdict and first reason say so; named alone with -k it is recommended
// with a warning, on stderr and in the JSON, naming orders and the 8
// copies.
func TestAdviseUnsizedReplica(t *testing.T) {
	var log strings.Builder
	for i := 0; i < 400; i++ {
		ms := 10 * (i + 1)
		stmt := fmt.Sprintf("SELECT * FROM orders WHERE account_id = %d;", (i%25)*2)
		if i%2 == 1 {
			stmt = fmt.Sprintf("UPDATE inventory SET qty = qty - 1 WHERE sku = %d;", (i%25)*2+1)
		}
		fmt.Fprintf(&log, "2026-12-01 10:00:%02d.%03d UTC [%d] app@shop LOG:  statement: %s\n", ms/1000, ms%1000, 100+i%7, stmt)
	}
	logf := writeFile(t, "auto.log", log.String())
	schema := writeFile(t, "schema.sql", `CREATE TABLE accounts (id bigint PRIMARY KEY, email text UNIQUE, name text);
CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint REFERENCES accounts(id), total numeric);
CREATE TABLE order_items (order_id bigint REFERENCES orders(id), account_id bigint, sku int, qty int, PRIMARY KEY (order_id, sku));
CREATE TABLE inventory (sku int PRIMARY KEY, qty int);
`)
	type cand struct {
		Key                   string
		Verdict               string
		Reasons               []string
		ReplicatedSizeUnknown []string `json:"replicated_size_unknown"`
		Criteria              struct {
			Local       float64 `json:"local_fraction"`
			CrossShard  float64 `json:"cross_shard_txn_fraction"`
			SingleShard float64 `json:"single_shard_fraction"`
		}
	}
	var adv struct {
		Recommended string
		Candidates  []cand
		Warnings    []string
	}
	const caution = "orders: size unknown: replicating copies every row to every shard (8 copies); confirm it is small (row counts from --from DSN, or a row sample with --rows orders=FILE) before choosing this design"
	code, out, errs := runCmd(t, "", "advise", "--log", logf, "--schema", schema, "--format", "json", "--bootstrap", "0", "--sweep", "")
	if code != 0 {
		t.Fatalf("advise: exit %d: %s", code, errs)
	}
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatal(err)
	}
	repl := slices.IndexFunc(adv.Candidates, func(c cand) bool { return strings.Contains(c.Key, "orders:replicate") })
	if repl < 1 {
		t.Fatalf("the design replicating orders ranks %d (want after the first): %+v", repl+1, adv.Candidates)
	}
	if strings.Contains(adv.Recommended, "replicate") || adv.Candidates[0].Criteria.Local != 1 || adv.Candidates[0].Criteria.CrossShard != 0 {
		t.Errorf("recommended %s, %+v; want a design replicating nothing, 100%% local, 0%% cross-shard", adv.Recommended, adv.Candidates[0].Criteria)
	}
	c := adv.Candidates[repl]
	if !slices.Equal(c.ReplicatedSizeUnknown, []string{"orders"}) || c.Criteria.SingleShard != 1 ||
		c.Verdict != "possible, but it copies orders, of unknown size, to every shard; leaves accounts unsharded on shard 0" || len(c.Reasons) == 0 || c.Reasons[0] != caution {
		t.Errorf("the replicating design: %+v\nwant replicated_size_unknown [orders], 100%% single-shard, the verdict and first reason %q", c, caution)
	}
	// Named alone, it is the advice, with the caution as a warning.
	code, out, errs = runCmd(t, "", "advise", "--log", logf, "--schema", schema, "--format", "json", "--bootstrap", "0", "--sweep", "", "-k", "hash(sku); orders:replicate")
	if code != 0 {
		t.Fatalf("advise -k: exit %d: %s", code, errs)
	}
	adv.Warnings = nil
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatal(err)
	}
	want := "hash(sku); orders:replicate: " + caution
	if !slices.Contains(adv.Warnings, want) || !strings.Contains(errs, "warning: "+want+"\n") {
		t.Errorf("advise -k: warnings %q, stderr %q; want %q in both", adv.Warnings, errs, want)
	}
	if v := adv.Candidates[0].Verdict; !strings.HasSuffix(v, "; but it copies orders, of unknown size, to every shard: confirm it is small; leaves accounts unsharded on shard 0") {
		t.Errorf("advise -k: verdict %q", v)
	}
}
