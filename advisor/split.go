package advisor

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
)

// splitFix proposes splitting the heaviest key values when each alone
// exceeds one shard's capacity, which no isolation can fix (a dedicated
// shard keeps all of its value's work): each such value's rows spread
// over K_i dedicated shards of its own by the hash of the next key of
// each table (the column the workload binds with the key: a page's
// blocks by page_id, a member's row by user_id), the design
//
//	isolate(hash(tenant), top=1, split=page_id, over=K); members:isolate(..., split=user_id, over=K)
//
// for one such value, and over=[K1, K2, ...] (one count per value, in
// order of weight) for several: a whale twice another's size needs about
// twice its shards, and one count for all would spend the largest's on
// each. Citus's tenant isolation (isolate_tenant_to_new_shard) gives a
// tenant a shard of its own and cannot go further; a second level by the
// compound key (tenant, page_id) is what Vitess's multicol vindex
// (go/vt/vtgate/vindexes/multicol.go) gives such a tenant. K_i is the
// fewest shards that bring each of the value's shards under capacity: at
// least ceil((W - R) / (C - R)), where W is the value's work, R its
// tenant-wide reads (every one asks all K_i shards) and C the capacity;
// from there up, re-simulated until all of its shards are under C (the
// hash of the next key does not split the rows exactly evenly). Values
// are taken in order of weight while each alone exceeds C, its
// tenant-wide reads do not (no split helps those), and their shards
// leave at least one shard to the other values. It reports whether it
// proposed a split. rest is the design's text after its default key
// ("; t:replicate").
func (a *analysis) splitFix(as *Assessment, d *shardkey.Design, w *shardkey.Workload, o sim.Options, rest string) bool {
	c := as.Score
	n := o.Shards
	if w.Capacity <= 0 || len(c.TopValues) == 0 || n < 4 || c.CapacityPer == "node" {
		return false
	}
	if partition.IsCitus(a.engine) {
		// Citus distributes a table by one column and isolates a tenant
		// to one shard at most (isolate_tenant_to_new_shard): no second
		// level to split a value over. Its whale stays isolated.
		return false
	}
	h, ok := d.Default.(*shardkey.HashExpr)
	if !ok || len(h.Cols) != 1 {
		return false
	}
	key := h.Cols[0]
	type whale struct {
		work, wide float64
		k0, k      int
		// alone is the re-simulated work of the value's one shard when
		// its share put it under capacity (k0 1) and the simulation did
		// not; 0 otherwise.
		alone float64
	}
	var whales []whale
	var group []string
	// The values the statistics rank, heaviest first: the ten a report
	// lists and those after them (sim.KeyStats.MoreValues), so that an
	// eleventh value over half a shard is placed too.
	ranked := slices.Concat(c.TopValues, c.MoreValues)
	overCap := 0 // values that alone exceed a shard, split or not
	for i, tv := range ranked {
		work, wide, g := a.whaleWork(w, key, tv.Share)
		if work <= w.Capacity || len(g) == 0 {
			break
		}
		overCap++
		if i == 0 {
			group = g
		}
		if wide >= w.Capacity || len(whales) < i {
			continue // its tenant-wide reads alone exceed a shard on every one of its shards
		}
		k0 := max(int(math.Ceil((work-wide)/(splitTarget(w.Capacity)-wide))), 2)
		if wide >= splitTarget(w.Capacity) {
			k0 = max(int(math.Ceil((work-wide)/(w.Capacity-wide))), 2)
		}
		whales = append(whales, whale{work: work, wide: wide, k0: k0, k: k0})
	}
	if len(whales) == 0 {
		return false
	}
	// With the whales split, the next values that each do over half a
	// shard's capacity would collide under hash (any two on one shard
	// exceed it): each goes on a dedicated shard of its own (an entry of
	// 1), or more if its re-simulated shard is over capacity.
	ranOut := false // every value the statistics rank was taken
	if len(whales) == overCap {
		ranOut = true
		for _, tv := range ranked[len(whales):] {
			work, wide, _ := a.whaleWork(w, key, tv.Share)
			if work <= w.Capacity/2 || wide >= w.Capacity {
				ranOut = false
				break
			}
			whales = append(whales, whale{work: work, wide: wide, k0: 1, k: 1})
		}
	}
	by := nextKeys(w, key, group)
	if by == nil {
		return false
	}
	// The most common split column is the default's; the others' tables
	// get their own.
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
	var tables []string
	for t, col := range by {
		if col != def {
			tables = append(tables, t)
		}
	}
	sort.Strings(tables)
	over := func(ws []whale) string {
		if len(ws) == 1 {
			return strconv.Itoa(ws[0].k)
		}
		ks := make([]string, len(ws))
		for i, x := range ws {
			ks[i] = strconv.Itoa(x.k)
		}
		return "[" + strings.Join(ks, ", ") + "]"
	}
	design := func(ws []whale) string {
		s := fmt.Sprintf("isolate(%s, top=%d, split=%s, over=%s)", h, len(ws), def, over(ws))
		for _, t := range tables {
			s += fmt.Sprintf("; %s:isolate(%s, top=%d, split=%s, over=%s)", t, h, len(ws), by[t], over(ws))
		}
		return s + rest
	}
	total := func(ws []whale) int {
		m := 0
		for _, x := range ws {
			m += x.k
		}
		return m
	}
	// Each value's count from its K0 up, the whale's shards re-simulated,
	// one more shard for each value whose shards are not all under
	// capacity, at most 8 more than its K0 (as far as the first proposal
	// of this fix searched); a value that would leave no shard to the
	// others is dropped with the lighter ones.
	var best *sim.Candidate
	for len(whales) > 0 && best == nil {
		for total(whales) >= n {
			whales = whales[:len(whales)-1]
		}
		if len(whales) == 0 {
			break
		}
		for {
			x, err := sim.Score(w, design(whales), o)
			if err != nil {
				return false
			}
			grew, stuck := false, false
			off := n - total(whales)
			var hot []int // the values with a shard over capacity
			for i := range whales {
				if y := maxOf(x.ShardWork[off : off+whales[i].k]); y > w.Capacity || whales[i].k > 1 && y > splitTarget(w.Capacity) && whales[i].wide < splitTarget(w.Capacity) {
					hot = append(hot, i)
					if whales[i].k == 1 {
						whales[i].alone = y
					}
				}
				off += whales[i].k
			}
			for _, i := range hot {
				if whales[i].k >= whales[i].k0+8 {
					stuck = true
				} else {
					whales[i].k++
					grew = true
				}
			}
			if stuck {
				if len(whales) == 1 {
					return false
				}
				whales = whales[:len(whales)-1]
				break
			}
			if !grew {
				best = x
				break
			}
			if total(whales) >= n {
				break // the outer loop drops the lightest
			}
		}
	}
	if best == nil {
		return false
	}
	cols := mainColumns(c)
	var pairs []string
	for _, t := range group {
		pairs = append(pairs, fmt.Sprintf("%s by (%s, %s)", t, key, by[t]))
	}
	wideAll := 0.0
	for _, x := range whales {
		wideAll += x.wide * float64(x.k-1)
	}
	more := ""
	if others := overCap - min(len(whales), overCap); others > 0 {
		more = fmt.Sprintf(" %s also alone exceed%s a shard: split %s the same way once %s.", plural(others, "1 more value", fmt.Sprintf("%d more values", others)), plural(others, "s", ""), plural(others, "it", "each"), plural(len(whales), "this one is", "these are"))
	}
	f := Fix{Kind: "split", Key: design(whales), Before: nums(c), After: nums(best)}
	if len(whales) == 1 {
		x := whales[0]
		hv := valueText(cols, ranked[0].Value)
		f.Target = hv
		f.Text = fmt.Sprintf("Whale larger than a shard: %s's ~%s units/s exceed one shard's capacity of %s, so no dedicated shard can hold it: split it over K = %d dedicated shards by a second key level, %s (%s; %s). K is the fewest that leave each of its shards 10%% under capacity (%s/s: the second key's hash splits its rows unevenly, and a fit closer than that is the hash's luck): at least (%s - %s) / (%s - %s) = %.2f by its work, %s tenant-wide reads/s of which ask all K, and %d as re-simulated (its busiest shard %s/s). A read by both keys asks one of its shards; each tenant-wide read asks all %d (+%s units/s); %s of transactions cross shards under the split. Busiest shard: %s/s -> %s/s, %d -> %d shards over capacity.%s",
			hv, fmtF(x.work), fmtF(w.Capacity), x.k, strings.Join(pairs, ", "), design(whales), a.splitHow(key, def),
			fmtF(splitTarget(w.Capacity)), fmtF(x.work), fmtF(x.wide), fmtF(splitTarget(w.Capacity)), fmtF(x.wide), (x.work-x.wide)/(splitTarget(w.Capacity)-x.wide), fmtF(x.wide), x.k, fmtF(maxOf(best.ShardWork[n-x.k:])),
			x.k, fmtF(wideAll), pct(best.CrossShardTxnFraction), fmtF(c.MaxShardWork), fmtF(best.MaxShardWork), len(c.OverCapacity), len(best.OverCapacity), more)
		f.noteRaise(capacityUnit(c), dedicatedWhy(best, n, x.k))
		as.Fixes = append(as.Fixes, f)
		return true
	}
	var names, each, isolated, targets []string
	off := n - total(whales)
	for i, x := range whales {
		hv := valueText(cols, ranked[i].Value)
		targets = append(targets, hv)
		if x.k == 1 {
			isolated = append(isolated, fmt.Sprintf("%s (~%s/s)", hv, fmtF(x.work)))
			continue
		}
		if x.alone > 0 {
			// Under capacity by its share, over it as re-simulated.
			names = append(names, fmt.Sprintf("%s (~%s/s by its share, %s/s on one shard as re-simulated)", hv, fmtF(x.work), fmtF(x.alone)))
			each = append(each, fmt.Sprintf("%s over %d: its one shard did %s/s, its busiest of %d %s/s", hv, x.k, fmtF(x.alone), x.k, fmtF(maxOf(best.ShardWork[off:off+x.k]))))
		} else {
			names = append(names, fmt.Sprintf("%s (~%s/s)", hv, fmtF(x.work)))
			each = append(each, fmt.Sprintf("%s over %d: at least (%s - %s) / (%s - %s) = %.2f, its busiest shard %s/s", hv, x.k, fmtF(x.work), fmtF(x.wide), fmtF(splitTarget(w.Capacity)), fmtF(x.wide), (x.work-x.wide)/(splitTarget(w.Capacity)-x.wide), fmtF(maxOf(best.ShardWork[off:off+x.k]))))
		}
		off += x.k
	}
	iso := ""
	if len(isolated) > 0 {
		iso = fmt.Sprintf(" The next %s each do%s over half a shard's capacity, so any two hashed to one shard exceed it: %s isolated on a dedicated shard of %s own (the 1s in over=).", plural(len(isolated), "value", fmt.Sprintf("%d values", len(isolated))), plural(len(isolated), "es", ""), strings.Join(isolated, ", "), plural(len(isolated), "its", "their"))
		if ranOut && len(whales) == len(ranked) {
			iso += fmt.Sprintf(" The key statistics rank the %d heaviest values only: lighter ones past them may also do over half a shard, and isolating them too (a longer over= list) could lower the busiest shard further.", len(ranked))
		}
	}
	f.Target = fmt.Sprintf("the %d heaviest values of %s (%s to %s)", len(targets), key, targets[0], targets[len(targets)-1])
	f.Text = fmt.Sprintf("%s larger than a shard: %s %s one shard's capacity of %s, so no dedicated shard can hold %s: split %s over dedicated shards of its own by a second key level, %s (%s; %s), %d shards in all. Each split value's K is the fewest that leave each of its shards 10%% under capacity (%s/s: the hash of the second key does not split rows evenly, and a fit closer than that is its luck): at least (its work - its tenant-wide reads) / (%s - its tenant-wide reads), then as re-simulated: %s.%s A read by both keys asks one of its value's shards; each tenant-wide read asks all of them (+%s units/s); %s of transactions cross shards under the split. Busiest shard: %s/s -> %s/s, %d -> %d shards over capacity.%s",
		plural(len(names), "Whale", "Whales"), strings.Join(names, ", "), plural(len(names), "exceeds", "each exceed"), fmtF(w.Capacity), plural(len(names), "it", "one"), plural(len(names), "it", "each"), strings.Join(pairs, ", "), design(whales), a.splitHow(key, def), total(whales),
		fmtF(splitTarget(w.Capacity)), fmtF(splitTarget(w.Capacity)), strings.Join(each, "; "), iso,
		fmtF(wideAll), pct(best.CrossShardTxnFraction), fmtF(c.MaxShardWork), fmtF(best.MaxShardWork), len(c.OverCapacity), len(best.OverCapacity), more)
	f.noteRaise(capacityUnit(c), dedicatedWhy(best, n, total(whales)))
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

// splitTarget is the work a shard of a split whale is sized to: the
// capacity less fitMargin, since the second key's hash splits the whale's
// rows unevenly over its K shards and a closer fit is that hash's luck
// (the thin fit capacity's headline warns of). A whale whose tenant-wide
// reads alone reach it is sized to the capacity (a larger K cannot lower
// reads that ask all K).
func splitTarget(capacity float64) float64 { return capacity * (1 - fitMargin) }
