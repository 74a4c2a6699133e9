package advisor

import (
	"fmt"
	"math"
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
	k       int // ceil((W - R) / (C - R)); 0 when W <= C
}

// bucketByCapacity chooses, under a capacity C, the values to bucket and
// their bucket count by the split fix's rule (splitFix): a bucket of a
// value with work W, R of it reads that query every bucket, does
// (W - R) / K + R, under C when K >= (W - R) / (C - R). Values are taken
// heaviest first while each does over half of C (two of them on one node
// exceed it, and Murmur3 places each partition by its own token, so two
// may share a node) and its whole-value reads R stay under C (no bucket
// count helps those). by says whether a row's bucket is the hash of the
// next key (salt by=), which decides R. It returns the values and K, the
// largest of their counts (one count for every whale: salt(EXPR, K,
// top=M)); no values when the heaviest is not over C or no count helps.
func (a *analysis) bucketByCapacity(w *shardkey.Workload, spec bucketSpec, col string, by bool) ([]bucketWhale, int) {
	c := w.Capacity
	var out []bucketWhale
	k := 0
	for _, tv := range spec.top {
		work, wide, _ := a.whaleWork(w, col, tv.Share)
		r := wide
		if !by {
			r = work - a.bucketWrites(w, col, tv.Share)
		}
		if work <= c/2 || r >= c {
			break
		}
		x := bucketWhale{name: spec.name(tv), work: work, r: r}
		if work > c {
			x.k = int(math.Ceil((work-r)/(c-r) - 1e-9))
			k = max(k, x.k)
		}
		out = append(out, x)
	}
	if k == 0 {
		return nil, 0
	}
	return out, max(k, 2)
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
// spec, re-simulated as salt(e, K, top=M) in place of e for the M
// heaviest values. With a per-node capacity, the values and K follow
// their work (bucketByCapacity, the split fix's rule): every value doing
// over half a node's capacity, K = ceil((W - R) / (C - R)) for the
// heaviest, then raised one at a time, at most 8 more, while the
// re-simulation leaves a node over capacity (each bucket is a partition
// of its own token, so buckets land beside other partitions); the design
// with the fewest nodes over capacity, then the lightest busiest node, is
// proposed. Without a capacity, K is the fewest buckets that keep each of
// the heaviest value's buckets within one node's fair share of what its
// share is of (ceil(share * n)), and M = 1..len(vals) the lightest
// busiest node. Either way, when the rows give sizes, K keeps each
// partition under Cassandra's 100 MiB large-partition warning; at least
// 2, at most the n nodes (a salt over more buckets than nodes is not
// simulated). A row's bucket is either any of the K (a read of the value
// queries all K), or, when the reads of each table bind a column with
// the key (nextKeys: page_id for a tenant's pages), the hash of that
// column modulo K (salt by=: a read that binds it queries one bucket,
// one of the whole value all K). When no design lightens the busiest
// node, and no partition outgrows the size bound, bucketing is named
// with what it would cost, not proposed. It reports whether it proposed
// one.
func (a *analysis) bucketFix(as *Assessment, w *shardkey.Workload, o sim.Options, spec bucketSpec, n int) bool {
	c := as.Score
	if len(spec.vals) == 0 || n < 2 {
		return false
	}
	kShare := int(math.Ceil(spec.share*float64(n) - 1e-9))
	k := max(kShare, 2)
	size, kSize := "", 0
	cols := spec.e.Columns()
	if len(cols) == 1 {
		if b, table, rows, scaled := a.widestPartition(spec.tables, cols[0]); b > 0 {
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
	keyOf := func(k, m int, useBy bool) (string, bool) {
		return spec.design(func(t string) string {
			if useBy {
				return fmt.Sprintf("salt(%s, %d, top=%d, by=%s)", spec.e, k, m, shardkey.QuoteName(byOf(t)))
			}
			return fmt.Sprintf("salt(%s, %d, top=%d)", spec.e, k, m)
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
	if w.Capacity > 0 && len(cols) == 1 && spec.name != nil {
		// By capacity: the values and K0 of each way (by= or not), the
		// better at K0, then its K raised while a node stays over.
		k0 := 0
		for _, useBy := range []bool{false, true} {
			if useBy && by == nil {
				continue
			}
			ws, kc := a.bucketByCapacity(w, spec, cols[0], useBy)
			if kc == 0 {
				continue
			}
			kk := min(max(kc, kSize), n)
			key, ok := keyOf(kk, len(ws), useBy)
			if !ok {
				continue
			}
			if x, err := sim.Score(w, key, o); err == nil && better(x, best) {
				best, bestKey, bestM, bestBy, capWhales, k, k0 = x, key, len(ws), useBy, ws, kk, kk
			}
		}
		if best != nil {
			for kk := k0 + 1; kk <= min(k0+8, n) && len(best.OverCapacity) > 0; kk++ {
				key, ok := keyOf(kk, bestM, bestBy)
				if !ok {
					break
				}
				if x, err := sim.Score(w, key, o); err == nil && better(x, best) {
					best, bestKey, k = x, key, kk
				}
			}
			var each []string
			for _, x := range capWhales {
				if x.k > 0 {
					each = append(each, fmt.Sprintf("%s: (%s - %s) / (%s - %s) = %.2f, so %d", x.name, fmtF(x.work), fmtF(x.r), fmtF(w.Capacity), fmtF(x.r), (x.work-x.r)/(w.Capacity-x.r), x.k))
				}
			}
			light := len(capWhales) - len(each)
			kWhy = fmt.Sprintf("K follows the whales' work, as a split's does: a bucket of a value doing W units/s, R of them reads of the whole value (each queries every bucket), does (W - R) / K + R, under the %s units/s one node can do when K >= (W - R) / (%s - R): %s", fmtF(w.Capacity), fmtF(w.Capacity), strings.Join(each, "; "))
			if light > 0 {
				kWhy += fmt.Sprintf("; the next %s, each over half a node's capacity but under it, %s bucketed too, since two of them on one node exceed it", plural(light, "value", fmt.Sprintf("%d values", light)), plural(light, "is", "are"))
			}
			kWhy += fmt.Sprintf(". One count serves every whale, the largest (%d)", k0)
			if k0 < max(each0(capWhales), kSize) {
				kWhy += fmt.Sprintf(", capped at the %d nodes (more buckets than nodes still bound each partition's size, not a node's load)", n)
			}
			if k > k0 {
				kWhy += fmt.Sprintf(", raised to %d as re-simulated (each bucket is a partition placed by its own Murmur3 token, so buckets share nodes with other partitions)", k)
			}
			kWhy += size
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
				key, ok := keyOf(k, m, useBy)
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
			Text: fmt.Sprintf("Whales: %s %s. %s; bucketing it (a bucket column in the partition key, PRIMARY KEY ((%s, bucket), ...), its rows over K = %d buckets) would not lighten the busiest node (re-simulated, the best way: %s/s -> %s/s, %s): its reads would then query every bucket (+%s units/s in all). Cache its reads, or serve them from more replicas (a higher replication factor with reads at consistency level ONE); bucket it when its partition nears Cassandra's large-partition warning of 100 MiB%s.",
				what, spec.where, why, col, k, fmtF(c.MaxShardWork), fmtF(best.MaxShardWork), bestKey, fmtF(fanout), strings.TrimPrefix(size, ";"))})
		return false
	}
	rowBucket := "a whale's rows over K = %d buckets, any bucket for a row (round-robin or random)"
	reads := fmt.Sprintf("every read of a whale value then queries all %d of its partitions", k)
	if bestBy {
		var pairs []string
		for _, t := range spec.tables {
			pairs = append(pairs, fmt.Sprintf("%s by %s", t, by[t]))
		}
		rowBucket = "a whale's rows over K = %d buckets, a row's bucket the hash of the column its reads bind with the key modulo K (" + strings.Join(pairs, ", ") + ")"
		reads = fmt.Sprintf("a read that binds that column queries one bucket, a read of the whole value all %d", k)
	}
	over := ""
	if w.Capacity > 0 {
		over = fmt.Sprintf(", %d -> %d nodes over capacity", len(c.OverCapacity), len(best.OverCapacity))
	}
	as.Fixes = append(as.Fixes, Fix{Kind: "bucket", Target: strings.Join(vals, ", "), Key: bestKey, Before: nums(c), After: nums(best),
		Text: fmt.Sprintf("Whales: bucket %s %s. %s: add a bucket column to the partition key, PRIMARY KEY ((%s, bucket), ...), and write "+rowBucket+", every other value keeping bucket 0 (the application keeps each whale's bucket count, in a small table it reads first) (%s)%s. %s; %s (+%s units/s of work in all, re-simulated). The %s goes from %.2fx to %.2fx the mean and the busiest node's work from %s/s to %s/s%s. The re-simulation puts a value's K buckets on K distinct nodes; their Murmur3 tokens are independent, so a few may share a node.",
			what, spec.where, why, col, k, bestKey, capped, kWhy, reads, fmtF(fanout),
			ratioText(c, w), ratioOf(c), ratioOf(best), fmtF(c.MaxShardWork), fmtF(best.MaxShardWork), over)})
	as.Criteria.AfterFixes = best.MaxShardWork
	return true
}

// each0 is the largest bucket count of ws.
func each0(ws []bucketWhale) int {
	m := 0
	for _, x := range ws {
		m = max(m, x.k)
	}
	return m
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
