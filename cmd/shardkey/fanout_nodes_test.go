package main

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"
)

// TestRedisFanoutNodes: Redis Cluster's 16384 slots over 3 masters
// (--slots 16384 --nodes 3), a log read as a stream: a read naming no key
// (WHERE status = ...) goes once to each master, so it touches 3 nodes;
// a read of one key touches 1. Fan-out counts nodes (fanout_per "node"):
// mean (3 + 1) / 2 = 2 at equal rates, p99 3; the text table says so.
// Under citus with the same slots the scatter asks its 16384 shards.
func TestRedisFanoutNodes(t *testing.T) {
	log := writeFile(t, "scan.log", "2024-01-01 10:00:00.000 UTC [100] LOG:  statement: SELECT * FROM orders WHERE customer_id = 5\n"+
		"2024-01-01 10:00:00.001 UTC [100] LOG:  statement: SELECT * FROM orders WHERE status = 'open'\n")
	score := func(engine string) (c struct {
		FanoutMean float64 `json:"fanout_mean"`
		FanoutP99  float64 `json:"fanout_p99"`
		FanoutPer  string  `json:"fanout_per"`
		Operations []struct {
			Name       string  `json:"name"`
			FanoutMean float64 `json:"fanout_mean"`
		} `json:"operations"`
	}) {
		t.Helper()
		code, out, errs := runCmd(t, "", "score", "--log", log, "-k", "hash(customer_id)", "--engine", engine, "--slots", "16384", "--nodes", "3", "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", engine, code, errs)
		}
		var r struct {
			Candidates []json.RawMessage `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Candidates) != 1 {
			t.Fatalf("%s: %v %s", engine, err, out)
		}
		json.Unmarshal(r.Candidates[0], &c)
		return c
	}
	c := score("redis")
	if c.FanoutPer != "node" || c.FanoutMean != 2 || c.FanoutP99 != 3 || len(c.Operations) != 2 || c.Operations[0].FanoutMean != 1 || c.Operations[1].FanoutMean != 3 {
		t.Errorf("redis: %+v; want fan-out per node, mean 2, p99 3, operations 1 and 3", c)
	}
	c = score("citus")
	if c.FanoutPer != "" || len(c.Operations) != 2 || c.Operations[1].FanoutMean != 16384 {
		t.Errorf("citus: %+v; want fan-out in shards, the scatter 16384", c)
	}
	_, out, _ := runCmd(t, "", "score", "--log", log, "-k", "hash(customer_id)", "--engine", "redis", "--slots", "16384", "--nodes", "3")
	if !strings.Contains(out, "fan-out (nodes)") || !strings.Contains(out, "fan-out mean (nodes)") {
		t.Errorf("text does not say fan-out counts nodes:\n%s", out)
	}
}

// TestWatchRedisFanoutNodes: watch counts fan-out as score does under
// Redis Cluster's 16384 slots over 3 masters. A log of two 10 s windows,
// worked by hand: the first has a read naming no key (WHERE status =
// ...: each of the 3 masters) and three reads of one customer each (1
// node each), so fan-out mean (3 + 1 + 1 + 1) / 4 = 1.5 nodes and p99 3
// (4 instances: the smallest fan-out reaching 99% of them); the second
// two reads of one customer: mean 1, p99 1. JSON says fanout_per "node",
// the table's head "fan-out (nodes)". Under generic on the same slots the
// scan asks its 16384 slots: mean (16384 + 3) / 4, p99 16384, head
// "fan-out".
func TestWatchRedisFanoutNodes(t *testing.T) {
	log := writeFile(t, "scan.log", "2024-01-01 10:00:00.000 UTC [100] LOG:  statement: SELECT * FROM orders WHERE status = 'open'\n"+
		"2024-01-01 10:00:01.000 UTC [100] LOG:  statement: SELECT * FROM orders WHERE customer_id = 1\n"+
		"2024-01-01 10:00:02.000 UTC [100] LOG:  statement: SELECT * FROM orders WHERE customer_id = 2\n"+
		"2024-01-01 10:00:03.000 UTC [100] LOG:  statement: SELECT * FROM orders WHERE customer_id = 3\n"+
		"2024-01-01 10:00:11.000 UTC [100] LOG:  statement: SELECT * FROM orders WHERE customer_id = 4\n"+
		"2024-01-01 10:00:12.000 UTC [100] LOG:  statement: SELECT * FROM orders WHERE customer_id = 5\n")
	type window struct {
		Designs []struct {
			FanoutMean float64 `json:"fanout_mean"`
			FanoutP99  float64 `json:"fanout_p99"`
			FanoutPer  string  `json:"fanout_per"`
			Shapes     []struct {
				Name       string  `json:"name"`
				FanoutMean float64 `json:"fanout_mean"`
				FanoutP99  float64 `json:"fanout_p99"`
			} `json:"shapes"`
		} `json:"designs"`
	}
	watch := func(engine, format string) (string, []window) {
		t.Helper()
		code, out, errs := runCmd(t, "", "watch", "--log", log, "--window", "10s", "-k", "hash(customer_id)", "--engine", engine, "--slots", "16384", "--nodes", "3", "--format", format)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", engine, code, errs)
		}
		if format != "json" {
			return out, nil
		}
		var ws []window
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var w window
			if err := json.Unmarshal([]byte(l), &w); err != nil || len(w.Designs) != 1 {
				t.Fatalf("%s: %v %s", engine, err, l)
			}
			ws = append(ws, w)
		}
		return out, ws
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	_, ws := watch("redis", "json")
	if len(ws) != 2 {
		t.Fatalf("redis: %d windows; want 2", len(ws))
	}
	d := ws[0].Designs[0]
	if d.FanoutPer != "node" || !near(d.FanoutMean, 1.5) || d.FanoutP99 != 3 {
		t.Errorf("redis window 1: fan-out %v p99 %v per %q; want 1.5, 3 per node", d.FanoutMean, d.FanoutP99, d.FanoutPer)
	}
	for _, sh := range d.Shapes {
		want := 1.0
		if strings.Contains(sh.Name, "status") {
			want = 3
		}
		if !near(sh.FanoutMean, want) || sh.FanoutP99 != want {
			t.Errorf("redis window 1, %s: fan-out %v p99 %v; want %v nodes", sh.Name, sh.FanoutMean, sh.FanoutP99, want)
		}
	}
	if d := ws[1].Designs[0]; d.FanoutPer != "node" || d.FanoutMean != 1 || d.FanoutP99 != 1 {
		t.Errorf("redis window 2: fan-out %v p99 %v per %q; want 1, 1 per node", d.FanoutMean, d.FanoutP99, d.FanoutPer)
	}
	out, _ := watch("redis", "table")
	// Work per node: three one-key reads at 0.1/s each (0.3) and the scan
	// on each of 3 masters (0.3): 0.60/s. The keys' slots (CLUSTER
	// KEYSLOT 1, 2, 3 = 9842, 5649, 1584) put reads 1 and 2 on node 1
	// (5461-10922) and 3 on node 0: node work 0.2, 0.3, 0.1 with the
	// scan's 0.1 each, max/mean 0.3/0.2 = 1.50.
	if !strings.Contains(out, "max/mean  fan-out (nodes)  p99  scatter") || !regexp.MustCompile(`(?m)^  hash\(customer_id\) +0\.40 +0\.60 +1\.50 +1\.50 +3 +25%`).MatchString(out) {
		t.Errorf("redis table: no fan-out (nodes) 1.50, p99 3 in window 1:\n%.1500s", out)
	}
	_, ws = watch("generic", "json")
	if d := ws[0].Designs[0]; d.FanoutPer != "" || !near(d.FanoutMean, (16384+3)/4.0) || d.FanoutP99 != 16384 {
		t.Errorf("generic window 1: fan-out %v p99 %v per %q; want %v, 16384 per shard", d.FanoutMean, d.FanoutP99, d.FanoutPer, (16384+3)/4.0)
	}
	if out, _ := watch("generic", "table"); strings.Contains(out, "(nodes)") || !strings.Contains(out, "max/mean  fan-out  p99  scatter") {
		t.Errorf("generic table: fan-out head should not say nodes:\n%.1500s", out)
	}
}
