package advisor

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/jsonnull"
	"github.com/shardkey/shardkey/internal/numfmt"
	"github.com/shardkey/shardkey/sim"
)

// RootStats is the checklist of a design's root entity, over every table
// the design keys by it (seed 003's evaluation checklist: cardinality,
// skew, the largest entity group, monotonicity).
type RootStats struct {
	Column string   `json:"column"`
	Tables []string `json:"tables"`
	// Basis says what the figures count: "rows" (the row samples' weights).
	Basis string `json:"basis"`
	// Cardinality is the number of distinct root values over the tables.
	Cardinality int `json:"cardinality"`
	// TopValues are the root values with the largest share (0..1) of the
	// group's rows' weight across all its tables, heaviest first.
	TopValues []sim.TopValue `json:"top_values"`
	// LargestGroupRows is the rows of the largest entity group, across
	// its tables.
	LargestGroupRows int `json:"largest_group_rows"`
	// Monotonicity is the root column's rank correlation with insert
	// order in its own table (the one it identifies, else the largest).
	Monotonicity float64 `json:"monotonicity"`
	Monotonic    bool    `json:"monotonic"`
	// MonotonicityUnknown: without rows, too few inserted values to tell.
	MonotonicityUnknown bool `json:"monotonicity_unknown,omitempty"`
	// TrafficTopValues, when rows and statements are both given, are the
	// root values with the largest share (0..1) of the requests that
	// name one by equality on the group's tables.
	TrafficTopValues []sim.TopValue `json:"traffic_top_values,omitempty"`

	// observed is how many observations TopValues' shares rest on: the
	// group's rows with a root value, or on the traffic basis the
	// statements naming one (the whale test's n: evidence).
	observed int
}

// MarshalJSON writes rs with null for the figures nothing measured:
// largest_group_rows on the traffic basis (no row sample: the group's
// rows are unknown), monotonicity and monotonic when MonotonicityUnknown.
func (rs RootStats) MarshalJSON() ([]byte, error) {
	type plain RootStats
	b, err := json.Marshal(plain(rs))
	if err != nil {
		return nil, err
	}
	null := jsonnull.Unless(rs.Basis != "traffic", "largest_group_rows")
	null = append(null, jsonnull.Unless(!rs.MonotonicityUnknown, "monotonicity", "monotonic")...)
	return jsonnull.Null(b, null...)
}

type valueWeight struct {
	v     shardkey.Value
	w     float64
	first int
}

// rootTraffic returns the root values that operations on the tables
// design d keys by col bind by equality, heaviest first, each weighted
// by its share of its operation's rate, their total, and the number of
// instances naming one.
func rootTraffic(w *shardkey.Workload, d *shardkey.Design, col string) ([]valueWeight, float64, int) {
	m := map[shardkey.Value]*valueWeight{}
	total := 0.0
	order := 0
	for _, ti := range keyedBy(w, d, col) {
		t := w.Tables[ti]
		ci := t.ColumnIndex(col)
		for _, op := range w.Ops {
			if op.Table != ti || len(op.Instances) == 0 {
				continue
			}
			sum := 0.0
			for _, in := range op.Instances {
				sum += in.Weight
			}
			for _, in := range op.Instances {
				v, ok := eqVal(in.Conds, ci)
				if !ok || sum == 0 || v.IsNull() {
					continue
				}
				wt := op.Rate * in.Weight / sum
				k := v.Canonical()
				x := m[k]
				if x == nil {
					x = &valueWeight{v: v, first: order}
					m[k] = x
				}
				order++
				x.w += wt
				total += wt
			}
		}
	}
	out := make([]valueWeight, 0, len(m))
	for _, x := range m {
		out = append(out, *x)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].w != out[j].w {
			return out[i].w > out[j].w
		}
		return out[i].first < out[j].first
	})
	return out, total, order
}

// rootColumn returns the root column of design d over w: the one
// column of its bare expression, or, for a design that gives each table
// a key of its own (TPC-C's warehouse:range(w_id, ...); district:range(w_id);
// ...), the one column every table it shards is keyed by alone; "" when
// there is none. Warnings about the root (its monotonicity, its largest
// entity group) then hold for every design keyed by it, whichever way
// the design is written.
func rootColumn(w *shardkey.Workload, d *shardkey.Design) string {
	if d.Default != nil {
		if len(d.Default.Columns()) != 1 {
			return ""
		}
		return d.Default.Columns()[0]
	}
	col := ""
	for _, t := range w.Tables {
		e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
		if e == nil {
			continue
		}
		if _, ok := e.(*shardkey.ReplicateExpr); ok {
			continue
		}
		if len(e.Columns()) != 1 || col != "" && e.Columns()[0] != col {
			return ""
		}
		col = e.Columns()[0]
	}
	return col
}

