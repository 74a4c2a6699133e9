// Package advisor recommends a shard key for a workload and names the
// fixes for what it costs. It generates candidate designs from the
// workload (columns bound by equality, entity groups across tables that
// commit together or share values, compounds, time buckets, range keys,
// reference tables), scores each with package sim, and ranks them in the
// order of what matters (seed 002, "Shard key"):
//
//  1. the dominant operations are answerable within one shard, and write
//     transactions stay on one shard;
//  2. the key matches a natural isolation boundary: every table of the
//     entity group carries it;
//  3. partition size is bounded: no single key value outgrows a shard;
//  4. load is acceptable against the balls-into-bins band for the key's
//     cardinality, with a plan for the hot keys.
//
// Keys that cannot be made to work are set aside first: a monotonic key
// under range partitioning (every insert goes to the last range) and a key
// with fewer distinct values than a few per shard. Every verdict carries
// its numbers; there is no opaque score. Fixes (isolating whales with a
// directory override, salting hot writes, indexes or read models for
// scatter-gather operations, shard-encoded ids) are re-simulated, so the
// advice shows the numbers before and after.
package advisor

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/emit"
	"github.com/shardkey/shardkey/internal/jsonnull"
	"github.com/shardkey/shardkey/internal/numfmt"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
)

// ErrNoCandidates is returned (wrapped) by Recommend when no key names
// none and no operation filters on a column: nothing to generate
// candidate keys from.
var ErrNoCandidates = errors.New("no candidate keys")

// Options control the advice.
type Options struct {
	Shards int              // >= 1
	Engine partition.Engine // nil: generic
	Dir    string           // base directory of directory(col, FILE) keys
	// Workers is the goroutines each scoring routes with (sim.Run; <= 0:
	// GOMAXPROCS). The candidates, the sweep's shard counts and the
	// bootstrap replicates are themselves scored up to GOMAXPROCS at a
	// time, as score scores its keys; the advice is the same as scoring
	// them one after another.
	Workers int
	// Vindexes are the VSchema's vindex names (sim.Options.Vindexes).
	Vindexes map[string]shardkey.VindexNames
	// Keys, when set, are the only candidates considered.
	Keys []string
	// Sweep lists shard counts to score the recommended key at (nil: none).
	Sweep []int
	// Bootstrap is the number of bootstrap replicates for confidence
	// intervals of the recommended key (0: none); Seed seeds them.
	Bootstrap int
	Seed      int64
	// Nodes, when set, places the Shards (then logical shards: slots) on
	// nodes: the capacity is a node's (every score's OverCapacity lists
	// nodes, sim.Candidate.OnNodes), the recommended design's score gets
	// per-node work and load beside per-slot (sim.Candidate.Nodes), with
	// growth to GrowTo nodes
	// (0: one more than there are) priced at RowBytes bytes a row (0:
	// estimated from the sample's columns).
	Nodes    *sim.Nodes
	GrowTo   int
	RowBytes float64
	// Current, when set, is the design the database runs today (e.g. read
	// from a Citus coordinator's pg_dist_partition): it is scored beside
	// the candidates as the baseline, its verdict led by CurrentLabel
	// ("in use (from pg_dist_partition)"), and it stays recommended
	// unless another design beats it by more than the noise bands the
	// ranking uses (see better): changing a running design costs a
	// reshard, which a tie does not pay for.
	Current      string
	CurrentLabel string
}

// Advice is the advisor's answer.
type Advice struct {
	Workload string `json:"workload"`
	Shards   int    `json:"shards"`
	// Nodes, with --slots S --nodes N (nodes: in a spec), is N: Shards
	// are then S logical shards (slots) placed over N nodes.
	Nodes    int     `json:"nodes,omitempty"`
	Engine   string  `json:"engine"`
	Capacity float64 `json:"capacity"`
	// Recommended is the first-ranked candidate's key: the
	// recommendation, or, when no candidate is viable (Candidates[0].Viable
	// false; the summary then says so), the best of the rejected.
	Recommended string        `json:"recommended"`
	Summary     []string      `json:"summary"`
	Candidates  []*Assessment `json:"candidates"`
	// Durable says what is hard and what is easy to change later (seed
	// 002's interview question: which choice could still change in two
	// years).
	Durable []string `json:"durable"`
	Flags   []string `json:"flags,omitempty"`
	// Sweep shows how the recommended key's numbers move with the shard
	// count; Confidence how much they could move with another sample.
	Sweep []SweepRow `json:"sweep,omitempty"`
	// CapacityCheck is the recommended design against the capacity,
	// before and after every proposed fix (nil without a capacity).
	CapacityCheck *Capacity   `json:"capacity_check,omitempty"`
	Confidence    *Confidence `json:"confidence,omitempty"`
	// InUse is the design the database runs (Options.Current), scored
	// among the candidates; KeepInUse reports that it is the
	// recommendation (no candidate beats it beyond noise).
	InUse     string `json:"in_use,omitempty"`
	KeepInUse bool   `json:"keep_in_use,omitempty"`
	// CapacityFirst reports that the ranking put a design that fits the
	// capacity after its fixes before one, ahead of it on what the
	// operations and transactions touch, that no shard count brings
	// under it (its verdict says which).
	CapacityFirst bool `json:"capacity_first,omitempty"`
	// RolledBackTxns is the number of transactions the log showed ending
	// in ROLLBACK (shardkey.Workload.RolledBackTxns): their statements
	// are in the work, not among the transactions of the cross-shard
	// share (of commits). Absent when none.
	RolledBackTxns float64 `json:"rolled_back_txns,omitempty"`
	// RatesRelative: the rates are counts over an unknown span
	// (shardkey.Workload.RatesRelative): the per-second figures are
	// shares of what was counted, not requests/s, and capacity verdicts
	// are unknown. TxnsUnknown: which statements ran together is unknown,
	// so the cross-shard share of transactions is too (not 0).
	RatesRelative bool     `json:"rates_relative,omitempty"`
	TxnsUnknown   bool     `json:"transactions_unknown,omitempty"`
	Warnings      []string `json:"warnings,omitempty"`
	// Skipped are the candidates advise generated itself that could not
	// be scored (a two-column key under an engine that distributes a
	// table by one column): not warnings, since the user asked for none
	// of them; the reports list them once, under the ranking. A key the
	// user named (-k, a spec's candidates, the design in use) that cannot
	// be scored stays a warning or an error.
	Skipped []SkippedCandidate `json:"skipped_candidates,omitempty"`
	// Evidence is how many transactions and statements the ranking rests
	// on, and which designs it cannot separate from the first.
	Evidence *Evidence `json:"evidence,omitempty"`
}

