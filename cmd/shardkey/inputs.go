package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/emit"
	"github.com/shardkey/shardkey/internal/gctune"
	"github.com/shardkey/shardkey/livedb"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
	"github.com/shardkey/shardkey/workload"
)

// common holds the flags every scoring command shares.
type common struct {
	// nodesFor, when set (score and demo with --slots/--nodes or a spec's
	// nodes), gives the slots' placement on nodes for w, or nil: the
	// keys are scored with it (sim.Options.Nodes), so fan-out can count
	// nodes where the engine's client addresses nodes.
	nodesFor func(w *shardkey.Workload) (*sim.Nodes, error)
	workload string
	variant  string
	rows     listFlag
	queries  listFlag
	txns     listFlag
	colTypes listFlag
	keys     listFlag
	shards   int
	capacity float64
	engine   string
	format   string
	seed     int64
	workers  int
	seedSet  bool

	// formats are the --format values the command prints (default: the
	// score document's, scoreFormats).
	formats []string
	// keysOptional: the command generates candidates itself (advise).
	keysOptional bool
	// stream: the command only scores the -k keys (score), so query and
	// transaction samples can be routed as they are read and dropped.
	stream bool

	logs       listFlag
	logFormat  string
	from       string
	sampleRows int
	stats      string
	schema     string

	// engineSet: --engine was given.
	engineSet bool
	// vindexes are the VSchema's vindex names of the tables of the keys
	// read from -k @vschema.json (sim.Options.Vindexes); nil for none.
	vindexes map[string]shardkey.VindexNames
	// fromDefault: with no -k, score the design the --from database runs
	// (score); fromCurrent: --current @from names it (advise).
	fromDefault, fromCurrent bool
	// fromBaseline: when the --from database runs a design, score it as
	// the baseline of the advice and price the reshard from it (advise
	// without --current); nothing when it runs none.
	fromBaseline bool
	// fromDesign is that design once read ("" before, or without one).
	fromDesign string
}

// fromKey is the -k (and --current) value that names the design the
// --from database runs (Citus metadata).
const fromKey = "@from"

func (c *common) register(fs *flag.FlagSet, withInputs bool) {
	if withInputs {
		fs.StringVar(&c.workload, "workload", "", "scenario spec `file` (YAML)")
		fs.Var(&c.rows, "rows", "row sample `[TABLE=]FILE` (CSV or TSV with a header, JSONL, Parquet); repeatable")
		fs.Var(&c.queries, "queries", "query sample `file` (JSONL: {\"where\": {...}, \"weight\": w}); repeatable")
		fs.Var(&c.txns, "txns", "transaction sample `file` (JSONL: {\"writes\": [{...}, ...]}); repeatable")
		fs.Var(&c.logs, "log", "query log `file`: PostgreSQL (stderr, csvlog, jsonlog), pg_stat_statements CSV, MySQL/MariaDB general or slow log; .gz or .zst; a directory or glob of rotated files (read in time order); - for standard input; repeatable")
		fs.StringVar(&c.logFormat, "log-format", "", "log `format` (default: detected)")
		fs.StringVar(&c.from, "from", "", "live database `DSN` (postgres://... or mysql://...), read-only")
		fs.IntVar(&c.sampleRows, "sample-rows", 100000, "rows sampled per table with --from")
		fs.StringVar(&c.stats, "stats", "db", "with --from, where column statistics are computed: `db` (inside the database, whole table: exact distinct, top-value and NULL counts, correlation with insert order, per-shard rows and bytes by the engine's hash for postgres and citus; on a Citus coordinator on its workers, for its own placement), db:sample=P% (the same, estimated inside the database from TABLESAMPLE SYSTEM (P) REPEATABLE (seed): PostgreSQL only) or sample (the row sample alone)")
		fs.StringVar(&c.schema, "schema", "", "schema `file.sql` of CREATE TABLE statements (PostgreSQL or MySQL): columns in order, primary and foreign keys")
		fs.Var(&c.colTypes, "column-type", "column type `COL=TYPE` (int16, int32, int64, uint64, float32, float64, text, bytes, uuid, timestamp, objectid, date, bool, extjson); repeatable")
	}
	fs.StringVar(&c.variant, "variant", "", "scenario `variant` (see the scenario's variants)")
	fs.Var(&c.keys, "k", "key `expression` or design to score, e.g. 'hash(user_id)'; @vschema.json for a Vitess VSchema's, @from for the one the --from database runs (Citus); repeatable")
	fs.Var(&c.keys, "key", "same as -k")
	fs.IntVar(&c.shards, "shards", 0, "number of `shards` (default: the workload's, else 8)")
	fs.Float64Var(&c.capacity, "capacity", -1, "per-shard `capacity` in units of work/s, > 0; the workload's when not given")
	fs.Lookup("capacity").DefValue = "0" // -1 only marks "not given": help shows no default
	fs.StringVar(&c.engine, "engine", "generic", "placement `engine` of hash keys: "+strings.Join(partition.Names(), ", "))
	fs.StringVar(&c.format, "format", "table", "output `format`: table, json or markdown")
	fs.Int64Var(&c.seed, "seed", 0, "`seed` for every random choice (default: the workload's)")
	fs.IntVar(&c.workers, "workers", 0, "goroutines per candidate (default: all cores)")
}

