package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// nodesDoc is the part of score's and advise's JSON that slots over nodes
// add: per-slot work (shard_work) and per-node work.
type nodesDoc struct {
	ShardWork []float64 `json:"shard_work"`
	Nodes     *struct {
		Slots     int       `json:"slots"`
		Nodes     int       `json:"nodes"`
		NodeSlots []int     `json:"node_slots"`
		NodeWork  []float64 `json:"node_work"`
	} `json:"nodes"`
}

// checkContiguous: contiguous placement gives node k the slots
// [k*S/N, (k+1)*S/N), so node k's work is the sum of those slots' work.
func checkContiguous(t *testing.T, what string, d nodesDoc, slots, nodes int) {
	t.Helper()
	if d.Nodes == nil || d.Nodes.Slots != slots || d.Nodes.Nodes != nodes || len(d.ShardWork) != slots || len(d.Nodes.NodeWork) != nodes {
		t.Fatalf("%s: want %d slots over %d nodes, got %+v (%d slots of work)", what, slots, nodes, d.Nodes, len(d.ShardWork))
	}
	per := slots / nodes
	for k := 0; k < nodes; k++ {
		sum := 0.0
		for s := k * per; s < (k+1)*per; s++ {
			sum += d.ShardWork[s]
		}
		if d.Nodes.NodeSlots[k] != per || math.Abs(d.Nodes.NodeWork[k]-sum) > 1e-9*math.Max(1, sum) {
			t.Errorf("%s: node %d: %d slots, work %v; want %d slots, work %v (its slots' sum)", what, k, d.Nodes.NodeSlots[k], d.Nodes.NodeWork[k], per, sum)
		}
	}
}

// TestNodesInSpec: a spec's `nodes: M` places its shards as slots on M
// nodes, as --slots/--nodes do: score, demo and advise report per-node work
// beside per-slot work.
func TestNodesInSpec(t *testing.T) {
	_, spec, _ := runCmd(t, "", "demo", "orders", "--print")
	spec = strings.Replace(spec, "\nshards: 64\n", "\nshards: 16\nnodes: 4\n", 1)
	if !strings.Contains(spec, "nodes: 4") {
		t.Fatal("the orders spec has no 'shards: 64' line to place")
	}
	file := writeFile(t, "orders.yaml", spec)
	code, out, errs := runCmd(t, "", "score", "--workload", file, "-k", "hash(customer_id)", "--format", "json")
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, errs)
	}
	var sd struct{ Candidates []nodesDoc }
	if err := json.Unmarshal([]byte(out), &sd); err != nil {
		t.Fatal(err)
	}
	checkContiguous(t, "score with nodes: 4", sd.Candidates[0], 16, 4)

	code, out, errs = runCmd(t, "", "advise", "--workload", file, "--format", "json", "--bootstrap", "0", "--sweep", "")
	if code != 0 {
		t.Fatalf("advise: exit %d: %s", code, errs)
	}
	var ad struct {
		Candidates []struct{ Score nodesDoc }
	}
	if err := json.Unmarshal([]byte(out), &ad); err != nil {
		t.Fatal(err)
	}
	checkContiguous(t, "advise with nodes: 4", ad.Candidates[0].Score, 16, 4)

	code, out, _ = runCmd(t, "", "advise", "orders", "--slots", "16", "--nodes", "4", "--bootstrap", "0", "--sweep", "")
	if code != 0 || !strings.Contains(out, "16 slots over 4 nodes (contiguous)") {
		t.Errorf("advise --slots 16 --nodes 4: exit %d, no slots-over-nodes section:\n%s", code, out)
	}

	bad := writeFile(t, "bad.yaml", strings.Replace(spec, "nodes: 4", "nodes: 17", 1))
	code, _, errs = runCmd(t, "", "score", "--workload", bad, "-k", "hash(customer_id)")
	if code != 1 || !strings.Contains(errs, "nodes: 17: must be in 1..shards (16)") {
		t.Errorf("nodes: 17 on 16 shards: exit %d, %q; want exit 1 naming the field", code, errs)
	}
}

// nodeCapacitySpec: 8 slots on 2 nodes (contiguous: 4 slots each), a node
// doing 300 units/s. Its one operation reads by a column that is not the
// key, so each of its 100 requests/s asks all 8 slots: every slot does
// 100 units/s (under 300), every node 4 x 100 = 400 (over 300).
const nodeCapacitySpec = `name: nodecap
shards: 8
nodes: 2
capacity: 300
tables:
  - name: events
    rows: 1000
    columns:
      - {name: id, gen: sequential}
      - {name: kind, gen: uniform, distinct: 4}
operations:
  - {name: scan by kind, table: events, rate: 100, where: {kind: "?"}}
candidates: [hash(id)]
`

