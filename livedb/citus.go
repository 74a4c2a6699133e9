package livedb

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/shardkey/shardkey"
)

// Citus metadata: the design a Citus coordinator runs today.
//
// Citus keeps its distribution in catalog tables its extension script
// creates in schema citus and moves to pg_catalog
// (citusdata/citus: src/backend/distributed/sql/citus--8.0-1.sql, the
// columns unchanged since):
//
//	pg_dist_partition(logicalrelid regclass, partmethod "char", partkey text,
//	                  colocationid integer, repmodel "char", ...)
//	pg_dist_shard(logicalrelid regclass, shardid bigint, shardstorage "char",
//	              shardminvalue text, shardmaxvalue text)
//
// partmethod is 'h' (hash), 'r' (range), 'a' (append) or 'n' (none: a
// reference table when repmodel is 't', else a Citus local or single-shard
// table); partkey is the distribution column as a serialised Var node
// (nodeToString), which Citus' column_to_column_name turns into a name by
// its varattno (src/backend/distributed/utils/distribution_column.c). The
// citus_tables view (src/backend/distributed/sql/udfs/citus_tables/*.sql)
// is built from the same tables. A hash table's shards split the int32
// hash space into the intervals pg_dist_shard lists (text, inclusive),
// uniform at creation (operations/create_shards.c), arbitrary after a
// split (operations/shard_split.c).
//
// The reader detects Citus by those two tables in pg_catalog, where only a
// superuser (the extension's installer) can create tables, and reads them
// directly: no view, no Citus function, so no code runs. The varattno is
// parsed here and named from pg_attribute. A database without them is
// read as before, without a word.

// citusTables are the Citus catalog tables the reader needs.
var citusTables = []string{"pg_dist_partition", "pg_dist_shard"}

// maxCitusShards bounds the pg_dist_shard rows read.
const maxCitusShards = 1 << 20

// varattno finds a Var node's attribute number in its nodeToString form
// ("{VAR :varno 1 :varattno 2 :vartype 23 ...}"); the space after it keeps
// it from matching :varattnosyn.
var varattno = regexp.MustCompile(`:varattno\s+(-?\d+)\s`)

// citusTable is one row of pg_dist_partition in the sampled schema.
type citusTable struct {
	oid        uint32
	name       string
	method     string // partmethod
	column     string // the distribution column's name; "" for none
	colocation int64
	repmodel   string
	ranges     [][2]int32
}

// distribution reads the Citus metadata, when the database has it, into
// the design it runs. tables are the tables sampled: a distribution
// column left out of them leaves its table out of the design, with a
// warning. It returns nil, nil when the database is not a Citus
// coordinator.
func (s *pgSession) distribution(ctx context.Context, tables []*shardkey.TableInfo) (*shardkey.Distribution, error) {
	var n int
	if err := s.tx.QueryRow(ctx, ownMark+`
SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'pg_catalog' AND c.relkind = 'r' AND c.relname = ANY ($1::text[])`, citusTables).Scan(&n); err != nil {
		return nil, err
	}
	if n != len(citusTables) {
		return nil, nil
	}
	// A savepoint keeps the transaction usable when the metadata cannot
	// be read (no privilege, an older layout).
	if _, err := s.tx.Exec(ctx, ownMark+" SAVEPOINT shardkey_citus"); err != nil {
		return nil, err
	}
	d, err := s.readCitus(ctx, tables)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			if _, rerr := s.tx.Exec(ctx, ownMark+" ROLLBACK TO SAVEPOINT shardkey_citus"); rerr != nil {
				return nil, rerr
			}
			return &shardkey.Distribution{System: "citus", Warnings: []string{"the Citus metadata (pg_dist_partition, pg_dist_shard) could not be read: " + pe.Message}}, nil
		}
		return nil, err
	}
	_, err = s.tx.Exec(ctx, ownMark+" RELEASE SAVEPOINT shardkey_citus")
	return d, err
}

