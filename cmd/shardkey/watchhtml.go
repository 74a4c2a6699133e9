package main

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/shardkey/shardkey/watch"
)

// htmlWindows keeps a summary of every window (per design: per-shard
// work, max/mean, scatter and cross-shard shares, top-key shares, events)
// and writes one self-contained HTML page at Close: inline SVG charts, no
// script, no external resource. Its memory grows with the number of
// windows times shards and reported keys; for an unbounded --follow use
// json or --listen.
type htmlWindows struct {
	w       io.Writer
	title   string
	times   []time.Time
	instant int      // windows of one instant: no rate, no per-shard work drawn
	partial []string // windows the log covers only part of: "start (s of length s)"
	designs []string
	per     map[string]*designSeries
	events  []watch.Event
	evTimes []time.Time
	warns   []string
}

type designSeries struct {
	shards  [][]float64 // by window, by shard
	ratio   []float64
	scatter []float64
	cross   []float64
	keys    map[string][]float64 // key -> share by window (NaN: not reported)
	best    map[string]float64   // key -> largest share
}

func (h *htmlWindows) Window(r *watch.Report) error {
	if h.per == nil {
		h.per = map[string]*designSeries{}
	}
	i := len(h.times)
	h.times = append(h.times, r.Start)
	if r.Instant {
		h.instant++
	}
	if r.Partial {
		h.partial = append(h.partial, fmt.Sprintf("%s (%s)", r.Start.Format("2006-01-02 15:04:05"), partialSpan(r)))
	}
	for _, d := range r.Designs {
		s := h.per[d.Key]
		if s == nil {
			s = &designSeries{keys: map[string][]float64{}, best: map[string]float64{}}
			h.per[d.Key] = s
			h.designs = append(h.designs, d.Key)
		}
		for len(s.ratio) < i { // windows the design was left out of
			s.shards = append(s.shards, nil)
			s.ratio = append(s.ratio, math.NaN())
			s.scatter = append(s.scatter, math.NaN())
			s.cross = append(s.cross, math.NaN())
		}
		s.shards = append(s.shards, d.ShardWork)
		s.ratio = append(s.ratio, d.WorkRatio)
		s.scatter = append(s.scatter, d.ScatterShare)
		s.cross = append(s.cross, d.CrossShardTxnFraction)
		for _, k := range d.TopKeys {
			v := s.keys[k.Key]
			for len(v) < i {
				v = append(v, math.NaN())
			}
			s.keys[k.Key] = append(v, k.Share)
			s.best[k.Key] = math.Max(s.best[k.Key], k.Share)
		}
	}
	for _, e := range r.Events {
		h.events = append(h.events, e)
		h.evTimes = append(h.evTimes, r.Start)
	}
	for _, w := range r.Warnings {
		h.warns = append(h.warns, r.Start.Format(time.RFC3339)+": "+w)
	}
	return nil
}

type htmlDesign struct {
	Key    string
	Charts []template.HTML
	Events []htmlEvent
}

type htmlEvent struct {
	N    int
	Time string
	watch.Event
}

