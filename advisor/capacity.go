package advisor

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sim"
)

// Capacity is what the recommended design does against the per-shard
// capacity, before and after every proposed fix, re-simulated.
type Capacity struct {
	// Capacity is the work one shard can do (units/s).
	Capacity float64 `json:"capacity"`
	// Before and After are the design's numbers as scored and with every
	// fix applied; AfterKey is the design the fixes lead to.
	Before   *Nums  `json:"before"`
	After    *Nums  `json:"after"`
	AfterKey string `json:"after_key"`
	// Applied lists the fixes the re-simulation applies; NotSimulated
	// those it cannot (a cache's hit rate is not in the workload).
	Applied      []string `json:"applied"`
	NotSimulated []string `json:"not_simulated,omitempty"`
	// ShardsNeeded is, when the design leaves a shard over capacity
	// with every fix applied on its shard count, the fewest shards (any
	// count, not only powers of two; up to 65,536) that leave none over,
	// of the counts NeedSearch says were searched (see
	// shardCounts.fewest: every count from NeedSearch.From up, each
	// re-scored, so one fewer leaves a shard over or is under
	// NeedSearch.Least, where no placement fits); it can be fewer than
	// the shard count advised for, hash placement not being monotone in
	// the count. It is that shard count itself when nothing is over
	// there (no other count searched), and 0 when no count fits (one
	// key value alone exceeds a shard).
	// With slots over nodes (Per "node") the capacity is a node's:
	// Nodes is the node count, and NodesNeeded the fewest nodes (the
	// slots spread as they are now, contiguous or round-robin; up to one
	// slot a node) that leave no node over it, 0 when none does;
	// ShardsNeeded is then the slot count.
	ShardsNeeded int    `json:"shards_needed"`
	Per          string `json:"per,omitempty"`
	Nodes        int    `json:"nodes,omitempty"`
	NodesNeeded  int    `json:"nodes_needed,omitempty"`
	// NeedSearch is how ShardsNeeded was searched; nil when it was not
	// (nothing over capacity on the shard count, or a node's capacity).
	NeedSearch *ShardSearch `json:"need_search,omitempty"`
	// NeededBusiest is the busiest shard's work (units/s) with every fix
	// applied on ShardsNeeded shards, when they were searched for.
	NeededBusiest float64 `json:"needed_busiest,omitempty"`
	// ThinFit reports that no shard (node) is over capacity after the
	// fixes but the busiest is within fitMargin of it: a fit the hash
	// placement's own variation can undo. ShardsForMargin is then, and
	// also when the ShardsNeeded found is such a thin fit, the fewest
	// shards (searched as ShardsNeeded is, with capacity (1-fitMargin)
	// in place of capacity: MarginSearch) that leave that much to spare,
	// 0 when not searched (a node's capacity) or none does.
	ThinFit         bool         `json:"thin_fit,omitempty"`
	ShardsForMargin int          `json:"shards_for_margin,omitempty"`
	MarginSearch    *ShardSearch `json:"margin_search,omitempty"`
	// BucketsRederived reports that ShardsNeeded and ShardsForMargin
	// (Cassandra nodes) were searched with the whales' bucket counts
	// re-derived for each node count (bucketNodes), not kept at the
	// advised count's. NeededKey and NeededBuckets are then the design
	// on ShardsNeeded nodes and its bucket count for each whale,
	// heaviest first; MarginKey, MarginBuckets and MarginBusiest (units/s)
	// the same on ShardsForMargin nodes. When no count searched fits,
	// LightestShards, LightestBusiest and LightestBuckets are the
	// count searched whose busiest node did least, that work and its
	// bucket counts.
	BucketsRederived bool    `json:"buckets_rederived,omitempty"`
	NeededKey        string  `json:"needed_key,omitempty"`
	NeededBuckets    []int   `json:"needed_buckets,omitempty"`
	MarginKey        string  `json:"margin_key,omitempty"`
	MarginBuckets    []int   `json:"margin_buckets,omitempty"`
	MarginBusiest    float64 `json:"margin_busiest,omitempty"`
	LightestShards   int     `json:"lightest_shards,omitempty"`
	LightestBusiest  float64 `json:"lightest_busiest,omitempty"`
	LightestBuckets  []int   `json:"lightest_buckets,omitempty"`
	// bucketWhales are the whales bucketed, with the work each bucket is
	// sized to, and lightestMean the mean node's work on LightestShards
	// (units/s), for the text.
	bucketWhales []bucketWhale
	bucketNext   bucketWhale
	lightestMean float64
	// roomFrom is the first node count the bucket search scored (the
	// counts under it leave a whale's whole-value reads no room beside
	// the mean node), refinedFrom the count from which it re-scored
	// every count up to ShardsNeeded (the counts under it it stepped
	// over), and neededMult the multiple of the room sizing's counts
	// ShardsNeeded takes (bucketMults), neededTarget the work each
	// bucket is sized to there before it (units/s, roomTarget).
	roomFrom, refinedFrom, neededMult int
	neededTarget                      float64
	// buckets, until shardsNeeded runs, re-derives the bucket fix for a
	// node count (Fix.bucketsAt) with what the other fixes add to its
	// design after it (bucketsRest); nil without a bucket fix sized by
	// capacity.
	buckets     func(n int) []bucketVariant
	bucketsRest string

	engine string // the placement engine's name, for shardCountNote
	shards int    // the shard count advised for
	// kinds are the Fix.Kind of each of Applied, in order.
	kinds []string
	// whale is the design's largest partition when it is a whale
	// (Criteria.Bounded false), named when no shard count fits.
	whale *PartitionValue
	// search, until shardsNeeded runs, is what it searches from.
	search *needSearch
	// raise is what the fixes together raise (raised: "the shards over
	// capacity from 11 to 12"), "" when nothing; raiseWhy the reasons the
	// raising fixes give (Fix.raiseWhy).
	raise    string
	raiseWhy []string
	// uncounted are the caches (or read replicas) the fixes propose,
	// "the cache for workspace_id = 1", which After does not count: a
	// cache's hit rate is not in the workload, and replicas are copies
	// beside the shards.
	uncounted []string
}