// SkippedCandidate is a generated candidate that could not be scored,
// and why (the scoring error without the key it names).
type SkippedCandidate struct {
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// skip records generated candidate key as not scored for err.
func (adv *Advice) skip(key string, err error) {
	adv.Skipped = append(adv.Skipped, SkippedCandidate{Key: key, Reason: strings.TrimPrefix(err.Error(), fmt.Sprintf("key %q: ", key))})
}

// Assessment is one candidate's verdict with its numbers.
type Assessment struct {
	Rank   int    `json:"rank"`
	Key    string `json:"key"`
	Origin string `json:"origin"`
	// InUse reports that this is the design the database runs today
	// (Options.Current), or one that places everything as it does.
	InUse   bool   `json:"in_use,omitempty"`
	Viable  bool   `json:"viable"`
	Verdict string `json:"verdict"`
	// Rejection is, for a candidate that is not viable, the whole reason
	// in one sentence (the first of Reasons says it with its numbers).
	Rejection string   `json:"rejection,omitempty"`
	Reasons   []string `json:"reasons"`
	// Criteria are the numbers ranked on, in order.
	Criteria Criteria `json:"criteria"`
	// Expensive lists the operations that become expensive under this
	// key, costliest first.
	Expensive []OpCost `json:"expensive"`
	Fixes     []Fix    `json:"fixes"`
	// Carry lists the tables that carry the key only by denormalisation
	// (a column added and backfilled from the parent row), with the
	// cost; the scores assume it done.
	Carry []Carry `json:"carry,omitempty"`
	// Root is the checklist of the design's root entity across the
	// tables it keys (nil for a design without one).
	Root *RootStats `json:"root,omitempty"`
	// RangeFit, for a range design whose boundaries are set value by
	// value on a key of few values that the shard count does not divide
	// (see rangefit.go), says how; when the split is fitted to this
	// sample's traffic (RangeFit.Fitted) the ranking does not count its
	// load against a design equal on what the operations and
	// transactions touch.
	RangeFit *RangeFit `json:"range_fit,omitempty"`
	// ReplicatedSizeUnknown are the tables the design replicates whose
	// size nothing gives (no row sample, no catalog estimate): a copy of
	// every row on every shard, of a table that may be large and
	// growing. Such a design ranks after one equal on what the operations
	// and transactions touch that replicates no table of unknown size
	// (orderBanded), and its reasons, verdict and the warnings say so.
	ReplicatedSizeUnknown []string `json:"replicated_size_unknown,omitempty"`
	// TiedWithFirst reports that the advice rests on too few transactions
	// or statements to separate this design from the first (Evidence).
	TiedWithFirst bool           `json:"tied_with_first,omitempty"`
	Score         *sim.Candidate `json:"score"`

	w        *shardkey.Workload // the workload scored: a copy with carried columns, or the input
	an       *analysis
	capacity *Capacity
	after    *AfterFixes // what Criteria.AfterFixes is of (capacityCheck)
	jumbo    string      // a MongoDB jumbo chunk the key makes (jumboReasons), "" for none
	// jumboVerdict is the jumbo chunk in a few words, for the verdict;
	// jumboKey the collection, field and suffix of the compound shard
	// key that lets it split (jumboFix), empty for none.
	jumboVerdict string
	jumboKey     [3]string
	// movedOff is the requests/s the after-fixes figure takes off the
	// serving shards into read models (afterFixes), movedOps their
	// operations: traffic a read model still serves, so a lower busiest
	// shard bought with more of it does not rank a key first (orderBanded)
	// and the verdict says so.
	movedOff float64
	movedOps []string
	// fitsAfter: the workload has a capacity and no shard (node) is over
	// it after the design's fixes; neverFits: no shard (node) count
	// brings the design under it after its fixes (shardsNeeded found
	// none), judged only when some viable design fits (judgeFit). A
	// design that fits ranks before one that never does (orderBanded).
	fitsAfter, neverFits bool
}

// OwnWarnings are the candidate's own warnings (Score.Warnings: a table
// its design leaves unsharded on shard 0, NULL keys it cannot place),
// less those about a lookup, which hold for every candidate with it and
// are said once in the advice's warnings.
func (as *Assessment) OwnWarnings() []string {
	var out []string
	for _, wn := range as.Score.Warnings {
		if !slices.Contains(as.Score.LookupWarnings, wn) {
			out = append(out, wn)
		}
	}
	return out
}

// candidateWarnings are the candidates' own warnings for the advice's
// list, in rank order, each once, of the candidates said(index, as)
// chooses and any that every candidate has: as written when it names its key (key
// "...": ...) or holds for every candidate (no operations to measure),
// else after "candidate KEY: ".
func candidateWarnings(list []*Assessment, said func(int, *Assessment) bool) []string {
	count := map[string]int{}
	for _, as := range list {
		for _, wn := range slices.Compact(slices.Sorted(slices.Values(as.OwnWarnings()))) {
			count[wn]++
		}
	}
	var out []string
	for i, as := range list {
		for _, wn := range as.OwnWarnings() {
			if count[wn] < len(list) && !said(i, as) {
				continue
			}
			if !strings.HasPrefix(wn, "key ") && count[wn] < len(list) {
				wn = "candidate " + as.Display() + ": " + wn
			}
			if !slices.Contains(out, wn) {
				out = append(out, wn)
			}
		}
	}
	return out
}

// Workload returns the workload the candidate was scored on: the input,
// or a copy in which the tables of Carry hold the carried column.
func (as *Assessment) Workload() *shardkey.Workload { return as.w }

// Display is the key as shown to people: the design, and the tables that
// must carry the key to follow it.
func (as *Assessment) Display() string {
	if len(as.Carry) == 0 {
		return as.Key
	}
	return as.Key + " + " + carryText(as.Carry)
}

// Criteria are the ranked measures of a candidate.
type Criteria struct {
	// Local is the share (0..1) of interactive (non-batch) requests that
	// touch one shard and are not statements of a cross-shard transaction:
	// SingleShard minus the requests of the transactions that cross
	// (each transaction's weight x its probability of crossing x its
	// requests, riders left out: sim.Candidate.CrossTxnRequests) /
	// interactive requests/s, at least 0; one denominator, interactive
	// requests. Seed 002's first criterion in one number. (It took every
	// crossing transaction at the average size, CrossShardTxn x all
	// transactions' statements, which understated it where the crossing
	// ones are short: TPC-C's payments.)
	Local float64 `json:"local_fraction"`
	// SingleShard is the share (0..1) of interactive (non-batch)
	// requests that touch one shard.
	SingleShard float64 `json:"single_shard_fraction"`
	// CrossShardTxn is the share (0..1) of transactions, by weight,
	// touching more than one shard. A transaction is what the application
	// commits together: a BEGIN...COMMIT block, a --txns line or an
	// autocommit write; an autocommit read is an operation only.
	CrossShardTxn float64 `json:"cross_shard_txn_fraction"`
	// txnsUnknown: which statements ran together is unknown
	// (shardkey.Workload.TxnsUnknown): CrossShardTxn is written null.
	txnsUnknown bool
	// singleUnknown: there are interactive requests but none asks a
	// shard (each an empty IN list, sim.Candidate.NoShardPerS):
	// SingleShard and Local are written null, said "unknown".
	singleUnknown bool
	// noRequests, noTxns, noWork: the workload has no request (no
	// operation), no transaction, or no shard does any work: the
	// shares, work_per_request, cross_shard_txn_fraction and work_ratio
	// they would divide by are written null, not 0.
	noRequests, noTxns, noWork bool
	// WorkPerRequest is interactive units of work per interactive
	// request (1 when every request asks one shard): what the requests
	// that are not single-shard cost.
	WorkPerRequest float64 `json:"work_per_request"`
	// Boundary reports whether every non-reference table is keyed by one
	// entity (tenant, customer, workspace, ...).
	Boundary bool `json:"isolation_boundary"`
	// LargestPartition is the design's largest partition's share (0..1):
	// the heaviest key value over every table the design shards, its
	// share of its table's (or entity group's) rows' weight, or of the
	// requests naming the key without a row sample; LargestOf names it
	// and says which. Bounded reports that it is no whale: at most
	// whaleShares (1.5) times one shard's fair share, 1/shards.
	LargestPartition float64         `json:"largest_partition_share"`
	LargestOf        *PartitionValue `json:"largest_partition_of,omitempty"`
	Bounded          bool            `json:"bounded"`
	// LargestUnknown reports that nothing measures the largest
	// partition (no rows, and no statement binds the key to a value), or
	// that too few rows or statements do to tell its heaviest value from
	// a whale (whaleVerdict: the 95% interval of its share straddles the
	// threshold; LargestOf then names it, with its observations):
	// LargestPartition is then 0 and means "unknown", not "tiny", and the
	// ranking weighs it as neither bounded nor a whale.
	LargestUnknown bool `json:"largest_partition_unknown,omitempty"`
	// WorkRatio is max/mean per-shard work; Expected the balls-into-bins
	// ratio for this many equal keys; AfterFixes the busiest shard's work
	// (units/s) once the proposed whale fix is applied.
	WorkRatio    float64 `json:"work_ratio"`
	Expected     float64 `json:"expected_max_load_ratio"`
	MaxShardWork float64 `json:"max_shard_work"`
	AfterFixes   float64 `json:"max_shard_work_after_fixes"`
	// AfterFixesNotSimulated reports that no fix was simulated for this
	// candidate (a workload without a capacity re-simulates the fixes of
	// the leading candidates only: fixesFor), so AfterFixes is its
	// busiest shard before fixes, an upper bound; the tables print "-".
	AfterFixesNotSimulated bool `json:"after_fixes_not_simulated,omitempty"`
	// txnAfterFixes, when txnAfterSet, is the share of transactions that
	// cross shards once a fix that moves key values between shards is
	// applied (place-values: values that shared a shard no longer do),
	// which the ranking weighs beside AfterFixes instead of
	// CrossShardTxn: a collision that makes a busiest shard also keeps
	// some transactions local, and the fix undoes both.
	txnAfterFixes float64
	txnAfterSet   bool
}

// txnRanked is the cross-shard transaction share the ranking weighs: the
// one after fixes when a fix moved values (Criteria.txnAfterFixes), else
// CrossShardTxn.
func (c *Criteria) txnRanked() float64 {
	if c.txnAfterSet {
		return c.txnAfterFixes
	}
	return c.CrossShardTxn
}

// MarshalJSON writes c with largest_partition_share and bounded null when
// nothing measures the largest partition (LargestUnknown): a 0 share and
// bounded true would read as a key without whales; and
// expected_max_load_ratio null when no key value is known to place (0).
func (c Criteria) MarshalJSON() ([]byte, error) {
	type plain Criteria
	var b []byte
	var err error
	if !c.LargestUnknown {
		b, err = json.Marshal(plain(c))
	} else {
		b, err = json.Marshal(struct {
			plain
			LargestPartition *float64 `json:"largest_partition_share"`
			Bounded          *bool    `json:"bounded"`
		}{plain: plain(c)})
	}
	if err != nil {
		return nil, err
	}
	null := jsonnull.Unless(c.Expected > 0, "expected_max_load_ratio")
	null = append(null, jsonnull.Unless(!c.txnsUnknown && !c.noTxns, "cross_shard_txn_fraction")...)
	null = append(null, jsonnull.Unless(c.SingleKnown(), "single_shard_fraction", "local_fraction")...)
	null = append(null, jsonnull.Unless(!c.noRequests, "work_per_request")...)
	null = append(null, jsonnull.Unless(!c.noWork, "work_ratio")...)
	return jsonnull.Null(b, null...)
}

// SingleKnown reports whether SingleShard and Local measure anything:
// false when there are interactive requests and none asks a shard (each
// an empty IN list), or no request at all (a workload of no operations);
// they are then "unknown", not 0.
func (c Criteria) SingleKnown() bool { return !c.singleUnknown && !c.noRequests }

// singleClause is "X of interactive requests go to a single shard", or
// what stands in for it when no interactive request asks a shard.
func singleClause(c Criteria) string {
	if c.singleUnknown {
		return "No interactive request asks a shard"
	}
	return pct(c.SingleShard) + " of interactive requests go to a single shard"
}

// workRatioClause is "work ratio R: its work over the mean UNIT's", or
// "work ratio unknown" when no shard does any work (the mean is 0).
func workRatioClause(c *sim.Candidate, unit string) string {
	if !c.WorkRatioKnown() {
		return "work ratio unknown: no " + unit + " does any work"
	}
	return fmt.Sprintf("work ratio %.2fx: its work over the mean %s's", c.WorkRatio, unit)
}

// OpCost is an operation that costs more than one shard per request.
type OpCost struct {
	Name string  `json:"name"`
	Rate float64 `json:"requests_per_s"`
	// FanoutMean is the operation's fan-out as its score counts it:
	// shards, or nodes when the candidate counts nodes
	// (sim.Candidate.FanoutPer; FanoutUnit says which).
	FanoutMean float64 `json:"fanout_mean"`
	Scatter    float64 `json:"scatter_fraction"`
	// Broadcast: a write to a replicated table, written on every shard
	// (sim.OpScore.Broadcast), not scatter-gather.
	Broadcast bool `json:"broadcast,omitempty"`
	// Unsized is the share (0..1) of its requests routed by key values
	// known only at run time, their number too (sim.OpScore.UnsizedFraction:
	// the rows an INSERT ... SELECT computes, a list bind variable),
	// counted at every shard, the most they can ask.
	Unsized   float64 `json:"unsized_fraction,omitempty"`
	ExtraWork float64 `json:"extra_work_per_s"` // work/s beyond one shard per request
	Latency   string  `json:"latency,omitempty"`
	unit      string  // "shards" or "nodes"
}

// RouteNote says how the operation's shards are chosen, for "ask 8.0
// shards each (...)": its scatter-gather share, or, for an operation
// routed mostly by key values known only at run time in unknown number
// (Unsized), that its fan-out is that bound and no scatter-gather.
func (o OpCost) RouteNote() string {
	if o.Unsized >= 0.5 {
		return "routed by the key's values, known only at run time, their number too: counted at every " + strings.TrimSuffix(o.FanoutUnit(), "s") + ", the most it can ask; no scatter-gather"
	}
	return pct(o.Scatter) + " scatter-gather"
}

// FanoutUnit returns what FanoutMean counts: "shards" or "nodes".
func (o OpCost) FanoutUnit() string {
	if o.unit == "" {
		return "shards"
	}
	return o.unit
}

// Fix is one remedy, with numbers before and after where it was
// re-simulated.
type Fix struct {
	Kind   string `json:"kind"`   // isolate, split (a whale over K dedicated shards by a second key level), salt, hot-row (one row most write transactions write: a global counter), cache, global-index (a lookup table), projection, shard-encoded-id, read-model, replica, bucket-prefix, shard-count (a count that divides a low-cardinality key's values evenly), bucket (Cassandra: a whale's rows over K partitions by a bucket column in the partition key), compound-key (MongoDB: a suffix that lets a jumbo chunk split), place-values (each of a hash key's few values on a shard of its own: a directory placement), flag
	Target string `json:"target"` // the operation or key value it treats
	Text   string `json:"text"`
	Key    string `json:"key,omitempty"` // the re-simulated key
	// Shards, for a fix that changes the shard count (shard-count), is
	// the count Key and After are scored at; omitted otherwise (the
	// advice's). Such a fix is not part of "after fixes".
	Shards int   `json:"shards,omitempty"`
	Before *Nums `json:"before,omitempty"`
	After  *Nums `json:"after,omitempty"`
	// DirectoryFile and Placement, for a place-values fix, are the
	// directory file Key names (directory(col, FILE)) and its map, every
	// value with the shard (slot, with slots over nodes) it is placed on,
	// in value order: what the file holds (WriteDirectory writes it, in
	// the value,shard lines directory() reads).
	DirectoryFile string   `json:"directory_file,omitempty"`
	Placement     []Placed `json:"placement,omitempty"`
	// raises, when the fix raises the shards (nodes) over capacity or the
	// busiest shard (node), says what, as raised does; its Text then says
	// so, with the reason (noteRaise).
	raises, raiseWhy string
	// replicas, for a cache fix, is the read replicas it proposes beside
	// the cache (replicasFor), 0 when none.
	replicas int
	// bucketsAt, for a bucket fix sized by capacity, re-derives its
	// design for another node count (bucketFix); nil otherwise.
	bucketsAt func(n int) []bucketVariant
}

// Placed is one value of a directory placement and where it goes.
type Placed struct {
	Value string `json:"value"` // as the directory file writes it
	// Shard is the 0-based shard the directory maps the value to. With
	// slots over nodes it is a slot of the target node that the
	// re-simulation stands in with (the directory file's shard column),
	// not where the value's keys hash: Slot is that.
	Shard int `json:"shard"`
	// Node is the target node with slots over nodes, else omitted.
	Node *int `json:"node,omitempty"`
	// Slot, with slots over nodes, is the value's own slot: where the
	// engine hashes its keys (under redis CLUSTER KEYSLOT, CRC16 of the
	// key mod 16384: w_id 1 is in slot 9842), the slot to move to Node
	// (CLUSTER SETSLOT Slot NODE id). Omitted without nodes.
	Slot *int `json:"slot,omitempty"`
}

// Nums are the headline numbers of a simulation.
type Nums struct {
	MaxShardWork float64 `json:"max_shard_work"`
	WorkRatio    float64 `json:"work_ratio"`
	WorkPerS     float64 `json:"work_per_s"`
	// OverCapacity counts the shards over capacity, or the nodes when
	// the capacity is a node's (slots over nodes); MaxNodeWork is then
	// the busiest node's work, its slots' summed (units/s).
	// OverCapacity is null in JSON when no capacity was given
	// (capacityKnown false): nothing was judged against one.
	OverCapacity  int     `json:"over_capacity"`
	MaxNodeWork   float64 `json:"max_node_work,omitempty"`
	capacityKnown bool
}

// MarshalJSON writes n with over_capacity null when no capacity was
// given.
func (n Nums) MarshalJSON() ([]byte, error) {
	type plain Nums
	b, err := json.Marshal(plain(n))
	if err != nil {
		return nil, err
	}
	return jsonnull.Null(b, jsonnull.Unless(n.capacityKnown, "over_capacity")...)
}

func nums(c *sim.Candidate) *Nums {
	n := &Nums{MaxShardWork: c.MaxShardWork, WorkRatio: c.WorkRatio, WorkPerS: c.WorkPerS, OverCapacity: len(c.OverCapacity), capacityKnown: c.Capacity > 0}
	if c.CapacityPer == "node" {
		n.MaxNodeWork = slices.Max(c.CapacityWork())
	}
	return n
}

// Recommend analyses w and returns the ranked advice. It fails only when
// no candidate can be scored (no columns are filtered on and no keys were
// given).
func Recommend(w *shardkey.Workload, o Options) (*Advice, error) {
	if o.Shards < 1 {
		return nil, fmt.Errorf("shards %d: must be at least 1", o.Shards)
	}
	if o.Engine == nil {
		o.Engine = partition.Generic{}
	}
	var relWarn string
	if w.RatesRelative && w.Capacity > 0 {
		// Counts over an unknown span are no work per second: a capacity
		// in units/s has nothing to be compared with.
		w2 := *w
		w2.Capacity = 0
		w = &w2
		relWarn = "capacity given, but the rates are counts over an unknown span (shares, not requests/s): whether a shard is over capacity is unknown"
	}
	a := analyse(w, o.Shards)
	a.mongo = o.Engine.Name() == "mongodb"
	a.noReference = a.mongo || o.Engine.Name() == "redis"
	a.engine = o.Engine.Name()
	if o.Nodes != nil {
		a.nodes = o.Nodes.Count
	}
	keys, why := a.candidates()
	if len(o.Keys) > 0 {
		keys, why = o.Keys, map[string]string{}
		for _, k := range keys {
			why[k] = "named on the command line"
		}
	}
	// Generated candidates carry the lookups of the design in use (see
	// likeforlike.go); orig maps such a candidate back to its key as
	// generated, scored instead when the lookups do not compile on it.
	var orig map[string]string
	if o.Current != "" && len(o.Keys) == 0 {
		if cur, err := shardkey.ParseDesign(o.Current); err == nil && len(cur.Lookups) > 0 {
			orig = map[string]string{}
			var out []string
			for _, k := range keys {
				k2 := withCurrentLookups(k, cur, w)
				if k2 != k {
					orig[k2] = k
					why[k2] = why[k] + "; scored with the lookups of the design in use, so that it differs from it only in its keys"
				}
				if !containsKey(out, k2) {
					out = append(out, k2)
				}
			}
			keys = out
		}
	}
	if o.Current != "" {
		if o.CurrentLabel == "" {
			o.CurrentLabel = "in use"
		}
		if !containsKey(keys, o.Current) {
			keys = append(keys[:len(keys):len(keys)], o.Current)
		}
		why[o.Current] = o.CurrentLabel + ": the design the database runs today, scored as the baseline"
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: no operation filters on a column by equality or range; name keys with -k", ErrNoCandidates)
	}
	// One cache for every scoring below: the workloads scored (w, and
	// those the fixes and carried keys build) are not changed once scored.
	sopts := sim.Options{Shards: o.Shards, Engine: o.Engine, Dir: o.Dir, Workers: o.Workers, Nodes: o.Nodes, Vindexes: o.Vindexes, Cache: sim.NewCache()}
	adv := &Advice{Workload: w.Name, Shards: o.Shards, Engine: o.Engine.Name(), Capacity: w.Capacity, RolledBackTxns: w.RolledBackTxns, RatesRelative: w.RatesRelative, TxnsUnknown: w.TxnsUnknown}
	if relWarn != "" {
		adv.Warnings = append(adv.Warnings, relWarn)
	}
	if o.Nodes != nil {
		adv.Nodes = o.Nodes.Count
	}
	for _, e := range w.Warnings {
		adv.Warnings = append(adv.Warnings, e.Error())
	}
	if len(o.Keys) == 0 {
		adv.Warnings = append(adv.Warnings, a.warns...)
	}
	var list []*Assessment
	// The candidates are scored concurrently (sim.Score is, with one
	// Cache), then read in their order: the warnings, skips and list are
	// those of scoring them one after another.
	type scored struct {
		key  string
		c    *sim.Candidate
		err  error
		lerr error // scored without the lookups of the design in use: why
	}
	res := make([]scored, len(keys))
	each(len(keys), 0, func(i int) {
		k := keys[i]
		c, err := sim.Score(w, k, sopts)
		r := scored{key: k, c: c, err: err}
		if g, ok := orig[k]; ok && err != nil && k != o.Current {
			// The lookups of the design in use do not compile on this
			// candidate: score it as generated, and say so when that
			// scores.
			r.key, r.lerr = g, err
			r.c, r.err = sim.Score(w, g, sopts)
		}
		res[i] = r
	})
	for _, r := range res {
		k, c, err := r.key, r.c, r.err
		if r.lerr != nil && err == nil {
			adv.Warnings = append(adv.Warnings, fmt.Sprintf("candidate %s scored without the lookups of the design in use: %v", k, r.lerr))
		}
		if err != nil {
			if len(o.Keys) > 0 && k != o.Current {
				return nil, err
			}
			if k == o.Current || containsKey(w.Candidates, k) {
				// Named by the user: the design in use, or the spec's.
				msg := fmt.Sprintf("candidate %s skipped: %v", k, err)
				if l := w.CandidateLines[k]; l > 0 && k != o.Current {
					msg = shardkey.Errorf(w.Source, l, "candidates", "%s", msg).Error()
				}
				adv.Warnings = append(adv.Warnings, msg)
			} else {
				adv.skip(k, err)
			}
			continue
		}
		for _, lw := range c.LookupWarnings {
			// A lookup's finding (a backing table the VSchema does not
			// define, NULLs Vitess refuses) holds for every candidate
			// with the lookup: said once, in the advice's warnings.
			if !slices.Contains(adv.Warnings, lw) {
				adv.Warnings = append(adv.Warnings, lw)
			}
		}
		as := a.assess(k, why[k], c, o.Shards)
		as.w, as.an = w, a
		as.InUse = o.Current != "" && k == o.Current
		list = append(list, as)
	}
	if len(o.Keys) == 0 {
		list = append(list, a.carriedCandidates(list, sopts, adv)...)
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("no candidate could be scored")
	}
	// Fixes for every candidate, then the final order: the fixes change
	// the load criterion (the busiest shard after fixes), and a figure
	// "after fixes" that applied none would rank and read as the
	// unfixed one. The fewest shards that fit (a search of re-scores) is
	// worked out for the recommended design only (shardsNeeded). The
	// order before the fixes stays the tie-break of the final (stable)
	// sort: of two designs equal after fixes, the one that needs none to
	// get there goes first (range(w_id) before hash(w_id) with its values
	// placed one by one).
	sort.SliceStable(list, func(i, j int) bool { return better(list[i], list[j]) })
	fixed, limit := 0, fixesFor(w)
	for _, as := range list {
		if fixed >= limit && !as.InUse {
			as.Criteria.AfterFixesNotSimulated = true
			continue
		}
		as.an.fixes(as, as.w, sopts)
		as.capacity = as.an.capacityCheck(as, sopts)
		fixed++
	}
	judgeFit(list)
	sort.SliceStable(list, func(i, j int) bool { return better(list[i], list[j]) })
	list = samePlacement(list, sopts)
	list = keepInUse(list)
	adv.Evidence = a.evidenceOf(list)
	for i, as := range list {
		as.Rank = i + 1
		as.Verdict = verdict(as, i == 0)
		switch {
		case i == 0 && as.Viable && len(adv.Evidence.TiedWithFirst) > 0:
			few := "transactions and statements"
			if adv.TxnsUnknown {
				few = "statements"
			}
			as.Verdict += fmt.Sprintf("; provisional: too few %s to separate it from %s", few, plural(len(adv.Evidence.TiedWithFirst), "1 other design", fmt.Sprintf("%d other designs", len(adv.Evidence.TiedWithFirst))))
		case as.TiedWithFirst:
			as.Verdict += "; tied with the first within the evidence"
		}
		if as.fitsAfter {
			// Ranked by the capacity over a design ahead on what the
			// operations and transactions touch: said, not hidden.
			for _, o := range list[i+1:] {
				if ahead, _ := orderAccess(o, as); o.neverFits && ahead {
					adv.CapacityFirst = true
					as.Verdict += fmt.Sprintf("; ranked before %s, though that one is ahead on what the operations and transactions touch, because this one fits the capacity after its fixes with room to spare (busiest %s %s/s, %s/s a %s) and no %s count brings %s under it (busiest %s/s after its fixes)",
						o.Display(), busiestUnit(as.Score), fmtF(as.capacity.After.busiest(as.capacity)), fmtF(as.capacity.Capacity), busiestUnit(as.Score), busiestUnit(as.Score), o.Display(), fmtF(o.capacity.After.busiest(o.capacity)))
					break
				}
			}
		}
		if best := list[0]; i > 0 && as.Viable && as.movedOff-best.movedOff > 0.1*as.Score.RequestsPerS && as.Criteria.AfterFixes < best.Criteria.AfterFixes {
			as.Verdict += fmt.Sprintf("; its %s/s after fixes takes %s requests/s (%s) to read models, which must still serve them: not a lighter load than %s's %s/s",
				fmtF(as.Criteria.AfterFixes), fmtF(as.movedOff), strings.Join(as.movedOps, ", "), best.Key, fmtF(best.Criteria.AfterFixes))
		}
		if as.InUse {
			adv.InUse = as.Key
			if i == 0 {
				as.Verdict = o.CurrentLabel + "; keep it: " + strings.TrimPrefix(as.Verdict, "recommended: ")
			} else {
				as.Verdict = o.CurrentLabel + "; " + as.Verdict
			}
		}
	}
	if o.Current != "" && adv.InUse == "" {
		adv.Warnings = append(adv.Warnings, fmt.Sprintf("the design in use, %s, could not be scored: the advice is not compared with it", o.Current))
	}
	adv.KeepInUse = list[0].InUse
	adv.Candidates = list
	// The advice's warnings (standard error) carry the candidates' own
	// warnings only for the designs the user must act on: the
	// recommended one, the one in use, and those named with -k. A
	// generated candidate's are in its own block and JSON's
	// score.warnings, and a table it leaves on shard 0 in its verdict.
	for _, wn := range candidateWarnings(list, func(i int, as *Assessment) bool {
		return i == 0 || as.InUse || len(o.Keys) > 0
	}) {
		if !slices.Contains(adv.Warnings, wn) {
			adv.Warnings = append(adv.Warnings, wn)
		}
	}
	a.compareCarried(list)
	adv.Recommended = list[0].Key
	shardsNeeded(list[0].capacity)
	for _, as := range list[1:] {
		if as.capacity != nil {
			as.capacity.search = nil // the others' re-scored workloads are not searched: let them go
		}
	}
	adv.CapacityCheck = list[0].capacity
	adv.Warnings = append(adv.Warnings, smallSample(list[0])...)
	if u := list[0].ReplicatedSizeUnknown; len(u) > 0 && o.Shards > 1 {
		adv.Warnings = append(adv.Warnings, list[0].Display()+": "+unsizedText(u, o.Shards))
	}
	if list[0].jumbo != "" {
		adv.Warnings = append(adv.Warnings, list[0].Display()+": "+list[0].jumbo)
	}
	if o.Nodes != nil {
		nodesReport(list[0], o, sopts)
	}
	a.evenShardsFix(list, sopts)
	adv.Summary = summary(adv, w)
	adv.Durable = durable(list[0])
	adv.Flags = a.flags(list[0], o.Shards)
	if len(o.Sweep) > 0 {
		rows, err := Sweep(list[0].w, adv.Recommended, sweepCounts(o.Sweep, list[0], o.Shards), sopts)
		if err != nil {
			return nil, err
		}
		adv.Sweep = rows
	}
	if o.Bootstrap > 0 {
		conf, err := Bootstrap(list[0].w, adv.Recommended, o.Bootstrap, o.Seed, sopts)
		if err != nil {
			return nil, err
		}
		adv.Confidence = conf
	}
	if a.mongo {
		mongoNotation(adv, append(slices.Clone(o.Keys), o.Current))
	}
	return adv, nil
}

// assess computes a candidate's criteria and the operations it makes
// expensive.
func (a *analysis) assess(key, origin string, c *sim.Candidate, n int) *Assessment {
	as := &Assessment{Key: key, Origin: origin, Score: c, Viable: true}
	cr := &as.Criteria
	var inter, single, interWork, none float64
	for _, op := range c.Operations {
		if op.Latency != "batch" {
			inter += op.RequestsPerS
			interWork += op.WorkPerS
			// Requests that ask no shard (an empty IN list) are left
			// out: neither single-shard nor fanned out.
			none += op.NoShardPerS
			single += (op.RequestsPerS - op.NoShardPerS) * op.SingleShardFraction
		}
		// Costlier than one unit per request: counted in slots, as work
		// is (a command across two slots of one node is two).
		// A read that rides in another's request (a join's other table,
		// merged_per_s) costs its own fan-out all the same.
		if reads := op.RequestsPerS + op.MergedPerS; op.SlotFanoutMean() > 1.0001 && reads > 0 {
			work := op.WorkPerS
			if op.NodeWorkPerS != nil {
				// Slots on nodes under an engine that sends a keyless
				// scatter once per node: what the nodes do.
				work = *op.NodeWorkPerS
			}
			as.Expensive = append(as.Expensive, OpCost{Name: op.Name, Rate: reads, FanoutMean: op.FanoutMean,
				Scatter: op.ScatterFraction, Broadcast: op.Broadcast, Unsized: op.UnsizedFraction, ExtraWork: work - reads, Latency: op.Latency, unit: c.FanoutUnit()})
		}
	}
	sort.SliceStable(as.Expensive, func(i, j int) bool { return as.Expensive[i].ExtraWork > as.Expensive[j].ExtraWork })
	asking := inter - none // interactive requests that ask a shard
	switch {
	case asking > 0:
		cr.SingleShard = single / asking
		cr.WorkPerRequest = interWork / asking
	case inter > 0:
		// Every interactive request asks no shard: no share of them
		// is single-shard, nor is it 0.
		cr.singleUnknown = true
	default:
		cr.SingleShard = c.SingleShardFraction
		cr.WorkPerRequest = c.FanoutMean
	}
	cr.CrossShardTxn = c.CrossShardTxnFraction
	cr.txnsUnknown = c.TxnsUnknown()
	cr.noRequests, cr.noTxns, cr.noWork = c.RequestsPerS == 0, c.Transactions == 0, !c.WorkRatioKnown()
	cr.Local = cr.SingleShard
	if asking > 0 && a.txnStmts > 0 {
		// The requests that commit with a cross-shard transaction, each
		// transaction's own (Candidate.CrossTxnRequests); else the
		// average transaction's share of them.
		cross := cr.CrossShardTxn * a.txnStmts
		if n, ok := c.CrossTxnRequests(); ok {
			cross = n
		}
		cr.Local = math.Max(0, cr.SingleShard-cross/asking)
	}
	cr.WorkRatio, cr.Expected, cr.MaxShardWork, cr.AfterFixes = c.WorkRatio, c.ExpectedWorkRatio(), c.MaxShardWork, c.MaxShardWork
	if rs := a.rootStatsOf(key); rs != nil {
		// The entity group, not one table, is what a shard must hold.
		as.Root = rs
	}
	// The largest over every table the design shards: a whale on any of
	// them is a shard the design cannot relieve.
	// A value is a whale, or the key bounded, only on the evidence of
	// enough rows or statements (whaleVerdict); in between the figure is
	// unknown, LargestOf saying which value and on how many.
	// The whale threshold is against the machines: with slots on
	// nodes, a node's fair share (whaleUnits).
	wn, wunit := a.whaleUnits(n)
	if p := largestPartition(a.w, c, as.Root, wn); p != nil {
		cr.LargestPartition, cr.LargestOf = p.Share, p
	}
	cr.LargestUnknown = as.Root == nil && cr.LargestOf == nil
	cr.Bounded = true
	if p := cr.LargestOf; p != nil {
		switch p.verdict(wn) {
		case aWhale:
			cr.Bounded = false
		case unproven:
			cr.LargestPartition, cr.LargestUnknown = 0, true
		}
	}
	cr.Boundary = a.boundary(key)
	// Not viable: everything new lands on one range, or too few values.
	d, _ := shardkey.ParseDesign(key)
	for _, tk := range c.Tables {
		if tk.Rows == 0 && tk.Cardinality == 0 && isRange(d, tk.Table) && n > 1 {
			// No row sample: a range key has no boundaries, and every
			// value falls in the first range.
			as.Viable = false
			as.Rejection = fmt.Sprintf("range partitioning of %s has no row sample or statement values for its boundaries", tk.Table)
			as.Reasons = append(as.Reasons, fmt.Sprintf("range partitioning of %s needs a row sample for its boundaries (give --rows): without one every value falls in the first range", tk.Table))
			break
		}
		// A monotonic range key is a hot tail only when new rows pile
		// onto the last range: the busiest shard then does far more
		// than its share (TPC-C's warehouse ids follow row order in a
		// sample, but orders spread over every warehouse).
		if tk.Monotonic && isRange(d, tk.Table) && n > 1 && busiestShare(c) < math.Min(0.5, 3/float64(n)) && tk.Rows >= 20 && tk.Cardinality == tk.Rows && tk.Monotonicity > 0 {
			// No inserts in the workload to show the hot tail, but the
			// key is unique and grows with insert order, as an ObjectId
			// (its first 4 bytes are the creation second) or a creation
			// time does: new rows will all go to the last range.
			col := strings.Join(tk.Columns, ", ")
			as.Viable = false
			as.Rejection = fmt.Sprintf("%s is monotonic (rank correlation %.2f with insert order) and unique, so every new row goes to the last range", col, tk.Monotonicity)
			as.Reasons = append(as.Reasons, fmt.Sprintf("%s is monotonic (rank correlation %.2f with insert order) and unique, as an ObjectId or a creation time is: under range partitioning every new row goes to the last range, one shard taking every insert (MongoDB's guidance against monotonically changing shard keys); the workload has no inserts to show it",
				col, tk.Monotonicity))
			break
		}
		// On the traffic basis (a log) the boundaries are fitted to the
		// logged statements' values, inserts included, so the logged
		// inserts spread over every range and the busiest shard looks
		// fine; but the key grew with insert order over the log's
		// inserts (at least sim.MonotonicInserts of them), and every
		// insert after the log lands past the last boundary.
		hidden := tk.Basis == "traffic" && tk.Inserted >= sim.MonotonicInserts
		if tk.Monotonic && isRange(d, tk.Table) && n > 1 && (busiestShare(c) >= math.Min(0.5, 3/float64(n)) || hidden) {
			as.Viable = false
			// The sample's figure is Spearman's rank correlation; one
			// measured in the database is Pearson's r (sim.DatabaseStats).
			corr := "rank correlation"
			if tk.Database != nil && slices.Contains(tk.Database.Figures, "monotonicity") {
				corr = "correlation"
			}
			end := "last" // a growing key's new rows sort after every boundary
			if tk.Monotonicity < 0 {
				end = "first"
			}
			as.Rejection = fmt.Sprintf("%s is monotonic (%s %.2f with insert order), so every new row goes to the %s range", strings.Join(tk.Columns, ", "), corr, tk.Monotonicity, end)
			if busiestShare(c) >= math.Min(0.5, 3/float64(n)) {
				as.Reasons = append(as.Reasons, fmt.Sprintf("%s is monotonic (%s %.2f with insert order): under range partitioning every new row goes to the %s range, which does %s of all work; splitting only moves the hot spot",
					strings.Join(tk.Columns, ", "), corr, tk.Monotonicity, end, pct(busiestShare(c))))
			} else {
				as.Reasons = append(as.Reasons, fmt.Sprintf("%s is monotonic (%s %.2f with insert order over %d logged inserts): under range partitioning every new row goes to the %s range; the boundaries here are fitted to the log's own values, which spreads its inserts over the ranges (the busiest shard does %s of all work), but every insert after the log lands past the %s boundary, one shard taking them all; splitting only moves the hot spot",
					strings.Join(tk.Columns, ", "), corr, tk.Monotonicity, tk.Inserted, end, pct(busiestShare(c)), end))
			}
			col := strings.Join(tk.Columns, ", ")
			b := min(n, 16)
			as.Fixes = append(as.Fixes, Fix{Kind: "bucket-prefix", Target: col,
				Text: fmt.Sprintf("Monotonic key %s: prefix it with a small hash bucket, range(bucket, %s) with %d buckets, so inserts spread over %d ranges while a scan by %s reads %d ranges in parallel; or lead with an entity, range(entity, %s), so each entity's history stays ordered and new rows come from many entities, at the price of scans by %s alone across entities asking every shard; or keep the hot tail for a write-ahead stream and range-partition only history.%s",
					col, col, b, b, col, b, col, col, a.monotonicHow(col, b))})
			break
		}
		// Slots (Citus shards, Redis hash slots, logical shards) are
		// logical: a slot left empty costs nothing. What fewer values
		// than units leaves idle is machines, so with slots on nodes
		// the values are counted against the nodes.
		units, unit := n, "shards"
		if a.nodes > 0 {
			units, unit = a.nodes, "nodes"
		}
		if tk.Cardinality > 0 && tk.Cardinality < units && units > 1 && tk.Rows >= 4*units {
			as.Viable = false
			as.Rejection = fmt.Sprintf("%s has only %d distinct values for %d %s", strings.Join(tk.Columns, ", "), tk.Cardinality, units, unit)
			as.Reasons = append(as.Reasons, fmt.Sprintf("%s has only %d distinct values for %d %s: low cardinality leaves %s empty, whatever the function",
				strings.Join(tk.Columns, ", "), tk.Cardinality, units, unit, unit))
			break
		}
		// Without rows, the values the statements bind: fewer than the
		// units may be a short log's (a table holds values its log did
		// not name), but the design's main key (c.Cardinality: the
		// rowless key of the most values) with one value alone, named by
		// many statements, is no shard key of this workload: every
		// request lands on one unit whatever the function (the hot-unit
		// limit below allows a few keys their uneven spread, and would
		// pass it). A lesser table's one value (a hot row's) is not this.
		if tk.Basis == "traffic" && tk.Database == nil && c.Cardinality == 1 && tk.Cardinality == 1 && units > 1 && tk.Named >= 4*units && len(tk.TopValues) > 0 {
			as.Viable = false
			as.Rejection = fmt.Sprintf("every one of the %d statements naming %s binds one value, %s", tk.Named, strings.Join(tk.Columns, ", "), tk.TopValues[0].Value)
			as.Reasons = append(as.Reasons, fmt.Sprintf("%s: one %s does all the work of the statements naming it, whatever the function, with the other %d %s idle (no row sample: the table may hold other values the log did not name)",
				as.Rejection, strings.TrimSuffix(unit, "s"), units-1, unit))
			break
		}
	}
	// A large table the workload writes is never a reference table: a
	// copy on every shard takes each of its writes on every shard.
	if as.Viable && n > 1 {
		if d, err := shardkey.ParseDesign(key); err == nil {
			for ti, t := range a.w.Tables {
				if _, ok := d.Tables[t.Name].(*shardkey.ReplicateExpr); !ok || a.small[ti] || !a.written(ti) {
					continue
				}
				as.Viable = false
				as.Rejection = fmt.Sprintf("%s is written and not small, so as a reference table every write would touch all %d shards", t.Name, n)
				as.Reasons = append([]string{as.Rejection + ": shard it by a key of its own, or carry the root key into it"}, as.Reasons...)
				break
			}
		}
	}
	// One unit (a shard; a node when work is counted on nodes) doing far
	// more than its share of the work: unsharded tables or a clumped key
	// (see hotLimit for what "far more" is).
	if bs, u, unit := hotUnit(c); as.Viable && u >= 3 && bs > 0 {
		if lim, why := hotLimit(c, u, unit); bs > lim {
			as.Viable = false
			as.Rejection = fmt.Sprintf("one %s does %s of all work", unit, pct(bs))
			clump := "the key clumps the work"
			for _, wn := range c.Warnings {
				if strings.Contains(wn, "unsharded") {
					clump = "tables the key does not place stay unsharded there"
					break
				}
			}
			as.Reasons = append(as.Reasons, fmt.Sprintf("hot %s: one %s does %s of all work (%d %ss, a fair share %s), above %s: %s", unit, unit, pct(bs), u, unit, pct(1/float64(u)), why, clump))
		}
	}
	as.RangeFit = rangeFitOf(c, key, n)
	// Updates that assign the key: rows that move, or are refused.
	a.keyMoves(as, c)
	// Last, so that it is the reason given: an engine that places keys
	// only by hash cannot run a range key at all.
	if why := partition.HashOnly(a.engine); why != "" {
		for _, tk := range c.Tables {
			if isRange(d, tk.Table) {
				as.Viable = false
				as.Rejection = fmt.Sprintf("%s: range partitioning of %s is not available", why, tk.Table)
				as.Reasons = append(as.Reasons, as.Rejection)
				break
			}
		}
	}
	switch {
	case c.RequestsPerS > 0 && cr.singleUnknown:
		as.Reasons = append(as.Reasons, c.NoShardNote())
	case c.RequestsPerS > 0 && c.NoShardPerS > 0:
		as.Reasons = append(as.Reasons, fmt.Sprintf("%s of interactive requests that ask a shard are single-shard; %s units of work per request that asks one (fan-out mean %.2f over all requests, those that ask none counted as 0)",
			pct(cr.SingleShard), fmtF(c.WorkPerS/(c.RequestsPerS-c.NoShardPerS)), c.FanoutMean), c.NoShardNote())
		if c.Transactions > 0 {
			as.Reasons = append(as.Reasons, fmt.Sprintf("%s of transactions cross shards, so %s of requests are single-shard and commit locally", pct(cr.CrossShardTxn), pct(cr.Local)))
		}
	case c.RequestsPerS > 0:
		as.Reasons = append(as.Reasons, fmt.Sprintf("%s of interactive requests are single-shard; %s units of work per request (fan-out mean %.2f)",
			pct(cr.SingleShard), fmtF(c.WorkPerS/c.RequestsPerS), c.FanoutMean))
		if c.Transactions > 0 {
			as.Reasons = append(as.Reasons, fmt.Sprintf("%s of transactions cross shards, so %s of requests are single-shard and commit locally", pct(cr.CrossShardTxn), pct(cr.Local)))
		}
	case c.Transactions > 0:
		as.Reasons = append(as.Reasons, fmt.Sprintf("%s of transactions cross shards (the workload has no queries)", pct(cr.CrossShardTxn)))
	}
	if cr.Boundary {
		as.Reasons = append(as.Reasons, "every table of the entity group carries the key: exports, deletes and moves of one entity are single-shard")
	}
	if as.Root != nil {
		as.Reasons = append(as.Reasons, rootText(as.Root, rangeRoot(d, as.Root)))
	}
	if as.ReplicatedSizeUnknown = a.unsizedReplicas(key); len(as.ReplicatedSizeUnknown) > 0 && n > 1 {
		as.Reasons = append([]string{unsizedText(as.ReplicatedSizeUnknown, n)}, as.Reasons...)
	}
	as.Reasons = append(as.Reasons, a.replicaCosts(key, n)...)
	as.Reasons = append(as.Reasons, a.lookupReasons(c)...)
	as.Reasons = append(as.Reasons, a.mongoUnsharded(key, c)...)
	as.Reasons = append(as.Reasons, a.citusForeignKeys(key)...)
	if !cr.Bounded && cr.LargestOf != nil {
		as.Reasons = append(as.Reasons, whaleReason(cr.LargestOf, wn, wunit))
	} else if cr.LargestUnknown && cr.LargestOf != nil {
		as.Reasons = append(as.Reasons, unprovenReason(cr.LargestOf, wn, wunit))
	} else if p := cr.LargestOf; p != nil && len(p.Unique) > 0 && whaleVerdict(p.Share, p.Observations, wn) != noWhale {
		// Said only where the sample alone could not bound it (TPC-C's
		// 8 warehouses): 20,000 sampled ids need no argument.
		as.Reasons = append(as.Reasons, uniqueReason(p, wn, wunit))
	}
	if rel := a.w.RatesRelative; c.WorkPerS > 0 {
		r := fmt.Sprintf("busiest shard %s units/s, %.2fx the mean; a perfect hash of this many equal keys gives %s", fmtF(c.MaxShardWork), c.WorkRatio, perfectText(c.ExpectedMaxLoadRatio))
		if rel {
			r = fmt.Sprintf("busiest shard %.2fx the mean shard's work (absolute rates unknown: the input has counts, no time span); a perfect hash of this many equal keys gives %s", c.WorkRatio, perfectText(c.ExpectedMaxLoadRatio))
		}
		if c.WorkPer == "node" {
			// The figures are the nodes' (sim.Candidate.WorkPer), and so
			// is the perfect-hash ratio they are read against.
			r = fmt.Sprintf("busiest node %s units/s, %.2fx the mean node; a perfect hash of this many equal keys over %d nodes gives %.2fx", fmtF(c.MaxShardWork), c.WorkRatio, c.CapacityUnits(), c.ExpectedWorkRatio())
		}
		if over := len(c.OverCapacity); over > 0 && c.Capacity > 0 && c.CapacityPer != "node" {
			who := fmt.Sprintf("%d of %d shards %s", over, c.Shards, plural(over, "exceeds", "exceed"))
			if c.Shards == 1 {
				who = "the only shard exceeds"
			}
			r += fmt.Sprintf("; over capacity: %s the %s units/s one shard can do, the busiest %.2fx it", who, fmtF(c.Capacity), c.MaxShardWork/c.Capacity)
		}
		as.Reasons = append(as.Reasons, r)
	} else if c.LoadRatio > 0 {
		as.Reasons = append(as.Reasons, fmt.Sprintf("busiest shard holds %.2fx the mean row load; a perfect hash of this many equal keys gives %s", c.LoadRatio, perfectText(c.ExpectedMaxLoadRatio)))
	}
	if as.Viable && as.fitted() {
		as.Reasons = append(as.Reasons, as.RangeFit.reason(c))
	}
	a.jumboReasons(as)
	return as
}

// written reports whether the workload writes table ti (an operation or a
// transaction statement).
func (a *analysis) written(ti int) bool {
	for _, op := range a.w.Ops {
		if op.Table == ti && op.Kind.IsWrite() && op.Rate > 0 {
			return true
		}
	}
	for _, tx := range a.w.Txns {
		if !tx.Committed() {
			continue
		}
		for _, st := range tx.Stmts {
			if st.Table == ti && st.Kind.IsWrite() {
				return true
			}
		}
	}
	return false
}

// citusForeignKeys says, under Citus, which declared foreign keys
// (--schema, --from) design key cannot keep, why and the ways out: what
// --emit citus warns about (emit.CitusForeignKeyProblems, Citus's rules
// in foreign_constraint.c), so that a design is not recommended silently
// over a schema Citus refuses to distribute as declared.
func (a *analysis) citusForeignKeys(key string) []string {
	if a.w.Catalog == nil || !partition.IsCitus(a.engine) {
		return nil
	}
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return nil
	}
	return emit.CitusForeignKeyProblems(a.w, d)
}