// validate checks flag values right after parsing.
func (c *common) validate(fs *flag.FlagSet) error {
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "seed" {
			c.seedSet = true
		}
	})
	if c.shards < 0 || c.shards > shardkey.MaxShards {
		return usageErr("--shards %d: must be in 1..%d", c.shards, shardkey.MaxShards)
	}
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "shards" })
	if set && c.shards == 0 {
		return usageErr("--shards 0: must be in 1..%d", shardkey.MaxShards)
	}
	if c.formats == nil {
		c.formats = formatNames(scoreFormats)
	}
	if !slices.Contains(c.formats, c.format) {
		return usageErr("--format %q: want %s", c.format, orList(c.formats))
	}
	if c.workers < 0 {
		return usageErr("--workers %d: must be >= 0", c.workers)
	}
	engineSet := false
	fs.Visit(func(f *flag.Flag) { engineSet = engineSet || f.Name == "engine" })
	c.engineSet = engineSet
	for i, k := range c.keys {
		if !strings.HasPrefix(k, "@") {
			continue
		}
		if k == fromKey {
			if c.from == "" {
				return usageErr("-k @from names the design the --from database runs: give --from DSN")
			}
			continue // read with the database (applyFrom)
		}
		design, err := c.readVSchema(fs, "-k", k)
		if err != nil {
			return err
		}
		c.keys[i] = design
	}
	if eng, err := partition.Lookup(c.engine); err == nil && eng.Name() == "mongodb" {
		for _, k := range c.keys {
			if k == fromKey {
				continue
			}
			if err := mongoOneHashed(k); err != nil {
				return usageErr("-k: %v", err)
			}
		}
	}
	statsSet := false
	fs.Visit(func(f *flag.Flag) { statsSet = statsSet || f.Name == "stats" })
	if statsSet && c.from == "" {
		// Not silently ignored: the figures would come from elsewhere
		// than the user asked.
		return usageErr("--stats %s: only with --from (where statistics of a live database are computed); no --from given", c.stats)
	}
	capSet := false
	fs.Visit(func(f *flag.Flag) { capSet = capSet || f.Name == "capacity" })
	// 0 is refused, not read as "none": it dropped a workload's own
	// capacity and every verdict against it without a word, and a shard
	// that can do no work is no capacity to plan against.
	if capSet && (math.IsNaN(c.capacity) || math.IsInf(c.capacity, 0) || c.capacity <= 0) {
		return usageErr("--capacity %v: must be a finite number > 0 (units of work/s one shard can do); leave it out for the workload's own, if it gives one", c.capacity)
	}
	return nil
}