// shardCountNote is what engine asks of a shard count other than n's
// multiples: an Elasticsearch index grows in place only by _split, to a
// multiple of its shard count that divides its number_of_routing_shards
// (Split index API), and shrinks only by _shrink, to a factor of its
// shard count, the index read-only and a copy of every shard on one node
// first (Shrink index API); any other count is a new index and a
// reindex. The other engines take any count as it is.
func shardCountNote(engine string, n, need int) string {
	if !strings.HasPrefix(engine, "elasticsearch") || need == n {
		return ""
	}
	if need < n {
		// The fewest that fit can be under n: placement is not
		// monotone in the count.
		if n%need == 0 {
			return fmt.Sprintf("; Elasticsearch shrinks an existing index of %d shards into %d with _shrink (%d is a factor of %d), the index read-only and a copy of every shard on one node first", n, need, need, n)
		}
		return fmt.Sprintf("; Elasticsearch's _shrink takes an existing index of %d shards only to a factor of %d: %d shards is a new index and a reindex", n, n, need)
	}
	if need%n == 0 {
		return fmt.Sprintf("; Elasticsearch splits an existing index of %d shards into %d with _split when its number_of_routing_shards is a multiple of %d, else reindex", n, need, need)
	}
	return fmt.Sprintf("; Elasticsearch's _split takes an existing index of %d shards only to a multiple of %d: %d shards is a new index and a reindex", n, n, need)
}

// AfterFixes is what a candidate's "after fixes" figure (Criteria.AfterFixes)
// is of: the design the fixes lead to, the fixes re-simulated, and the
// figures.
type AfterFixes struct {
	Key     string
	Applied []AppliedFix
	Nums    *Nums
}

// AppliedFix is one fix the "after fixes" figure applies: its Fix.Kind
// and what was applied (Capacity.Applied's text).
type AppliedFix struct {
	Kind, Text string
}

// AfterFixesOf returns what the candidate's "after fixes" figure is of,
// nil when it was not re-simulated.
func (as *Assessment) AfterFixesOf() *AfterFixes { return as.after }

