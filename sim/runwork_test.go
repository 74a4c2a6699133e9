package sim

import (
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/scenario"
)

// TestRunWorkIsRunsWork: RunWork routes only the operation instances, so
// its per-shard and per-operation work must be Run's exactly (row samples
// add only load, transactions only cross-shard figures): on every
// built-in scenario, each of its candidate designs plus an isolation
// split, a lookup and a reference table, at shard counts including ones
// that are not powers of two.
func TestRunWorkIsRunsWork(t *testing.T) {
	extra := map[string][]string{
		"workspace": {"isolate(hash(workspace_id), top=14, split=page_id, over=[12, 5, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1]); members:isolate(hash(workspace_id), top=14, split=user_id, over=[12, 5, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1])", "hash(page_id); members:replicate"},
		"social":    {"hash(user_id); posts:hash(post_id), lookup(user_id, nonunique)"},
	}
	for _, name := range []string{"social", "orders", "chat", "workspace"} {
		sc, err := scenario.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		w, err := scenario.Build(sc, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range append(append([]string(nil), w.Candidates...), extra[name]...) {
			d, err := shardkey.ParseDesign(key)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{7, 64, 101} {
				s, err := Compile(w, d, Options{Shards: n})
				if err != nil {
					t.Logf("%s %s on %d: %v", name, key, n, err)
					continue
				}
				all, err := Run(w, s, 0)
				if err != nil {
					t.Fatal(err)
				}
				work, err := RunWork(w, s, 0)
				if err != nil {
					t.Fatal(err)
				}
				a, b := all.ShardWork(), work.ShardWork()
				for i := range a {
					if a[i] != b[i] {
						t.Errorf("%s %s on %d: shard %d work %v, RunWork %v", name, key, n, i, a[i], b[i])
						break
					}
				}
				for i := range all.Ops {
					if all.Ops[i].Work != work.Ops[i].Work || all.Ops[i].Requests != work.Ops[i].Requests {
						t.Errorf("%s %s on %d: operation %d work %v requests %v, RunWork %v %v", name, key, n, i, all.Ops[i].Work, all.Ops[i].Requests, work.Ops[i].Work, work.Ops[i].Requests)
					}
				}
			}
		}
	}
}