// readVSchema reads the design of -k (or --current) @vschema.json, the
// design a Vitess VSchema runs today: each table keyed by its own primary
// vindex (hash(col, vindex=TYPE)). It keeps the VSchema's vindex names
// (c.vindexes), takes the engine of its vindexes when --engine is not
// given, prints its warnings, and warns of each table an explicit
// --engine does not place (its vindex does); an --engine of another
// system than Vitess is a usage error.
func (c *common) readVSchema(fs *flag.FlagSet, flagName, k string) (string, error) {
	file := strings.TrimPrefix(k, "@")
	data, err := os.ReadFile(file)
	if err != nil {
		return "", usageErr("%s %s: %v", flagName, k, err)
	}
	vs, err := emit.ReadVSchema(data)
	if err != nil {
		return "", usageErr("%s %s: %v", flagName, k, err)
	}
	for t, n := range vs.Vindexes {
		if c.vindexes == nil {
			c.vindexes = map[string]shardkey.VindexNames{}
		}
		c.vindexes[t] = n
	}
	if !c.engineSet && vs.Engine != "" {
		c.engine = vs.Engine
	}
	for _, w := range vs.Warnings {
		fmt.Fprintf(fs.Output(), "warning: %s %s: %s\n", flagName, k, w)
	}
	if c.engineSet && vs.Engine != "" {
		eng, err := partition.Lookup(c.engine)
		if err != nil {
			return "", usageErr("--engine: %v", err)
		}
		if !strings.HasPrefix(eng.Name(), "vitess") {
			return "", usageErr("%s %s: a VSchema's tables are placed by their Vitess vindexes; --engine %s is not a Vitess engine: leave --engine out, or give vitess or a vitess-* engine", flagName, k, c.engine)
		}
		tables := make([]string, 0, len(vs.Vindexes))
		for t := range vs.Vindexes {
			tables = append(tables, t)
		}
		slices.Sort(tables)
		for _, t := range tables {
			n := vs.Vindexes[t]
			if e := shardkey.VindexEngine(n.PrimaryType); e != "" && e != eng.Name() {
				fmt.Fprintf(fs.Output(), "warning: %s %s: table %s is placed by its primary vindex %s (type %s, engine %s), not by --engine %s\n", flagName, k, t, n.Primary, n.PrimaryType, e, c.engine)
			}
		}
	}
	return vs.Design, nil
}

// noInput reports whether the flags name no input (a --workload spec,
// samples, logs, a database or a schema).
func (c *common) noInput() bool {
	return c.workload == "" && len(c.rows)+len(c.queries)+len(c.txns)+len(c.logs) == 0 && c.from == "" && c.schema == ""
}

// loaded is a workload ready to score.
type loaded struct {
	w       *shardkey.Workload
	keys    []string
	keysDir string // directory that directory(col, FILE) paths are relative to
	opts    sim.Options
	// keysFromFlags says the keys came from -k, so a bad key is a usage error.
	keysFromFlags bool
	// st, when set, holds the keys' compiled schemes and what was routed
	// while the samples were read (see common.stream).
	st *sim.Stream
	// schemes, when set, are keys compiled (dropUnplaceable), in order.
	schemes []*sim.Scheme
}

