// Package workload reads what a user gives shardkey into one
// shardkey.Workload: a scenario spec (built in or a file), row samples
// (CSV, TSV, JSONL, Parquet), query and transaction samples (JSONL), query
// logs or statement statistics, a schema file of CREATE TABLE statements,
// and a live database read read-only. The command line's input flags map
// one to one onto Inputs' fields, and its usage errors name them.
package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/input"
	"github.com/shardkey/shardkey/internal/progress"
	"github.com/shardkey/shardkey/livedb"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sqllog"
)

// Inputs are the sources of one workload. Either a spec (Spec or SpecFile)
// or samples (Rows, Queries, Txns, Logs, From, with Schema) are given.
type Inputs struct {
	// Spec is a parsed scenario spec (a built-in one); SpecFile a spec
	// to read (--workload). Variant applies one of the spec's variants.
	Spec     *scenario.Spec
	SpecFile string
	Variant  string
	// Rows are row samples, [TABLE=]FILE each (--rows); Queries and Txns
	// query and transaction samples (--queries, --txns); Logs query logs
	// (--log: a file, directory, glob or "-") of LogFormat ("" detects
	// it); From a live database's DSN (--from) sampled at most SampleRows
	// rows a table (0: the default); Schema a file of CREATE TABLE
	// statements (--schema).
	Rows, Queries, Txns, Logs []string
	LogFormat                 string
	From                      string
	SampleRows                int
	// Stats, StatsColumns, Engine and Shards go to livedb.Options (--stats,
	// the -k designs' key columns, --engine, --shards): where a live
	// database's statistics are computed, for which columns, and the
	// placement its per-shard sums are computed for.
	Stats        string
	StatsColumns []string
	Engine       string
	Shards       int
	Schema       string
	// Types fixes column types by name or TABLE.COLUMN (--column-type).
	Types map[string]shardkey.Type
	// Seed seeds every random choice; SeedSet says it overrides a spec's.
	Seed    int64
	SeedSet bool
	// Stdin is the log read for "-"; Stderr receives progress bars (on a
	// terminal) and a live database's notices; nil for none.
	Stdin  io.Reader
	Stderr io.Writer
	// Stream, when set, is called once the row samples are read if query
	// or transaction samples follow, no log does, and every table has its
	// rows (so nothing read later can add a table or column): the sink it
	// returns routes those samples as they are read, and the workload does
	// not keep them. A nil sink keeps them.
	Stream func(w *shardkey.Workload) (shardkey.Sink, error)
	// LogUnbounded lifts the log readers' memory budgets (the instance
	// and transaction-statement budgets and the idle-session timeout;
	// sqllog/bound.go), so that a run can be checked against one that
	// kept everything (scripts/bench-logs.sh; SHARDKEY_LOG_UNBOUNDED).
	LogUnbounded bool
}

// hasSamples reports whether in names any sample, log or database.
func (in *Inputs) hasSamples() bool {
	return len(in.Rows)+len(in.Queries)+len(in.Txns)+len(in.Logs) > 0 || in.From != ""
}

// sampleFlags names the sample flags in gives, in the order of the
// usage text ("--log", "--rows and --from", "--rows, --log and --from"),
// so that a message names the flags the user gave, not the ones they
// did not.
func (in *Inputs) sampleFlags() string {
	var f []string
	for _, x := range []struct {
		flag string
		n    int
	}{{"--rows", len(in.Rows)}, {"--queries", len(in.Queries)}, {"--txns", len(in.Txns)}, {"--log", len(in.Logs)}, {"--from", len(in.From)}} {
		if x.n > 0 {
			f = append(f, x.flag)
		}
	}
	if len(f) < 2 {
		return strings.Join(f, "")
	}
	return strings.Join(f[:len(f)-1], ", ") + " and " + f[len(f)-1]
}

