package advisor

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/numfmt"
	"github.com/shardkey/shardkey/reshard"
	"github.com/shardkey/shardkey/sim"
)

// Cassandra whales: bucketing.
//
// Cassandra has no directory: a row's partition is placed by the Murmur3
// token of its whole partition key (Murmur3Partitioner.getToken), and
// the node owning the token's range holds it (with the next RF-1
// replicas on the ring), so no node can be given to one key value. A
// value too large or too busy for one partition (a wide partition, a hot
// partition) is split by bucketing: a bucket column joins the partition
// key, PRIMARY KEY ((tenant_id, bucket), ...), the value's rows are
// written over K buckets, and each read of the value queries all K
// partitions (the read fan-out salting adds, which is how the advisor
// re-simulates it: salt(hash(tenant_id), K, top=N)).

// cassandraPartitionBytes is Cassandra's large-partition warning:
// cassandra.yaml compaction_large_partition_warning_threshold_mb, 100 by
// default (CASSANDRA-9643, Cassandra 2.1 to 4.0;
// compaction_large_partition_warning_threshold: 100MiB in 4.1), the
// bound partitions are kept under.
const cassandraPartitionBytes = 100 << 20

// cassandraTerms reports whether engine is Cassandra's (cassandra, or
// cassandra(num_tokens=..., seed=...)).
func cassandraTerms(engine string) bool { return strings.HasPrefix(engine, "cassandra") }

// bucketSpec is a whale fix to word and re-simulate as Cassandra
// bucketing: the key expression e of the whale's tables, design making
// the design's text with each of tables keyed by the expression ex gives
// it, the whale values named (their text, heaviest first), the heaviest
// one's share of what "of" says, where (the entity group or tables the
// value's rows are in), and the tables keyed by e, whose partitions the
// size bound applies to.
type bucketSpec struct {
	e      shardkey.Expr
	design func(ex func(table string) string) (string, bool)
	vals   []string
	share  float64
	of     string
	where  string
	tables []string
	// top is every value the statistics rank, heaviest first, and name
	// writes one as vals does: with a capacity, the values to bucket are
	// chosen from them by their work (bucketByCapacity).
	top  []sim.TopValue
	name func(sim.TopValue) string
}

// bucketWhale is a value bucketing spreads, with the figures its bucket
// count follows: its work W (requests/s on the tables that carry the key
// column, its share of each operation's rate), and R, the part of it one
// bucket still carries whatever K: reads of the whole value, which query
// every bucket (with by=, the reads that bind the key alone; without, all
// of its reads).
type bucketWhale struct {
	name    string
	work, r float64
	share   float64 // of the rows, as spec.top ranks it
	// target is the work T a bucket is sized to: splitTarget(C), 10%
	// under the capacity C (token placement, like the split's hash,
	// does not share a value's work evenly over its buckets), or C when
	// R alone reaches that.
	target float64
	k      int // ceil((W - R) / (T - R))
}

// bucketByCapacity chooses, under a capacity C, the values to bucket and
// each one's bucket count by the split fix's rule (splitFix): a bucket of
// a value with work W, R of it reads that query every bucket, does
// (W - R) / K + R, at most T = splitTarget(C) (10% under C) when
// K >= (W - R) / (T - R) (T = C when R alone reaches 0.9 C). Values are taken
// heaviest first while each does over C (a value under it fits one node
// and keeps bucket 0) and its whole-value reads R stay under C (no bucket
// count helps those). by says whether a row's bucket is the hash of the
// next key (salt by=), which decides R. Each value keeps its own K (the
// application keeps each whale's bucket count): one count for all of them
// would make every smaller whale's whole-value reads query buckets it
// does not need. None when the heaviest is not over C.
func (a *analysis) bucketByCapacity(w *shardkey.Workload, spec bucketSpec, col string, by bool) []bucketWhale {
	c := w.Capacity
	var out []bucketWhale
	for _, tv := range spec.top {
		work, wide, _ := a.whaleWork(w, col, tv.Share)
		r := wide
		if !by {
			r = work - a.bucketWrites(w, col, tv.Share)
		}
		if work <= c || r >= c {
			break
		}
		t := splitTarget(c)
		if r >= t {
			t = c // a larger K cannot lower reads that ask all K
		}
		out = append(out, bucketWhale{name: spec.name(tv), work: work, r: r, share: tv.Share, target: t,
			k: int(math.Ceil((work-r)/(t-r) - 1e-9))})
	}
	return out
}

