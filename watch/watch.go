package watch

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sim"
)

// Thresholds say when a window's figures raise an event. Every share is
// 0..1 (0.05 is 5%).
type Thresholds struct {
	// KeyLow and KeyHigh: a key whose share of the window's requests
	// rises above KeyHigh while it was last seen below KeyLow (or never)
	// raises hot_key; it must fall below KeyLow again to raise it again.
	KeyLow, KeyHigh float64
	// WorkRatio: a design whose max/mean of per-shard work rises above it
	// raises work_ratio (again only after falling back to or below it).
	WorkRatio float64
	// ScatterFraction: a statement shape seen for the first time after
	// the first window, with at least this share of its requests sent to
	// every shard, raises new_scatter_shape.
	ScatterFraction float64
	// ScatterRise: a shape whose scatter share (its scatter-gather
	// requests over all the window's requests) rises by more than this
	// since the previous window it appeared in raises scatter_rise.
	ScatterRise float64
}

// HotSpread and RearmSpread scale the share each key would take if the
// window's requests that name a key were spread evenly over its distinct
// keys (as the sketch counts them): a key is hot above HotSpread times
// that share when this is more than KeyHigh, and re-arms below
// RearmSpread times it when this is more than KeyLow. With few keys
// (10 warehouses: 10% each) a flat KeyHigh of 5% would call every key
// hot; three times its even share is a key doing the work of three, what
// its shard notices (docs/watch.md). With many keys (the even share
// under 1/60 of requests) the flat thresholds apply.
const (
	HotSpread   = 3.0
	RearmSpread = 1.5
)

// DefaultThresholds are seed 000's: "the first warning of a celebrity
// key is one key moving from a fraction of a percent of traffic to
// several percent" (below 1% to above 5%); max/mean of per-shard work
// above 1.5; a new shape that scatters for at least half its requests; a
// shape's scatter share up by 5 points.
var DefaultThresholds = Thresholds{KeyLow: 0.01, KeyHigh: 0.05, WorkRatio: 1.5, ScatterFraction: 0.5, ScatterRise: 0.05}

// Validate checks that the thresholds are usable.
func (t Thresholds) Validate() error {
	ok := func(x float64) bool { return x >= 0 && x <= 1 && !math.IsNaN(x) }
	switch {
	case !ok(t.KeyLow) || !ok(t.KeyHigh) || t.KeyLow > t.KeyHigh:
		return fmt.Errorf("key thresholds %v and %v: want 0 <= low <= high <= 1", t.KeyLow, t.KeyHigh)
	case !(t.WorkRatio >= 1) || math.IsInf(t.WorkRatio, 0):
		return fmt.Errorf("work ratio threshold %v: want a finite number >= 1 (max/mean is never below 1)", t.WorkRatio)
	case !ok(t.ScatterFraction):
		return fmt.Errorf("scatter fraction threshold %v: want 0..1", t.ScatterFraction)
	case !ok(t.ScatterRise):
		return fmt.Errorf("scatter rise threshold %v: want 0..1", t.ScatterRise)
	}
	return nil
}

// Options configure a Watcher.
type Options struct {
	// Designs are the designs to watch, as written (-k).
	Designs []string
	// Sim places keys (shards, engine, directory files' base).
	Sim sim.Options
	// Thresholds raise events; the zero value means DefaultThresholds.
	Thresholds *Thresholds
	// TrackKeys is the number of keys the heavy-hitter sketch tracks per
	// design and window (0: 1000). Any key above 1/TrackKeys of the
	// window's requests is tracked, so keep it above 1/KeyLow.
	TrackKeys int
	// TopKeys is the number of keys reported per design and window (0: 10).
	TopKeys int
	// Nodes, when set, places the designs' shards (slots; Sim.Shards must
	// be their number) on nodes: windows then report per-node work too,
	// and the designs are scored with the placement (Sim.Nodes, set to
	// Nodes when nil), as score scores them: under an engine whose client
	// sends one request per node (sim.ScatterPerNode: redis) fan-out
	// counts the nodes a request touches (DesignWindow.FanoutPer "node").
	Nodes *sim.Nodes
}

// Watcher scores a workload window after window and raises events when a
// design stops holding. Its memory is bounded by the number of statement
// shapes (seen once) and tracked keys, not by the number of windows. It is
// not safe for concurrent use.
type Watcher struct {
	// sawOps: a window with statements has been scored (the first one
	// checks every design's bare key against its tables).
	sawOps bool
	// seen are the tables of the windows scored so far: a table a
	// design names is checked against the window where it first appears.
	seen map[string]bool
	// checked: the designs were checked against the whole catalog
	// (Check), so a window only leaves out what does not fit it.
	checked bool
	o       Options
	th      Thresholds
	designs []*shardkey.Design
	state   []*designState
	windows int
}

// designState is what one design remembers between windows.
type designState struct {
	compiled  bool               // compiled in some window
	dropped   bool               // refused after windows were reported: left out from then on
	warned    bool               // its tables no window has read were warned about
	hot       map[string]bool    // keys last seen at or above KeyLow that raised hot_key, or are still falling
	aboveWR   bool               // work ratio above its threshold in the last window
	shapes    map[string]bool    // shapes seen
	lastShare map[string]float64 // scatter share of each shape in the last window it appeared in
	// bounded is the design with its range boundaries fixed (written in
	// as bounds=[...], Text the user's), scored in place of it once set;
	// boundsDone says the boundaries need no more work: fixed, given by
	// the user, no range key, or not writable (see fixBounds).
	bounded    *shardkey.Design
	boundsDone bool
	// said are the design's placement warnings already reported (a table
	// it leaves unsharded, ...): each is said once, in the first window
	// that gives it, not in every window.
	said map[string]bool
}

