package main

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestScore_SlotsOverNodes: with --slots 8 --nodes 3 (contiguous: slots
// 0-2, 3-5, 6-7) every node's work is the sum of its slots' work, and
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
	want := []float64{sw[0] + sw[1] + sw[2], sw[3] + sw[4] + sw[5], sw[6] + sw[7]}
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
