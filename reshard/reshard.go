// Package reshard prices changing your mind: for a move from the design in
// use to another, the rows and bytes each shard sends and receives, the
// time to copy the largest shard at a copy rate, the storage the engine
// needs while it copies, and the engine's own steps (dual write or
// replication, backfill, verification, cutover). The row counts come from
// sim.Reshard on the row sample.
package reshard

import (
	"fmt"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/jsonnull"
	"github.com/shardkey/shardkey/internal/numfmt"
	"github.com/shardkey/shardkey/sim"
)

// DefaultCopyRate is the copy rate assumed per target shard, in bytes/s:
// 125 MiB/s, the baseline throughput of an AWS EBS gp3 volume (AWS EBS
// User Guide, "General Purpose SSD volumes": 3,000 IOPS and 125 MiB/s
// included). A target shard on such a volume cannot be written faster, so
// the copy time it gives is a lower bound there; measure your own copy
// (a Vitess copy phase, a MongoDB clone phase) and pass --copy-rate.
const DefaultCopyRate = 125 << 20

// DefaultCopyRateSource says where DefaultCopyRate comes from.
const DefaultCopyRateSource = "default: 125 MiB/s, the baseline throughput of an AWS EBS gp3 volume (AWS EBS User Guide); measure yours"

// MinMongoReshardSeconds is the least a MongoDB reshardCollection lasts:
// reshardingMinimumOperationDurationMillis, 5 x 60 x 1000 ms by default
// (mongo src/mongo/db/s/resharding/resharding_server_parameters.idl:
// "Controls the minimum duration of resharding operations"), however
// little data it copies.
const MinMongoReshardSeconds = 300

// Options price a movement.
type Options struct {
	// RowBytes is the average row size in bytes; 0 estimates it from the
	// sample's columns (see EstimateRowBytes).
	RowBytes float64
	// CopyRate is the bytes/s one target shard is written at; 0 means
	// DefaultCopyRate.
	CopyRate float64
	// Engine is the placement engine's name (partition.Engine.Name()):
	// it picks the steps.
	Engine string
}

// Plan is a priced movement. Bytes are rows times RowBytes.
//
// When a rewritten table has no row sample (Movement.Unsampled: a
// workload read from a log), the rows, bytes, per-shard figures, largest
// target and copy time are unknown: they stay 0 here, are null in JSON
// (MarshalJSON) and "unknown" in text (KnownBytes, CopyText); RowBytes is
// unknown (0, null) when no rewritten table has a sample to estimate it
// from and --row-bytes was not given.
type Plan struct {
	*sim.Movement
	RowBytes       float64 `json:"row_bytes"`
	RowBytesSource string  `json:"row_bytes_source"`
	Bytes          float64 `json:"bytes"`          // all row copies written
	BytesCrossing  float64 `json:"bytes_crossing"` // those sent to another shard
	// Per shard, bytes: sent by each source shard, held by and received
	// by each target shard.
	SourceBytesOut []float64 `json:"source_bytes_out"`
	TargetBytes    []float64 `json:"target_bytes"`
	TargetBytesIn  []float64 `json:"target_bytes_in"`
	// LargestTarget is the target shard with the most bytes after, and
	// CopySeconds the time to write it at CopyRate: the copy phase cannot
	// end sooner, whatever runs in parallel.
	LargestTarget  int     `json:"largest_target"`
	CopyRate       float64 `json:"copy_rate_bytes_per_s"`
	CopyRateSource string  `json:"copy_rate_source"`
	CopySeconds    float64 `json:"copy_seconds"`
	Engine         string  `json:"engine"`
	// RowsBasis says what the row figures count: "table" when they are
	// scaled to the rewritten tables' sizes (the catalog's row estimate
	// over the rows sampled, per table: Scaled), "sample" when the
	// tables' sizes are not known (a spec, a --rows file): the rows are
	// the sample's, and the bytes, the storage and the copy time of the
	// real tables are unknown (null in JSON); RowsShare and CrossingShare
	// still hold.
	RowsBasis string `json:"rows_basis"`
	// RowsShare is the share (0..1) of the sampled rows of every table
	// that the re-key rewrites; CrossingShare the share of the rewritten
	// rows that go to another shard. Both hold for the sample and the
	// table alike.
	RowsShare     float64 `json:"rows_share"`
	CrossingShare float64 `json:"crossing_share"`
	// MinSeconds is the engine's own least duration for the operation, 0
	// when it has none: MongoDB's reshardCollection lasts at least
	// reshardingMinimumOperationDurationMillis (MinMongoReshardSeconds).
	MinSeconds float64  `json:"min_seconds,omitempty"`
	Steps      []string `json:"steps"`
	Warnings   []string `json:"warnings,omitempty"`
}

