package advisor

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sim"
)

// splitFix proposes splitting the heaviest key value when it alone
// exceeds one shard's capacity, which no isolation can fix (its
// dedicated shard keeps all of its work): the value's rows spread over K
// dedicated shards by the hash of the next key of each table (the column
// the workload binds with the key: a page's blocks by page_id, a
// member's row by user_id), the design
//
//	isolate(hash(tenant), top=1, split=page_id, over=K); members:isolate(..., split=user_id, over=K)
//
// Citus's tenant isolation (isolate_tenant_to_new_shard) gives a tenant a
// shard of its own and cannot go further; a second level by the
// compound key (tenant, page_id) is what Vitess's multicol vindex
// (go/vt/vtgate/vindexes/multicol.go) gives such a tenant. K is the
// fewest shards that bring each of the value's shards under capacity:
// at least K0 = ceil((W - R) / (C - R)), where W is the value's work,
// R its tenant-wide reads (every one asks all K shards) and C the
// capacity; from K0 up, the first K whose re-simulated shards are all
// under C (the hash of the next key does not split the rows exactly
// evenly). It reports whether it proposed one. rest is the design's text
// after its default key ("; t:replicate").
func (a *analysis) splitFix(as *Assessment, d *shardkey.Design, w *shardkey.Workload, o sim.Options, rest string) bool {
	c := as.Score
	n := o.Shards
	if w.Capacity <= 0 || len(c.TopValues) == 0 || n < 4 || c.CapacityPer == "node" {
		return false
	}
	h, ok := d.Default.(*shardkey.HashExpr)
	if !ok || len(h.Cols) != 1 {
		return false
	}
	key := h.Cols[0]
	share := c.TopValues[0].Share
	work, wide, group := a.whaleWork(w, key, share)
	if work <= w.Capacity || len(group) == 0 {
		return false
	}
	by := nextKeys(w, key, group)
	if by == nil {
		return false
	}
	if wide >= w.Capacity {
		return false // its tenant-wide reads alone exceed a shard on every one of its shards
	}
	k0 := int(math.Ceil((work - wide) / (w.Capacity - wide)))
	k0 = max(k0, 2)
	design := func(k int) string {
		// The most common split column is the default's; the others'
		// tables get their own.
		counts := map[string]int{}
		for _, col := range by {
			counts[col]++
		}
		def := ""
		for col, m := range counts {
			if m > counts[def] || m == counts[def] && col < def {
				def = col
			}
		}
		s := fmt.Sprintf("isolate(%s, top=1, split=%s, over=%d)", h, def, k)
		var tables []string
		for t, col := range by {
			if col != def {
				tables = append(tables, t)
			}
		}
		sort.Strings(tables)
		for _, t := range tables {
			s += fmt.Sprintf("; %s:isolate(%s, top=1, split=%s, over=%d)", t, h, by[t], k)
		}
		return s + rest
	}
	var best *sim.Candidate
	bestK := 0
	for k := k0; k <= k0+8 && k < n; k++ {
		x, err := sim.Score(w, design(k), o)
		if err != nil {
			return false
		}
		if maxOf(x.ShardWork[n-k:]) <= w.Capacity {
			best, bestK = x, k
			break
		}
	}
	if best == nil {
		return false
	}
	cols := mainColumns(c)
	hv := valueText(cols, c.TopValues[0].Value)
	var pairs []string
	for _, t := range group {
		pairs = append(pairs, fmt.Sprintf("%s by (%s, %s)", t, key, by[t]))
	}
	others := 0
	for _, tv := range c.TopValues[1:] {
		if wk, _, _ := a.whaleWork(w, key, tv.Share); wk > w.Capacity {
			others++
		}
	}
	more := ""
	if others > 0 {
		more = fmt.Sprintf(" %s also alone exceed%s a shard: split %s the same way once this one is.", plural(others, "1 more value", fmt.Sprintf("%d more values", others)), plural(others, "s", ""), plural(others, "it", "each"))
	}
	f := Fix{Kind: "split", Target: hv, Key: design(bestK), Before: nums(c), After: nums(best),
		Text: fmt.Sprintf("Whale larger than a shard: %s's ~%s units/s exceed one shard's capacity of %s, so no dedicated shard can hold it: split it over K = %d dedicated shards by a second key level, %s (%s; Citus's tenant isolation stops at one shard, Vitess's multicol vindex over the compound key does this). K is the fewest that bring each of its shards under capacity: at least (%s - %s) / (%s - %s) = %.2f by its work, %s tenant-wide reads/s of which ask all K, and %d as re-simulated (the hash of the second key does not split its rows evenly; its busiest shard %s/s). A read by both keys asks one of its shards; each tenant-wide read asks all %d (+%s units/s); %s of transactions cross shards under the split. Busiest shard: %s/s -> %s/s, %d -> %d shards over capacity.%s",
			hv, fmtF(work), fmtF(w.Capacity), bestK, strings.Join(pairs, ", "), design(bestK),
			fmtF(work), fmtF(wide), fmtF(w.Capacity), fmtF(wide), (work-wide)/(w.Capacity-wide), fmtF(wide), bestK, fmtF(maxOf(best.ShardWork[n-bestK:])),
			bestK, fmtF(wide*float64(bestK-1)), pct(best.CrossShardTxnFraction), fmtF(c.MaxShardWork), fmtF(best.MaxShardWork), len(c.OverCapacity), len(best.OverCapacity), more)}
	as.Fixes = append(as.Fixes, f)
	return true
}

