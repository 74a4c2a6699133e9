package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/emit"
	"github.com/shardkey/shardkey/input"
	"github.com/shardkey/shardkey/internal/progress"
	"github.com/shardkey/shardkey/livedb"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
	"github.com/shardkey/shardkey/sqllog"
)

// common holds the flags every scoring command shares.
type common struct {
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
	schema     string
}

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
		fs.StringVar(&c.schema, "schema", "", "schema `file.sql` of CREATE TABLE statements (PostgreSQL or MySQL): columns in order, primary and foreign keys")
		fs.Var(&c.colTypes, "column-type", "column type `COL=TYPE` (int16, int32, int64, uint64, float32, float64, text, bytes, uuid, timestamp, objectid, date, bool, extjson); repeatable")
	}
	fs.StringVar(&c.variant, "variant", "", "scenario `variant` (see the scenario's variants)")
	fs.Var(&c.keys, "k", "key `expression` or design to score, e.g. 'hash(user_id)'; repeatable")
	fs.Var(&c.keys, "key", "same as -k")
	fs.IntVar(&c.shards, "shards", 0, "number of `shards` (default: the workload's, else 8)")
	fs.Float64Var(&c.capacity, "capacity", -1, "per-shard `capacity` in units of work/s; the workload's when not given")
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
	for i, k := range c.keys {
		file, ok := strings.CutPrefix(k, "@")
		if !ok {
			continue
		}
		// -k @vschema.json: the design a Vitess VSchema runs today.
		data, err := os.ReadFile(file)
		if err != nil {
			return usageErr("-k %s: %v", k, err)
		}
		vs, err := emit.ReadVSchema(data)
		if err != nil {
			return usageErr("-k %s: %v", k, err)
		}
		c.keys[i] = vs.Design
		if !engineSet && vs.Engine != "" {
			c.engine = vs.Engine
		}
		for _, w := range vs.Warnings {
			fmt.Fprintf(fs.Output(), "warning: -k %s: %s\n", k, w)
		}
	}
	capSet := false
	fs.Visit(func(f *flag.Flag) { capSet = capSet || f.Name == "capacity" })
	if capSet && (math.IsNaN(c.capacity) || math.IsInf(c.capacity, 0) || c.capacity < 0) {
		return usageErr("--capacity %v: must be a finite number >= 0 (units of work/s per shard; 0 for none)", c.capacity)
	}
	return nil
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
}

