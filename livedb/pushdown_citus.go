package livedb

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/shardkey/shardkey"
)

// Statistics where a Citus cluster keeps its rows.
//
// On a Citus coordinator a hash-distributed table's relation is an empty
// shell: its rows are in shard tables named <table>_<shardid>, in the
// table's schema, on the workers that pg_dist_placement and pg_dist_node
// name (citus.go, readPlacements; Citus' shard naming is
// AppendShardIdToName, src/backend/distributed/relay/relay_event_utility.c).
// A reference table has one shard, copied to every node: one copy is read.
// For such a table the statistics of pushdown.go are computed on each
// worker holding one of its shards, over that worker's shard tables, and
// merged here:
//
//   - Each worker is connected to as the coordinator was: the same DSN
//     (user, password, database, sslmode, the accepted parameters only)
//     with the node's host and port, the same startup settings (read-only
//     transactions, statement and lock timeouts, row_security off,
//     search_path pg_catalog), one REPEATABLE READ READ ONLY transaction
//     a worker, rolled back. The workers' snapshots are not one snapshot
//     (Citus has none across nodes either): rows written while they are
//     read may be counted on one worker and not another.
//   - A shard table is read only when the worker's catalog has it as a
//     table (relkind r or p) in the schema with the column of the same
//     built-in type as on the coordinator, so the built-in hash functions
//     and aggregates run on the worker's columns as on the coordinator's.
//   - Rows, NULL rows, per-shard rows and bytes add up across workers:
//     exact.
//   - Distinct values and the top ten: for the distribution column (and
//     a reference table, read on one worker) every value lives on one
//     worker, as Citus places each value in one shard, so distinct counts
//     add and the top ten is the top ten of the workers' top tens, exact
//     (ties by value: numbers by number, other values by their text's
//     bytes, the C collation). For any other column a value may be on
//     several workers: each worker sends, for every distinct value, its
//     64-bit extended hash (the type's hash support function with seed
//     0, the one its hash opclass and hash joins use, equal for equal
//     values) and its row count, 16 bytes a distinct value; the counts
//     add by hash, which gives the exact distinct count and exact counts
//     but for a collision of two values' 64-bit hashes (probability at
//     most D^2/2^65 for D distinct values, 3e-6 for ten million); the ten
//     largest counts (ties at the tenth place by hash) are then named by
//     one more query on each worker. Exact, at the price of that transfer
//     and two more scans.
//   - The correlation with insert order is taken within each shard
//     table, whose rows in their physical order (ctid) are in insert
//     order (rows go to a shard in the order they are written), and the
//     shards' Pearson r are averaged, weighted by their rows (shards
//     where r is undefined, a constant column, left out). A pooled r
//     (the shards' co-deviations over their deviations, summed) is not
//     used: shards of different lengths put the same values on different
//     position spans, and it falls below 1 for a column rising with
//     insert order on every shard.
//
// A worker that cannot be reached or read leaves the table's figures to
// the row sample, with a warning.

// pgEqHash returns an expression of a 64-bit hash of q, of base type
// oid, equal for values the type's equality finds equal (its hash
// opclass's extended support function, seed 0), or "".
func pgEqHash(oid uint32, q string) string {
	switch oid {
	case oidBool:
		return "pg_catalog.hashint4extended(" + q + "::pg_catalog.int4, 0)"
	case oidOID:
		return "pg_catalog.hashoidextended(" + q + ", 0)"
	case oidNumeric:
		return "pg_catalog.hash_numeric_extended(" + q + ", 0)"
	case oidBpchar:
		return "pg_catalog.hashbpcharextended(" + q + ", 0)"
	case oidDate:
		return "pg_catalog.hashint4extended(" + q + " OPERATOR(pg_catalog.-) '2000-01-01'::pg_catalog.date, 0)"
	case oidTimestamptz:
		return "pg_catalog.timestamp_hash_extended(" + q + "::pg_catalog.timestamp, 0)"
	}
	if ext, _ := pgHashFuncs(oid); ext != "" {
		return "pg_catalog." + ext + "(" + q + ", 0)"
	}
	return ""
}

// citusWorker is one worker's part of a table: its session and the
// shard tables it holds.
type citusWorker struct {
	node   *citusNode
	s      *pgSession
	shards []string // shard table names
	ids    []int64  // their shard ids
}