// TestCapacityPerNode: with slots over nodes the capacity is a node's,
// judged on the sum of its slots' work; before, each slot was judged
// alone, and no node was over a capacity that both were (2 x 400 > 300).
// The score's over-capacity column, the advice's headline, JSON and HTML
// say so (the HTML had no nodes report at all).
func TestCapacityPerNode(t *testing.T) {
	file := writeFile(t, "nodecap.yaml", nodeCapacitySpec)
	code, out, errs := runCmd(t, "", "score", "--workload", file, "-k", "hash(id)")
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, errs)
	}
	for _, want := range []string{"capacity 300 units of work/s per node", "2 of 2 nodes\n", "0      4   400 !", "2 of 2 nodes over it"} {
		if !strings.Contains(out, want) {
			t.Errorf("score: no %q in\n%s", want, out)
		}
	}
	code, out, errs = runCmd(t, "", "score", "--workload", file, "-k", "hash(id)", "--format", "markdown")
	if code != 0 {
		t.Fatalf("score markdown: exit %d: %s", code, errs)
	}
	for _, want := range []string{"capacity 300 units of work/s per node", "2 of 2 nodes over it"} {
		if !strings.Contains(out, want) {
			t.Errorf("score markdown: no %q in\n%s", want, out)
		}
	}
	code, out, errs = runCmd(t, "", "score", "--workload", file, "-k", "hash(id)", "--format", "json")
	if code != 0 {
		t.Fatalf("score json: exit %d: %s", code, errs)
	}
	var sd struct {
		Candidates []struct {
			CapacityPer  string `json:"capacity_per"`
			OverCapacity []int  `json:"over_capacity"`
			Nodes        struct {
				NodeWork     []float64 `json:"node_work"`
				OverCapacity []int     `json:"over_capacity"`
			} `json:"nodes"`
		}
	}
	if err := json.Unmarshal([]byte(out), &sd); err != nil {
		t.Fatal(err)
	}
	c := sd.Candidates[0]
	if c.CapacityPer != "node" || len(c.OverCapacity) != 2 || len(c.Nodes.OverCapacity) != 2 ||
		len(c.Nodes.NodeWork) != 2 || c.Nodes.NodeWork[0] != 400 || c.Nodes.NodeWork[1] != 400 {
		t.Errorf("score json: %+v; want capacity per node, nodes 0 and 1 over it at 400 units/s each", c)
	}

	code, out, errs = runCmd(t, "", "advise", "--workload", file, "-k", "hash(id)")
	if code != 0 {
		t.Fatalf("advise: exit %d: %s", code, errs)
	}
	if want := "Over capacity: 2 of 2 nodes exceed 300 units/s, a node's work being its slots' summed\n(busiest node 400/s)"; !strings.Contains(out, want) {
		t.Errorf("advise: no headline %q in\n%s", want, out)
	}
	code, out, errs = runCmd(t, "", "advise", "--workload", file, "-k", "hash(id)", "--format", "json")
	if code != 0 {
		t.Fatalf("advise json: exit %d: %s", code, errs)
	}
	var ad struct {
		CapacityCheck struct {
			Per    string `json:"per"`
			Nodes  int    `json:"nodes"`
			Before struct {
				OverCapacity int     `json:"over_capacity"`
				MaxNodeWork  float64 `json:"max_node_work"`
			} `json:"before"`
		} `json:"capacity_check"`
	}
	if err := json.Unmarshal([]byte(out), &ad); err != nil {
		t.Fatal(err)
	}
	if cc := ad.CapacityCheck; cc.Per != "node" || cc.Nodes != 2 || cc.Before.OverCapacity != 2 || cc.Before.MaxNodeWork != 400 {
		t.Errorf("advise json capacity_check: %+v; want per node, 2 of 2 nodes over, busiest node 400", cc)
	}
	code, out, errs = runCmd(t, "", "advise", "--workload", file, "-k", "hash(id)", "--format", "html")
	if code != 0 {
		t.Fatalf("advise html: exit %d: %s", code, errs)
	}
	for _, want := range []string{"capacity 300 units of work/s per node", "<h2>Slots over nodes: <code>hash(id)</code></h2>",
		`<tr class="overrow"><td class="n">0</td><td class="n">4</td><td class="n">400</td>`, "2 of 2 nodes over it"} {
		if !strings.Contains(out, want) {
			t.Errorf("advise html: no %q", want)
		}
	}
}
