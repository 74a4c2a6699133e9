package advisor

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sim"
)

// Cassandra's node count with the whales bucketed.
//
// A bucket count is chosen for a node count: more nodes under a node's
// capacity leave more room beside a bucket, and a count is capped at the
// nodes. Searching more nodes with the advised count's buckets kept
// (shardCounts) answers a question nobody asks; bucketNodes re-derives
// the bucket fix for each node count it tries and re-simulates it as the
// fix itself is (each bucket at the token of its composite partition
// key), so that its answer is one plan: so many nodes, these counts.

// bucketNodes fills cp's ShardsNeeded and ShardsForMargin (Cassandra
// nodes) with the whales' bucket counts re-derived for each node count
// (cp.buckets: every value doing over half a node's capacity bucketed,
// each bucket sized to the room beside a mean node, roomTarget, the
// counts times 1, 2 and 4 tried in turn and the first that leaves no
// node over kept), the design after every other fix kept. A count whose
// mean node leaves a whale's whole-value reads no room is skipped
// unscored. Hash placement is not monotone in the count, so counts are
// re-scored one by one, but in steps: from the requests' lower bound
// (shardCounts.least) up, each count bucketStep (4%) over the last, and
// when one fits, every count between it and the last that did not, one
// at a time, the first that fits kept; then on from it one at a time
// until one leaves fitMargin to spare. At most max(maxScan, scanBudget /
// instances) re-scores in all (each design tried costs one), the counts
// above that not tried (said by NeedSearch and MarginSearch: From to
// Upto). Each re-score routes the operations only (rescorer).
func bucketNodes(cp *Capacity, s *needSearch) {
	cp.BucketsRederived = true
	least, req := (&shardCounts{c: s.c}).least(cp.Capacity)
	instances := 0
	for _, op := range s.w.Ops {
		instances += len(op.Instances)
	}
	budget := maxScan
	if instances > 0 {
		budget = max(maxScan, scanBudget/instances)
	}
	scorers := map[string]func(int) (*sim.Candidate, error){}
	scored := 0
	// at re-scores m nodes with each design in turn until one does what
	// fits asks, and returns that one, else the best (fewer nodes over,
	// then a lighter busiest), with its variant. state is atNone when
	// the count has no design (no room), atBudget when the budget ran
	// out.
	const (
		atScored = iota
		atNone
		atBudget
	)
	at := func(m int, fits func(*sim.Candidate) bool) (*sim.Candidate, bucketVariant, int) {
		vs := cp.buckets(m)
		if len(vs) == 0 {
			return nil, bucketVariant{}, atNone
		}
		var best *sim.Candidate
		var bv bucketVariant
		for _, v := range vs {
			if scored >= budget {
				break
			}
			key := v.key + cp.bucketsRest
			f, ok := scorers[key]
			if !ok {
				f = rescorer(s.w, key, s.o)
				scorers[key] = f
			}
			scored++
			x, err := f(m)
			if err != nil {
				continue
			}
			if best == nil || len(x.OverCapacity) < len(best.OverCapacity) ||
				len(x.OverCapacity) == len(best.OverCapacity) && x.MaxShardWork < best.MaxShardWork*(1-1e-9) {
				best, bv = x, v
			}
			if fits(x) {
				return x, v, atScored
			}
		}
		if best == nil {
			return nil, bucketVariant{}, atBudget
		}
		return best, bv, atScored
	}
	noneOver := func(x *sim.Candidate) bool { return len(x.OverCapacity) == 0 }
	margin := (1 - fitMargin) * cp.Capacity
	spared := func(x *sim.Candidate) bool { return noneOver(x) && x.MaxShardWork <= margin*(1+1e-12) }
	// A bucket needs two nodes at least (a salt over one is not placed).
	from := max(least, 2)
	need := &ShardSearch{Least: least, RequestsPerS: req, From: from, Upto: from}
	cp.NeedSearch = need
	// try scores m and keeps what it says; it reports whether m fits,
	// and whether the search can go on.
	try := func(m int) (fit, more bool) {
		x, v, state := at(m, noneOver)
		switch state {
		case atNone:
			return false, true
		case atBudget:
			return false, false
		}
		if cp.roomFrom == 0 {
			cp.roomFrom = m
		}
		need.Upto = max(need.Upto, m)
		if len(v.whales) > 0 {
			cp.bucketWhales, cp.bucketNext = v.whales, v.next
		}
		if cp.LightestShards == 0 || x.MaxShardWork < cp.LightestBusiest*(1-1e-9) {
			cp.LightestShards, cp.LightestBusiest, cp.LightestBuckets, cp.lightestMean = m, x.MaxShardWork, v.ks, x.MeanShardWork
		}
		if !noneOver(x) {
			return false, true
		}
		cp.ShardsNeeded, cp.NeededBusiest, cp.NeededKey, cp.NeededBuckets, cp.neededMult, cp.neededTarget = m, x.MaxShardWork, v.key+cp.bucketsRest, v.ks, v.mult, v.target
		need.To = m
		if spared(x) {
			cp.ShardsForMargin, cp.MarginKey, cp.MarginBuckets, cp.MarginBusiest = m, cp.NeededKey, v.ks, x.MaxShardWork
		}
		return true, true
	}
	last := 0 // the last count stepped to that did not fit
	for m := from; m <= shardkey.MaxShards; m = max(m+1, int(math.Ceil(float64(m)*(1+bucketStep)))) {
		fit, more := try(m)
		if !more {
			break
		}
		if !fit {
			last = m
			continue
		}
		// Every count between the last that did not fit and this one,
		// one at a time: the first that fits is the fewest found.
		for n := max(last+1, cp.roomFrom); n < m && last > 0; n++ {
			if fit, more := try(n); fit || !more {
				break
			}
		}
		cp.refinedFrom = last + 1
		break
	}
	need.Scored = scored
	if cp.ShardsNeeded == 0 || cp.ShardsForMargin > 0 {
		return
	}
	ms := &ShardSearch{Least: least, RequestsPerS: req, From: cp.ShardsNeeded, Upto: cp.ShardsNeeded}
	cp.MarginSearch = ms
	before := scored
	for m := cp.ShardsNeeded + 1; m <= shardkey.MaxShards; m++ {
		x, v, state := at(m, spared)
		if state == atBudget {
			break
		}
		ms.Upto = m
		if state == atScored && spared(x) {
			cp.ShardsForMargin, cp.MarginKey, cp.MarginBuckets, cp.MarginBusiest = m, v.key+cp.bucketsRest, v.ks, x.MaxShardWork
			ms.To = m
			break
		}
	}
	ms.Scored = scored - before
}

