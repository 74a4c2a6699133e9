package advisor_test

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/scenario"
)

func advise(t *testing.T, name, variant string) *advisor.Advice {
	t.Helper()
	s, err := scenario.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, variant)
	if err != nil {
		t.Fatal(err)
	}
	adv, err := advisor.Recommend(w, advisor.Options{Shards: w.Shards})
	if err != nil {
		t.Fatal(err)
	}
	return adv
}

func hasFix(as *advisor.Assessment, kind, target string) bool {
	for _, f := range as.Fixes {
		if f.Kind == kind && strings.Contains(f.Target, target) {
			return true
		}
	}
	return false
}

// TestScenarios checks the advice against the seed documents' answers.
func TestScenarios(t *testing.T) {
	// Seed 001: hash(user_id); "latest posts from everyone" is better
	// served by a separate table or index than by asking every shard;
	// range(created_at) puts every write on one shard.
	adv := advise(t, "social", "")
	if adv.Recommended != "hash(user_id)" {
		t.Errorf("social: recommended %s; want hash(user_id)", adv.Recommended)
	}
	best := adv.Candidates[0]
	if !hasFix(best, "read-model", "latest posts") {
		t.Errorf("social: no read model for latest posts: %+v", best.Fixes)
	}
	for _, as := range adv.Candidates {
		if as.Key == "range(created_at)" && as.Viable {
			t.Error("social: range(created_at) should be rejected as monotonic")
		}
	}
	if len(adv.Durable) == 0 {
		t.Error("social: no answer to which choice can change later")
	}

	// Seed 001's celebrity: hot writes salted, hot reads cached.
	adv = advise(t, "social", "celebrity")
	if !strings.HasPrefix(adv.Recommended, "hash(user_id)") {
		t.Errorf("celebrity: recommended %s; want hash(user_id)", adv.Recommended)
	}
	best = adv.Candidates[0]
	if !hasFix(best, "isolate", "0") || !hasFix(best, "salt", "0") || !hasFix(best, "cache", "0") {
		t.Errorf("celebrity: want the celebrity (user 0) isolated, its writes salted and its reads cached: %+v", best.Fixes)
	}

	// Seed 000: customer id, the largest customers isolated, fetch by
	// order id made single-shard by shard-encoded ids, the nightly report
	// to a replica.
	adv = advise(t, "orders", "")
	if adv.Recommended != "hash(customer_id)" {
		t.Errorf("orders: recommended %s; want hash(customer_id)", adv.Recommended)
	}
	best = adv.Candidates[0]
	if !hasFix(best, "isolate", "") || !hasFix(best, "shard-encoded-id", "fetch an order by id") || !hasFix(best, "replica", "nightly report") {
		t.Errorf("orders: fixes %+v", best.Fixes)
	}

	// Seed 003: conversation_id, with a per-user inbox projection.
	adv = advise(t, "chat", "")
	if adv.Recommended != "hash(conversation_id)" {
		t.Errorf("chat: recommended %s; want hash(conversation_id)", adv.Recommended)
	}
	if !hasFix(adv.Candidates[0], "global-index", "inbox") {
		t.Errorf("chat: no per-user inbox projection: %+v", adv.Candidates[0].Fixes)
	}

	// Seed 002: workspace_id, with a routing table (directory) for the
	// largest workspaces.
	adv = advise(t, "workspace", "")
	if adv.Recommended != "hash(workspace_id)" {
		t.Errorf("workspace: recommended %s; want hash(workspace_id)", adv.Recommended)
	}
	if !hasFix(adv.Candidates[0], "isolate", "") {
		t.Errorf("workspace: no directory override for the largest workspaces: %+v", adv.Candidates[0].Fixes)
	}
	// Three candidates are explained (seed 002's interview question).
	if len(adv.Candidates) < 3 {
		t.Errorf("workspace: %d candidates; want at least 3", len(adv.Candidates))
	}
}