// New prices m for w's tables under o.
func New(w *shardkey.Workload, m *sim.Movement, o Options) *Plan {
	p := &Plan{Movement: m, RowBytes: o.RowBytes, CopyRate: o.CopyRate, Engine: o.Engine}
	if p.RowBytes > 0 {
		p.RowBytesSource = "--row-bytes"
	} else {
		// Average over the rewritten tables' rows.
		var rows, bytes float64
		for _, tm := range m.Tables {
			if !tm.Rewritten || tm.Rows == 0 {
				continue
			}
			if t := w.Table(tm.Table); t != nil {
				rows += tm.Rows
				bytes += tm.Rows * EstimateRowBytes(t)
			}
		}
		if rows > 0 {
			p.RowBytes = bytes / rows
			p.RowBytesSource = "estimated from the sample's columns (PostgreSQL heap layout); a lower bound when the sample lacks columns: give --row-bytes"
		} else {
			p.RowBytesSource = "no rewritten table has a row sample to estimate it from: give --row-bytes"
		}
	}
	if p.CopyRate <= 0 {
		p.CopyRate, p.CopyRateSource = DefaultCopyRate, DefaultCopyRateSource
	} else {
		p.CopyRateSource = "--copy-rate"
	}
	scale := func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = x * p.RowBytes
		}
		return out
	}
	p.scaleToTables(w)
	m = p.Movement
	p.Bytes = m.Rows * p.RowBytes
	p.BytesCrossing = m.RowsCrossing * p.RowBytes
	p.SourceBytesOut = scale(m.SourceOut)
	p.TargetBytes = scale(m.TargetRows)
	p.TargetBytesIn = scale(m.TargetIn)
	for k, b := range p.TargetBytes {
		if b > p.TargetBytes[p.LargestTarget] {
			p.LargestTarget = k
		}
	}
	if len(p.TargetBytes) > 0 {
		p.CopySeconds = p.TargetBytes[p.LargestTarget] / p.CopyRate
	}
	switch {
	case !m.RowsKnown():
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s re-keyed without a row sample: how many rows and bytes move, and how long the copy takes, are unknown; give a row sample (--rows FILE, or --from DSN) to count them", strings.Join(m.Unsampled, ", ")))
	case m.Rows == 0:
		p.Warnings = append(p.Warnings, "no table's placement changes: nothing to copy")
	}
	if o.Engine == "mongodb" {
		p.MinSeconds = MinMongoReshardSeconds
	}
	p.Steps = Steps(o.Engine, m, p)
	return p
}

