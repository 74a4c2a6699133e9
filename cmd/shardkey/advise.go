package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	skreport "github.com/shardkey/shardkey/report"

	"github.com/shardkey/shardkey/internal/buildinfo"
	"github.com/shardkey/shardkey/internal/jsonnull"
	"github.com/shardkey/shardkey/internal/numfmt"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/emit"
	"github.com/shardkey/shardkey/livedb"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/reshard"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
)

func runAdvise(e *env, args []string) error {
	fs := flag.NewFlagSet("advise", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var c common
	c.register(fs, true)
	fs.Lookup("format").Usage = "output `format`: table, json, markdown or html"
	sweep := fs.String("sweep", "4,8,16,32,64,128,256", "shard `counts` to score the recommended key at (\"\" for none); a key of few values adds the counts near --shards that divide them")
	emitFmt := fs.String("emit", "", "also write the chosen design as the engine's own `configuration`: "+strings.Join(emit.Formats(), ", ")+"; scored with that system's engine (citus, vitess, mongodb, cockroachdb: the default without --engine; another --engine is an error)")
	dirsOut := fs.String("write-directories", "", "write the directory files the proposed designs name (directory(col, FILE): a place-values fix's map of each value to its shard, lines value,shard) into `dir`, so that shardkey score -k 'directory(col, DIR/FILE)' re-scores them")
	boot := fs.Int("bootstrap", 20, "bootstrap `replicates` for 95% confidence intervals of the recommended key (0 for none)")
	var rf reshardFlags // --current, --row-bytes, --copy-rate (reshard.go)
	rf.register(fs)
	var nf nodeFlags // --slots, --nodes, --slot-map, --grow-to (nodes.go); --row-bytes is rf's
	nf.registerPlacement(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: shardkey advise [inputs | social|orders|chat|workspace [--variant V]] [flags]

Generates candidate keys from the workload, scores them, recommends one,
explains the trade-off, and proposes (and re-simulates) the fixes for what
the chosen key costs. With no input it advises on the built-in social
scenario (shardkey demo social --print shows it).

--emit FORMAT also writes the chosen design as that system's configuration
(Citus DDL, a Vitess VSchema, MongoDB shardCollection calls, CockroachDB
DDL). Its figures must be that system's, so the keys are scored with its
engine: without --engine, citus, vitess, mongodb or cockroachdb (said in a
warning); an --engine of another system is a usage error (citus accepts
citus(...), vschema any vitess-* engine).

--write-directories DIR writes the directory files the proposed designs
name: a fix that places a hash key's few values one by one is the design
directory(col, COL-placement.csv), and the file is its map (value,shard
lines, the format directory() reads; also the fix's "placement" in JSON).
It prints the command that re-scores each: shardkey score with the same
inputs, --engine and --shards (or --slots and --nodes), and
-k 'directory(col, DIR/COL-placement.csv)'.

Examples:
  shardkey advise
  shardkey advise --workload orders.yaml --format html > advice.html
  shardkey advise --log postgresql.log --from postgres://localhost/app
  shardkey advise --log postgresql.log --emit citus > advice.txt

Flags:
`)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErr("unexpected argument %q", pos[1])
	}
	c.formats = []string{"table", "json", "markdown", "html"}
	if *emitFmt != "" && !slices.Contains(emit.Formats(), *emitFmt) {
		return usageErr("--emit %q: want one of %s", *emitFmt, strings.Join(emit.Formats(), ", "))
	}
	// What --emit writes places keys by its system's function: the
	// figures must be that system's. An --engine of another system is a
	// usage error; without --engine, the keys are scored with the
	// system's engine (before validate, which checks -k under it).
	emitEngine := ""
	if *emitFmt != "" {
		engineSet := false
		fs.Visit(func(f *flag.Flag) { engineSet = engineSet || f.Name == "engine" })
		if engineSet && !emit.Places(*emitFmt, c.engine) {
			return usageErr("--emit %s with --engine %s: the configuration --emit %s writes places keys as --engine %s does, so figures scored under --engine %s would not be the emitted design's: give --engine %s (options allowed) or leave --engine out to score with %s",
				*emitFmt, c.engine, *emitFmt, emit.Engine(*emitFmt), c.engine, emit.EngineNames(*emitFmt), emit.Engine(*emitFmt))
		}
		if !engineSet {
			c.engine, emitEngine = emit.Engine(*emitFmt), emit.Engine(*emitFmt)
		}
	}
	if err := c.validate(fs); err != nil {
		return err
	}
	if err := rf.validate(c.format); err != nil {
		return err
	}
	if err := nf.validate(&c, fs); err != nil {
		return err
	}
	nf.rowBytes = rf.rowBytes // one --row-bytes prices growth and reshards alike
	var spec *scenario.Spec
	noInput := c.noInput()
	if len(pos) == 1 && !noInput {
		return usageErr("give a built-in scenario name or inputs, not both")
	}
	if noInput {
		name := "social"
		if len(pos) == 1 {
			name = pos[0]
		}
		if spec, err = scenario.Builtin(name); err != nil {
			return usageErr("%v", err)
		}
		if c.variant != "" {
			if _, err := spec.Variant(c.variant); err != nil {
				return usageErr("--variant: %v", err)
			}
		}
	}
	c.keysOptional = true
	c.fromCurrent = rf.current == fromKey
	// Without --current, a --from database that runs a design (Citus) is
	// compared with: its design is the baseline and the reshard's source.
	c.fromBaseline = rf.current == "" && c.from != ""
	if c.fromCurrent && c.from == "" {
		return usageErr("--current @from names the design the --from database runs: give --from DSN")
	}
	if strings.HasPrefix(rf.current, "@") && !c.fromCurrent {
		// --current @vschema.json: the design a Vitess VSchema runs,
		// each table by its own primary vindex, as -k reads it.
		if rf.current, err = c.readVSchema(fs, "--current", rf.current); err != nil {
			return err
		}
	}
	if rf.current != "" && !c.fromCurrent {
		// The design in use is checked as -k keys are: its syntax, and
		// under MongoDB its hashed fields, before any input is read.
		if _, err := shardkey.ParseDesign(rf.current); err != nil {
			return usageErr("--current: %v", err)
		}
		if eng, err := partition.Lookup(c.engine); err == nil && eng.Name() == "mongodb" {
			if err := mongoOneHashed(rf.current); err != nil {
				return usageErr("--current: %v", err)
			}
		}
	}
	l, err := c.load(e, spec)
	if err != nil {
		return err
	}
	if *emitFmt != "" {
		// -k @vschema.json and --from a Citus coordinator set the engine
		// themselves, when --engine is not given.
		name := l.opts.Engine.Name()
		if !emit.Places(*emitFmt, name) {
			return usageErr("--emit %s: the keys are scored with engine %s, the placement of the design read from %s, but the configuration --emit %s writes places keys as --engine %s does: give --engine %s, or another --emit",
				*emitFmt, name, designSource(&c), *emitFmt, emit.Engine(*emitFmt), emit.EngineNames(*emitFmt))
		}
		if emitEngine != "" && c.engine == emitEngine {
			l.w.Warnings = append(l.w.Warnings, fmt.Errorf("--emit %s: no --engine given, so the keys are scored with --engine %s, the placement the emitted configuration gets", *emitFmt, emitEngine))
		}
	}
	if c.fromCurrent {
		rf.current = c.fromDesign
	} else if rf.current != "" {
		// Its columns, against the workload read: a key naming no
		// column is the flag's error, not a candidate left unscored.
		d, _ := shardkey.ParseDesign(rf.current)
		if _, err := sim.Compile(l.w, d, l.opts); err != nil {
			return usageErr("--current: %v", err)
		}
	}
	inUse, inUseLabel := "", "in use (from pg_dist_partition)"
	switch {
	case c.fromDesign != "" && (c.fromCurrent || c.fromBaseline):
		inUse = c.fromDesign
		if c.fromBaseline && c.format != "html" {
			rf.current = c.fromDesign // the HTML page has no reshard section
		}
	case rf.current != "":
		// --current DESIGN: the design the user runs today, said on the
		// command line, is the baseline as a database's would be.
		inUse, inUseLabel = rf.current, "in use (--current)"
	}
	var counts []int
	for _, f := range strings.Split(*sweep, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > shardkey.MaxShards {
			return usageErr("--sweep %q: want shard counts in 1..%d, comma-separated", f, shardkey.MaxShards)
		}
		if !slices.Contains(counts, n) {
			counts = append(counts, n)
		}
	}
	if *boot < 0 || *boot > 1000 {
		return usageErr("--bootstrap %d: want 0..1000", *boot)
	}
	for _, k := range c.keys {
		d, err := shardkey.ParseDesign(k)
		if err == nil {
			_, err = sim.Compile(l.w, d, l.opts)
		}
		if err != nil {
			return keyErr(err)
		}
	}
	aopts := advisor.Options{Shards: l.w.Shards, Engine: l.opts.Engine, Dir: l.opts.Dir,
		Workers: l.opts.Workers, Vindexes: l.opts.Vindexes, Keys: c.keys, Sweep: counts, Bootstrap: *boot, Seed: l.w.Seed,
		Current: inUse, CurrentLabel: inUseLabel}
	nf.fromWorkload(l.w)
	if nf.on() {
		if aopts.Nodes, err = nf.placement(); err != nil {
			return err
		}
		aopts.GrowTo, aopts.RowBytes = nf.growTo, nf.rowBytes
	}
	adv, err := advisor.Recommend(l.w, aopts)
	if errors.Is(err, advisor.ErrNoCandidates) && len(l.w.Ops) == 0 && len(l.w.Txns) == 0 {
		// Nothing to advise on is a missing input, not a fault of the
		// input read: a usage error saying what to add.
		return usageErr("%s", c.noStatements(len(l.w.Tables)))
	}
	if errors.Is(err, advisor.ErrNoCandidates) && allZeroRates(l.w) {
		ops := fmt.Sprintf("every one of the %d operations has", len(l.w.Ops))
		if len(l.w.Ops) == 1 {
			ops = "its one operation has"
		}
		return usageErr("no statements to advise on: %s rate 0 (requests/s) and no transaction has a rate; give their rates, or name the keys to score with -k", ops)
	}
	if errors.Is(err, advisor.ErrNoCandidates) {
		// No statement filters on a column: nothing to draw keys from,
		// a missing input as above (README's exit status 2).
		return usageErr("%v", err)
	}
	if err != nil {
		return err
	}
	// The recommended design over nodes (JSON carries it in its score).
	var nodes []*sim.Candidate
	if len(adv.Candidates) > 0 && adv.Candidates[0].Score.Nodes != nil {
		nodes = []*sim.Candidate{adv.Candidates[0].Score}
	}
	plans, err := rf.plans(l, adv)
	if err != nil {
		return err
	}
	if *dirsOut != "" {
		if err := writeDirectories(e, *dirsOut, adv, rescoreArgs(fs, &c, pos, l)); err != nil {
			return err
		}
	}
	var cfg *engineConfig
	if *emitFmt != "" {
		if cfg, err = emitConfig(*emitFmt, l, adv); err != nil {
			return err
		}
	}
	// Warnings go to standard error, where they cannot be mistaken for a
	// line of the advice (JSON, Markdown and HTML carry them in the
	// document as well).
	for _, wn := range adv.Warnings {
		fmt.Fprintln(e.stderr, "warning: "+wn)
	}
	if cfg != nil {
		for _, wn := range cfg.Warnings {
			fmt.Fprintln(e.stderr, "warning: "+wn)
		}
	}
	// Each reshard plan's warnings (a re-keyed table without a row
	// sample, ...) too, naming the plan: the JSON and Markdown documents
	// carry them in the plan, the table in the plan's steps and in the
	// closing block.
	for _, p := range plans {
		for _, wn := range p.Warnings {
			fmt.Fprintf(e.stderr, "warning: reshard from %s to %s: %s\n", p.From, p.To, wn)
		}
	}
	// The Markdown and HTML documents have no configuration section:
	// its warnings go with the advice's.
	docAdv := adv
	if cfg != nil && len(cfg.Warnings) > 0 {
		a := *adv
		a.Warnings = append(slices.Clone(adv.Warnings), cfg.Warnings...)
		docAdv = &a
	}
	switch c.format {
	case "json":
		b, err := json.Marshal(struct {
			Version string `json:"version"`
			*advisor.Advice
			Config  *engineConfig   `json:"config,omitempty"`
			Reshard []*reshard.Plan `json:"reshard,omitempty"`
		}{buildinfo.Version(), adv, cfg, plans})
		if err != nil {
			return err
		}
		// No capacity given: null, not a capacity of 0.
		if b, err = jsonnull.Null(b, jsonnull.Unless(adv.Capacity > 0, "capacity")...); err != nil {
			return err
		}
		var out bytes.Buffer
		if err := json.Indent(&out, b, "", "  "); err != nil {
			return err
		}
		out.WriteByte('\n')
		_, err = e.stdout.Write(out.Bytes())
		return err
	case "markdown":
		if err := skreport.WriteAdviceMarkdown(e.stdout, docAdv); err != nil {
			return err
		}
		if nodes != nil {
			fmt.Fprintln(e.stdout, "\n## Slots over nodes\n\n```")
			renderNodes(e.stdout, nodes)
			fmt.Fprintln(e.stdout, "```")
		}
		renderReshard(e.stdout, plans, true)
		return nil
	case "html":
		return skreport.WriteAdviceHTML(e.stdout, docAdv)
	}
	if err := skreport.WriteAdviceTable(e.stdout, adv); err != nil {
		return err
	}
	renderNodes(e.stdout, nodes)
	defer func() {
		renderReshard(e.stdout, plans, false)
		writeWarnings(e.stdout, e.warnings())
	}()
	if cfg != nil {
		fmt.Fprintf(e.stdout, "\n%s configuration for %s:\n%s", cfg.Format, cfg.Key, cfg.Config)
		if !strings.HasSuffix(cfg.Config, "\n") {
			fmt.Fprintln(e.stdout)
		}
		for _, n := range cfg.Notes {
			fmt.Fprintln(e.stdout, wrap("note: "+n, 88, "  "))
		}
	}
	return nil
}

// writeDirectories writes into dir the directory file of every proposed
// fix that names one (advisor.Fix.DirectoryFile, its Placement), each
// once, and says on standard error what it wrote and the command that
// re-scores it: shardkey score, rescore (rescoreArgs), -k the design.
//
// dir is made only when there is a file to write: with none, nothing is
// made (an empty directory was left behind) and standard error says so.
func writeDirectories(e *env, dir string, adv *advisor.Advice, rescore []string) error {
	written := map[string][]advisor.Placed{}
	for _, as := range adv.Candidates {
		for _, f := range as.Fixes {
			if f.DirectoryFile == "" || len(f.Placement) == 0 {
				continue
			}
			path := filepath.Join(dir, f.DirectoryFile)
			if prev, ok := written[f.DirectoryFile]; ok {
				if !samePlacement(prev, f.Placement) {
					return fmt.Errorf("--write-directories: two different maps named %s (%s's fix and another's)", f.DirectoryFile, as.Key)
				}
				continue
			}
			var b bytes.Buffer
			if err := advisor.WriteDirectory(&b, f.Target, f.Placement); err != nil {
				return err
			}
			if len(written) == 0 {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return usageErr("--write-directories: %v", err)
				}
			}
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				return fmt.Errorf("--write-directories: %w", err)
			}
			written[f.DirectoryFile] = f.Placement
			key := strings.Replace(f.Key, f.DirectoryFile, path, 1)
			cmd := append(append([]string{"shardkey", "score"}, rescore...), "-k", key)
			for i, a := range cmd {
				cmd[i] = shellQuote(a)
			}
			fmt.Fprintf(e.stderr, "wrote %s: the map of %s's %s fix (%s); re-score it with: %s\n", path, as.Key, f.Kind, f.Key, strings.Join(cmd, " "))
		}
	}
	if len(written) == 0 {
		made := "left as it is"
		if _, err := os.Stat(dir); err != nil {
			made = "not created"
		}
		fmt.Fprintf(e.stderr, "--write-directories: no proposed design names a directory file: nothing written, %s %s\n", dir, made)
	}
	return nil
}