// New returns a Watcher for o's designs. It fails when a design does not
// parse or a threshold is out of range.
func New(o Options) (*Watcher, error) {
	if len(o.Designs) == 0 {
		return nil, &shardkey.UsageError{Msg: "no design to watch: name one with -k"}
	}
	th := DefaultThresholds
	if o.Thresholds != nil {
		th = *o.Thresholds
	}
	if err := th.Validate(); err != nil {
		return nil, &shardkey.UsageError{Msg: err.Error()}
	}
	if o.TrackKeys <= 0 {
		o.TrackKeys = 1000
	}
	if o.TopKeys <= 0 {
		o.TopKeys = 10
	}
	if o.Sim.Nodes == nil {
		o.Sim.Nodes = o.Nodes
	}
	wt := &Watcher{o: o, th: th}
	for _, k := range o.Designs {
		d, err := shardkey.ParseDesign(k)
		if err != nil {
			return nil, &shardkey.UsageError{Msg: fmt.Sprintf("-k: %v", err)}
		}
		wt.designs = append(wt.designs, d)
		wt.state = append(wt.state, &designState{hot: map[string]bool{}, shapes: map[string]bool{}, lastShare: map[string]float64{}})
	}
	return wt, nil
}

// Span is where a window sits in time.
type Span struct {
	Start, End time.Time
	// Seconds is the time the workload's rates are per (0: rates are
	// counts).
	Seconds float64
	// Statements is the number of SQL statements the window read.
	Statements int
	// Partial says the input covers only part of the window (a log
	// that starts or ends inside it): Seconds is that part, shorter than
	// End - Start (sqllog.Window.Partial).
	Partial bool
	// Covered is the seconds of the window the input covers
	// (sqllog.Window.Covered): Seconds, except in a partial window
	// covering too little of it for a rate (sqllog.MinCovered), whose
	// Seconds is 0.
	Covered float64
	// NoValues says the workload's condition values are not the
	// statements' own (statement statistics keep none; their parameters
	// are drawn from the row sample): top keys and hot_key are unknown.
	NoValues bool
}

// Report is one window: for each design its figures, and the events the
// window raised. JSON names are documented in docs/watch.md.
type Report struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Seconds is the time the rates are per; unknown (NaN, null in
	// JSON) when the window is one instant (Instant).
	Seconds    Num `json:"seconds"`
	Statements int `json:"statements"`
	// Partial reports that the log covers only part of the window (it
	// starts or ends inside it): Seconds is the part covered, unknown
	// when that is under sqllog.MinCovered (Instant). A
	// partial window (or one instant) with too few requests raises no
	// event (see quiet).
	Partial bool `json:"partial,omitempty"`
	// CoveredSeconds, in a partial window whose rates are unknown (the
	// log covers too little of it: Instant), is the part of it the log
	// covers, in seconds; absent otherwise (Seconds is that part).
	CoveredSeconds float64 `json:"covered_seconds,omitempty"`
	// RolledBackTxns is the number of transactions of the window that
	// ended in ROLLBACK: their statements are in its work, not among
	// the transactions of cross_shard_txn_fraction (a share of
	// commits). Absent when none.
	RolledBackTxns float64        `json:"rolled_back_txns,omitempty"`
	Designs        []DesignWindow `json:"designs"`
	Events         []Event        `json:"events"`
	Warnings       []string       `json:"warnings,omitempty"`
	// Instant reports that the window holds one instant: every
	// statement at one timestamp, of a resolution finer than a second,
	// so it has no duration and no rate can be computed; or that it is
	// a partial window the log covers too little of for a rate (less
	// than sqllog.MinCovered: Span.Seconds 0, Span.Covered not). Its rates
	// (Seconds, requests and work per second, per shard and node, per
	// shape and top key) are then unknown: NaN, null in JSON (ShardWork
	// and NodeWork nil). Its shares and ratios (work_ratio, scatter and
	// top-key shares, fan-out) are of the statements counted, and its
	// events are raised from those alone, as in any window.
	Instant bool `json:"-"`
}

// Num is a figure that may be unknown: NaN then, and null in JSON.
type Num float64

// Known reports whether n is known (not NaN).
func (n Num) Known() bool { return !math.IsNaN(float64(n)) }

// MarshalJSON writes n as a JSON number (as encoding/json writes a
// float64), or null when it is unknown.
func (n Num) MarshalJSON() ([]byte, error) {
	if !n.Known() {
		return []byte("null"), nil
	}
	return json.Marshal(float64(n))
}

// UnmarshalJSON reads a JSON number, or null as unknown.
func (n *Num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Num(math.NaN())
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*n = Num(f)
	return nil
}

// unknown is an unknown Num.
var unknown = Num(math.NaN())

