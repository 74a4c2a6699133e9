package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/shardkey/shardkey/sim"
	"github.com/shardkey/shardkey/watch"
)

// windowWriter renders watch's windows as they come: one JSON object per
// line, a table block per window, or (at Close) an HTML report. Close
// takes the warnings raised at the close of the run (Watcher.Close), which
// every format puts in its document.
type windowWriter interface {
	Window(r *watch.Report) error
	Close(closing []string) error
}

func newWindowWriter(w io.Writer, format string, title string) windowWriter {
	switch format {
	case "json":
		return &jsonWindows{enc: json.NewEncoder(w)}
	case "html":
		return &htmlWindows{w: w, title: title}
	}
	return &tableWindows{w: w}
}

type jsonWindows struct{ enc *json.Encoder }

func (j *jsonWindows) Window(r *watch.Report) error { return j.enc.Encode(r) }

// Close ends the stream, when the close of the run raised warnings, with
// one more line that is not a window: {"summary": true, "warnings": [...]}
// (no "start"; docs/watch.md).
func (j *jsonWindows) Close(closing []string) error {
	if len(closing) == 0 {
		return nil
	}
	return j.enc.Encode(struct {
		Summary  bool     `json:"summary"`
		Warnings []string `json:"warnings"`
	}{true, closing})
}

// tableWindows prints one block per window: a row per design, the
// per-shard work, then the window's events and warnings.
type tableWindows struct{ w io.Writer }

func (t *tableWindows) Close(closing []string) error {
	writeWarnings(t.w, closing)
	return nil
}

// partialSpan is a partial window's span, "19.99 s of 20 s": the part
// covered to the millisecond (19.99 s of a 20 s window is not "20.0").
func partialSpan(r *watch.Report) string {
	covered := "unknown"
	x := r.CoveredSeconds // the part covered when too short for a rate
	if r.Seconds.Known() {
		x = float64(r.Seconds)
	}
	if x > 0 {
		covered = strconv.FormatFloat(math.Round(x*1000)/1000, 'f', -1, 64)
	}
	return covered + " s of " + num(r.End.Sub(r.Start).Seconds()) + " s"
}

// numOr is x as num writes it, or "unknown".
func numOr(x watch.Num) string {
	if !x.Known() {
		return "unknown"
	}
	return num(float64(x))
}

func (t *tableWindows) Window(r *watch.Report) error {
	span := numOr(r.Seconds) + " s"
	if r.Partial {
		// The log covers only part of the window: the rates are over it.
		// To the millisecond: 19.99 s of a 20 s window is not "20.0".
		span = partialSpan(r) + ", partial"
	}
	stmts := "statements"
	if r.Statements == 1 {
		stmts = "statement"
	}
	fmt.Fprintf(t.w, "%s - %s UTC  (%s, %s %s)\n", r.Start.Format("2006-01-02 15:04:05"), r.End.Format("15:04:05"), span, num(float64(r.Statements)), stmts)
	if len(r.Designs) > 0 {
		tw := tabwriter.NewWriter(t.w, 0, 0, 2, ' ', 0)
		// Fan-out counts nodes when the designs' slots are on nodes under
		// an engine that sends one request per node (redis); the same for
		// every design of a run. The same head as score's: "fan-out (nodes)".
		fan := "fan-out"
		if r.Designs[0].FanoutPer == "node" {
			fan = "fan-out (nodes)"
		}
		fmt.Fprintf(tw, "  design\trequests/s\twork/s\tmax/mean\t%s\tp99\tscatter\tcross-shard txns\ttop keys (share of requests)\n", fan)
		for _, d := range r.Designs {
			var keys []string
			for i, k := range d.TopKeys {
				if i == 3 {
					break
				}
				keys = append(keys, fmt.Sprintf("%s %s", k.Key, pct(k.Share)))
			}
			cross := pct(d.CrossShardTxnFraction)
			if d.RolledBackCrossShardFraction != nil { // as advise's cell: "25% (of rolled-back: 40% crossed)"
				cross += sim.RolledBackNote(*d.RolledBackCrossShardFraction)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Key, numOr(d.RequestsPerS), numOr(d.WorkPerS), num(d.WorkRatio),
				strconv.FormatFloat(d.FanoutMean, 'f', 2, 64), num(d.FanoutP99), pct(d.ScatterShare), cross, strings.Join(keys, ", "))
		}
		tw.Flush()
		for _, d := range r.Designs {
			parts := make([]string, len(d.ShardWork))
			for i, x := range d.ShardWork {
				parts[i] = num(x)
			}
			if r.Instant {
				parts = []string{"unknown (one instant: no rate)"}
				if r.Partial {
					parts = []string{"unknown (too short a part of the window for a rate)"}
				}
			}
			fmt.Fprintf(t.w, "  %s work/s per shard: %s\n", d.Key, strings.Join(parts, " "))
			if d.Candidate != nil {
				if rb := d.Candidate.RolledBackText(r.RolledBackTxns); rb != "" {
					fmt.Fprintf(t.w, "  %s: %s\n", d.Key, rb)
				}
			}
			if d.NodeWork != nil {
				parts = parts[:0]
				for _, x := range d.NodeWork {
					parts = append(parts, num(x))
				}
				fmt.Fprintf(t.w, "  %s work/s per node: %s (max/mean %s)\n", d.Key, strings.Join(parts, " "), num(d.NodeWorkRatio))
			}
		}
	}
	for _, e := range r.Events {
		fmt.Fprintf(t.w, "  ! %s %s: %s\n", e.Type, e.Design, e.Message)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(t.w, "  warning: %s\n", w)
	}
	fmt.Fprintln(t.w)
	return nil
}
