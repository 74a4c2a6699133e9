package advisor

import (
	"fmt"
	"math"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sim"
)

// ShardSearch says which shard counts a search for the fewest that fit
// (Capacity.ShardsNeeded, Capacity.ShardsForMargin) tried, so that its
// answer can be read for what it is: the fewest of those counts.
type ShardSearch struct {
	// Least is the fewest shards any placement could fit on: the
	// requests that ask a shard (requests/s, each at least one unit of
	// work on some shard) over the capacity the search held the busiest
	// shard to (units/s), rounded up; the busiest shard does at least the
	// mean. No count under it was tried: none can fit.
	// RequestsPerS is those requests (requests/s), the design's
	// requests_per_s after its fixes less no_shard_per_s.
	Least        int     `json:"least"`
	RequestsPerS float64 `json:"requests_per_s"`
	// From and To are the counts the search re-scored one by one: every
	// count from From up to its answer (to To, the fitting count the
	// doubling found, when it found one). From is Least unless the
	// counts between were more than the search's bound (maxScan,
	// scanBudget); the counts from Least to From-1 were then not tried.
	// Both 0 when no count was found to fit, except when the capacity
	// check's BucketsRederived: that search (bucketNodes) scans from
	// From = Least to Upto with no doubling first, and To is 0 when none
	// of them fits.
	From int `json:"from"`
	To   int `json:"to"`
	// Upto is the largest count scored: the last of the doubling from
	// the shard count advised for (n, 2n, 4n, ... up to 65,536).
	Upto int `json:"upto"`
	// Scored is how many counts were scored in all (each a re-score of
	// the design with its fixes), counts scored by an earlier search of
	// the same design not counted again.
	Scored int `json:"scored"`
	// Above is how many counts just above the answer were re-scored
	// (up to aboveCheck), and AboveFit how many of them also fit: hash
	// placement varies with the count, so an answer whose neighbours do
	// not fit holds by the luck of that one count (workspace's 10% to
	// spare at 116, where 117 and 118 leave shards over). 0 and 0 when
	// no count was found.
	Above    int `json:"above"`
	AboveFit int `json:"above_fit"`
}

// aboveCheck is how many counts above a search's answer are re-scored to
// say whether the answer holds only at that count (ShardSearch.Above).
const aboveCheck = 8

// maxScan and scanBudget bound the counts shardCounts.fewest re-scores
// one by one below the fitting count it found: as many as scanBudget
// statement instances routed allow (each count routes every instance of
// the operations once), and at least maxScan. One re-score of the
// built-in workspace's design after its fixes (26,384 instances) took
// about 9 ms on this project's loaded 2-core machine, so the budget
// (about 159 such re-scores) is about 1.5 s there; seed 000's samples
// (2,000 queries) may scan 2,097 counts at about 0.4 ms each. Most
// searches scan far fewer (workspace at 64 shards: 47). The bound is in
// instances, not time, so that the advice is the same on any machine.
const (
	maxScan    = 128
	scanBudget = 1 << 22
)

// shardCounts re-scores one design, with its fixes, at other shard
// counts, each count at most once: a search for the fewest that fit,
// then one for the fewest with a margin, share the counts scored.
type shardCounts struct {
	n     int // the shard count advised for
	c     *sim.Candidate
	score func(int) (*sim.Candidate, error)
	// seen holds each count scored (its shard count, capacity, busiest
	// shard and shards over capacity only); nil for a count the design
	// cannot be placed on (more isolated values than shards).
	seen   map[int]*sim.Candidate
	scored int
	// scan is how many counts fewest may re-score one by one (maxScan,
	// scanBudget).
	scan int
}

// newShardCounts returns the counts of the design scored as c on n
// shards, score re-scoring it on another count by routing instances
// statement instances (0 when unknown: maxScan counts are scanned).
func newShardCounts(n int, c *sim.Candidate, score func(int) (*sim.Candidate, error), instances int) *shardCounts {
	scan := maxScan
	if instances > 0 {
		scan = max(maxScan, scanBudget/instances)
	}
	return &shardCounts{n: n, c: c, score: score, seen: map[int]*sim.Candidate{n: c}, scan: scan}
}

// at returns the design scored on m shards, nil when it cannot be placed
// there.
func (s *shardCounts) at(m int) *sim.Candidate {
	if x, ok := s.seen[m]; ok {
		return x
	}
	x, err := s.score(m)
	if err != nil {
		x = nil
	} else {
		// Only what a search reads is kept: a scan of thousands of
		// counts would otherwise hold thousands of per-shard arrays.
		x = &sim.Candidate{Shards: x.Shards, Capacity: x.Capacity, MaxShardWork: x.MaxShardWork, OverCapacity: x.OverCapacity}
	}
	s.seen[m] = x
	s.scored++
	return x
}

// least returns the fewest shards on which the busiest can be at most
// capacity (units/s), ceil(requests asking a shard / capacity) and at
// least 1, and those requests (requests/s).
func (s *shardCounts) least(capacity float64) (int, float64) {
	r := s.c.RequestsPerS - s.c.NoShardPerS
	if capacity <= 0 || r <= 0 {
		return 1, max(r, 0)
	}
	return max(1, int(math.Ceil(r/capacity*(1-1e-12)))), r
}