// DesignWindow is one design's figures in one window: the headline of
// `score` on the window's slice of the log (sim.Candidate's names and
// units: requests/s, units of work/s) plus statement shapes and top keys.
type DesignWindow struct {
	Key    string `json:"key"`
	Engine string `json:"engine"`
	Shards int    `json:"shards"`
	// RequestsPerS, WorkPerS, ShardWork, MaxShardWork and
	// MeanShardWork are unknown (NaN; ShardWork nil) in an Instant
	// window: null in JSON.
	RequestsPerS  Num       `json:"requests_per_s"`
	WorkPerS      Num       `json:"work_per_s"`
	ShardWork     []float64 `json:"shard_work"`
	MaxShardWork  Num       `json:"max_shard_work"`
	MeanShardWork Num       `json:"mean_shard_work"`
	WorkRatio     float64   `json:"work_ratio"`
	// FanoutMean and FanoutP99 are the window's fan-out per request,
	// rate-weighted, and its p99 (sim.Candidate's): shards asked, or
	// nodes touched when FanoutPer is "node".
	FanoutMean float64 `json:"fanout_mean"`
	FanoutP99  float64 `json:"fanout_p99"`
	// FanoutPer is "node" when fan-out (the design's and each shape's)
	// counts nodes, not shards: slots on nodes (Options.Nodes) under an
	// engine whose client sends one request per node (redis: a keyless
	// scan on 16384 slots over 3 masters touches 3 nodes), as in score
	// (sim.Candidate.FanoutPer). Absent otherwise. SingleShardFraction,
	// ScatterShare and work still count slots.
	FanoutPer             string  `json:"fanout_per,omitempty"`
	SingleShardFraction   float64 `json:"single_shard_fraction"`
	CrossShardTxnFraction float64 `json:"cross_shard_txn_fraction"`
	Transactions          int64   `json:"transactions"`
	// RolledBackCrossShardFraction is the share (0..1) of the window's
	// transactions that ended in ROLLBACK that touched more than one
	// shard before rolling back (they took their locks and, on a
	// distributed database, their prepare round on every shard they
	// touched), and AllCrossShardTxnFraction that share over all its
	// transactions, committed and rolled back, as in score
	// (sim.Candidate's fields of the same names). Absent when the
	// window has no rolled-back transaction.
	RolledBackCrossShardFraction *float64 `json:"rolled_back_cross_shard_fraction,omitempty"`
	AllCrossShardTxnFraction     *float64 `json:"all_cross_shard_txn_fraction,omitempty"`
	// ScatterShare is the share (0..1) of the window's requests sent to
	// every shard.
	ScatterShare float64 `json:"scatter_share"`
	// NodeWork and NodeWorkRatio: with slots over nodes, units of work/s
	// per node (nil, so absent, in an Instant window) and their max/mean.
	NodeWork      []float64 `json:"node_work,omitempty"`
	NodeWorkRatio float64   `json:"node_work_ratio,omitempty"`
	Shapes        []Shape   `json:"shapes"`
	// TopKeys is null when the input holds no values (statement
	// statistics): unknown, not empty.
	TopKeys []TopKey `json:"top_keys"`
	// Candidate is the full score (for renderers); not in JSON.
	Candidate *sim.Candidate `json:"-"`
}

// Shape is one statement shape (a workload operation) in a window.
type Shape struct {
	Name         string `json:"name"`
	Table        string `json:"table"`
	Kind         string `json:"kind"`
	RequestsPerS Num    `json:"requests_per_s"` // unknown in an Instant window
	// FanoutMean and FanoutP99: the shape's fan-out per request and its
	// p99, in shards or nodes as DesignWindow.FanoutPer says.
	FanoutMean float64 `json:"fanout_mean"`
	FanoutP99  float64 `json:"fanout_p99"`
	// ScatterFraction is the share (0..1) of the shape's requests sent
	// to every shard; ScatterShare the share of all the window's
	// requests that are this shape's scatter-gathers.
	ScatterFraction float64 `json:"scatter_fraction"`
	ScatterShare    float64 `json:"scatter_share"`
}

// TopKey is one key by traffic: the requests/s that bind the design's key
// columns of their table to this value with = or IN (an IN list counts
// for each of its values), and their share of all the window's requests.
// Share is the heavy-hitter sketch's upper bound and ShareMin its lower
// bound; they are equal unless the sketch evicted keys.
type TopKey struct {
	Key          string  `json:"key"`
	RequestsPerS Num     `json:"requests_per_s"` // unknown in an Instant window
	Share        float64 `json:"share"`
	ShareMin     float64 `json:"share_min"`
}

// Event is a finding that a design stops holding.
type Event struct {
	// Type is hot_key, work_ratio, new_scatter_shape or scatter_rise.
	Type   string `json:"type"`
	Design string `json:"design"`
	// Key (hot_key) or Shape (the others) the event is about.
	Key   string `json:"key,omitempty"`
	Shape string `json:"shape,omitempty"`
	// Value crossed Threshold; Previous is its value in the window
	// before, where there is one.
	Value     float64  `json:"value"`
	Threshold float64  `json:"threshold"`
	Previous  *float64 `json:"previous,omitempty"`
	Message   string   `json:"message"`
}