// bucketWrites is the writes/s of a value with the given share on the
// tables that carry col (whaleWork's writes).
func (a *analysis) bucketWrites(w *shardkey.Workload, col string, share float64) float64 {
	writes := 0.0
	for _, op := range w.Ops {
		if op.Table < 0 || op.Table >= len(w.Tables) || w.Tables[op.Table].ColumnIndex(col) < 0 {
			continue
		}
		if op.Kind.IsWrite() {
			writes += op.Rate * share
		}
	}
	return writes
}

// defaultDesign is bucketSpec.design for tables placed by design d's
// bare expression: the expression most of them get becomes the bare
// one, each other table an entry of its own; rest is d's text after its
// bare expression.
func defaultDesign(tables []string, rest string) func(ex func(string) string) (string, bool) {
	return func(ex func(string) string) (string, bool) {
		count := map[string]int{}
		def := ""
		for _, t := range tables {
			x := ex(t)
			count[x]++
			if count[x] > count[def] || count[x] == count[def] && x < def {
				def = x
			}
		}
		s := def
		for _, t := range tables {
			if x := ex(t); x != def {
				s += fmt.Sprintf("; %s:%s", shardkey.QuoteName(t), x)
			}
		}
		return s + rest, def != ""
	}
}

// tablesDesign is bucketSpec.design for tables keyed by entries of their
// own in design d.
func tablesDesign(d *shardkey.Design, tables []string) func(ex func(string) string) (string, bool) {
	return func(ex func(string) string) (string, bool) {
		if len(tables) == 0 {
			return replaceExpr(d, nil, ex(""))
		}
		cur := d
		var s string
		for _, t := range tables {
			var ok bool
			if s, ok = replaceExpr(cur, []string{t}, ex(t)); !ok {
				return "", false
			}
			var err error
			if cur, err = shardkey.ParseDesign(s); err != nil {
				return "", false
			}
		}
		return s, true
	}
}

// widestPartition returns the estimated bytes of the widest partition of
// tables (each keyed by the one column col), the table it is in and its
// sampled rows, and whether the bytes are the table's (its row count
// known from the catalog, the sample's rows scaled to it) or the
// sample's (a lower bound). The bytes are the value's sampled rows times
// the table's estimated row bytes (reshard.EstimateRowBytes). 0 when no
// table has rows.
func (a *analysis) widestPartition(tables []string, col string) (bytes float64, table string, rows int, scaled bool) {
	for _, name := range tables {
		ti := a.w.TableIndex(name)
		if ti < 0 {
			continue
		}
		t := a.w.Tables[ti]
		ci := t.ColumnIndex(col)
		if ci < 0 || t.Rows == 0 {
			continue
		}
		count := map[shardkey.Value]int{}
		most := 0
		for i := 0; i < t.Rows; i++ {
			v := t.Columns[ci].Value(i).Canonical()
			count[v]++
			most = max(most, count[v])
		}
		scale, sc := 1.0, false
		if cat := a.w.Catalog; cat != nil {
			if info := cat.Table(t.Name); info != nil && info.RowEstimate > float64(t.Rows) {
				scale, sc = info.RowEstimate/float64(t.Rows), true
			}
		}
		b := float64(most) * reshard.EstimateRowBytes(t) * scale
		if b > bytes {
			bytes, table, rows, scaled = b, t.Name, most, sc
		}
	}
	return
}

