package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/internal/numfmt"
	"github.com/shardkey/shardkey/reshard"
	"github.com/shardkey/shardkey/sim"
)

// reshardFlags are advise's --current, --row-bytes and --copy-rate: what
// a reshard from the design in use to each candidate would move. Kept out
// of advise.go: its output is a section of its own.
type reshardFlags struct {
	current  string
	rowBytes float64
	copyRate string
}

func (r *reshardFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.current, "current", "", "the `design` in use: report what resharding from it to each candidate moves (@from: the one the --from database runs, from its Citus metadata; @vschema.json: a Vitess VSchema's)")
	fs.Float64Var(&r.rowBytes, "row-bytes", 0, "average row size in `bytes` (default: estimated from the sample's columns)")
	fs.StringVar(&r.copyRate, "copy-rate", "", "bytes/s one target shard is written at, e.g. 50MiB/s or 200MB (default 125MiB/s: an AWS EBS gp3 volume's baseline)")
}

// validate checks the flags for the output format.
func (r *reshardFlags) validate(format string) error {
	if r.current == "" {
		if r.rowBytes != 0 || r.copyRate != "" {
			return usageErr("--row-bytes and --copy-rate price a reshard: give --current DESIGN")
		}
		return nil
	}
	if math.IsNaN(r.rowBytes) || math.IsInf(r.rowBytes, 0) || r.rowBytes < 0 {
		return usageErr("--row-bytes %v: want a number of bytes > 0", r.rowBytes)
	}
	if _, err := parseRate(r.copyRate); err != nil {
		return usageErr("--copy-rate %q: %v", r.copyRate, err)
	}
	if format == "html" {
		return usageErr("--current: use --format table, json or markdown")
	}
	return nil
}