// rescoreArgs are the arguments of shardkey score that score a design
// as the advice did: its inputs, --engine, and --shards (or the
// placement flags given: --slots, --nodes, --slot-map), --capacity and
// --seed when given. A --from DSN is redacted (its password is the
// user's to add).
func rescoreArgs(fs *flag.FlagSet, c *common, pos []string, l *loaded) []string {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var args []string
	add := func(name, v string) { args = append(args, "--"+name, v) }
	if c.noInput() {
		name := "social"
		if len(pos) == 1 {
			name = pos[0]
		}
		args = append(args, name)
	}
	if c.workload != "" {
		add("workload", c.workload)
	}
	if c.variant != "" {
		add("variant", c.variant)
	}
	for _, in := range []struct {
		name string
		vs   []string
	}{{"rows", c.rows}, {"queries", c.queries}, {"txns", c.txns}, {"log", c.logs}} {
		for _, v := range in.vs {
			add(in.name, v)
		}
	}
	if c.logFormat != "" {
		add("log-format", c.logFormat)
	}
	if c.from != "" {
		add("from", livedb.Redact(c.from))
	}
	for _, name := range []string{"sample-rows", "stats"} {
		if set[name] {
			add(name, fs.Lookup(name).Value.String())
		}
	}
	if c.schema != "" {
		add("schema", c.schema)
	}
	for _, t := range c.colTypes {
		add("column-type", t)
	}
	add("engine", c.engine)
	placed := false
	for _, name := range []string{"slots", "nodes", "slot-map"} {
		if set[name] {
			add(name, fs.Lookup(name).Value.String())
			placed = placed || name != "slot-map"
		}
	}
	if !placed {
		add("shards", strconv.Itoa(l.w.Shards))
	}
	for _, name := range []string{"capacity", "seed"} {
		if set[name] {
			add(name, fs.Lookup(name).Value.String())
		}
	}
	return args
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and _@%+=:,./-.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// samePlacement reports whether a and b place the same values on the
// same shards.
func samePlacement(a, b []advisor.Placed) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Value != b[i].Value || a[i].Shard != b[i].Shard {
			return false
		}
	}
	return true
}

