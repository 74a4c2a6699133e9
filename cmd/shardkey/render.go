package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/shardkey/shardkey/internal/numfmt"
	skreport "github.com/shardkey/shardkey/report"
	"github.com/shardkey/shardkey/sim"
)

// report is the document of score and demo (report.Score).
type report = skreport.Score

func newReport(l *loaded, cands []*sim.Candidate) *report {
	return skreport.NewScore(l.w, l.opts.Engine.Name(), cands)
}

// scoreFormats are the --format renderers of the score document (score,
// demo), in the order help texts list them: a new output format is a
// function in a file of its own and one line here.
var scoreFormats = []struct {
	name   string
	render func(*report, io.Writer) error
}{
	{"table", (*report).WriteTable},
	{"json", (*report).WriteJSON},
	{"markdown", (*report).WriteMarkdown},
}

// formatNames lists the names of fs, in order.
func formatNames[T any](fs []struct {
	name   string
	render func(T, io.Writer) error
}) []string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return names
}

// render writes r in format to w, one of scoreFormats (validated with
// the flags); warnings (the workload's and each candidate's) go to werr,
// where they cannot be taken for a line of the table, and into the JSON
// and Markdown documents as well.
func render(w, werr io.Writer, format string, r *report) error {
	for _, wn := range r.Warnings {
		fmt.Fprintf(werr, "warning: %s\n", wn)
	}
	for _, c := range r.Ranked() {
		for _, wn := range c.Warnings {
			fmt.Fprintf(werr, "warning: %s\n", wn)
		}
	}
	for _, f := range scoreFormats {
		if f.name == format {
			return f.render(r, w)
		}
	}
	return usageErr("--format %q: want %s", format, orList(formatNames(scoreFormats)))
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// num, pct, commas, wrap and ratioText format for people (internal/numfmt).
func num(x float64) string                           { return numfmt.Num(x) }
func pct(x float64) string                           { return numfmt.Pct(x) }
func commas(n int64) string                          { return numfmt.Commas(n) }
func wrap(s string, width int, indent string) string { return numfmt.Wrap(s, width, indent) }
func ratioText(x float64) string                     { return numfmt.Ratio(x) }
func mdText(s string) string                         { return skreport.MarkdownText(s) }
func mdCell(s string) string                         { return skreport.MarkdownCell(s) }