// mongoUnsharded says, under MongoDB, for each small read-mostly table
// (one other engines would make a reference table) what design key does
// with it instead: MongoDB has no reference collections, and an unsharded
// collection lives on the database's primary shard, which serves all its
// reads and writes (MongoDB manual, "Primary Shard"). A replicate in key
// is scored so (sim: kUnplaced on shard 0); the advisor's own candidates
// shard such a table by its own most-bound column (see complete).
func (a *analysis) mongoUnsharded(key string, c *sim.Candidate) []string {
	if !a.mongo {
		return nil
	}
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return nil
	}
	var out []string
	for ti, t := range a.w.Tables {
		e := d.For(t.Name, func(col string) bool { return t.Column(col) != nil })
		_, repl := e.(*shardkey.ReplicateExpr)
		if !repl && !a.small[ti] {
			continue
		}
		reads, writes := a.tableRates(ti)
		load := fmt.Sprintf("its %s reads/s and %s writes/s", fmtF(reads), fmtF(writes))
		if writes == 0 {
			load = fmt.Sprintf("its %s reads/s", fmtF(reads))
		}
		if capy := a.w.Capacity; capy > 0 {
			load += fmt.Sprintf(" (one shard's capacity is %s units/s)", fmtF(capy))
		}
		alt := "co-locate it by the same shard-key prefix as the collections it is read with, or serve its reads from a read model or cache"
		switch {
		case repl:
			out = append(out, fmt.Sprintf("%s:replicate: MongoDB has no reference collections; unsharded, %s lives on the database's primary shard with all of %s: shard it by its own key, %s", t.Name, t.Name, load, alt))
		case e != nil:
			out = append(out, fmt.Sprintf("%s is small and read-mostly, but MongoDB has no reference collections (unsharded, it would live on the primary shard with all of %s): sharded by its own key %s instead; or %s", t.Name, load, MongoKey(e.String()), alt))
		}
	}
	return out
}

