// Package report holds the documents shardkey prints: one model per
// command, built here once and rendered by every output (terminal table,
// JSON, Markdown, HTML, the playground's API) alike. A new metric is a
// field of sim.Candidate (or of a document here) plus its renderers; the
// JSON names are the product's pinned snake_case names.
package report

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/buildinfo"
	"github.com/shardkey/shardkey/internal/jsonnull"
	"github.com/shardkey/shardkey/sim"
)

// Score is the document of `shardkey score` and `shardkey demo` (and of
// the playground's /api/report): the workload's settings and one
// candidate per key scored, in the order given.
type Score struct {
	// Version is the shardkey build that made the document.
	Version     string `json:"version"`
	Workload    string `json:"workload"`
	Description string `json:"description,omitempty"`
	Shards      int    `json:"shards"`
	Engine      string `json:"engine"`
	// Capacity is the work one shard can do, units of work/s; 0 when not
	// given (then no shard is over capacity; null in JSON).
	Capacity   float64          `json:"capacity"`
	Candidates []*sim.Candidate `json:"candidates"`
	// RolledBackTxns is the number of transactions the log showed ending
	// in ROLLBACK (shardkey.Workload.RolledBackTxns): their statements
	// are in the work, but they are not among the transactions of
	// cross_shard_txn_fraction, which is a share of commits. Absent
	// when none.
	RolledBackTxns float64 `json:"rolled_back_txns,omitempty"`
	// Warnings are the workload's non-fatal findings (a widened column
	// type, a write without a key value, ...), as printed on stderr.
	Warnings []string `json:"warnings,omitempty"`
}

// MarshalJSON writes r with capacity null when none was given (0).
func (r Score) MarshalJSON() ([]byte, error) {
	type plain Score
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the caller's encoder escapes, or not
	if err := enc.Encode(plain(r)); err != nil {
		return nil, err
	}
	return jsonnull.Null(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), jsonnull.Unless(r.Capacity > 0, "capacity")...)
}

// NewScore returns the score document of candidates cands, scored on w
// (whose Shards and Capacity they must share) under the engine named
// engine. A candidate scored under another capacity is copied with its
// over-capacity shards recomputed (sim.Candidate.WithCapacity), so cached
// candidates can serve any capacity.
func NewScore(w *shardkey.Workload, engine string, cands []*sim.Candidate) *Score {
	r := &Score{Version: buildinfo.Version(), Workload: w.Name, Description: w.Description,
		Shards: w.Shards, Engine: engine, Capacity: w.Capacity, Candidates: make([]*sim.Candidate, 0, len(cands)), RolledBackTxns: w.RolledBackTxns}
	for _, c := range cands {
		r.Candidates = append(r.Candidates, c.WithCapacity(w.Capacity))
	}
	for _, e := range w.Warnings {
		r.Warnings = append(r.Warnings, e.Error())
	}
	return r
}

// Ranked returns r's candidates best first, as the score table lists
// them: by the busiest shard's work (what decides whether the cluster
// keeps up), then total work, then the cross-shard transaction share;
// ties keep the order given. r is not changed.
func (r *Score) Ranked() []*sim.Candidate {
	out := append([]*sim.Candidate(nil), r.Candidates...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !close(a.MaxShardWork, b.MaxShardWork) {
			return a.MaxShardWork < b.MaxShardWork
		}
		if !close(a.WorkPerS, b.WorkPerS) {
			return a.WorkPerS < b.WorkPerS
		}
		if !close(a.CrossShardTxnFraction, b.CrossShardTxnFraction) {
			return a.CrossShardTxnFraction < b.CrossShardTxnFraction
		}
		return false
	})
	return out
}

// close reports whether a and b are equal to a relative 1e-9 (sums of
// the same work added in another order).
func close(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
