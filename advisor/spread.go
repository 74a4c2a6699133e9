package advisor

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
)

// spreadFix proposes, for a hash design whose key has few distinct
// values (fewer than 10 per shard, or per node with slots on nodes),
// placing each value on a shard of its own, or the values evenly, when
// the busiest shard is over its fair share because values collide under
// the hash (two on one shard, none on another), not because one value is
// a whale (whaleFix and whaleNote speak of those). With k values hashed
// uniformly onto n shards a shard holds no value with probability
// (1-1/n)^k, so n(1-1/n)^k shards are expected empty and the busiest is
// expected at sim.ExpectedMaxLoadRatio(k, n) times the mean (8 values on
// 8 shards: 2.75 empty, 2.60x); no hash function avoids that, a directory
// placement does. The values are placed greedily, heaviest first, each on
// the least loaded unit (Graham's longest-processing-time rule; each its
// own when k <= n), and the design re-simulated with that map as a
// directory over the hash, named in-memory (sim.Options.Directories). The
// remedy is named in the engine's terms (spreadRemedy). It is proposed
// only when the re-simulated busiest unit is clearly lighter (under 0.9
// times), and it counts in "after fixes".
func (a *analysis) spreadFix(as *Assessment, d *shardkey.Design, w *shardkey.Workload, o sim.Options) {
	c := as.Score
	for _, f := range as.Fixes {
		switch f.Kind {
		case "isolate", "split", "salt", "hot-row":
			return // a whale or a hot row is what loads the busiest shard
		}
	}
	h, ok := d.Default.(*shardkey.HashExpr)
	if !ok || len(h.Cols) != 1 || h.Vindex != "" || len(d.Lookups) > 0 || !strings.HasPrefix(d.Text, d.Default.String()) {
		return
	}
	col := h.Cols[0]
	// Tables with keys of their own keep them (TPC-C's item:hash(i_id)
	// under Redis Cluster, which has no reference tables), unless a key
	// places col too: hashed there and placed by the map here, one value
	// would land on two shards (no longer co-located).
	for _, e := range d.Tables {
		if _, ok := e.(*shardkey.ReplicateExpr); !ok && slices.Contains(e.Columns(), col) {
			return
		}
	}
	units, unit := a.whaleUnits(o.Shards)
	if units < 2 {
		return
	}
	// The values and their weight over every table the bare hash places:
	// the rows' weights (shares of requests), or rows where none are given.
	load := map[shardkey.Value]float64{}
	var vals []shardkey.Value
	for _, t := range w.Tables {
		ci := t.ColumnIndex(col)
		if _, own := d.Tables[t.Name]; own || ci < 0 || t.Rows == 0 {
			continue
		}
		for r := 0; r < t.Rows; r++ {
			v := t.Columns[ci].Value(r)
			if v.IsNull() {
				continue
			}
			v = v.Canonical()
			if _, seen := load[v]; !seen {
				vals = append(vals, v)
			}
			load[v] += t.Weight(r)
			if len(vals) >= 10*units {
				return // not few values: a hash spreads them
			}
		}
	}
	k := len(vals)
	if k < 2 {
		return
	}
	if len(c.TopValues) > 0 && whaleVerdict(c.TopValues[0].Share, mainObservations(c), units) == aWhale {
		return // a whale's own unit: no placement makes it lighter
	}
	busiest := func(x *sim.Candidate) float64 {
		if o.Nodes != nil {
			return slices.Max(x.CapacityWork())
		}
		return x.MaxShardWork
	}
	ratio := func(x *sim.Candidate) float64 {
		if o.Nodes != nil {
			return maxMeanRatio(x.CapacityWork())
		}
		return x.WorkRatio
	}
	// Where the hash puts each value today.
	eng := o.Engine
	if eng == nil {
		eng = partition.Generic{}
	}
	layout, err := eng.Layout(o.Shards)
	if err != nil {
		return
	}
	onUnit := make([]int, units)
	home := map[shardkey.Value]int{} // each value's own slot (with nodes)
	for _, v := range vals {
		p, err := eng.Point([]shardkey.Value{v})
		if err != nil {
			return
		}
		u := layout.Shard(p)
		home[v] = u
		if o.Nodes != nil {
			u = o.Nodes.Node[u]
		}
		onUnit[u]++
	}
	// Heaviest first (ties in value order), each on the least loaded unit
	// (the lowest-numbered on a tie).
	slices.SortStableFunc(vals, func(x, y shardkey.Value) int {
		if load[x] != load[y] {
			if load[x] > load[y] {
				return -1
			}
			return 1
		}
		return shardkey.Compare(x, y)
	})
	unitLoad := make([]float64, units)
	perUnit := make([]int, units)
	dir := map[shardkey.Value]int{}
	for _, v := range vals {
		u := 0
		for j := range unitLoad {
			if unitLoad[j] < unitLoad[u] || unitLoad[j] == unitLoad[u] && perUnit[j] < perUnit[u] {
				u = j
			}
		}
		unitLoad[u] += load[v]
		perUnit[u]++
		sh := u
		if o.Nodes != nil {
			sh = nthSlot(o.Nodes.Node, u, perUnit[u]-1) // a slot of its own on the node
		}
		dir[v] = sh
	}
	name, fresh := a.dirName(col, dir)
	drop := func() {
		if fresh {
			delete(a.dirs, name)
		}
	}
	o.Directories = a.dirs
	rest := strings.TrimPrefix(d.Text, d.Default.String())
	key := fmt.Sprintf("directory(%s, %s)%s", shardkey.QuoteName(col), name, rest)
	x, err := sim.Score(w, key, o)
	if err != nil || busiest(x) >= 0.9*busiest(c) {
		drop()
		return
	}
	// The cause: how the hash placed the values.
	var two, none []string
	most := 0
	for u, m := range onUnit {
		most = max(most, m)
		if m == 0 {
			none = append(none, strconv.Itoa(u))
		}
	}
	for u, m := range onUnit {
		if m == most && m > 1 {
			two = append(two, strconv.Itoa(u))
		}
	}
	if len(two) == 0 {
		drop()
		return // no two values share a unit: the load is the values' own
	}
	unitsName := unit + "s"
	cause := fmt.Sprintf("%s puts %d values on %s %s", a.hashName(), most, plural(len(two), unit, "each of "+unitsName), joinAnd(two))
	if len(none) > 0 {
		cause += fmt.Sprintf(" and none on %s %s", plural(len(none), unit, unitsName), joinAnd(none))
	}
	empty := float64(units) * math.Pow(1-1/float64(units), float64(k))
	expect := fmt.Sprintf("a uniform hash of %d values onto %d %s leaves %d x (1 - 1/%d)^%d = %s of them empty on average, its busiest expected at %.2fx the mean", k, units, unitsName, units, units, k, fmtF(empty), sim.ExpectedMaxLoadRatio(k, units))
	placed := fmt.Sprintf("each value on a %s of its own", unit)
	if k > units {
		placed = fmt.Sprintf("the values spread at most %d to a %s, heaviest first on the least loaded", (k+units-1)/units, unit)
	}
	slices.SortFunc(vals, shardkey.Compare)
	var shown []string
	placement := make([]Placed, len(vals))
	for i, v := range vals {
		placement[i] = Placed{Value: v.String(), Shard: dir[v]}
		if o.Nodes != nil {
			nd, own := o.Nodes.Node[dir[v]], home[v]
			placement[i].Node, placement[i].Slot = &nd, &own
		}
		if i == 12 {
			shown = append(shown, fmt.Sprintf("... (all %d in the fix's placement in JSON and in the file %s, which --write-directories writes)", len(vals), name))
		}
		if i >= 12 {
			continue
		}
		if o.Nodes != nil {
			// The value's own slot is moved to the node (a slot is
			// where the key hashes; no command puts a key in another):
			// the re-simulation stands for it with a free slot of that
			// node, dir[v], the one the directory file names.
			shown = append(shown, fmt.Sprintf("%s (slot %d) -> node %d", v, home[v], o.Nodes.Node[dir[v]]))
			continue
		}
		shown = append(shown, fmt.Sprintf("%s -> %s %d", v, unit, dir[v]))
	}
	text := fmt.Sprintf("Few values, hash collisions: %s has %d distinct values for %d %s, and %s, so the busiest %s does %s/s, %.2fx the mean, though no value is a whale (%s). Place the values explicitly instead: %s Re-simulated with %s (%s; %s %s): busiest %s %s/s -> %s/s, %.2fx -> %.2fx the mean.",
		col, k, units, unitsName, cause, unit, fmtF(busiest(c)), ratio(c), expect,
		a.spreadRemedy(as, w, col, vals, unit, k <= units),
		placed, key, col, strings.Join(shown, ", "), unit, fmtF(busiest(c)), fmtF(busiest(x)), ratio(c), ratio(x))
	if y := a.slotMoves(w, d.Text, o, vals, home, dir); y != nil && math.Abs(busiest(y)-busiest(x)) >= 0.01*busiest(x) {
		// The directory moves col's keys only; a slot moves with every
		// key in it: other tables' keys of the same values too.
		text += fmt.Sprintf(" Moving the slots themselves, each with every key that hashes to it (the keys of %s in them too), gives busiest %s %s/s, %.2fx the mean; the re-simulation moves only %s's keys.",
			strings.TrimPrefix(rest, "; "), unit, fmtF(busiest(y)), ratio(y), col)
	}
	txnAfter := x.CrossShardTxnFraction
	if o.Nodes != nil {
		txnAfter = c.CrossShardTxnFraction // see below: moved slots keep their keys
	}
	switch {
	case c.Transactions == 0 || math.Abs(x.CrossShardTxnFraction-c.CrossShardTxnFraction) < 0.005:
	case o.Nodes != nil:
		// Slots over nodes: the cross-shard share counts slots, and a
		// slot moves whole, with every key that hashes to it, so each
		// transaction's keys are in the same slots after the move as
		// before. The re-simulation's stand-in slot moves only col's
		// keys, apart from the keys of the tables with keys of their own
		// that share the value's slot (TPC-C's stock:hash(w_id) beside
		// hash(d_id): w_id 1 and d_id 1 are both in slot 9842): the
		// share it counts is not what the move does.
		text += fmt.Sprintf(" Cross-slot transactions stay at %s%s: a moved slot keeps its keys, so no transaction's keys change slot (the re-simulation's stand-in slots, which move %s's keys apart from the rest of their slots, count %s).",
			pct(c.CrossShardTxnFraction), a.crossSlotNote(), col, pct(x.CrossShardTxnFraction))
	default:
		// Values that shared a shard kept their transactions local.
		text += fmt.Sprintf(" Cross-shard transactions %s -> %s: the values that shared a %s no longer do.", pct(c.CrossShardTxnFraction), pct(x.CrossShardTxnFraction), unit)
	}
	as.Criteria.txnAfterFixes, as.Criteria.txnAfterSet = txnAfter, true
	as.Fixes = append(as.Fixes, Fix{Kind: "place-values", Target: col, Key: key, Before: nums(c), After: nums(x), Text: text,
		DirectoryFile: name, Placement: placement})
	as.Criteria.AfterFixes = x.MaxShardWork
}