// Add scores workload w, the window sp, under every design and returns
// the window's report with its events. Each table a design names is
// checked against the first window that reads it, and a design's bare key
// (in a design of a bare key alone) against the first window with
// statements: a design that does not compile there is refused (a
// shardkey.UsageError: most likely a typo in -k) when that is the first
// window with statements, else dropped from that window on with a
// warning in its report (earlier windows were reported: the run goes
// on); after Check, against a catalog, nothing is refused here. A table
// a design keys that no window has read yet is warned about at the
// design's first window (and at Close if none reads it). A window scores a design without
// the keys of the tables it does not read; one that does not fit the
// window's tables otherwise (its columns appear in none of the window's
// statements) is left out of the window with a warning; Close reports
// designs that never compiled. Errors are routing errors (a key the
// partition function cannot place).
func (wt *Watcher) Add(sp Span, w *shardkey.Workload) (*Report, error) {
	r := &Report{Start: sp.Start.UTC(), End: sp.End.UTC(), Seconds: Num(sp.Seconds), Statements: sp.Statements, Partial: sp.Partial, RolledBackTxns: w.RolledBackTxns, Designs: []DesignWindow{}, Events: []Event{}}
	if sp.Seconds <= 0 {
		r.CoveredSeconds = sp.Covered
		// One instant, or too short a part of a partial window: the
		// workload's rates are the statements' counts
		// (sqllog.Window.Seconds), good for shares and ratios only.
		r.Instant, r.Seconds = true, unknown
	}
	for _, e := range w.Warnings {
		r.Warnings = append(r.Warnings, e.Error())
	}
	first := wt.windows == 0
	wt.windows++
	if len(w.Ops) == 0 {
		r.Warnings = append(r.Warnings, "no statement in this window reads or writes a table")
		return r, nil
	}
	firstOps := !wt.sawOps
	wt.sawOps = true
	if wt.seen == nil {
		wt.seen = map[string]bool{}
	}
	defer func() {
		for _, t := range w.Tables {
			wt.seen[t.Name] = true
		}
	}()
	for i, d := range wt.designs {
		st := wt.state[i]
		if st.dropped {
			continue
		}
		if !wt.checked {
			if what, err := wt.checkNew(w, d, firstOps); err != nil {
				msg := fmt.Sprintf("-k: design %s %s (%s to %s): %v",
					d.Text, what, r.Start.Format(time.RFC3339), r.End.Format(time.RFC3339), err)
				if firstOps {
					// Before any window is scored: refused up front.
					return nil, &shardkey.UsageError{Msg: msg}
				}
				// Windows have been reported: the run goes on with the
				// other designs.
				st.dropped = true
				r.Warnings = append(r.Warnings, msg+"; the design is dropped from this window on")
				continue
			}
		}
		if !st.warned && !wt.checked {
			if missing := wt.unread(d, w); len(missing) > 0 {
				st.warned = true
				r.Warnings = append(r.Warnings, fmt.Sprintf("design %s keys %s, which no window has read so far (tables read: %s): a misspelt name? It is checked in the window that first reads it",
					d.Text, tablesText(missing), strings.Join(wt.readTables(w), ", ")))
			}
		}
		dd := d
		if st.bounded != nil {
			dd = st.bounded
		}
		in := inWindow(dd, w)
		if in == nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("design %s left out of this window: it names no table of the window", d.Text))
			continue
		}
		s, err := sim.Compile(w, in, wt.o.Sim)
		if err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("design %s left out of this window: %v", d.Text, err))
			continue
		}
		st.compiled = true
		// What score and advise warn of the design on these tables (a
		// table it leaves unsharded on shard 0, a range key without
		// boundaries, ...), once per run.
		for _, e := range s.Warnings {
			if msg := e.Error(); !st.said[msg] {
				if st.said == nil {
					st.said = map[string]bool{}
				}
				st.said[msg] = true
				r.Warnings = append(r.Warnings, msg)
			}
		}
		p, err := sim.Run(w, s, wt.o.Sim.Workers)
		if err != nil {
			return nil, err
		}
		c := s.Report(p)
		dw := DesignWindow{Key: c.Key, Engine: c.Engine, Shards: c.Shards, RequestsPerS: Num(c.RequestsPerS), WorkPerS: Num(c.WorkPerS),
			ShardWork: c.ShardWork, MaxShardWork: Num(c.MaxShardWork), MeanShardWork: Num(c.MeanShardWork), WorkRatio: c.WorkRatio,
			FanoutMean: c.FanoutMean, FanoutP99: c.FanoutP99, FanoutPer: c.FanoutPer, SingleShardFraction: c.SingleShardFraction,
			CrossShardTxnFraction: c.CrossShardTxnFraction, Transactions: c.Transactions, Candidate: c,
			RolledBackCrossShardFraction: c.RolledBackCrossShardFraction, AllCrossShardTxnFraction: c.AllCrossShardTxnFraction}
		for _, op := range c.Operations {
			sh := Shape{Name: op.Name, Table: op.Table, Kind: op.Kind, RequestsPerS: Num(op.RequestsPerS), FanoutMean: op.FanoutMean, FanoutP99: op.FanoutP99, ScatterFraction: op.ScatterFraction}
			if c.RequestsPerS > 0 {
				sh.ScatterShare = op.RequestsPerS * op.ScatterFraction / c.RequestsPerS
			}
			dw.ScatterShare += sh.ScatterShare
			dw.Shapes = append(dw.Shapes, sh)
		}
		if wt.o.Nodes != nil {
			dw.NodeWork = c.NodeWork(wt.o.Nodes) // a keyless scatter once per node where the engine sends it so
			mx, sum := 0.0, 0.0
			for _, x := range dw.NodeWork {
				mx, sum = math.Max(mx, x), sum+x
			}
			if sum > 0 {
				dw.NodeWorkRatio = mx / (sum / float64(len(dw.NodeWork)))
			}
		}
		var tk *TopK
		if !sp.NoValues {
			tk = wt.topKeys(w, s)
			for _, k := range tk.Top(wt.o.TopKeys) {
				dw.TopKeys = append(dw.TopKeys, topKey(k, c.RequestsPerS))
			}
			if dw.TopKeys == nil {
				dw.TopKeys = []TopKey{}
			}
		}
		if n := wt.quiet(sp, &dw); n >= 0 {
			// Too few requests to tell a finding from chance: no
			// event (the shapes are remembered as seen).
			for _, sh := range dw.Shapes {
				st.shapes[sh.Name] = true
			}
			why := fmt.Sprintf("fewer than 1 / %g = %g: one request alone would take over %.3g%% of them", wt.th.KeyHigh, math.Ceil(1/wt.th.KeyHigh), 100*wt.th.KeyHigh)
			if !(wt.th.KeyHigh > 0 && float64(n)*wt.th.KeyHigh < 1) {
				why = fmt.Sprintf("as many sent to %d shards at random would give a max/mean of about %.2f, above %.3g", dw.Shards, sim.ExpectedMaxLoadRatio(n, dw.Shards), wt.th.WorkRatio)
			}
			if sp.Partial {
				r.Warnings = append(r.Warnings, fmt.Sprintf("design %s: partial window (the log covers %s s of its %s s) with %d request(s), too few to raise events (%s)",
					dw.Key, strconv.FormatFloat(max(sp.Seconds, sp.Covered), 'g', 3, 64), strconv.FormatFloat(sp.End.Sub(sp.Start).Seconds(), 'g', -1, 64), n, why))
			} else {
				r.Warnings = append(r.Warnings, fmt.Sprintf("design %s: one instant (every statement of the window at one time) with %d request(s), too few to raise events (%s)", dw.Key, n, why))
			}
		} else {
			r.Events = append(r.Events, wt.events(st, &dw, tk, first, sp.Seconds)...)
		}
		if !st.boundsDone {
			// Boundaries are fixed from the first window that meets
			// the minimums for rates (not Instant) and events (not
			// quiet); one before it is scored with boundaries fitted
			// to its own values, said to be provisional.
			short := ""
			if r.Instant {
				short = fmt.Sprintf("the log covers %s s of it, too little for rates", strconv.FormatFloat(sp.Covered, 'g', 3, 64))
			} else if n := wt.quiet(sp, &dw); n >= 0 {
				short = fmt.Sprintf("a partial window with %d request(s), too few to raise events", n)
			}
			if msg := fixBounds(st, d, s, w, short); msg != "" && !st.said[msg] {
				if st.said == nil {
					st.said = map[string]bool{}
				}
				st.said[msg] = true
				r.Warnings = append(r.Warnings, msg)
			}
		}
		if r.Instant {
			dw.unknownRates()
		}
		r.Designs = append(r.Designs, dw)
	}
	return r, nil
}

