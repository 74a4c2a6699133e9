package advisor_test

import (
	"math"
	"testing"

	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
)

// redisTPCC advises on TPC-C (scenario/benchmarks/tpcc.yaml) under the
// redis engine for the design every Redis candidate has: item keyed by
// its own hash (Redis Cluster has no reference tables), on shards
// masters, or on 16384 slots over nodes masters when nodes > 0.
func redisTPCC(t *testing.T, shards, nodes, bootstrap int) *advisor.Advice {
	t.Helper()
	s, err := scenario.ReadFile("../scenario/benchmarks/tpcc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := partition.Lookup("redis")
	if err != nil {
		t.Fatal(err)
	}
	o := advisor.Options{Shards: shards, Engine: eng, Keys: []string{"hash(w_id); item:hash(i_id)"}, Bootstrap: bootstrap, Seed: 1}
	if nodes > 0 {
		m, err := sim.NewNodes(shards, nodes, "contiguous")
		if err != nil {
			t.Fatal(err)
		}
		o.Nodes = m
	}
	adv, err := advisor.Recommend(w, o)
	if err != nil {
		t.Fatal(err)
	}
	return adv
}

// TestRedisPlaceValuesWithTableKeys: under Redis every TPC-C design keys
// item by hash(i_id) (no reference tables), and the place-values fix was
// skipped for any design with a table key of its own, so the 8
// warehouses hashed two to a master on 4 of the 8 masters had no fix.
// item's own key does not place w_id, so placing w_id's 8 values one a
// master leaves it as it is. Hand-worked: every operation asks one
// master, so the work is the rates' sum, 3 x 450 + 3 x 45 + 3 x 43 + 4 +
// 40 + 4 = 1,662/s, a mean of 1,662 / 8 = 207.75/s; with one warehouse a
// master the busiest is one warehouse's share plus its slice of item
// reads, within 5% of the mean (the warehouses' traffic is uniform).
func TestRedisPlaceValuesWithTableKeys(t *testing.T) {
	as := redisTPCC(t, 8, 0, 0).Candidates[0]
	for _, f := range as.Fixes {
		if f.Kind != "place-values" {
			continue
		}
		if f.Key != "directory(w_id, w_id-placement.csv); item:hash(i_id)" {
			t.Errorf("place-values design %q; want directory(w_id, w_id-placement.csv); item:hash(i_id)", f.Key)
		}
		if got := f.After.MaxShardWork; got < 207.75-1e-9 || got > 207.75*1.05 {
			t.Errorf("busiest master after the fix %.2f/s; want between the mean 207.75/s and 5%% above", got)
		}
		if as.Criteria.AfterFixes != f.After.MaxShardWork {
			t.Errorf("after fixes %.2f/s; want the fix's %.2f/s", as.Criteria.AfterFixes, f.After.MaxShardWork)
		}
		return
	}
	t.Fatalf("%s under redis: no place-values fix (busiest %.0f/s, %.2fx): %+v", as.Key, as.Score.MaxShardWork, as.Score.WorkRatio, as.Fixes)
}

// TestRedisYardstickMainKey: the perfect-hash yardstick of hash(w_id);
// item:hash(i_id) is w_id's 8 values', the key the warehouse tables'
// requests name (1,212 of 1,662 requests/s; item's reads 450/s), not
// i_id's 100,000 values of item, the largest table (1.00x, 1.01x).
// Hand-worked balls into bins, E[max] of the multinomial:
//
//	8 values over 3 nodes: E[max] = sum over the 3^8 = 6,561 placements
//	of the fullest node's count / 6,561 = 8,912/2,187 = 4.0750, over the
//	mean 8/3: 1.5281x;
//	8 values over 8 masters: E[max] = 680,849/262,144 = 2.5972, over the
//	mean 1: 2.5972x.
func TestRedisYardstickMainKey(t *testing.T) {
	for _, c := range []struct {
		shards, nodes int
		want          float64
	}{
		{8, 0, 680849.0 / 262144},
		{16384, 3, 8912.0 / 2187 / (8.0 / 3)},
	} {
		as := redisTPCC(t, c.shards, c.nodes, 0).Candidates[0]
		if got := as.Score.ExpectedWorkRatio(); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("%d shards, %d nodes: perfect-hash yardstick %.4fx; want %.4fx (w_id's 8 values)", c.shards, c.nodes, got, c.want)
		}
		if as.Score.Cardinality != 8 {
			t.Errorf("%d shards, %d nodes: main key cardinality %d; want w_id's 8", c.shards, c.nodes, as.Score.Cardinality)
		}
	}
}

// TestRedisHowSurePerNode: with 16384 slots over 3 masters the advice's
// work figures are per node (work_ratio, busiest node), and so must be
// the bootstrap's load ratio ("How sure"): it was per slot, 599-620x
// (8 warehouses' rows on 8 of 16,384 slots, the item rows spread thin),
// beside a per-node work ratio of 1.37x. The per-node load ratio is the
// node report's (each node's slots' row weight summed, max over mean);
// the bootstrap interval must hold it within a few percent, and a load
// ratio over 3 nodes is at most 3.
func TestRedisHowSurePerNode(t *testing.T) {
	adv := redisTPCC(t, 16384, 3, 20)
	as := adv.Candidates[0]
	if as.Score.WorkPer != "node" || as.Score.Nodes == nil {
		t.Fatalf("work per %q, nodes %v; want per node", as.Score.WorkPer, as.Score.Nodes)
	}
	node := as.Score.Nodes.NodeLoadRatio
	lr := adv.Confidence.LoadRatio
	if lr.Hi > 3 || lr.Lo > node*1.05 || lr.Hi < node*0.95 {
		t.Errorf("bootstrap load ratio %.2f-%.2fx; want per node, about the node report's %.2fx (per slot: %.0fx)", lr.Lo, lr.Hi, node, as.Score.LoadRatio)
	}
}
