package advisor_test

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
)

// TestLowCardinalityCountsNodes: slots are logical, so a key with fewer
// distinct values than slots but at least as many as nodes leaves no
// machine idle and is not rejected for low cardinality. g has 8
// distinct values over 4000 rows: on 32 slots over 4 nodes (8 >= 4) and
// 64 slots over 8 nodes (8 >= 8) it is viable, as on 8 shards; on 32
// slots over 16 nodes (8 < 16) and on 16 shards it is rejected, the
// message naming 16 nodes and 16 shards respectively.
func TestLowCardinalityCountsNodes(t *testing.T) {
	spec, err := scenario.Parse([]byte(`name: groups
shards: 8
seed: 1
tables:
  - name: items
    rows: 4000
    columns:
      - {name: id, gen: sequential}
      - {name: g, gen: uniform, distinct: 8}
operations:
  - {name: read by group, table: items, rate: 1000, where: {g: "?"}}
candidates: [hash(g)]
`), "groups.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(spec, "")
	if err != nil {
		t.Fatal(err)
	}
	rejection := func(shards, nodes int) string {
		t.Helper()
		o := advisor.Options{Shards: shards, Keys: []string{"hash(g)"}}
		if nodes > 0 {
			m, err := sim.NewNodes(shards, nodes, "round-robin")
			if err != nil {
				t.Fatal(err)
			}
			o.Nodes = m
		}
		adv, err := advisor.Recommend(w, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, as := range adv.Candidates {
			if as.Key == "hash(g)" {
				return as.Rejection
			}
		}
		t.Fatalf("hash(g) not among the candidates on %d shards, %d nodes", shards, nodes)
		return ""
	}
	for _, c := range []struct {
		shards, nodes int
		want          string // "" viable (at least not for cardinality)
	}{
		{8, 0, ""},
		{32, 4, ""},
		{64, 8, ""},
		{16, 0, "g has only 8 distinct values for 16 shards"},
		{32, 16, "g has only 8 distinct values for 16 nodes"},
	} {
		got := rejection(c.shards, c.nodes)
		if c.want == "" && strings.Contains(got, "distinct values") || c.want != "" && got != c.want {
			t.Errorf("%d shards, %d nodes: rejection %q; want %q", c.shards, c.nodes, got, c.want)
		}
	}
}

// TestTPCCOnSlots: TPC-C's 8 warehouses on 32 Citus shards over 4
// workers get the design they get on 8 shards, hash(w_id) with item
// replicated, not "No viable design".
func TestTPCCOnSlots(t *testing.T) {
	s, err := scenario.ReadFile("../scenario/benchmarks/tpcc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.NewNodes(32, 4, "round-robin")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := partition.Lookup("citus")
	if err != nil {
		t.Fatal(err)
	}
	adv, err := advisor.Recommend(w, advisor.Options{Shards: 32, Engine: eng, Nodes: m})
	if err != nil {
		t.Fatal(err)
	}
	if adv.Recommended != "hash(w_id); item:replicate" {
		t.Errorf("tpcc on 32 slots over 4 nodes: recommended %q; want hash(w_id); item:replicate", adv.Recommended)
	}
	// The whale threshold is a node's: each of the 8 warehouses holds
	// about 1/8 = 12.5% of the group's rows, under 1.5/4 = 37.5% on 4
	// nodes (bounded, no whale fix), over 1.5/32 = 4.69% on 32 shards.
	best := adv.Candidates[0]
	if !best.Criteria.Bounded {
		t.Errorf("tpcc on 32 slots over 4 nodes: largest partition %.3f not bounded; want bounded under 1.5/4 nodes", best.Criteria.LargestPartition)
	}
	for _, f := range best.Fixes {
		if f.Kind == "whale" || f.Kind == "isolate" {
			t.Errorf("tpcc on 32 slots over 4 nodes: whale fix %q; want none", f.Text)
		}
	}
	adv32, err := advisor.Recommend(w, advisor.Options{Shards: 32, Engine: eng, Keys: []string{"hash(w_id); item:replicate"}})
	if err != nil {
		t.Fatal(err)
	}
	if adv32.Candidates[0].Criteria.Bounded {
		t.Errorf("tpcc hash(w_id) on 32 shards: bounded; want a whale (12.5%% > 1.5/32 = 4.69%%)")
	}
}
