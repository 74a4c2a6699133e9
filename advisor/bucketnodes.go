package advisor

import (
	"fmt"

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
// (cp.buckets: each whale's count sized to splitTarget, capped at the
// count; each whale's own count and the heaviest's for all, the better as
// re-simulated, as bucketFix chooses), the design after every other fix
// kept. Hash placement is not monotone in the count, so it re-scores
// every count from the requests' lower bound (shardCounts.least) up, one
// at a time, until one leaves no node over, then on until one leaves
// fitMargin to spare; at most max(maxScan, scanBudget / instances)
// re-scores in all (each count costs one per design tried), the counts
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
	// at re-scores each design for m nodes and returns the better (fewer
	// nodes over, then a lighter busiest), its variant, and whether the
	// budget allowed it.
	at := func(m int) (*sim.Candidate, bucketVariant, bool) {
		vs := cp.buckets(m)
		if len(vs) == 0 || scored+len(vs) > budget {
			return nil, bucketVariant{}, false
		}
		var best *sim.Candidate
		var bv bucketVariant
		for _, v := range vs {
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
		}
		return best, bv, best != nil
	}
	margin := (1 - fitMargin) * cp.Capacity
	// A bucket needs two nodes at least (a salt over one is not placed).
	from := max(least, 2)
	need := &ShardSearch{Least: least, RequestsPerS: req, From: from, Upto: from}
	cp.NeedSearch = need
	for m := from; m <= shardkey.MaxShards; m++ {
		x, v, ok := at(m)
		if !ok {
			break
		}
		need.Upto = m
		if len(v.whales) > 0 {
			cp.bucketWhales, cp.bucketNext = v.whales, v.next
		}
		if cp.LightestShards == 0 || x.MaxShardWork < cp.LightestBusiest*(1-1e-9) {
			cp.LightestShards, cp.LightestBusiest, cp.LightestBuckets, cp.lightestMean = m, x.MaxShardWork, v.ks, x.MeanShardWork
		}
		if len(x.OverCapacity) == 0 {
			cp.ShardsNeeded, cp.NeededBusiest, cp.NeededKey, cp.NeededBuckets = m, x.MaxShardWork, v.key+cp.bucketsRest, v.ks
			need.To = m
			if x.MaxShardWork <= margin*(1+1e-12) {
				cp.ShardsForMargin, cp.MarginKey, cp.MarginBuckets, cp.MarginBusiest = m, cp.NeededKey, v.ks, x.MaxShardWork
			}
			break
		}
	}
	need.Scored = scored
	if cp.ShardsNeeded == 0 || cp.ShardsForMargin > 0 {
		return
	}
	ms := &ShardSearch{Least: least, RequestsPerS: req, From: cp.ShardsNeeded, Upto: cp.ShardsNeeded}
	cp.MarginSearch = ms
	before := scored
	for m := cp.ShardsNeeded + 1; m <= shardkey.MaxShards; m++ {
		x, v, ok := at(m)
		if !ok {
			break
		}
		ms.Upto = m
		if len(x.OverCapacity) == 0 && x.MaxShardWork <= margin*(1+1e-12) {
			cp.ShardsForMargin, cp.MarginKey, cp.MarginBuckets, cp.MarginBusiest = m, v.key+cp.bucketsRest, v.ks, x.MaxShardWork
			ms.To = m
			break
		}
	}
	ms.Scored = scored - before
}

// bucketNodesText is the headline's plan when bucketNodes searched the
// node count: "110 nodes, with the whales bucketed K = [12, 6, 4, 3, 2,
// 2], bring every node under it: busiest 790/s, 1% to spare (design);
// ...", or, when no count searched fits, which were searched and what
// keeps the lightest of them over.
func bucketNodesText(cp *Capacity) string {
	ss := cp.NeedSearch
	target := splitTarget(cp.Capacity)
	least := fmt.Sprintf("%s requests/s at %s a node, each request a unit of work on at least one node: no fewer can fit", fmtF(ss.RequestsPerS), fmtF(cp.Capacity))
	how := fmt.Sprintf("each re-scored with the whales' bucket counts re-derived for it (each bucket sized to %s units/s, %s under the capacity, a count at most the nodes; the better of each whale's own count and the heaviest's for all)", fmtF(target), spare(fitMargin))
	if need := cp.ShardsNeeded; need > 0 {
		s := fmt.Sprintf("%d nodes, with the whales bucketed K = %s, bring every node under it: busiest %s/s, %s to spare (%s)", need, intsText(cp.NeededBuckets), fmtF(cp.NeededBusiest), spare(1-cp.NeededBusiest/cp.Capacity), cp.NeededKey)
		switch {
		case need == ss.From:
			s += fmt.Sprintf("; the fewest that can (%s)", least)
		default:
			s += fmt.Sprintf("; the fewest that do: every count from %d (%s) to %d, %s, leaves a node over (token placement is not monotone in the node count)", ss.From, least, need-1, how)
		}
		switch ms := cp.MarginSearch; {
		case cp.ShardsForMargin > need:
			s += fmt.Sprintf("; %s to spare takes %d nodes, K = %s: busiest %s/s (%s)", spare(fitMargin), cp.ShardsForMargin, intsText(cp.MarginBuckets), fmtF(cp.MarginBusiest), cp.MarginKey)
		case ms != nil:
			s += fmt.Sprintf("; no count from %d to %d leaves %s to spare (a bounded search: one count at a time, %d re-scores in all; the counts above %d were not tried)", ms.From+1, ms.Upto, spare(fitMargin), ss.Scored+ms.Scored, ms.Upto)
		}
		return s
	}
	s := fmt.Sprintf("No node count from %d (%s) to %d, %s, brings every node under it (a bounded search: one count at a time, %d re-scores; the counts above %d were not tried)", ss.From, least, ss.Upto, how, ss.Scored, ss.Upto)
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