// tableRates returns the read and the write requests/s of table ti's
// operations.
func (a *analysis) tableRates(ti int) (reads, writes float64) {
	for _, op := range a.w.Ops {
		if op.Table == ti {
			if op.Kind.IsWrite() {
				writes += op.Rate
			} else {
				reads += op.Rate
			}
		}
	}
	return reads, writes
}

// unsizedReplicas returns, in table order, the tables design key
// replicates whose size nothing gives (analysis.sizeUnknown).
func (a *analysis) unsizedReplicas(key string) []string {
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return nil
	}
	var out []string
	for ti, t := range a.w.Tables {
		if _, ok := d.Tables[t.Name].(*shardkey.ReplicateExpr); ok && a.sizeUnknown[ti] {
			out = append(out, t.Name)
		}
	}
	return out
}

// unsizedText says what replicating tables of unknown size means, and
// how to find out: "orders: size unknown: replicating copies every row to
// every shard (8 copies); confirm it is small (its row count from --from
// DSN, or a row sample with --rows orders=FILE) before choosing this
// design".
func unsizedText(tables []string, n int) string {
	name, it := tables[0], "it is"
	rows := "--rows " + tables[0] + "=FILE"
	if len(tables) > 1 {
		name, it, rows = strings.Join(tables, ", "), "they are", "--rows TABLE=FILE"
	}
	return fmt.Sprintf("%s: size unknown: replicating copies every row to every shard (%d copies); confirm %s small (row counts from --from DSN, or a row sample with %s) before choosing this design",
		name, n, it, rows)
}

