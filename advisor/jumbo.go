package advisor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/numfmt"
	"github.com/shardkey/shardkey/sim"
)

// MongoDB jumbo chunks.
//
// A MongoDB chunk is a contiguous range of shard key values; the balancer
// splits and moves chunks of at most the chunk size, 128 MB by default
// since MongoDB 6.0 (config.settings chunksize; balancer_configuration.h
// kDefaultMaxChunkSizeBytes = 128 * 1024 * 1024). A chunk holding a single
// shard key value cannot be split below it: when that value's documents
// outgrow the chunk size the chunk is marked jumbo, and the balancer no
// longer moves it (MongoDB manual, "Jumbo Chunks"). A key of one field,
// {a: "hashed"} or {a: 1}, whose most frequent value holds more than a
// chunk has such a chunk; {a: 1, b: "hashed"} with b of many values lets
// that a's documents split by b while an equality on a still targets a's
// chunks.

// MongoChunkBytes is MongoDB's default chunk size since 6.0, 128 MB
// (MiB, as MongoDB counts chunkSize).
const MongoChunkBytes = 128 << 20

// jumboStat is the value of one column whose documents weigh the most,
// in BSON bytes, in the row sample.
type jumboStat struct {
	value string
	rows  int
	bytes float64
	// known: the table has a row sample to weigh (no rows: unknown).
	known bool
	// tableRows is the table's row count when the catalog knows it
	// (TableInfo.RowEstimate, pg_class.reltuples or TABLE_ROWS, above
	// the sample's), 0 otherwise; scale is tableRows over the sample's
	// rows (1 when unknown): a uniform sample (TABLESAMPLE BERNOULLI)
	// holds each value's documents in the table's proportion, so the
	// value's table bytes are estimated as bytes * scale.
	tableRows float64
	scale     float64
}

// total is the estimated BSON bytes of the value's documents in the whole
// table: the sample's scaled by the table's rows over the sample's, or
// the sample's own (a lower bound) when the table's row count is unknown.
func (st jumboStat) total() float64 {
	if st.scale > 1 {
		return st.bytes * st.scale
	}
	return st.bytes
}

// bsonSize is the BSON size in bytes of row i of t as a flat document of
// its columns (bsonspec.org): 4 (length) + per field 1 (type) + the name +
// 1 (NUL) + the value + 1 (the closing NUL); int32 4, int64, double,
// date 8, string 4 + bytes + 1, binary 4 + 1 + bytes, ObjectId 12, bool 1,
// any other BSON value its own bytes. A NULL is a field the document does
// not have (a mongoexport row without it), so it counts nothing.
func bsonSize(t *shardkey.Table, i int) float64 {
	n := 5
	for _, c := range t.Columns {
		v := c.Value(i)
		var val int
		switch v.Type {
		case shardkey.Null:
			continue
		case shardkey.Int16, shardkey.Int32:
			val = 4
		case shardkey.Bool:
			val = 1
		case shardkey.Text:
			val = 4 + len(v.Str) + 1
		case shardkey.Bytes, shardkey.UUID:
			val = 4 + 1 + len(v.Str)
		case shardkey.ObjectID:
			val = 12
		case shardkey.ExtJSON:
			val = max(0, len(v.Str)-1) // after its type byte
		default:
			val = 8
		}
		n += 1 + len(c.Name) + 1 + val
	}
	return float64(n)
}