// worker returns the session on node, opening it the first time.
func (s *pgSession) worker(ctx context.Context, node *citusNode) (*pgSession, error) {
	key := node.String()
	if ws := s.workers[key]; ws != nil {
		return ws, nil
	}
	if err := s.workerErr[key]; err != nil {
		return nil, err // tried once: not again for every table
	}
	ws, err := openPostgresAt(ctx, s.rawDSN, s.opts, node)
	if err != nil {
		err = fmt.Errorf("Citus worker %s: %v", node, redactErr(err, s.rawDSN))
		if s.workerErr == nil {
			s.workerErr = map[string]error{}
		}
		s.workerErr[key] = err
		return nil, err
	}
	ws.schema = s.schema
	// As on the coordinator (pgSession.measure): groups in memory. A
	// Citus node hides its shard tables from every query on pg_class
	// (checkShards reads it) unless the session shows them: Citus' planner
	// hook adds "relation_is_a_known_shard(oid) IS NOT TRUE" to such
	// queries while citus.override_table_visibility is on, its default
	// (citusdata/citus src/backend/distributed/worker/
	// worker_shard_visibility.c, HideShardsFromSomeApplications). Only a
	// setting, for this transaction; on a server without Citus it is an
	// unused placeholder.
	if _, err := ws.tx.Exec(ctx, ownMark+" SET LOCAL work_mem = '64MB'; SET LOCAL citus.override_table_visibility = off"); err != nil {
		ws.close()
		err = fmt.Errorf("Citus worker %s: %v", node, err)
		if s.workerErr == nil {
			s.workerErr = map[string]error{}
		}
		s.workerErr[key] = err
		return nil, err
	}
	if s.workers == nil {
		s.workers = map[string]*pgSession{}
	}
	s.workers[key] = ws
	// The worker's own notes (a superuser role) are the report's too.
	for _, n := range ws.notes() {
		s.lateNotes = append(s.lateNotes, fmt.Errorf("Citus worker %s: %w", node, n))
	}
	return ws, nil
}

// measureWorkers is measure for a table whose rows are in shard tables
// on the workers (see above).
func (s *pgSession) measureWorkers(ctx context.Context, t *shardkey.TableInfo, cols []*shardkey.ColumnInfo, sp shardSpec) []error {
	shards := s.citus.shards[t.Name]
	distCol := s.citus.column[t.Name]
	var ws []*citusWorker
	byNode := map[*citusNode]*citusWorker{}
	for _, sh := range shards {
		w := byNode[sh.node]
		if w == nil {
			w = &citusWorker{node: sh.node}
			byNode[sh.node] = w
			ws = append(ws, w)
		}
		w.shards = append(w.shards, t.Name+"_"+strconv.FormatInt(sh.id, 10))
		w.ids = append(w.ids, sh.id)
	}
	fail := func(err error) []error {
		return []error{fmt.Errorf("table %s: its statistics could not be computed on the Citus workers (%v); its figures come from the row sample", t.Name, err)}
	}
	var names []string
	types := map[string]uint32{}
	for _, c := range cols {
		if oid := s.colType[c]; pgMeasurable(oid) && pgEqHash(oid, "x") != "" {
			types[c.Name] = oid
		}
	}
	selectAll := true
	for _, w := range ws {
		sess, err := s.worker(ctx, w.node)
		if err != nil {
			return fail(err)
		}
		w.s = sess
		var all bool
		err = sess.pgGuard(ctx, func() error {
			var err error
			all, err = sess.checkShards(ctx, w.shards, types)
			return err
		})
		if err != nil {
			return fail(fmt.Errorf("worker %s: %w", w.node, err))
		}
		selectAll = selectAll && all
		names = append(names, fmt.Sprintf("%s (%d shard tables)", w.node, len(w.shards)))
	}
	method := fmt.Sprintf("whole table, inside the Citus workers %s (postgresql %s), merged", strings.Join(names, ", "), ws[0].s.version)
	if pct := statsSample(s.opts.Stats); pct > 0 {
		method = fmt.Sprintf("TABLESAMPLE SYSTEM (%s%%) REPEATABLE (%d + its shard id) of each shard table, inside the Citus workers %s (postgresql %s), merged", fmtPct(pct), s.opts.Seed, strings.Join(names, ", "), ws[0].s.version)
	}
	var warns []error
	var corrCols []*shardkey.ColumnInfo
	for _, c := range cols {
		oid, ok := types[c.Name]
		if !ok {
			continue
		}
		disjoint := c.Name == distCol || len(ws) == 1
		m, ones, err := s.citusColumn(ctx, ws, c, oid, sp, selectAll, disjoint)
		if err != nil {
			warns = append(warns, fmt.Errorf("table %s: column %s: GROUP BY on the Citus workers failed (%v); its figures come from the row sample", t.Name, c.Name, err))
			continue
		}
		if why := sampleTooSmall(t, statsSample(s.opts.Stats), m.Rows); why != "" {
			warns = append(warns, fmt.Errorf("table %s: column %s: %s: its figures come from the row sample", t.Name, c.Name, why))
			continue
		}
		m.Method = method
		if !disjoint {
			m.Method += " by each distinct value's 64-bit hash (the column is not the distribution column: its values may be on several workers)"
		}
		// No planner count: the coordinator's table is an empty shell.
		scaleSample(m, statsSample(s.opts.Stats), ones, false, 0)
		c.Measured = m
		s.citus.measured[t.Name] = true
		if selectAll && pgNumeric(oid, "x") != "" {
			corrCols = append(corrCols, c)
		}
	}
	if len(corrCols) > 0 {
		if err := s.citusCorrelation(ctx, ws, corrCols); err != nil {
			warns = append(warns, fmt.Errorf("table %s: the correlation with physical order on the Citus workers failed (%v); monotonicity comes from the row sample", t.Name, err))
		}
	}
	return warns
}