// fixBounds fixes the range boundaries of design d from s, its
// compilation on window w, once w reads every table d range-keys by name
// (a bare range key: the first window it places): later windows are
// scored with these boundaries (st.bounded), not with boundaries fitted
// to their own values. Refitted every window, ranges would follow a key
// that grows with time (a creation time, a sequence), each window's
// inserts spread over every range, and hide the hot tail that fixed
// boundaries show: every new key past the last boundary, on one shard.
// Boundaries the user gave are kept as they are. It returns what to tell
// the user ("" for nothing).
//
// short, when not "", says why window w is too short to fix them from
// (a partial window too short for rates or with too few requests): they
// are left to a later window, and this one's, fitted to its own values,
// are said to be provisional.
func fixBounds(st *designState, d *shardkey.Design, s *sim.Scheme, w *shardkey.Workload, short string) string {
	ranged, given := false, false
	exprs := []shardkey.Expr{d.Default}
	for _, e := range d.Tables {
		exprs = append(exprs, e)
	}
	for _, e := range exprs {
		if re := rangeOf(e); re != nil {
			ranged = true
			given = given || len(re.Bounds) > 0
		}
	}
	if !ranged || given {
		st.boundsDone = true
		return ""
	}
	for name, e := range d.Tables {
		if rangeOf(e) != nil && w.Table(name) == nil {
			return "" // a range-keyed table this window does not read: not yet
		}
	}
	_, rb, why := s.BoundedDesign()
	switch {
	case why != "":
		st.boundsDone = true
		return fmt.Sprintf("design %s: its range boundaries cannot be fixed (%s): each window fits its own to its values, which hides a key growing with time (its new values all past the last boundary)", d.Text, why)
	case len(rb) == 0:
		return "" // no boundaries yet (nothing to take quantiles from)
	case short != "":
		return fmt.Sprintf("design %s: range boundaries provisional in this window (%s): it is scored with boundaries fitted to its own values, bounds=[%s]; they are fixed from the first window with enough of the log and requests, and kept for the windows after it", d.Text, short, strings.Join(rb[0].Bounds, ", "))
	}
	fixed := d.WithBounds(rb[0].Bounds)
	if rb[0].Tuple {
		fixed = d.WithTupleBounds(rb[0].Bounds)
	}
	fixed.Text = d.Text // reported, and a metric's label, as the user wrote it
	st.bounded, st.boundsDone = fixed, true
	return fmt.Sprintf("design %s: range boundaries fixed from this window's values, bounds=[%s], and kept for the windows after it (refitted each window they would hide a hot tail: keys past the last boundary)", d.Text, strings.Join(rb[0].Bounds, ", "))
}