// jumbo returns the value of column col of table ti whose documents weigh
// the most in BSON bytes (ties: more rows, then the value's text), cached.
func (a *analysis) jumbo(ti int, col string) jumboStat {
	key := fmt.Sprintf("%d\x00%s", ti, col)
	if st, ok := a.jumbos[key]; ok {
		return st
	}
	t := a.w.Tables[ti]
	st := jumboStat{scale: 1}
	if ci := t.ColumnIndex(col); ci >= 0 && t.Rows > 0 {
		st.known = true
		if cat := a.w.Catalog; cat != nil {
			if info := cat.Table(t.Name); info != nil && info.RowEstimate > float64(t.Rows) {
				st.tableRows = info.RowEstimate
				st.scale = info.RowEstimate / float64(t.Rows)
			}
		}
		type agg struct {
			rows  int
			bytes float64
		}
		m := map[shardkey.Value]*agg{}
		for i := 0; i < t.Rows; i++ {
			v := t.Columns[ci].Value(i).Canonical()
			g := m[v]
			if g == nil {
				g = &agg{}
				m[v] = g
			}
			g.rows++
			g.bytes += bsonSize(t, i)
		}
		for v, g := range m {
			s := v.String()
			if g.bytes > st.bytes || g.bytes == st.bytes && (g.rows > st.rows || g.rows == st.rows && s < st.value) {
				st.value, st.rows, st.bytes = s, g.rows, g.bytes
			}
		}
	}
	if a.jumbos == nil {
		a.jumbos = map[string]jumboStat{}
	}
	a.jumbos[key] = st
	return st
}

// jumboSuffix is the field to hash after col in {col: 1, SUFFIX:
// "hashed"} so that col's heaviest value can split: _id when t has it
// (every MongoDB document does, unique), else the column with the most
// distinct values among that value's rows (at least 2); "" for none.
func (a *analysis) jumboSuffix(ti int, col string, st jumboStat) string {
	t := a.w.Tables[ti]
	if col != "_id" && t.Column("_id") != nil {
		return "_id"
	}
	ci := t.ColumnIndex(col)
	var rows []int // the heavy value's rows
	for i := 0; i < t.Rows; i++ {
		if t.Columns[ci].Value(i).Canonical().String() == st.value {
			rows = append(rows, i)
		}
	}
	best, bestN := "", 1
	for cj, c := range t.Columns {
		if cj == ci {
			continue
		}
		seen := map[shardkey.Value]bool{}
		for _, i := range rows {
			seen[c.Value(i).Canonical()] = true
		}
		if len(seen) > bestN {
			best, bestN = c.Name, len(seen)
		}
	}
	return best
}

// jumboText says, for a key of one field col of table ti, whether its
// heaviest value outgrows a MongoDB chunk: the sentence of a reason (and
// a warning), "" when it fits. The value's bytes are the sample's scaled
// to the table (jumboStat.total) when the catalog gives the table's row
// count; without it they are the sample's, a lower bound, and the
// sentence says so. With no row sample the sizes are unknown, and it says
// so.
func (a *analysis) jumboText(ti int, col string) string {
	t := a.w.Tables[ti]
	st := a.jumbo(ti, col)
	if !st.known {
		return fmt.Sprintf("jumbo chunks: unknown whether one %s value of %s outgrows a MongoDB chunk (128 MiB): no row sample gives document sizes", col, t.Name)
	}
	if st.total() <= MongoChunkBytes {
		return ""
	}
	size := fmt.Sprintf("%.0f bytes in BSON (%s) in the sample, a lower bound (the table's row count is unknown: the table may hold more)", st.bytes, numfmt.Bytes(st.bytes))
	if st.scale > 1 {
		size = fmt.Sprintf("%.0f bytes in BSON in the sample, ~%.0f bytes (%s) in the table (scaled by its ~%.0f rows over the sample's %d, the database's row estimate)",
			st.bytes, st.total(), numfmt.Bytes(st.total()), st.tableRows, t.Rows)
	}
	s := fmt.Sprintf("jumbo chunk: %s %s holds %d of %s's sampled documents, %s, more than one chunk holds (%d bytes, 128 MiB: MongoDB's default chunkSize since 6.0); a chunk cannot split below one shard key value, so the balancer marks it jumbo and cannot move it",
		col, st.value, st.rows, t.Name, size, MongoChunkBytes)
	if suf := a.jumboSuffix(ti, col, st); suf != "" {
		s += fmt.Sprintf(": %s lets its documents split by %s while an equality on %s still targets its chunks", mongoCompound(col, suf), suf, col)
	}
	return s
}

func mongoCompound(col, suffix string) string {
	return fmt.Sprintf(`{%s: 1, %s: "hashed"}`, shardkey.QuoteName(col), shardkey.QuoteName(suffix))
}

