package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAdviseHashOnlyEngine: Redis Cluster places every key by its hash
// slot (CRC16 mod 16384, the cluster specification), Kafka a keyed record
// by murmur2 mod the partition count: neither can run a range key, so
// advise never recommends one and rejects every range candidate, saying
// why, with or without slots over nodes.
func TestAdviseHashOnlyEngine(t *testing.T) {
	for _, args := range [][]string{
		{"social", "--engine", "redis"},
		{"social", "--engine", "redis", "--slots", "64", "--nodes", "4"},
		{"social", "--engine", "kafka"},
	} {
		code, out, errs := runCmd(t, "", append([]string{"advise", "--format", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("advise %v: exit %d: %s", args, code, errs)
		}
		var adv struct {
			Recommended string `json:"recommended"`
			Candidates  []struct {
				Key     string `json:"key"`
				Verdict string `json:"verdict"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(out), &adv); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(adv.Recommended, "range(") {
			t.Errorf("advise %v recommends %s", args, adv.Recommended)
		}
		ranges := 0
		for _, c := range adv.Candidates {
			if strings.Contains(c.Key, "range(") {
				ranges++
				if !strings.HasPrefix(c.Verdict, "rejected") || !strings.Contains(c.Verdict, "not available") {
					t.Errorf("advise %v: %s: verdict %q; want rejected, range partitioning not available", args, c.Key, c.Verdict)
				}
			}
		}
		if ranges == 0 {
			t.Errorf("advise %v: no range candidate to check in %s", args, out)
		}
	}
}