// Close writes the page; the run's closing warnings follow the windows'.
func (h *htmlWindows) Close(closing []string) error {
	h.warns = append(h.warns, closing...)
	page := struct {
		Title    string
		From, To string
		Windows  int
		Partial  []string
		Designs  []htmlDesign
		Warnings []string
	}{Title: h.title, Windows: len(h.times), Partial: h.partial, Warnings: h.warns}
	if len(h.times) > 0 {
		page.From = h.times[0].Format("2006-01-02 15:04:05")
		page.To = h.times[len(h.times)-1].Format("2006-01-02 15:04:05")
	}
	for _, key := range h.designs {
		s := h.per[key]
		n := len(h.times)
		pad := func(v []float64) []float64 {
			for len(v) < n {
				v = append(v, math.NaN())
			}
			return v
		}
		var marks []mark
		hd := htmlDesign{Key: key}
		for i, e := range h.events {
			if e.Design != key {
				continue
			}
			ev := htmlEvent{N: len(hd.Events) + 1, Time: h.evTimes[i].Format("15:04:05"), Event: e}
			hd.Events = append(hd.Events, ev)
			marks = append(marks, mark{at: h.evTimes[i], label: fmt.Sprint(ev.N), title: e.Message})
		}
		// Per-shard work: a line per shard (max, mean and min beyond 16).
		nsh := 0
		for _, w := range s.shards {
			nsh = max(nsh, len(w))
		}
		var shardSeries []series
		if nsh <= 16 {
			for k := range nsh {
				v := make([]float64, n)
				for i := range v {
					v[i] = math.NaN()
					if i < len(s.shards) && k < len(s.shards[i]) {
						v[i] = s.shards[i][k]
					}
				}
				shardSeries = append(shardSeries, series{name: fmt.Sprintf("shard %d", k), v: v})
			}
		} else {
			mx, mn, avg := make([]float64, n), make([]float64, n), make([]float64, n)
			for i := range n {
				mx[i], mn[i], avg[i] = math.NaN(), math.NaN(), math.NaN()
				if i < len(s.shards) && len(s.shards[i]) > 0 {
					w := s.shards[i]
					mx[i], mn[i], avg[i] = w[0], w[0], 0
					for _, x := range w {
						mx[i], mn[i] = math.Max(mx[i], x), math.Min(mn[i], x)
						avg[i] += x / float64(len(w))
					}
				}
			}
			shardSeries = []series{{"max shard", mx}, {"mean", avg}, {"min shard", mn}}
		}
		// A window of one instant has no rate: no point (not 0), and the
		// title says why.
		title := "Work per shard (units/s)"
		switch {
		case h.instant == n:
			title += ": unknown, every window is one instant (no duration, no rate)"
		case h.instant > 0:
			title += fmt.Sprintf("; no point for the %d window(s) of one instant (no duration, no rate)", h.instant)
		}
		hd.Charts = append(hd.Charts, lineChart(title, h.times, shardSeries, marks, num))
		hd.Charts = append(hd.Charts, lineChart("Max/mean of per-shard work", h.times, []series{{"max/mean", pad(s.ratio)}}, marks, num))
		keys := make([]string, 0, len(s.best))
		for k := range s.best {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if s.best[keys[i]] != s.best[keys[j]] {
				return s.best[keys[i]] > s.best[keys[j]]
			}
			return keys[i] < keys[j]
		})
		if len(keys) > 8 {
			keys = keys[:8]
		}
		var keySeries []series
		for _, k := range keys {
			keySeries = append(keySeries, series{name: "key " + k, v: pad(s.keys[k])})
		}
		hd.Charts = append(hd.Charts, lineChart("Top keys: share of requests (the 8 with the largest peak)", h.times, keySeries, marks, pct))
		hd.Charts = append(hd.Charts, lineChart("Scatter-gather share of requests; cross-shard share of transactions", h.times,
			[]series{{"scatter share", pad(s.scatter)}, {"cross-shard txns", pad(s.cross)}}, marks, pct))
		page.Designs = append(page.Designs, hd)
	}
	return watchPage.Execute(h.w, page)
}

type series struct {
	name string
	v    []float64 // by window; NaN where there is no value
}

type mark struct {
	at    time.Time
	label string
	title string
}

