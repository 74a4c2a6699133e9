package advisor

import (
	"fmt"
	"math"
	"strings"
)

// Evidence says how much of the workload the ranking rests on: the
// sampled transactions and the logged statements. With few of either
// (fewer than minTxnSample), differences between designs that sampling
// alone could make are no ground to rank one over another: the designs
// the first is not separated from beyond that noise (evidenceTie) are
// listed as tied with it, and the headline and the first verdict say
// the recommendation is provisional.
type Evidence struct {
	// Transactions are the transactions the cross-shard share rests on
	// (sim.Candidate.Transactions of the first design).
	Transactions int64 `json:"transactions"`
	// Statements are the logged statements (instances in log order) the
	// request shares rest on; 0 when the input has no log order (a
	// spec's generated instances, pg_stat_statements' aggregates), whose
	// shares are not sampled statement by statement.
	Statements int `json:"statements,omitempty"`
	// Low reports that transactions or statements are too few
	// (fewer than minTxnSample) to rank designs on sampled differences.
	Low bool `json:"low"`
	// TiedWithFirst are the viable designs, in rank order, that the first
	// is not separated from beyond sampling noise.
	TiedWithFirst []string `json:"tied_with_first,omitempty"`
}

// loggedStatements counts the workload's instances that have a place in
// a log's order (Instance.Seq > 0): the statements the advice rests on.
func (a *analysis) loggedStatements() int {
	n := 0
	for _, op := range a.w.Ops {
		for _, in := range op.Instances {
			if in.Seq > 0 {
				n++
			}
		}
	}
	return n
}

// evidenceOf returns the evidence of list's ranking (list[0] first) and
// marks the designs tied with the first.
func (a *analysis) evidenceOf(list []*Assessment) *Evidence {
	best := list[0]
	ev := &Evidence{Transactions: best.Score.Transactions, Statements: a.loggedStatements()}
	ev.Low = ev.Transactions > 0 && ev.Transactions < minTxnSample || ev.Statements > 0 && ev.Statements < minTxnSample
	if !ev.Low || !best.Viable {
		return ev
	}
	// A range design whose boundaries were fitted to the sample, tied
	// within the evidence with its hash twin (the same design with hash
	// for range), goes after it: boundaries fitted value by value to a
	// few statements on monotonic or unknown future values are the
	// riskier one-way door, and nothing measured prefers them.
	if i := hashTwin(list); i > 0 && !best.InUse && evidenceTie(best, list[i], ev.Statements) {
		twin := list[i]
		copy(list[1:i+1], list[:i])
		list[0] = twin
		best = twin
		ev.Transactions = best.Score.Transactions
	}
	for _, as := range list[1:] {
		if evidenceTie(best, as, ev.Statements) {
			as.TiedWithFirst = true
			ev.TiedWithFirst = append(ev.TiedWithFirst, as.Display())
		}
	}
	return ev
}

// hashTwin returns the index in list of the hash twin of list[0] when
// list[0] is a range design fitted to the sample (Assessment.fitted):
// the design whose key is list[0]'s with every range( read as hash(;
// -1 when there is none.
func hashTwin(list []*Assessment) int {
	if len(list) < 2 || !list[0].fitted() {
		return -1
	}
	twin := strings.ReplaceAll(list[0].Key, "range(", "hash(")
	if twin == list[0].Key {
		return -1
	}
	for i, as := range list[1:] {
		if as.Key == twin && as.Viable {
			return i + 1
		}
	}
	return -1
}

// clearShareGap reports whether two shares (0..1) of n observations
// each differ by at least half a point and by more than twice the
// standard error of their difference, sqrt(p1(1-p1)/n + p2(1-p2)/n).
func clearShareGap(p1, p2 float64, n int) bool {
	if n <= 0 {
		return math.Abs(p1-p2) >= 0.005
	}
	return proportionsDiffer(p1, p2, float64(n), float64(n))
}

// evidenceTie reports whether, on few observations (stmts logged
// statements, x's and y's transactions), y is not separated from x by
// anything sampling alone could not make: what the designs are (a
// boundary, a range not fitted to the sample, no copy of a table of
// unknown size, viability) separates them whatever the counts when it
// favours x, and so does a bounded key against a whale the evidence
// shows (whaleVerdict); the
// cross-shard share (clearTxnGap), the single-shard and local shares
// (clearShareGap over stmts) and the busiest shard's work (a count of
// about k statements, k = stmts x its share of the requests, known to
// about sqrt(k)) separate them only past twice their standard error.
func evidenceTie(x, y *Assessment, stmts int) bool {
	if !x.Viable || !y.Viable {
		return false
	}
	a, b := x.Criteria, y.Criteria
	// What the designs are, not what the sample counted: any of it in
	// x's favour separates them. (In y's favour it does not make x's
	// lead real: x is ahead on sampled figures only.)
	if !x.fitted() && y.fitted() || len(x.ReplicatedSizeUnknown) == 0 && len(y.ReplicatedSizeUnknown) > 0 ||
		a.Boundary && !b.Boundary || !a.LargestUnknown && !b.LargestUnknown && a.Bounded && !b.Bounded {
		return false
	}
	if clearTxnGap(x, y) {
		return false
	}
	if stmts > 0 {
		if clearShareGap(a.Local, b.Local, stmts) || clearShareGap(a.SingleShard, b.SingleShard, stmts) {
			return false
		}
		k := func(as *Assessment) float64 {
			if as.Score.RequestsPerS <= 0 {
				return 1
			}
			return math.Max(1, float64(stmts)*as.Criteria.AfterFixes/as.Score.RequestsPerS)
		}
		la, lb := a.AfterFixes, b.AfterFixes
		if math.Abs(la-lb) > 2*math.Sqrt(la*la/k(x)+lb*lb/k(y)) {
			return false
		}
		return true
	}
	// Statements not sampled one by one (a spec, aggregated statistics):
	// only the transactions are few. The rest is measured as usual, so
	// y ties with x only when nothing but the transactions (the
	// cross-shard share, and the local share it lowers) tells them
	// apart.
	return math.Abs(a.SingleShard-b.SingleShard) <= 0.05 && closeRel(a.WorkPerRequest, b.WorkPerRequest, 0.1) &&
		closeRel(a.AfterFixes, b.AfterFixes, 0.02)
}

// evidenceText is the headline's sentence on few observations, "" when
// there are enough.
func evidenceText(ev *Evidence) string {
	if ev == nil || !ev.Low {
		return ""
	}
	var on []string
	if ev.Transactions > 0 {
		on = append(on, plural(int(ev.Transactions), "1 transaction", fmt.Sprintf("%d transactions", ev.Transactions)))
	}
	if ev.Statements > 0 {
		on = append(on, plural(ev.Statements, "1 statement", fmt.Sprintf("%d statements", ev.Statements)))
	}
	basis := "Based on " + strings.Join(on, " and ")
	if len(ev.TiedWithFirst) == 0 {
		return basis + ": too few to rank designs with confidence; the figures are rough, so capture a longer log before deciding."
	}
	names := ev.TiedWithFirst
	more := ""
	if len(names) > 2 {
		more = fmt.Sprintf(" and %d more", len(names)-2)
		names = names[:2]
	}
	return fmt.Sprintf("%s: too few to separate designs. The recommendation is provisional: it ties with %s%s, whose differences from it are within sampling noise; capture a longer log before choosing among them.",
		basis, strings.Join(names, ", and with "), more)
}
