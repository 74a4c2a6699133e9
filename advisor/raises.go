package advisor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shardkey/shardkey/sim"
)

// Fixes that make something worse. A fix is proposed for what it
// lightens (the busiest shard, the work, the shards a request asks), and
// it can at the same time raise the number of shards over capacity or
// the busiest shard: an isolation leaves the other values fewer shards,
// a projection sends each request whole to its value's shard. That is
// said in the fix's text, the verdict and the capacity headline, with
// the reason, not left for the reader to find in the figures.

// raiseTol is how much more a busiest shard must do after a fix to be
// called raised: less is within the figures' rounding.
const raiseTol = 0.005

// raised says what after raises over before: "the shards over capacity
// from 11 to 12", "the busiest shard from 21.7/s to 25.6/s", both joined
// by "and"; "" when it raises neither. Over capacity counts nodes, and the
// busiest is a node, when the capacity is a node's (unit "node").
func raised(before, after *Nums, unit string) string {
	if before == nil || after == nil {
		return ""
	}
	var out []string
	if after.OverCapacity > before.OverCapacity {
		out = append(out, fmt.Sprintf("the %ss over capacity from %d to %d", unit, before.OverCapacity, after.OverCapacity))
	}
	b, a := before.MaxShardWork, after.MaxShardWork
	if unit == "node" && before.MaxNodeWork > 0 {
		b, a = before.MaxNodeWork, after.MaxNodeWork
	}
	if a > b*(1+raiseTol) {
		out = append(out, fmt.Sprintf("the busiest %s from %s/s to %s/s", unit, fmtF(b), fmtF(a)))
	}
	return strings.Join(out, " and ")
}

// noteRaise records on f, a fix whose Before and After are set, what it
// raises (raised, over unit's capacity) and why, and ends its text with
// "It raises the shards over capacity from 11 to 12: why."; nothing when
// it raises nothing.
func (f *Fix) noteRaise(unit, why string) {
	f.raises = raised(f.Before, f.After, unit)
	if f.raises == "" {
		return
	}
	f.raiseWhy = why
	f.Text += " It raises " + f.raises + ": " + why + "."
}

// isolationWhy says why isolating the k heaviest values (each on one
// dedicated shard, the last k of n) leaves after's shards over capacity
// as they are: the whales' own shards over it by themselves, and the
// other values sharing the n-k shards left.
func isolationWhy(after *sim.Candidate, n, k int) string {
	if after.CapacityPer == "node" || k <= 0 || k >= n {
		return fmt.Sprintf("the other values share the shards the %s leave", plural(k, "whale's own shard does not", "whales' own shards do not"))
	}
	own := 0
	for _, s := range after.OverCapacity {
		if s >= n-k {
			own++
		}
	}
	rest := len(after.OverCapacity) - own
	whales := fmt.Sprintf("%d of the %d whales' own shards are over it by themselves", own, k)
	switch {
	case own == 0:
		whales = "no whale's own shard is over it"
	case own == k && k == 1:
		whales = "the whale's own shard is over it by itself"
	case own == k:
		whales = "each whale's own shard is over it by itself"
	}
	return fmt.Sprintf("%s, and the other values share the %d shards left (%d over)", whales, n-k, rest)
}

// concentrateWhy is why a fix that routes an operation by col (a
// projection, a lookup table) can raise the busiest shard: each request
// now lands whole on one shard, where its scatter spread it over all.
// The fix's text names the operation first: "its" is the operation's.
func concentrateWhy(col string) string {
	return fmt.Sprintf("its requests, spread over every shard while they scattered, now land whole on the shard of their %s", col)
}

// fixesRaise says, for the verdict, what as's fixes together raise and
// which fixes say why: "its fixes raise the busiest shard from 21.7/s to
// 23.6/s (its projection fix says why)"; "" when they raise nothing.
func fixesRaise(as *Assessment) string {
	var what string
	if cp := as.capacity; cp != nil {
		what = cp.raise
	} else if as.after != nil && as.Score != nil {
		what = raised(nums(as.Score), as.after.Nums, "shard")
	}
	if what == "" {
		return ""
	}
	var kinds []string
	for _, f := range as.Fixes {
		if f.raises != "" && !slices.Contains(kinds, f.Kind) {
			kinds = append(kinds, f.Kind)
		}
	}
	if len(kinds) == 0 {
		return "its fixes together raise " + what
	}
	return fmt.Sprintf("its fixes raise %s (its %s %s why)", what, strings.Join(kinds, " and "), plural(len(kinds), "fix says", "fixes say"))
}

