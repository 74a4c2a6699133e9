package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestScore_SlotsOverNodes: with --slots 8 --nodes 3 (contiguous as
// redis-cli splits slots, 8/3 = 2.67 a node: slots 0-2, 3-4, 5-7) every
// node's work is the sum of its slots' work, and
// growth to 4 nodes moves 2 slots (one from each node holding 3).
func TestScore_SlotsOverNodes(t *testing.T) {
	var rows, queries strings.Builder
	rows.WriteString("user_id\n")
	for i := range 1000 {
		fmt.Fprintf(&rows, "%d\n", i)
		fmt.Fprintf(&queries, `{"where": {"user_id": %d}, "weight": 1}`+"\n", i)
	}
	rf := writeFile(t, "rows.csv", rows.String())
	qf := writeFile(t, "q.jsonl", queries.String())
	r := runJSON(t, "score", "--rows", rf, "--queries", qf, "-k", "hash(user_id)", "--slots", "8", "--nodes", "3", "--row-bytes", "100")
	c := r.Candidates[0]
	if c.Shards != 8 || c.Nodes == nil {
		t.Fatalf("shards %d, nodes %v; want 8 slots with a nodes report", c.Shards, c.Nodes)
	}
	sw := c.ShardWork
	want := []float64{sw[0] + sw[1] + sw[2], sw[3] + sw[4], sw[5] + sw[6] + sw[7]}
	for k := range want {
		if math.Abs(c.Nodes.NodeWork[k]-want[k]) > 1e-9 {
			t.Errorf("node %d work %v; want %v", k, c.Nodes.NodeWork[k], want[k])
		}
	}
	for _, g := range c.Nodes.Growth {
		if g.Bytes != g.Rows*100 {
			t.Errorf("%s: %v bytes for %v rows; want 100 a row", g.Placement, g.Bytes, g.Rows)
		}
	}
	g := c.Nodes.Growth[0]
	if g.Placement != "slots" || g.From != 3 || g.To != 4 || g.SlotsMoved != 2 {
		t.Errorf("growth: %+v; want slots 3 -> 4 moving 2", g)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--slots", "8"}, "--slots 8 needs --nodes"},
		{[]string{"--slots", "8", "--nodes", "3", "--shards", "4"}, "--shards 4 and --slots 8"},
		{[]string{"--slots", "8", "--nodes", "3", "--grow-to", "3"}, "--grow-to 3: must be more than --nodes (3)"},
		{[]string{"--slots", "8", "--nodes", "3", "--slot-map", "nosuch.txt"}, "nosuch.txt"},
	} {
		code, _, errs := runCmd(t, "", append([]string{"score", "--rows", rf, "-k", "hash(user_id)"}, c.args...)...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("score %v: exit %d %q; want %q", c.args, code, errs, c.want)
		}
	}
}

// TestAdviseUnknownLoadNull: a log has no row weights, so every row-load
// figure of advise's JSON (the sweep's, the bootstrap interval's, the
// per-node one) is null, not a 0 that reads as perfectly even; with a row
// sample (the built-in workload) they are numbers of at least 1 (max over
// mean).
func TestAdviseUnknownLoadNull(t *testing.T) {
	type doc struct {
		Sweep []struct {
			LoadRatio *float64 `json:"load_ratio"`
		} `json:"sweep"`
		Confidence *struct {
			LoadRatio *struct{ Lo, Hi float64 } `json:"load_ratio"`
		} `json:"confidence"`
		Candidates []struct {
			Score struct {
				Nodes *struct {
					NodeLoad      []float64 `json:"node_load"`
					NodeLoadRatio *float64  `json:"node_load_ratio"`
				} `json:"nodes"`
			} `json:"score"`
		} `json:"candidates"`
	}
	read := func(args ...string) doc {
		t.Helper()
		code, out, errs := runCmd(t, "", append([]string{"advise", "--format", "json", "--slots", "16", "--nodes", "4"}, args...)...)
		if code != 0 {
			t.Fatalf("advise %q: exit %d: %s", args, code, errs)
		}
		var d doc
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		if len(d.Sweep) == 0 || d.Confidence == nil || len(d.Candidates) == 0 || d.Candidates[0].Score.Nodes == nil {
			t.Fatalf("advise %q: want sweep, confidence and nodes in %s", args, out)
		}
		return d
	}
	d := read("--log", filepath.Join("testdata", "pgbench", "pgbench-tpcb-s4.log"))
	for i, r := range d.Sweep {
		if r.LoadRatio != nil {
			t.Errorf("log: sweep[%d].load_ratio = %v, want null", i, *r.LoadRatio)
		}
	}
	if d.Confidence.LoadRatio != nil {
		t.Errorf("log: confidence.load_ratio = %+v, want null", *d.Confidence.LoadRatio)
	}
	if n := d.Candidates[0].Score.Nodes; n.NodeLoad != nil || n.NodeLoadRatio != nil {
		t.Errorf("log: nodes node_load %v, node_load_ratio %v, want null", n.NodeLoad, n.NodeLoadRatio)
	}
	d = read()
	for i, r := range d.Sweep {
		if r.LoadRatio == nil || *r.LoadRatio < 1 {
			t.Errorf("rows: sweep[%d].load_ratio = %v, want a ratio >= 1", i, r.LoadRatio)
		}
	}
	if n := d.Candidates[0].Score.Nodes; len(n.NodeLoad) != 4 || n.NodeLoadRatio == nil || *n.NodeLoadRatio < 1 {
		t.Errorf("rows: nodes %+v, want 4 node loads and a ratio >= 1", n)
	}
}

// TestAdviseSlotsOverNodesWording: with slots over nodes, advise's
// summary gives the busiest slot and the busiest node (its slots' work
// summed: slots 0-3 and 4-7 of 8 on 2 nodes, contiguous), and the table's
// per-shard column says it is a slot's, in every format.
func TestAdviseSlotsOverNodesWording(t *testing.T) {
	var rows, queries strings.Builder
	rows.WriteString("user_id\n")
	for i := range 1000 {
		fmt.Fprintf(&rows, "%d\n", i)
		fmt.Fprintf(&queries, `{"where": {"user_id": %d}, "weight": 1}`+"\n", i%50)
	}
	rf := writeFile(t, "rows.csv", rows.String())
	qf := writeFile(t, "q.jsonl", queries.String())
	args := []string{"advise", "--rows", rf, "--queries", qf, "--slots", "8", "--nodes", "2"}
	code, out, errs := runCmd(t, "", append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("advise: exit %d: %s", code, errs)
	}
	var adv struct {
		Summary    []string `json:"summary"`
		Candidates []struct {
			Score struct {
				ShardWork []float64 `json:"shard_work"`
			} `json:"score"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatal(err)
	}
	sw := adv.Candidates[0].Score.ShardWork
	if len(sw) != 8 {
		t.Fatalf("shard_work %v; want 8 slots", sw)
	}
	node := max(sw[0]+sw[1]+sw[2]+sw[3], sw[4]+sw[5]+sw[6]+sw[7])
	slot := 0.0
	for _, x := range sw {
		slot = max(slot, x)
	}
	text := strings.Join(adv.Summary, " ")
	for _, want := range []string{"on 8 slots over 2 nodes", "the busiest slot doing " + num(slot) + "/s", "the busiest node " + num(node) + "/s"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary %q; want %q", text, want)
		}
	}
	for format, want := range map[string]string{"table": "busiest slot  after fixes (slot)", "markdown": "| busiest slot (units/s) | after fixes (slot) |", "html": "<th>busiest slot (units/s)</th><th>after fixes (slot)</th>"} {
		code, out, errs := runCmd(t, "", append(args, "--format", format)...)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("advise --format %s: exit %d %s; want %q in\n%s", format, code, errs, want, out)
		}
	}
}

// TestScore_SlotLabels: with --slots 32 --nodes 4 the score's shards are
// slots on nodes: the header says "5,200 requests/s on 32 slots over 4
// nodes" (the social spec's 1,000 + 4,000 + 200 requests/s), the busiest
// column is a slot's, and the Markdown table shows the over-capacity
// column as the text table does ("K of 4 nodes"); without slots they say
// shards ("on 8 shards", "busiest shard", "K of 8").
func TestScore_SlotLabels(t *testing.T) {
	spec := writeFile(t, "social.yaml", func() string { _, s, _ := runCmd(t, "", "demo", "social", "--print"); return s }())
	for _, c := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"--slots", "32", "--nodes", "4"}, []string{"5,200 requests/s on 32 slots over 4 nodes", "busiest slot", "of 4 nodes"}, []string{"on 32 shards", "busiest shard"}},
		{nil, []string{"5,200 requests/s on 8 shards", "busiest shard", "over capacity"}, []string{"slot"}},
	} {
		for _, f := range []string{"table", "markdown"} {
			args := append([]string{"score", "--workload", spec, "-k", "hash(user_id)", "--format", f}, c.args...)
			code, out, errs := runCmd(t, "", args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
			head := out
			if i := strings.Index(out, "\n== "); i > 0 {
				head = out[:i]
			}
			if i := strings.Index(out, "\n## "); i > 0 {
				head = out[:i]
			}
			for _, w := range c.want {
				if !strings.Contains(head, w) {
					t.Errorf("%s %v: no %q in\n%s", f, c.args, w, head)
				}
			}
			for _, w := range c.not {
				if strings.Contains(head, w) {
					t.Errorf("%s %v: %q in\n%s", f, c.args, w, head)
				}
			}
		}
	}
	// The per-key section of the text format: the bars and the growth
	// line are a slot's too (32 slots: the 10 busiest and 22 more).
	code, out, errs := runCmd(t, "", "score", "--workload", spec, "-k", "hash(user_id)", "--slots", "32", "--nodes", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, w := range []string{"per-slot work, units/s", "... 22 more slots from", "adding a slot (32 -> 33) moves"} {
		if !strings.Contains(out, w) {
			t.Errorf("score --slots 32 --nodes 4: no %q in\n%s", w, out)
		}
	}
}

// TestScatterCaveatSlots: with 64 slots over 4 nodes (64 >= 4 x 4) the
// output states how a scatter's work is counted per engine: under redis
// (always 16384 slots, here over 4 masters) the node work counts a
// keyless command once per node, as Redis Cluster sends it to each master
// (command tip request_policy:all_shards), 4 units, not 16384; Citus runs
// one task per shard placement, as counted per slot; the generic engine
// gets the per-slot model and the per-node bound (64/4 = 16x). With 8
// slots over 4 nodes (8 < 16) no line. The social spec's "latest posts
// from everyone" names no key, so it asks every slot.
func TestScatterCaveatSlots(t *testing.T) {
	spec := writeFile(t, "social.yaml", func() string { _, s, _ := runCmd(t, "", "demo", "social", "--print"); return s }())
	const perSlot = "Scatter work is counted one unit per slot asked"
	for _, c := range []struct {
		args        []string
		model, want string
	}{
		{[]string{"score", "--workload", spec, "-k", "hash(user_id)", "--slots", "16384", "--nodes", "4", "--engine", "redis"}, "Work is counted on the nodes", "(command tip request_policy:all_shards), 4 units, not 16384"},
		{[]string{"score", "--workload", spec, "-k", "hash(user_id)", "--slots", "16384", "--nodes", "4", "--engine", "redis", "--format", "markdown"}, "Work is counted on the nodes", "split it by slot even when one node holds them"},
		{[]string{"score", "--workload", spec, "-k", "hash(user_id)", "--slots", "64", "--nodes", "4", "--engine", "citus"}, perSlot, "one task per shard placement"},
		{[]string{"advise", "--workload", spec, "--slots", "64", "--nodes", "4", "--bootstrap", "0"}, perSlot, "does 4 units for it, up to 16x less"},
		{[]string{"score", "--workload", spec, "-k", "hash(user_id)", "--slots", "8", "--nodes", "4"}, "", ""},
	} {
		code, out, errs := runCmd(t, "", c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		flat := strings.Join(strings.Fields(out), " ")
		if c.want == "" {
			if strings.Contains(flat, "Scatter work is counted") || strings.Contains(flat, "Work is counted on the nodes") {
				t.Errorf("%v: a scatter caveat with 8 slots over 4 nodes", c.args)
			}
			continue
		}
		if !strings.Contains(flat, c.model) || !strings.Contains(flat, c.want) {
			t.Errorf("%v: want the scatter model %q stated with %q", c.args, c.model, c.want)
		}
	}
}

// TestRedisNodeWork: the social spec, hash(user_id), under redis on its
// 16384 slots over 4 masters and under citus on 64 shards over 4 nodes.
// Its rates: 1,000 posts/s written and 4,000 user reads/s, one slot each,
// and 200/s "latest posts from everyone", which names no key. Redis
// Cluster sends the keyless read once to each of the 4 masters, so the
// nodes do 1,000 + 4,000 + 4 x 200 = 5,800 units/s whatever the slot
// count (per slot it would be 1,000 + 4,000 + 16384 x 200), and the
// read's own node work is 800/s; work_per_s is that 5,800 (work is
// counted on the nodes). Under citus (one task per shard) the nodes do
// the per-slot 1,000 + 4,000 + 64 x 200 = 17,800, the read 12,800.
func TestRedisNodeWork(t *testing.T) {
	spec := writeFile(t, "social.yaml", func() string { _, s, _ := runCmd(t, "", "demo", "social", "--print"); return s }())
	for _, c := range []struct {
		engine, slots, per string
		nodes, keyless     float64
		keylessNodeWork    bool
	}{
		{"redis", "16384", "node", 5800, 800, true},
		{"citus", "64", "slot", 17800, 12800, false},
	} {
		r := runJSON(t, "score", "--workload", spec, "-k", "hash(user_id)", "--slots", c.slots, "--nodes", "4", "--engine", c.engine)
		cand := r.Candidates[0]
		// work_per_s is the nodes' where the engine counts work on them
		// (redis: 5,800), the slots' otherwise (citus: 17,800).
		if math.Abs(cand.WorkPerS-c.nodes) > 1e-6 {
			t.Errorf("%s: work_per_s %v; want %v", c.engine, cand.WorkPerS, c.nodes)
		}
		sum := 0.0
		for _, x := range cand.Nodes.NodeWork {
			sum += x
		}
		if math.Abs(sum-c.nodes) > 1e-6 || cand.Nodes.ScatterPer != c.per {
			t.Errorf("%s: node work %v (sum %v), scatter per %q; want sum %v per %s", c.engine, cand.Nodes.NodeWork, sum, cand.Nodes.ScatterPer, c.nodes, c.per)
		}
		for _, op := range cand.Operations {
			if op.Name != "latest posts from everyone" {
				continue
			}
			if got := op.NodeWorkPerS != nil; got != c.keylessNodeWork {
				t.Errorf("%s: node_work_per_s set %v; want %v", c.engine, got, c.keylessNodeWork)
			} else if got && math.Abs(*op.NodeWorkPerS-c.keyless) > 1e-6 {
				t.Errorf("%s: latest posts' node work %v; want %v", c.engine, *op.NodeWorkPerS, c.keyless)
			}
		}
	}
}

// TestAdviseRedisExtraWork: the social spec, hash(user_id), under redis
// on its 16384 slots over 4 masters. "latest posts from everyone"
// (200/s) names no key: Redis Cluster sends it once to each of the 4
// masters, so its work on the nodes is 4 x 200 = 800/s and the extra work
// beyond one node a request 800 - 200 = 600/s, not 16384 x 200 - 200 as
// per slot. Under citus on 64 shards over 4 nodes (one task per shard) it
// is the per-slot 64 x 200 - 200 = 12,600.
func TestAdviseRedisExtraWork(t *testing.T) {
	spec := writeFile(t, "social.yaml", func() string { _, s, _ := runCmd(t, "", "demo", "social", "--print"); return s }())
	for engine, want := range map[string]float64{"redis": 600, "citus": 12600} {
		slots := map[string]string{"redis": "16384", "citus": "64"}[engine]
		code, out, errs := runCmd(t, "", "advise", "--workload", spec, "-k", "hash(user_id)", "--slots", slots, "--nodes", "4", "--engine", engine, "--bootstrap", "0", "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", engine, code, errs)
		}
		var adv struct {
			Candidates []struct {
				Key       string `json:"key"`
				Expensive []struct {
					Name      string  `json:"name"`
					ExtraWork float64 `json:"extra_work_per_s"`
				} `json:"expensive"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(out), &adv); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, c := range adv.Candidates {
			if c.Key != "hash(user_id)" {
				continue
			}
			for _, op := range c.Expensive {
				if op.Name == "latest posts from everyone" {
					found = true
					if math.Abs(op.ExtraWork-want) > 1e-6 {
						t.Errorf("%s: extra work %v; want %v", engine, op.ExtraWork, want)
					}
				}
			}
		}
		if !found {
			t.Errorf("%s: no expensive 'latest posts from everyone' under hash(user_id)", engine)
		}
	}
}