// afterFixes applies every fix proposed for as to a copy of its workload
// and design and scores the result: isolation and salting through the
// design; a replica, a read model or a warehouse takes its operation off
// the serving shards; a global index becomes the lookup(col) the fix
// re-simulated (a lookup table sharded by the column, read first and
// written with every insert and delete of its table); a projection a copy
// of the table keyed by the column, read instead and written with it;
// a shard-encoded id routes a lookup to the row's shard.
func (a *analysis) afterFixes(as *Assessment, o sim.Options) (*shardkey.Workload, string, *sim.Candidate, []AppliedFix, []string) {
	w := as.w
	key := as.Key
	o.Directories = a.dirs
	var applied []AppliedFix
	var skipped []string
	for _, f := range as.Fixes {
		switch f.Kind {
		case "isolate":
			if f.Key == "" {
				// Proposed in words only (no row sample to say which
				// values are hottest): tableWhaleFix.
				skipped = append(skipped, "isolating "+f.Target+" (no row sample to re-simulate it)")
				continue
			}
			key = f.Key
			applied = append(applied, AppliedFix{f.Kind, "isolate " + f.Target})
		case "bucket":
			// Cassandra's bucketing of the whales (bucketFix), in place
			// of an isolation; named only (no Key) when it would not
			// lighten the busiest node or no rows re-simulate it.
			if f.Key == "" {
				skipped = append(skipped, "bucketing "+f.Target+" (named, not re-simulated as a fix)")
				continue
			}
			key = f.Key
			applied = append(applied, AppliedFix{f.Kind, "bucket " + f.Target})
		case "place-values":
			// Each of few values on a shard of its own (spreadFix).
			key = f.Key
			applied = append(applied, AppliedFix{f.Kind, "place each value of " + f.Target + " on its own " + busiestUnit(as.Score)})
		case "split":
			// The split replaces the isolation (proposed after it).
			key = f.Key
			applied = slices.DeleteFunc(applied, func(x AppliedFix) bool { return x.Kind == "isolate" })
			applied = append(applied, AppliedFix{f.Kind, fmt.Sprintf("split %s (%s)", f.Target, f.Key)})
		}
	}
	for _, f := range as.Fixes {
		if f.Kind == "salt" && f.Key != "" {
			// Salt the value on top of the isolation.
			if d, err := shardkey.ParseDesign(key); err == nil && d.Default != nil {
				if sd, err := shardkey.ParseDesign(f.Key); err == nil && sd.Default != nil {
					if s, ok := sd.Default.(*shardkey.SaltExpr); ok {
						rest := strings.TrimPrefix(d.Text, d.Default.String())
						key = fmt.Sprintf("salt(%s, %d, top=%d)%s", d.Default, s.K, s.Top, rest)
						applied = append(applied, AppliedFix{f.Kind, "salt " + f.Target})
					}
				}
			}
		}
	}
	dw := *w
	dw.Ops = append([]*shardkey.Operation(nil), w.Ops...)
	dw.Tables = append([]*shardkey.Table(nil), w.Tables...)
	dw.Txns = append([]shardkey.Txn(nil), w.Txns...)
	opIndex := func(name string) int {
		for i, op := range dw.Ops {
			if op.Name == name {
				return i
			}
		}
		return -1
	}
	d, _ := shardkey.ParseDesign(as.Key)
	as.movedOff, as.movedOps = 0, nil
	for _, f := range as.Fixes {
		i := opIndex(f.Target)
		switch f.Kind {
		case "replica", "read-model":
			if i < 0 {
				continue
			}
			if f.Kind == "read-model" {
				as.movedOff += dw.Ops[i].Rate
				as.movedOps = append(as.movedOps, f.Target)
			}
			dw.Ops = append(dw.Ops[:i:i], dw.Ops[i+1:]...)
			applied = append(applied, AppliedFix{f.Kind, fmt.Sprintf("%s off the serving shards", f.Target)})
		case "global-index":
			// The lookup table the fix re-simulated, added to the
			// design as it stands after the other fixes.
			fd, err := shardkey.ParseDesign(f.Key)
			if i < 0 || f.Key == "" || err != nil {
				continue
			}
			t := dw.Tables[dw.Ops[i].Table]
			for _, l := range fd.LookupsFor(t.Name, func(c string) bool { return t.Column(c) != nil }) {
				if k, ok := addLookup(&dw, key, t.Name, l); ok && k != key {
					key = k
					applied = append(applied, AppliedFix{f.Kind, fmt.Sprintf("%s through %s on %s", f.Target, l, t.Name)})
				}
			}
		case "projection":
			if i < 0 || len(dw.Ops[i].Instances) == 0 {
				continue
			}
			if k, ok := addIndexTable(&dw, i); ok {
				key += "; " + k
				applied = append(applied, AppliedFix{f.Kind, fmt.Sprintf("%s from the projection %s", f.Target, k)})
			}
		case "shard-encoded-id":
			if i < 0 || d == nil {
				continue
			}
			if encodeShard(&dw, i, d) {
				applied = append(applied, AppliedFix{f.Kind, f.Target + " by its shard-encoded id"})
			}
		case "cache":
			skipped = append(skipped, "a cache for "+f.Target+" (its hit rate is not in the workload)")
		case "write-by-key", "key-on-insert":
			skipped = append(skipped, "writing "+f.Target+" by key (which keys it touches is not in the workload)")
		case "compound-key":
			skipped = append(skipped, "a compound shard key for "+f.Target+" (another design: compare it)")
		case "range-key":
			skipped = append(skipped, "a range key for "+f.Target+" (another design: compare it)")
		case "shard-count":
			skipped = append(skipped, fmt.Sprintf("%d shards for %s (another shard count: its own figures)", f.Shards, f.Target))
		}
	}
	c, err := sim.Score(&dw, key, o)
	if err != nil {
		return nil, "", nil, nil, nil
	}
	return &dw, key, c, applied, skipped
}

