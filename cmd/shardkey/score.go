package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/shardkey/shardkey/internal/gctune"
	"github.com/shardkey/shardkey/scenario"
)

func runScore(e *env, args []string) error {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var c common
	c.register(fs, true)
	c.stream = true
	c.fromDefault = true
	var nf nodeFlags
	nf.register(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: shardkey score [inputs | SCENARIO] -k KEY [-k KEY ...] [flags]

Scores the keys you name against a workload: per-shard work and load,
fan-out per operation, cross-shard transactions, key characteristics.

Examples:
  shardkey score --workload social.yaml -k 'hash(user_id)' -k 'range(created_at)'
  shardkey score workspace -k 'hash(workspace_id)'
  shardkey score --rows rows.csv --queries queries.jsonl --txns txns.jsonl \
      --engine blake2b --shards 64 -k 'hash(customer_id)' --format json
  shardkey score --rows users.csv -k 'hash(user_id)' --slots 64 --nodes 4

Flags:
`)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErr("unexpected argument %q (keys go after -k)", pos[1])
	}
	if err := c.validate(fs); err != nil {
		return err
	}
	if err := nf.validate(&c, fs); err != nil {
		return err
	}
	// A built-in scenario by name, as advise takes it: score workspace
	// -k 'hash(workspace_id)' (its own candidates without -k).
	spec, err := builtinArg(&c, pos, "keys go after -k")
	if err != nil {
		return err
	}
	c.nodesFor = nf.nodesFor
	// load may defer garbage collection (gctune.Defer); the settings
	// return with the command, for callers that run on (tests).
	defer gctune.Restore()
	l, err := c.load(e, spec)
	if err != nil {
		return err
	}
	if err := l.dropUnplaceable(e); err != nil {
		return err
	}
	cands, err := scoreAll(l)
	if err != nil {
		return err
	}
	nf.fromWorkload(l.w)
	if nf.on() {
		if err := nf.assign(l, cands); err != nil {
			return err
		}
	}
	if err := render(e.stdout, e.stderr, c.format, newReport(l, cands)); err != nil {
		return err
	}
	if nf.on() && c.format != "json" {
		renderNodes(e.stdout, cands)
	}
	if c.format == "table" {
		writeWarnings(e.stdout, e.warnings())
	}
	return nil
}

func runDemo(e *env, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var c common
	c.register(fs, false)
	print := fs.Bool("print", false, "print the scenario's spec (YAML) instead of scoring it")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: shardkey demo [%s] [--variant V] [flags]

Scores a built-in scenario from the seed documents (default social).
--print writes its spec, to copy and edit and run with score --workload.

Flags:
`, strings.Join(scenario.Builtins(), "|"))
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if err := c.validate(fs); err != nil {
		return err
	}
	name := "social"
	switch len(pos) {
	case 0:
	case 1:
		name = pos[0]
	default:
		return usageErr("one scenario at a time (got %s)", strings.Join(pos, " "))
	}
	if *print {
		src, err := scenario.BuiltinSource(name)
		if err != nil {
			return usageErr("%v", err)
		}
		_, err = e.stdout.Write(src)
		return err
	}
	spec, err := scenario.Builtin(name)
	if err != nil {
		return usageErr("%v", err)
	}
	if c.variant != "" {
		if _, err := spec.Variant(c.variant); err != nil {
			return usageErr("--variant: %v", err)
		}
	}
	var nf nodeFlags
	c.nodesFor = nf.nodesFor
	l, err := c.load(e, spec)
	if err != nil {
		return err
	}
	if err := l.dropUnplaceable(e); err != nil {
		return err
	}
	cands, err := scoreAll(l)
	if err != nil {
		return err
	}
	nf.fromWorkload(l.w)
	if nf.on() {
		if err := nf.assign(l, cands); err != nil {
			return err
		}
	}
	if err := render(e.stdout, e.stderr, c.format, newReport(l, cands)); err != nil {
		return err
	}
	if nf.on() && c.format != "json" {
		renderNodes(e.stdout, cands)
	}
	if c.format == "table" && c.variant == "" && len(spec.Variants) > 0 {
		variantHint(e.stdout, name, spec)
	}
	if c.format == "table" {
		writeWarnings(e.stdout, e.warnings())
	}
	return nil
}

func variantHint(w io.Writer, name string, s *scenario.Spec) {
	fmt.Fprintf(w, "\nVariants: ")
	for i, v := range s.Variants {
		if i > 0 {
			fmt.Fprint(w, "; ")
		}
		fmt.Fprintf(w, "shardkey demo %s --variant %s", name, v.Name)
	}
	fmt.Fprintln(w)
}

// builtinArg returns the built-in scenario the one positional argument
// names (scenario.Builtins), nil without one; with other inputs given as
// well, or a name that is no built-in, a usage error (hint says what
// else a stray argument may have been meant as).
func builtinArg(c *common, pos []string, hint string) (*scenario.Spec, error) {
	if len(pos) == 0 {
		return nil, nil
	}
	names := strings.Join(scenario.Builtins(), ", ")
	if !slices.Contains(scenario.Builtins(), pos[0]) {
		return nil, usageErr("unexpected argument %q (%s; a built-in scenario is one of %s)", pos[0], hint, names)
	}
	if !c.noInput() {
		return nil, usageErr("give a built-in scenario name or inputs, not both")
	}
	spec, err := scenario.Builtin(pos[0])
	if err != nil {
		return nil, usageErr("%v", err)
	}
	if c.variant != "" {
		if _, err := spec.Variant(c.variant); err != nil {
			return nil, usageErr("--variant: %v", err)
		}
	}
	return spec, nil
}
