package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestScoreBroadcastWrite: seed 001's social app with posts replicated on
// 8 shards. Each of the 1,000 posts/s is written to all 8 copies: 8,000
// units/s, a broadcast write (not scatter-gather), and, the workload
// declaring no transactions, each is an autocommit transaction that
// commits on all 8 shards: 1,000 of 1,000 transactions/s cross shards,
// 100%. The reads (4,000 + 200/s) ask one copy each. Under hash(user_id)
// each post goes to its user's one shard: 0% (it showed "-", no
// transactions, before).
func TestScoreBroadcastWrite(t *testing.T) {
	spec := filepath.Join("..", "..", "scenario", "builtin", "social.yaml")
	code, out, errs := runCmd(t, "", "score", "--workload", spec, "-k", "posts:replicate", "-k", "hash(user_id)", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Candidates []struct {
			Key          string
			Cross        float64 `json:"cross_shard_txn_fraction"`
			Transactions int64
			WorkPerS     float64 `json:"work_per_s"`
			Operations   []struct {
				Name       string
				Work       float64 `json:"work_per_s"`
				FanoutMean float64 `json:"fanout_mean"`
				Scatter    float64 `json:"scatter_fraction"`
				Broadcast  bool
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Candidates {
		w := c.Operations[0]
		switch c.Key {
		case "posts:replicate":
			if c.Cross != 1 || c.Transactions == 0 || w.Name != "write a post" || math.Abs(w.Work-8000) > 1e-6 || w.FanoutMean != 8 || w.Scatter != 0 || !w.Broadcast {
				t.Errorf("posts:replicate: cross %v of %d transactions; write a post: work %v, fan-out %v, scatter %v, broadcast %v; want 1 of >0, 8000, 8, 0, true",
					c.Cross, c.Transactions, w.Work, w.FanoutMean, w.Scatter, w.Broadcast)
			}
		case "hash(user_id)":
			if c.Cross != 0 || c.Transactions == 0 || w.Broadcast || w.FanoutMean != 1 {
				t.Errorf("hash(user_id): cross %v of %d transactions, broadcast %v, fan-out %v; want 0 of >0, false, 1", c.Cross, c.Transactions, w.Broadcast, w.FanoutMean)
			}
		}
	}
	// The table: the write's cell says what it is, and the cross-shard
	// column shows 100%.
	_, out, _ = runCmd(t, "", "score", "--workload", spec, "-k", "posts:replicate")
	if !strings.Contains(out, "write a post                1,000       8,000   8.00          8    broadcast write\n") ||
		!strings.Contains(out, "1     posts:replicate  1,525/s        1.00x   12,200/s  2.35     8    100%  ") {
		t.Errorf("score table:\n%s", out)
	}
}