// capacityUnit is what c's capacity is of: "node" with slots over nodes
// and a node's capacity, else "shard".
func capacityUnit(c *sim.Candidate) string {
	if c.CapacityPer == "node" {
		return "node"
	}
	return "shard"
}

// capacityUnitOf is what cp's capacity is of: "node" or "shard".
func capacityUnitOf(cp *Capacity) string {
	if cp.Per == "node" {
		return "node"
	}
	return "shard"
}

// thinFitText says, when cp fits after the fixes by less than fitMargin,
// how thinly and at what shard count it would fit with the margin: "fits
// after its fixes with 1% to spare (busiest shard 792/s of 800/s),
// within the hash placement's own variation; 10% to spare at 72 shards";
// "" otherwise.
func thinFitText(cp *Capacity) string {
	if cp == nil || !cp.ThinFit || cp.After == nil {
		return ""
	}
	unit := capacityUnitOf(cp)
	b := cp.After.busiest(cp)
	s := fmt.Sprintf("fits after its fixes with %s to spare (busiest %s %s/s of %s/s), within the hash placement's own variation",
		spare(1-b/cp.Capacity), unit, fmtF(b), fmtF(cp.Capacity))
	if m := marginText(cp, cp.shards); m != "" {
		s += "; " + strings.TrimPrefix(m, ", and ")
	}
	return s
}

// spare prints a share to spare in whole percent, "under 1%" below it.
func spare(x float64) string {
	if x < 0.01 {
		return "under 1%"
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}

// uncountedText names the caches (or read replicas) cp's fixes propose
// and its After does not count: "not counting the cache for workspace_id
// = 1".
func uncountedText(cp *Capacity) string {
	return "not counting " + strings.Join(cp.uncounted, ", ")
}

// proposed is the read replicas a cache fix proposes when replicasFor
// says n: n up to maxReplicas, else 0 (none proposed).
func proposed(n int) int {
	if n > maxReplicas {
		return 0
	}
	return n
}

// thinNote is the capacity headline's word on a thin fit, after "every
// shard is under it: busiest 792/s": ", 1% to spare, within the hash
// placement's own variation (10% at 72 shards)"; "" unless cp.ThinFit.
func thinNote(cp *Capacity) string {
	if !cp.ThinFit {
		return ""
	}
	s := fmt.Sprintf(", %s to spare, within the hash placement's own variation", spare(1-cp.After.busiest(cp)/cp.Capacity))
	if cp.ShardsForMargin > 0 {
		s += fmt.Sprintf(" (%s at %d shards%s)", spare(fitMargin), cp.ShardsForMargin, fewerNote(cp.ShardsForMargin, cp.shards))
	} else if m := marginText(cp, cp.shards); m != "" {
		s += " (" + strings.TrimPrefix(m, ", and ") + ")"
	}
	return s
}

// dedicatedWhy is isolationWhy for whales split over k dedicated shards
// in all (the last k of n): how many of those are over capacity, and the
// other values sharing the n-k shards left.
func dedicatedWhy(after *sim.Candidate, n, k int) string {
	if after.CapacityPer == "node" || k <= 0 || k >= n {
		return "the other values share the shards the whales' own leave"
	}
	own := 0
	for _, s := range after.OverCapacity {
		if s >= n-k {
			own++
		}
	}
	whales := fmt.Sprintf("%d of the whales' %d dedicated shards %s over it", own, k, plural(own, "is", "are"))
	if own == 0 {
		whales = fmt.Sprintf("none of the whales' %d dedicated shards is over it", k)
	}
	return fmt.Sprintf("%s, and the other values share the %d shards left (%d over)", whales, n-k, len(after.OverCapacity)-own)
}