func (s *pgSession) readCitus(ctx context.Context, tables []*shardkey.TableInfo) (*shardkey.Distribution, error) {
	var version *string
	if err := s.tx.QueryRow(ctx, ownMark+` SELECT (SELECT e.extversion::text FROM pg_catalog.pg_extension e WHERE e.extname = 'citus')`).Scan(&version); err != nil {
		return nil, err
	}
	d := &shardkey.Distribution{System: "citus"}
	if version != nil {
		d.System += " " + *version
	}
	d.System += " (pg_dist_partition, pg_dist_shard)"
	rows, err := s.tx.Query(ctx, ownMark+`
SELECT c.oid, n.nspname::text, c.relname::text, p.partmethod::text, p.partkey, p.colocationid::int8, p.repmodel::text
FROM pg_catalog.pg_dist_partition p JOIN pg_catalog.pg_class c ON c.oid = p.logicalrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
ORDER BY n.nspname, c.relname`)
	if err != nil {
		return nil, err
	}
	var cts []*citusTable
	var keys []*string
	other := 0
	for rows.Next() {
		ct := &citusTable{}
		var schema string
		var key *string
		if err := rows.Scan(&ct.oid, &schema, &ct.name, &ct.method, &key, &ct.colocation, &ct.repmodel); err != nil {
			rows.Close()
			return nil, err
		}
		if schema != s.schema {
			other++
			continue
		}
		cts = append(cts, ct)
		keys = append(keys, key)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if other > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%d distributed or reference table(s) outside schema %s are not read (name the schema with ?search_path=)", other, s.schema))
	}
	byOID := map[uint32]*citusTable{}
	for i, ct := range cts {
		byOID[ct.oid] = ct
		if ct.method != "h" || keys[i] == nil {
			continue
		}
		m := varattno.FindStringSubmatch(*keys[i] + " ")
		if m == nil {
			d.Warnings = append(d.Warnings, fmt.Sprintf("table %s: distribution column %q not understood: left out", ct.name, *keys[i]))
			ct.method = "?"
			continue
		}
		att, _ := strconv.Atoi(m[1])
		var name *string
		if err := s.tx.QueryRow(ctx, ownMark+` SELECT (SELECT a.attname::text FROM pg_catalog.pg_attribute a WHERE a.attrelid = $1 AND a.attnum = $2 AND NOT a.attisdropped)`, ct.oid, att).Scan(&name); err != nil {
			return nil, err
		}
		if name == nil {
			d.Warnings = append(d.Warnings, fmt.Sprintf("table %s: distribution column number %d not found: left out", ct.name, att))
			ct.method = "?"
			continue
		}
		ct.column = *name
	}
	prows, err := s.tx.Query(ctx, ownMark+`
SELECT c.relname::text, count(*)::int8 FROM pg_catalog.pg_dist_shard s
JOIN pg_catalog.pg_class c ON c.oid = s.logicalrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 GROUP BY 1`, s.schema)
	if err != nil {
		return nil, err
	}
	d.Placed = map[string]int{}
	for prows.Next() {
		var name string
		var n int64
		if err := prows.Scan(&name, &n); err != nil {
			prows.Close()
			return nil, err
		}
		d.Placed[name] = int(n)
	}
	prows.Close()
	if err := prows.Err(); err != nil {
		return nil, err
	}
	srows, err := s.tx.Query(ctx, ownMark+`
SELECT s.logicalrelid::oid, s.shardminvalue, s.shardmaxvalue FROM pg_catalog.pg_dist_shard s
JOIN pg_catalog.pg_dist_partition p ON p.logicalrelid = s.logicalrelid
JOIN pg_catalog.pg_class c ON c.oid = s.logicalrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND p.partmethod = 'h'
ORDER BY 1, s.shardid`, s.schema)
	if err != nil {
		return nil, err
	}
	read, bad := 0, map[string]bool{}
	for srows.Next() {
		var oid uint32
		var lo, hi *string
		if err := srows.Scan(&oid, &lo, &hi); err != nil {
			srows.Close()
			return nil, err
		}
		if read++; read > maxCitusShards {
			srows.Close()
			return nil, fmt.Errorf("pg_dist_shard: more than %d shards of hash-distributed tables", maxCitusShards)
		}
		ct := byOID[oid]
		if ct == nil || ct.method != "h" {
			continue
		}
		r, ok := [2]int32{}, lo != nil && hi != nil
		if ok {
			a, err1 := strconv.ParseInt(strings.TrimSpace(*lo), 10, 32)
			b, err2 := strconv.ParseInt(strings.TrimSpace(*hi), 10, 32)
			r, ok = [2]int32{int32(a), int32(b)}, err1 == nil && err2 == nil
		}
		if !ok {
			bad[ct.name] = true
			continue
		}
		ct.ranges = append(ct.ranges, r)
	}
	srows.Close()
	if err := srows.Err(); err != nil {
		return nil, err
	}
	citusDesign(d, cts, tables, bad)
	if _, err := s.tx.Exec(ctx, ownMark+" SAVEPOINT shardkey_placement"); err != nil {
		return nil, err
	}
	if err := s.readPlacements(ctx, d, cts); err != nil {
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			return nil, err
		}
		if _, rerr := s.tx.Exec(ctx, ownMark+" ROLLBACK TO SAVEPOINT shardkey_placement"); rerr != nil {
			return nil, rerr
		}
		s.citus = &citusPlacement{ranges: d.Ranges, measured: map[string]bool{}, why: "pg_dist_placement and pg_dist_node could not be read: " + pe.Message}
	}
	if _, err := s.tx.Exec(ctx, ownMark+" RELEASE SAVEPOINT shardkey_placement"); err != nil {
		return nil, err
	}
	return d, nil
}

