package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sim"
)

// TestScore_Ranked: the busiest shard decides, then total work, then the
// cross-shard share; exact ties keep the order given; the document is not
// reordered.
func TestScore_Ranked(t *testing.T) {
	a := &sim.Candidate{Key: "a", MaxShardWork: 10, WorkPerS: 50}
	b := &sim.Candidate{Key: "b", MaxShardWork: 5, WorkPerS: 80}
	c := &sim.Candidate{Key: "c", MaxShardWork: 5, WorkPerS: 40, CrossShardTxnFraction: 0.5}
	d := &sim.Candidate{Key: "d", MaxShardWork: 5, WorkPerS: 40, CrossShardTxnFraction: 0.1}
	e := &sim.Candidate{Key: "e", MaxShardWork: 5, WorkPerS: 40 * (1 + 1e-12), CrossShardTxnFraction: 0.1} // equal to d within rounding
	r := &Score{Candidates: []*sim.Candidate{a, b, c, d, e}}
	var got string
	for _, x := range r.Ranked() {
		got += x.Key
	}
	if got != "decba" {
		t.Errorf("ranked %s; want decba", got)
	}
	if r.Candidates[0] != a {
		t.Errorf("Ranked reordered the document")
	}
}

// TestNewScore_Capacity: a candidate scored without capacity shows the
// shards over the workload's capacity; the over-capacity list is the
// shards strictly above it.
func TestNewScore_Capacity(t *testing.T) {
	c := &sim.Candidate{Key: "k", ShardWork: []float64{100, 250, 200, 201}}
	w := &shardkey.Workload{Name: "w", Shards: 4, Capacity: 200}
	r := NewScore(w, "generic", []*sim.Candidate{c})
	got := r.Candidates[0].OverCapacity
	if len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Errorf("over capacity %v; want [1 3]", got)
	}
	if c.OverCapacity != nil {
		t.Errorf("the scored candidate was changed")
	}
	if r.Version == "" || r.Capacity != 200 || r.Shards != 4 {
		t.Errorf("document %+v", r)
	}
}

// TestKeyLineDatabaseNoSample: a key whose table had no row sampled (a
// Citus coordinator's shell) but whose figures were computed inside the
// database (on the workers) is reported with the database's figures and
// says the rest is unknown, instead of "no row sample"; estimates from
// the database's own sample read "about".
func TestKeyLineDatabaseNoSample(t *testing.T) {
	d := &sim.DatabaseStats{Method: "whole table, inside the Citus workers 127.0.0.1:5433 (2 shard tables)", Rows: 1000,
		Figures: []string{"cardinality", "top_values", "null_share"}, FromSample: []string{"entropy", "shard_load", "work"}}
	tk := sim.TableKey{KeyStats: sim.KeyStats{Table: "orders", Columns: []string{"user_id"}, Cardinality: 250, Database: d}}
	var b strings.Builder
	keyLine(&b, &sim.Candidate{Tables: []sim.TableKey{tk}})
	for _, want := range []string{
		"key user_id on orders: 250 distinct values, entropy unknown (no row sampled)",
		"orders: computed inside the database (whole table, inside the Citus workers 127.0.0.1:5433 (2 shard tables), 1,000 rows)",
		"; unknown (no row sampled): entropy, shard_load, work",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("%q does not say %q", b.String(), want)
		}
	}
	d.Sample = "100 rows read from 10% of the blocks"
	b.Reset()
	keyLine(&b, &sim.Candidate{Tables: []sim.TableKey{tk}})
	for _, want := range []string{"on orders: about 250 distinct values", "estimated inside the database from its own sample (", "100 rows read from 10% of the blocks"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("%q does not say %q", b.String(), want)
		}
	}
}

// TestKeyLineTrafficEstimated: a traffic-based key past the values
// counted one by one reads "about" before its cardinality and its
// entropy, each as its own flag says (KeyStats.Estimated,
// EntropyEstimated); under the cap neither does; JSON carries
// entropy_estimated only when it is true.
func TestKeyLineTrafficEstimated(t *testing.T) {
	ks := sim.KeyStats{Table: "t", Columns: []string{"k"}, Basis: "traffic", Cardinality: 19109, Entropy: 14.2219, Estimated: true, EntropyEstimated: true, MonotonicityUnknown: true}
	line := func(ks sim.KeyStats) string {
		var b strings.Builder
		keyLine(&b, &sim.Candidate{Shards: 4, Tables: []sim.TableKey{{KeyStats: ks}}})
		return b.String()
	}
	if got, want := line(ks), "about 19,109 distinct values in the statements, entropy about 14.2 bits,"; !strings.Contains(got, want) {
		t.Errorf("%q does not say %q", got, want)
	}
	ks.Estimated, ks.EntropyEstimated, ks.Cardinality, ks.Entropy = false, false, 50, 5.5
	if got, want := line(ks), ": 50 distinct values in the statements, entropy 5.5 bits,"; !strings.Contains(got, want) {
		t.Errorf("%q does not say %q", got, want)
	}
	for _, est := range []bool{false, true} {
		ks.EntropyEstimated = est
		b, err := json.Marshal(sim.TableKey{KeyStats: ks})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), `"entropy_estimated":true`); got != est {
			t.Errorf("estimated %v: JSON %s", est, b)
		}
	}
}

// TestKeyLineTrafficYardstick: the equally-busy-values figure is the
// balls-into-bins expectation of hashing (sim.ExpectedMaxLoadRatio); for
// a range key it is named a yardstick, not what the key does, and one
// value is one value (it read "1 equally busy values hashed to 8
// shards give" for a range key over one warehouse).
func TestKeyLineTrafficYardstick(t *testing.T) {
	ks := sim.KeyStats{Table: "t", Columns: []string{"w"}, Basis: "traffic", Cardinality: 1, Entropy: 0, MonotonicityUnknown: true}
	line := func(key string, ks sim.KeyStats) string {
		var b strings.Builder
		// 1 value on 8 shards: one shard has all, 8x the mean (k = 1).
		keyLine(&b, &sim.Candidate{Shards: 8, Tables: []sim.TableKey{{KeyStats: ks, Key: key, ExpectedMaxLoadRatio: 8}}})
		return b.String()
	}
	for _, c := range []struct{ key, want string }{
		{"hash(w)", "; 1 equally busy value hashed to 8 shards gives a busiest shard 8.00x the mean\n"},
		{"range(w)", "; as a yardstick, 1 equally busy value hashed to 8 shards would give a busiest shard 8.00x the mean (this key's range boundaries, not a hash, place them)\n"},
	} {
		if got := line(c.key, ks); !strings.HasSuffix(got, c.want) {
			t.Errorf("%s: %q does not end %q", c.key, got, c.want)
		}
	}
	ks.Cardinality = 10
	if got, want := line("range(w)", ks), "; as a yardstick, 10 equally busy values hashed to 8 shards would give a busiest shard"; !strings.Contains(got, want) {
		t.Errorf("%q does not say %q", got, want)
	}
}