// engineConfig is the chosen design in an engine's own configuration.
type engineConfig struct {
	Format string   `json:"format"`
	Key    string   `json:"key"`
	Config string   `json:"text"`
	Notes  []string `json:"notes,omitempty"`
	// Warnings say where the configuration cannot place rows as the
	// advice scored them (also written to standard error).
	Warnings []string `json:"warnings,omitempty"`
}

// emitConfig writes the recommended design, with its whale fix when the
// advice isolates some values, as format's configuration.
func emitConfig(format string, l *loaded, adv *advisor.Advice) (*engineConfig, error) {
	key := adv.Recommended
	// The fix kinds the configuration carries: an isolation (its key is
	// what is written), and in a VSchema the global-index fixes' lookup
	// vindexes.
	carried := map[string]bool{}
	for _, f := range adv.Candidates[0].Fixes {
		if f.Kind == "isolate" && f.Key != "" {
			key = f.Key
			carried["isolate"] = true
		}
	}
	w := l.w
	if cw := adv.Candidates[0].Workload(); cw != nil {
		w = cw // with the columns the design carries into child tables
	}
	var lookupNotes []string
	if format == "vschema" {
		// The lookup vindexes the global-index fixes re-simulated: "after
		// fixes" routes through them, so the VSchema must have them.
		var added []string
		carried["global-index"] = true
		if key, added = advisor.WithLookupFixes(w, key, adv.Candidates[0].Fixes); len(added) > 0 {
			lookupNotes = append(lookupNotes, fmt.Sprintf("lookup vindexes of the proposed fixes (%s): in this VSchema because the \"after fixes\" figures route through them", strings.Join(added, "; ")))
		}
	}
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return nil, err
	}
	// A range design is emitted with the boundaries it was scored with
	// (computed from the sample at this shard count), written in as
	// bounds=[...]: the configuration must place as the score did.
	opts := l.opts
	opts.Shards = adv.Shards
	s, err := sim.Compile(w, d, opts)
	if err != nil {
		return nil, fmt.Errorf("--emit %s: %w", format, err)
	}
	emitted := key
	if bd, _, _ := s.BoundedDesign(); bd != nil {
		d, key = bd, bd.Text
	}
	eo := emit.Options{Shards: adv.Shards, Engine: adv.Engine, Hot: emit.DesignHot(w, d), Vindexes: opts.Vindexes}
	if eng := emit.HashEngine(format, w, d); eng != "" {
		// The engine hash-distributes the range keys: say what that
		// placement scores, beside the range placement's figures.
		if eo.HashFallback, err = hashFallback(w, d, opts, eng); err != nil {
			eo.HashFallback = fmt.Sprintf("what the hash-distributed design scores is unknown (%v)", err)
		}
	}
	var warnings []string
	eo.Warn = func(s string) { warnings = append(warnings, "--emit "+format+": "+s) }
	if best := adv.Candidates[0]; !best.Viable {
		eo.Warn(fmt.Sprintf("no viable design: this configures %s, the best of the rejected candidates (rejected: %s)", best.Key, best.Rejection))
	}
	if cp := adv.CapacityCheck; cp != nil && cp.After != nil && cp.After.OverCapacity > 0 && cp.Per != "node" {
		// The configuration is written for the shard count advised for,
		// on which the design leaves shards over capacity even with its
		// fixes (fresh-clone review: a MongoDB layout pinned to 64 shards
		// where the advice needs 75, without a word).
		more := "no shard count brings every shard under it (see the advice's headline)"
		if cp.ShardsNeeded > adv.Shards {
			more = fmt.Sprintf("%d shards bring every shard under it: re-run with --shards %d for that configuration", cp.ShardsNeeded, cp.ShardsNeeded)
		}
		eo.Warn(fmt.Sprintf("this configures %d shards, on which %d stay over the capacity of %s units/s with every proposed fix applied; %s", adv.Shards, cp.After.OverCapacity, numfmt.Num(cp.Capacity), more))
	}
	if note, err := unfixedNote(adv.Candidates[0], carried, emitted, w, d, opts); err != nil {
		return nil, fmt.Errorf("--emit %s: %w", format, err)
	} else if note != "" {
		eo.Notes = append(eo.Notes, note)
		eo.Warn(note)
	}
	out, notes, err := emit.Emit(format, w, d, eo)
	if err != nil {
		return nil, fmt.Errorf("--emit %s: %w", format, err)
	}
	notes = append(notes, lookupNotes...)
	return &engineConfig{Format: format, Key: key, Config: string(out), Notes: notes, Warnings: warnings}, nil
}