// replicaCosts says, for each reference table of design key, what its
// writes cost: a copy on every shard takes each write on all n shards.
func (a *analysis) replicaCosts(key string, n int) []string {
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return nil
	}
	var out []string
	for ti, t := range a.w.Tables {
		if _, ok := d.Tables[t.Name].(*shardkey.ReplicateExpr); !ok {
			continue
		}
		reads, writes := a.tableRates(ti)
		txnWrites := 0
		for _, tx := range a.w.Txns {
			if !tx.Committed() {
				continue
			}
			for _, st := range tx.Stmts {
				if st.Table == ti && st.Kind.IsWrite() {
					txnWrites++
				}
			}
		}
		switch {
		case writes > 0:
			out = append(out, fmt.Sprintf("%s is a reference table (a copy on every shard): its %s reads/s stay local, and its %s writes/s cost %s units/s (each on all %d shards)",
				t.Name, fmtF(reads), fmtF(writes), fmtF(writes*float64(n)), n))
		case txnWrites > 0:
			out = append(out, fmt.Sprintf("%s is a reference table (a copy on every shard): its reads stay local; each of its %d sampled transaction writes touches all %d shards", t.Name, txnWrites, n))
		default:
			out = append(out, fmt.Sprintf("%s is a reference table (a copy on every shard): its %s reads/s stay local, and the workload never writes it", t.Name, fmtF(reads)))
		}
	}
	return out
}

func busiestShare(c *sim.Candidate) float64 {
	total := 0.0
	for _, x := range c.ShardWork {
		total += x
	}
	if total == 0 {
		return 0
	}
	return c.MaxShardWork / total
}

// hotUnit returns the share (0..1) of all work that c's busiest unit
// does, how many units there are and what they are: nodes when c's
// shards are slots on nodes (sim.Candidate.CapacityPer "node": --slots
// over --nodes, Redis Cluster's 16384 slots over its masters, Citus's
// shards over its workers), where the node is what saturates and a
// slot's share of all work says nothing (32 slots over 4 nodes: a slot
// doing 17% is under the node's fair 25%); shards otherwise.
func hotUnit(c *sim.Candidate) (share float64, units int, unit string) {
	if c.CapacityPer != "node" {
		return busiestShare(c), c.Shards, "shard"
	}
	w := c.CapacityWork()
	total := 0.0
	for _, x := range w {
		total += x
	}
	if total == 0 {
		return 0, len(w), "node"
	}
	return slices.Max(w) / total, len(w), "node"
}

