package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRingGrowthNarrowEngines: adding a node to N on a consistent-hash
// ring of many virtual nodes moves about 1/(N+1) of the keys (the new
// node's share). Engines whose points span fewer than 64 bits (Kafka's
// and Citus's 32-bit hashes, Redis's 14-bit slots) fed their points raw
// into the 64-bit ring: every key on one node, 0% moved. With 4000
// distinct keys, 4 -> 5 nodes: 1/5 = 20%, within 6 points (the ring's
// 128 vnodes a node make the new node's share vary by a few points).
func TestRingGrowthNarrowEngines(t *testing.T) {
	dir := t.TempDir()
	var rows strings.Builder
	rows.WriteString("user_id\n")
	for i := 1; i <= 4000; i++ {
		fmt.Fprintf(&rows, "%d\n", i)
	}
	users := filepath.Join(dir, "users.csv")
	if err := os.WriteFile(users, []byte(rows.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, eng := range []string{"generic", "kafka", "redis", "citus", "vitess-numeric"} {
		r := runJSON(t, "score", "--rows", users, "-k", "hash(user_id)", "--shards", "4", "--engine", eng)
		c := candidate(t, r, "hash(user_id)")
		found := false
		for _, m := range c.Rebalance {
			if m.Placement == "ring (128 vnodes)" {
				found = true
				if !near(m.KeysMoved, 0.2, 0.06) {
					t.Errorf("%s: ring 4 -> 5 moves %.3f of keys, want about 1/5", eng, m.KeysMoved)
				}
			}
		}
		if !found {
			t.Errorf("%s: no ring move in %+v", eng, c.Rebalance)
		}
	}
	// Redis slots (always 16384) over nodes: the ring and ketama rows of
	// the growth table place the keys on nodes by themselves, so slot
	// count aside they move about 1/5 of keys from 4 to 5 nodes.
	r := runJSON(t, "score", "--rows", users, "-k", "hash(user_id)", "--slots", "16384", "--nodes", "4", "--engine", "redis")
	c := candidate(t, r, "hash(user_id)")
	if c.Nodes == nil {
		t.Fatal("no nodes report")
	}
	for _, g := range c.Nodes.Growth {
		if g.Placement == "ring (128 vnodes)" || g.Placement == "ketama" {
			if !near(g.KeysMoved, 0.2, 0.06) || g.BalanceAfter > 1.5 {
				t.Errorf("redis slots, %s 4 -> 5 nodes: %.3f of keys moved, max/mean %.2f after; want about 1/5 and balanced", g.Placement, g.KeysMoved, g.BalanceAfter)
			}
		}
	}
}