// citusNode is a worker, as pg_dist_node names it.
type citusNode struct {
	group int32
	host  string
	port  int32
}

func (n *citusNode) String() string { return fmt.Sprintf("%s:%d", n.host, n.port) }

// citusShard is one shard of a table and the node of its placement.
type citusShard struct {
	id   int64
	node *citusNode
}

// citusPlacement is where a Citus coordinator's rows live: for each
// table of the sampled schema that is hash-distributed or a reference
// table, its shards (shardid order) with the node holding each, and the
// distribution column. Worker statistics (pushdown_citus.go) read it.
type citusPlacement struct {
	shards map[string][]citusShard
	column map[string]string // "" for a reference table
	ranges [][2]int32        // the design's shard intervals (Distribution.Ranges)
	why    string            // when not empty: why the placements could not be read
	// measured names the tables whose statistics the workers computed.
	measured map[string]bool
}

// citusPlacementTables are the catalog tables that say which node holds
// a shard: pg_dist_placement (citusdata/citus
// src/backend/distributed/sql/citus--7.0-1--7.0-2.sql: placementid,
// shardid, shardstate, shardlength, groupid) and pg_dist_node (nodeid,
// groupid, nodename, nodeport, noderack, hasmetadata, isactive, noderole,
// nodecluster, metadatasynced, shouldhaveshards; citus_docs
// develop/api_metadata.rst). A shard's placement is on the nodes of its
// group; shardstate 1 is a healthy placement (Citus' ShardState
// SHARD_STATE_ACTIVE, src/include/distributed/relay_utility.h).
var citusPlacementTables = []string{"pg_dist_placement", "pg_dist_node"}