// addIndexTable adds to w a projection for operation i: a copy of its
// table's rows keyed by the column it looks up (its first equality),
// which the operation reads instead, and which every write of the
// operation's table that binds the column writes too (synchronous
// maintenance, so a transaction's writes may cross shards). It returns
// the copy's design entry.
func addIndexTable(w *shardkey.Workload, i int) (string, bool) {
	op := w.Ops[i]
	t := w.Tables[op.Table]
	col := -1
	for _, c := range op.Instances[0].Conds {
		if c.Op == shardkey.Eq || c.Op == shardkey.In {
			col = c.Col
			break
		}
	}
	if col < 0 {
		return "", false
	}
	name := fmt.Sprintf("%s_by_%s", t.Name, t.Columns[col].Name)
	if w.TableIndex(name) >= 0 {
		return "", false
	}
	idx := &shardkey.Table{Name: name, Columns: []*shardkey.Column{t.Columns[col]}, Rows: t.Rows}
	w.Tables = append(w.Tables, idx)
	ti := len(w.Tables) - 1
	only := func(conds []shardkey.Cond) ([]shardkey.Cond, bool) {
		for _, c := range conds {
			if c.Col == col {
				c.Col = 0
				return []shardkey.Cond{c}, true
			}
		}
		return nil, false
	}
	read := *op
	read.Table = ti
	read.Instances = make([]shardkey.Instance, 0, len(op.Instances))
	for _, in := range op.Instances {
		if cs, ok := only(in.Conds); ok {
			read.Instances = append(read.Instances, shardkey.Instance{Weight: in.Weight, Conds: cs})
		}
	}
	w.Ops[i] = &read
	n := len(w.Ops)
	for _, o := range w.Ops[:n] {
		if o.Table != op.Table || !o.Kind.IsWrite() {
			continue
		}
		twin := *o
		twin.Name = o.Name + " (index)"
		twin.Table = ti
		twin.Instances = nil
		for _, in := range o.Instances {
			if cs, ok := only(in.Conds); ok {
				twin.Instances = append(twin.Instances, shardkey.Instance{Weight: in.Weight, Conds: cs})
			}
		}
		if len(twin.Instances) > 0 {
			w.Ops = append(w.Ops, &twin)
		}
	}
	for k, tx := range w.Txns {
		var add []shardkey.Stmt
		for _, st := range tx.Stmts {
			if st.Table == op.Table && st.Kind.IsWrite() {
				if cs, ok := only(st.Conds); ok {
					add = append(add, shardkey.Stmt{Table: ti, Kind: st.Kind, Conds: cs})
				}
			}
		}
		if len(add) > 0 {
			w.Txns[k].Stmts = append(append([]shardkey.Stmt(nil), tx.Stmts...), add...)
		}
	}
	return shardkey.QuoteName(name) + ":hash(" + shardkey.QuoteName(t.Columns[col].Name) + ")", true
}

// encodeShard makes operation i's lookups by an id carry the key value of
// the row the id names (the id encodes the row's shard), from the table's
// row sample.
func encodeShard(w *shardkey.Workload, i int, d *shardkey.Design) bool {
	op := w.Ops[i]
	t := w.Tables[op.Table]
	e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
	if e == nil || len(e.Columns()) != 1 || len(op.Instances) == 0 {
		return false
	}
	kc := t.ColumnIndex(e.Columns()[0])
	idc := -1
	for _, c := range op.Instances[0].Conds {
		if c.Op == shardkey.Eq && c.Col != kc {
			idc = c.Col
			break
		}
	}
	if kc < 0 || idc < 0 {
		return false
	}
	m := map[shardkey.Value]shardkey.Value{}
	for r := 0; r < t.Rows; r++ {
		m[t.Columns[idc].Value(r).Canonical()] = t.Columns[kc].Value(r)
	}
	nop := *op
	nop.Instances = make([]shardkey.Instance, len(op.Instances))
	for j, in := range op.Instances {
		in.Conds = withRoot(in.Conds, idc, kc, func(v shardkey.Value) (shardkey.Value, bool) {
			x, ok := m[v.Canonical()]
			return x, ok && !x.IsNull()
		})
		nop.Instances[j] = in
	}
	w.Ops[i] = &nop
	return true
}

// capacityCheck fills as's after-fixes figure and, when the workload has
// a capacity, the design's figures against it before and after its
// fixes. What it takes to bring every shard under it (ShardsNeeded,
// NodesNeeded: a search over shard or node counts, each a re-score) is
// left to shardsNeeded, asked of the recommended design only.
func (a *analysis) capacityCheck(as *Assessment, o sim.Options) *Capacity {
	o.Directories = a.dirs // a place-values fix's map, for the search too
	dw, key, c, applied, skipped := a.afterFixes(as, o)
	if c == nil {
		return nil
	}
	as.Criteria.AfterFixes = c.MaxShardWork
	as.after = &AfterFixes{Key: key, Applied: applied, Nums: nums(c)}
	texts := make([]string, len(applied))
	kinds := make([]string, len(applied))
	for i, x := range applied {
		texts[i], kinds[i] = x.Text, x.Kind
	}
	capacity := as.w.Capacity
	if capacity <= 0 {
		return nil
	}
	out := &Capacity{Capacity: capacity, Before: nums(as.Score), After: nums(c), AfterKey: key, Applied: texts, NotSimulated: skipped, engine: o.Engine.Name(), shards: o.Shards, kinds: kinds,
		search: &needSearch{w: dw, key: key, c: c, o: o}}
	if !as.Criteria.Bounded {
		out.whale = as.Criteria.LargestOf
	}
	if as.Score.CapacityPer == "node" && o.Nodes != nil {
		out.Per, out.Nodes = "node", o.Nodes.Count
	}
	out.raise = raised(out.Before, out.After, capacityUnitOf(out))
	for _, f := range as.Fixes {
		if f.Kind == "bucket" && f.bucketsAt != nil && out.Per != "node" && strings.HasPrefix(key, f.Key) {
			// The other fixes add to the bucket fix's design after it
			// (a lookup, a projection): kept for each node count.
			out.buckets, out.bucketsRest = f.bucketsAt, key[len(f.Key):]
		}
		if f.Kind == "cache" {
			what := "the cache for " + f.Target
			if f.replicas > 0 {
				what = fmt.Sprintf("the cache or %d read replicas for %s", f.replicas, f.Target)
			}
			out.uncounted = append(out.uncounted, what)
		}
		if f.raiseWhy != "" && !slices.Contains(out.raiseWhy, f.raiseWhy) {
			out.raiseWhy = append(out.raiseWhy, f.raiseWhy)
		}
	}
	return out
}