// slotMoves scores design (the hash design the place-values fix treats)
// with slots over nodes as the fix's remedy leaves it: each value's own
// slot, home[v], moved whole to the node of its stand-in slot dir[v], with
// every key that hashes to it (CLUSTER SETSLOT moves a slot, not a key).
// The directory re-simulation moves only the column's keys; design's other
// tables keyed by a hash of the same values (TPC-C's stock:hash(w_id)
// beside hash(d_id)) keep theirs in the moved slots. nil without nodes,
// when design keys no other table, when two values share a slot but not
// a node, or when it cannot be scored.
func (a *analysis) slotMoves(w *shardkey.Workload, design string, o sim.Options, vals []shardkey.Value, home, dir map[shardkey.Value]int) *sim.Candidate {
	if o.Nodes == nil || len(o.Nodes.Node) != o.Shards || !strings.Contains(design, ";") {
		return nil
	}
	moved := &sim.Nodes{Count: o.Nodes.Count, Node: slices.Clone(o.Nodes.Node), How: o.Nodes.How + ", the fix's slots moved"}
	to := map[int]int{}
	for _, v := range vals {
		n := o.Nodes.Node[dir[v]]
		if m, ok := to[home[v]]; ok && m != n {
			return nil
		}
		to[home[v]] = n
		moved.Node[home[v]] = n
	}
	o.Nodes, o.Directories = moved, nil
	y, err := sim.Score(w, design, o)
	if err != nil {
		return nil
	}
	return y
}