// parseRate reads a byte rate: a number with an optional unit (B, KB, MB,
// GB, TB powers of 1000; KiB, MiB, GiB, TiB powers of 1024) and an
// optional "/s". "" is 0 (the default).
func parseRate(s string) (float64, error) {
	s = strings.TrimSuffix(strings.TrimSpace(s), "/s")
	if s == "" {
		return 0, nil
	}
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || x <= 0 || math.IsInf(x, 0) {
		return 0, fmt.Errorf("want a positive number of bytes/s with an optional unit (KB, MB, GB, KiB, MiB, GiB)")
	}
	mult := map[string]float64{"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
		"KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "TIB": 1 << 40}[strings.ToUpper(unit)]
	if mult == 0 {
		return 0, fmt.Errorf("unknown unit %q (want B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)", unit)
	}
	return x * mult, nil
}

// plans prices a reshard from --current (or the design the --from
// database runs) to each candidate of the advice (the current design
// itself, and any placing everything as it does, left out).
func (r *reshardFlags) plans(l *loaded, adv *advisor.Advice) ([]*reshard.Plan, error) {
	if r.current == "" {
		return nil, nil
	}
	d, err := shardkey.ParseDesign(r.current)
	if err != nil {
		return nil, usageErr("--current: %v", err)
	}
	from, err := sim.Compile(l.w, d, l.opts)
	if err != nil {
		return nil, usageErr("--current: %v", err)
	}
	rate, _ := parseRate(r.copyRate)
	var out []*reshard.Plan
	for _, c := range adv.Candidates {
		if c.Key == r.current || c.InUse {
			continue // the design in use, or one placing everything as it does
		}
		cd, err := shardkey.ParseDesign(c.Key)
		if err != nil {
			return nil, err
		}
		to, err := sim.Compile(l.w, cd, l.opts)
		if err != nil {
			return nil, err
		}
		m, err := sim.Reshard(l.w, from, to)
		if err != nil {
			return nil, err
		}
		out = append(out, reshard.New(l.w, m, reshard.Options{RowBytes: r.rowBytes, CopyRate: rate, Engine: l.opts.Engine.Name()}))
	}
	return out, nil
}

// renderReshard prints the reshard section: per candidate, rows and bytes
// per source and target shard, the copy time of the largest shard, and the
// engine's steps.
func renderReshard(w io.Writer, plans []*reshard.Plan, markdown bool) {
	if len(plans) == 0 {
		return
	}
	if markdown {
		fmt.Fprintf(w, "\n## Resharding from %s\n\n```\n", plans[0].From)
		defer fmt.Fprintln(w, "```")
	} else {
		fmt.Fprintf(w, "\nResharding from %s (the design in use): what each candidate would move\n", plans[0].From)
	}
	p0 := plans[0]
	size := "unknown"
	if p0.RowBytes > 0 {
		size = num(p0.RowBytes) + " bytes"
	}
	fmt.Fprintf(w, "row size %s (%s); copy rate %s/s per target shard (%s)\n", size, p0.RowBytesSource, numfmt.Bytes(p0.CopyRate), p0.CopyRateSource)
	for _, p := range plans {
		if !p.RowsKnown() {
			// A re-keyed table without a row sample: which tables move
			// is known, how much of them is not (never 0).
			fmt.Fprintf(w, "\n-> %s: rows rewritten unknown, bytes unknown, copy time of the largest shard unknown (no row sample of %s: give --rows FILE or --from DSN)\n",
				p.To, strings.Join(p.Unsampled, ", "))
		} else if !p.SizeKnown() {
			// The rows are a sample's: its shares hold for the table,
			// its counts, bytes and copy time do not.
			fmt.Fprintf(w, "\n-> %s: %s of the rows rewritten, %s of those to another shard (in the row sample: %s rows rewritten, %s of them moving); rows, bytes and copy time of the real tables unknown (their sizes are not known: give --from DSN to read them from the catalog)%s\n",
				p.To, pct(p.RowsShare), pct(p.CrossingShare), num(p.Rows), num(p.RowsCrossing), minText(p))
		} else {
			fmt.Fprintf(w, "\n-> %s: %s rows rewritten (%s), %s of them (%s) to another shard (scaled to the tables' sizes in the catalog); copying the largest shard (%d, %s) takes %s%s\n",
				p.To, num(p.Rows), numfmt.Bytes(p.Bytes), num(p.RowsCrossing), numfmt.Bytes(p.BytesCrossing), p.LargestTarget, numfmt.Bytes(p.TargetBytes[p.LargestTarget]), secondsText(p.CopySeconds), minText(p))
		}
		var tabs []string
		for _, t := range p.Tables {
			if t.Rewritten {
				tabs = append(tabs, fmt.Sprintf("%s (%s -> %s)", t.Table, t.FromKey, t.ToKey))
			}
		}
		if len(tabs) > 0 {
			fmt.Fprintf(w, "   tables rewritten: %s\n", strings.Join(tabs, ", "))
		}
		if !p.RowsKnown() {
			renderSteps(w, p)
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		if p.SizeKnown() {
			fmt.Fprintln(tw, "   shard\tholds now\tsends\treceives\tholds after\tbytes after\t")
		} else {
			fmt.Fprintln(tw, "   shard\tsample rows now\tsends\treceives\tholds after\t")
		}
		n := max(len(p.SourceRows), len(p.TargetRows))
		for k := range n {
			cell := func(xs []float64) string {
				if k < len(xs) {
					return num(xs[k])
				}
				return "-"
			}
			after := "-"
			if k < len(p.TargetBytes) {
				after = numfmt.Bytes(p.TargetBytes[k])
			}
			if !p.SizeKnown() {
				fmt.Fprintf(tw, "   %d\t%s\t%s\t%s\t%s\t\n", k, cell(p.SourceRows), cell(p.SourceOut), cell(p.TargetIn), cell(p.TargetRows))
				continue
			}
			fmt.Fprintf(tw, "   %d\t%s\t%s\t%s\t%s\t%s\t\n", k, cell(p.SourceRows), cell(p.SourceOut), cell(p.TargetIn), cell(p.TargetRows), after)
		}
		tw.Flush()
		renderSteps(w, p)
	}
}

// renderSteps prints p's engine steps and its warnings.
func renderSteps(w io.Writer, p *reshard.Plan) {
	fmt.Fprintf(w, "   steps (%s):\n", p.Engine)
	for i, s := range p.Steps {
		fmt.Fprintln(w, wrap(fmt.Sprintf("   %d. %s", i+1, s), 100, "      "))
	}
	for _, wn := range p.Warnings {
		fmt.Fprintf(w, "   warning: %s\n", wn)
	}
}

// minText is the engine's least duration for the operation, as a clause
// ("" when it has none): MongoDB's reshardCollection lasts at least
// reshardingMinimumOperationDurationMillis.
func minText(p *reshard.Plan) string {
	if p.MinSeconds <= 0 {
		return ""
	}
	return fmt.Sprintf("; reshardCollection takes at least %s however little it copies (reshardingMinimumOperationDurationMillis, default %s ms)", secondsText(p.MinSeconds), num(1000*p.MinSeconds))
}

func secondsText(s float64) string {
	switch {
	case s < 120:
		return fmt.Sprintf("%.3g s", s)
	case s < 2*3600:
		return fmt.Sprintf("%.1f min", s/60)
	case s < 2*86400:
		return fmt.Sprintf("%.1f h", s/3600)
	}
	return fmt.Sprintf("%.1f days", s/86400)
}
