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
	// Columns, when the tables name the root differently (go-tpc's TPC-C:
	// w_id, d_w_id, c_w_id, ...), is each table's root column, in the
	// order of Tables; Column is then the name the others extend (w_id)
	// or the entity's most used. Absent when every table names it Column.
	Columns []string `json:"columns,omitempty"`
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
// of root rk bind by equality on its column, heaviest first, each
// weighted by its share of its operation's rate, their total, and the
// number of instances naming one.
func rootTraffic(w *shardkey.Workload, rk *rootKey) ([]valueWeight, float64, int) {
	m := map[shardkey.Value]*valueWeight{}
	total := 0.0
	order := 0
	for k, ti := range rk.tables {
		ci := rk.cols[k]
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

// rootKey is the root entity of a design: the column that names it
// (name), and the tables the design keys by it alone (tables, indices in
// w.Tables, in order) with each one's column of it (cols, column
// indices), which may be named differently per table.
type rootKey struct {
	name   string
	tables []int
	cols   []int
}

// rootOf returns the root entity of design d over w: the one column of
// its bare expression, or, for a design that gives each table a key of
// its own (TPC-C's warehouse:range(w_id, ...); district:range(w_id);
// ...), the one column every table it shards is keyed by alone; nil when
// there is none. The tables may name that column differently (go-tpc's
// TPC-C keys district by d_w_id, customer by c_w_id, ...): the columns
// are then one root when one entity class of the advisor (classes:
// columns tied by name, declared foreign keys, join equalities or the
// values transactions carry, findEntities) holds them all. Warnings
// about the root (its monotonicity, its largest entity group) then hold
// for every design keyed by it, whichever way the design is written.
func rootOf(w *shardkey.Workload, d *shardkey.Design, classes []*entity) *rootKey {
	if d.Default != nil {
		if len(d.Default.Columns()) != 1 {
			return nil
		}
		col := d.Default.Columns()[0]
		rk := &rootKey{name: col}
		for _, ti := range keyedBy(w, d, col) {
			rk.tables = append(rk.tables, ti)
			rk.cols = append(rk.cols, w.Tables[ti].ColumnIndex(col))
		}
		return rk
	}
	rk := &rootKey{}
	same := true
	for ti, t := range w.Tables {
		e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
		if e == nil {
			continue
		}
		if _, ok := e.(*shardkey.ReplicateExpr); ok {
			continue
		}
		if len(e.Columns()) != 1 {
			return nil
		}
		ci := t.ColumnIndex(e.Columns()[0])
		if ci < 0 {
			return nil
		}
		if len(rk.tables) > 0 && t.Columns[ci].Name != w.Tables[rk.tables[0]].Columns[rk.cols[0]].Name {
			same = false
		}
		rk.tables = append(rk.tables, ti)
		rk.cols = append(rk.cols, ci)
	}
	if len(rk.tables) == 0 {
		return nil
	}
	if same {
		rk.name = w.Tables[rk.tables[0]].Columns[rk.cols[0]].Name
		return rk
	}
	// Named differently: one entity class must hold every column. Two
	// tables keyed by a column named id are keyed by their own ids (the
	// Rails and Django convention: users.id, orders.id), two entities
	// that a class joining them by name alone does not make one root.
	ids := 0
	for k, ti := range rk.tables {
		if strings.EqualFold(w.Tables[ti].Columns[rk.cols[k]].Name, "id") {
			ids++
		}
	}
	if ids > 1 {
		return nil
	}
	var class *entity
	for _, e := range classes {
		all := true
		for k, ti := range rk.tables {
			all = all && slices.Contains(e.cols, colRef{ti, rk.cols[k]})
		}
		if all {
			class = e
			break
		}
	}
	if class == nil {
		return nil
	}
	rk.name = rootName(w, rk, class)
	return rk
}

// rootName names a root whose tables name its column differently: the
// name every other extends by a prefix (w_id of d_w_id, c_w_id,
// h_c_w_id), else the class's most used column's name when one of the
// tables uses it, else the first table's.
func rootName(w *shardkey.Workload, rk *rootKey, class *entity) string {
	names := make([]string, len(rk.tables))
	for k, ti := range rk.tables {
		names[k] = w.Tables[ti].Columns[rk.cols[k]].Name
	}
	for _, n := range names {
		ok := true
		for _, o := range names {
			ok = ok && (o == n || strings.HasSuffix(o, "_"+n))
		}
		if ok {
			return n
		}
	}
	if slices.Contains(names, class.name) {
		return class.name
	}
	return names[0]
}

// colOf returns rk's column of table ti (a column index), or -1 when
// rk does not key ti.
func (rk *rootKey) colOf(ti int) int {
	if k := slices.Index(rk.tables, ti); k >= 0 {
		return rk.cols[k]
	}
	return -1
}

// rangeRoot reports whether design d keys the tables of its root (those
// of rs) by range: new root values past the last boundary then all go to
// the last range.
func rangeRoot(d *shardkey.Design, rs *RootStats) bool {
	for _, t := range rs.Tables {
		if isRange(d, t) {
			return true
		}
	}
	return false
}

// rootStats computes the root checklist of design key over w, when the
// design keys two or more tables by one hash or range column, or by
// columns of one entity class (rootOf, over classes).
func rootStats(w *shardkey.Workload, key string, classes []*entity) *RootStats {
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return nil
	}
	rk := rootOf(w, d, classes)
	if rk == nil {
		return nil
	}
	col := rk.name
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
	named := func(ti int) {
		// The table's name, and its column's when the tables differ.
		rs.Tables = append(rs.Tables, w.Tables[ti].Name)
		rs.Columns = append(rs.Columns, w.Tables[ti].Columns[rk.colOf(ti)].Name)
	}
	for k, ti := range rk.tables {
		t := w.Tables[ti]
		ci := rk.cols[k]
		if ci < 0 || t.Rows == 0 {
			continue
		}
		named(ti)
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
	traffic, ttotal, naming := rootTraffic(w, rk)
	if total == 0 {
		// No rows (a log): the requests that name each root value, over
		// every table of the group.
		rs.Basis = "traffic"
		rs.Tables, rs.Columns = rs.Tables[:0], rs.Columns[:0]
		for _, ti := range rk.tables {
			named(ti)
		}
		for _, x := range traffic {
			m[x.v.Canonical()] = &agg{w: x.w, row: x.first, text: x.v.String()}
		}
		total = ttotal
		rs.observed = naming
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
	colIn := func(ti int) int {
		if ci := rk.colOf(ti); ci >= 0 {
			return ci
		}
		return w.Tables[ti].ColumnIndex(col)
	}
	for ti, t := range w.Tables {
		ci := colIn(ti)
		if ci >= 0 && t.Rows >= 20 && sim.ComputeKeyStats(t, []int{ci}).Cardinality == t.Rows {
			monoTable = ti
			break
		}
	}
	if monoTable >= 0 {
		ks := sim.ComputeKeyStats(w.Tables[monoTable], []int{colIn(monoTable)})
		rs.Monotonicity, rs.Monotonic = ks.Monotonicity, ks.Monotonic
	} else {
		// Inserted values in log order, in the table with the most.
		best := -1.0
		for ti, t := range w.Tables {
			if ci := rk.colOf(ti); ci >= 0 && slices.Contains(rs.Tables, t.Name) {
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
	if !slices.ContainsFunc(rs.Columns, func(c string) bool { return c != col }) {
		rs.Columns = nil // one name: Column says it
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
	rk := rootOf(a.w, d, a.classes)
	if rk == nil {
		return nil
	}
	memo := rk.name
	for k, ti := range rk.tables {
		memo += fmt.Sprintf("\x00%d.%d", ti, rk.cols[k])
	}
	if a.roots == nil {
		a.roots = map[string]*RootStats{}
	}
	if rs, ok := a.roots[memo]; ok {
		return rs
	}
	rs := rootStats(a.w, key, a.classes)
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
	tables := slices.Clone(rs.Tables)
	if len(rs.Columns) == len(tables) {
		// Each table's own name for the root's column.
		for i, c := range rs.Columns {
			if c != rs.Column {
				tables[i] += " (" + c + ")"
			}
		}
	}
	return fmt.Sprintf("root entity %s over %s%s: %s distinct values%s; %s",
		rs.Column, strings.Join(tables, ", "), basis, numfmt.Commas(int64(rs.Cardinality)), top, mono)
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
