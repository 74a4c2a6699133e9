package advisor_test

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
)

// TestSplitTermsPerEngine: the workspace scenario's largest workspaces
// each exceed a shard alone (TestSplitWhale), so the advice splits them
// by a second key level. The split's sentence names the mechanism of the
// engine in use, in that system's terms, and not another system's:
// under MongoDB a compound shard key (refineCollectionShardKey on a
// sharded collection), zones (sh.addShardToZone, sh.updateZoneKeyRange)
// and the jumbo chunk a single-value chunk becomes; under Vitess a
// multicol vindex; under the generic engine the options across systems,
// each named with its system. The isolation beside it is MongoDB's zones
// and Vitess's resharded keyspace-id ranges, not "a directory override".
func TestSplitTermsPerEngine(t *testing.T) {
	s, err := scenario.Builtin("workspace")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		engine     string
		split, iso []string
		not        []string
	}{
		{"mongodb", []string{"compound shard key", "refineCollectionShardKey", "sh.addShardToZone", "sh.updateZoneKeyRange", "jumbo"}, []string{"MongoDB zones", "sh.updateZoneKeyRange", "convertShardKeyToHashed"}, []string{"Citus", "Vitess", "directory override"}},
		{"vitess", []string{"multicol vindex over (workspace_id, page_id)", "Reshard"}, []string{"Reshard workflow", "keyspace id"}, []string{"Citus", "MongoDB", "directory override"}},
		{"generic", []string{"in Vitess a multicol vindex", "in MongoDB a compound shard key", "Citus's tenant isolation stops at one shard"}, []string{"directory override"}, nil},
	} {
		w, err := scenario.Build(s, "")
		if err != nil {
			t.Fatal(err)
		}
		eng, err := partition.Lookup(c.engine)
		if err != nil {
			t.Fatal(err)
		}
		adv, err := advisor.Recommend(w, advisor.Options{Shards: w.Shards, Engine: eng, Keys: []string{"hash(workspace_id)"}})
		if err != nil {
			t.Fatal(err)
		}
		var split, iso string
		for _, f := range adv.Candidates[0].Fixes {
			switch f.Kind {
			case "split":
				split = f.Text
			case "isolate":
				iso = f.Text
			}
		}
		if split == "" || iso == "" {
			t.Fatalf("%s: split %q, isolate %q; want both", c.engine, split, iso)
		}
		for _, s := range c.split {
			if !strings.Contains(split, s) {
				t.Errorf("%s: split lacks %q:\n%s", c.engine, s, split)
			}
		}
		for _, s := range c.iso {
			if !strings.Contains(iso, s) {
				t.Errorf("%s: isolation lacks %q:\n%s", c.engine, s, iso)
			}
		}
		for _, s := range c.not {
			if strings.Contains(split, s) || strings.Contains(iso, s) {
				t.Errorf("%s: split or isolation names %q, another system's term:\n%s\n%s", c.engine, s, iso, split)
			}
		}
	}
}

// TestMonotonicTermsPerEngine: range(created_at) on the social scenario
// is monotonic (seed 001), and its bucket-prefix fix says what a bucket
// prefix is in the engine's system: CockroachDB's hash-sharded index,
// MongoDB's hashed shard key; the generic engine names none.
func TestMonotonicTermsPerEngine(t *testing.T) {
	s, err := scenario.Builtin("social")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ engine, want string }{
		{"cockroachdb", "PRIMARY KEY (created_at) USING HASH WITH (bucket_count = "},
		{"mongodb", `a hashed shard key {created_at: "hashed"}`},
		{"generic", ""},
	} {
		w, err := scenario.Build(s, "")
		if err != nil {
			t.Fatal(err)
		}
		eng, err := partition.Lookup(c.engine)
		if err != nil {
			t.Fatal(err)
		}
		adv, err := advisor.Recommend(w, advisor.Options{Shards: w.Shards, Engine: eng, Keys: []string{"range(created_at)"}})
		if err != nil {
			t.Fatal(err)
		}
		text := ""
		for _, as := range adv.Candidates {
			for _, f := range as.Fixes {
				if f.Kind == "bucket-prefix" {
					text = f.Text
				}
			}
		}
		if text == "" {
			t.Fatalf("%s: no bucket-prefix fix", c.engine)
		}
		if c.want != "" && !strings.Contains(text, c.want) || c.want == "" && (strings.Contains(text, "CockroachDB") || strings.Contains(text, "MongoDB")) {
			t.Errorf("%s: bucket-prefix fix %q; want %q", c.engine, text, c.want)
		}
	}
}