// whaleWork returns the requests/s of a key value with the given share of
// the key's weight (every operation's rate times the share, as hotRates),
// the part of it that binds the key but not the table's next key
// (tenant-wide reads), and the tables that have the key column, sorted.
func (a *analysis) whaleWork(w *shardkey.Workload, key string, share float64) (work, wide float64, group []string) {
	for _, t := range w.Tables {
		if t.ColumnIndex(key) >= 0 {
			group = append(group, t.Name)
		}
	}
	for _, op := range w.Ops {
		if op.Table < 0 || op.Table >= len(w.Tables) {
			continue
		}
		t := w.Tables[op.Table]
		ki := t.ColumnIndex(key)
		if ki < 0 {
			continue
		}
		if op.Kind.IsWrite() {
			work += op.Rate * share
			continue
		}
		if len(op.Instances) == 0 || len(op.Instances[0].Conds) == 0 {
			continue
		}
		work += op.Rate * share
		if binds(op.Instances[0].Conds, ki) && len(eqOther(op.Instances[0].Conds, ki)) == 0 {
			wide += op.Rate * share
		}
	}
	sort.Strings(group)
	return work, wide, group
}

// nextKeys returns, for each table of group, its next key after key: the
// column other than key that its reads bind by equality together with
// key, the busiest such read's; for a table with none, a column another
// table's next key names (the parent's key of a child table: pages'
// page_id, the key blocks are read by). nil when a table has none.
func nextKeys(w *shardkey.Workload, key string, group []string) map[string]string {
	by := map[string]string{}
	rate := map[string]float64{}
	for _, op := range w.Ops {
		if op.Kind != shardkey.Read || len(op.Instances) == 0 {
			continue
		}
		t := w.Tables[op.Table]
		ki := t.ColumnIndex(key)
		if ki < 0 || !binds(op.Instances[0].Conds, ki) {
			continue
		}
		for _, ci := range eqOther(op.Instances[0].Conds, ki) {
			if op.Rate > rate[t.Name] {
				by[t.Name], rate[t.Name] = t.Columns[ci].Name, op.Rate
			}
		}
	}
	for _, name := range group {
		if by[name] != "" {
			continue
		}
		t := w.Table(name)
		for _, other := range group {
			if col := by[other]; col != "" && other != name && t.Column(col) != nil {
				by[name] = col
				break
			}
		}
		if by[name] == "" {
			return nil
		}
	}
	return by
}

// binds reports whether conds bind column ci by equality or IN.
func binds(conds []shardkey.Cond, ci int) bool {
	for _, cd := range conds {
		if cd.Col == ci && (cd.Op == shardkey.Eq || cd.Op == shardkey.In) {
			return true
		}
	}
	return false
}

// eqOther returns the columns other than ci that conds bind by equality.
func eqOther(conds []shardkey.Cond, ci int) []int {
	var out []int
	for _, cd := range conds {
		if cd.Col != ci && cd.Op == shardkey.Eq {
			out = append(out, cd.Col)
		}
	}
	return out
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
