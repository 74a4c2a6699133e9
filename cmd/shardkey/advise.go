package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/shardkey/shardkey/internal/buildinfo"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/emit"
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
	sweep := fs.String("sweep", "4,8,16,32,64,128,256", "shard `counts` to score the recommended key at (\"\" for none)")
	emitFmt := fs.String("emit", "", "also write the chosen design as the engine's own `configuration`: "+strings.Join(emit.Formats(), ", "))
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

Examples:
  shardkey advise
  shardkey advise --workload orders.yaml --format html > advice.html
  shardkey advise --log postgresql.log --from postgres://localhost/app

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
	noInput := c.workload == "" && len(c.rows)+len(c.queries)+len(c.txns)+len(c.logs) == 0 && c.from == "" && c.schema == ""
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
	l, err := c.load(e, spec)
	if err != nil {
		return err
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
	if *emitFmt != "" && !slices.Contains(emit.Formats(), *emitFmt) {
		return usageErr("--emit %q: want one of %s", *emitFmt, strings.Join(emit.Formats(), ", "))
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
		Workers: l.opts.Workers, Keys: c.keys, Sweep: counts, Bootstrap: *boot, Seed: l.w.Seed}
	nf.fromWorkload(l.w)
	if nf.on() {
		if aopts.Nodes, err = nf.placement(); err != nil {
			return err
		}
		aopts.GrowTo, aopts.RowBytes = nf.growTo, nf.rowBytes
	}
	adv, err := advisor.Recommend(l.w, aopts)
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
	switch c.format {
	case "json":
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Version string `json:"version"`
			*advisor.Advice
			Config  *engineConfig   `json:"config,omitempty"`
			Reshard []*reshard.Plan `json:"reshard,omitempty"`
		}{buildinfo.Version(), adv, cfg, plans})
	case "markdown":
		if err := adviceMarkdown(e.stdout, adv); err != nil {
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
		return adviceHTML(e.stdout, adv)
	}
	if err := adviceTable(e.stdout, adv); err != nil {
		return err
	}
	renderNodes(e.stdout, nodes)
	defer renderReshard(e.stdout, plans, false)
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

// engineConfig is the chosen design in an engine's own configuration.
type engineConfig struct {
	Format string   `json:"format"`
	Key    string   `json:"key"`
	Config string   `json:"text"`
	Notes  []string `json:"notes,omitempty"`
}

// designHot returns, for every table design d isolates or salts values
// of, the design-wide hottest values (over all those tables' rows
// together, as the simulator picks them), so that a whale's rows in every
// table of its entity group are isolated together. nil when one table or
// none has such a key.
func designHot(w *shardkey.Workload, d *shardkey.Design) map[string][]shardkey.Value {
	type vw struct {
		v shardkey.Value
		k string
		w float64
	}
	agg := map[shardkey.Value]*vw{}
	top := 0
	var tables []string
	for _, t := range w.Tables {
		e := d.For(t.Name, func(c string) bool { return t.Column(c) != nil })
		n := 0
		switch m := e.(type) {
		case *shardkey.IsolateExpr:
			n = m.Top
		case *shardkey.SaltExpr:
			n = m.Top
			if iso, ok := m.Inner.(*shardkey.IsolateExpr); ok {
				n = max(n, iso.Top)
			}
		}
		if n == 0 || len(e.Columns()) == 0 {
			continue
		}
		ci := t.ColumnIndex(e.Columns()[0])
		tables = append(tables, t.Name)
		top = max(top, n)
		for r := 0; r < t.Rows; r++ {
			v := t.Columns[ci].Value(r).Canonical()
			x := agg[v]
			if x == nil {
				x = &vw{v: v, k: string(byte('0'+v.Type)) + v.String()}
				agg[v] = x
			}
			x.w += t.Weight(r)
		}
	}
	if len(tables) < 2 {
		return nil
	}
	list := make([]*vw, 0, len(agg))
	for _, x := range agg {
		list = append(list, x)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].w != list[j].w {
			return list[i].w > list[j].w
		}
		return list[i].k < list[j].k
	})
	var hot []shardkey.Value
	for i := 0; i < top && i < len(list); i++ {
		hot = append(hot, list[i].v)
	}
	out := map[string][]shardkey.Value{}
	for _, t := range tables {
		out[t] = hot
	}
	return out
}