// load reads the inputs the flags name (or the given spec) into a
// workload (package workload does the reading) and settles the keys,
// shards and engine to score it with.
func (c *common) load(e *env, spec *scenario.Spec) (*loaded, error) {
	types, err := columnTypes(c.colTypes)
	if err != nil {
		return nil, err
	}
	if err := livedb.CheckStats(c.stats); err != nil {
		return nil, usageErr("%v", err)
	}
	eng, err := partition.Lookup(c.engine)
	if err != nil {
		return nil, usageErr("--engine: %v", err)
	}
	if len(c.logs) > 0 && len(c.rows) == 0 && c.from == "" && os.Getenv("GOMEMLIMIT") == "" && os.Getenv("SHARDKEY_LOG_UNBOUNDED") == "" {
		// What a log reader keeps is bounded by its budgets (sqllog/
		// bound.go); a soft limit makes the collector work harder near it
		// rather than let the heap grow to twice what is live, so that
		// peak RSS stays under the 512 MB a log of any size is promised
		// (docs/performance.md). Not with row files or a database, whose
		// samples may be larger than the limit.
		debug.SetMemoryLimit(logMemoryLimit)
	}
	if c.stream && len(c.rows) > 0 {
		// score keeps the row samples it reads and little else: no
		// collection until the Go heap reaches scoreGCDefer, the
		// default target after one finds a quarter of it live
		// (internal/gctune; GOGC or GOMEMLIMIT set by the user win).
		gctune.Defer(scoreGCDefer)
	}
	var st *sim.Stream
	in := workload.Inputs{Spec: spec, SpecFile: c.workload, Variant: c.variant,
		Rows: c.rows, Queries: c.queries, Txns: c.txns, Logs: c.logs, LogFormat: c.logFormat,
		From: c.from, SampleRows: c.sampleRows, Schema: c.schema, Types: types,
		Seed: c.seed, SeedSet: c.seedSet, Stdin: e.stdin, Stderr: e.stderr,
		Stats: c.stats, StatsColumns: keyColumns(c.keys), Engine: eng.Name(),
		// A benchmark's check, not a user's switch: a run that keeps
		// everything, to compare a bounded one with (docs/performance.md).
		LogUnbounded: os.Getenv("SHARDKEY_LOG_UNBOUNDED") != ""}
	if c.from != "" {
		// The shard count the per-shard sums are computed for: the one
		// setShards will settle on (a spec's own count, which only a
		// spec given with --from would change, is not known yet).
		var scratch shardkey.Workload
		c.setShards(&scratch)
		in.Shards = scratch.Shards
	}
	if c.stream && len(c.keys) > 0 {
		// Score only routes the -k keys: queries and transactions can be
		// routed while they are read, and dropped.
		in.Stream = func(w *shardkey.Workload) (shardkey.Sink, error) {
			var err error
			st, err = c.compileStream(w)
			return st, err
		}
	}
	w, keysDir, err := workload.Read(e.ctx, in)
	if err != nil {
		return nil, err
	}
	if err := c.applyFrom(w); err != nil {
		return nil, err
	}
	// -k @from may have set the engine the database runs (Citus).
	if eng, err = partition.Lookup(c.engine); err != nil {
		return nil, usageErr("--engine: %v", err)
	}
	if c.capacity >= 0 {
		w.Capacity = c.capacity
	}
	c.setShards(w)
	keys := []string(c.keys)
	dir := ""
	if len(keys) == 0 {
		keys = w.Candidates
		dir = keysDir
	}
	if len(keys) == 0 && !c.keysOptional {
		return nil, usageErr("no keys to score: name them with -k 'hash(col)' (columns: %s)", columnList(w))
	}
	nodes, err := c.nodes(w)
	if err != nil {
		return nil, err
	}
	return &loaded{w: w, keys: keys, keysDir: dir, keysFromFlags: len(c.keys) > 0, st: st, opts: sim.Options{Shards: w.Shards, Engine: eng, Dir: dir, Workers: c.workers, Vindexes: c.vindexes, Nodes: nodes}}, nil
}

