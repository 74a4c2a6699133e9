package advisor

import (
	"strings"
	"testing"
)

// TestEncodedIDCaveat: a shard-encoded id says that the ids already
// written need a backfill or a lookup, named as the engine has it, and
// that the id carries the key's slot, not a shard number.
func TestEncodedIDCaveat(t *testing.T) {
	for _, c := range []struct {
		engine, want string
	}{
		{"generic", "a lookup from order_id to customer_id (a mapping table)"},
		{"citus", "a lookup from order_id to customer_id (a mapping table)"},
		{"vitess", "a lookup vindex on order_id (consistent_lookup_unique"},
		{"mongodb", "a lookup from order_id to customer_id (a mapping collection)"},
	} {
		got := encodedIDCaveat(c.engine, "order_id", "customer_id")
		for _, w := range []string{"Ids already written do not carry it: backfill them", c.want, "only new ids route by the encoding", "Encode customer_id's logical slot", "not a physical shard number"} {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.engine, got, w)
			}
		}
	}
	// MongoDB's _id cannot be updated (the manual: "you cannot update
	// the value of the _id field"): a backfill re-inserts.
	if got := encodedIDCaveat("mongodb", "_id", "user_id"); !strings.Contains(got, "_id is immutable: re-insert each document") {
		t.Errorf("mongodb _id: %q", got)
	}
}

// TestMongoBalancerNote: under MongoDB, advice resting on per-shard
// traffic (a shard over capacity, a whale fix) says the balancer
// balances data size, not traffic; a whale fix adds the zone; other
// engines, and MongoDB advice with no load at stake, say nothing.
func TestMongoBalancerNote(t *testing.T) {
	over := &Capacity{Before: &Nums{OverCapacity: 3}}
	under := &Capacity{Before: &Nums{}}
	whale := &Assessment{Fixes: []Fix{{Kind: "isolate"}}}
	plain := &Assessment{Fixes: []Fix{{Kind: "replica"}}}
	for _, c := range []struct {
		adv         *Advice
		best        *Assessment
		note, zones bool
	}{
		{&Advice{Engine: "mongodb", CapacityCheck: over}, plain, true, false},
		{&Advice{Engine: "mongodb", CapacityCheck: under}, whale, true, true},
		{&Advice{Engine: "mongodb", CapacityCheck: under}, plain, false, false},
		{&Advice{Engine: "mongodb"}, plain, false, false},
		{&Advice{Engine: "citus", CapacityCheck: over}, whale, false, false},
	} {
		got := mongoBalancerNote(c.adv, c.best)
		if note := strings.Contains(got, "balancer balances data size"); note != c.note {
			t.Errorf("%s, fixes %v: note %q; want one: %v", c.adv.Engine, c.best.Fixes, got, c.note)
		}
		if zones := strings.Contains(got, "updateZoneKeyRange"); zones != c.zones {
			t.Errorf("%s, fixes %v: note %q; want zones: %v", c.adv.Engine, c.best.Fixes, got, c.zones)
		}
	}
}
