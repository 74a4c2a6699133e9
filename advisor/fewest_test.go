package advisor

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
)

// fakeCounts is a shardCounts over a design whose busiest shard on m
// shards does busiest(m) units/s against a capacity of 500/s, the
// counts scored recorded in tried.
func fakeCounts(n int, busiest func(m int) float64) (*shardCounts, *[]int) {
	var tried []int
	score := func(m int) (*sim.Candidate, error) {
		tried = append(tried, m)
		c := &sim.Candidate{Shards: m, MaxShardWork: busiest(m)}
		if c.MaxShardWork > 500 {
			c.OverCapacity = []int{0}
		}
		return c, nil
	}
	c, _ := score(n)
	tried = nil
	return newShardCounts(n, c, score, 0), &tried
}

// TestFewestShards: a design whose busiest shard on m shards does
// 400 + 11,100/m units/s (one hot value's 400/s plus an even share of
// the rest) against a capacity of 500/s fits from 11,100/m <= 100, m >=
// 111 (on 110 the busiest does 400 + 100.9 > 500): 111 shards, not the
// 128 a doubling from 32 finds. One key value's 600/s alone fits on no
// count: 0, after the doubling sees the busiest no longer fall.
func TestFewestShards(t *testing.T) {
	hot := func(m int) float64 { return 400 + 11100/float64(m) }
	sc, tried := fakeCounts(32, hot)
	if got, _ := sc.fewest(500, noneOver); got != 111 {
		t.Errorf("fewest shards %d (tried %v); want 111", got, *tried)
	}
	sc, tried = fakeCounts(32, func(int) float64 { return 600 })
	if got, _ := sc.fewest(500, noneOver); got != 0 {
		t.Errorf("one value over capacity: fewest shards %d (tried %v); want 0", got, *tried)
	}
	// Near the limit: the doubling stops at shardkey.MaxShards; 40,000 is
	// past maxScan counts from 1, so bisection narrows to it first.
	sc, _ = fakeCounts(1000, func(m int) float64 { return 500 * 40000 / float64(m) })
	got, ss := sc.fewest(500, noneOver)
	if got != 40000 || ss.From != 40000-maxScan || ss.To != 40000 {
		t.Errorf("fewest shards %d (searched %+v); want 40,000 (500 x 40,000 / m <= 500 from m = 40,000 <= %d), every count from %d re-scored", got, *ss, shardkey.MaxShards, 40000-maxScan)
	}
}

// TestFewestShardsNotMonotone: a busiest shard that is over the 500/s
// capacity on 4 and 6 shards and under it on 5 and 7 (two heavy values
// that share a shard only at some counts, as hash placement does). The
// fewest that fits is 5 whether the search starts from 4 or 6: a
// doubling from 4 (8, 16) and a bisection below the first fit passes
// over 5, and from 6 a search of counts above 6 never tries it.
func TestFewestShardsNotMonotone(t *testing.T) {
	busiest := func(m int) float64 {
		if m == 5 || m == 7 || m >= 10 {
			return 300
		}
		return 600
	}
	for _, n := range []int{4, 6} {
		sc, tried := fakeCounts(n, busiest)
		got, ss := sc.fewest(500, noneOver)
		if got != 5 || ss.From != 1 {
			t.Errorf("from %d shards: fewest %d (searched %+v, tried %v); want 5, every count from 1", n, got, *ss, *tried)
		}
		// The 8 counts above 5, 6 to 13: 6, 8 and 9 leave a shard over,
		// 7 and 10 to 13 fit: 5 of 8, said in the headline.
		if ss.Above != 8 || ss.AboveFit != 5 {
			t.Errorf("from %d shards: counts above checked %d, fitting %d; want 8, 5", n, ss.Above, ss.AboveFit)
		}
		if want := " (of the 8 counts above it, 5 also fit: hash placement varies with the count; check the count you choose with score --shards)"; aboveText(ss, "fit") != want {
			t.Errorf("aboveText %q; want %q", aboveText(ss, "fit"), want)
		}
	}
	// Every count from 10 up fits: the counts above 10 say nothing.
	sc, _ := fakeCounts(10, func(m int) float64 { return map[bool]float64{true: 300, false: 600}[m >= 10] })
	if got, ss := sc.fewest(500, noneOver); got != 10 || ss.Above != 8 || ss.AboveFit != 8 || aboveText(ss, "fit") != "" {
		t.Errorf("from 10 shards, every count from 10 fitting: fewest %d, above %d/%d, text %q; want 10, 8 of 8, no text", got, ss.AboveFit, ss.Above, aboveText(ss, "fit"))
	}
}

