package advisor_test

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
)

// TestMongoColocationNote: an order and its lines are written in one
// transaction (200/s), an order alone is cancelled in another (600/s).
// Both collections keyed by {customer_id: "hashed"} put an order and its
// lines on one shard in the simulation, but MongoDB places and balances
// each collection's chunks on its own: only zones keep the same ranges of
// both on one shard. The share resting on that is the first
// transaction's, 200 / (200 + 600) = 25%. Not said under another engine
// (co-location by the same hash is what Citus and Vitess do), nor when
// the lines are keyed by their own id (no transaction then spans two
// collections keyed alike).
func TestMongoColocationNote(t *testing.T) {
	spec, err := scenario.Parse([]byte(`name: orders2
shards: 8
seed: 1
tables:
  - name: orders
    rows: 2000
    columns:
      - {name: order_id, gen: sequential}
      - {name: customer_id, gen: uniform, distinct: 500}
  - name: order_line
    parent: orders
    per_parent: 1-3
    columns:
      - {name: line_id, gen: sequential}
operations:
  - {name: fetch an order, table: orders, rate: 1000, where: {customer_id: "?", order_id: "?"}}
transactions:
  - name: place an order
    rate: 200
    steps:
      - {table: orders, kind: insert}
      - {table: order_line, kind: insert, repeat: 2}
  - name: cancel an order
    rate: 600
    steps:
      - {table: orders, kind: update, where: {customer_id: "?", order_id: "?"}}
candidates: [hash(customer_id)]
`), "orders2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(spec, "")
	if err != nil {
		t.Fatal(err)
	}
	note := func(eng partition.Engine, key string) string {
		t.Helper()
		adv, err := advisor.Recommend(w, advisor.Options{Shards: 8, Engine: eng, Keys: []string{key}})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range adv.Summary {
			if strings.HasPrefix(l, "Co-location across collections") {
				return l
			}
		}
		return ""
	}
	mongo, err := partition.Lookup("mongodb")
	if err != nil {
		t.Fatal(err)
	}
	l := note(mongo, "hash(customer_id)")
	for _, want := range []string{"25% of transactions write or read order_line and orders", "sh.updateZoneKeyRange"} {
		if !strings.Contains(l, want) {
			t.Errorf("mongodb: note lacks %q: %q", want, l)
		}
	}
	if l := note(partition.Generic{}, "hash(customer_id)"); l != "" {
		t.Errorf("generic: %q; want no co-location note", l)
	}
	if l := note(mongo, "hash(customer_id); order_line:hash(line_id)"); l != "" {
		t.Errorf("lines keyed by their own id: %q; want no note", l)
	}
}