// checkShards checks, on a worker, that each shard table is a table of
// the schema whose columns named in types have those built-in types. It
// reports whether the role has table-level SELECT on every one (the
// whole row's bytes and ctid).
func (s *pgSession) checkShards(ctx context.Context, shards []string, types map[string]uint32) (bool, error) {
	rows, err := s.tx.Query(ctx, ownMark+`
SELECT c.relname::text, c.relkind::text, pg_catalog.has_table_privilege(c.oid, 'SELECT'), a.attname::text, a.atttypid::oid
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE n.nspname = $1 AND c.relname = ANY ($2::text[])`, s.schema, shards)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	type info struct {
		kind string
		sel  bool
		cols map[string]uint32
	}
	found := map[string]*info{}
	for rows.Next() {
		var name, kind string
		var sel bool
		var col *string
		var typ *uint32
		if err := rows.Scan(&name, &kind, &sel, &col, &typ); err != nil {
			return false, err
		}
		in := found[name]
		if in == nil {
			in = &info{kind: kind, sel: sel, cols: map[string]uint32{}}
			found[name] = in
		}
		if col != nil && typ != nil {
			in.cols[*col] = *typ
		}
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	all := true
	for _, sh := range shards {
		in := found[sh]
		switch {
		case in == nil:
			return false, fmt.Errorf("shard table %s.%s not found", s.schema, sh)
		case in.kind != "r":
			return false, fmt.Errorf("%s.%s is not a table (relkind %s)", s.schema, sh, in.kind)
		}
		for name, oid := range types {
			if got, ok := in.cols[name]; !ok || got != oid {
				return false, fmt.Errorf("shard table %s.%s: column %s is missing or of another type (oid %d, the coordinator's %d)", s.schema, sh, name, got, oid)
			}
		}
		all = all && in.sel
	}
	return all, nil
}

// sampleClause is the TABLESAMPLE clause of the worker's i-th shard table
// under --stats db:sample=P%: SYSTEM (P) REPEATABLE (seed + shard id).
// With one seed for all, every shard table would keep the same block
// numbers (SYSTEM sampling decides each block from its number and the
// seed), so the shards' samples would move together: on a real Citus
// cluster, 32 one-page shard tables of 5,000 rows sampled at 50% gave 100
// rows. The shard id gives each shard table its own draw, still the same
// from run to run.
func (w *citusWorker) sampleClause(i int) string {
	pct := statsSample(w.s.opts.Stats)
	if pct <= 0 {
		return ""
	}
	return fmt.Sprintf(" TABLESAMPLE SYSTEM (%s) REPEATABLE (%d)", fmtPct(pct), w.s.opts.Seed+w.ids[i])
}

// shardBody is the groups query (v, n[, b]) of column c over a worker's
// shard tables: each shard table grouped on its own (the row's bytes as
// stored there), the groups of all added up.
func (w *citusWorker) shardBody(c *shardkey.ColumnInfo, shard, bytes bool) string {
	parts := make([]string, len(w.shards))
	for i, sh := range w.shards {
		parts[i] = pgGroupBody("ONLY "+quoteIdent(w.s.schema)+"."+quoteIdent(sh)+" t"+w.sampleClause(i), c, shard, bytes)
	}
	b := ""
	if shard {
		b = ", pg_catalog.sum(u.b)::pg_catalog.int8 AS b"
	}
	return "SELECT u.v, pg_catalog.sum(u.n)::pg_catalog.int8 AS n" + b + " FROM (" + strings.Join(parts, " UNION ALL ") + ") u GROUP BY 1"
}

// citusColumn computes column c's statistics on the workers ws and
// merges them (see above).
// It also returns f1, the non-NULL values on one row each.
func (s *pgSession) citusColumn(ctx context.Context, ws []*citusWorker, c *shardkey.ColumnInfo, oid uint32, sp shardSpec, bytes, disjoint bool) (*shardkey.MeasuredStats, int64, error) {
	shard := pgShardExpr(sp, oid, "g.v") != ""
	m := &shardkey.MeasuredStats{}
	var ones int64
	var parts []*shardkey.MeasuredStats
	for _, w := range ws {
		var pm *shardkey.MeasuredStats
		var pones int64
		err := w.s.pgGuard(ctx, func() error {
			var err error
			pm, pones, err = w.s.pgGroupsOf(ctx, w.shardBody(c, shard, bytes), oid, sp, bytes)
			return err
		})
		ones += pones
		if err != nil {
			return nil, 0, fmt.Errorf("worker %s: %w", w.node, err)
		}
		parts = append(parts, pm)
		m.Rows += pm.Rows
		m.Nulls += pm.Nulls
		m.Distinct += pm.Distinct
		m.Top = append(m.Top, pm.Top...)
		if pm.ShardRows != nil {
			if m.ShardRows == nil {
				m.ShardRows = make([]int64, len(pm.ShardRows))
				if pm.ShardBytes != nil {
					m.ShardBytes = make([]int64, len(pm.ShardBytes))
				}
				m.ShardEngine, m.Shards, m.ShardMethod = pm.ShardEngine, pm.Shards, pm.ShardMethod
			}
			for i, r := range pm.ShardRows {
				m.ShardRows[i] += r
			}
			for i := range m.ShardBytes {
				m.ShardBytes[i] += pm.ShardBytes[i]
			}
		}
	}
	if disjoint {
		sort.SliceStable(m.Top, func(i, j int) bool {
			a, b := m.Top[i], m.Top[j]
			if a.Rows != b.Rows {
				return a.Rows > b.Rows
			}
			return valueBefore(a.Value, b.Value)
		})
		if len(m.Top) > 10 {
			m.Top = m.Top[:10]
		}
		return m, ones, nil
	}
	// Not the distribution column: every distinct value's hash and count
	// from every worker, added by hash.
	counts := map[int64]int64{}
	for _, w := range ws {
		err := w.s.pgGuard(ctx, func() error {
			rows, err := w.s.tx.Query(ctx, ownMark+" WITH g AS ("+w.shardBody(c, false, false)+") SELECT "+pgEqHash(oid, "g.v")+", g.n FROM g WHERE g.v IS NOT NULL")
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var h, n int64
				if err := rows.Scan(&h, &n); err != nil {
					return err
				}
				counts[h] += n
			}
			return rows.Err()
		})
		if err != nil {
			return nil, 0, fmt.Errorf("worker %s: %w", w.node, err)
		}
	}
	m.Distinct = int64(len(counts))
	ones = 0
	for _, n := range counts {
		if n == 1 {
			ones++
		}
	}
	type hc struct{ h, n int64 }
	all := make([]hc, 0, len(counts))
	for h, n := range counts {
		all = append(all, hc{h, n})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].n != all[j].n {
			return all[i].n > all[j].n
		}
		return all[i].h < all[j].h
	})
	if len(all) > 10 {
		all = all[:10]
	}
	m.Top = nil
	if len(all) == 0 {
		return m, ones, nil
	}
	hashes := make([]int64, len(all))
	for i, x := range all {
		hashes[i] = x.h
	}
	names := map[int64]string{}
	f := int16(pgx.TextFormatCode)
	if pgBinary(oid) {
		f = pgx.BinaryFormatCode
	}
	for _, w := range ws {
		parts := make([]string, len(w.shards))
		for i, sh := range w.shards {
			parts[i] = "SELECT t." + quoteIdent(c.Name) + " AS v FROM ONLY " + quoteIdent(w.s.schema) + "." + quoteIdent(sh) + " t" + w.sampleClause(i)
		}
		q := ownMark + " SELECT " + pgEqHash(oid, "u.v") + ", u.v FROM (" + strings.Join(parts, " UNION ALL ") + ") u WHERE " + pgEqHash(oid, "u.v") + " OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.int8[]) GROUP BY 2"
		err := w.s.pgGuard(ctx, func() error {
			rows, err := w.s.tx.Query(ctx, q, pgx.QueryExecModeDescribeExec, pgx.QueryResultFormats{pgx.BinaryFormatCode, f}, hashes)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				raw := rows.RawValues()
				if len(raw) != 2 || len(raw[0]) != 8 || rows.FieldDescriptions()[1].DataTypeOID != oid {
					return fmt.Errorf("unexpected result shape")
				}
				var h int64
				for _, b := range raw[0] {
					h = h<<8 | int64(b)
				}
				v, err := pgValue(raw[1], oid)
				if err != nil {
					return err
				}
				names[h] = v.String()
			}
			return rows.Err()
		})
		if err != nil {
			return nil, 0, fmt.Errorf("worker %s: %w", w.node, err)
		}
	}
	for _, x := range all {
		name, ok := names[x.h]
		if !ok {
			return nil, 0, errors.New("a top value's hash was found on no worker (rows changed between the scans?)")
		}
		m.Top = append(m.Top, shardkey.ValueCount{Value: name, Rows: x.n})
	}
	sort.SliceStable(m.Top, func(i, j int) bool {
		if m.Top[i].Rows != m.Top[j].Rows {
			return m.Top[i].Rows > m.Top[j].Rows
		}
		return valueBefore(m.Top[i].Value, m.Top[j].Value)
	})
	return m, ones, nil
}