// Read reads in into a workload and returns it with the directory that
// directory(col, FILE) paths of the spec's candidates are relative to
// ("" for samples). Errors name the file, line and field; a combination
// of inputs that cannot go together, and an input file that cannot be
// opened (CheckFiles), are *shardkey.UsageError.
func Read(ctx context.Context, in Inputs) (*shardkey.Workload, string, error) {
	has := in.hasSamples()
	if len(in.Types) > 0 && !has {
		return nil, "", usage("--column-type applies to files and databases read (--rows, --queries, --txns, --log, --from); a scenario spec types its columns itself")
	}
	switch {
	case in.Spec != nil:
		if in.SeedSet {
			in.Spec.Seed = in.Seed
		}
		w, err := scenario.Build(in.Spec, in.Variant)
		return w, "", err
	case in.Schema != "" && !has:
		return nil, "", usage("--schema describes the tables of --rows, --queries, --txns, --log or --from; give one of them too")
	case in.SpecFile != "" && has:
		return nil, "", usage("give either --workload or %s, not both: a --workload spec is the whole workload", in.sampleFlags())
	case in.SpecFile != "":
		if err := CheckFiles(in); err != nil {
			return nil, "", err
		}
		s, err := scenario.ReadFile(in.SpecFile)
		if err != nil {
			return nil, "", err
		}
		if in.SeedSet {
			s.Seed = in.Seed
		}
		w, err := scenario.Build(s, in.Variant)
		return w, filepath.Dir(in.SpecFile), err
	case has:
		w, err := readSamples(ctx, in)
		return w, "", err
	}
	return nil, "", usage("no workload: give --workload FILE, or --rows/--queries/--txns files (or try 'shardkey demo')")
}

// CheckFiles refuses, before anything is read, an input file of in that
// does not exist or cannot be opened (--workload, --rows, --queries,
// --txns, --log, --schema): a *shardkey.UsageError (exit status 2, as
// for -k @missing.json) whose message names the flag and the path, e.g.
// "--log /var/log/pg.log: no such file or directory". A --log directory
// must be readable and a --log pattern must match a file; "-" (standard
// input) is not checked. What is wrong inside a file is the readers' to
// say (an input error naming file, line and field).
func CheckFiles(in Inputs) error {
	if in.SpecFile != "" {
		if err := CheckFile("--workload", in.SpecFile, in.SpecFile); err != nil {
			if _, serr := os.Stat(in.SpecFile); errors.Is(serr, fs.ErrNotExist) && slices.Contains(scenario.Builtins(), in.SpecFile) {
				return usage("--workload %s: no such file; the built-in scenario %s is named without --workload (shardkey advise %s, shardkey score %s -k KEY)", in.SpecFile, in.SpecFile, in.SpecFile, in.SpecFile)
			}
			return err
		}
	}
	for _, r := range in.Rows {
		if _, file := input.TableName(r); file != "" {
			if err := CheckFile("--rows", r, file); err != nil {
				return err
			}
		}
	}
	for _, l := range []struct {
		flag  string
		files []string
	}{{"--queries", in.Queries}, {"--txns", in.Txns}} {
		for _, f := range l.files {
			if err := CheckFile(l.flag, f, f); err != nil {
				return err
			}
		}
	}
	for _, f := range in.Logs {
		if err := CheckLog("--log", f); err != nil {
			return err
		}
	}
	if in.Schema != "" {
		if err := CheckFile("--schema", in.Schema, in.Schema); err != nil {
			return err
		}
	}
	return nil
}

// CheckFile returns a usage error naming flag and arg (the flag's value,
// which names file) when file cannot be opened for reading or is a
// directory ("--workload specs: is a directory; give a file"), else nil.
func CheckFile(flag, arg, file string) error {
	if err := checkOpen(flag, arg, file); err != nil {
		return err
	}
	if st, err := os.Stat(file); err == nil && st.IsDir() {
		// As input.openInput says it, but before anything is read and
		// naming the flag: os.Open opens a directory, and its first
		// read would fail with "read specs: is a directory".
		return usage("%s %s: is a directory; give a file", flag, arg)
	}
	return nil
}

// checkOpen returns a usage error naming flag and arg when file cannot be
// opened for reading, else nil.
func checkOpen(flag, arg, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return usage("%s %s: %v", flag, arg, pathErr(err))
	}
	f.Close()
	return nil
}