// dropUnplaceable compiles the workload's own candidates (a spec's
// candidates:, scored when no -k is given) and leaves out, with a warning
// naming the spec's line, those the engine cannot place (a reference
// table under Redis Cluster, a two-column key under Citus), as advise
// does: the spec names candidates for any engine, and scoring it under
// one should score what that engine can place. It fails as compileKeys
// does when none compiles (the first one's error), and keeps the schemes
// it compiled for scoreAll.
func (l *loaded) dropUnplaceable(e *env) error {
	if l.keysFromFlags || l.st != nil || len(l.keys) == 0 {
		return nil
	}
	var keys []string
	var schemes []*sim.Scheme
	var errs []error
	for _, k := range l.keys {
		s, err := compileKeys(l.w, []string{k}, l.opts, false)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		keys = append(keys, k)
		schemes = append(schemes, s[0])
	}
	if len(keys) == 0 {
		return errs[0] // none to score: the first one's error, as without the others
	}
	for _, err := range errs {
		werr := fmt.Errorf("%w; this candidate is skipped, the others scored", err)
		fmt.Fprintf(e.stderr, "warning: %v\n", werr)
		l.w.Warnings = append(l.w.Warnings, werr) // into every format (report.NewScore)
	}
	l.keys, l.schemes = keys, schemes
	return nil
}

// nodes returns the slots' placement on nodes for w (nodesFor), or nil.
func (c *common) nodes(w *shardkey.Workload) (*sim.Nodes, error) {
	if c.nodesFor == nil {
		return nil, nil
	}
	m, err := c.nodesFor(w)
	if err == nil && m != nil && w.Nodes > 0 && w.Shards != partition.RedisSlots && isRedis(c.engine) {
		// A spec's nodes: M makes its shards slots (nodeFlags.fromWorkload).
		return nil, fmt.Errorf("%s: shards: %d with nodes: %d under --engine redis: Redis Cluster always has %d hash slots (a key's slot is CRC16(key) mod %d, cluster.c keyHashSlot); give shards: %d, or --slots %d --nodes %d", w.Name, w.Shards, w.Nodes, partition.RedisSlots, partition.RedisSlots, partition.RedisSlots, partition.RedisSlots, w.Nodes)
	}
	return m, err
}

// applyFrom puts the design the --from database runs (its Citus
// metadata, w.Catalog.Distribution) where -k @from or --current @from
// names it, or in place of the missing -k of score; the engine becomes
// Citus' on the database's shard intervals (partition.CitusEngine) unless
// --engine is given, and the shard count the database's unless --shards
// is. Which design came from the database is said on stderr and in the
// report's warnings. It does nothing the second time.
func (c *common) applyFrom(w *shardkey.Workload) error {
	if c.fromDesign != "" {
		return nil
	}
	named := slices.Contains(c.keys, fromKey) || c.fromCurrent
	var d *shardkey.Distribution
	if w.Catalog != nil {
		d = w.Catalog.Distribution
	}
	baseline := c.fromBaseline && d != nil && d.Design != ""
	if !named && !baseline && !(c.fromDefault && len(c.keys) == 0 && d != nil && d.Design != "") {
		return nil
	}
	if d == nil {
		return usageErr("@from names the design the --from database runs, but %s keeps no Citus metadata (pg_dist_partition)", livedb.Redact(c.from))
	}
	if d.Design == "" {
		return usageErr("@from: the Citus metadata of %s distributes no table of the sampled schema", livedb.Redact(c.from))
	}
	c.fromDesign = d.Design
	for i, k := range c.keys {
		if k == fromKey {
			c.keys[i] = d.Design
		}
	}
	if len(c.keys) == 0 && !c.fromCurrent && !c.fromBaseline {
		c.keys = append(c.keys, d.Design)
	}
	engine := c.engine
	if !c.engineSet && d.Shards > 0 {
		spec, err := partition.CitusEngine(d.Ranges)
		if err != nil {
			return fmt.Errorf("%s: Citus metadata: pg_dist_shard: %w", livedb.Redact(c.from), err)
		}
		c.engine, engine = spec, spec
	}
	shards := d.Shards
	switch {
	case d.Shards == 0:
	case c.shards == 0:
		w.Shards = d.Shards
	case c.shards != d.Shards:
		shards = c.shards
		w.Warnings = append(w.Warnings, fmt.Errorf("--shards %d: the database's hash-distributed tables have %d shards", c.shards, d.Shards))
	}
	note := fmt.Errorf("the design scored as @from is the one %s runs, from its %s: %s, engine %s, %d shards", livedb.Redact(c.from), d.System, d.Design, engine, shards)
	if baseline && !named {
		note = fmt.Errorf("the design in use, scored as the advice's baseline and priced as the reshard's source, is the one %s runs, from its %s: %s, engine %s, %d shards", livedb.Redact(c.from), d.System, d.Design, engine, shards)
	}
	w.Warnings = append(w.Warnings, note)
	return nil
}

