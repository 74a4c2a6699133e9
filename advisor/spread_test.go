package advisor_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
)

// TestExpectedMaxFewValues: the expected busiest shard of k equal values
// hashed uniformly onto n shards, counted by hand. 4 values on 4 shards:
// of the 4^4 = 256 placements, 4! = 24 put one value per shard (max 1),
// 4*6*6 = 144 are (2,1,1,0) and 6*6 = 36 are (2,2,0,0) (max 2), 4*4*3 =
// 48 are (3,1,0,0) (max 3) and 4 put all on one (max 4): E[max] =
// (24 + 2*180 + 3*48 + 4*4)/256 = 544/256 = 2.125, the mean being 1.
// Expected empty shards: 4 (3/4)^4 = 81/64 = 1.27. 2 values on 2
// shards: half the placements share a shard, E[max] = (1 + 2)/2 = 1.5.
func TestExpectedMaxFewValues(t *testing.T) {
	for _, c := range []struct {
		k, n int
		want float64
	}{{4, 4, 2.125}, {2, 2, 1.5}} {
		if got := sim.ExpectedMaxLoadRatio(c.k, c.n); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("ExpectedMaxLoadRatio(%d, %d) = %v; want %v", c.k, c.n, got, c.want)
		}
	}
}

// TestPlaceFewValues: 4 values of g, equally used (1,000 reads/s, each
// naming one g), hashed onto 4 shards. Where the engine's hash puts each
// value is taken from the engine (partition.Generic, partition Citus);
// with m values on the most crowded shard its work is m x 250/s. Each
// value on a shard of its own does 250/s, the mean: ratio 1. The fix
// says so, names the engine's remedy (Citus: isolate_tenant_to_new_shard
// with CASCADE on the table) and the expected empty shards of a uniform
// hash, 4 (1 - 1/4)^4 = 1.27, and counts in "after fixes". Random rows
// and draws put each value near a quarter, not exactly: 5% tolerance.
func TestPlaceFewValues(t *testing.T) {
	spec, err := scenario.Parse([]byte(`name: groups
shards: 4
seed: 1
tables:
  - name: items
    rows: 4000
    columns:
      - {name: id, gen: sequential}
      - {name: g, gen: uniform, distinct: 4}
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
	// The distinct values of g in the rows.
	tb := w.Table("items")
	gi := tb.ColumnIndex("g")
	seen := map[shardkey.Value]bool{}
	var vals []shardkey.Value
	for r := 0; r < tb.Rows; r++ {
		v := tb.Columns[gi].Value(r).Canonical()
		if !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	if len(vals) != 4 {
		t.Fatalf("g has %d distinct values; want 4", len(vals))
	}
	for _, engName := range []string{"generic", "citus"} {
		eng, err := partition.Lookup(engName)
		if err != nil {
			t.Fatal(err)
		}
		l, err := eng.Layout(4)
		if err != nil {
			t.Fatal(err)
		}
		per := make([]int, 4)
		for _, v := range vals {
			p, err := eng.Point([]shardkey.Value{v})
			if err != nil {
				t.Fatal(err)
			}
			per[l.Shard(p)]++
		}
		m := 0
		for _, x := range per {
			m = max(m, x)
		}
		if m < 2 {
			t.Fatalf("%s: the 4 values hash onto 4 shards without a collision; the test needs one", engName)
		}
		adv, err := advisor.Recommend(w, advisor.Options{Shards: 4, Engine: eng, Keys: []string{"hash(g)"}})
		if err != nil {
			t.Fatal(err)
		}
		as := adv.Candidates[0]
		if !nearRel(as.Score.MaxShardWork, float64(m)*250, 0.05) {
			t.Fatalf("%s: busiest shard %v/s; want about %d x 250", engName, as.Score.MaxShardWork, m)
		}
		var f *advisor.Fix
		for i := range as.Fixes {
			if as.Fixes[i].Kind == "place-values" {
				f = &as.Fixes[i]
			}
		}
		if f == nil {
			t.Fatalf("%s: no place-values fix for 4 values colliding on 4 shards (busiest %v/s); fixes %+v", engName, as.Score.MaxShardWork, as.Fixes)
		}
		if !nearRel(f.After.MaxShardWork, 250, 0.05) || f.After.WorkRatio > 1.05 {
			t.Errorf("%s: after the fix busiest %v/s, ratio %v; want about 250/s, 1.00", engName, f.After.MaxShardWork, f.After.WorkRatio)
		}
		if !nearRel(as.Criteria.AfterFixes, 250, 0.05) {
			t.Errorf("%s: after fixes %v/s; want about 250", engName, as.Criteria.AfterFixes)
		}
		for _, want := range []string{"g has 4 distinct values for 4 shards", strconv.Itoa(m) + " values on", "4 x (1 - 1/4)^4 = 1.27 of them empty"} {
			if !strings.Contains(f.Text, want) {
				t.Errorf("%s: fix text lacks %q:\n%s", engName, want, f.Text)
			}
		}
		citus := strings.Contains(f.Text, "isolate_tenant_to_new_shard('items', ") && strings.Contains(f.Text, "'CASCADE')")
		if citus != (engName == "citus") {
			t.Errorf("%s: Citus's isolate_tenant_to_new_shard named: %v:\n%s", engName, citus, f.Text)
		}
		if engName == "generic" && !strings.Contains(f.Text, "directory override") {
			t.Errorf("generic: no directory override named:\n%s", f.Text)
		}
	}
}

func nearRel(got, want, rel float64) bool { return math.Abs(got-want) <= rel*want }

// TestFewValuesPerNode: with slots on nodes the work lands on the nodes,
// so the low-cardinality flag counts nodes, as the rejection does. g has
// 8 distinct values: on 32 slots over 4 nodes that is 8/4 = 2 values a
// node, under 10 a node (flagged), ranges of 2 values each even on 4
// nodes, and at most 8 nodes ever used; not "fewer values than shards"
// on 32. Under citus(shard_count=32) on 4 nodes (--shards 4) the figures
// are the nodes' (partition.Citus places the 32 Citus shards on the 4
// nodes): the flag counts 4 nodes and the summary names the busiest node
// and the 32 Citus shards over 4 nodes.
func TestFewValuesPerNode(t *testing.T) {
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
	flagWith := func(o advisor.Options) (string, []string) {
		t.Helper()
		adv, err := advisor.Recommend(w, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range adv.Flags {
			if strings.HasPrefix(f, "g has ") {
				return f, adv.Summary
			}
		}
		t.Fatalf("no flag on g; flags %q", adv.Flags)
		return "", nil
	}
	m, err := sim.NewNodes(32, 4, "round-robin")
	if err != nil {
		t.Fatal(err)
	}
	want := "g has 8 distinct values for 4 nodes (items): fewer than 10 per node leaves a hash placement lumpy; ranges of 2 values each place values of equal traffic evenly on 4 nodes; no more than 8 nodes can ever be used: past 8 the busiest node still carries one value's whole traffic"
	if got, _ := flagWith(advisor.Options{Shards: 32, Nodes: m, Keys: []string{"hash(g)"}}); got != want {
		t.Errorf("32 slots over 4 nodes: flag\n%q\nwant\n%q", got, want)
	}
	eng, err := partition.Lookup("citus(shard_count=32)")
	if err != nil {
		t.Fatal(err)
	}
	got, sum := flagWith(advisor.Options{Shards: 4, Engine: eng, Keys: []string{"hash(g)"}})
	if got != want {
		t.Errorf("citus(shard_count=32) on 4 nodes: flag\n%q\nwant\n%q", got, want)
	}
	if len(sum) == 0 || !strings.Contains(sum[0], "on 32 Citus shards over 4 nodes, the busiest node doing") {
		t.Errorf("citus(shard_count=32) on 4 nodes: summary %q; want the 32 Citus shards over 4 nodes and the busiest node", sum)
	}
}

// TestSweepPerNode: with slots on nodes a sweep row per node count gives
// the nodes' figures, as its load ratio is the nodes': 8 values of g,
// 125 reads/s each, on Citus's 32 shards placed round-robin on 4 nodes
// (shard i on node i mod 4, CreateShardsWithRoundRobinPolicy): the
// busiest node does 125/s times the most values on one node (where the
// values hash is Citus's own, partition.Citus), and the perfect hash of
// 8 values over 4 nodes is E[max]/2, E[max] = 3623/1024 (counted by
// exhaustion of the 4^8 placements), 1.769x; not the busiest slot's
// work, which no node count changes.
func TestSweepPerNode(t *testing.T) {
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
	eng, err := partition.Lookup("citus")
	if err != nil {
		t.Fatal(err)
	}
	l, err := eng.Layout(32)
	if err != nil {
		t.Fatal(err)
	}
	tb := w.Table("items")
	seen := map[shardkey.Value]bool{}
	perNode := make([]int, 4)
	for r := 0; r < tb.Rows; r++ {
		v := tb.Columns[tb.ColumnIndex("g")].Value(r).Canonical()
		if seen[v] {
			continue
		}
		seen[v] = true
		p, err := eng.Point([]shardkey.Value{v})
		if err != nil {
			t.Fatal(err)
		}
		perNode[l.Shard(p)%4]++
	}
	most := 0
	for _, m := range perNode {
		most = max(most, m)
	}
	nodes, err := sim.NewNodes(32, 4, "round-robin")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := advisor.Sweep(w, "hash(g)", []int{4}, sim.Options{Shards: 32, Engine: eng, Nodes: nodes})
	if err != nil || len(rows) != 1 {
		t.Fatalf("sweep: %v, %d rows", err, len(rows))
	}
	r := rows[0]
	if r.Per != "node" || !nearRel(r.MaxShardWork, 125*float64(most), 0.05) || !nearRel(r.WorkRatio, float64(most)/2, 0.05) || math.Abs(r.Expected-3623.0/2048) > 1e-6 {
		t.Errorf("sweep row at 4 nodes %+v; want per node, busiest about %d x 125/s, work ratio about %d/2, perfect hash 3623/2048", r, most, most)
	}
}
