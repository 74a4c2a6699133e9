package sim

import (
	"github.com/shardkey/shardkey"
)

// DatabaseStats are a table key's figures computed inside the live
// database over the whole table (livedb with --stats db: exact counts by
// GROUP BY, per-shard sums by the engine's own hash in SQL), which replace
// the row sample's. Figures names those that did; FromSample the key's
// figures that still come from the row sample.
type DatabaseStats struct {
	// Method says where and how ("whole table, inside postgresql 16.4").
	Method string `json:"method"`
	// Rows is the table's exact row count (estimated when Sample is set).
	Rows int64 `json:"rows"`
	// Sample, when not empty, says the figures are estimates from a
	// sample drawn inside the database (--stats db:sample=P%): its size
	// and estimators. Empty: exact counts over the whole table.
	Sample string `json:"sample,omitempty"`
	// NullShare is the share (0..1) of rows whose key is NULL.
	NullShare float64 `json:"null_share"`
	// Figures are the KeyStats fields taken from the database:
	// cardinality, top_values, null_share, monotonicity, and shard_rows
	// and shard_bytes when the engine's hash was computed there.
	Figures []string `json:"figures"`
	// FromSample are the figures still computed on the row sample.
	FromSample []string `json:"from_sample"`
	// Correlation defines the monotonicity figure when it came from the
	// database (Pearson's r with physical or primary-key order).
	Correlation string `json:"correlation,omitempty"`
	// ShardRows and ShardBytes are the rows and stored bytes each shard
	// would hold under the design's engine and shard count, computed by
	// the engine's hash inside the database; ShardRowsRatio is the
	// busiest shard's rows over the mean; ShardMethod says how. Absent
	// when the database has no function of the engine's hash (then
	// shard_load is the sample's).
	ShardRows      []int64 `json:"shard_rows,omitempty"`
	ShardBytes     []int64 `json:"shard_bytes,omitempty"`
	ShardRowsRatio float64 `json:"shard_rows_ratio,omitempty"`
	ShardMethod    string  `json:"shard_method,omitempty"`
}

// databaseStats overlays the catalog's measured statistics of a
// one-column key on ks (a copy: ks is shared between candidates), or
// returns ks unchanged when the column was not measured.
func (s *Scheme) databaseStats(ks KeyStats, t *shardkey.Table, tk *tableKey) KeyStats {
	cat := s.w.Catalog
	if cat == nil || len(tk.cols) != 1 {
		return ks
	}
	ti := cat.Table(t.Name)
	if ti == nil {
		return ks
	}
	var m *shardkey.MeasuredStats
	name := t.Columns[tk.cols[0]].Name
	for _, c := range ti.Columns {
		if c.Name == name {
			m = c.Measured
		}
	}
	if m == nil {
		return ks
	}
	if ks.Basis == "traffic" && ks.Cardinality == 0 {
		// No row sampled and no statement binding the key: nothing but
		// the database's figures (a Citus shell measured on its workers).
		ks.Basis = ""
	}
	d := &DatabaseStats{Method: m.Method, Rows: m.Rows, Figures: []string{"cardinality", "top_values", "null_share"}}
	ks.Cardinality = int(m.Distinct)
	ks.Estimated = m.Sampled != ""
	d.Sample = m.Sampled
	ks.TopValues = make([]TopValue, 0, len(m.Top))
	ks.MoreValues = nil
	for _, v := range m.Top {
		share := 0.0
		if m.Rows > 0 {
			share = float64(v.Rows) / float64(m.Rows)
		}
		ks.TopValues = append(ks.TopValues, TopValue{Value: v.Value, Share: share})
	}
	if m.Rows > 0 {
		d.NullShare = float64(m.Nulls) / float64(m.Rows)
	}
	if m.HasCorrelation {
		d.Figures = append(d.Figures, "monotonicity")
		d.Correlation = m.CorrelationDef
		ks.Monotonicity = m.Correlation
		ks.Monotonic = m.Correlation >= 0.7 || m.Correlation <= -0.7
	} else {
		d.FromSample = append(d.FromSample, "monotonicity")
	}
	d.FromSample = append(d.FromSample, "entropy")
	plain := tk.kind == kHash && len(tk.iso) == 0 && tk.saltK == 0 && tk.isoTop == 0 && tk.saltTop == 0 && tk.base == s.N
	if plain && m.ShardRows != nil && m.ShardEngine == tk.eng.Name() && m.Shards == s.N {
		d.ShardRows = m.ShardRows
		d.Figures = append(d.Figures, "shard_rows")
		if m.ShardBytes != nil {
			d.ShardBytes = m.ShardBytes
			d.Figures = append(d.Figures, "shard_bytes")
		}
		d.ShardMethod = m.ShardMethod
		var sum, top int64
		for _, r := range m.ShardRows {
			sum += r
			top = max(top, r)
		}
		if sum > 0 {
			d.ShardRowsRatio = float64(top) * float64(len(m.ShardRows)) / float64(sum)
		}
	}
	d.FromSample = append(d.FromSample, "shard_load", "work")
	ks.Database = d
	return ks
}
