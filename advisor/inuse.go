package advisor

import (
	"fmt"
	"math"
	"slices"
)

// The design in use (Options.Current): kept unless beaten beyond noise.

// keepInUse moves the design in use (Assessment.InUse) to the front of
// the ranked list when it is viable and the first candidate does not
// beat it beyond noise: every measure within the ranking's bands, and
// the busiest shard's work after fixes within the luck of hashing the
// in-use key's values, the band a perfect hash of that many equal keys
// leaves above the mean (Criteria.Expected - 1: two hash functions of
// one key's values differ by about that much), at least the ranking's
// 2%. A tie does not pay for a reshard.
func keepInUse(list []*Assessment) []*Assessment {
	i := slices.IndexFunc(list, func(as *Assessment) bool { return as.InUse })
	if i <= 0 || !list[i].Viable {
		return list
	}
	cur := list[i]
	if first, beyond := orderBanded(list[0], cur, math.Max(0.02, cur.Criteria.Expected-1)); beyond && first {
		return list
	}
	copy(list[1:i+1], list[:i])
	list[0] = cur
	return list
}

func containsKey(keys []string, k string) bool { return slices.Contains(keys, k) }

// inUseSummary is the summary's line on the design in use
// (Advice.InUse): keep it, or change it to best; nil without one.
func inUseSummary(adv *Advice, best *Assessment) []string {
	i := slices.IndexFunc(adv.Candidates, func(as *Assessment) bool { return as.InUse })
	if adv.InUse == "" || i < 0 {
		return nil
	}
	cur := adv.Candidates[i]
	if adv.KeepInUse {
		return []string{fmt.Sprintf("Keep the design in use, %s: no candidate beats it beyond noise (5 points of single-shard requests, 2 of cross-shard transactions, 10%% of work per request, and the busiest shards' work within %s of each other, what hashing this many key values leaves to luck), so a reshard would buy nothing.",
			cur.Display(), pct(math.Max(0.02, cur.Criteria.Expected-1)))}
	}
	return []string{fmt.Sprintf("Change the design in use, %s (ranked %d), to %s: %s of interactive requests single-shard against %s, %s of transactions crossing shards against %s, the busiest %s after fixes %s/s against %s/s.",
		cur.Display(), cur.Rank, best.Display(),
		pct(best.Criteria.SingleShard), pct(cur.Criteria.SingleShard), pct(best.Criteria.CrossShardTxn), pct(cur.Criteria.CrossShardTxn),
		busiestUnit(best.Score), fmtF(best.Criteria.AfterFixes), fmtF(cur.Criteria.AfterFixes))}
}