var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// lineChart draws series over window start times as an inline SVG, with
// event marks as numbered vertical lines (their message in a tooltip).
func lineChart(title string, times []time.Time, ss []series, marks []mark, yfmt func(float64) string) template.HTML {
	const W, H, left, right, top, bottom = 760.0, 230.0, 64.0, 150.0, 24.0, 34.0
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img"><title>%s</title>`, W, H, W, H, template.HTMLEscapeString(title))
	fmt.Fprintf(&b, `<text x="%g" y="15" class="t">%s</text>`, left, template.HTMLEscapeString(title))
	ymax := 0.0
	for _, s := range ss {
		for _, x := range s.v {
			if !math.IsNaN(x) {
				ymax = math.Max(ymax, x)
			}
		}
	}
	if ymax <= 0 {
		ymax = 1
	}
	ymax *= 1.05
	n := len(times)
	t0, t1 := time.Time{}, time.Time{}
	if n > 0 {
		t0, t1 = times[0], times[n-1]
	}
	span := t1.Sub(t0).Seconds()
	px := func(t time.Time) float64 {
		if span <= 0 {
			return left + (W-left-right)/2
		}
		return left + (W-left-right)*t.Sub(t0).Seconds()/span
	}
	py := func(y float64) float64 { return top + (H-top-bottom)*(1-y/ymax) }
	// Axes, four horizontal grid lines with their values.
	for k := 0; k <= 4; k++ {
		y := ymax * float64(k) / 4
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" class="g"/><text x="%g" y="%.1f" class="y">%s</text>`,
			left, py(y), W-right, py(y), left-4, py(y)+4, template.HTMLEscapeString(yfmt(y)))
	}
	if n > 0 {
		fmt.Fprintf(&b, `<text x="%g" y="%g" class="x">%s</text><text x="%g" y="%g" class="x">%s</text>`,
			left, H-10, t0.Format("15:04:05"), W-right, H-10, t1.Format("15:04:05"))
	}
	for _, m := range marks {
		x := px(m.at)
		fmt.Fprintf(&b, `<g class="ev"><title>%s</title><line x1="%.1f" y1="%g" x2="%.1f" y2="%g"/><text x="%.1f" y="%g">%s</text></g>`,
			template.HTMLEscapeString(m.title), x, top, x, H-bottom, x+2, top+10, template.HTMLEscapeString(m.label))
	}
	for si, s := range ss {
		color := palette[si%len(palette)]
		var pts []string
		flush := func() {
			if len(pts) == 1 {
				var x, y float64
				fmt.Sscanf(pts[0], "%g,%g", &x, &y)
				fmt.Fprintf(&b, `<circle cx="%g" cy="%g" r="2.5" fill="%s"/>`, x, y, color)
			} else if len(pts) > 1 {
				fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`, color, strings.Join(pts, " "))
			}
			pts = pts[:0]
		}
		for i, y := range s.v {
			if i >= n || math.IsNaN(y) {
				flush()
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(times[i]), py(y)))
		}
		flush()
		ly := top + 14*float64(si)
		fmt.Fprintf(&b, `<rect x="%g" y="%g" width="10" height="3" fill="%s"/><text x="%g" y="%g" class="l">%s</text>`,
			W-right+8, ly+4, color, W-right+22, ly+8, template.HTMLEscapeString(s.name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

var watchPage = template.Must(template.New("watch").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>shardkey watch: {{.Title}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:980px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em}
svg{display:block;margin:1em 0}
svg .t{font-weight:bold;font-size:13px}svg .y{font-size:11px;text-anchor:end;fill:#555}
svg .x{font-size:11px;fill:#555}svg .l{font-size:11px}svg .g{stroke:#ddd}
svg .ev line{stroke:#c00;stroke-dasharray:4 3}svg .ev text{font-size:11px;fill:#c00}
table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}
.warn{color:#a50}
</style></head><body>
<h1>shardkey watch: {{.Title}}</h1>
<p>{{.Windows}} windows from {{.From}} to {{.To}} UTC. Red dashed lines mark events (hover for the message); each window's figures are those of <code>shardkey score</code> on that window's slice of the log.</p>
{{if .Partial}}<p class="warn">Partial windows (the log covers only part of them; their rates are over that part, unknown where it is under both 1 s and a tenth of the window): {{range $i, $p := .Partial}}{{if $i}}, {{end}}{{$p}}{{end}}.</p>
{{end}}{{range .Designs}}<h2>{{.Key}}</h2>
{{range .Charts}}{{.}}
{{end}}{{if .Events}}<table><tr><th>#</th><th>window</th><th>event</th><th>what</th></tr>
{{range .Events}}<tr><td>{{.N}}</td><td>{{.Time}}</td><td>{{.Type}}</td><td>{{.Message}}</td></tr>
{{end}}</table>{{else}}<p>No events: the design held in every window.</p>{{end}}
{{end}}{{if .Warnings}}<h2>Warnings</h2><ul>{{range .Warnings}}<li class="warn">{{.}}</li>{{end}}</ul>{{end}}
</body></html>
`))