// hotLimit returns the busiest unit's share of all work above which a
// design over u (>= 3) units is rejected as clumping the work, and says
// in words what set it. It is relative to the fair share 1/u, the
// largest of:
//   - min(0.5, 3/u): three times the fair share, at most half of all work
//     (u = 3: 50%, 1.5 times it; u = 8: 37.5%);
//   - 1.5 E/u, E the balls-into-bins E[max]/mean of the key's Cardinality
//     equal keys over u units (sim.ExpectedMaxLoadRatio): few keys land
//     unevenly under any hash (10 warehouses on 10 shards: 3 on one is
//     30%, against E/u = 27.5%), which the ranking weighs, not this;
//   - 2 top, top the largest key value's share (of the main table's
//     rows, weighted by their requests): no partition function spreads a
//     whale, a directory override (isolate) or salting does, and the
//     fixes propose them; twice its share, as its work can outweigh its
//     rows (the entity's other tables).
//
// So the limit is never below what a perfect hash of the observed keys
// gives the busiest unit: top + (1-top)/u, the whale with a fair share of
// the rest, is at most 2 top when top >= 1/(u+1), and below 2/(u+1) <=
// min(0.5, 3/u) otherwise.
func hotLimit(c *sim.Candidate, u int, unit string) (limit float64, why string) {
	fu := float64(u)
	limit = math.Min(0.5, 3/fu)
	why = fmt.Sprintf("the limit of %s (3 fair shares, at most 50%%)", pct(limit))
	if c.Cardinality > 0 {
		if x := 1.5 * sim.ExpectedMaxLoadRatio(c.Cardinality, u) / fu; x > limit {
			limit = x
			why = fmt.Sprintf("%s, 1.5 times the busiest %s's share a perfect hash of %d equal keys over %d %ss gives (%s)", pct(x), unit, c.Cardinality, u, unit, pct(x/1.5))
		}
	}
	if len(c.TopValues) > 0 {
		if top := c.TopValues[0].Share; 2*top >= limit {
			limit = 2 * top
			why = fmt.Sprintf("%s, twice the largest key value's %s (a whale no partition function spreads: isolating or salting it, as the fixes propose, does)", pct(limit), pct(top))
		}
	}
	return limit, why
}

func isRange(d *shardkey.Design, table string) bool {
	if d == nil {
		return false
	}
	e := d.Tables[table]
	if e == nil {
		e = d.Default
	}
	for {
		switch m := e.(type) {
		case *shardkey.RangeExpr:
			return true
		case *shardkey.SaltExpr:
			e = m.Inner
		case *shardkey.IsolateExpr:
			e = m.Inner
		default:
			return false
		}
	}
}

// boundary reports whether the design keys every table that is not a
// reference table by columns of one entity.
func (a *analysis) boundary(key string) bool {
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return false
	}
	var ent *entity
	for ti, t := range a.w.Tables {
		e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
		if _, ok := e.(*shardkey.ReplicateExpr); ok {
			continue
		}
		if e == nil || len(e.Columns()) == 0 {
			return false
		}
		// A hash of several columns spreads one entity's rows over
		// shards; a range key led by the entity keeps them together.
		if _, isHash := baseExpr(e).(*shardkey.HashExpr); isHash && len(e.Columns()) > 1 {
			return false
		}
		ci := t.ColumnIndex(e.Columns()[0])
		var found *entity
		for _, en := range a.entities {
			for _, r := range en.cols {
				if r.table == ti && r.col == ci {
					found = en
				}
			}
		}
		if found == nil || (ent != nil && found != ent) {
			return false
		}
		ent = found
	}
	return ent != nil
}

// better orders assessments by seed 002's criteria. Measures within a
// small band count as equal, so a lower criterion decides only real ties.
func better(x, y *Assessment) bool {
	b, _ := order(x, y)
	return b
}

// order reports whether x ranks before y, and whether a measure outside
// its noise band decided it (false: only the last tie-break did).
func order(x, y *Assessment) (xFirst, beyondNoise bool) {
	if b, decided := orderBanded(x, y, 0.02); decided {
		return b, true
	}
	return x.Criteria.SingleShard > y.Criteria.SingleShard, false
}

// orderBanded is better's banded criteria, in order; decided is false
// when every one is within its band. loadTol is the relative band of the
// busiest shard's work after fixes (0.02 for the ranking).
func orderBanded(x, y *Assessment, loadTol float64) (xFirst, decided bool) {
	// A design that fits the capacity after its fixes goes before one
	// that no shard count brings under it (judgeFit): the other cannot
	// serve the workload as simulated, whatever it keeps single-shard.
	// Not at the price of its transactions: one that makes more of them
	// cross shards (by over capacityTxnSlack) trades a capacity problem
	// for a commit protocol on the hot path, and is not put first for it
	// (workspace on 128 shards: hash(block_id) fits after its fixes with
	// 100% of transactions crossing shards).
	if x.Viable && y.Viable {
		switch {
		case x.fitsAfter && y.neverFits && x.Criteria.txnRanked() <= y.Criteria.txnRanked()+capacityTxnSlack:
			return true, true
		case y.fitsAfter && x.neverFits && y.Criteria.txnRanked() <= x.Criteria.txnRanked()+capacityTxnSlack:
			return false, true
		}
	}
	if first, decided := orderAccess(x, y); decided {
		return first, true
	}
	a, b := x.Criteria, y.Criteria
	// Ranges fitted value by value to a key of few values balance only
	// the sample's traffic (rangefit.go): their load is not weighed
	// against a design that does not depend on such a fit.
	if x.fitted() != y.fitted() {
		return y.fitted(), true
	}
	// A design that copies a table of unknown size to every shard is not
	// known to have bounded partitions: every shard holds all of that
	// table. It goes after a design equal on access whose partitions are
	// known, whatever their loads (which the copy's size does not enter).
	if xu, yu := len(x.ReplicatedSizeUnknown) > 0, len(y.ReplicatedSizeUnknown) > 0; xu != yu {
		return yu, true
	}
	// A busiest shard after fixes lowered by moving materially more
	// traffic into read models than the other key does (more than a tenth
	// of the requests) is not a better load: the read model serves that
	// traffic still (see Assessment.movedOff).
	movedFair := func(xLower bool) bool {
		lo, hi := x, y
		if !xLower {
			lo, hi = y, x
		}
		return lo.movedOff-hi.movedOff <= 0.1*math.Max(x.Score.RequestsPerS, y.Score.RequestsPerS)
	}
	// An unknown largest partition (LargestUnknown) is neither bounded
	// nor a whale: a tie on that criterion.
	bounds := !a.LargestUnknown && !b.LargestUnknown && a.Bounded != b.Bounded
	if bounds && !closeRel(a.AfterFixes, b.AfterFixes, 0.25) && movedFair(a.Bounded == (a.AfterFixes < b.AfterFixes)) {
		return a.Bounded, true
	}
	// Cross-shard transactions apart by less than orderAccess's band
	// but beyond their sampling noise (clearTxnGap) are a real cost, each
	// a coordinated commit: a marginal load difference (within 25%, the
	// band the bounded test above uses) does not outweigh them. A load
	// difference beyond it does (TPC-C's 8 warehouses hashed onto 8
	// shards: fewer Payments cross shards, 9.2% against 10.7%, only
	// because three warehouses share a shard that then does 2.4 times
	// the mean).
	if clearTxnGap(x, y) && closeRel(a.AfterFixes, b.AfterFixes, 0.25) {
		return a.txnRanked() < b.txnRanked(), true
	}
	if !closeRel(a.AfterFixes, b.AfterFixes, loadTol) && movedFair(a.AfterFixes < b.AfterFixes) {
		return a.AfterFixes < b.AfterFixes, true
	}
	// Equal on everything else: the largest key value is the risk left
	// to weigh (a value that outgrows a shard; in MongoDB a chunk that
	// cannot split below one shard key value, a jumbo chunk), so the key
	// whose largest value is less than half the other's goes first. 0 is
	// unknown (no row sample, or too few observations) and weighs
	// nothing.
	if bounds {
		return a.Bounded, true
	}
	if a.LargestPartition > 0 && b.LargestPartition > 0 &&
		(2*a.LargestPartition < b.LargestPartition || 2*b.LargestPartition < a.LargestPartition) {
		return a.LargestPartition < b.LargestPartition, true
	}
	if x.Score.WorkPerS == 0 && y.Score.WorkPerS == 0 {
		// No queries: the rows' load is what is left to weigh.
		if bounds {
			return a.Bounded, true
		}
		if !closeRel(x.Score.LoadRatio, y.Score.LoadRatio, 0.02) {
			return x.Score.LoadRatio < y.Score.LoadRatio, true
		}
	}
	return false, false
}

// clearTxnGap reports whether x's and y's cross-shard transaction
// fractions differ beyond their sampling noise: by at least half a point
// and by more than twice the standard error of the difference of two
// proportions, sqrt(p1(1-p1)/n1 + p2(1-p2)/n2), over the transactions
// each was scored on (conservative: both score the same transactions,
// whose paired difference varies less).
func clearTxnGap(x, y *Assessment) bool {
	n1, n2 := float64(x.Score.Transactions), float64(y.Score.Transactions)
	if n1 == 0 || n2 == 0 {
		return false
	}
	return proportionsDiffer(x.Criteria.txnRanked(), y.Criteria.txnRanked(), n1, n2)
}

// proportionsDiffer reports whether two shares (0..1), over n1 and n2 (>
// 0) observations, differ by at least half a point and by more than twice
// the standard error of their difference, sqrt(p1(1-p1)/n1 +
// p2(1-p2)/n2).
func proportionsDiffer(p1, p2, n1, n2 float64) bool {
	d := math.Abs(p1 - p2)
	return d >= 0.005 && d > 2*math.Sqrt(p1*(1-p1)/n1+p2*(1-p2)/n2)
}

// costlierOp is as's first expensive operation that costs more under it
// than under best (an operation both scatter does not tell them apart),
// or nil.
func costlierOp(as, best *Assessment) *OpCost {
	for i := range as.Expensive {
		op := &as.Expensive[i]
		shared := false
		for _, b := range best.Expensive {
			if b.Name == op.Name && b.FanoutMean >= op.FanoutMean-0.05 {
				shared = true
				break
			}
		}
		if !shared {
			return op
		}
	}
	return nil
}

func closeRel(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}

func verdict(as *Assessment, first bool) string {
	v := verdictOf(as, first)
	// A table the design leaves on shard 0 is said in the verdict: the
	// warning of a generated candidate stays in its own block, which the
	// table and Markdown show for the first three only.
	if u := as.Score.Unsharded; len(u) > 0 && as.Score.Shards > 1 {
		v += "; leaves " + strings.Join(u, ", ") + " unsharded on shard 0"
	}
	if as.Viable && as.jumboVerdict != "" {
		v += "; but " + as.jumboVerdict
	}
	if as.Viable {
		if r := fixesRaise(as); r != "" {
			v += "; " + r
		}
		if t := thinFitText(as.capacity); t != "" {
			v += "; " + t
		}
	}
	return v
}

func verdictOf(as *Assessment, first bool) string {
	v := verdictText(as, first)
	if !as.Viable {
		return v
	}
	if u := as.ReplicatedSizeUnknown; first && len(u) > 0 && as.Score.Shards > 1 {
		it := "it is"
		if len(u) > 1 {
			it = "they are"
		}
		v += fmt.Sprintf("; but it copies %s, of unknown size, to every shard: confirm %s small", strings.Join(u, ", "), it)
	}
	over := overCapacityText(as)
	switch {
	case over == "":
		return v
	case first:
		return v + "; but " + over
	case v == "possible":
		return "possible, but " + over
	}
	// Capacity first: a shard over it cannot serve its work at all.
	return "possible, but " + over + "; and " + strings.TrimPrefix(v, "possible, but ")
}

// overCapacityText says, when as leaves a shard (a node, when the
// capacity is a node's) over the workload's capacity after its proposed
// fixes (as scored when none were worked out for it), how far over:
// "over capacity after fixes: busiest shard 3,617/s, 4.52x the 800/s one
// shard can do (9 of 64 shards over)". "" when nothing is over or no
// capacity was given.
func overCapacityText(as *Assessment) string {
	c := as.Score
	if c == nil || c.Capacity <= 0 {
		return ""
	}
	unit := "shard"
	if c.CapacityPer == "node" {
		unit = "node"
	}
	over, busiest, units, when := len(c.OverCapacity), as.Criteria.MaxShardWork, c.CapacityUnits(), ""
	if cw := c.CapacityWork(); unit == "node" && len(cw) > 0 {
		busiest = slices.Max(cw)
	}
	if cp := as.capacity; cp != nil && cp.After != nil {
		over, when = cp.After.OverCapacity, " after fixes"
		busiest = cp.After.MaxShardWork
		if unit == "node" {
			busiest = cp.After.MaxNodeWork
		}
	}
	if over == 0 {
		return ""
	}
	who := fmt.Sprintf("%d of %d %ss over", over, units, unit)
	if units == 1 {
		who = "the only " + unit
	}
	if cp := as.capacity; cp != nil && len(cp.uncounted) > 0 {
		who += "; " + uncountedText(cp)
	}
	return fmt.Sprintf("over capacity%s: busiest %s %s/s, %.2fx the %s/s one %s can do (%s)",
		when, unit, fmtF(busiest), busiest/c.Capacity, fmtF(c.Capacity), unit, who)
}