// scaleToTables scales p's row figures, the row sample's, to the
// rewritten tables' sizes when the workload's catalog gives every one of
// them (a row estimate and the rows sampled): each table's rows by its
// estimate over its sample, the per-shard figures by the ratio of the
// scaled total to the sampled one (exact when every table is sampled at
// one rate, as --from samples them). Else RowsBasis is "sample". It sets
// RowsShare and CrossingShare from the sample.
func (p *Plan) scaleToTables(w *shardkey.Workload) {
	m := p.Movement
	all := 0.0
	for _, t := range w.Tables {
		all += float64(t.Rows)
	}
	if all > 0 && m.RowsKnown() {
		p.RowsShare = m.Rows / all
	}
	if m.Rows > 0 {
		p.CrossingShare = m.RowsCrossing / m.Rows
	}
	p.RowsBasis = "sample"
	if w.Catalog == nil || !m.RowsKnown() {
		return
	}
	factor := map[string]float64{}
	for _, tm := range m.Tables {
		if !tm.Rewritten {
			continue
		}
		ti := w.Catalog.Table(tm.Table)
		if ti == nil || ti.RowEstimate <= 0 || ti.SampleRows <= 0 {
			return
		}
		factor[tm.Table] = ti.RowEstimate / float64(ti.SampleRows)
	}
	mm := *m
	mm.Tables = append([]sim.TableMovement(nil), m.Tables...)
	mm.Rows, mm.RowsCrossing = 0, 0
	for i, tm := range mm.Tables {
		if f, ok := factor[tm.Table]; ok {
			mm.Tables[i].Rows, mm.Tables[i].RowsCrossing = tm.Rows*f, tm.RowsCrossing*f
			mm.Rows += tm.Rows * f
			mm.RowsCrossing += tm.RowsCrossing * f
		}
	}
	r := 1.0
	if m.Rows > 0 {
		r = mm.Rows / m.Rows
	}
	sc := func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = x * r
		}
		return out
	}
	mm.SourceRows, mm.SourceOut, mm.TargetRows, mm.TargetIn = sc(m.SourceRows), sc(m.SourceOut), sc(m.TargetRows), sc(m.TargetIn)
	p.Movement, p.RowsBasis = &mm, "table"
}

// SizeKnown reports whether p's rows, bytes and copy time are the real
// tables': every rewritten table has a row sample and its size is known
// (RowsBasis "table").
func (p *Plan) SizeKnown() bool { return p.known() && p.RowsBasis == "table" }

// MarshalJSON writes p with null for the figures its input cannot
// support: rows, bytes, the per-shard rows and bytes, largest_target and
// copy_seconds when a rewritten table has no row sample
// (Movement.RowsKnown false), row_bytes when it could not be estimated
// (0: no rewritten table with a sample, no --row-bytes).
func (p Plan) MarshalJSON() ([]byte, error) {
	type plain Plan
	b, err := jsonnull.Encode(plain(p)) // steps hold "->": the caller's encoder escapes or not
	if err != nil {
		return nil, err
	}
	null := jsonnull.Unless(p.Movement == nil || p.RowsKnown(), "rows", "rows_crossing", "source_rows", "source_out", "target_rows", "target_in",
		"bytes", "bytes_crossing", "source_bytes_out", "target_bytes", "target_bytes_in", "largest_target", "copy_seconds")
	null = append(null, jsonnull.Unless(p.RowBytes > 0, "row_bytes")...)
	if p.known() && p.RowsBasis == "sample" {
		// The sample's rows are labelled (rows_basis); the real tables'
		// bytes and copy time are not known.
		null = append(null, "bytes", "bytes_crossing", "source_bytes_out", "target_bytes", "target_bytes_in", "copy_seconds")
	}
	return jsonnull.Null(b, null...)
}

// known reports whether p's row and byte figures are known.
func (p *Plan) known() bool { return p.Movement == nil || p.RowsKnown() }

// LargestBytes is the bytes the largest target shard holds after, as
// text: "unknown bytes (no row sample)" when the rows are unknown (see
// Plan).
func (p *Plan) LargestBytes() string {
	if !p.known() || len(p.TargetBytes) == 0 {
		return "unknown bytes (no row sample)"
	}
	if !p.SizeKnown() {
		return "unknown bytes (the tables' sizes are not known)"
	}
	return numfmt.Bytes(p.TargetBytes[p.LargestTarget])
}