// unfixedNote says, when the configuration's design (key, as written
// before range boundaries are filled in; d with them) is not the design
// the recommended candidate best's "after fixes" figures are of
// (advisor.AfterFixes.Key), which of the fixes those figures apply the
// configuration leaves out (those of a kind not in carried) and what d
// scores, on w with opts as the advice scored it, against the after-fixes
// figures: the emitted file alone does not reach them. "" when the
// designs are the same, or when it leaves out no fix (the same design
// written otherwise).
func unfixedNote(best *advisor.Assessment, carried map[string]bool, key string, w *shardkey.Workload, d *shardkey.Design, opts sim.Options) (string, error) {
	af := best.AfterFixesOf()
	if af == nil || af.Key == key {
		return "", nil
	}
	var left []string
	for _, a := range af.Applied {
		if !carried[a.Kind] {
			left = append(left, a.Text)
		}
	}
	if len(left) == 0 {
		// The same design written another way ({w_id: "hashed"} for
		// hash(w_id) under MongoDB's engine).
		return "", nil
	}
	c, err := sim.Score(w, d.Text, opts)
	if err != nil {
		return "", err
	}
	what := "this configuration leaves out fixes the advice's \"after fixes\" figures apply: " + strings.Join(left, "; ")
	after := ""
	if !strings.Contains(strings.Join(left, "; "), af.Key) {
		after = " (" + af.Key + ")"
	}
	return fmt.Sprintf("%s; as written (%s) it scores busiest shard %s/s, work ratio %s, not the %s/s, %s after fixes%s",
		what, d.Text, numfmt.Num(c.MaxShardWork), numfmt.Ratio(c.WorkRatio), numfmt.Num(af.Nums.MaxShardWork), numfmt.Ratio(af.Nums.WorkRatio), after), nil
}