func verdictText(as *Assessment, first bool) string {
	cr := as.Criteria
	switch {
	case !as.Viable:
		return "rejected: " + as.Rejection
	case first && as.Score.RequestsPerS == 0 && as.Score.Transactions > 0:
		return fmt.Sprintf("recommended: %s cross-shard transactions (no queries to weigh)", pct(cr.CrossShardTxn))
	case first && as.Score.RequestsPerS == 0:
		return fmt.Sprintf("recommended: row load %.2fx the mean (no queries or transactions to weigh)", as.Score.LoadRatio)
	case first && as.Score.Transactions > 0:
		return fmt.Sprintf("recommended: %s of interactive requests single-shard and local, %s cross-shard transactions", pct(cr.Local), pct(cr.CrossShardTxn))
	case first && cr.singleUnknown:
		return "recommended: no interactive request asks a shard (each matches no rows)"
	case first:
		return fmt.Sprintf("recommended: %s of interactive requests single-shard", pct(cr.SingleShard))
	}
	// A later candidate's verdict names its main cost: cross-shard
	// commits first (they cost a coordinated commit each, and more than
	// any scatter read once they are common), then its most expensive
	// operation.
	var costs []string
	if as.Score.Transactions > 0 && cr.CrossShardTxn >= 0.1 {
		costs = append(costs, fmt.Sprintf("%s of transactions cross shards", pct(cr.CrossShardTxn)))
	}
	if f := as.RangeFit; as.fitted() {
		costs = append(costs, fmt.Sprintf("its ranges are fitted value by value (%s per shard of %s)", perShard(f.ValuesPerShard), f.values()))
	}
	if u := as.ReplicatedSizeUnknown; len(u) > 0 && as.Score.Shards > 1 {
		costs = append(costs, fmt.Sprintf("it copies %s, of unknown size, to every shard", strings.Join(u, ", ")))
	}
	if len(as.Expensive) > 0 {
		costs = append(costs, fmt.Sprintf("%s costs %s extra units/s", as.Expensive[0].Name, fmtF(as.Expensive[0].ExtraWork)))
	}
	if len(costs) > 0 {
		return "possible, but " + strings.Join(costs, " and ")
	}
	return "possible"
}

func pct(x float64) string { return numfmt.Pct(x) }