// bucketFix proposes, under Cassandra, bucketing the whale values of
// spec, re-simulated as salt(e, ...) in place of e for the M heaviest
// values. With a per-node capacity, the values and their counts follow
// their work (bucketByCapacity, the split fix's rule): every value doing
// over a node's capacity gets its own K = ceil((W - R) / (C - R)), raised
// to what keeps its partitions under Cassandra's 100 MiB large-partition
// warning, salt(e, [K1, ..., KM], top=M), every other value keeping
// bucket 0. Without a capacity, K is the fewest buckets that keep each of
// the heaviest value's buckets within one node's fair share of what its
// share is of (ceil(share * n)), one count for M = 1..len(vals) values,
// the lightest busiest node, raised to the size bound. Either way at
// least 2, at most the n nodes (a salt over more buckets than nodes is
// not simulated). A row's bucket is either any of the K (a read of the
// value queries all K), or, when the reads of each table bind a column
// with the key (nextKeys: page_id for a tenant's pages), the hash of that
// column modulo K (salt by=: a read that binds it queries one bucket,
// one of the whole value all K); the better of the two is proposed. The
// re-simulation places each bucket as Cassandra does (package sim:
// the node owning the Murmur3 token of the composite partition key
// (value, bucket), every other value at (value, 0)). When no design
// lightens the busiest node, and no partition outgrows the size bound,
// bucketing is named with what it would cost, not proposed; when one
// lightens the busiest node but leaves more nodes over capacity, the text
// says so and why. It reports whether it proposed one.
func (a *analysis) bucketFix(as *Assessment, w *shardkey.Workload, o sim.Options, spec bucketSpec, n int) bool {
	c := as.Score
	if len(spec.vals) == 0 || n < 2 {
		return false
	}
	kShare := int(math.Ceil(spec.share*float64(n) - 1e-9))
	k := max(kShare, 2)
	size, kSize := "", 0
	widest := 0.0
	cols := spec.e.Columns()
	if len(cols) == 1 {
		if b, table, rows, scaled := a.widestPartition(spec.tables, cols[0]); b > 0 {
			widest = b
			kSize = int(math.Ceil(b / cassandraPartitionBytes))
			est := fmt.Sprintf("%s sampled rows of ~%.0f bytes each, a lower bound: the table's row count is unknown", fmtF(float64(rows)), reshard.EstimateRowBytes(w.Table(table)))
			if scaled {
				est = fmt.Sprintf("%s sampled rows of ~%.0f bytes each, scaled to the table's row estimate", fmtF(float64(rows)), reshard.EstimateRowBytes(w.Table(table)))
			}
			size = fmt.Sprintf("; its widest partition, in %s, holds ~%s (%s), ", table, numfmt.Bytes(b), est)
			if kSize <= 1 {
				size += "within Cassandra's large-partition warning of 100 MiB (cassandra.yaml compaction_large_partition_warning_threshold_mb), so the size bound asks no more buckets"
			} else {
				size += fmt.Sprintf("so K >= %d keeps each under Cassandra's large-partition warning of 100 MiB (cassandra.yaml compaction_large_partition_warning_threshold_mb)", kSize)
			}
		}
	}
	var by map[string]string
	if len(cols) == 1 {
		by = nextKeys(w, cols[0], spec.tables)
	}
	byOf := func(t string) string {
		if t == "" && len(spec.tables) > 0 {
			t = spec.tables[0]
		}
		return by[t]
	}
	// keyOf writes the design: one count k for m values, or, with ks,
	// a count for each of len(ks) values.
	keyOf := func(k, m int, ks []int, useBy bool) (string, bool) {
		kt := strconv.Itoa(k)
		if ks != nil {
			kt, m = intsText(ks), len(ks)
		}
		return spec.design(func(t string) string {
			if useBy {
				return fmt.Sprintf("salt(%s, %s, top=%d, by=%s)", spec.e, kt, m, shardkey.QuoteName(byOf(t)))
			}
			return fmt.Sprintf("salt(%s, %s, top=%d)", spec.e, kt, m)
		})
	}
	// better reports whether x beats y: with a capacity, fewer nodes
	// over it, then a lighter busiest node; without, a lighter busiest
	// node.
	better := func(x, y *sim.Candidate) bool {
		if y == nil {
			return true
		}
		if w.Capacity > 0 && len(x.OverCapacity) != len(y.OverCapacity) {
			return len(x.OverCapacity) < len(y.OverCapacity)
		}
		return x.MaxShardWork < y.MaxShardWork*(1-1e-9)
	}
	var best *sim.Candidate
	var bestKey string
	bestM, bestBy := 0, false
	capped := ""
	kWhy := ""
	var capWhales []bucketWhale
	var bestKs []int
	var single *bucketSingle // the one count that beat the whales' own, if it did
	var pw *sim.Candidate    // the best of the whales' own counts
	if w.Capacity > 0 && len(cols) == 1 && spec.name != nil {
		// By capacity: each way's (by= or not) values and counts, the
		// better as re-simulated.
		for _, useBy := range []bool{false, true} {
			if useBy && by == nil {
				continue
			}
			ws := a.bucketByCapacity(w, spec, cols[0], useBy)
			if len(ws) == 0 {
				continue
			}
			ks := make([]int, len(ws))
			for i, x := range ws {
				ks[i] = min(max(x.k, bucketSizeK(widest, x.share/ws[0].share), 2), n)
			}
			key, ok := keyOf(0, 0, ks, useBy)
			if !ok {
				continue
			}
			x, err := sim.Score(w, key, o)
			if err == nil && better(x, pw) {
				pw = x
			}
			if err == nil && better(x, best) {
				best, bestKey, bestM, bestBy, capWhales, bestKs = x, key, len(ws), useBy, ws, ks
				single = nil
			}
			// One count for every whale, the heaviest's: fewer nodes
			// over can come of it where the whales' own counts put
			// buckets on loaded nodes (token placement is the hash's,
			// not the load's); the better as re-simulated is proposed.
			if len(ks) > 1 {
				key1, ok := keyOf(slices.Max(ks), len(ws), nil, useBy)
				if x, err := sim.Score(w, key1, o); ok && err == nil && better(x, best) {
					single = &bucketSingle{perWhale: pw, k: slices.Max(ks)}
					best, bestKey, bestM, bestBy, capWhales, bestKs = x, key1, len(ws), useBy, ws, ks
				}
			}
		}
		if best != nil && single != nil {
			k = single.k
			kWhy = fmt.Sprintf("K = %d for every whale, the heaviest's count by capacity (a bucket of a value doing W units/s, R of them reads of the whole value, does (W - R) / K + R, sized to %s units/s%s: %s: (%s - %s) / (%s - %s) = %.2f): re-simulated, it leaves %d nodes over capacity (busiest %s/s) where a count of each whale's own (%s) leaves %d (busiest %s/s): the buckets' tokens, not their count, decide which nodes they load",
				k, fmtF(capWhales[0].target), targetWhy(capWhales[0].target, w.Capacity), capWhales[0].name, fmtF(capWhales[0].work), fmtF(capWhales[0].r), fmtF(capWhales[0].target), fmtF(capWhales[0].r), (capWhales[0].work-capWhales[0].r)/(capWhales[0].target-capWhales[0].r),
				len(best.OverCapacity), fmtF(best.MaxShardWork), intsText(bestKs), len(single.perWhale.OverCapacity), fmtF(single.perWhale.MaxShardWork))
			kWhy += size
			bestKs = nil // one count: the texts of one K
		} else if best != nil {
			k = slices.Max(bestKs)
			var each []string
			for i, x := range capWhales {
				e := fmt.Sprintf("%s: (%s - %s) / (%s - %s) = %.2f, so %d", x.name, fmtF(x.work), fmtF(x.r), fmtF(x.target), fmtF(x.r), (x.work-x.r)/(x.target-x.r), x.k)
				if x.target >= w.Capacity {
					e += fmt.Sprintf(" (sized to the capacity: its whole-value reads alone reach %s)", fmtF(splitTarget(w.Capacity)))
				}
				switch {
				case bestKs[i] > x.k && bestKs[i] == n:
					e += fmt.Sprintf(", capped at the %d nodes", n)
				case bestKs[i] > x.k:
					e += fmt.Sprintf(", %d for the size bound", bestKs[i])
				case bestKs[i] < x.k:
					e += fmt.Sprintf(", capped at the %d nodes (more buckets than nodes still bound each partition's size, not a node's load)", n)
				}
				each = append(each, e)
			}
			kWhy = fmt.Sprintf("Each whale gets its own K, as a split's shards: a bucket of a value doing W units/s, R of them reads of the whole value (each queries every bucket), does (W - R) / K + R, at most the %s units/s a bucket is sized to (%s) when K >= (W - R) / (%s - R): %s; the next values each do under the %s units/s one node can do and keep bucket 0, so their reads stay on one partition", fmtF(splitTarget(w.Capacity)), targetWhy(splitTarget(w.Capacity), w.Capacity)[2:], fmtF(splitTarget(w.Capacity)), strings.Join(each, "; "), fmtF(w.Capacity))
			kWhy += size
			if kSize > 1 {
				kWhy += " (each whale's share of it: its rows over the widest's)"
			}
		}
	}
	if best == nil {
		if kSize > 1 {
			k = max(k, kSize)
		}
		if k > n {
			capped = fmt.Sprintf(" (capped at the %d nodes for the re-simulation: more buckets than nodes still bound each partition's size, not a node's load)", n)
			k = n
		}
		for _, useBy := range []bool{false, true} {
			if useBy && by == nil {
				continue
			}
			for m := 1; m <= len(spec.vals); m++ {
				key, ok := keyOf(k, m, nil, useBy)
				if !ok {
					continue
				}
				x, err := sim.Score(w, key, o)
				if err != nil {
					continue
				}
				if best == nil || x.MaxShardWork < best.MaxShardWork*(1-1e-9) {
					best, bestKey, bestM, bestBy = x, key, m, useBy
				}
			}
		}
		kWhy = fmt.Sprintf("K is the fewest that keep each bucket within one node's fair share (%s %s / %d = %s, at most 1/%d = %s)%s", pct(spec.share), spec.of, k, pct(spec.share/float64(k)), n, fmt.Sprintf("%.3g%%", 100/float64(n)), size)
	}
	if best == nil {
		return false
	}
	col := strings.Join(cols, ", ")
	vals := spec.vals[:min(bestM, len(spec.vals))]
	if capWhales != nil {
		vals = nil
		for _, x := range capWhales {
			vals = append(vals, x.name)
		}
	}
	what := plural(bestM, "the heaviest value", fmt.Sprintf("the %d heaviest values", bestM)) + ", " + strings.Join(vals, ", ")
	why := "Cassandra places a partition by the Murmur3 token of its whole partition key and has no directory, so no node can be given to one value"
	fanout := math.Max(best.WorkPerS-c.WorkPerS, 0)
	if best.MaxShardWork >= c.MaxShardWork*(1-1e-9) && kSize <= 1 {
		// Bucketing would not lighten the busiest node, and no
		// partition needs it for its size: named, not proposed.
		as.Fixes = append(as.Fixes, Fix{Kind: "bucket", Target: strings.Join(vals, ", "),
			Text: fmt.Sprintf("Whales: %s %s. %s; bucketing it (a bucket column in the partition key, PRIMARY KEY ((%s, bucket), ...), its rows over %s) would not lighten the busiest node (re-simulated, the best way: %s/s -> %s/s, %s): its reads would then query every bucket (+%s units/s in all). Cache its reads, or serve them from more replicas (a higher replication factor with reads at consistency level ONE); bucket it when its partition nears Cassandra's large-partition warning of 100 MiB%s.",
				what, spec.where, why, col, namedK(k, bestKs), fmtF(c.MaxShardWork), fmtF(best.MaxShardWork), bestKey, fmtF(fanout), strings.TrimPrefix(size, ";"))})
		return false
	}
	kText := fmt.Sprintf("K = %d buckets", k)
	if bestKs != nil {
		kText = "its own K buckets (K below)"
	}
	rowBucket := "a whale's rows over " + kText + ", any bucket for a row (round-robin or random)"
	reads := fmt.Sprintf("every read of a whale value then queries all %d of its partitions", k)
	if bestKs != nil {
		reads = "every read of a whale value then queries all of its K partitions"
	}
	if bestBy {
		var pairs []string
		for _, t := range spec.tables {
			pairs = append(pairs, fmt.Sprintf("%s by %s", t, by[t]))
		}
		rowBucket = "a whale's rows over " + kText + ", a row's bucket the hash of the column its reads bind with the key modulo K (" + strings.Join(pairs, ", ") + ")"
		reads = fmt.Sprintf("a read that binds that column queries one bucket, a read of the whole value all %d", k)
		if bestKs != nil {
			reads = "a read that binds that column queries one bucket, a read of the whole value all of its K"
		}
	}
	over := ""
	if w.Capacity > 0 {
		over = fmt.Sprintf(", %d -> %d nodes over capacity", len(c.OverCapacity), len(best.OverCapacity))
	}
	var at func(int) []bucketVariant
	if capWhales != nil {
		// The same way (by= or not) on another node count, sized as an
		// engineer deploying it would (bucketsByRoom): every value doing
		// over half a node's capacity bucketed, each bucket sized to the
		// room beside a mean node, the counts times 1, 2 and 4.
		useBy := bestBy
		var heavy []bucketWhale
		var next bucketWhale
		for _, tv := range spec.top {
			work, wide, _ := a.whaleWork(w, cols[0], tv.Share)
			r := wide
			if !useBy {
				r = work - a.bucketWrites(w, cols[0], tv.Share)
			}
			x := bucketWhale{name: spec.name(tv), work: work, r: r, share: tv.Share}
			if work <= bucketOver*w.Capacity {
				// The heaviest value kept at bucket 0, for the
				// capacity check's word on what keeps a node over.
				next = x
				break
			}
			heavy = append(heavy, x)
		}
		reqs := c.RequestsPerS - c.NoShardPerS
		at = func(n int) []bucketVariant {
			if n < 2 || len(heavy) == 0 {
				return nil
			}
			t := roomTarget(w.Capacity, reqs, n)
			var out []bucketVariant
			for _, mult := range bucketMults {
				hs := slices.Clone(heavy)
				ks := make([]int, len(hs))
				for i := range hs {
					k, ok := roomK(hs[i].work, hs[i].r, t)
					if !ok {
						return nil // its whole-value reads alone fill the room
					}
					hs[i].target, hs[i].k = t, k*mult
					ks[i] = min(max(hs[i].k, bucketSizeK(widest, hs[i].share/hs[0].share), 2), n)
				}
				if key, ok := keyOf(0, 0, ks, useBy); ok {
					out = append(out, bucketVariant{key: key, ks: ks, whales: hs, next: next, mult: mult, target: t})
				}
			}
			return out
		}
	}
	as.Fixes = append(as.Fixes, Fix{Kind: "bucket", Target: strings.Join(vals, ", "), Key: bestKey, Before: nums(c), After: nums(best), bucketsAt: at,
		Text: fmt.Sprintf("Whales: bucket %s %s. %s: add a bucket column to the partition key, PRIMARY KEY ((%s, bucket), ...), and write "+rowBucket+", every other value keeping bucket 0 (the application keeps each whale's bucket count, in a small table it reads first) (%s)%s. %s; %s (+%s units/s of work in all, re-simulated). %s The %s goes from %.2fx to %.2fx the mean and the busiest node's work from %s/s to %s/s%s.%s",
			what, spec.where, why, col, bestKey, capped, kWhy, reads, fmtF(fanout), bucketPlacementText,
			ratioText(c, w), ratioOf(c), ratioOf(best), fmtF(c.MaxShardWork), fmtF(best.MaxShardWork), over, bucketWorseText(c, best, w.Capacity, heaviestBucket(capWhales, eachK(bestKs, k, len(capWhales)))))})
	as.Criteria.AfterFixes = best.MaxShardWork
	return true
}