// hashFallback scores design d (range keys, bounds written in) and d with
// its range keys hashed, placed by engine eng (as the target system
// places them) at the same shard count, and says both placements'
// figures.
func hashFallback(w *shardkey.Workload, d *shardkey.Design, opts sim.Options, eng string) (string, error) {
	e, err := partition.Lookup(eng)
	if err != nil {
		return "", err
	}
	rc, err := sim.Score(w, d.Text, opts)
	if err != nil {
		return "", err
	}
	h := d.WithRangesHashed(eng == "citus")
	ho := opts
	ho.Engine = e
	hc, err := sim.Score(w, h.Text, ho)
	if err != nil {
		return "", err
	}
	figures := func(c *sim.Candidate) string {
		s := fmt.Sprintf("busiest shard %s/s, work ratio %s", numfmt.Num(c.MaxShardWork), numfmt.Ratio(c.WorkRatio))
		if c.Transactions > 0 {
			s += fmt.Sprintf(", %s of transactions cross shards", numfmt.Pct(c.CrossShardTxnFraction))
		}
		return s
	}
	return fmt.Sprintf("hash-distributed, the design is %s, which shardkey scores with --engine %s on %d shards at %s, against %s for the range placement",
		h.Text, eng, opts.Shards, figures(hc), figures(rc)), nil
}

