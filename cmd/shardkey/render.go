package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/shardkey/shardkey"
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

// countsOnly, for a workload whose rates are counts over an unknown span
// (shardkey.Workload.RatesRelative: a pg_stat_statements export, whose
// reader takes each statement's calls as its rate over a span of 1), has
// the command's standard output say counts, not rates per second: the
// reports write "/s" throughout, and what the input supports is the
// counts (countUnits). It buffers standard output and returns the
// function that writes it, to run when the command's output is done.
// JSON keeps its pinned field names (requests_per_s, ...).
func countsOnly(e *env, w *shardkey.Workload) func() error {
	if !w.RatesRelative {
		return func() error { return nil }
	}
	out, buf := e.stdout, &bytes.Buffer{}
	e.stdout = buf
	return func() error {
		e.stdout = out
		_, err := out.Write(countUnits(buf.Bytes()))
		return err
	}
}

// perSecond matches a per-second unit after a number or a noun (9.56/s,
// requests/s, units of work/s), with the blanks padding a table cell
// after it; perSecondWords matches " per second".
var (
	perSecond      = regexp.MustCompile(`(\d|\b(?:requests|units of work|units|work|writes|reads|req|rows|statements|calls|inserts))/s\b( {2,})?`)
	perSecondWords = regexp.MustCompile(` per second\b`)
)

// countUnits drops the per-second units of b: "9.56/s" is "9.56",
// "requests/s" "requests", "units of work per second" "units of work". A
// table cell keeps its width (the two bytes go to its padding), so the
// columns stay aligned.
func countUnits(b []byte) []byte {
	b = perSecond.ReplaceAllFunc(b, func(m []byte) []byte {
		i := bytes.Index(m, []byte("/s"))
		out := append([]byte{}, m[:i]...)
		if pad := m[i+2:]; len(pad) > 0 {
			out = append(append(out, pad...), "  "...)
		}
		return out
	})
	return perSecondWords.ReplaceAll(b, nil)
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