// readPlacements reads, for the hash-distributed and reference tables of
// the design, the node of each shard: the active primary node of the
// lowest group among its healthy placements (a reference table's one
// shard is on every node; one is enough). Tables whose placements cannot
// be read are left out of s.citus, with d.Warnings saying why.
func (s *pgSession) readPlacements(ctx context.Context, d *shardkey.Distribution, cts []*citusTable) error {
	pl := &citusPlacement{shards: map[string][]citusShard{}, column: map[string]string{}, ranges: d.Ranges, measured: map[string]bool{}}
	s.citus = pl
	var n int
	if err := s.tx.QueryRow(ctx, ownMark+`
SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'pg_catalog' AND c.relkind = 'r' AND c.relname = ANY ($1::text[])`, citusPlacementTables).Scan(&n); err != nil {
		return err
	}
	if n != len(citusPlacementTables) {
		pl.why = "no pg_dist_placement and pg_dist_node to say which worker holds each shard"
		return nil
	}
	want := map[string]*citusTable{}
	for _, ct := range cts {
		if ct.method == "h" && ct.column != "" || ct.method == "n" && ct.repmodel == "t" {
			want[ct.name] = ct
		}
	}
	rows, err := s.tx.Query(ctx, ownMark+`
SELECT c.relname::text, s.shardid, n.groupid, n.nodename::text, n.nodeport
FROM pg_catalog.pg_dist_shard s
JOIN pg_catalog.pg_class c ON c.oid = s.logicalrelid JOIN pg_catalog.pg_namespace ns ON ns.oid = c.relnamespace
JOIN pg_catalog.pg_dist_placement p ON p.shardid = s.shardid
JOIN pg_catalog.pg_dist_node n ON n.groupid = p.groupid
WHERE ns.nspname = $1 AND p.shardstate = 1 AND n.isactive AND n.noderole::text = 'primary'
ORDER BY 1, 2, 3, n.nodeid`, s.schema)
	if err != nil {
		return err
	}
	defer rows.Close()
	nodes := map[string]*citusNode{}
	read := 0
	for rows.Next() {
		var table, host string
		var id int64
		var group, port int32
		if err := rows.Scan(&table, &id, &group, &host, &port); err != nil {
			return err
		}
		if read++; read > maxCitusShards {
			return fmt.Errorf("pg_dist_placement: more than %d placements", maxCitusShards)
		}
		ct := want[table]
		if ct == nil {
			continue
		}
		sh := pl.shards[table]
		if len(sh) > 0 && sh[len(sh)-1].id == id {
			continue // a second placement of the same shard
		}
		if ct.method == "n" && len(sh) > 0 {
			continue
		}
		key := fmt.Sprintf("%d %s:%d", group, host, port)
		node := nodes[key]
		if node == nil {
			node = &citusNode{group: group, host: host, port: port}
			nodes[key] = node
		}
		pl.shards[table] = append(sh, citusShard{id: id, node: node})
		pl.column[table] = ct.column
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for name, ct := range want {
		if ct.method == "h" && len(pl.shards[name]) != len(ct.ranges) {
			d.Warnings = append(d.Warnings, fmt.Sprintf("table %s: %d of its %d shards have a healthy placement on an active primary node (pg_dist_placement, pg_dist_node): its statistics are not read from the workers", name, len(pl.shards[name]), len(ct.ranges)))
			delete(pl.shards, name)
		}
	}
	return nil
}

// citusDesign turns the tables' metadata into d's design: hash tables
// keyed by their distribution column on the shard intervals most of them
// share, reference tables replicated, the rest unsharded, with a warning
// for each table the design cannot express as Citus has it.
func citusDesign(d *shardkey.Distribution, cts []*citusTable, tables []*shardkey.TableInfo, bad map[string]bool) {
	sampled := map[string]*shardkey.TableInfo{}
	for _, t := range tables {
		sampled[t.Name] = t
	}
	type group struct {
		key    string
		ranges [][2]int32
		tables []*citusTable
	}
	var groups []*group
	var parts []string
	var hashed []*citusTable
	for _, ct := range cts {
		t := sampled[ct.name]
		switch {
		case t == nil:
			d.Warnings = append(d.Warnings, fmt.Sprintf("table %s is in the Citus metadata but was not sampled: left out", ct.name))
			continue
		}
		switch ct.method {
		case "h":
			if bad[ct.name] || len(ct.ranges) == 0 {
				d.Warnings = append(d.Warnings, fmt.Sprintf("table %s: its shard intervals in pg_dist_shard are missing or not int32 hash values: left out", ct.name))
				continue
			}
			if !slices.ContainsFunc(t.Columns, func(c *shardkey.ColumnInfo) bool { return c.Name == ct.column }) {
				d.Warnings = append(d.Warnings, fmt.Sprintf("table %s: distribution column %q was not read (see the warnings about its columns): left out", ct.name, ct.column))
				continue
			}
			sort.Slice(ct.ranges, func(i, j int) bool { return ct.ranges[i][0] < ct.ranges[j][0] })
			key := fmt.Sprint(ct.ranges)
			i := slices.IndexFunc(groups, func(g *group) bool { return g.key == key })
			if i < 0 {
				groups = append(groups, &group{key: key, ranges: ct.ranges})
				i = len(groups) - 1
			}
			groups[i].tables = append(groups[i].tables, ct)
			hashed = append(hashed, ct)
			parts = append(parts, fmt.Sprintf("%s:hash(%s)", shardkey.QuoteName(ct.name), shardkey.QuoteName(ct.column)))
		case "n":
			if ct.repmodel == "t" {
				parts = append(parts, shardkey.QuoteName(ct.name)+":replicate")
				continue
			}
			if ct.colocation != 0 {
				d.Warnings = append(d.Warnings, fmt.Sprintf("table %s is a single-shard distributed table (no distribution column): scored as unsharded", ct.name))
			}
			// A Citus local table: on the coordinator, unsharded.
		case "r", "a":
			kind := map[string]string{"r": "range", "a": "append"}[ct.method]
			d.Warnings = append(d.Warnings, fmt.Sprintf("table %s is %s-distributed: its shard intervals are not modelled; left out (unsharded)", ct.name, kind))
		case "?":
		default:
			d.Warnings = append(d.Warnings, fmt.Sprintf("table %s: distribution method %q unknown: left out", ct.name, ct.method))
		}
	}
	d.Design = strings.Join(parts, "; ")
	if len(groups) == 0 {
		return
	}
	// One design has one shard count: the intervals most hash tables
	// share (the first such in table order on a tie).
	best := groups[0]
	for _, g := range groups[1:] {
		if len(g.tables) > len(best.tables) {
			best = g
		}
	}
	d.Ranges, d.Shards = best.ranges, len(best.ranges)
	for _, ct := range hashed {
		if fmt.Sprint(ct.ranges) != best.key {
			d.Warnings = append(d.Warnings, fmt.Sprintf("table %s has %d shards whose intervals differ from the %d of %s: it is scored on those %d", ct.name, len(ct.ranges), d.Shards, best.tables[0].name, d.Shards))
		}
	}
	colo := map[int64][]string{}
	for _, ct := range best.tables {
		colo[ct.colocation] = append(colo[ct.colocation], ct.name)
	}
	if len(colo) > 1 {
		var ids []int64
		for id := range colo {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		var gs []string
		for _, id := range ids {
			gs = append(gs, fmt.Sprintf("%d (%s)", id, strings.Join(colo[id], ", ")))
		}
		d.Warnings = append(d.Warnings, fmt.Sprintf("tables with the same shard intervals are in different colocation groups, %s: shardkey scores them co-located, but Citus does not plan a join across groups as co-located", strings.Join(gs, "; ")))
	}
}

// emptyShells finds the Citus tables of cat whose coordinator relation
// held no rows although pg_dist_shard lists shards for them (d.Placed):
// on a Citus coordinator a distributed or reference table is a shell
// whose rows live in its shards (on the workers, citusdata/citus
// src/backend/distributed/operations/create_shards.c places them there),
// so the row sample read there is empty and the shell's planner
// statistics (pg_class.reltuples, pg_stats) describe the shell. For such
// tables the row count is made unknown (RowEstimate -1) and the shell's
// column statistics are dropped; and since the per-shard row load
// cannot be known without their rows, the rows sampled from the
// database's other tables are set aside too (w's tables emptied), so no
// load figure rests on a part of the data. It returns the warning to
// give, or nil.
//
// workers names the tables whose statistics were computed on the Citus
// workers (pushdown_citus.go): their measured figures are the table's,
// not the shell's, and are kept; why, when not empty, says why the
// others could not be measured there.
func emptyShells(w *shardkey.Workload, cat *shardkey.Catalog, d *shardkey.Distribution, workers map[string]bool, why string) error {
	if d == nil || len(d.Placed) == 0 {
		return nil
	}
	var shells, measured []string
	for _, ti := range cat.Tables {
		n := d.Placed[ti.Name]
		if n == 0 || ti.SampleRows > 0 {
			continue
		}
		est := "no statistics"
		if ti.RowEstimate >= 0 {
			est = fmt.Sprintf("pg_class.reltuples %s", strconv.FormatFloat(ti.RowEstimate, 'f', -1, 64))
		}
		shells = append(shells, fmt.Sprintf("%s (%d shards; %s, 0 rows sampled)", ti.Name, n, est))
		ti.RowEstimate = -1
		if workers[ti.Name] {
			measured = append(measured, ti.Name)
			continue
		}
		for _, c := range ti.Columns {
			// --stats db measured the empty shell: its 0 distinct values
			// and 0 rows per shard are the shell's, not the table's.
			c.Stats, c.Measured = nil, nil
		}
	}
	if len(shells) == 0 {
		return nil
	}
	var aside []string
	for _, ti := range cat.Tables {
		t := w.Table(ti.Name)
		if t == nil || t.Rows == 0 {
			continue
		}
		aside = append(aside, fmt.Sprintf("%s %d rows", t.Name, t.Rows))
		for _, c := range t.Columns {
			c.Ints, c.Floats, c.Strs, c.Nulls = nil, nil, nil, nil
		}
		t.Rows, t.Weights = 0, nil
		ti.SampleRows = 0
	}
	msg := fmt.Sprintf("this is a Citus coordinator: %s hold no rows here, their coordinator tables being empty shells whose rows live in their shards on the workers; "+
		"their row sample is empty, so their skew and every per-shard row load from the sample are unknown from here, not 0",
		strings.Join(shells, ", "))
	if len(measured) > 0 {
		msg += fmt.Sprintf("; --stats db computed the key statistics of %s on the workers, over their shard tables", strings.Join(measured, ", "))
	}
	if len(measured) < len(shells) {
		if why != "" {
			msg += "; their statistics could not be computed on the workers (" + why + ")"
		}
		if len(measured) > 0 {
			msg += "; for the others,"
		} else {
			msg += ";"
		}
		msg += " read row statistics from a worker (--from a worker's DSN, whose shard tables hold the rows; --stats db measures the tables there): what --stats db measured on these shells is dropped"
	}
	if len(aside) > 0 {
		msg += fmt.Sprintf("; the rows sampled from the other tables (%s) are set aside, since a load of a part of the data would mislead", strings.Join(aside, ", "))
	}
	return errors.New(msg)
}