// EstimateRowBytes estimates the average on-disk size of t's rows from its
// sample's columns, as PostgreSQL's heap stores them (PostgreSQL
// documentation, "Database Page Layout"): a 24-byte tuple header (23
// bytes, aligned) and a 4-byte line pointer, plus each value: int16 2,
// int32 and float32 4, int64, uint64, float64 and timestamp 8, uuid 16,
// text and bytes their length plus a 1-byte header (4 bytes above 126),
// NULL nothing. Alignment padding and TOAST compression are ignored.
func EstimateRowBytes(t *shardkey.Table) float64 {
	if t.Rows == 0 {
		return 0
	}
	total := 0.0
	for _, c := range t.Columns {
		for i := 0; i < t.Rows; i++ {
			v := c.Value(i)
			switch v.Type {
			case shardkey.Null:
			case shardkey.Int16:
				total += 2
			case shardkey.Int32, shardkey.Float32:
				total += 4
			case shardkey.UUID:
				total += 16
			case shardkey.Text, shardkey.Bytes:
				n := float64(len(v.Str))
				if n > 126 {
					total += n + 4
				} else {
					total += n + 1
				}
			default:
				total += 8
			}
		}
	}
	return 28 + total/float64(t.Rows)
}

// Steps returns the engine's own procedure for the movement: Vitess
// (MoveTables into a keyspace with the new vindex), Citus
// (alter_distributed_table; isolate_tenant_to_new_shard and shard moves
// for a tenant or for growth) and MongoDB (reshardCollection, with its
// storage need), else the generic dual-write procedure.
func Steps(engine string, m *sim.Movement, p *Plan) []string {
	var tables []string
	for _, t := range m.Tables {
		if t.Rewritten {
			tables = append(tables, t.Table)
		}
	}
	tl := strings.Join(tables, ",")
	if tl == "" {
		tl = "TABLE"
	}
	// The new key's columns, from the first rewritten table.
	cols, hashed := []string{"NEW_COLUMN"}, "NEW_COLUMN"
	for _, t := range m.Tables {
		if !t.Rewritten {
			continue
		}
		if e, err := shardkey.ParseExpr(t.ToKey); err == nil && len(e.Columns()) > 0 {
			cols = e.Columns()
			hashed = cols[0] // a hash key hashes its first field, { a: "hashed", b: 1 }
			if re, isRange := e.(*shardkey.RangeExpr); isRange {
				hashed = re.Hashed // a MongoDB pattern's own hashed field, if any
			}
		}
		break
	}
	mongoKey := make([]string, len(cols))
	for i, c := range cols {
		if c == hashed {
			mongoKey[i] = c + `: "hashed"`
		} else {
			mongoKey[i] = c + ": 1"
		}
	}
	switch {
	case strings.HasPrefix(engine, "vitess"):
		return []string{
			"Vitess cannot change a table's primary vindex in place: Reshard keeps the vindex and only splits or merges shards; MoveTables copies tables into a keyspace whose VSchema has the new vindex.",
			fmt.Sprintf("Create the target keyspace (%d shards) with a VSchema whose primary vindex is on %s (shardkey advise --emit vschema writes one).", m.ToShards, strings.Join(cols, ", ")),
			fmt.Sprintf("vtctldclient MoveTables --workflow rekey --target-keyspace NEW create --source-keyspace OLD --tables %s: VReplication copies every row (copy phase, %s to the largest target shard), then replays the binlog (catch-up).", tl, p.LargestBytes()),
			"vtctldclient VDiff --workflow rekey --target-keyspace NEW create: compare source and target row by row.",
			"vtctldclient MoveTables --workflow rekey --target-keyspace NEW switchtraffic --tablet-types rdonly,replica, then switchtraffic for primary (writes pause briefly); reversetraffic goes back until complete.",
			"vtctldclient MoveTables --workflow rekey --target-keyspace NEW complete: drops the source tables and the routing rules.",
		}
	case engine == "citus":
		return []string{
			fmt.Sprintf("SELECT alter_distributed_table('%s', distribution_column := '%s'): Citus creates a new distributed table, copies every row into it and swaps it in; writes to the table wait while it copies, so plan a window (%s for the largest shard at the copy rate). Citus distributes by one column; it hashes it itself.", tables1(tables), cols[0], p.copyText()),
			"Without a window: create_distributed_table('T_new', '" + cols[0] + "', colocate_with := ...), dual-write from the application, backfill with INSERT ... SELECT in key ranges, verify counts and checksums, switch reads, then writes, and drop the old table.",
			"For one whale tenant, no re-key needed: SELECT isolate_tenant_to_new_shard('T', VALUE, cascade_option := 'CASCADE'), then citus_move_shard_placement(shard_id, 'old-host', 5432, 'new-host', 5432) to give it a node of its own.",
			"For growth, no re-key needed: citus_add_node('new-host', 5432), then SELECT citus_rebalance_start() (shard moves by logical replication; writes keep flowing).",
		}
	case engine == "mongodb":
		per := "unknown bytes (no row sample)"
		if p.known() && !p.SizeKnown() {
			per = "unknown bytes (the tables' sizes are not known: a row sample's)"
		}
		if p.SizeKnown() && m.ToShards > 0 {
			per = numfmt.Bytes(2 * p.Bytes / float64(m.ToShards))
		}
		return []string{
			fmt.Sprintf("db.adminCommand({reshardCollection: \"DB.%s\", key: {%s}}) (MongoDB 5.0+): the clone phase copies every document to the recipient shards, indexes are built, the catch-up phase applies the writes made meanwhile, and the commit blocks writes for up to 2 seconds while it swaps the collections. It lasts at least reshardingMinimumOperationDurationMillis, 5 minutes by default, however little it copies (MongoDB source, resharding_server_parameters.idl).", tables1(tables), strings.Join(mongoKey, ", ")),
			fmt.Sprintf("Storage: each shard needs (collection size + index size) x 2 / shards free (MongoDB manual, \"Resharding for Adding and Removing Shards\"): %s per shard for the documents alone; add the indexes.", per),
			"Also required there: an oplog window of at least 24 hours, I/O capacity below 50% and CPU load below 80%.",
			"For one hot key without a re-key: a zone (sh.addShardToZone, sh.updateZoneKeyRange) pinning its range to a dedicated shard.",
		}
	}
	return []string{
		fmt.Sprintf("Create the new layout of %s (%d shards, the new key) beside the old one.", tl, m.ToShards),
		"Dual-write: the application (or change data capture) writes every change to both layouts from now on.",
		fmt.Sprintf("Backfill: copy every existing row into the new layout, in key order and throttled (%s of rows, %s to the largest target shard at the copy rate).", p.bytesText(), p.copyText()),
		"Verify: compare row counts and checksums per shard; fix and repeat until they match.",
		"Cut over reads, then writes; keep the old layout until the new one has run clean, then drop it.",
	}
}

// bytesText is p.Bytes as text, "unknown bytes" when the rows are
// unknown.
func (p *Plan) bytesText() string {
	if !p.known() {
		return "unknown bytes (no row sample)"
	}
	if !p.SizeKnown() {
		return "unknown bytes (the tables' sizes are not known)"
	}
	return numfmt.Bytes(p.Bytes)
}

// copyText is p.CopySeconds as text, "an unknown time" when the rows
// are unknown.
func (p *Plan) copyText() string {
	if !p.known() {
		return "an unknown time (no row sample)"
	}
	if !p.SizeKnown() {
		return "an unknown time (the tables' sizes are not known)"
	}
	return durationText(p.CopySeconds)
}

func tables1(ts []string) string {
	if len(ts) == 1 {
		return ts[0]
	}
	return "TABLE"
}

// durationText formats seconds as the largest sensible unit.
func durationText(s float64) string {
	switch {
	case s < 120:
		return fmt.Sprintf("%.1f s", s)
	case s < 2*3600:
		return fmt.Sprintf("%.1f min", s/60)
	case s < 2*86400:
		return fmt.Sprintf("%.1f h", s/3600)
	}
	return fmt.Sprintf("%.1f days", s/86400)
}