// TestFewestShardsVitessNumeric: the same on a real design. Vitess's
// numeric vindex makes an integer its own keyspace id, and n shards split
// the keyspace-id space at Vitess's key.GenerateShardRanges boundaries:
// for n <= 256, shard i starts at the first byte floor(i x 256 / n).
// Two values with first bytes 0x64 = 100 and 0x71 = 113 (the rest zero),
// each read 60 times a second against 100/s a shard, share a shard
// (120/s, over) unless a boundary b falls between them, 100 < b <= 113:
// 1 shard: none; 2: 128; 3: 85, 170; 4: 64, 128, 192: none; 5: 51, 102
// does; 6: 42, 85, 128: none; 7: 36, 73, 109 does; 8: 96, 128: none;
// 9: 85, 113 does. The requests (120/s over 100/s a shard) rule out only
// 1 shard. So the fewest that fits is 5, searched from 4 shards or from
// 6, and 4 does not fit. (The doubling and bisection this search
// replaced found 9 from 4, through 8, 16, 12, 10, 9, and 7 from 6,
// through 12, 9, 7.)
func TestFewestShardsVitessNumeric(t *testing.T) {
	a, b := int64(0x64)<<56, int64(0x71)<<56
	tb := &shardkey.Table{Name: "t", Rows: 2, Columns: []*shardkey.Column{{Name: "k", Type: shardkey.Int64, Ints: []int64{a, b}}}}
	eq := func(v int64) []shardkey.Cond {
		return []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(v)}}
	}
	read := &shardkey.Operation{Name: "read", Table: 0, Kind: shardkey.Read, Rate: 120,
		Instances: []shardkey.Instance{{Weight: 1, Conds: eq(a)}, {Weight: 1, Conds: eq(b)}}}
	w := &shardkey.Workload{Name: "two", Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{read}, Capacity: 100}
	eng, err := partition.Lookup("vitess-numeric")
	if err != nil {
		t.Fatal(err)
	}
	o := sim.Options{Engine: eng}
	score := rescorer(w, "hash(k)", o)
	for _, n := range []int{4, 6} {
		o.Shards = n
		c, err := sim.Score(w, "hash(k)", o)
		if err != nil {
			t.Fatal(err)
		}
		got, ss := newShardCounts(n, c, score, 2).fewest(100, noneOver)
		if got != 5 || ss.Least != 2 {
			t.Errorf("from %d shards: fewest %d (searched %+v); want 5, least 2", n, got, *ss)
		}
	}
	for m, want := range map[int]float64{4: 120, 5: 60, 6: 120, 7: 60} {
		c, err := score(m)
		if err != nil || c.MaxShardWork != want {
			t.Errorf("%d shards: busiest %v (%v); want %v/s", m, c.MaxShardWork, err, want)
		}
	}
}

// TestShardCountNote: only Elasticsearch constrains a new count, through
// _split's multiple of the index's shard count.
func TestShardCountNote(t *testing.T) {
	if n := shardCountNote("citus", 4, 6); n != "" {
		t.Errorf("citus: %q; want no constraint", n)
	}
	if n := shardCountNote("elasticsearch", 4, 6); !strings.Contains(n, "only to a multiple of 4") || !strings.Contains(n, "reindex") {
		t.Errorf("elasticsearch 4 -> 6: %q", n)
	}
	if n := shardCountNote("elasticsearch", 3, 6); !strings.Contains(n, "_split") {
		t.Errorf("elasticsearch 3 -> 6: %q", n)
	}
	// Fewer shards (the fewest that fit can be under the count in use):
	// _shrink, only to a factor (Shrink index API: 8 shards into 4, 2 or
	// 1).
	if n := shardCountNote("elasticsearch", 8, 4); !strings.Contains(n, "_shrink") || strings.Contains(n, "reindex") {
		t.Errorf("elasticsearch 8 -> 4: %q; want _shrink", n)
	}
	if n := shardCountNote("elasticsearch", 110, 101); !strings.Contains(n, "only to a factor of 110") || !strings.Contains(n, "reindex") {
		t.Errorf("elasticsearch 110 -> 101: %q; want a reindex", n)
	}
}

// TestNeededTextSaysRange: the headline claims "the fewest that do" only
// when every count from the requests' lower bound was re-scored; a
// bounded search names the counts it did not try, and a count under the
// shard count advised for is said to be fewer.
func TestNeededTextSaysRange(t *testing.T) {
	cp := &Capacity{Capacity: 500, ShardsNeeded: 400, NeededBusiest: 300,
		NeedSearch: &ShardSearch{Least: 100, RequestsPerS: 49800, From: 400 - maxScan, To: 400, Upto: 512}}
	got := neededText(cp, 256)
	if strings.Contains(got, "the fewest that do") || !strings.Contains(got, "from 100 (49,800 requests/s at 500 a shard") || !strings.Contains(got, "to 271 were not tried") {
		t.Errorf("bounded search: %q; want no claim of the fewest, and the counts 100 to 271 said not searched", got)
	}
	cp.NeedSearch.From = 100
	if got := neededText(cp, 256); !strings.Contains(got, "the fewest that do: every count from 100") || strings.Contains(got, "not searched") || strings.Contains(got, "to spare") {
		t.Errorf("full search, 40%% to spare: %q", got)
	}
	cp.NeededBusiest, cp.ShardsForMargin = 490, 420
	if got := neededText(cp, 512); !strings.Contains(got, "400 shards, fewer than these 512,") || !strings.Contains(got, "on 400 the busiest does 490/s, 2% to spare") || !strings.Contains(got, "10% to spare at 420 shards") {
		t.Errorf("thin fit under the count advised for: %q", got)
	}
}