// targetWhy is what the text says of a bucket sized to target under a
// node's capacity: ", 10% under the 800 units/s one node can do: token
// placement does not share a value's work evenly over its buckets", or
// that it is the capacity itself.
func targetWhy(target, capacity float64) string {
	if target >= capacity {
		return ", the capacity: its whole-value reads alone reach 10% under it"
	}
	return fmt.Sprintf(", %s under the %s units/s one node can do: the split of a value's rows over its buckets is uneven", spare(fitMargin), fmtF(capacity))
}

// namedK is the bucket counts of a design not proposed: K = k, or with
// a count per value, each of them.
func namedK(k int, ks []int) string {
	if ks == nil {
		return fmt.Sprintf("K = %d buckets", k)
	}
	parts := make([]string, len(ks))
	for i, x := range ks {
		parts[i] = strconv.Itoa(x)
	}
	return "each value's own K buckets, " + strings.Join(parts, ", ") + ", heaviest first"
}

// bucketPlacementText states how the re-simulation places buckets
// (package sim, bucket.go).
const bucketPlacementText = "The re-simulation places each bucket as Cassandra does: bucket b of a value on the node owning the Murmur3 token of the composite partition key (value, b) (CompositeType bytes, the bucket a CQL int), and every other value by the token of (value, 0), so the bucket column re-places every partition, not only the whales', and two buckets of one whale may share a node (a whole-value read then counts one unit there)."