// fitMargin is how far under the capacity a design's busiest shard (node)
// after its fixes must be for the ranking to put it before a design that
// never fits (judgeFit): the busiest of many hashed keys moves by about
// this much with the hash placement alone (workspace's hash(page_id);
// members:replicate after its fixes: 792/s under Citus's hash, 884/s
// under the default engine's, on the same workload), so a fit by less is
// within the figure's own noise, not a reason to leave the key that keeps
// the operations on one shard.
const fitMargin = 0.10

// judgeFit sets fitsAfter on each viable design of list whose busiest
// shard (node) after its fixes is under the capacity by fitMargin and,
// when some is, neverFits on each viable design that no shard (node) count
// brings under it (shardsNeeded: a search, run only then).
func judgeFit(list []*Assessment) {
	some := false
	for _, as := range list {
		cp := as.capacity
		if !as.Viable || cp == nil || cp.After == nil || cp.After.OverCapacity > 0 {
			continue
		}
		if cp.After.busiest(cp) <= (1-fitMargin)*cp.Capacity {
			as.fitsAfter, some = true, true
			continue
		}
		cp.ThinFit = true
		if cp.Per != "node" && cp.search != nil {
			forMargin(cp, cp.search.counts())
		}
	}
	if !some {
		return
	}
	for _, as := range list {
		if cp := as.capacity; as.Viable && !as.fitsAfter && cp != nil && cp.After != nil {
			if cp.Per == "node" {
				shardsNeeded(cp)
				as.neverFits = cp.NodesNeeded == 0
			} else {
				as.neverFits = !fitsSomewhere(cp)
			}
		}
	}
}

// fitsSomewhere reports whether some shard count leaves no shard over
// cp's capacity with every fix applied: the doubling of the search for
// the fewest (shardCounts.double), not its scan of every count below,
// which only the recommended design's headline needs (shardsNeeded) and
// which reuses the counts scored here.
func fitsSomewhere(cp *Capacity) bool {
	s := cp.search
	if s == nil {
		return cp.ShardsNeeded > 0
	}
	if len(s.c.OverCapacity) == 0 {
		return true
	}
	_, hi, _ := s.counts().double(noneOver)
	return hi > 0
}

// busiest is n's busiest unit's work, the node's when cp's capacity is a
// node's.
func (n *Nums) busiest(cp *Capacity) float64 {
	if cp != nil && cp.Per == "node" {
		return n.MaxNodeWork
	}
	return n.MaxShardWork
}

// needSearch is what shardsNeeded searches from: the design after fixes,
// its workload, its score and the options it was scored with; sc, once
// made, the counts scored.
type needSearch struct {
	w   *shardkey.Workload
	key string
	c   *sim.Candidate
	o   sim.Options
	sc  *shardCounts
}

// counts returns the shard counts of s's design, made on first use.
func (s *needSearch) counts() *shardCounts {
	if s.sc == nil {
		k := 0
		for _, op := range s.w.Ops {
			k += len(op.Instances)
		}
		s.sc = newShardCounts(s.o.Shards, s.c, rescorer(s.w, s.key, s.o), k)
	}
	return s.sc
}

// forMargin sets cp's ShardsForMargin and MarginSearch: the fewest shards
// of sc leaving no shard over capacity and the busiest with fitMargin to
// spare.
func forMargin(cp *Capacity, sc *shardCounts) {
	margin := (1 - fitMargin) * cp.Capacity
	cp.ShardsForMargin, cp.MarginSearch = sc.fewest(margin, func(x *sim.Candidate) bool {
		return len(x.OverCapacity) == 0 && x.MaxShardWork <= margin*(1+1e-12)
	})
}

