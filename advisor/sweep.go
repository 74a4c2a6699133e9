package advisor

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/jsonnull"
	"github.com/shardkey/shardkey/sim"
)

// SweepRow is one shard count's numbers for a key.
type SweepRow struct {
	// Shards is the shard count scored, or with slots over nodes the node
	// count (Per "node": the slots are spread over Shards nodes).
	Shards int `json:"shards"`
	// Per is "node" when the sweep varies the nodes the slots are placed
	// on (Options.Nodes: Redis Cluster's 16384 slots stay 16384), not the
	// shard count; absent otherwise.
	Per           string  `json:"per,omitempty"`
	MaxShardWork  float64 `json:"max_shard_work"`
	WorkRatio     float64 `json:"work_ratio"`
	LoadRatio     float64 `json:"load_ratio"`
	Expected      float64 `json:"expected_max_load_ratio"`
	FanoutMean    float64 `json:"fanout_mean"`
	CrossShardTxn float64 `json:"cross_shard_txn_fraction"`
	OverCapacity  int     `json:"over_capacity"`
	// LoadKnown is false when the input has no row weights: load_ratio
	// is then null in JSON, not 0. CapacityKnown is false when no
	// capacity was given: over_capacity is then null.
	LoadKnown     bool `json:"-"`
	CapacityKnown bool `json:"-"`
	// TxnsUnknown: which statements ran together is unknown
	// (shardkey.Workload.TxnsUnknown), or there is no transaction:
	// cross_shard_txn_fraction is null.
	TxnsUnknown bool `json:"-"`
	// NoRequests: the workload has no request, NoWork no shard any
	// work: fanout_mean, and work_ratio with either, are null (said
	// "-"), not 0.
	NoRequests bool `json:"-"`
	NoWork     bool `json:"-"`
}

// MarshalJSON writes r with load_ratio null when the row load is unknown,
// over_capacity null when no capacity was given, expected_max_load_ratio
// null when no key value is known to place (0), cross_shard_txn_fraction
// null without transactions (or with which ran together unknown),
// fanout_mean without requests and work_ratio without work.
func (r SweepRow) MarshalJSON() ([]byte, error) {
	type plain SweepRow
	var b []byte
	var err error
	if r.LoadKnown {
		b, err = json.Marshal(plain(r))
	} else {
		b, err = json.Marshal(struct {
			plain
			LoadRatio *float64 `json:"load_ratio"`
		}{plain: plain(r)})
	}
	if err != nil {
		return nil, err
	}
	null := jsonnull.Unless(r.CapacityKnown, "over_capacity")
	null = append(null, jsonnull.Unless(r.Expected > 0, "expected_max_load_ratio")...)
	null = append(null, jsonnull.Unless(!r.TxnsUnknown, "cross_shard_txn_fraction")...)
	null = append(null, jsonnull.Unless(!r.NoRequests, "fanout_mean")...)
	null = append(null, jsonnull.Unless(!r.NoWork, "work_ratio")...)
	return jsonnull.Null(b, null...)
}