// heaviestBucket is the work of the heaviest bucket of ws over ks,
// (W - R) / K + R; 0 without counts per value.
func heaviestBucket(ws []bucketWhale, ks []int) float64 {
	m := 0.0
	for i, x := range ws {
		if i < len(ks) {
			m = max(m, (x.work-x.r)/float64(ks[i])+x.r)
		}
	}
	return m
}

// bucketSizeK is the buckets that keep a value's partitions under
// Cassandra's large-partition warning when the widest partition holds
// widest bytes and the value rel times its rows; 0 without sizes.
func bucketSizeK(widest, rel float64) int {
	if widest <= 0 {
		return 0
	}
	return int(math.Ceil(widest*rel/cassandraPartitionBytes - 1e-9))
}

// bucketWorseText says plainly, with a capacity, what bucketing leaves
// worse than before (more nodes over, a heavier busiest node) and why,
// and which nodes stay over and why; "" when it leaves nothing worse
// and no node over.
// heaviest is the work of the heaviest bucket, (W - R) / K + R.
func bucketWorseText(before, after *sim.Candidate, capacity, heaviest float64) string {
	if capacity <= 0 {
		return ""
	}
	var s string
	if after.MaxShardWork > before.MaxShardWork*(1+1e-9) {
		s += fmt.Sprintf(" Bucketing makes the busiest node heavier (%s/s -> %s/s).", fmtF(before.MaxShardWork), fmtF(after.MaxShardWork))
	}
	if len(after.OverCapacity) > len(before.OverCapacity) {
		s += fmt.Sprintf(" It lightens the busiest node but leaves more nodes over capacity (%d, not %d): the whales' work, held by the few nodes their tokens chose, spreads with their buckets over nodes that already do %s/s on average (%.0f%% of the %s units/s one can do, %s/s after the reads' fan-out), and a bucket pushes the node it lands on over.",
			len(after.OverCapacity), len(before.OverCapacity), fmtF(before.MeanShardWork), 100*before.MeanShardWork/capacity, fmtF(capacity), fmtF(after.MeanShardWork))
	}
	if len(after.OverCapacity) > 0 {
		nodes := slices.Clone(after.OverCapacity)
		sort.Slice(nodes, func(i, j int) bool {
			wi, wj := after.ShardWork[nodes[i]], after.ShardWork[nodes[j]]
			if wi != wj {
				return wi > wj
			}
			return nodes[i] < nodes[j]
		})
		var list []string
		for i, sh := range nodes {
			if i == 5 {
				list = append(list, fmt.Sprintf("%d more from %s/s down", len(nodes)-5, fmtF(after.ShardWork[sh])))
				break
			}
			list = append(list, fmt.Sprintf("node %d %s/s", sh, fmtF(after.ShardWork[sh])))
		}
		upTo := ""
		if heaviest > 0 {
			upTo = fmt.Sprintf(", up to %s/s", fmtF(heaviest))
		}
		s += fmt.Sprintf(" Still over: %s: on each, the partitions its tokens drew add up past the capacity (a whale's bucket%s, beside other values' partitions, or two buckets whose tokens fell on one node).", strings.Join(list, ", "), upTo)
		if after.MeanShardWork >= 0.8*capacity {
			s += fmt.Sprintf(" With the mean node at %.0f%% of the capacity, hashed partitions leave nodes over whatever the bucket counts on this many nodes (the capacity check searches the node count for the recommended design, each count with its bucket counts re-derived).", 100*after.MeanShardWork/capacity)
		}
	}
	return s
}