// rangeRoot reports whether design d keys the tables of its root column
// col by range: new root values past the last boundary then all go to
// the last range.
func rangeRoot(w *shardkey.Workload, d *shardkey.Design, col string) bool {
	for _, ti := range keyedBy(w, d, col) {
		if isRange(d, w.Tables[ti].Name) {
			return true
		}
	}
	return false
}

// rootStats computes the root checklist of design key over w, when the
// design keys two or more tables by one hash or range column
// (rootColumn).
func rootStats(w *shardkey.Workload, key string) *RootStats {
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return nil
	}
	col := rootColumn(w, d)
	if col == "" {
		return nil
	}
	type agg struct {
		w    float64
		rows int
		row  int // first (table, row) order, for ties
		text string
	}
	m := map[shardkey.Value]*agg{}
	rs := &RootStats{Column: col, Basis: "rows"}
	total := 0.0
	order := 0
	monoTable := -1
	for _, ti := range keyedBy(w, d, col) {
		t := w.Tables[ti]
		ci := t.ColumnIndex(col)
		if ci < 0 || t.Rows == 0 {
			continue
		}
		rs.Tables = append(rs.Tables, t.Name)
		if monoTable < 0 || t.Rows > w.Tables[monoTable].Rows {
			monoTable = ti
		}
		for i := 0; i < t.Rows; i++ {
			v := t.Columns[ci].Value(i)
			if v.IsNull() {
				continue
			}
			k := v.Canonical()
			x := m[k]
			if x == nil {
				x = &agg{row: order, text: v.String()}
				m[k] = x
			}
			order++
			x.w += t.Weight(i)
			x.rows++
			total += t.Weight(i)
		}
	}
	rs.observed = order
	traffic, ttotal, named := rootTraffic(w, d, col)
	if total == 0 {
		// No rows (a log): the requests that name each root value, over
		// every table of the group.
		rs.Basis = "traffic"
		rs.Tables = rs.Tables[:0]
		for _, t := range w.Tables {
			e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
			if e == nil || len(e.Columns()) != 1 || e.Columns()[0] != col {
				continue
			}
			if _, ok := e.(*shardkey.ReplicateExpr); ok {
				continue
			}
			rs.Tables = append(rs.Tables, t.Name)
		}
		for _, x := range traffic {
			m[x.v.Canonical()] = &agg{w: x.w, row: x.first, text: x.v.String()}
		}
		total = ttotal
		rs.observed = named
		if total == 0 || len(rs.Tables) < 2 {
			return nil
		}
		monoTable = -1
	} else if ttotal > 0 {
		// Rows and statements both: the request share of the heaviest
		// values too.
		for i, x := range traffic {
			if i >= 5 {
				break
			}
			rs.TrafficTopValues = append(rs.TrafficTopValues, sim.TopValue{Value: x.v.String(), Share: x.w / ttotal})
		}
	}
	if len(rs.Tables) < 2 || total == 0 {
		return nil
	}
	// The table the column identifies holds the entities themselves.
	for ti, t := range w.Tables {
		ci := t.ColumnIndex(col)
		if ci >= 0 && t.Rows >= 20 && sim.ComputeKeyStats(t, []int{ci}).Cardinality == t.Rows {
			monoTable = ti
			break
		}
	}
	if monoTable >= 0 {
		ks := sim.ComputeKeyStats(w.Tables[monoTable], []int{w.Tables[monoTable].ColumnIndex(col)})
		rs.Monotonicity, rs.Monotonic = ks.Monotonicity, ks.Monotonic
	} else {
		// Inserted values in log order, in the table with the most.
		best := -1.0
		for ti, t := range w.Tables {
			if ci := t.ColumnIndex(col); ci >= 0 && slices.Contains(rs.Tables, t.Name) {
				ks := sim.TrafficKeyStats(w, ti, []int{ci})
				if x := float64(ks.Cardinality); x > best && !ks.MonotonicityUnknown || best < 0 {
					best = x
					rs.Monotonicity, rs.Monotonic, rs.MonotonicityUnknown = ks.Monotonicity, ks.Monotonic, ks.MonotonicityUnknown
				}
			}
		}
	}
	rs.Cardinality = len(m)
	all := make([]*agg, 0, len(m))
	for _, x := range m {
		all = append(all, x)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].w != all[j].w {
			return all[i].w > all[j].w
		}
		return all[i].row < all[j].row
	})
	for i, x := range all {
		if i >= 5 {
			break
		}
		rs.TopValues = append(rs.TopValues, sim.TopValue{Value: x.text, Share: x.w / total})
	}
	if len(all) > 0 {
		rs.LargestGroupRows = all[0].rows
	}
	return rs
}

