package advisor

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// hotTenant is bucketEvents with rates that make tenant 1 (40% of the
// rows, so 40% of each operation's instances) too hot for one shard of
// capacity 200 units/s: 1,000 reads/s and 10 inserts/s in all, tenant 1
// doing 0.4 * 1,000 = 400 reads/s and 0.4 * 10 = 4 writes/s.
func hotTenant() *shardkey.Workload {
	w := bucketEvents(0)
	w.Ops[0].Rate, w.Ops[1].Rate = 1000, 10
	w.Capacity = 200
	return w
}

// TestCitusWhaleTerms: under Citus the whale's isolation is Citus's own
// call (what --emit citus writes), not "a directory override", and the
// hot value's read replicas are counted from its reads and writes and
// named as Citus's.
//
// By hand: tenant 1 does 400 reads/s and 4 writes/s (hotTenant). Salting
// its writes over K = max(ceil(4 / (200 / 2)), 2) = 2 buckets leaves each
// bucket's shard 400 reads/s (every read asks both buckets) + 2 writes/s
// = 402/s, not under 0.98 times the isolated shard's 404/s (395.9), so the
// cache path is taken. Every read replica applies all 4 writes/s, leaving
// 200 - 4 = 196 units/s for reads: ceil(400 / 196) = ceil(2.04) = 3
// replicas (the old half-capacity rule said ceil(400 / 100) = 4).
func TestCitusWhaleTerms(t *testing.T) {
	w := hotTenant()
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	eng, err := partition.Lookup("citus")
	if err != nil {
		t.Fatal(err)
	}
	adv, err := Recommend(w, Options{Shards: 8, Engine: eng, Keys: []string{"hash(tenant_id)"}})
	if err != nil {
		t.Fatal(err)
	}
	var iso, cache *Fix
	for i, f := range adv.Candidates[0].Fixes {
		switch f.Kind {
		case "isolate":
			iso = &adv.Candidates[0].Fixes[i]
		case "cache":
			cache = &adv.Candidates[0].Fixes[i]
		}
		if strings.Contains(f.Text, "directory override") {
			t.Errorf("fix %s names a directory override under Citus: %s", f.Kind, f.Text)
		}
	}
	if iso == nil || !strings.Contains(iso.Text, "SELECT isolate_tenant_to_new_shard('events', 1, 'CASCADE')") || !strings.Contains(iso.Text, "citus_move_shard_placement") {
		t.Errorf("isolate fix %+v; want Citus's isolate_tenant_to_new_shard('events', 1, 'CASCADE') and citus_move_shard_placement", iso)
	}
	if cache == nil || !strings.Contains(cache.Text, "serve them from 3 read replicas") || !strings.Contains(cache.Text, "ceil(400 / 196) = 3") || !strings.Contains(cache.Text, "citus_add_secondary_node") {
		t.Errorf("cache fix %+v; want 3 read replicas, ceil(400 / 196) = 3, Citus's citus_add_secondary_node", cache)
	}
}

// TestReplicasFor: replicas = ceil(reads / (capacity - writes)), every
// replica applying every write. By hand: 400 reads/s, 4 writes/s, 200
// a shard: ceil(400 / 196) = 3; 100 reads/s, 150 writes/s: 50 left for
// reads, ceil(100 / 50) = 2; writes 200 or 250 at capacity 200: no count
// of replicas helps (0, said so).
func TestReplicasFor(t *testing.T) {
	a := &analysis{engine: "generic"}
	for _, c := range []struct {
		reads, writes float64
		want          int
		text          string
	}{
		{400, 4, 3, "serve them from 3 read replicas"},
		{100, 150, 2, "ceil(100 / 50.0) = 2"},
		{100, 200, 0, "cannot help: each applies all of its ~200 writes/s"},
		{100, 250, 0, "cannot help: each applies all of its ~250 writes/s"},
	} {
		n, text := a.replicasFor(c.reads, c.writes, 200)
		if n != c.want || !strings.Contains(text, c.text) {
			t.Errorf("replicasFor(%v, %v, 200) = %d, %q; want %d and %q", c.reads, c.writes, n, text, c.want, c.text)
		}
	}
}

// TestJoinedAndLookupTerms: the advice for a join on a carried column
// names the rule of the engine in use only (Citus's co-located
// distribution column, Vitess's vindex column), both with their systems
// under an engine of neither; and a Citus engine with options is Citus
// for the lookup's wording too.
func TestJoinedAndLookupTerms(t *testing.T) {
	c := Carry{Table: "order_items", Column: "tenant_id", Joined: []JoinedRead{{Operation: "an order's items", Parent: "orders", Rate: 10}}}
	for _, x := range []struct {
		engine    string
		want, not []string
	}{
		{"citus", []string{"Citus keeps a join on one shard only when it is on the distribution column"}, []string{"Vitess"}},
		{"vitess-xxhash", []string{"Vitess merges a join's routes"}, []string{"Citus"}},
		{"generic", []string{"Citus: the distribution column", "Vitess: the same vindex column"}, nil},
	} {
		got := joinedText(c, "postgresql", x.engine)
		for _, s := range x.want {
			if !strings.Contains(got, s) {
				t.Errorf("%s: joined text lacks %q: %s", x.engine, s, got)
			}
		}
		for _, s := range x.not {
			if strings.Contains(got, s) {
				t.Errorf("%s: joined text names %q, another system: %s", x.engine, s, got)
			}
		}
	}
	if got := lookupSystem("citus(shard_count=32)", "email"); !strings.HasPrefix(got, "Citus's indexes are local to each shard") {
		t.Errorf("lookupSystem(citus(shard_count=32)) = %q; want Citus's wording", got)
	}
}

// TestReplicasPractical: ceil(reads / (capacity - writes)) replicas are
// proposed up to 5; past that the text says replicas cannot practically
// carry the reads and offers a read model. By hand, at 200 a shard:
// 1,000 reads/s, no writes: ceil(1000 / 200) = 5, proposed; 1,001:
// ceil(1001 / 200) = 6, not; the workspace's whale under Citus, 6,408
// reads/s and 487 writes/s at 800: ceil(6408 / 313) = 21, not.
func TestReplicasPractical(t *testing.T) {
	a := &analysis{engine: "citus"}
	for _, c := range []struct {
		reads, writes, capacity float64
		want                    int
		has, not                string
	}{
		{1000, 0, 200, 5, "serve them from 5 read replicas", "cannot practically"},
		{1001, 0, 200, 6, "read replicas cannot practically carry them: each applies all ~0.00 writes/s, leaving 200 - 0.00 = 200 units/s for reads, so ceil(1,001 / 200) = 6 would be needed", "6 read replicas"},
		{6408, 487, 800, 21, "ceil(6,408 / 313) = 21 would be needed, more than the 5 copies", "21 read replicas"},
	} {
		n, text := a.replicasFor(c.reads, c.writes, c.capacity)
		if n != c.want || !strings.Contains(text, c.has) || strings.Contains(text, c.not) {
			t.Errorf("replicasFor(%v, %v, %v) = %d, %q; want %d, with %q, without %q", c.reads, c.writes, c.capacity, n, text, c.want, c.has, c.not)
		}
		if n > 5 && !strings.HasPrefix(text, ", or serve them from a read model") {
			t.Errorf("replicasFor(%v, %v, %v) = %q; want it to lead with a read model", c.reads, c.writes, c.capacity, text)
		}
	}
}
