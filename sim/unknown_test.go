package sim

import (
	"math"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestUnknownList: an IN list of n bind parameters without values (IN ($1,
// $2, $3)) asks, on average, the expected number of distinct shards that n
// keys drawn uniformly among S hit: S(1-(1-1/S)^n) (occupied boxes of n
// balls in S boxes). For S = 8, n = 3: 8(1-(7/8)^3) = 8*169/512 = 2.640625.
// Its single-shard share is P(all three on one shard) = 8/8^3 = 1/64, and
// each shard does 1-(7/8)^3 = 169/512 of a request's work. A list of unknown
// length (IN ::list) counts at its bound, every shard, yet is no scatter.
func TestUnknownList(t *testing.T) {
	w := workload(64, func(int) float64 { return 1 })
	w.Ops = []*shardkey.Operation{{Name: "in3", Table: 0, Kind: shardkey.Read, Rate: 1, Instances: []shardkey.Instance{{Weight: 1,
		Conds: []shardkey.Cond{{Col: 0, Op: shardkey.In, Unknown: 3, Param: true}}}}}}
	c, err := Score(w, "hash(id)", Options{Shards: 8})
	if err != nil {
		t.Fatal(err)
	}
	op := c.Operations[0]
	if !close(op.FanoutMean, 2.640625) {
		t.Errorf("fan-out %v; want 8(1-(7/8)^3) = 2.640625", op.FanoutMean)
	}
	if !close(op.SingleShardFraction, 1.0/64) {
		t.Errorf("single-shard share %v; want 1/64", op.SingleShardFraction)
	}
	if op.ScatterFraction != 0 {
		t.Errorf("scatter share %v; want 0 (an IN route, not a scatter)", op.ScatterFraction)
	}
	for i, x := range c.ShardWork {
		if !close(x, 169.0/512) {
			t.Errorf("shard %d work %v; want 169/512", i, x)
		}
	}

	// One known value (shard h) and two unknown: h always, every other
	// shard with probability 1-(7/8)^2 = 15/64: 1 + 7*15/64 = 169/64.
	w.Ops[0].Instances[0].Conds[0] = shardkey.Cond{Col: 0, Op: shardkey.In, List: []shardkey.Value{shardkey.IntValue(5)}, Unknown: 2}
	c, err = Score(w, "hash(id)", Options{Shards: 8})
	if err != nil {
		t.Fatal(err)
	}
	if op := c.Operations[0]; !close(op.FanoutMean, 169.0/64) || !close(op.SingleShardFraction, 1.0/64) {
		t.Errorf("IN (5, $1, $2): fan-out %v, single %v; want 169/64, 1/64", op.FanoutMean, op.SingleShardFraction)
	}
	home := -1
	for i, x := range c.ShardWork {
		if close(x, 1) {
			home = i
		} else if !close(x, 15.0/64) {
			t.Errorf("shard %d work %v; want 1 (5's shard) or 15/64", i, x)
		}
	}
	if home < 0 {
		t.Errorf("no shard does all the work of the known value 5: %v", c.ShardWork)
	}

	// Unknown length: every shard at most, no scatter.
	w.Ops[0].Instances[0].Conds[0] = shardkey.Cond{Col: 0, Op: shardkey.In, Unknown: -1}
	c, err = Score(w, "hash(id)", Options{Shards: 8})
	if err != nil {
		t.Fatal(err)
	}
	if op := c.Operations[0]; op.FanoutMean != 8 || op.ScatterFraction != 0 {
		t.Errorf("IN ::list: fan-out %v, scatter %v; want 8, 0", op.FanoutMean, op.ScatterFraction)
	}
}

// TestOccupancy checks the occupancy distribution against hand-counted
// cases: 2 values among 4 shards hit one shard with probability 1/4, two
// with 3/4; 3 among 3: one 3/27, two 18/27, three 6/27 (3! of 27); with
// one shard known and one value among 4: still one 1/4, two 3/4.
func TestOccupancy(t *testing.T) {
	for _, c := range []struct {
		S, f, n int
		want    []float64
	}{
		{4, 0, 2, []float64{0, 0.25, 0.75}},
		{3, 0, 3, []float64{0, 3.0 / 27, 18.0 / 27, 6.0 / 27}},
		{4, 1, 1, []float64{0, 0.25, 0.75}},
		{5, 0, 0, []float64{1}},
	} {
		got := occupancy(c.S, c.f, c.n)
		if len(got) != len(c.want) {
			t.Errorf("occupancy(%d, %d, %d) = %v; want %v", c.S, c.f, c.n, got, c.want)
			continue
		}
		for k := range got {
			if math.Abs(got[k]-c.want[k]) > 1e-12 {
				t.Errorf("occupancy(%d, %d, %d) = %v; want %v", c.S, c.f, c.n, got, c.want)
				break
			}
		}
	}
}

// TestScatterRangeAllShards: scatter_fraction is the share of requests sent
// to every shard. Under range(id, bounds=[16, 32, 48]) (four ranges of the
// ids 0..63), a range read id >= 0 spans all four ranges, so every shard is
// asked: a scatter-gather, though routed as a range; id >= 48 asks the
// last range alone, no scatter. At rates 1 and 3: 1/4 of the requests are
// sent to every shard.
func TestScatterRangeAllShards(t *testing.T) {
	w := workload(64, func(int) float64 { return 1 })
	from := func(lo int64) shardkey.Instance {
		return shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Range,
			Bounds: &shardkey.Bounds{Lo: shardkey.IntValue(lo), HasLo: true, LoIncl: true}}}}
	}
	w.Ops = []*shardkey.Operation{
		{Name: "all", Table: 0, Kind: shardkey.Read, Rate: 1, Instances: []shardkey.Instance{from(0)}},
		{Name: "last", Table: 0, Kind: shardkey.Read, Rate: 3, Instances: []shardkey.Instance{from(48)}},
	}
	c, err := Score(w, "range(id, bounds=[16, 32, 48])", Options{Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	if op := c.Operations[0]; op.FanoutMean != 4 || op.ScatterFraction != 1 {
		t.Errorf("id >= 0: fan-out %v, scatter %v; want 4, 1", op.FanoutMean, op.ScatterFraction)
	}
	if op := c.Operations[1]; op.FanoutMean != 1 || op.ScatterFraction != 0 {
		t.Errorf("id >= 48: fan-out %v, scatter %v; want 1, 0", op.FanoutMean, op.ScatterFraction)
	}
}