// rangeOf returns e's range key, also one inside salt or isolate; nil
// for other keys (and for a MongoDB pattern led by a hashed field, a
// hash key).
func rangeOf(e shardkey.Expr) *shardkey.RangeExpr {
	switch x := e.(type) {
	case *shardkey.RangeExpr:
		if x.Hashed != "" && x.Hashed == x.Cols[0] {
			return nil
		}
		return x
	case *shardkey.SaltExpr:
		return rangeOf(x.Inner)
	case *shardkey.IsolateExpr:
		return rangeOf(x.Inner)
	}
	return nil
}

// Check checks every design against cat, a workload holding every table
// the windows may read (a live database's catalog and row sample), as
// score checks a design: a design that does not compile against it is
// refused (a shardkey.UsageError naming it). After Check, a window only
// leaves out of its report a design that does not fit its own tables.
func (wt *Watcher) Check(cat *shardkey.Workload) error {
	for _, d := range wt.designs {
		if _, err := sim.Compile(cat, d, wt.o.Sim); err != nil {
			return &shardkey.UsageError{Msg: fmt.Sprintf("-k: design %s does not fit the database's tables: %v", d.Text, err)}
		}
	}
	wt.checked = true
	return nil
}

// checkNew checks the parts of design d that window w is the first to
// show: the keys of the tables d names that appear in no earlier window,
// and, in the first window with statements (first), its bare key (a
// design of a bare key alone must place a table of that window, as
// score's must place a table of its workload). A design that does not
// compile against them is most likely a typo in -k, and would be left out
// of every window: an error. A table that appears only in a later window
// is checked there, not held against the design before.
func (wt *Watcher) checkNew(w *shardkey.Workload, d *shardkey.Design, first bool) (what string, err error) {
	nd := &shardkey.Design{Text: d.Text, Tables: map[string]shardkey.Expr{}}
	for _, name := range d.Order {
		if w.Table(name) != nil && !wt.seen[name] {
			nd.Tables[name] = d.Tables[name]
			nd.Order = append(nd.Order, name)
			if l, ok := d.Lookups[name]; ok {
				if nd.Lookups == nil {
					nd.Lookups = map[string][]shardkey.Lookup{}
				}
				nd.Lookups[name] = l
			}
		}
	}
	if first && d.Default != nil && len(d.Tables) == 0 {
		nd.Default = d.Default
		if l, ok := d.Lookups[""]; ok {
			if nd.Lookups == nil {
				nd.Lookups = map[string][]shardkey.Lookup{}
			}
			nd.Lookups[""] = l
		}
	}
	if len(nd.Tables) == 0 && nd.Default == nil {
		return "", nil
	}
	what = "does not fit table " + strings.Join(nd.Order, ", ") + ", in the window that first reads it"
	if len(nd.Order) > 1 {
		what = "does not fit tables " + strings.Join(nd.Order, ", ") + ", in the window that first reads them"
	}
	_, err = sim.Compile(w, nd, wt.o.Sim)
	if err != nil && nd.Default != nil {
		// A bare key places the tables that have its columns; one that
		// places none of the first window's is most likely a typo.
		what = "places no table of the first window with statements"
		err = fmt.Errorf("%w (a bare key must place a table of the first window; to key a table that only a later window reads, name it: TABLE:hash(col))", err)
	}
	return what, err
}

// unread returns the tables design d keys that neither window w nor any
// earlier window reads, in d's order.
func (wt *Watcher) unread(d *shardkey.Design, w *shardkey.Workload) []string {
	var out []string
	for _, name := range d.Order {
		if !wt.seen[name] && (w == nil || w.Table(name) == nil) {
			out = append(out, name)
		}
	}
	return out
}