// shardsNeeded fills cp's ShardsNeeded (and, with slots over nodes,
// NodesNeeded): the fewest shards (nodes) that leave none over capacity
// with every fix applied. Once per Capacity; nil cp is a no-op.
func shardsNeeded(cp *Capacity) {
	if cp == nil || cp.search == nil {
		return
	}
	s := cp.search
	cp.search = nil
	c, o := s.c, s.o
	if c.CapacityPer == "node" && o.Nodes != nil {
		// A node's capacity: more nodes share the same slots' work.
		cp.ShardsNeeded = o.Shards
		if len(c.OverCapacity) == 0 {
			cp.NodesNeeded = o.Nodes.Count
			return
		}
		if c.NodeWorkFloor() > c.Capacity*(1+1e-12) {
			// The busiest slot alone is over a node's capacity: no
			// node count fits (each of up to o.Shards nodes tried
			// would cost a pass over every slot).
			return
		}
		how := o.Nodes.How
		if how != "round-robin" {
			how = "contiguous"
		}
		for n := o.Nodes.Count + 1; n <= o.Shards; n++ {
			m, err := sim.NewNodes(o.Shards, n, how)
			if err != nil {
				break
			}
			if len(c.OnNodes(m).OverCapacity) == 0 {
				cp.NodesNeeded = n
				break
			}
		}
		return
	}
	if len(c.OverCapacity) == 0 {
		cp.ShardsNeeded = o.Shards
		return
	}
	if cp.buckets != nil {
		bucketNodes(cp, s)
		return
	}
	sc := s.counts()
	cp.ShardsNeeded, cp.NeedSearch = sc.fewest(cp.Capacity, noneOver)
	if cp.ShardsNeeded == 0 {
		return
	}
	cp.NeededBusiest = sc.at(cp.ShardsNeeded).MaxShardWork
	if cp.NeededBusiest > (1-fitMargin)*cp.Capacity {
		// A thin fit: the count that leaves fitMargin to spare.
		forMargin(cp, sc)
	}
}

// spreadApplied says how the applied fixes (their kinds) spread the
// whales over more than one shard ("split", "bucketed", "salted"), ""
// when none does.
func spreadApplied(kinds []string) string {
	for _, k := range kinds {
		switch k {
		case "split":
			return "split"
		case "bucket":
			return "bucketed"
		case "salt":
			return "salted"
		}
	}
	return ""
}

// packingNote says, when the whales are split and hashing the other
// values still needs far more shards than their work does, that the gap
// is values colliding under hash: no placement fits on fewer than the
// work after fixes over one shard's capacity (the work does not fall
// with more shards: a scatter asks them all), and a directory placing
// the values by their load can close much of the gap where hash cannot.
func packingNote(cp *Capacity) string {
	if !slices.Contains(cp.kinds, "split") || cp.After == nil || cp.Capacity <= 0 {
		return ""
	}
	least := int(math.Ceil(cp.After.WorkPerS / cp.Capacity))
	if least <= 0 || 2*cp.ShardsNeeded < 3*least {
		return ""
	}
	return fmt.Sprintf("; no placement fits on fewer than %d (%s units/s of work after fixes at %s a shard): the rest of the %d is values colliding under hash, which a directory placing values by their load (%s) narrows", least, fmtF(cp.After.WorkPerS), fmtF(cp.Capacity), cp.ShardsNeeded, (&analysis{engine: cp.engine}).packingHow())
}

// capacityText is the headline about capacity: first in the summary.
// When the fixes raise the shards (nodes) over capacity or the busiest,
// it ends by saying so and why.
func capacityText(cp *Capacity, n int) string {
	if cp == nil || cp.Before.OverCapacity == 0 {
		return ""
	}
	s := capacityHead(cp, n)
	if cp.raise != "" {
		s += " Its fixes raise " + cp.raise
		if len(cp.raiseWhy) > 0 {
			s += ": " + strings.Join(cp.raiseWhy, "; ")
		}
		s += "."
	}
	return s
}