func fmtF(x float64) string {
	switch {
	case x >= 100:
		return numfmt.Round(x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	case x != 0 && math.Abs(x) < 0.01:
		// Three significant digits: "%.2f" printed 0.001 as 0.00.
		return strconv.FormatFloat(x, 'g', 3, 64)
	}
	return fmt.Sprintf("%.2f", x)
}

// scatters reports whether any candidate of adv has an operation asking
// more than one shard (slot) per request.
func scatters(adv *Advice) bool {
	for _, as := range adv.Candidates {
		for _, op := range as.Score.Operations {
			if op.FanoutMean > 1.001 {
				return true
			}
		}
	}
	return false
}

// busiestUnit names what c's MaxShardWork is the work of: "node" when
// work is counted on the nodes (sim.Candidate.WorkPer: slots on nodes
// under redis), else "shard".
//
// Under citus(shard_count=S) the engine places S Citus shards on the
// nodes and each figure (ShardWork, MaxShardWork) is a node's
// (partition.Citus: Shard returns the node), so the unit is "node".
func busiestUnit(c *sim.Candidate) string {
	if c.WorkPer == "node" || partition.CitusShards(c.Engine) > 0 {
		return "node"
	}
	return "shard"
}

// hasFix reports whether as has a fix of the given kind.
func hasFix(as *Assessment, kind string) bool {
	for _, f := range as.Fixes {
		if f.Kind == kind {
			return true
		}
	}
	return false
}

// perfectText is a perfect hash's ratio, "unknown" when it could not be
// computed (0: the number of keys is unknown).
func perfectText(x float64) string {
	if !(x > 0) || math.IsInf(x, 0) {
		return "an unknown ratio (the number of keys is unknown)"
	}
	return fmt.Sprintf("%.2fx", x)
}

// summary writes the plain-language answer.
func summary(adv *Advice, w *shardkey.Workload) []string {
	best := adv.Candidates[0]
	c := best.Score
	out := []string{fmt.Sprintf("Shard by %s. %s; %s requests/s cost %s units of work/s on %s, the busiest shard doing %s/s (%s).",
		best.Display(), singleClause(best.Criteria), fmtF(c.RequestsPerS), fmtF(c.WorkPerS), plural(adv.Shards, "1 shard", fmt.Sprintf("%d shards", adv.Shards)), fmtF(c.MaxShardWork), workRatioClause(c, "shard"))}
	if adv.RatesRelative {
		out[0] = fmt.Sprintf("Shard by %s. %s of interactive requests go to a single shard; %s units of work per request on %s, the busiest shard doing %.2fx the mean shard's work. The input holds counts with no time span: absolute rates and capacity are unknown; the figures printed per second below (requests/s, units/s) are the calls counted over the export's whole period, not rates per second: compare them with one another, not with a capacity.",
			best.Display(), pct(best.Criteria.SingleShard), fmtF(c.WorkPerS/c.RequestsPerS), plural(adv.Shards, "1 shard", fmt.Sprintf("%d shards", adv.Shards)), c.WorkRatio)
	}
	if s := partition.CitusShards(adv.Engine); s > 0 && !adv.RatesRelative {
		// citus(shard_count=S): S Citus shards placed on the nodes; the
		// figures are the nodes' (partition.Citus).
		out[0] = fmt.Sprintf("Shard by %s. %s; %s requests/s cost %s units of work/s on %d Citus shards over %s, the busiest node doing %s/s (%s).",
			best.Display(), singleClause(best.Criteria), fmtF(c.RequestsPerS), fmtF(c.WorkPerS), s, plural(adv.Shards, "1 node", fmt.Sprintf("%d nodes", adv.Shards)), fmtF(c.MaxShardWork), workRatioClause(c, "node"))
	}
	if n := c.Nodes; n != nil && len(n.NodeWork) > 0 {
		busiest := 0.0
		for _, x := range n.NodeWork {
			busiest = max(busiest, x)
		}
		out[0] = fmt.Sprintf("Shard by %s. %s; %s requests/s cost %s units of work/s on %d slots over %d nodes, the busiest slot doing %s/s (%.2fx the mean slot) and the busiest node %s/s (%.2fx the mean node).",
			best.Display(), singleClause(best.Criteria), fmtF(c.RequestsPerS), fmtF(c.WorkPerS), n.Slots, n.Nodes, fmtF(c.MaxShardWork), c.WorkRatio, fmtF(busiest), n.NodeWorkRatio)
		if c.WorkPer == "node" {
			// Work and its ratio are the nodes' (sim.Candidate.WorkPer).
			out[0] = fmt.Sprintf("Shard by %s. %s; %s requests/s cost %s units of work/s on %d slots over %d nodes, the busiest node doing %s/s (%.2fx the mean node).",
				best.Display(), singleClause(best.Criteria), fmtF(c.RequestsPerS), fmtF(c.WorkPerS), n.Slots, n.Nodes, fmtF(busiest), n.NodeWorkRatio)
		}
		if l := sim.ScatterCaveat(adv.Engine, n.Slots, n.Nodes, scatters(adv)); l != "" {
			out = append(out, l)
		}
	}
	if t := c.NoShardNote(); t != "" {
		out = append(out, t+".")
	}
	if c.RequestsPerS == 0 {
		// No queries: say what the choice rests on instead of 0s.
		rows := ""
		if c.LoadRatio > 0 {
			rows = fmt.Sprintf(": the busiest shard holds %.2fx the mean row load", c.LoadRatio)
		}
		switch {
		case c.Transactions > 0 && c.LoadRatio > 0:
			out[0] = fmt.Sprintf("Shard by %s. The workload has no queries, so the choice rests on the transactions and the rows%s.", best.Display(), rows)
		case c.Transactions > 0:
			out[0] = fmt.Sprintf("Shard by %s. The workload has no queries, so the choice rests on the transactions.", best.Display())
		default:
			out[0] = fmt.Sprintf("Shard by %s. The workload has no queries or transactions, so the choice rests on the rows%s.", best.Display(), rows)
		}
	}
	if !best.Viable {
		// Every candidate is rejected: the first is the best of them, not
		// a recommendation; its figures follow as what it would do.
		out[0] = fmt.Sprintf("No viable design: every candidate is rejected. The best of them, %s, is rejected: %s. Under it: %s",
			best.Display(), best.Rejection, strings.TrimPrefix(out[0], "Shard by "+best.Display()+". "))
	}
	out = append(inUseSummary(adv, best), out...)
	if t := capacityText(adv.CapacityCheck, adv.Shards); t != "" {
		// Capacity decides: a design that leaves shards over it says so
		// first, with what brings them under.
		out = append([]string{t}, out...)
	}
	if t := evidenceText(adv.Evidence); t != "" {
		out = append(out, t)
	}
	if c.Transactions > 0 {
		line := fmt.Sprintf("%s of transactions cross shards.", pct(c.CrossShardTxnFraction))
		if engineBase(adv.Engine) == "redis" && c.CrossShardTxnFraction > 0 {
			// Counted per slot: Redis Cluster refuses them as one
			// MULTI/EXEC, rather than committing them on several nodes.
			line = fmt.Sprintf("%s of transactions span several hash slots, which Redis Cluster refuses as one MULTI/EXEC (CROSSSLOT): they run as separate commands, not atomically, unless their keys share a hash tag {...}.", pct(c.CrossShardTxnFraction))
		}
		if rb := c.RolledBackText(adv.RolledBackTxns); rb != "" {
			// Rolled-back transactions are no commits, but those that
			// spanned shards cost the coordination all the same.
			line = fmt.Sprintf("%s of committed transactions cross shards, and %s.", pct(c.CrossShardTxnFraction), rb)
		}
		least := best.Criteria.CrossShardTxn
		for _, as := range adv.Candidates {
			if as.Viable && as.Score.Transactions > 0 {
				least = math.Min(least, as.Criteria.CrossShardTxn)
			}
		}
		var bc []string
		for _, op := range c.Operations {
			if op.Broadcast {
				bc = append(bc, op.Name)
			}
		}
		if len(bc) > 0 && best.Criteria.CrossShardTxn > 0.5 {
			// Writes to a reference table commit on every shard: that,
			// not the transactions' rows, is what crosses.
			line += fmt.Sprintf(" Each write to a reference table (%s) is a broadcast write: it commits on every shard.", strings.Join(bc, ", "))
		} else if hot := hotRowFixes(best); least > 0.5 && len(hot) > 0 {
			// A hot row, not unrelated entities, is what crosses: no key
			// and no commit protocol removes it (the hot-row fix below).
			line += fmt.Sprintf(" No candidate keeps most of them on one shard (the best leaves %s crossing): a hot row (%s) is written by most write transactions, and whatever the key it is on one shard; not a case for two-phase commit or a saga but for removing the row (the hot-row fix below).",
				pct(least), strings.Join(hot, "; "))
		} else if least > 0.5 {
			// No candidate keeps them local: the transactions themselves
			// join unrelated entities.
			line += fmt.Sprintf(" No candidate keeps most of them on one shard (the best leaves %s crossing): %s; plan for cross-shard commits (two-phase commit or a saga) or keep these tables unsharded together.",
				pct(least), txnShape(w))
		}
		out = append(out, line)
	}
	for _, f := range best.Fixes {
		if f.Kind == "flag" {
			continue
		}
		out = append(out, f.Text)
	}
	if l := mongoBalancerNote(adv, best); l != "" {
		out = append(out, l)
	}
	if l := mongoColocationNote(adv.Engine, best, w); l != "" {
		out = append(out, l)
	}
	if l := cassandraReplicaNote(adv.Engine); l != "" {
		out = append(out, l)
	}
	var others []string
	for _, as := range adv.Candidates[1:] {
		if len(others) >= 2 {
			break
		}
		reason := as.Verdict
		_, decided := orderBanded(best, as, 0.02)
		_, accessDecided := orderAccess(best, as)
		switch {
		case !as.Viable:
		case best.fitsAfter && as.neverFits:
			reason = fmt.Sprintf("no %s count brings it under the capacity of %s/s after its fixes (busiest %s/s), where this design fits (%s/s)",
				busiestUnit(as.Score), fmtF(as.capacity.Capacity), fmtF(as.capacity.After.busiest(as.capacity)), fmtF(best.capacity.After.busiest(best.capacity)))
		case hasFix(as, "place-values") && as.Score.MaxShardWork > best.Criteria.AfterFixes*1.005 && as.Criteria.AfterFixes <= best.Criteria.AfterFixes*1.005:
			// Equal only after its place-values fix: say what the hash
			// does and what the fix keeps.
			reason = fmt.Sprintf("as the hash places its few values its busiest %s does %s/s, against %s/s; placed one by one (its fix) it matches this design, with a map of every value to keep up as values are added", busiestUnit(as.Score), fmtF(as.Score.MaxShardWork), fmtF(best.Criteria.AfterFixes))
		case !decided && as.Viable:
			reason = "equal on every measure here: either would do"
		case !accessDecided && len(as.ReplicatedSizeUnknown) > 0 && len(best.ReplicatedSizeUnknown) == 0 && as.Score.Shards > 1:
			reason = fmt.Sprintf("it copies %s, of unknown size, to every shard", strings.Join(as.ReplicatedSizeUnknown, ", "))
			if as.Criteria.AfterFixes < best.Criteria.AfterFixes {
				reason += fmt.Sprintf("; if that is small, its busiest %s does %s/s against %s/s", busiestUnit(as.Score), fmtF(as.Criteria.AfterFixes), fmtF(best.Criteria.AfterFixes))
			}
		case !accessDecided && as.fitted() && !best.fitted():
			reason = fmt.Sprintf("its ranges are fitted value by value, %s per shard of %s", perShard(as.RangeFit.ValuesPerShard), as.RangeFit.values())
			if as.Criteria.AfterFixes < best.Criteria.AfterFixes {
				reason += fmt.Sprintf(": a busiest shard of %s/s against %s/s that holds only while each value keeps this sample's share of the traffic", fmtF(as.Criteria.AfterFixes), fmtF(best.Criteria.AfterFixes))
			} else {
				reason += ", for no lighter busiest shard; a value added later goes to the last range"
			}
		case as.Criteria.CrossShardTxn-best.Criteria.CrossShardTxn > 0.05:
			reason = fmt.Sprintf("%s of transactions would cross shards", pct(as.Criteria.CrossShardTxn))
		case costlierOp(as, best) != nil:
			op := costlierOp(as, best)
			reason = fmt.Sprintf("%s would ask %.1f %s per request", op.Name, op.FanoutMean, op.FanoutUnit())
		case as.Criteria.Local < best.Criteria.Local-0.005:
			reason = fmt.Sprintf("%s of requests single-shard and local, against %s", pct(as.Criteria.Local), pct(best.Criteria.Local))
		case best.Criteria.Boundary && !as.Criteria.Boundary:
			reason = "not one entity's boundary: some tables keyed by another column"
		case as.Criteria.CrossShardTxn > best.Criteria.CrossShardTxn+0.0005:
			reason = fmt.Sprintf("%s of transactions cross shards, against %s", pct(as.Criteria.CrossShardTxn), pct(best.Criteria.CrossShardTxn))
		case as.Criteria.AfterFixes > best.Criteria.AfterFixes*1.005:
			reason = fmt.Sprintf("its busiest %s does %s/s after fixes, against %s/s", busiestUnit(as.Score), fmtF(as.Criteria.AfterFixes), fmtF(best.Criteria.AfterFixes))
			if as.Score.Transactions > 0 && as.Criteria.CrossShardTxn < best.Criteria.CrossShardTxn-0.0005 {
				// The trade-off said, not hidden: fewer cross-shard
				// commits, bought with a busier shard.
				reason += fmt.Sprintf("; fewer of its transactions cross shards, %s against %s, but not enough to outweigh a busiest %s %.2f times as busy", pct(as.Criteria.CrossShardTxn), pct(best.Criteria.CrossShardTxn), busiestUnit(as.Score), as.Criteria.AfterFixes/best.Criteria.AfterFixes)
			}
		case as.Criteria.LargestPartition > 0 && best.Criteria.LargestPartition > 0 && as.Criteria.LargestPartition > 2*best.Criteria.LargestPartition:
			reason = fmt.Sprintf("its largest key value holds %s of its table, against %s", pct(as.Criteria.LargestPartition), pct(best.Criteria.LargestPartition))
		case as.Score.LoadRatio > best.Score.LoadRatio*1.005:
			reason = fmt.Sprintf("row load %.2fx the mean, against %.2fx", as.Score.LoadRatio, best.Score.LoadRatio)
		}
		if as.TiedWithFirst && decided {
			reason = "tied within the evidence: " + reason
		}
		if t := thinFitText(as.capacity); t != "" && as.Viable {
			reason += "; it " + t
		}
		others = append(others, fmt.Sprintf("%s (%s)", as.Display(), reason))
	}
	if len(others) > 0 {
		out = append(out, "Not "+strings.Join(others, ", nor ")+".")
	}
	_ = w
	return out
}

// hotRowFixes are the targets of as's hot-row fixes.
func hotRowFixes(as *Assessment) []string {
	var out []string
	for _, f := range as.Fixes {
		if f.Kind == "hot-row" {
			out = append(out, f.Target)
		}
	}
	return out
}

// txnShape describes the heaviest transaction: the tables it writes and
// the columns that pick their rows, which are drawn independently when
// no key co-locates them.
func txnShape(w *shardkey.Workload) string {
	best := -1
	for i := range w.Txns {
		if !w.Txns[i].Committed() {
			continue
		}
		if best < 0 || w.Txns[i].Weight > w.Txns[best].Weight {
			best = i
		}
	}
	if best < 0 {
		return "the transactions touch rows no one key relates"
	}
	if st := w.Txns[best].Stmts; len(st) == 1 && st[0].Kind == shardkey.Insert && computedRows(st[0].Conds) {
		// One INSERT ... SELECT: its rows go to their own values'
		// shards, which the log does not show.
		return fmt.Sprintf("the heaviest transaction is one INSERT ... SELECT into %s, whose rows each go to the shard of their own key value, values the statement computes and the log does not show (counted as crossing shards, the most it can)", w.Tables[st[0].Table].Name)
	}
	var parts []string
	seen := map[string]bool{}
	for _, st := range w.Txns[best].Stmts {
		t := w.Tables[st.Table]
		var cols []string
		for _, c := range st.Conds {
			if c.Op == shardkey.Eq && c.Fresh == shardkey.NotFresh {
				cols = append(cols, t.Columns[c.Col].Name)
			}
		}
		p := t.Name
		if len(cols) > 0 && st.Kind != shardkey.Insert {
			p += " by " + strings.Join(cols, ", ")
		}
		if !seen[p] {
			seen[p] = true
			parts = append(parts, p)
		}
	}
	return "the heaviest transaction touches " + strings.Join(parts, "; ") + ", rows picked by values no one key relates"
}

// computedRows reports whether an insert's conditions hold a column
// bound to no value, a range with no ends: the rows an INSERT ... SELECT
// computes (sqllog's insertFromSelect).
func computedRows(conds []shardkey.Cond) bool {
	for _, c := range conds {
		if c.Op == shardkey.Range && (c.Bounds == nil || !c.Bounds.HasLo && !c.Bounds.HasHi && !c.Bounds.LoNow && !c.Bounds.HiNow) {
			return true
		}
	}
	return false
}

// fixesFor is how many candidates, the leading ones in the order before
// fixes, get their fixes proposed and re-simulated (the design in use
// always does). With a capacity every one does: the ranking puts a design
// that fits after its fixes before one that never does (judgeFit), and a
// verdict "over capacity after fixes" must be of its fixes. Without one
// (a log, statement statistics) the three leading candidates do, as the
// load criterion only orders designs already close on what the
// operations touch: re-simulating every fix of a dozen candidates over a
// log's sampled instances doubled advise's CPU on a 1 GB log (11.9 to
// 20.9 CPU-s) and took its peak RSS past the 512 MB bound (457 to 638
// MB). The others' "after fixes" is then not simulated
// (Criteria.AfterFixesNotSimulated).
// capacityTxnSlack is how much larger (0..1) a fitting design's
// cross-shard transaction share may be than a never-fitting one's for
// the capacity to rank it first (orderBanded).
const capacityTxnSlack = 0.05

func fixesFor(w *shardkey.Workload) int {
	if w.Capacity > 0 {
		return math.MaxInt
	}
	return 3
}

// mongoColocationNote, under MongoDB, says what the single-shard figures
// of transactions spanning collections keyed alike rest on: the
// simulator places the same key range of every collection on the same
// shard, but MongoDB places and balances each collection's chunks on its
// own (a chunk is a range of one collection; the balancer migrates each
// collection's ranges independently: MongoDB manual, "Sharded Cluster
// Balancer", "Data Partitioning with Chunks"). Only zones hold the same
// ranges of several collections on the same shards ("Manage Shard
// Zones": sh.addShardToZone, sh.updateZoneKeyRange per namespace). ""
// when the engine is not MongoDB or no committed transaction touches two
// collections the design keys by the same shard key.
func mongoColocationNote(engine string, best *Assessment, w *shardkey.Workload) string {
	if engineFamily(engine) != "mongodb" || best == nil || best.Score == nil {
		return ""
	}
	keyOf := map[string]string{}
	for _, tk := range best.Score.Tables {
		if tk.Key != "" {
			keyOf[tk.Table] = tk.Key
		}
	}
	var spanning, total float64
	pairs := map[string]bool{}
	for i := range w.Txns {
		tx := &w.Txns[i]
		if !tx.Committed() {
			continue
		}
		total += tx.Weight
		seen := map[string]bool{}
		var names []string
		for _, st := range tx.Stmts {
			if st.Table < 0 || st.Table >= len(w.Tables) {
				continue
			}
			name := w.Tables[st.Table].Name
			if _, ok := keyOf[name]; ok && !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
		alike := false
		for a := 0; a < len(names); a++ {
			for b := a + 1; b < len(names); b++ {
				if keyOf[names[a]] == keyOf[names[b]] {
					alike = true
					x, y := names[a], names[b]
					if y < x {
						x, y = y, x
					}
					pairs[x+" and "+y] = true
				}
			}
		}
		if alike {
			spanning += tx.Weight
		}
	}
	if spanning == 0 || total == 0 {
		return ""
	}
	list := make([]string, 0, len(pairs))
	for p := range pairs {
		list = append(list, p)
	}
	sort.Strings(list)
	if len(list) > 3 {
		list = append(list[:3], "others")
	}
	return fmt.Sprintf("Co-location across collections: %s of transactions write or read %s, collections keyed alike, and are counted on one shard when their key values are, as if each collection kept the same key ranges on the same shards. MongoDB places and balances each collection's chunks on its own (the balancer migrates one collection's ranges without the other's), so that holds only under zones: one zone per shard over the same key ranges of every such collection (sh.addShardToZone, then sh.updateZoneKeyRange on each namespace with the same bounds). Without them, expect those transactions to cross shards as the balancer moves ranges (a distributed transaction, two-phase commit through mongos).",
		pct(spanning/total), strings.Join(list, "; "))
}

// mongoBalancerNote, under MongoDB, says what its balancer balances when
// the advice rests on per-shard traffic (a shard over capacity, a whale
// isolated, split or salted): data size, not requests. Since 6.0.3 the
// balancer moves ranges until shards differ by less than three times the
// range size (chunkSize, 128 MiB by default) in data (MongoDB manual,
// "Sharded Cluster Balancer"); a range hot by requests but not by size is
// never moved for that. "" otherwise.
func mongoBalancerNote(adv *Advice, best *Assessment) string {
	if adv.Engine != "mongodb" {
		return ""
	}
	over := adv.CapacityCheck != nil && adv.CapacityCheck.Before != nil && adv.CapacityCheck.Before.OverCapacity > 0
	whale := false
	for _, f := range best.Fixes {
		whale = whale || f.Kind == "isolate" || f.Kind == "split" || f.Kind == "salt"
	}
	if !over && !whale {
		return ""
	}
	l := "MongoDB's balancer balances data size (it moves ranges until shards differ by less than three times the range size, chunkSize, 128 MiB by default), not traffic: the per-shard work above is the placement's, and a range hot by requests but small in data stays where it is; move hot ranges by hand (moveRange) and, after adding shards, check the requests on each, not only the data."
	if whale {
		l += " A whale's dedicated shard is a zone: updateZoneKeyRange for its key range, addShardToZone for its shard."
	}
	return l
}