// ratioOf is the rows' load ratio of x, or, without rows, its work
// ratio (what ratioText names).
func ratioOf(x *sim.Candidate) float64 {
	if x.LoadRatio > 0 {
		return x.LoadRatio
	}
	return x.WorkRatio
}

// whaleGrowText is what to do as a whale grows, in the engine's terms:
// under Cassandra, bucketing; elsewhere a shard of its own or a column
// more in the key.
func (a *analysis) whaleGrowText() string {
	if cassandraTerms(a.engine) {
		return "as it grows, bucket it: add a bucket column to the partition key (PRIMARY KEY ((key, bucket), ...)) so that its rows spread over several partitions, each read of it then querying every bucket (Cassandra places a partition by the Murmur3 token of its whole key: no node can be given to one value)"
	}
	return "as it grows, give it a shard of its own (" + a.isolateShort() + ") or add a column to the key so that its rows can spread"
}

// cassandraReplicaNote, under Cassandra, states what the per-node
// figures assume: each partition counted on its token's owner alone.
// Cassandra keeps every partition on RF replicas, the owner of its token
// and the next RF-1 distinct nodes on the ring (SimpleStrategy;
// NetworkTopologyStrategy per data centre, skipping nodes of a rack
// already used), writes every replica and reads as many as the
// consistency level asks. "" for other engines.
func cassandraReplicaNote(engine string) string {
	if !cassandraTerms(engine) {
		return ""
	}
	return "Replication is not modelled: the per-node figures count each partition on the owner of its token only. Cassandra keeps every partition on RF replicas (the keyspace's replication factor: the token's owner and the next RF-1 nodes on the ring), so each write costs RF replica writes on RF nodes and each read as many replicas as its consistency level asks (ONE: 1; QUORUM or LOCAL_QUORUM at RF = 3: 2); a hot partition loads RF nodes, not one."
}