// setShards sets w's shard count from --shards, else from the engine's
// named server pool (ketama or ring with servers=), else keeps the
// workload's, else 8.
func (c *common) setShards(w *shardkey.Workload) {
	if c.shards > 0 {
		w.Shards = c.shards
		return
	}
	if eng, err := partition.Lookup(c.engine); err == nil {
		if p, ok := eng.(partition.Pool); ok && len(p.ServerNames()) > 0 {
			w.Shards = len(p.ServerNames())
		}
	}
	if w.Shards == 0 {
		w.Shards = 8
	}
}

// compileStream compiles the -k keys against w's tables for streaming.
func (c *common) compileStream(w *shardkey.Workload) (*sim.Stream, error) {
	if err := c.applyFrom(w); err != nil {
		return nil, err
	}
	c.setShards(w)
	eng, err := partition.Lookup(c.engine)
	if err != nil {
		return nil, usageErr("--engine: %v", err)
	}
	// A costly engine's memos number their key columns' values: on all
	// cores at once here, rather than one column after another as each
	// key compiles.
	sim.PrepareMemos(w, eng, keyColumns(c.keys))
	nodes, err := c.nodes(w)
	if err != nil {
		return nil, err
	}
	schemes, err := compileKeys(w, c.keys, sim.Options{Shards: w.Shards, Engine: eng, Workers: c.workers, Vindexes: c.vindexes, Nodes: nodes}, true)
	if err != nil {
		return nil, err
	}
	return sim.NewStream(schemes), nil
}

// compileKeys compiles keys in order, so the first bad key is the one
// reported.
func compileKeys(w *shardkey.Workload, keys []string, o sim.Options, fromFlags bool) ([]*sim.Scheme, error) {
	schemes := make([]*sim.Scheme, len(keys))
	for i, k := range keys {
		d, err := shardkey.ParseDesign(k)
		if err == nil {
			schemes[i], err = sim.Compile(w, d, o)
		}
		if err != nil {
			if fromFlags {
				return nil, keyErr(err)
			}
			// A candidate of the spec: bad input at its line (as a spec
			// candidate whose lookup names no column is), the column it
			// names in err.
			return nil, shardkey.Errorf(w.Source, w.CandidateLines[k], "candidates", "%w", err)
		}
	}
	return schemes, nil
}

// keyErr classifies an error compiling a -k key: a problem in a file the
// key names (a directory file) is an input error (exit 1); anything else
// about the key itself (syntax, a missing column) is a usage error (exit 2).
func keyErr(err error) error {
	var ie *shardkey.InputError
	if errors.As(err, &ie) {
		return fmt.Errorf("-k: %w", err)
	}
	return usageErr("-k: %v", err)
}

func columnList(w *shardkey.Workload) string { return workload.ColumnList(w) }