// CheckLog is CheckFile for a --log value: "-" (standard input) passes; a
// value naming no file that holds *, ? or [ is a pattern, which must be
// well formed and match at least one file (as sqllog reads it); a
// directory must hold a log file.
func CheckLog(flag, arg string) error {
	if arg == "-" {
		return nil
	}
	if _, err := os.Stat(arg); err != nil && strings.ContainsAny(arg, "*?[") {
		m, gerr := filepath.Glob(arg)
		switch {
		case gerr != nil:
			return usage("%s %s: bad file pattern: %v", flag, arg, gerr)
		case len(m) == 0:
			return usage("%s %s: no files match this pattern", flag, arg)
		}
		return nil
	}
	// A --log directory is read whole (its rotated files in time order).
	if err := checkOpen(flag, arg, arg); err != nil {
		return err
	}
	st, err := os.Stat(arg)
	if err != nil {
		return nil
	}
	if st.Mode().IsRegular() && st.Size() == 0 {
		return usage("%s %s: an empty file: no statement to read", flag, arg)
	}
	if !st.IsDir() {
		return nil
	}
	files, empty, dangling, target := logFiles(arg)
	switch {
	case dangling != "":
		return usage("%s %s: %s is a symbolic link to %s, which does not exist (a --log directory is read whole as one rotated log: remove the link or restore its file)", flag, arg, dangling, target)
	case files == 0 && empty > 0:
		return usage("%s %s: a directory whose %d log file(s) are all empty: no statement to read", flag, arg, empty)
	case files == 0:
		return usage("%s %s: a directory with no log files in it (a --log directory is read as one rotated log: its regular files, names starting with a dot left out)", flag, arg)
	}
	return nil
}

// logFiles counts the files of directory dir sqllog reads as part of
// its log (regular files whose names do not start with a dot) that hold
// something (files) and that are empty, and names the first entry that
// is a symbolic link to nothing (dangling) with its target.
func logFiles(dir string) (files, empty int, dangling, target string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 1, 0, "", "" // the reader says what is wrong
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		name := filepath.Join(dir, e.Name())
		fi, err := os.Stat(name)
		switch {
		case err != nil && e.Type()&fs.ModeSymlink != 0 && errors.Is(err, fs.ErrNotExist):
			if dangling == "" {
				dangling = name
				target, _ = os.Readlink(name)
			}
		case err != nil || !fi.Mode().IsRegular():
		case fi.Size() == 0:
			empty++
		default:
			files++
		}
	}
	return files, empty, dangling, target
}