// jumboReasons adds to as, under MongoDB, the jumbo-chunk sentence of
// every table whose key is one field ({a: "hashed"}, {a: 1}, hash(a),
// range(a)); as.jumbo keeps the first, for the warning.
func (a *analysis) jumboReasons(as *Assessment) {
	if !a.mongo {
		return
	}
	d, err := shardkey.ParseDesign(as.Key)
	if err != nil {
		return
	}
	for ti, t := range a.w.Tables {
		col := oneFieldKey(d, t)
		if col == "" {
			continue
		}
		if s := a.jumboText(ti, col); s != "" {
			as.Reasons = append(as.Reasons, s)
			if as.jumbo == "" && !strings.HasPrefix(s, "jumbo chunks: unknown") {
				as.jumbo = s
				st := a.jumbo(ti, col)
				as.jumboVerdict = fmt.Sprintf("%s %s of %s would be a jumbo chunk (~%s of documents, over the 128 MiB chunkSize: the balancer cannot split or move it)", col, st.value, t.Name, numfmt.Bytes(st.total()))
				if suf := a.jumboSuffix(ti, col, st); suf != "" {
					as.jumboKey = [3]string{t.Name, col, suf}
				}
			}
		}
	}
	a.jumboShare(as, d)
}

// oneFieldKey returns the one field design d keys table t by ({a:
// "hashed"}, {a: 1}, hash(a), range(a)), "" for a key of several fields
// or none.
func oneFieldKey(d *shardkey.Design, t *shardkey.Table) string {
	switch e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil }).(type) {
	case *shardkey.HashExpr:
		if len(e.Cols) == 1 {
			return e.Cols[0]
		}
	case *shardkey.RangeExpr:
		if len(e.Cols) == 1 {
			return e.Cols[0]
		}
	}
	return ""
}

// jumboShare adds to as, under MongoDB, the jumbo chunk of the design's
// largest partition when it is one value of a one-field shard key and
// holds more than one shard's fair share (1/n) of its collection, the
// lower end of its share's 95% interval over it: MongoDB splits chunks
// only between shard key values (a chunk's bounds are shard key values),
// so all of that value's documents stay in one chunk, which is jumbo once
// it outgrows chunkSize, 128 MiB by default since MongoDB 6.0 (MongoDB
// manual, "Jumbo Chunks"): that is once the collection holds more than
// 128 MiB / share. The balancer can neither split nor move it. The
// sentence names the fixes MongoDB users apply: a compound shard key
// with a higher-cardinality suffix, or hashed sharding on a
// higher-cardinality field. A jumbo chunk already named from the
// documents' sizes (jumboText) is not named twice.
func (a *analysis) jumboShare(as *Assessment, d *shardkey.Design) {
	p := as.Criteria.LargestOf
	if p == nil || as.Score == nil || len(p.Columns) != 1 || len(p.Tables) == 0 || as.jumbo != "" {
		return
	}
	n, unit := a.whaleUnits(as.Score.Shards)
	if n < 2 {
		return
	}
	low := p.Share
	if p.Observations > 0 {
		low = p.ShareLow
	}
	if low <= 1/float64(n) {
		return
	}
	col := p.Columns[0]
	ti := a.w.TableIndex(p.Tables[0])
	if ti < 0 || oneFieldKey(d, a.w.Tables[ti]) != col {
		return
	}
	t := a.w.Tables[ti]
	sure := ""
	if p.Observations > 0 {
		sure = fmt.Sprintf(" (95%% interval %s to %s)", pct(p.ShareLow), pct(p.ShareHigh))
	}
	s := fmt.Sprintf("jumbo chunk: %s holds %s %s%s, more than one %s's fair share (1/%d = %.3g%%). MongoDB splits chunks only between shard key values, so all of its documents stay in one chunk, jumbo once it outgrows chunkSize (128 MiB by default since MongoDB 6.0), that is once %s holds more than 128 MiB / %.3g%% = %s; the balancer can neither split nor move a jumbo chunk (MongoDB manual, \"Jumbo Chunks\"), so one shard holds all of it whatever the shard count",
		p.Name(), pct(p.Share), p.Of(), sure, unit, n, 100/float64(n), t.Name, 100*p.Share, numfmt.Bytes(MongoChunkBytes/p.Share))
	st := a.jumbo(ti, col)
	if st.known && st.value == p.Value {
		// Its documents' size now, under a chunk (else jumboText
		// named it).
		now := fmt.Sprintf("~%s in BSON in the sample, a lower bound (the table's row count is unknown)", numfmt.Bytes(st.bytes))
		if st.scale > 1 {
			now = fmt.Sprintf("~%s in BSON in the table (the sample's scaled to the database's row estimate)", numfmt.Bytes(st.total()))
		}
		s += fmt.Sprintf("; its documents weigh %s now", now)
	}
	suf := ""
	if st.known {
		suf = a.jumboSuffix(ti, col, st)
	} else if col != "_id" && t.Column("_id") != nil {
		suf = "_id"
	}
	if suf != "" {
		s += fmt.Sprintf(". A compound shard key with a higher-cardinality suffix, {%s: 1, %s: 1} or %s, lets its chunk split by %s while an equality on %s still targets its chunks; or shard by a hashed higher-cardinality field ({%s: \"hashed\"}), whose reads by %s then ask every shard",
			shardkey.QuoteName(col), shardkey.QuoteName(suf), mongoCompound(col, suf), suf, col, shardkey.QuoteName(suf), col)
		as.jumboKey = [3]string{t.Name, col, suf}
	} else {
		s += fmt.Sprintf(". A compound shard key with a higher-cardinality suffix ({%s: 1, <field>: 1}) lets its chunk split, or shard by a hashed higher-cardinality field", shardkey.QuoteName(col))
	}
	as.Reasons = append(as.Reasons, s)
	as.jumbo = s
	as.jumboVerdict = fmt.Sprintf("%s would be a jumbo chunk (%s %s in one chunk the balancer cannot split or move)", p.Name(), pct(p.Share), p.Of())
}

