package advisor

import (
	"fmt"
	"math"
	"strings"
)

// Cautions: what the advice cannot know from the sample it was given, and
// which choices could still change later.

// smallSample warns when the figures rest on a small sample: a keyed
// table with fewer than 1,000 sample rows, or, without rows, fewer than
// 1,000 sampled statements binding the key. A value's share p measured
// over n draws has a standard error of sqrt(p(1-p)/n): about 1.6 points
// for p = 10% at n = 350.
func smallSample(best *Assessment) []string {
	var out []string
	if n := best.Score.Transactions; n > 0 && n < minTxnSample {
		lo, hi := wilson(best.Criteria.CrossShardTxn, float64(n))
		out = append(out, fmt.Sprintf("few transactions: the cross-shard share (%s) rests on %d sampled transaction%s, so its 95%% interval is %s to %s; capture more (a longer log) before deciding on it",
			pct(best.Criteria.CrossShardTxn), n, plural(int(n), "", "s"), pct(lo), pct(hi)))
	}
	for _, tk := range best.Score.Tables {
		switch {
		case tk.Rows > 0 && tk.Rows < 1000:
			out = append(out, fmt.Sprintf("small sample: %s has %d sample rows; a key value's share of them is known to about +/-%s (one standard error at 10%%)",
				tk.Table, tk.Rows, pct(math.Sqrt(0.09/float64(tk.Rows)))))
		case tk.Rows == 0 && tk.Basis == "traffic" && tk.Cardinality == 0:
			out = append(out, fmt.Sprintf("%s: no row sample and no statement binds %s to a value: its distinct values, skew and largest partition are unknown", tk.Table, strings.Join(tk.Columns, ", ")))
		}
	}
	return out
}

// durable answers which choices can still change in two years.
// Under Cassandra there is no directory to override: a whale is
// bucketed, and a bucket column added to a partition key later is a new
// table and a copy of every row (a primary key cannot be altered).
func durable(best *Assessment) []string {
	easy := "Easy to change later: the shard count (start with many logical shards per node and move slots), directory overrides for whales, secondary indexes and read models, caches and replicas."
	if best.an != nil && engineFamily(best.an.engine) != "" && !cassandraTerms(best.an.engine) {
		easy = fmt.Sprintf("Easy to change later: the shard count (start with many logical shards per node and move slots), a whale's own shard (%s), secondary indexes and read models, caches and replicas.", best.an.isolateShort())
	}
	if best.an != nil && cassandraTerms(best.an.engine) {
		easy = "Easy to change later: the node count (vnodes: num_tokens per node), a whale's bucket count if the partition key has a bucket column from the start (adding one later is a new table and a copy of every row: Cassandra cannot alter a primary key), secondary indexes and read models, caches and the replication factor."
	}
	return []string{
		fmt.Sprintf("Hard to change: the key %s itself. Re-keying moves every row (dual writes, backfill, compare, switch reads), weeks on a large table.", best.Key),
		easy,
	}
}

// minTxnSample is the number of sampled transactions below which the
// cross-shard share is reported as too uncertain to decide on: with 100,
// a share near 50% is known to about +/-10 points.
const minTxnSample = 100

// wilson returns the Wilson score 95% interval of a proportion p observed
// in n trials (Wilson 1927), which stays inside [0, 1] for small n.
func wilson(p, n float64) (lo, hi float64) {
	const z = 1.959964
	d := 1 + z*z/n
	c := (p + z*z/(2*n)) / d
	h := z * math.Sqrt(p*(1-p)/n+z*z/(4*n*n)) / d
	return math.Max(0, c-h), math.Min(1, c+h)
}