// allZeroRates reports whether w has operations, all of rate 0, and no
// transaction of positive weight: statements that ask nothing of any
// shard, so nothing to advise on.
func allZeroRates(w *shardkey.Workload) bool {
	if len(w.Ops) == 0 {
		return false
	}
	for _, op := range w.Ops {
		if op.Rate > 0 {
			return false
		}
	}
	for _, t := range w.Txns {
		if t.Weight > 0 {
			return false
		}
	}
	return true
}

// noStatements says, for advise run on inputs that hold tables but no
// statement (a --from database whose statement statistics are empty or
// off, --rows alone), which inputs were read and what to add: the
// statements (--log, --queries, --txns) or the keys to score (-k).
func (c *common) noStatements(tables int) string {
	var what string
	n := fmt.Sprintf("%d tables", tables)
	if tables == 1 {
		n = "1 table"
	}
	switch {
	case c.from != "":
		stats := "pg_stat_statements holds none or is not installed"
		if strings.HasPrefix(c.from, "mysql") || strings.HasPrefix(c.from, "mariadb") {
			stats = "performance_schema's statement digests hold none or are off"
		}
		what = fmt.Sprintf("--from %s read %s but no statements on them (%s)", livedb.Redact(c.from), n, stats)
	case len(c.rows) > 0:
		what = fmt.Sprintf("--rows gave the rows of %s but no statements", n)
	default:
		what = "the inputs hold no statements"
	}
	return "no statements to advise on: " + what + "; add the workload's statements: --log FILE (the server's query log) or --queries FILE (and --txns FILE), or name the keys to score with -k"
}

// designSource names where the engine the keys are scored with came from
// when --engine was not given: the --from database's Citus metadata, or a
// VSchema named with -k or --current.
func designSource(c *common) string {
	if c.from != "" {
		return "--from " + livedb.Redact(c.from)
	}
	return "a VSchema (-k or --current @FILE)"
}