// scoreAll scores every key of l and returns them in l's order. Keys are
// compiled first, in order, so the first bad key is the one reported;
// scoring then runs concurrently, since each candidate has sequential
// parts (key statistics) that overlap with another's parallel routing.
func scoreAll(l *loaded) ([]*sim.Candidate, error) {
	var schemes []*sim.Scheme
	if l.st != nil {
		schemes = l.st.Schemes
	} else if l.schemes != nil {
		schemes = l.schemes
	} else {
		var err error
		if schemes, err = compileKeys(l.w, l.keys, l.opts, l.keysFromFlags); err != nil {
			return nil, err
		}
	}
	out := make([]*sim.Candidate, len(schemes))
	errs := make([]error, len(schemes))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, s := range schemes {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			var p *sim.Partial
			var err error
			if l.st != nil {
				p, err = l.st.Total(i, l.opts.Workers)
			} else {
				p, err = sim.Run(l.w, s, l.opts.Workers)
			}
			if err != nil {
				errs[i] = err
				return
			}
			out[i] = s.Report(p)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// keyColumns returns the columns the designs keys name (TABLE.COLUMN for
// a table's own key, COLUMN for a default key), for the statistics a live
// database computes; nil (every column) when there are no keys or one
// does not parse (the error is reported when it is scored).
func keyColumns(keys []string) []string {
	var out []string
	for _, k := range keys {
		d, err := shardkey.ParseDesign(k)
		if err != nil {
			return nil
		}
		if d.Default != nil {
			out = append(out, d.Default.Columns()...)
		}
		for t, e := range d.Tables {
			for _, c := range e.Columns() {
				out = append(out, t+"."+c)
			}
		}
	}
	return out
}

// mongoOneHashed refuses, when the key is parsed, a hash of several
// columns under --engine mongodb: a MongoDB hashed shard key hashes one
// field (src/mongo/db/s/shardkey_pattern.cpp, ShardKeyPattern: at most
// one "hashed" field), so hash(a, b) cannot be placed there; it names the
// patterns MongoDB takes instead. A key that does not parse is left to
// the caller's parse (its error names the position).
func mongoOneHashed(k string) error {
	d, err := shardkey.ParseDesign(k)
	if err != nil {
		return nil
	}
	exprs := []shardkey.Expr{d.Default}
	for _, t := range d.Order {
		exprs = append(exprs, d.Tables[t])
	}
	for _, e := range exprs {
		for e != nil {
			switch m := e.(type) {
			case *shardkey.SaltExpr:
				e = m.Inner
				continue
			case *shardkey.IsolateExpr:
				e = m.Inner
				continue
			case *shardkey.HashExpr:
				if len(m.Cols) > 1 {
					a, rest := shardkey.QuoteName(m.Cols[0]), m.Cols[1:]
					var asc, ranged []string
					for _, c := range rest {
						asc = append(asc, shardkey.QuoteName(c)+": 1")
					}
					for _, c := range m.Cols[:len(m.Cols)-1] {
						ranged = append(ranged, shardkey.QuoteName(c)+": 1")
					}
					last := shardkey.QuoteName(m.Cols[len(m.Cols)-1])
					return fmt.Errorf("key %q: %s: a MongoDB hashed shard key takes one field, not %d; write {%s: \"hashed\", %s} (hashes %s, orders by the rest) or {%s, %s: \"hashed\"} (a compound hashed key, MongoDB 4.4+)",
						k, m, len(m.Cols), a, strings.Join(asc, ", "), m.Cols[0], strings.Join(ranged, ", "), last)
				}
			}
			break
		}
	}
	return nil
}

// logMemoryLimit is the Go runtime's soft memory limit while reading
// logs (runtime/debug.SetMemoryLimit; GOMEMLIMIT overrides it): 400 MiB
// of Go memory, under the 512 MB peak RSS promised for a log of any size.
const logMemoryLimit = 400 << 20

// scoreGCDefer is the Go memory score reaches, when it reads row files,
// before its first collection (gctune.Defer): seed 000's 2 M rows, 1 M
// queries and 0.5 M transactions allocate about 230 MB in all, and
// collecting five times while they were read cost about 8% of the run's
// CPU (docs/performance.md, "Eighth session").
const scoreGCDefer = 512 << 20