// readTables returns the tables read so far (with window w's), sorted.
func (wt *Watcher) readTables(w *shardkey.Workload) []string {
	set := map[string]bool{}
	for name := range wt.seen {
		set[name] = true
	}
	if w != nil {
		for _, t := range w.Tables {
			set[t.Name] = true
		}
	}
	out := make([]string, 0, len(set))
	for name := range set {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// tablesText names tables: "table a" or "tables a, b".
func tablesText(names []string) string {
	if len(names) == 1 {
		return "table " + names[0]
	}
	return "tables " + strings.Join(names, ", ")
}

// inWindow returns design d without the keys of the tables window w does
// not read (they are checked where they appear), or nil when nothing is
// left: no table of w is named and there is no bare key.
func inWindow(d *shardkey.Design, w *shardkey.Workload) *shardkey.Design {
	all := true
	for name := range d.Tables {
		all = all && w.Table(name) != nil
	}
	if all {
		return d
	}
	nd := &shardkey.Design{Text: d.Text, Default: d.Default, Tables: map[string]shardkey.Expr{}}
	for _, name := range d.Order {
		if w.Table(name) != nil {
			nd.Tables[name] = d.Tables[name]
			nd.Order = append(nd.Order, name)
		}
	}
	for name, l := range d.Lookups {
		if _, ok := nd.Tables[name]; ok || name == "" {
			if nd.Lookups == nil {
				nd.Lookups = map[string][]shardkey.Lookup{}
			}
			nd.Lookups[name] = l
		}
	}
	if len(nd.Tables) == 0 && nd.Default == nil {
		return nil
	}
	return nd
}

// quiet returns the number of requests of design window dw when sp is a
// partial window (the log covers part of it) or one instant (every
// statement at one time: a one-statement log) with too few of them to
// raise an event, else -1. Too few: one request alone would take more
// than the hot-key threshold's share (n x KeyHigh < 1: under 20 requests
// by default), or n requests sent to the design's shards at random would
// give a max/mean above the work-ratio threshold (balls into bins:
// sim.ExpectedMaxLoadRatio), so chance alone would raise hot_key or
// work_ratio. A window the log covers whole is judged as it is.
func (wt *Watcher) quiet(sp Span, dw *DesignWindow) int {
	if !sp.Partial && sp.Seconds > 0 {
		return -1 // a whole window: its requests are the workload's
	}
	secs := sp.Seconds
	if secs <= 0 {
		secs = 1 // one instant: the rates are the counts
	}
	n := int(math.Round(float64(dw.RequestsPerS) * secs))
	if wt.th.KeyHigh > 0 && float64(n)*wt.th.KeyHigh < 1 || dw.Shards > 1 && sim.ExpectedMaxLoadRatio(n, dw.Shards) > wt.th.WorkRatio {
		return n
	}
	return -1
}

// unknownRates makes dw's rates unknown (an Instant window), once its
// events are raised from its counts.
func (dw *DesignWindow) unknownRates() {
	dw.RequestsPerS, dw.WorkPerS, dw.MaxShardWork, dw.MeanShardWork = unknown, unknown, unknown, unknown
	dw.ShardWork, dw.NodeWork = nil, nil
	for i := range dw.Shapes {
		dw.Shapes[i].RequestsPerS = unknown
	}
	for i := range dw.TopKeys {
		dw.TopKeys[i].RequestsPerS = unknown
	}
}

func topKey(k Counter, total float64) TopKey {
	t := TopKey{Key: k.Key, RequestsPerS: Num(k.Count)}
	if total > 0 {
		t.Share = k.Count / total
		t.ShareMin = (k.Count - k.Err) / total
	}
	return t
}

// Close ends the run. Its warnings name, for each design, the tables it
// keys that no window read (most likely misspelt: a design is scored
// without them) and the designs dropped during the run; its error names
// the designs that compiled in no window (a column no statement of the
// log names): most likely a typo in -k. After Check (a catalog), a table
// no window read is not warned about: the catalog has it.
func (wt *Watcher) Close() (warnings []string, err error) {
	var bad []string
	for i, st := range wt.state {
		d := wt.designs[i]
		switch {
		case wt.windows == 0:
		case st.dropped:
			warnings = append(warnings, fmt.Sprintf("design %s was dropped during the run (see its window's warning)", d.Text))
		case !st.compiled:
			bad = append(bad, d.Text)
		case !wt.checked:
			if missing := wt.unread(d, nil); len(missing) > 0 {
				warnings = append(warnings, fmt.Sprintf("design %s keys %s, which no window of the log read (tables read: %s): a misspelt name? The design was scored without it",
					d.Text, tablesText(missing), strings.Join(wt.readTables(nil), ", ")))
			}
		}
	}
	if len(bad) > 0 {
		return warnings, fmt.Errorf("design(s) %s matched no table in any window: check the column names", strings.Join(bad, ", "))
	}
	return warnings, nil
}

// topKeys feeds the window's operation instances (each weighted by its
// share of its operation's rate) into a sketch, keyed by the values that
// bind the design's key columns with = or IN.
func (wt *Watcher) topKeys(w *shardkey.Workload, s *sim.Scheme) *TopK {
	tk := NewTopK(wt.o.TrackKeys)
	var buf []byte
	for _, op := range w.Ops {
		cols := s.KeyColumns(op.Table)
		if len(cols) == 0 || len(op.Instances) == 0 {
			continue
		}
		sum := 0.0
		for _, in := range op.Instances {
			sum += in.Weight
		}
		if sum <= 0 {
			continue
		}
		scale := op.Rate / sum
	inst:
		for _, in := range op.Instances {
			wgt := in.Weight * scale
			if len(cols) == 1 {
				c := findCond(in.Conds, cols[0])
				switch {
				case c == nil || c.Fresh != shardkey.NotFresh && c.Op == shardkey.Eq:
				case c.Op == shardkey.Eq:
					buf = keyText(buf[:0], []shardkey.Value{c.Val})
					tk.Add(string(buf), wgt)
				case c.Op == shardkey.In:
					for _, v := range c.List {
						buf = keyText(buf[:0], []shardkey.Value{v})
						tk.Add(string(buf), wgt)
					}
				}
				continue
			}
			vals := make([]shardkey.Value, len(cols))
			for j, col := range cols {
				c := findCond(in.Conds, col)
				if c == nil || c.Op != shardkey.Eq || c.Fresh != shardkey.NotFresh {
					continue inst
				}
				vals[j] = c.Val
			}
			buf = keyText(buf[:0], vals)
			tk.Add(string(buf), wgt)
		}
	}
	return tk
}

func findCond(conds []shardkey.Cond, col int) *shardkey.Cond {
	for i := range conds {
		if conds[i].Col == col {
			return &conds[i]
		}
	}
	return nil
}

// keyText writes a key's values: one value as its text ("4242"), several
// as a parenthesised list ("(1, abc)").
func keyText(b []byte, vals []shardkey.Value) []byte {
	if len(vals) == 1 {
		return vals[0].AppendText(b)
	}
	b = append(b, '(')
	for i, v := range vals {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = v.AppendText(b)
	}
	return append(b, ')')
}

// events compares a design's window with what the design state remembers,
// raises the events and updates the state.
func (wt *Watcher) events(st *designState, dw *DesignWindow, tk *TopK, first bool, seconds float64) []Event {
	th := wt.th
	var out []Event
	total := float64(dw.RequestsPerS)
	if total > 0 && tk != nil {
		// hot_key: a key above its high threshold (by the sketch's lower
		// bound, so an eviction's error never raises one) not already
		// hot. The threshold is KeyHigh, or HotSpread times the share
		// an even spread over the window's distinct keys gives when that
		// is more: 10 equally busy warehouses take 10% each, none hot.
		all := tk.Top(-1)
		keyed := 0.0 // Space-Saving's counts sum to all the weight added
		for _, k := range all {
			keyed += k.Count
		}
		even := 0.0
		if len(all) > 0 {
			even = keyed / total / float64(len(all))
		}
		high, low := math.Max(th.KeyHigh, HotSpread*even), math.Max(th.KeyLow, RearmSpread*even)
		for _, k := range all {
			lo := (k.Count - k.Err) / total
			if lo > high && !st.hot[k.Key] {
				st.hot[k.Key] = true
				before := fmt.Sprintf("it was below %.3g%% or unseen before", 100*low)
				if first {
					before = "from the first window on"
				}
				above := fmt.Sprintf("above %.3g%%", 100*high)
				if high > th.KeyHigh {
					above = fmt.Sprintf("above %.3g%%: %g times the %.3g%% each of its %d keys would take evenly", 100*high, HotSpread, 100*even, len(all))
				}
				out = append(out, Event{Type: "hot_key", Design: dw.Key, Key: k.Key, Value: lo, Threshold: high,
					Message: fmt.Sprintf("key %s takes %.1f%% of requests (%s; %s)", k.Key, 100*lo, above, before)})
			}
		}
		// A hot key re-arms once its share (upper bound) is below the
		// low threshold: KeyLow, or RearmSpread times the even share.
		for key := range st.hot {
			up := tk.Min()
			if c, ok := tk.Lookup(key); ok {
				up = c.Count
			}
			if up/total < low {
				delete(st.hot, key)
			}
		}
	}
	if dw.WorkRatio > th.WorkRatio && !st.aboveWR {
		msg := fmt.Sprintf("max/mean of per-shard work is %.2f (above %.3g): shard %d is the hottest", dw.WorkRatio, th.WorkRatio, argmax(dw.ShardWork))
		if seconds <= 0 {
			seconds = 1 // one instant: the rates are the counts
		}
		if n := int(math.Round(float64(dw.RequestsPerS) * seconds)); n > 0 && dw.Shards > 1 {
			// The yardstick for noise: as many requests sent to shards
			// at random (balls into bins).
			msg += fmt.Sprintf("; %d requests sent to %d shards at random would give about %.2f", n, dw.Shards, sim.ExpectedMaxLoadRatio(n, dw.Shards))
		}
		out = append(out, Event{Type: "work_ratio", Design: dw.Key, Value: dw.WorkRatio, Threshold: th.WorkRatio, Message: msg})
	}
	st.aboveWR = dw.WorkRatio > th.WorkRatio
	seen := map[string]bool{}
	for _, sh := range dw.Shapes {
		seen[sh.Name] = true
		prev, had := st.lastShare[sh.Name]
		switch {
		case !st.shapes[sh.Name] && !first && sh.ScatterFraction >= th.ScatterFraction && sh.ScatterFraction > 0:
			out = append(out, Event{Type: "new_scatter_shape", Design: dw.Key, Shape: sh.Name, Value: sh.ScatterFraction, Threshold: th.ScatterFraction,
				Message: fmt.Sprintf("new statement shape %s sends %.0f%% of its requests to every shard (%.1f%% of all requests)", sh.Name, 100*sh.ScatterFraction, 100*sh.ScatterShare)})
		case had && sh.ScatterShare-prev > th.ScatterRise:
			p := prev
			out = append(out, Event{Type: "scatter_rise", Design: dw.Key, Shape: sh.Name, Value: sh.ScatterShare, Threshold: th.ScatterRise, Previous: &p,
				Message: fmt.Sprintf("shape %s's scatter-gathers went from %.1f%% to %.1f%% of all requests", sh.Name, 100*prev, 100*sh.ScatterShare)})
		}
		st.shapes[sh.Name] = true
		st.lastShare[sh.Name] = sh.ScatterShare
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Type < out[j].Type })
	return out
}

func argmax(xs []float64) int {
	m := 0
	for i, x := range xs {
		if x > xs[m] {
			m = i
		}
	}
	return m
}
