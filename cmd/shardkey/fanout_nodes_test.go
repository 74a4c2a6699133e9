package main

import (
	"encoding/json"
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
