package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shardkey/shardkey/internal/numfmt"
)

// TestCassandraBucketOverCapacity: the workspace whales bucketed under
// Cassandra, each with its own count, checked against the design the
// advice prints as `score -k` scores it, not against the advice's own
// figures. The advice's "before -> after nodes over capacity" must be the
// counts score gives hash(workspace_id) and the printed design. Bucketing
// lightens the busiest node (8,520/s on one node holding workspace 1) but
// on 64 nodes that do 686/s on average of the 800 they can, the whales'
// buckets, placed by their own tokens, push more nodes over than the 9
// the whales held: the advice must say so in plain words, in the
// headline and in the fix, with the nodes still over, busiest first
// (score's busiest node and its work).
// One count for every whale (the design the advice printed before,
// salt(hash(workspace_id), 12, top=14, ...)) leaves at least as many
// nodes over, as score places it: its small whales' whole-value reads
// query 12 buckets each.
func TestCassandraBucketOverCapacity(t *testing.T) {
	code, out, errs := runCmd(t, "", "advise", "workspace", "--engine", "cassandra", "--format", "json", "--bootstrap", "0", "--sweep", "")
	if code != 0 {
		t.Fatalf("advise: exit %d: %s", code, errs)
	}
	var adv struct {
		Summary    []string `json:"summary"`
		Candidates []struct {
			Key   string `json:"key"`
			Fixes []struct {
				Kind, Key, Text string
			} `json:"fixes"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatal(err)
	}
	if len(adv.Candidates) == 0 || adv.Candidates[0].Key != "hash(workspace_id)" {
		t.Fatalf("rank 1 is not hash(workspace_id): %+v", adv.Candidates)
	}
	var key, text string
	for _, f := range adv.Candidates[0].Fixes {
		if f.Kind == "bucket" {
			key, text = f.Key, f.Text
		}
	}
	if key == "" {
		t.Fatalf("no bucket fix proposed: %+v", adv.Candidates[0].Fixes)
	}
	const single = "salt(hash(workspace_id), 12, top=14, by=page_id); members:salt(hash(workspace_id), 12, top=14, by=user_id)"
	code, out, errs = runCmd(t, "", "score", "workspace", "--engine", "cassandra", "--format", "json", "-k", "hash(workspace_id)", "-k", key, "-k", single)
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, errs)
	}
	var sc struct {
		Candidates []struct {
			Key          string    `json:"key"`
			ShardWork    []float64 `json:"shard_work"`
			MaxShardWork float64   `json:"max_shard_work"`
			OverCapacity []int     `json:"over_capacity"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &sc); err != nil {
		t.Fatal(err)
	}
	byKey := map[string]int{}
	for i, c := range sc.Candidates {
		byKey[c.Key] = i
	}
	unfixed, fixed, one := sc.Candidates[byKey["hash(workspace_id)"]], sc.Candidates[byKey[key]], sc.Candidates[byKey[single]]
	before, after := len(unfixed.OverCapacity), len(fixed.OverCapacity)
	if want := fmt.Sprintf("%d -> %d nodes over capacity", before, after); !strings.Contains(text, want) {
		t.Errorf("the fix does not state score's counts %q:\n%s", want, text)
	}
	if fixed.MaxShardWork >= unfixed.MaxShardWork {
		t.Errorf("busiest node %g/s bucketed, %g/s before: not lighter", fixed.MaxShardWork, unfixed.MaxShardWork)
	}
	if after > before {
		if want := fmt.Sprintf("Its fixes raise the shards over capacity from %d to %d", before, after); !strings.Contains(strings.Join(adv.Summary, " "), want) {
			t.Errorf("the headline does not say the fixes leave more nodes over (%q):\n%s", want, strings.Join(adv.Summary, "\n"))
		}
		if want := fmt.Sprintf("leaves more nodes over capacity (%d, not %d)", after, before); !strings.Contains(text, want) {
			t.Errorf("more nodes over (%d, not %d) without saying so (%q):\n%s", after, before, want, text)
		}
		busiest := 0
		for sh, x := range fixed.ShardWork {
			if x > fixed.ShardWork[busiest] {
				busiest = sh
			}
		}
		if want := fmt.Sprintf("Still over: node %d %s/s", busiest, numfmt.Round(fixed.MaxShardWork)); !strings.Contains(text, want) {
			t.Errorf("the nodes still over are not named, busiest first (%q):\n%s", want, text)
		}
	}
	if len(one.OverCapacity) < after {
		t.Errorf("one count for every whale leaves %d nodes over, per-whale counts %d: per-whale should not be worse", len(one.OverCapacity), after)
	}
}