// jumboFix re-simulates, under MongoDB, the compound shard key that lets
// the jumbo chunk of as split (as.jumboKey: {col: 1, suffix: "hashed"}
// on the jumbo's collection in place of its one-field key) and states
// what it changes: the busiest shard's work, the work in all (reads by
// col alone may then ask more than one shard), the largest partition.
// Every other collection keeps its key (see below). A compound key whose
// busiest shard re-simulates busier than the candidate's is not a fix:
// the reasons say what it would cost (a ranged prefix puts the small
// values' documents together on the ranges after the large one's).
func (a *analysis) jumboFix(as *Assessment, d *shardkey.Design, w *shardkey.Workload, o sim.Options) {
	jk := as.jumboKey
	if !a.mongo || jk[0] == "" {
		return
	}
	comp := mongoCompound(jk[1], jk[2])
	var key string
	var ok bool
	on := []string{jk[0]} // the collections the compound key keys
	switch _, own := d.Tables[jk[0]]; {
	case own:
		key, ok = replaceExpr(d, []string{jk[0]}, comp)
	case d.Default != nil && strings.HasPrefix(d.Text, d.Default.String()):
		// The bare expression, first in the design's text (a MongoDB
		// key's braces hold a colon, which replaceExpr reads as a
		// table's entry), becomes the compound key: it keys the jumbo's
		// collection and every other the bare expression keys that has
		// the suffix too (its documents split alike and stay with the
		// jumbo's of the same col and suffix). Each other collection
		// the bare expression keys keeps it as an entry of its own: one
		// without the suffix (the compound key would leave it
		// unsharded, on the primary shard), and under an _id suffix
		// every one (each collection's _id is its own, not a value the
		// collections share).
		key, ok = comp+strings.TrimPrefix(d.Text, d.Default.String()), true
		for _, t := range a.w.Tables {
			has := func(c string) bool { return t.Column(c) != nil }
			if _, own := d.Tables[t.Name]; own || t.Name == jk[0] || d.For(t.Name, has) == nil {
				continue
			}
			if jk[2] == "_id" || !has(jk[2]) {
				key += "; " + shardkey.QuoteName(t.Name) + ":" + d.Default.String()
			} else {
				on = append(on, t.Name)
			}
		}
	}
	if !ok {
		return
	}
	x, err := sim.Score(w, key, o)
	if err != nil {
		return
	}
	c := as.Score
	if x.MaxShardWork > c.MaxShardWork {
		// A remedy that loads the busiest shard more is no remedy: say
		// what it would cost instead of proposing it.
		as.Reasons = append(as.Reasons, fmt.Sprintf("a compound shard key against the jumbo chunk, %s on %s, would let its documents split but loads the busiest shard more: re-simulated (%s), the busiest shard's work would go from %s/s to %s/s and the work in all from %s/s to %s/s (a read by %s alone asks each shard holding its chunks), so it is not proposed as a fix",
			comp, strings.Join(on, " and "), key, fmtF(c.MaxShardWork), fmtF(x.MaxShardWork), fmtF(c.WorkPerS), fmtF(x.WorkPerS), jk[1]))
		return
	}
	largest := ""
	share := func(y *sim.Candidate) (float64, string, bool) {
		for _, tk := range y.Tables {
			if tk.Table == jk[0] && len(tk.TopValues) > 0 {
				return tk.TopValues[0].Share, measureText(keyMeasure(w, tk.KeyStats), []string{tk.Table}, tk.Columns), true
			}
		}
		return 0, "", false
	}
	if s0, _, ok0 := share(c); ok0 {
		if s1, of, ok1 := share(x); ok1 {
			largest = fmt.Sprintf("; the largest partition of %s goes from %s to %s %s", jk[0], pct(s0), pct(s1), of)
		}
	}
	as.Fixes = append(as.Fixes, Fix{Kind: "compound-key", Target: jk[0], Key: key, Before: nums(c), After: nums(x),
		Text: fmt.Sprintf("Jumbo chunk: shard %s by %s instead (a compound shard key: %s first, so an equality on it still targets its chunks, then the hash of %s, so a value's documents split over chunks the balancer can move): re-simulated, the busiest shard's work goes from %s/s to %s/s and the work in all from %s/s to %s/s (a read by %s alone asks each shard holding its chunks)%s. Another design: compare it, and choose the shard key before sharding (refineCollectionShardKey can add a suffix to a sharded collection's key later; reshardCollection rewrites it).",
			strings.Join(on, " and "), comp, jk[1], jk[2], fmtF(c.MaxShardWork), fmtF(x.MaxShardWork), fmtF(c.WorkPerS), fmtF(x.WorkPerS), jk[1], largest)})
}