// bucketVariant is a bucket fix's design re-derived for a node count:
// key, the design, and ks, each whale's bucket count, heaviest first.
// whales are the values bucketed (bucketByCapacity) and next the
// heaviest value kept at bucket 0 (its name "" when there is none).
//
// mult is the multiple of the room sizing's counts it takes (1, 2 or 4:
// bucketMults) and target the work each bucket is sized to (units/s,
// roomTarget) before that multiple.
type bucketVariant struct {
	key    string
	ks     []int
	whales []bucketWhale
	next   bucketWhale
	mult   int
	target float64
}

// bucketOver is the share of a node's capacity over which the node
// search (bucketNodes) buckets a value: a value doing more than half a
// node alone leaves too little room beside it for the other partitions
// token placement puts there (the workspace scenario: workspace_id = 12,
// 465/s unbucketed, beside a bucket of workspace_id = 1, 713/s, makes a
// node do 1,462/s at 123 nodes, where a bucket beside the mean node's
// 382/s would do 1,072/s).
const bucketOver = 0.5

// bucketMults are the multiples of the room sizing's bucket counts the
// node search tries at each count, in order, the first that fits kept:
// buckets sized to the room beside a mean node fit one to a node, and
// token placement puts two or more on one node often (B buckets over N
// nodes share about B(B - 1) / 2N pairs), so halving and quartering
// each bucket's work lets a node hold two or four.
var bucketMults = []int{1, 2, 4}

