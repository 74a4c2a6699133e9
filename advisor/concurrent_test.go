package advisor

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/loggen"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
	"github.com/shardkey/shardkey/sqllog"
)

func builtin(t *testing.T, name string) *shardkey.Workload {
	t.Helper()
	s, err := scenario.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// tpccLog reads a 2 MB TPC-C log (internal/loggen, PostgreSQL stderr,
// seed 1).
func tpccLog(t *testing.T) *shardkey.Workload {
	t.Helper()
	file := filepath.Join(t.TempDir(), "tpcc.log")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	_, err = loggen.Write(f, loggen.Options{Format: "stderr", Bytes: 2 << 20, Seed: 1})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	w := &shardkey.Workload{}
	if err := sqllog.ReadFile(context.Background(), w, file, sqllog.Options{}); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestBootstrapConcurrentIsSequential: the intervals of replicates scored
// several at a time are those of the replicates drawn and scored one
// after another from the same seed, as this test does itself (one buffer,
// each replicate scored before the next is drawn), bit for bit. Range
// keys recompute their bounds per replicate (from the log's statements,
// from social's rows); the log and social have transactions.
func TestBootstrapConcurrentIsSequential(t *testing.T) {
	tpcc := "customer:range(c_w_id); district:range(d_w_id); history:range(h_c_w_id); item:replicate; new_order:range(no_w_id); order_line:range(ol_w_id); orders:range(o_w_id); stock:range(s_w_id); warehouse:range(w_id)"
	for _, c := range []struct {
		scenario, key string
	}{
		{"log", tpcc},
		{"social", "range(user_id)"},
		{"workspace", "hash(page_id); members:replicate"},
		{"social", "hash(user_id)"},
	} {
		var w *shardkey.Workload
		if c.scenario == "log" {
			w = tpccLog(t)
		} else {
			w = builtin(t, c.scenario)
		}
		o := sim.Options{Shards: 8, Engine: partition.Generic{}}
		const b, seed = 13, 7
		// The replicates one after another.
		d, err := shardkey.ParseDesign(c.key)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, 0xb007))
		var wr, lr, mx, cx []float64
		var rep *shardkey.Workload
		for range b {
			rep = replicate(w, rng, rep)
			r, err := headline(rep, d, o)
			if err != nil {
				t.Fatal(err)
			}
			wr, lr, mx, cx = append(wr, r.WorkRatio), append(lr, r.UnitLoadRatio()), append(mx, r.MaxShardWork), append(cx, r.CrossShardTxnFraction)
		}
		est, err := headline(w, d, o)
		if err != nil {
			t.Fatal(err)
		}
		want := Confidence{Replicates: b,
			WorkRatio:     interval(wr, est.WorkRatio, 1, math.Inf(1)),
			LoadRatio:     interval(lr, est.UnitLoadRatio(), 1, math.Inf(1)),
			MaxShardWork:  interval(mx, est.MaxShardWork, 0, math.Inf(1)),
			CrossShardTxn: interval(cx, 0, 0, 1)}
		for _, par := range []int{1, 2, 5} {
			got, err := bootstrap(w, c.key, b, seed, o, par)
			if err != nil {
				t.Fatal(err)
			}
			if *got != want {
				t.Errorf("%s %s, %d at a time: %+v, want %+v", c.scenario, c.key, par, *got, want)
			}
		}
	}
}

// TestSweepConcurrentIsSequential: a sweep of several shard counts, scored
// concurrently, is the rows of sweeping each count alone, in the counts'
// order, with the counts the key cannot be placed on left out (the
// workspace's 3 given bounds need 4 shards at least).
func TestSweepConcurrentIsSequential(t *testing.T) {
	w := builtin(t, "workspace")
	key := "range(workspace_id, bounds=[100, 200, 300])"
	o := sim.Options{Shards: 8, Engine: partition.Generic{}}
	counts := []int{64, 2, 8, 3, 4, 16, 1, 32}
	var want []SweepRow
	for _, n := range counts {
		rows, err := Sweep(w, key, []int{n}, o)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, rows...)
	}
	if len(want) != 5 {
		t.Fatalf("%d counts placed alone, want 5 (64, 8, 4, 16, 32)", len(want))
	}
	got, err := Sweep(w, key, counts, o)
	if err != nil {
		t.Fatal(err)
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if string(gj) != string(wj) {
		t.Errorf("sweep %v:\n%s\nwant\n%s", counts, gj, wj)
	}
}

// TestRecommendConcurrentIsSequential: the advice (its JSON, warnings
// included) is the same whether its candidates, sweep and bootstrap
// replicates are scored one at a time (GOMAXPROCS 1) or several at once.
func TestRecommendConcurrentIsSequential(t *testing.T) {
	for _, c := range []struct {
		scenario string
		o        Options
	}{
		{"social", Options{Shards: 8, Sweep: []int{4, 8, 16}, Bootstrap: 10}},
		{"workspace", Options{Shards: 8, Sweep: []int{4, 8, 16}, Bootstrap: 10, Current: "hash(workspace_id)"}},
	} {
		w := builtin(t, c.scenario)
		c.o.Seed = w.Seed
		advise := func(procs int) string {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			adv, err := Recommend(w, c.o)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(adv)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		if one, four := advise(1), advise(4); one != four {
			t.Errorf("%s: the advice scored on 4 goroutines differs from one scored on 1", c.scenario)
		}
	}
}