// rootStatsOf is rootStats of the analysed workload, memoised by the
// design's root column and the tables it keys by it (candidates share
// them, and each pass reads every row of those tables).
func (a *analysis) rootStatsOf(key string) *RootStats {
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return nil
	}
	col := rootColumn(a.w, d)
	if col == "" {
		return nil
	}
	memo := col
	for _, t := range a.w.Tables {
		e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
		if _, ok := e.(*shardkey.ReplicateExpr); ok || e == nil || len(e.Columns()) != 1 || e.Columns()[0] != col {
			continue
		}
		memo += "\x00" + t.Name
	}
	if a.roots == nil {
		a.roots = map[string]*RootStats{}
	}
	if rs, ok := a.roots[memo]; ok {
		return rs
	}
	rs := rootStats(a.w, key)
	a.roots[memo] = rs
	return rs
}

// rootText is the checklist in one sentence; byRange says the design
// keys the root's tables by range, where a monotonic root sends every
// new entity to the last range.
func rootText(rs *RootStats, byRange bool) string {
	mono := "not monotonic"
	switch {
	case rs.Monotonic && byRange:
		mono = fmt.Sprintf("monotonic: under this design's ranges every new entity (any %s past the last boundary) goes to the last range, so give each new one a boundary of its own as it is added, or hash it", rs.Column)
	case rs.Monotonic:
		mono = "monotonic: harmless under hash, but under range every new entity would go to the last range"
	}
	top := ""
	if len(rs.TopValues) > 0 {
		top = fmt.Sprintf("; the largest entity group, %s, holds %s of the group's rows (%s rows across its tables)",
			valueText([]string{rs.Column}, rs.TopValues[0].Value), pct(rs.TopValues[0].Share), numfmt.Commas(int64(rs.LargestGroupRows)))
	}
	if len(rs.TrafficTopValues) > 0 && len(rs.TopValues) > 0 {
		top += fmt.Sprintf("; by traffic, %s is named by %s of the requests on its tables",
			valueText([]string{rs.Column}, rs.TrafficTopValues[0].Value), pct(rs.TrafficTopValues[0].Share))
	}
	basis := ""
	if rs.Basis == "traffic" {
		basis = " (traffic-based: no row sample)"
		if len(rs.TopValues) > 0 {
			top = fmt.Sprintf("; the busiest entity, %s, is named by %s of the requests on its tables (its rows: unknown)",
				valueText([]string{rs.Column}, rs.TopValues[0].Value), pct(rs.TopValues[0].Share))
		}
	}
	mono = fmt.Sprintf("%s (rank correlation %.2f with insert order)", mono, rs.Monotonicity)
	if rs.MonotonicityUnknown {
		mono = "monotonicity unknown (too few inserted values)"
	}
	return fmt.Sprintf("root entity %s over %s%s: %s distinct values%s; %s",
		rs.Column, strings.Join(rs.Tables, ", "), basis, numfmt.Commas(int64(rs.Cardinality)), top, mono)
}

// keyedBy returns the tables (indices in w.Tables) that design d keys by
// column col alone: the tables of the root entity's group.
func keyedBy(w *shardkey.Workload, d *shardkey.Design, col string) []int {
	var out []int
	for ti, t := range w.Tables {
		e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
		if e == nil || len(e.Columns()) != 1 || e.Columns()[0] != col {
			continue
		}
		if _, ok := e.(*shardkey.ReplicateExpr); ok {
			continue
		}
		out = append(out, ti)
	}
	return out
}