// capacityHead is capacityText without what the fixes raise.
func capacityHead(cp *Capacity, n int) string {
	over := cp.Before.OverCapacity
	if cp.Per == "node" {
		return nodesCapacityText(cp)
	}
	who := fmt.Sprintf("%d of %d shards %s", over, n, plural(over, "exceeds", "exceed"))
	if n == 1 {
		who = "the only shard exceeds"
	}
	head := fmt.Sprintf("Over capacity: %s %s units/s (busiest %s/s)", who, fmtF(cp.Capacity), fmtF(cp.Before.MaxShardWork))
	with := "no fix applies"
	if len(cp.NotSimulated) > 0 && cp.whale != nil {
		// The whale's fixes are proposed, but none could be scored.
		with = "no proposed fix could be re-simulated (" + strings.Join(cp.NotSimulated, "; ") + ")"
	}
	if len(cp.Applied) > 0 {
		with = "with every proposed fix applied and re-simulated (" + strings.Join(cp.Applied, "; ") + ")"
		switch {
		case cp.After.OverCapacity == 0:
			return fmt.Sprintf("%s. %s, every shard is under it: busiest %s/s%s.", head, upper(with), fmtF(cp.After.MaxShardWork), thinNote(cp))
		default:
			still := "still "
			if cp.After.OverCapacity > over {
				still = ""
			}
			uncounted := ""
			if len(cp.uncounted) > 0 {
				uncounted = "; " + uncountedText(cp)
			}
			with += fmt.Sprintf(", %d %s%s (busiest %s/s%s)", cp.After.OverCapacity, still, plural(cp.After.OverCapacity, "does", "do"), fmtF(cp.After.MaxShardWork), uncounted)
		}
	}
	if cp.BucketsRederived {
		return fmt.Sprintf("%s; %s. %s.", head, with, bucketNodesText(cp))
	}
	if cp.ShardsNeeded > 0 {
		return fmt.Sprintf("%s; %s. %s%s%s.", head, with, neededText(cp, n), shardCountNote(cp.engine, n, cp.ShardsNeeded), packingNote(cp))
	}
	if spread := spreadApplied(cp.kinds); spread != "" {
		// The whale is no longer on one shard: what stays on the busiest
		// is heavy values sharing it, or scatter-gather.
		remedy := "spread the whales further or place the heavy values by a directory"
		if strings.HasPrefix(cp.engine, "cassandra") {
			remedy = "raise the whales' bucket counts (more, lighter partitions)" // no directory in Cassandra
			if mean := cp.After.WorkPerS / float64(n); n > 0 && mean >= 0.8*cp.Capacity {
				// Near the capacity on average, hashed partitions leave
				// nodes over whatever the counts: more buckets only add
				// whole-value reads.
				remedy = fmt.Sprintf("add nodes (the mean node does %s/s after fixes, %.0f%% of the capacity: too near it for hashed partitions to stay under whatever the bucket counts)", fmtF(mean), 100*mean/cp.Capacity)
			}
		}
		asIs := "(as re-simulated)"
		if spread == "bucketed" {
			// The bucket count K was chosen for this node count; more
			// nodes with the same K are what was re-simulated.
			asIs = "at these bucket counts (as re-simulated: more nodes may take more buckets, re-run the advice with --shards)"
		}
		return fmt.Sprintf("%s; %s, and adding shards does not bring the busiest under it %s: with the whales %s, what remains on the busiest shard is heavy values sharing it (the whales' own shards or buckets and the values hashed beside them) or every shard's share of scatter-gather; %s, cache the hot reads, or move the scatter-gather operations off the serving shards.", head, with, asIs, spread, remedy)
	}
	if p := cp.whale; p != nil {
		return fmt.Sprintf("%s; %s, and adding shards does not bring the busiest under it: its work is one key value's, the whale %s (%s %s), which every shard count keeps on one shard, or every shard's share of scatter-gather; cache the whale's reads, salt its writes, or move the scatter-gather operations off the serving shards.", head, with, p.Name(), pct(p.Share), p.Of())
	}
	return fmt.Sprintf("%s; %s, and adding shards does not bring the busiest under it: its work is one key value's or every shard's share of scatter-gather; cache the hot reads, salt the hot writes, or move the scatter-gather operations off the serving shards.", head, with)
}

// neededText says how many shards bring every shard under cp's capacity
// with the fixes applied (advised for n), of which counts searched, and,
// when that count's fit is thin, how thin and what count leaves
// fitMargin to spare: "105 shards bring every shard under it, the fewest
// that do: every count from 55 (43,900 requests/s at 800 a shard, each
// request a unit of work on at least one shard: no fewer can fit) to
// 104, each re-scored, leaves a shard over (hash placement is not
// monotone in the shard count) (of the 8 counts above it, 2 also fit:
// ...); on 105 the busiest does 779/s, 3% to spare, within the hash
// placement's own variation, and 10% to spare at 116 shards (...)".
func neededText(cp *Capacity, n int) string {
	need := cp.ShardsNeeded
	s := fmt.Sprintf("%d shards bring every shard under it", need)
	if need < n {
		s = fmt.Sprintf("%d shards, fewer than these %d, bring every shard under it", need, n)
	}
	if ss := cp.NeedSearch; ss != nil {
		least := fmt.Sprintf("%s requests/s at %s a shard, each request a unit of work on at least one shard: no fewer can fit", fmtF(ss.RequestsPerS), fmtF(cp.Capacity))
		switch {
		case ss.From > ss.Least:
			// A bounded search: the counts below From were not tried.
			below := fmt.Sprintf("every count from %d to %d, each re-scored, leaves a shard over (%s); ", ss.From, need-1, notMonotone(cp))
			if need == ss.From {
				below = ""
			}
			s += fmt.Sprintf(", the fewest of the counts from %d to %d searched: %sthe counts from %d (%s) to %d were not tried (a bounded search: one count at a time from %d)", ss.From, ss.To, below, ss.Least, least, ss.From-1, ss.From)
		case need == ss.From:
			s += fmt.Sprintf(", the fewest that can (%s)", least)
		case need-1 == ss.From:
			s += fmt.Sprintf(", the fewest that do: %d (%s) leaves a shard over", ss.From, least)
		default:
			s += fmt.Sprintf(", the fewest that do: every count from %d (%s) to %d, each re-scored, leaves a shard over (%s)", ss.From, least, need-1, notMonotone(cp))
		}
	}
	s += aboveText(cp.NeedSearch, "fit")
	if b := cp.NeededBusiest; b > (1-fitMargin)*cp.Capacity {
		s += fmt.Sprintf("; on %d the busiest does %s/s, %s to spare, within the hash placement's own variation%s", need, fmtF(b), spare(1-b/cp.Capacity), marginText(cp, need))
	}
	return s
}