// emitConfig writes the recommended design, with its whale fix when the
// advice isolates some values, as format's configuration.
func emitConfig(format string, l *loaded, adv *advisor.Advice) (*engineConfig, error) {
	key := adv.Recommended
	for _, f := range adv.Candidates[0].Fixes {
		if f.Kind == "isolate" && f.Key != "" {
			key = f.Key
		}
	}
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return nil, err
	}
	w := l.w
	if cw := adv.Candidates[0].Workload(); cw != nil {
		w = cw // with the columns the design carries into child tables
	}
	out, notes, err := emit.Emit(format, w, d, emit.Options{Shards: adv.Shards, Engine: adv.Engine, Hot: designHot(w, d)})
	if err != nil {
		return nil, fmt.Errorf("--emit %s: %w", format, err)
	}
	return &engineConfig{Format: format, Key: key, Config: string(out), Notes: notes}, nil
}

func adviceTable(w io.Writer, adv *advisor.Advice) error {
	fmt.Fprintf(w, "%s: advice for %s, engine %s\n\n", adv.Workload, shardsText(adv.Shards), adv.Engine)
	for _, s := range adv.Summary {
		fmt.Fprintln(w, wrap(s, 88, ""))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "rank\tkey\tlocal\tsingle-shard\tcross-shard txns\tboundary\tlargest partition\tbusiest\tafter fixes\tverdict")
	for _, as := range adv.Candidates {
		cr := as.Criteria
		txn := "-"
		if as.Score.Transactions > 0 {
			txn = pct(cr.CrossShardTxn)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s/s\t%s/s\t%s\n", as.Rank, as.Display(), pct(cr.Local), pct(cr.SingleShard), txn, yesNo(cr.Boundary),
			largest(as), num(cr.MaxShardWork), num(cr.AfterFixes), as.Verdict)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nRanked by what matters most for a shard key, in order: the dominant operations single-shard and transactions on")
	fmt.Fprintln(w, "one shard; the key matches an isolation boundary; partitions bounded; load acceptable after fixes.")
	fmt.Fprintln(w, "Work is units/s: one operation on one shard is one unit.")
	for i, as := range adv.Candidates {
		if i >= 3 {
			break
		}
		fmt.Fprintf(w, "\n== %d. %s: %s ==\n", as.Rank, as.Display(), as.Verdict)
		fmt.Fprintf(w, "why considered: %s\n", as.Origin)
		for _, r := range as.Reasons {
			fmt.Fprintln(w, wrap("- "+r, 88, "  "))
		}
		if len(as.Expensive) > 0 {
			fmt.Fprintln(w, "expensive under this key:")
			for _, op := range as.Expensive {
				fmt.Fprintf(w, "  %s: %s req/s ask %.1f shards each (%s scatter-gather), +%s units/s\n", op.Name, num(op.Rate), op.FanoutMean, pct(op.Scatter), num(op.ExtraWork))
			}
		} else if as.Score.RequestsPerS > 0 && as.Score.Transactions > 0 && as.Criteria.CrossShardTxn > 0 {
			fmt.Fprintf(w, "expensive under this key: every operation asks one shard, but %s of transactions cross shards (each commits on several)\n", pct(as.Criteria.CrossShardTxn))
		} else if as.Score.RequestsPerS > 0 {
			fmt.Fprintln(w, "expensive under this key: nothing; every operation asks one shard")
		}
		for _, f := range as.Fixes {
			fmt.Fprintln(w, wrap("fix ("+f.Kind+"): "+f.Text, 88, "  "))
		}
	}
	if conf := adv.Confidence; conf != nil {
		fmt.Fprintf(w, "\nHow sure: 95%% bootstrap intervals over %d resamples of the sample: ", conf.Replicates)
		if adv.Candidates[0].Score.RequestsPerS > 0 {
			fmt.Fprintf(w, "work ratio %.2f-%.2fx, busiest shard %s-%s units/s, ", conf.WorkRatio.Lo, conf.WorkRatio.Hi, num(conf.MaxShardWork.Lo), num(conf.MaxShardWork.Hi))
		}
		if conf.LoadRatio.Hi > 0 {
			fmt.Fprintf(w, "load ratio %.2f-%.2fx", conf.LoadRatio.Lo, conf.LoadRatio.Hi)
		} else {
			fmt.Fprint(w, "load ratio unknown (no row sample)")
		}
		if adv.Candidates[0].Score.Transactions > 0 {
			fmt.Fprintf(w, ", cross-shard transactions %s-%s", pct(conf.CrossShardTxn.Lo), pct(conf.CrossShardTxn.Hi))
		}
		fmt.Fprintln(w, ".")
	}
	if len(adv.Sweep) > 0 {
		fmt.Fprintf(w, "\n%s as the shard count grows:\n", adv.Recommended)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "shards\tbusiest\twork ratio\tload ratio\tperfect-hash ratio\tfan-out\tcross-shard txns\tover capacity")
		for _, r := range adv.Sweep {
			load := "-"
			if r.LoadRatio > 0 {
				load = ratioText(r.LoadRatio)
			}
			fmt.Fprintf(tw, "%d\t%s/s\t%.2fx\t%s\t%.2fx\t%.2f\t%s\t%d\n", r.Shards, num(r.MaxShardWork), r.WorkRatio, load, r.Expected, r.FanoutMean, pct(r.CrossShardTxn), r.OverCapacity)
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\nWhich choice could still change in two years:")
	for _, s := range adv.Durable {
		fmt.Fprintln(w, wrap("- "+s, 88, "  "))
	}
	for _, f := range adv.Flags {
		fmt.Fprintln(w, wrap("flag: "+f, 88, "  "))
	}
	return nil
}

// largest is the largest partition's share, or "unknown" when nothing
// measures it.
func largest(as *advisor.Assessment) string {
	if as.Criteria.LargestUnknown {
		return "unknown"
	}
	return pct(as.Criteria.LargestPartition)
}

// shardsText is "1 shard" or "N shards".
func shardsText(n int) string {
	if n == 1 {
		return "1 shard"
	}
	return strconv.Itoa(n) + " shards"
}

// txnPct is the cross-shard transaction share, or "-" when the workload
// has no transactions.
func txnPct(as *advisor.Assessment) string {
	if as.Score.Transactions == 0 {
		return "-"
	}
	return pct(as.Criteria.CrossShardTxn)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func adviceMarkdown(w io.Writer, adv *advisor.Advice) error {
	fmt.Fprintf(w, "# Shard key advice: %s\n\n%s, engine `%s`.\n\n", mdText(adv.Workload), shardsText(adv.Shards), adv.Engine)
	for _, s := range adv.Summary {
		fmt.Fprintf(w, "%s\n\n", mdText(s))
	}
	fmt.Fprintln(w, "| rank | key | single-shard | cross-shard txns | boundary | largest partition | busiest (units/s) | after fixes | verdict |")
	fmt.Fprintln(w, "|---:|---|---:|---:|---|---:|---:|---:|---|")
	for _, as := range adv.Candidates {
		cr := as.Criteria
		fmt.Fprintf(w, "| %d | `%s` | %s | %s | %s | %s | %s | %s | %s |\n", as.Rank, mdCell(as.Display()), pct(cr.SingleShard), txnPct(as),
			yesNo(cr.Boundary), largest(as), num(cr.MaxShardWork), num(cr.AfterFixes), mdCell(mdText(as.Verdict)))
	}
	for i, as := range adv.Candidates {
		if i >= 3 {
			break
		}
		fmt.Fprintf(w, "\n## %d. `%s`\n\n%s\n\n", as.Rank, as.Display(), mdText(as.Verdict))
		for _, r := range as.Reasons {
			fmt.Fprintf(w, "- %s\n", mdText(r))
		}
		if len(as.Expensive) > 0 {
			fmt.Fprintln(w, "\nExpensive under this key:")
			for _, op := range as.Expensive {
				fmt.Fprintf(w, "- %s: %s req/s ask %.1f shards each, +%s units/s\n", mdText(op.Name), num(op.Rate), op.FanoutMean, num(op.ExtraWork))
			}
		}
		if len(as.Fixes) > 0 {
			fmt.Fprintln(w, "\nFixes:")
			for _, f := range as.Fixes {
				fmt.Fprintf(w, "- **%s**: %s\n", f.Kind, mdText(f.Text))
			}
		}
	}
	fmt.Fprintln(w, "\n## Which choice could still change in two years")
	for _, s := range adv.Durable {
		fmt.Fprintf(w, "\n- %s", mdText(s))
	}
	fmt.Fprintln(w)
	for _, f := range adv.Flags {
		fmt.Fprintf(w, "\n> flag: %s\n", mdText(f))
	}
	if len(adv.Warnings) > 0 {
		fmt.Fprint(w, "\n## Warnings\n\n")
		for _, wn := range adv.Warnings {
			fmt.Fprintf(w, "- %s\n", mdText(wn))
		}
	}
	return nil
}

// adviceHTML writes one self-contained page: inline CSS and SVG charts of
// per-shard work against capacity and fan-out per operation; no scripts,
// no network loads.
func adviceHTML(w io.Writer, adv *advisor.Advice) error {
	type bar struct {
		X, Y, W, H float64
		Over       bool
		Label      string
	}
	type label struct {
		X, Y   float64
		Text   string
		Anchor string // start, middle, end
	}
	type chart struct {
		Title  string
		Bars   []bar
		CapY   float64
		HasCap bool
		MeanY  float64 // a dashed line at the mean; 0: none
		Labels []label
		Legend []string // what numbered bars stand for
		Width  float64
		Height float64
	}
	type cand struct {
		*advisor.Assessment
		Work   chart
		Fanout chart
	}
	// Plot area: y from top to base; labels above and below it.
	const width, height, top, base = 640.0, 190.0, 22.0, 166.0
	const plot = base - top
	var cands []cand
	for i, as := range adv.Candidates {
		if i >= 3 {
			break
		}
		c := as.Score
		scale := math.Max(c.MaxShardWork, adv.Capacity)
		if scale <= 0 {
			scale = 1
		}
		wk := chart{Title: "per-shard work (units/s)", Width: width, Height: height}
		bw := width / float64(len(c.ShardWork))
		for s, x := range c.ShardWork {
			if c.WorkPerS == 0 {
				break // no operations: no chart
			}
			h := x / scale * plot
			wk.Bars = append(wk.Bars, bar{X: float64(s) * bw, Y: base - h, W: math.Max(bw-1, 0.5), H: h,
				Over: adv.Capacity > 0 && x > adv.Capacity, Label: fmt.Sprintf("shard %d: %s units/s", s, num(x))})
		}
		wk.Labels = append(wk.Labels,
			label{0, top - 6, fmt.Sprintf("busiest shard %s/s (%s the mean)", num(c.MaxShardWork), ratioText(c.WorkRatio)), "start"},
			label{0, height - 6, "shard 0", "start"},
			label{width, height - 6, fmt.Sprintf("shard %d", len(c.ShardWork)-1), "end"})
		if c.MeanShardWork > 0 {
			wk.MeanY = base - c.MeanShardWork/scale*plot
			wk.Labels = append(wk.Labels, label{width, wk.MeanY - 4, fmt.Sprintf("mean %s/s", num(c.MeanShardWork)), "end"})
		}
		if adv.Capacity > 0 {
			wk.HasCap, wk.CapY = true, base-adv.Capacity/scale*plot
		}
		fo := chart{Title: "fan-out per operation (mean shards asked)", Width: width, Height: height}
		if n := len(c.Operations); n > 0 {
			ow := width / float64(n)
			for k, op := range c.Operations {
				h := op.FanoutMean / float64(c.Shards) * plot
				x := float64(k) * ow
				fo.Bars = append(fo.Bars, bar{X: x, Y: base - h, W: math.Max(ow-4, 1), H: h,
					Label: fmt.Sprintf("%s: %.2f of %d shards", op.Name, op.FanoutMean, c.Shards)})
				mid := x + math.Max(ow-4, 1)/2
				fo.Labels = append(fo.Labels,
					label{mid, base - h - 4, num(op.FanoutMean), "middle"},
					label{mid, height - 6, strconv.Itoa(k + 1), "middle"})
				fo.Legend = append(fo.Legend, op.Name)
			}
		}
		cands = append(cands, cand{as, wk, fo})
	}
	return adviceTmpl.Execute(w, map[string]any{"A": adv, "Cands": cands})
}

var adviceTmpl = template.Must(template.New("advice").Funcs(template.FuncMap{"pct": pct, "num": num, "yesno": yesNo, "txnpct": txnPct, "shards": shardsText, "largest": largest}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shard key advice: {{.A.Workload}}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d232a}
table{border-collapse:collapse;width:100%;font-size:14px}th,td{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}code{background:#f3f4f6;padding:0 .2rem}
.bar{fill:#3b6ea5}.over{fill:#c0392b}.cap{stroke:#111;stroke-dasharray:4 3}.fix{background:#f6f8fa;border-left:3px solid #3b6ea5;padding:.3rem .6rem;margin:.3rem 0}
svg{width:100%;height:auto;background:#fafafa}svg text{font-size:11px;fill:#333;paint-order:stroke;stroke:#fafafa;stroke-width:3px}.mean{stroke:#888;stroke-dasharray:2 2}figcaption{font-size:13px;color:#555}.legend{margin:.2rem 0;columns:2}
</style></head><body>
<h1>Shard key advice: {{.A.Workload}}</h1>
<p>{{shards .A.Shards}}, engine <code>{{.A.Engine}}</code>{{if .A.Capacity}}, capacity {{num .A.Capacity}} units of work/s per shard{{end}}.</p>
{{range .A.Summary}}<p>{{.}}</p>{{end}}
<table><tr><th>rank</th><th>key</th><th>single-shard</th><th>cross-shard txns</th><th>boundary</th><th>largest partition</th><th>busiest (units/s)</th><th>after fixes</th><th>verdict</th></tr>
{{range .A.Candidates}}<tr><td class="n">{{.Rank}}</td><td><code>{{.Display}}</code></td><td class="n">{{pct .Criteria.SingleShard}}</td><td class="n">{{txnpct .}}</td><td>{{yesno .Criteria.Boundary}}</td><td class="n">{{largest .}}</td><td class="n">{{num .Criteria.MaxShardWork}}</td><td class="n">{{num .Criteria.AfterFixes}}</td><td>{{.Verdict}}</td></tr>
{{end}}</table>
{{range .Cands}}<h2>{{.Rank}}. <code>{{.Display}}</code></h2><p>{{.Verdict}}</p>
<ul>{{range .Reasons}}<li>{{.}}</li>{{end}}</ul>
{{with .Work}}{{if .Bars}}<figure><svg viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Title}}">{{range .Bars}}<rect class="{{if .Over}}over{{else}}bar{{end}}" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"><title>{{.Label}}</title></rect>{{end}}{{if .MeanY}}<line class="mean" x1="0" x2="{{.Width}}" y1="{{.MeanY}}" y2="{{.MeanY}}"><title>mean</title></line>{{end}}{{if .HasCap}}<line class="cap" x1="0" x2="{{.Width}}" y1="{{.CapY}}" y2="{{.CapY}}"><title>capacity</title></line>{{end}}{{range .Labels}}<text x="{{.X}}" y="{{.Y}}" text-anchor="{{.Anchor}}">{{.Text}}</text>{{end}}</svg><figcaption>{{.Title}}; grey line: the mean{{if .HasCap}}; dashed line: capacity; red: over capacity{{end}}</figcaption></figure>{{end}}{{end}}
{{with .Fanout}}{{if .Bars}}<figure><svg viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Title}}">{{range .Bars}}<rect class="bar" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"><title>{{.Label}}</title></rect>{{end}}{{range .Labels}}<text x="{{.X}}" y="{{.Y}}" text-anchor="{{.Anchor}}">{{.Text}}</text>{{end}}</svg><figcaption>{{.Title}}; full height = every shard; the bars are the operations:<ol class="legend">{{range .Legend}}<li>{{.}}</li>{{end}}</ol></figcaption></figure>{{end}}{{end}}
{{if .Expensive}}<h3>Expensive under this key</h3><ul>{{range .Expensive}}<li>{{.Name}}: {{num .Rate}} req/s ask {{printf "%.1f" .FanoutMean}} shards each, +{{num .ExtraWork}} units/s</li>{{end}}</ul>{{end}}
{{range .Fixes}}<div class="fix"><b>{{.Kind}}</b>: {{.Text}}</div>{{end}}
{{end}}
<h2>Which choice could still change in two years</h2><ul>{{range .A.Durable}}<li>{{.}}</li>{{end}}</ul>
{{range .A.Flags}}<p><b>flag:</b> {{.}}</p>{{end}}
{{if .A.Warnings}}<h2>Warnings</h2><ul>{{range .A.Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}
</body></html>
`))