// Sweep scores key at each shard count; counts the key cannot be placed
// on (more given range bounds than shards, more isolated values than
// shards) are left out.
//
// With o.Nodes (slots over nodes) the counts are node counts: the slots
// (o.Shards) stay as they are and are spread over each count of nodes
// as o.Nodes spreads them (contiguous or round-robin; a slot map's
// counts, contiguous), as a cluster grows by adding nodes, not slots;
// counts above the slot count are left out. The rows then say Per
// "node".
//
// The counts are scored concurrently, each on a copy of o.
func Sweep(w *shardkey.Workload, key string, counts []int, o sim.Options) ([]SweepRow, error) {
	nodes := o.Nodes
	rows := make([]*SweepRow, len(counts))
	each(len(counts), 0, func(i int) {
		n, o := counts[i], o
		per := ""
		if nodes != nil {
			how := nodes.How
			if how != "contiguous" && how != "round-robin" {
				how = "contiguous"
			}
			m, err := sim.NewNodes(o.Shards, n, how)
			if err != nil || n > o.Shards {
				return
			}
			o.Nodes, per = m, "node"
		} else {
			o.Shards = n
		}
		c, err := sim.Score(w, key, o)
		if err != nil {
			return
		}
		exp := c.ExpectedMaxLoadRatio
		busiest, ratio := c.MaxShardWork, c.WorkRatio
		if per == "node" {
			// A row per node count: the work the nodes do, as the load
			// ratio below is the nodes' (a slot's work is the same at
			// any node count). Redis counts it so already (WorkPer
			// "node"); under Citus each node's is its slots' summed
			// (Candidate.CapacityWork). The perfect hash is of the
			// key's values over the nodes.
			nw := c.CapacityWork()
			busiest, ratio = slices.Max(nw), sim.MaxOverMean(nw)
			exp = 0
			if c.ExpectedMaxLoadRatio > 0 {
				exp = sim.ExpectedMaxLoadRatio(c.Cardinality, o.Nodes.Count)
			}
		}
		load := c.LoadRatio
		if per == "node" && c.LoadKnown() {
			// A row per node count: the rows' load over the nodes, not
			// over the fixed slots (which no node count changes).
			load = sim.MaxOverMean(o.Nodes.Sum(c.ShardLoad))
		}
		rows[i] = &SweepRow{Shards: n, Per: per, MaxShardWork: busiest, WorkRatio: ratio, LoadRatio: load,
			Expected: exp, FanoutMean: c.FanoutMean, CrossShardTxn: c.CrossShardTxnFraction, OverCapacity: len(c.OverCapacity), LoadKnown: c.LoadKnown(), CapacityKnown: c.Capacity > 0, TxnsUnknown: c.TxnsUnknown() || c.Transactions == 0,
			NoRequests: c.RequestsPerS == 0, NoWork: !(busiest > 0)}
	})
	var out []SweepRow
	for _, r := range rows {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out, nil
}

// Interval is a bootstrap confidence interval.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Confidence holds 95% bootstrap intervals of a key's headline numbers:
// how much they could move with another sample of the same size, around
// the sample's own value (see Bootstrap).
type Confidence struct {
	Replicates    int      `json:"replicates"`
	WorkRatio     Interval `json:"work_ratio"`
	LoadRatio     Interval `json:"load_ratio"`
	MaxShardWork  Interval `json:"max_shard_work"`
	CrossShardTxn Interval `json:"cross_shard_txn_fraction"`
}

// MarshalJSON writes c with load_ratio null when no replicate had a row
// load (an input without row weights): an interval of [0, 0] would read
// as perfectly even.
func (c Confidence) MarshalJSON() ([]byte, error) {
	type plain Confidence
	if c.LoadRatio.Hi > 0 {
		return json.Marshal(plain(c))
	}
	return json.Marshal(struct {
		plain
		LoadRatio *Interval `json:"load_ratio"`
	}{plain: plain(c)})
}

// Bootstrap rescores key on b Poisson-bootstrap replicates of the sample
// (every row's, instance's and transaction's weight multiplied by a
// Poisson(1) draw, seeded) and returns, for each headline number, the
// replicates' 2.5% and 97.5% quantiles moved by the replicates' bias: by
// their median's distance from the sample's own value (scored too). A
// maximum is biased upward (the busiest shard of a resample is the
// busiest of noisier sums), so the replicates' busiest shards and work
// ratios sit above the sample's, often all of them: the plain percentile
// interval then excludes the figure the advice prints (the Citus
// workspace: 1,554/s, interval 1,575-1,664). Moved, the interval is the
// replicates' spread around the sample's value: how far another sample
// could move it. The cross-shard share is a mean, not biased so: its
// interval is the plain quantiles (the median of a few transactions'
// resampled shares is not its mean, and moving by it would only add
// noise).
//
// The replicates are scored concurrently, up to GOMAXPROCS at a time,
// each drawn in turn from the one seeded source: the intervals are those
// of scoring them one after another.
func Bootstrap(w *shardkey.Workload, key string, b int, seed int64, o sim.Options) (*Confidence, error) {
	return bootstrap(w, key, b, seed, o, 0)
}

// bootstrap is Bootstrap scoring up to par replicates at a time (<= 0:
// GOMAXPROCS).
func bootstrap(w *shardkey.Workload, key string, b int, seed int64, o sim.Options, par int) (*Confidence, error) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0xb007))
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return nil, err
	}
	if o.Cache == nil {
		o.Cache = sim.NewCache()
	}
	est, err := headline(w, d, o) // the sample's own numbers
	if err != nil {
		return nil, err
	}
	wr, lr, mx, cx := make([]float64, b), make([]float64, b), make([]float64, b), make([]float64, b)
	errs := make([]error, b)
	// Replicate i is drawn once i-1 is (drawn == i): rng's draws are
	// those of drawing them one after another.
	var mu sync.Mutex
	turn := sync.NewCond(&mu)
	drawn := 0
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	reps := make([]*shardkey.Workload, par)
	eachOn(b, par, func(g, i int) {
		mu.Lock()
		for drawn != i {
			turn.Wait()
		}
		// Each goroutine's replicate is done with before it draws its
		// next: the next reuses its weights' and instances' memory.
		rep := replicate(w, rng, reps[g])
		reps[g] = rep
		drawn++
		turn.Broadcast()
		mu.Unlock()
		// Its statements are w's: read once for every replicate.
		o.Cache.Reweighted(rep, w)
		// Compiled per replicate: range bounds are the replicate's own
		// quantiles. Only the headline numbers are needed, not key
		// statistics (which a replicate's reweighted tables would
		// recompute).
		c, err := headline(rep, d, o)
		if err != nil {
			errs[i] = err
			return
		}
		wr[i] = c.WorkRatio
		// Per node where the work is (Redis slots over nodes), as the
		// advice's other figures are.
		lr[i] = c.UnitLoadRatio()
		mx[i] = c.MaxShardWork
		cx[i] = c.CrossShardTxnFraction
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return &Confidence{Replicates: b,
		WorkRatio:     interval(wr, est.WorkRatio, 1, math.Inf(1)),
		LoadRatio:     interval(lr, est.UnitLoadRatio(), 1, math.Inf(1)),
		MaxShardWork:  interval(mx, est.MaxShardWork, 0, math.Inf(1)),
		CrossShardTxn: interval(cx, 0, 0, 1)}, nil
}

// headline scores design d on w: the headline numbers only.
func headline(w *shardkey.Workload, d *shardkey.Design, o sim.Options) (*sim.Candidate, error) {
	s, err := sim.Compile(w, d, o)
	if err != nil {
		return nil, err
	}
	p, err := sim.Run(w, s, o.Workers)
	if err != nil {
		return nil, err
	}
	return s.Headline(p), nil
}

// interval returns the 2.5% and 97.5% quantiles of replicates xs moved by
// their bias, their median less est, the sample's value (Bootstrap), kept
// within lo..hi (a ratio of a max over a mean is at least 1, a share at
// most 1). Without replicates, or without a value (est 0: no row
// weights for a load ratio), the plain quantiles.
func interval(xs []float64, est, lo, hi float64) Interval {
	if len(xs) == 0 {
		return Interval{}
	}
	sort.Float64s(xs)
	q := func(p float64) float64 {
		i := int(math.Round(p * float64(len(xs)-1)))
		return xs[i]
	}
	if est == 0 {
		return Interval{q(0.025), q(0.975)}
	}
	n := len(xs)
	med := (xs[(n-1)/2] + xs[n/2]) / 2
	bias := med - est
	return Interval{min(max(q(0.025)-bias, lo, 0), hi), min(max(q(0.975)-bias, lo, 0), hi)}
}

// poisson1 draws from Poisson(1) by inversion.
func poisson1(rng *rand.Rand) float64 {
	u := rng.Float64()
	k := 0
	for k < 20 && u > poissonCum[k] {
		k++
	}
	return float64(k)
}

// poissonCum[k] is P(X <= k) for X ~ Poisson(1), summed term by term.
var poissonCum = func() (c [21]float64) {
	p := math.Exp(-1)
	c[0] = p
	for k := 1; k <= 20; k++ {
		p /= float64(k)
		c[k] = c[k-1] + p
	}
	return c
}()

// replicate returns a copy of w with reweighted rows, instances and
// transactions; values are shared, never modified. The copy is a new
// workload (sim.Cache keys on it), but when prev, a replicate of w no
// longer used, is given, its row weights and instances are overwritten
// in place of new ones (a log's sample is hundreds of thousands of
// instances a replicate).
func replicate(w *shardkey.Workload, rng *rand.Rand, prev *shardkey.Workload) *shardkey.Workload {
	r := *w
	r.Tables = make([]*shardkey.Table, len(w.Tables))
	for i, t := range w.Tables {
		tc := *t
		if prev != nil && len(prev.Tables[i].Weights) == t.Rows {
			tc.Weights = prev.Tables[i].Weights
		} else {
			tc.Weights = make([]float64, t.Rows)
		}
		for j := range tc.Weights {
			tc.Weights[j] = t.Weight(j) * poisson1(rng)
		}
		r.Tables[i] = &tc
	}
	r.Ops = make([]*shardkey.Operation, len(w.Ops))
	for i, op := range w.Ops {
		oc := *op
		if prev != nil && len(prev.Ops[i].Instances) == len(op.Instances) {
			oc.Instances = prev.Ops[i].Instances
		} else {
			oc.Instances = make([]shardkey.Instance, len(op.Instances))
		}
		total, sum := 0.0, 0.0
		for j, in := range op.Instances {
			in.Weight *= poisson1(rng)
			oc.Instances[j] = in
			total += op.Instances[j].Weight
			sum += in.Weight
		}
		if sum == 0 && len(oc.Instances) > 0 {
			copy(oc.Instances, op.Instances)
		}
		r.Ops[i] = &oc
	}
	if prev != nil && len(prev.Txns) == len(w.Txns) {
		r.Txns = prev.Txns
	} else {
		r.Txns = make([]shardkey.Txn, len(w.Txns))
	}
	for i, tx := range w.Txns {
		tx.Weight *= poisson1(rng)
		r.Txns[i] = tx
	}
	return &r
}