// crossSlotNote says, under redis, what a transaction across slots
// costs there: "" under other engines.
func (a *analysis) crossSlotNote() string {
	if engineBase(a.engine) == "redis" {
		return " (Redis Cluster runs a MULTI/EXEC only on keys of one slot, else CROSSSLOT)"
	}
	return ""
}

// dirName returns the name of the in-memory directory file (a.dirs) that
// holds dir, the placement of col's values, adding it as
// COL-placement.csv, or COL-placement-2.csv, -3, ... when another
// candidate's different map of col holds that name: each design's key
// names its own map (the figures are re-scored from it later, and each
// is written as a file of that name). fresh reports whether the name was
// added here (else another fix holds the same map under it).
func (a *analysis) dirName(col string, dir map[shardkey.Value]int) (name string, fresh bool) {
	if a.dirs == nil {
		a.dirs = map[string]map[shardkey.Value]int{}
	}
	for i := 1; ; i++ {
		name = col + "-placement.csv"
		if i > 1 {
			name = fmt.Sprintf("%s-placement-%d.csv", col, i)
		}
		have, ok := a.dirs[name]
		if !ok {
			a.dirs[name] = dir
			return name, true
		}
		if maps.Equal(have, dir) {
			return name, false
		}
	}
}

// WriteDirectory writes placement as a directory file in the format
// directory(col, FILE) reads (sim: "value,shard" lines, CSV-quoted where
// needed), under the header "col,shard". With slots over nodes (Placed.Slot
// set) '#' comment lines come first: the shard column is the slot of the
// target node that the re-simulation stands in with, so that the file
// re-scores to the fix's figures, and each value's own slot (where its keys
// hash, the one to move) with its node is listed there.
func WriteDirectory(wr io.Writer, col string, placement []Placed) error {
	if len(placement) > 0 && placement[0].Slot != nil {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s,shard: the shard column is a slot of the target node that the re-simulation\n", commentSafe(col))
		fmt.Fprintf(&b, "# stands in with, not the value's own slot; no key can be put in another slot.\n")
		fmt.Fprintf(&b, "# To place the values, move each value's own slot (where its keys hash) to its node:\n")
		for _, p := range placement {
			if p.Slot != nil && p.Node != nil {
				fmt.Fprintf(&b, "#   %s: slot %d -> node %d\n", commentSafe(p.Value), *p.Slot, *p.Node)
			}
		}
		if _, err := io.WriteString(wr, b.String()); err != nil {
			return err
		}
	}
	cw := csv.NewWriter(wr)
	if err := cw.Write([]string{col, "shard"}); err != nil {
		return err
	}
	for _, p := range placement {
		if err := cw.Write([]string{p.Value, strconv.Itoa(p.Shard)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// commentSafe keeps a value on its comment line: a line break in it would
// end the comment and start a record.
func commentSafe(s string) string {
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s)
}

// nthSlot returns the i-th slot (from 0, wrapping) that node[] puts on
// node u.
func nthSlot(node []int, u, i int) int {
	var on []int
	for s, n := range node {
		if n == u {
			on = append(on, s)
		}
	}
	return on[i%len(on)]
}

// maxMeanRatio returns max/mean of xs (per-node or per-shard work or
// weight); 0 when they sum to 0.
func maxMeanRatio(xs []float64) float64 {
	total, mx := 0.0, 0.0
	for _, x := range xs {
		total += x
		mx = math.Max(mx, x)
	}
	if total == 0 {
		return 0
	}
	return mx / (total / float64(len(xs)))
}

// hashName names the engine's hash placement.
func (a *analysis) hashName() string {
	switch e := engineBase(a.engine); {
	case e == "citus":
		return "Citus's hash (the distribution column's PostgreSQL hash function, then the shard's hash interval in pg_dist_shard)"
	case strings.HasPrefix(e, "vitess"):
		return "Vitess's hash vindex (the keyspace id's shard range)"
	case e == "redis":
		return "Redis Cluster's CRC16 hash slot (and the slot's master)"
	case e == "mongodb":
		return "MongoDB's hashed shard key (the chunk's range of hashed values)"
	case e == "" || e == "generic":
		return "the hash"
	default:
		return e + "'s hash"
	}
}

func engineBase(name string) string {
	if i := strings.IndexAny(name, "(:"); i >= 0 {
		name = name[:i]
	}
	return strings.TrimSpace(name)
}

// spreadRemedy says, in the engine's terms, how to place each of the few
// values of col on a shard (node) of its own.
//
// own says each value gets a shard (node) of its own (no more values than
// units); otherwise the values are spread evenly over them.
func (a *analysis) spreadRemedy(as *Assessment, w *shardkey.Workload, col string, vals []shardkey.Value, unit string, own bool) string {
	e := engineBase(a.engine)
	whose := "a " + unit + " of its own"
	if !own {
		whose = "the " + unit + "s, spread evenly"
	}
	switch {
	case e == "citus":
		table := ""
		if as.Root != nil && len(as.Root.Tables) > 0 {
			table = as.Root.Tables[0]
		} else {
			for _, t := range w.Tables {
				if t.ColumnIndex(col) >= 0 {
					table = t.Name
					break
				}
			}
		}
		return fmt.Sprintf("under Citus, isolate_tenant_to_new_shard('%s', %s, 'CASCADE') for each value (tenant isolation, a Citus UDF; CASCADE isolates the co-located tables' rows of the value too), then spread those shards evenly over the nodes with citus_rebalance_start(rebalance_strategy := 'by_disk_size') or citus_move_shard_placement (by_shard_count counts the near-empty shards isolation leaves as much as a value's); or pick a shard_count and node count under which these values hash apart, until a value is added.", table, sqlLiteral(vals[0]))
	case strings.HasPrefix(e, "vitess"):
		return "under Vitess a keyspace's shards are keyspace-id ranges of any width: reshard with range boundaries cut between these values' keyspace ids so that each has a shard of its own (or the values spread evenly), or place the values with a custom vindex (a map from " + col + " to a keyspace id of your choosing) instead of the hash vindex."
	case e == "redis":
		move := "move each value's slot to a master of its own"
		if !own {
			move = "spread the values' slots evenly over the masters"
		}
		return "under Redis Cluster hash tags cannot spread so few values (each value's keys share one slot): " + move + " (CLUSTER SETSLOT slot NODE id, or redis-cli --cluster reshard); redis-cli --cluster rebalance evens slot counts, not these slots' traffic."
	case e == "mongodb":
		move := "move each value's chunk to a shard of its own"
		if !own {
			move = "spread the values' chunks evenly over the shards"
		}
		return "under MongoDB " + move + " (moveRange; moveChunk before 6.0) and pin them there with zones (sh.addShardToZone, sh.updateZoneKeyRange over each value's range of the shard key); the balancer evens data size, not these values' traffic."
	}
	switch engineFamily(a.engine) {
	case "cockroachdb", "yugabyte", "kafka", "elasticsearch", "postgres":
		return fmt.Sprintf("%s for each value, so that each has %s (re-simulated as a directory override in front of the hash: directory(%s, FILE), lines value,%s).", a.isolateShort(), whose, shardkey.QuoteName(col), unit)
	case "cassandra":
		return fmt.Sprintf("under Cassandra no node can be given to a value (a partition's node is the owner of its Murmur3 token): add a bucket column to the partition key so that each value's rows spread over several partitions (re-simulated as a directory override in front of the hash: directory(%s, FILE), lines value,%s).", shardkey.QuoteName(col), unit)
	}
	return fmt.Sprintf("a directory override in front of the hash, a map from each value of %s to %s (directory(%s, FILE), lines value,%s).", col, whose, shardkey.QuoteName(col), unit)
}

// sqlLiteral writes v as a SQL literal: numbers bare, text quoted.
func sqlLiteral(v shardkey.Value) string {
	s := v.String()
	if v.Type.IsInt() {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// joinAnd joins words as "a", "a and b", "a, b and c".
func joinAnd(w []string) string {
	if len(w) < 2 {
		return strings.Join(w, "")
	}
	return strings.Join(w[:len(w)-1], ", ") + " and " + w[len(w)-1]
}