// fewest returns the fewest shards (up to shardkey.MaxShards) on which
// fits holds of the design, of the counts it searched (said by the
// ShardSearch returned), and 0 when it found none.
//
// Hash placement is not monotone in the shard count (workspace's design
// after its fixes fits on 105 and 107 shards, not on 104 or 106), so no
// bisection finds the fewest. The search first doubles from n until a
// count fits, stopping when the busiest shard no longer falls (one key
// value's work, a whale's own shards, or scatter-gather on every shard:
// none fits then); then it re-scores every count from least (no count
// under it can fit) up, and the first that fits is the answer, whatever
// n was. When more counts lie between than its bound allows (s.scan:
// maxScan, scanBudget), it bisects between the doubling's last count
// that did not fit and the first that did to a fitting count b with b-1
// not fitting, and scans that many counts below b: the answer is then
// the fewest of those (From > Least).
//
// Every engine here takes any shard count (Citus's shard_count, Vitess's
// keyspace-id ranges (GenerateShardRanges), MongoDB's shards and chunks,
// Cassandra's nodes, Redis masters, Kafka partitions, Elasticsearch's
// number_of_shards for a new index, ...), so the count is not held to
// powers of two.
func (s *shardCounts) fewest(capacity float64, fits func(*sim.Candidate) bool) (int, *ShardSearch) {
	before := s.scored
	ss := &ShardSearch{Upto: s.n}
	ss.Least, ss.RequestsPerS = s.least(capacity)
	defer func() { ss.Scored = s.scored - before }()
	lo, hi, upto := s.double(fits)
	ss.Upto = upto
	if hi == 0 {
		return 0, ss
	}
	from := min(ss.Least, hi)
	if hi-from > s.scan {
		lo = max(lo, from-1)
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if x := s.at(mid); x != nil && fits(x) {
				hi = mid
			} else {
				lo = mid
			}
		}
		from = max(from, hi-s.scan)
	}
	ss.From, ss.To = from, hi
	answer := hi
	for m := from; m < hi; m++ {
		if x := s.at(m); x != nil && fits(x) {
			answer = m
			break
		}
	}
	for m := answer + 1; m <= min(answer+aboveCheck, shardkey.MaxShards); m++ {
		ss.Above++
		if x := s.at(m); x != nil && fits(x) {
			ss.AboveFit++
		}
	}
	return answer, ss
}

// aboveText says, when some of the counts just above a search's answer
// do not fit, how many do: " (of the 8 counts above it, 3 also fit: hash
// placement varies with the count; check the count you choose with score
// --shards)"; "" when all do or none was checked.
func aboveText(ss *ShardSearch, what string) string {
	if ss == nil || ss.Above == 0 || ss.AboveFit == ss.Above {
		return ""
	}
	return fmt.Sprintf(" (of the %d counts above it, %d also %s: hash placement varies with the count; check the count you choose with score --shards)", ss.Above, ss.AboveFit, what)
}

// aboveShort is aboveText after it has been said once: " (of the 8
// counts above it, 3 also leave 10%)".
func aboveShort(ss *ShardSearch, what string) string {
	if ss == nil || ss.Above == 0 || ss.AboveFit == ss.Above {
		return ""
	}
	return fmt.Sprintf(" (of the %d counts above it, %d also %s)", ss.Above, ss.AboveFit, what)
}

// double doubles the shard count from n (n itself when fits holds there)
// until fits holds of the design, and returns that count hi, the last
// count before it that did not fit, lo, and the largest count scored;
// hi is 0 when none fits: the doubling reached shardkey.MaxShards, a
// count the design cannot be placed on, or a count of at least 4n where
// the busiest shard fell by under 3% from the count before (one key
// value's work, a whale's own shards, or scatter-gather on every shard).
func (s *shardCounts) double(fits func(*sim.Candidate) bool) (lo, hi, upto int) {
	lo, upto = s.n, s.n
	if fits(s.c) {
		return lo, s.n, upto
	}
	c := s.c
	for m := s.n * 2; ; m *= 2 {
		m = min(m, shardkey.MaxShards)
		x := s.at(m)
		upto = max(upto, m)
		if x == nil {
			return lo, 0, upto
		}
		if fits(x) {
			return lo, m, upto
		}
		if m == shardkey.MaxShards || x.MaxShardWork >= c.MaxShardWork*0.97 && m >= s.n*4 {
			return lo, 0, upto
		}
		lo, c = m, x
	}
}

// rescorer returns what re-scores design key on w at a shard count with
// o's other options: the work figures alone (per-shard work, the busiest,
// the shards over the workload's capacity), all a search for a count that
// fits reads. Only the operations are routed (sim.RunWork): the
// candidate's load and transaction figures are zero, not the design's.
func rescorer(w *shardkey.Workload, key string, o sim.Options) func(int) (*sim.Candidate, error) {
	d, err := shardkey.ParseDesign(key)
	return func(m int) (*sim.Candidate, error) {
		if err != nil {
			return nil, err
		}
		oo := o
		oo.Shards = m
		s, err := sim.Compile(w, d, oo)
		if err != nil {
			return nil, err
		}
		p, err := sim.RunWork(w, s, oo.Workers)
		if err != nil {
			return nil, err
		}
		// Headline leaves OverCapacity unset: computed for the
		// workload's capacity.
		return s.Headline(p).WithCapacity(0).WithCapacity(w.Capacity), nil
	}
}