// marginText is what a thin fit's word on than shards ends with: ", and
// 10% to spare at 130 shards", ", and no count up to 256 leaves 10% to
// spare: ...", or "" when the margin was not searched for.
func marginText(cp *Capacity, than int) string {
	if cp.ShardsForMargin > 0 {
		return fmt.Sprintf(", and %s to spare at %d shards%s%s", spare(fitMargin), cp.ShardsForMargin, fewerNote(cp.ShardsForMargin, than), marginAbove(cp))
	}
	if ss := cp.MarginSearch; ss != nil {
		why := "one key value's work or every shard's share of scatter-gather"
		if spreadApplied(cp.kinds) != "" {
			why = "a whale's own shards or buckets, whose counts, not the shard count, set their work; one key value's work; or every shard's share of scatter-gather"
		}
		return fmt.Sprintf(", and no count up to %d leaves %s to spare: the busiest stops falling by then (%s)", ss.Upto, spare(fitMargin), why)
	}
	return ""
}

// marginAbove is what the margin count's neighbours say (aboveText), short
// when the needed count's already said it.
func marginAbove(cp *Capacity) string {
	what := fmt.Sprintf("leave %s", spare(fitMargin))
	if aboveText(cp.NeedSearch, "fit") != "" {
		return aboveShort(cp.MarginSearch, what)
	}
	return aboveText(cp.MarginSearch, what)
}

// notMonotone says why a count of shards may fit where a larger one
// does not: under hash placement the values' shards change with the
// count; ranges hold whole key values, so a count that does not divide
// them evenly leaves one range heavier (10 warehouses on 6 to 9 shards:
// one range holds 2 of them).
func notMonotone(cp *Capacity) string {
	if strings.Contains(cp.AfterKey, "range(") && !strings.Contains(cp.AfterKey, "hash(") {
		return "ranges hold whole key values: a count that does not divide them evenly leaves a range with more of them"
	}
	return "hash placement is not monotone in the shard count"
}

// fewerNote is what a count m that leaves more to spare than the count
// of the figure beside it (than) says of being fewer: ", fewer than 32:
// hash placement is not monotone in the shard count", "" when m is more
// or than is not known (0).
func fewerNote(m, than int) string {
	if than <= 0 || m >= than {
		return ""
	}
	return fmt.Sprintf(", fewer than %d: hash placement is not monotone in the shard count", than)
}

// nodesCapacityText is capacityText when the capacity is a node's (slots
// over nodes): it counts nodes, each judged on its slots' summed work.
func nodesCapacityText(cp *Capacity) string {
	over, n := cp.Before.OverCapacity, cp.Nodes
	who := fmt.Sprintf("%d of %d nodes %s", over, n, plural(over, "exceeds", "exceed"))
	if n == 1 {
		who = "the only node exceeds"
	}
	head := fmt.Sprintf("Over capacity: %s %s units/s, a node's work being its slots' summed (busiest node %s/s)", who, fmtF(cp.Capacity), fmtF(cp.Before.MaxNodeWork))
	with := "no fix applies"
	if len(cp.Applied) > 0 {
		with = "with every proposed fix applied and re-simulated (" + strings.Join(cp.Applied, "; ") + ")"
		if cp.After.OverCapacity == 0 {
			return fmt.Sprintf("%s. %s, every node is under it: busiest node %s/s%s.", head, upper(with), fmtF(cp.After.MaxNodeWork), thinNote(cp))
		}
		still := "still "
		if cp.After.OverCapacity > over {
			still = ""
		}
		with += fmt.Sprintf(", %d %s%s (busiest node %s/s)", cp.After.OverCapacity, still, plural(cp.After.OverCapacity, "does", "do"), fmtF(cp.After.MaxNodeWork))
	}
	if cp.NodesNeeded > 0 {
		return fmt.Sprintf("%s; %s. %d nodes bring every node under it (the %d slots spread over more nodes).", head, with, cp.NodesNeeded, cp.ShardsNeeded)
	}
	return fmt.Sprintf("%s; %s, and no node count up to one slot a node brings the busiest under it: one slot alone exceeds a node's capacity; cache the hot reads, salt the hot writes, or add slots.", head, with)
}

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// noneOver reports whether x leaves no shard (node) over capacity.
func noneOver(x *sim.Candidate) bool { return len(x.OverCapacity) == 0 }