// jumboCandidates proposes, under MongoDB, {col: 1, SUFFIX: "hashed"} for
// an entity column of one table whose heaviest value outgrows a chunk
// (see jumboSuffix), with why.
func (a *analysis) jumboCandidates(e *entity) (keys, whys []string) {
	if !a.mongo {
		return nil, nil
	}
	tables := map[int]bool{}
	for _, r := range e.cols {
		tables[r.table] = true
	}
	for _, r := range e.cols {
		t := a.w.Tables[r.table]
		col := t.Columns[r.col].Name
		st := a.jumbo(r.table, col)
		if !st.known || st.total() <= MongoChunkBytes {
			continue
		}
		suf := a.jumboSuffix(r.table, col, st)
		if suf == "" {
			continue
		}
		k := mongoCompound(col, suf)
		if len(tables) > 1 {
			k = shardkey.QuoteName(t.Name) + ":" + k
		}
		if slices.Contains(keys, k) {
			continue
		}
		keys = append(keys, k)
		scaled := ""
		if st.scale > 1 {
			scaled = " (scaled from the sample to the table's rows)"
		}
		whys = append(whys, fmt.Sprintf("%s %s holds %.0f bytes of %s in BSON%s, more than one MongoDB chunk (128 MiB): hashing %s after %s lets it split (a jumbo chunk otherwise)",
			col, st.value, st.total(), t.Name, scaled, suf, col))
	}
	return keys, whys
}