// roomTarget is the work a bucket is sized to on n nodes (units/s): the
// room beside a mean node, 10% under the capacity less the mean node's
// share of the requests, (1 - fitMargin) C - reqs / n; at most 0 when
// the mean node leaves none.
func roomTarget(capacity, reqs float64, n int) float64 {
	return (1-fitMargin)*capacity - reqs/float64(n)
}

// roomK is the bucket count of a value doing work units/s, r of them
// reads of the whole value (each asks every bucket), for buckets of at
// most t units/s: K = ceil((W - R) / (t - R)), at least 1; false when
// the whole-value reads alone reach t (no count helps).
func roomK(work, r, t float64) (int, bool) {
	if r >= t {
		return 0, false
	}
	return max(1, int(math.Ceil((work-r)/(t-r)-1e-9))), true
}

// bucketSingle is one bucket count for every whale when it re-simulates
// better than each whale's own count (bucketFix): perWhale is the latter's
// score, for the text.
type bucketSingle struct {
	perWhale *sim.Candidate
	k        int
}

// intsText writes counts as a design's list does, [12, 5, 3].
func intsText(ks []int) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = strconv.Itoa(k)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// eachK is the bucket count of each of m whales: ks, or k for each when
// one count is given (ks nil).
func eachK(ks []int, k, m int) []int {
	if ks != nil {
		return ks
	}
	out := make([]int, m)
	for i := range out {
		out[i] = k
	}
	return out
}