// valueBefore orders two values' text forms for the top values' ties:
// numbers by number, anything else by bytes.
func valueBefore(a, b string) bool {
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	if err1 == nil && err2 == nil && x != y {
		return x < y
	}
	return a < b
}

// citusCorrelation computes the correlation of cols with insert order
// on the workers (see above), one scan of each shard table.
func (s *pgSession) citusCorrelation(ctx context.Context, ws []*citusWorker, cols []*shardkey.ColumnInfo) error {
	const pos = "((t.ctid::pg_catalog.text::pg_catalog.point)[0] + (t.ctid::pg_catalog.text::pg_catalog.point)[1] / 65536.0)"
	sum := make([]float64, len(cols))
	weight := make([]float64, len(cols))
	for _, w := range ws {
		for k, sh := range w.shards {
			var exprs []string
			for _, c := range cols {
				x := pgNumeric(s.colType[c], "t."+quoteIdent(c.Name))
				exprs = append(exprs, "pg_catalog.corr("+x+", "+pos+")", "pg_catalog.regr_count("+x+", "+pos+")")
			}
			vals := make([]*float64, len(exprs))
			dest := make([]any, len(exprs))
			for i := range vals {
				dest[i] = &vals[i]
			}
			q := ownMark + " SELECT " + strings.Join(exprs, ", ") + " FROM ONLY " + quoteIdent(w.s.schema) + "." + quoteIdent(sh) + " t" + w.sampleClause(k)
			err := w.s.pgGuard(ctx, func() error { return w.s.tx.QueryRow(ctx, q).Scan(dest...) })
			if err != nil {
				return fmt.Errorf("worker %s: %w", w.node, err)
			}
			for i := range cols {
				r, n := vals[2*i], vals[2*i+1]
				if r == nil || *r != *r || n == nil {
					continue // a constant or empty shard: no correlation
				}
				sum[i] += *r * *n
				weight[i] += *n
			}
		}
	}
	for i, c := range cols {
		c.Measured.CorrelationDef = "Pearson's r of the value with the row's physical position in its shard table (ctid: block + offset/65536), on each shard table of the Citus workers, averaged weighted by the shards' rows"
		if weight[i] > 0 {
			c.Measured.Correlation, c.Measured.HasCorrelation = max(-1, min(1, sum[i]/weight[i])), true
		}
	}
	return nil
}

// measuredOnWorkers names the tables of cat with a column measured on
// the Citus workers.
func (s *pgSession) measuredOnWorkers(cat *shardkey.Catalog) map[string]bool {
	out := map[string]bool{}
	if s.citus == nil {
		return out
	}
	for _, t := range cat.Tables {
		if len(s.citus.shards[t.Name]) == 0 {
			continue
		}
		for _, c := range t.Columns {
			if c.Measured != nil {
				out[t.Name] = true
			}
		}
	}
	return out
}

// workerNames names, for each table measured on the Citus workers, its
// workers (host:port, in shard order).
func (s *pgSession) workerNames() map[string]string {
	out := map[string]string{}
	if s.citus == nil {
		return out
	}
	for t, shards := range s.citus.shards {
		var names []string
		seen := map[*citusNode]bool{}
		for _, sh := range shards {
			if !seen[sh.node] {
				seen[sh.node] = true
				names = append(names, sh.node.String())
			}
		}
		if s.citus.measured[t] {
			out[t] = strings.Join(names, ", ")
		}
	}
	return out
}