// load reads the inputs the flags name (or the given spec) into a workload.
func (c *common) load(e *env, spec *scenario.Spec) (*loaded, error) {
	var w *shardkey.Workload
	var st *sim.Stream
	keysDir := ""
	hasSamples := len(c.rows)+len(c.queries)+len(c.txns)+len(c.logs) > 0 || c.from != ""
	types, err := columnTypes(c.colTypes)
	if err != nil {
		return nil, err
	}
	if len(types) > 0 && !hasSamples {
		return nil, usageErr("--column-type applies to files and databases read (--rows, --queries, --txns, --log, --from); a scenario spec types its columns itself")
	}
	switch {
	case spec != nil:
		if c.seedSet {
			spec.Seed = c.seed
		}
		var err error
		if w, err = scenario.Build(spec, c.variant); err != nil {
			return nil, err
		}
	case c.schema != "" && !hasSamples:
		return nil, usageErr("--schema describes the tables of --rows, --queries, --txns, --log or --from; give one of them too")
	case c.workload != "" && hasSamples:
		return nil, usageErr("give either --workload or --rows/--queries/--txns, not both")
	case c.workload != "":
		s, err := scenario.ReadFile(c.workload)
		if err != nil {
			return nil, err
		}
		if c.seedSet {
			s.Seed = c.seed
		}
		if w, err = scenario.Build(s, c.variant); err != nil {
			return nil, err
		}
		keysDir = filepath.Dir(c.workload)
	case hasSamples:
		if err := distinctFiles(c.queries, c.txns, c.logs); err != nil {
			return nil, err
		}
		if c.variant != "" {
			return nil, usageErr("--variant applies to scenario specs (--workload or demo)")
		}
		opts := input.Options{Types: types}
		w = &shardkey.Workload{Seed: c.seed}
		opts.Warn = func(err error) { w.Warnings = append(w.Warnings, err) }
		var names []string
		if c.from != "" {
			if err := livedb.CheckDSN(c.from); err != nil {
				return nil, usageErr("--from: %v", err)
			}
			if err := livedb.Read(e.ctx, w, c.from, livedb.Options{SampleRows: c.sampleRows, Progress: e.stderr, Notices: e.stderr, NoStatements: len(c.logs) > 0}); err != nil {
				return nil, fmt.Errorf("--from: %w", err)
			}
			names = append(names, livedb.Redact(c.from))
		}
		for _, r := range c.rows {
			name, file := input.TableName(r)
			if file == "" {
				return nil, usageErr("--rows %q: no file after the table name", r)
			}
			if w.Table(name) != nil {
				return nil, usageErr("--rows: table %q given twice (name tables with NAME=FILE)", name)
			}
			t, err := input.ReadRows(file, name, opts)
			if err != nil {
				return nil, err
			}
			w.Tables = append(w.Tables, t)
			names = append(names, file)
		}
		if c.schema != "" {
			cat, err := livedb.ReadSchema(c.schema)
			if err != nil {
				return nil, err
			}
			livedb.MergeCatalog(w, cat)
			names = append(names, c.schema)
		}
		b := input.NewBuilder(w, opts)
		if c.stream && len(c.keys) > 0 && len(c.queries)+len(c.txns) > 0 && len(c.logs) == 0 && b.Frozen() {
			// Every table has its rows and nothing read later can add a
			// table or column (logs can): compile the keys now and route
			// queries and transactions while they are read.
			var err error
			if st, err = c.compileStream(w); err != nil {
				return nil, err
			}
			b.Sink = st
		}
		for _, f := range c.queries {
			if err := b.ReadQueries(f); err != nil {
				return nil, err
			}
			names = append(names, f)
		}
		for _, f := range c.txns {
			if err := b.ReadTxns(f); err != nil {
				return nil, err
			}
			names = append(names, f)
		}
		for _, f := range c.logs {
			if err := sqllog.ReadFile(e.ctx, w, f, sqllog.Options{Format: c.logFormat, Types: opts.Types, Stdin: e.stdin, Progress: progress.Terminal(e.stderr)}); err != nil {
				return nil, err
			}
			names = append(names, f)
		}
		w.Name = strings.Join(names, " + ")
		if err := w.Validate(); err != nil {
			return nil, err
		}
		for col := range opts.Types {
			found := false
			for _, t := range w.Tables {
				found = found || t.Column(col) != nil || strings.HasPrefix(col, t.Name+".") && t.Column(strings.TrimPrefix(col, t.Name+".")) != nil
			}
			if !found {
				return nil, usageErr("--column-type %s: no such column (columns: %s)", col, columnList(w))
			}
		}
	default:
		return nil, usageErr("no workload: give --workload FILE, or --rows/--queries/--txns files (or try 'shardkey demo')")
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
	eng, err := partition.Lookup(c.engine)
	if err != nil {
		return nil, usageErr("--engine: %v", err)
	}
	return &loaded{w: w, keys: keys, keysDir: dir, keysFromFlags: len(c.keys) > 0, st: st, opts: sim.Options{Shards: w.Shards, Engine: eng, Dir: dir, Workers: c.workers}}, nil
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
	c.setShards(w)
	eng, err := partition.Lookup(c.engine)
	if err != nil {
		return nil, usageErr("--engine: %v", err)
	}
	schemes, err := compileKeys(w, c.keys, sim.Options{Shards: w.Shards, Engine: eng, Workers: c.workers}, true)
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
			return nil, fmt.Errorf("%s: candidates: %w", w.Source, err)
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

func columnList(w *shardkey.Workload) string {
	var parts []string
	for _, t := range w.Tables {
		parts = append(parts, t.Name+": "+strings.Join(t.ColumnNames(), ", "))
	}
	return strings.Join(parts, "; ")
}

// scoreAll scores every key of l and returns them in l's order. Keys are
// compiled first, in order, so the first bad key is the one reported;
// scoring then runs concurrently, since each candidate has sequential
// parts (key statistics) that overlap with another's parallel routing.
func scoreAll(l *loaded) ([]*sim.Candidate, error) {
	var schemes []*sim.Scheme
	if l.st != nil {
		schemes = l.st.Schemes
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

// distinctFiles refuses a query, transaction or log file given twice (by
// path or as two names of one file): its statements would count twice and
// every rate would double. Standard input ("-") and patterns are left to
// their readers.
func distinctFiles(lists ...[]string) error {
	type seen struct {
		name string
		fi   os.FileInfo
	}
	var all []seen
	for _, l := range lists {
		for _, f := range l {
			if f == "-" {
				continue
			}
			fi, err := os.Stat(f)
			if err != nil || fi.IsDir() {
				continue // the reader says what is wrong, or reads the directory
			}
			for _, s := range all {
				if os.SameFile(s.fi, fi) {
					if s.name == f {
						return usageErr("%s is given twice: its statements would be counted twice", f)
					}
					return usageErr("%s and %s are the same file: its statements would be counted twice", s.name, f)
				}
			}
			all = append(all, seen{f, fi})
		}
	}
	return nil
}