// pathErr drops the operation and path of an *fs.PathError (the message
// names them already): "no such file or directory", "permission denied".
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// readSamples reads the samples, logs and database of in, in that order:
// the database and row files give the tables, the schema their keys, then
// queries, transactions and logs the operations.
func readSamples(ctx context.Context, in Inputs) (*shardkey.Workload, error) {
	if err := distinctFiles(in.Queries, in.Txns, in.Logs); err != nil {
		return nil, err
	}
	if err := sqllog.CopiesAcross(in.Logs); err != nil {
		return nil, err
	}
	if in.Variant != "" {
		return nil, usage("--variant applies to scenario specs (--workload or demo)")
	}
	if err := CheckFiles(in); err != nil {
		return nil, err
	}
	opts := input.Options{Types: in.Types}
	w := &shardkey.Workload{Seed: in.Seed}
	opts.Warn = func(err error) { w.Warnings = append(w.Warnings, err) }
	var names []string
	if in.From != "" {
		if err := livedb.CheckDSN(in.From); err != nil {
			return nil, usage("--from: %v", err)
		}
		if err := livedb.Read(ctx, w, in.From, livedb.Options{SampleRows: in.SampleRows, Progress: in.Stderr, Notices: in.Stderr, NoStatements: len(in.Logs) > 0,
			Stats: in.Stats, StatsColumns: in.StatsColumns, Engine: in.Engine, Shards: in.Shards}); err != nil {
			return nil, fmt.Errorf("--from: %w", err)
		}
		names = append(names, livedb.Redact(in.From))
	}
	for _, r := range in.Rows {
		name, file := input.TableName(r)
		if file == "" {
			return nil, usage("--rows %q: no file after the table name", r)
		}
		if w.Table(name) != nil {
			return nil, usage("--rows: table %q given twice (name tables with NAME=FILE)", name)
		}
		t, err := input.ReadRows(file, name, opts)
		if err != nil {
			return nil, err
		}
		if t.Rows > 0 && t.Weights != nil && !slices.ContainsFunc(t.Weights[:t.Rows], func(w float64) bool { return w != 0 }) {
			// Not "no row sample": the rows are there, their shares of
			// requests are not (sim's key statistics then count rows).
			w.Warnings = append(w.Warnings, shardkey.Errorf(file, 0, "weight", "every row's weight is 0, so the rows give no share of requests: shard_load and load_ratio are unknown, and key statistics count each row once; leave the weight column out to weigh rows equally"))
		}
		w.Tables = append(w.Tables, t)
		names = append(names, file)
	}
	if in.Schema != "" {
		cat, warns, err := livedb.ReadSchema(in.Schema)
		if err != nil {
			return nil, err
		}
		w.Warnings = append(w.Warnings, warns...)
		livedb.MergeCatalog(w, cat)
		names = append(names, in.Schema)
	}
	b := input.NewBuilder(w, opts)
	if in.Stream != nil && len(in.Queries)+len(in.Txns) > 0 && len(in.Logs) == 0 && b.Frozen() {
		sink, err := in.Stream(w)
		if err != nil {
			return nil, err
		}
		b.Sink = sink
	}
	for _, f := range in.Queries {
		if err := b.ReadQueries(f); err != nil {
			return nil, err
		}
		names = append(names, f)
	}
	for _, f := range in.Txns {
		if err := b.ReadTxns(f); err != nil {
			return nil, err
		}
		names = append(names, f)
	}
	var bar io.Writer
	if in.Stderr != nil {
		bar = progress.Terminal(in.Stderr)
	}
	for _, f := range in.Logs {
		lo := sqllog.Options{Format: in.LogFormat, Types: opts.Types, Stdin: in.Stdin, Progress: bar}
		if in.LogUnbounded {
			lo.MaxInstances, lo.MaxTxnStatements, lo.MaxCountedValues, lo.IdleTimeout = math.MaxInt32, math.MaxInt32, math.MaxInt32, -1
		}
		if err := sqllog.ReadFile(ctx, w, f, lo); err != nil {
			return nil, err
		}
		if f == "-" {
			f = sqllog.StdinName // as the log's messages name it
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
			return nil, usage("--column-type %s: no such column (columns: %s)", col, ColumnList(w))
		}
	}
	return w, nil
}

// ColumnList lists w's tables with their columns, for messages.
func ColumnList(w *shardkey.Workload) string {
	var parts []string
	for _, t := range w.Tables {
		parts = append(parts, t.Name+": "+strings.Join(t.ColumnNames(), ", "))
	}
	return strings.Join(parts, "; ")
}

// distinctFiles refuses a query, transaction or log file given twice (by
// path or as two names of one file): its statements would count twice and
// every rate would double. Standard input ("-") and directories are left
// to their readers.
func distinctFiles(lists ...[]string) error {
	var all []seen
	for _, l := range lists {
		for _, arg := range l {
			for _, f := range expand(arg) {
				if err := checkSeen(&all, f); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// expand returns the files one --log (or sample) argument names: the
// regular files of a directory, the matches of a glob, or the argument;
// none for standard input. Problems are left to the readers.
func expand(arg string) []string {
	if arg == "-" {
		return nil
	}
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		ents, err := os.ReadDir(arg)
		if err != nil {
			return nil
		}
		var out []string
		for _, e := range ents {
			if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
				out = append(out, filepath.Join(arg, e.Name()))
			}
		}
		return out
	} else if err != nil && strings.ContainsAny(arg, "*?[") {
		m, _ := filepath.Glob(arg)
		return m
	}
	return []string{arg}
}

// seen is a file already named, for distinctFiles.
type seen struct {
	name string
	fi   os.FileInfo
}

// checkSeen adds file f to all, refusing one that is there already.
func checkSeen(all *[]seen, f string) error {
	fi, err := os.Stat(f)
	if err != nil || fi.IsDir() {
		return nil // the reader says what is wrong
	}
	for _, s := range *all {
		if os.SameFile(s.fi, fi) {
			if s.name == f {
				return usage("%s is given twice: its statements would be counted twice", f)
			}
			return usage("%s and %s are the same file: its statements would be counted twice", s.name, f)
		}
	}
	*all = append(*all, seen{f, fi})
	return nil
}

func usage(format string, args ...any) error {
	return &shardkey.UsageError{Msg: fmt.Sprintf(format, args...)}
}