// bucketStep is how far over the last count the node search steps
// (bucketNodes): 4% (55, 58, 61, ... nodes), so that a search to
// several times the fewest possible stays within its budget.
const bucketStep = 0.04

// bucketNodesText is the headline's plan when bucketNodes searched the
// node count: "250 nodes, with the 14 values over half a node's capacity
// bucketed, K = [68, 28, ...], bring every node under it: busiest
// 793/s, under 1% to spare (design); each bucket sized to ...; the
// fewest found: ...", or, when no count searched fits, which were
// searched and what keeps the lightest of them over.
func bucketNodesText(cp *Capacity) string {
	ss := cp.NeedSearch
	least := fmt.Sprintf("%s requests/s at %s a node, each request a unit of work on at least one node: no fewer can fit", fmtF(ss.RequestsPerS), fmtF(cp.Capacity))
	how := fmt.Sprintf("each re-scored with the bucket fix re-derived for it (every value doing over %s of a node's capacity bucketed, each bucket sized to the room beside a mean node, %s less the mean node's share of the requests, K = ceil((W - R) / (room - R)) for a value doing W units/s, R of them reads of the whole value, then twice and four times that, the first that leaves no node over kept; a count at most the nodes; counts whose room is under a whale's R not scored)", pct(bucketOver), fmtF((1-fitMargin)*cp.Capacity))
	if need := cp.ShardsNeeded; need > 0 {
		var first string
		if len(cp.bucketWhales) > 0 {
			first = cp.bucketWhales[0].name
		}
		s := fmt.Sprintf("%d nodes, with the %d values doing over %s of a node's capacity bucketed, K = %s, bring every node under it: busiest %s/s, %s to spare (%s)", need, len(cp.NeededBuckets), pct(bucketOver), intsText(cp.NeededBuckets), fmtF(cp.NeededBusiest), spare(1-cp.NeededBusiest/cp.Capacity), cp.NeededKey)
		s += fmt.Sprintf("; each bucket sized to the room beside a mean node, %s - %s / %d = %s units/s, K = ceil((W - R) / (%s - R)) for a value doing W units/s, R of them reads of the whole value", fmtF((1-fitMargin)*cp.Capacity), fmtF(ss.RequestsPerS), need, fmtF(cp.neededTarget), fmtF(cp.neededTarget))
		if m := cp.neededMult; m > 1 {
			s += fmt.Sprintf(", times %d (%s leave a node over: token placement puts buckets together on a node, and a node must hold them)", m, multsUnder(m))
		}
		if first != "" && len(cp.NeededBuckets) > 0 {
			s += fmt.Sprintf("; a read of a whole bucketed value then asks its K partitions, %d for %s", cp.NeededBuckets[0], first)
		}
		switch {
		case need == ss.From:
			s += fmt.Sprintf("; the fewest that can (%s)", least)
		default:
			s += fmt.Sprintf("; the fewest found: the counts from %d (%s) up, %s, ", ss.From, least, how)
			if cp.roomFrom > ss.From {
				s += fmt.Sprintf("scored from %d (under it the mean node leaves a whale's whole-value reads no room), ", cp.roomFrom)
			}
			if r := cp.refinedFrom; r > 0 && r < need {
				s += fmt.Sprintf("in steps of %s up to %d, then every count from %d to %d, leave a node over (token placement is not monotone in the node count; the counts stepped over below %d were not tried)", pct(bucketStep), need, r, need-1, r)
			} else {
				s += fmt.Sprintf("in steps of %s, leave a node over below %d (token placement is not monotone in the node count; the counts stepped over were not tried)", pct(bucketStep), need)
			}
		}
		switch ms := cp.MarginSearch; {
		case cp.ShardsForMargin > need:
			s += fmt.Sprintf("; %s to spare takes %d nodes, K = %s: busiest %s/s (%s)", spare(fitMargin), cp.ShardsForMargin, intsText(cp.MarginBuckets), fmtF(cp.MarginBusiest), cp.MarginKey)
		case ms != nil:
			s += fmt.Sprintf("; no count from %d to %d leaves %s to spare (a bounded search: one count at a time, %d re-scores in all; the counts above %d were not tried)", ms.From+1, ms.Upto, spare(fitMargin), ss.Scored+ms.Scored, ms.Upto)
		}
		return s
	}
	s := fmt.Sprintf("No node count from %d (%s) to %d, %s, in steps of %s, brings every node under it (a bounded search: %d re-scores; the counts above %d were not tried)", ss.From, least, ss.Upto, how, pct(bucketStep), ss.Scored, ss.Upto)
	if cp.LightestShards == 0 {
		return s
	}
	s += fmt.Sprintf(". The lightest of them, %d nodes with K = %s, leaves its busiest at %s/s", cp.LightestShards, intsText(cp.LightestBuckets), fmtF(cp.LightestBusiest))
	heaviest, buckets := 0.0, 0
	for i, x := range cp.bucketWhales {
		if i < len(cp.LightestBuckets) {
			k := cp.LightestBuckets[i]
			heaviest = max(heaviest, (x.work-x.r)/float64(k)+x.r)
			buckets += k
		}
	}
	if heaviest <= 0 {
		return s
	}
	n := float64(cp.LightestShards)
	// What keeps the busiest over: a bucket's work is (W - R) / K + R
	// only if the hash of the next key splits the value's work evenly,
	// and B buckets placed by token on n nodes put B(B-1)/(2n) pairs on
	// shared nodes (the birthday problem); which of the two loads a
	// given node is the re-simulation's, not said here.
	s += fmt.Sprintf(": over the %s units/s, beside the mean node's %s/s, what keeps it there is heavy partitions sharing a node. A whale's bucket is sized to do up to %s/s if the hash of the column its rows are bucketed by shares the value's work evenly over them, which it need not (a bucket takes the work of the rows that hash to it), and %d buckets placed by token over %d nodes put about %.1f pairs on one node (B(B - 1) / 2N)",
		fmtF(cp.Capacity), fmtF(cp.lightestMean), fmtF(heaviest), buckets, cp.LightestShards, float64(buckets*(buckets-1))/(2*n))
	if x := cp.bucketNext; x.name != "" && x.work+cp.lightestMean > cp.Capacity {
		// A value under the capacity alone, over it beside the mean
		// node's share of the rest: bucket 0 needs a node nearly empty.
		s += fmt.Sprintf("; and the heaviest value kept at bucket 0, %s, does %s/s, so the node its token falls on is over unless the rest of its work is under %s/s, %s of the mean node's", x.name, fmtF(x.work), fmtF(cp.Capacity-x.work), pct((cp.Capacity-x.work)/cp.lightestMean))
	}
	s += fmt.Sprintf(". More buckets a whale (each of its whole-value reads then asks more partitions), bucketing the next values too, caching the hot reads, or a search past %d nodes (score --shards) is what remains", cp.NeedSearch.Upto)
	return s
}

// multsUnder names the multiples of bucketMults under m: "times 1",
// "times 1 and 2".
func multsUnder(m int) string {
	var xs []string
	for _, x := range bucketMults {
		if x < m {
			xs = append(xs, strconv.Itoa(x))
		}
	}
	return "times " + strings.Join(xs, " and ")
}
