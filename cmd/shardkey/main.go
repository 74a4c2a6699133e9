package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"sync"

	"github.com/shardkey/shardkey/internal/buildinfo"
	vtlog "vitess.io/vitess/go/vt/log"

	"github.com/shardkey/shardkey"
)

func main() {
	os.Exit(profiled())
}

// profiled runs the command, under a CPU profile or an execution trace
// when asked, for performance work (see docs/performance.md):
// SHARDKEY_CPUPROFILE=file writes a CPU profile (go tool pprof),
// SHARDKEY_TRACE=file an execution trace (go tool trace) that shows which
// phases overlap and which is on the critical path, SHARDKEY_MEMPROFILE=file
// a profile of every allocation the run made (sampled every 64 KiB;
// go tool pprof -sample_index=alloc_space).
func profiled() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if p := os.Getenv("SHARDKEY_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil {
			pprof.StartCPUProfile(f)
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	if p := os.Getenv("SHARDKEY_TRACE"); p != "" {
		if f, err := os.Create(p); err == nil {
			trace.Start(f)
			defer func() { trace.Stop(); f.Close() }()
		}
	}
	if p := os.Getenv("SHARDKEY_MEMPROFILE"); p != "" {
		runtime.MemProfileRate = 64 << 10
		defer func() {
			runtime.GC() // the profile holds what the last collection saw
			if f, err := os.Create(p); err == nil {
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// env is what a command may touch: its streams and context. Commands never
// use os.Stdout directly, so tests run them in-process.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

type command struct {
	name  string
	short string
	run   func(e *env, args []string) error
}

var commands = []command{
	{"advise", "recommend a shard key for a workload, explain it, and propose fixes (default: the social scenario)", runAdvise},
	{"score", "score the keys you name (-k) against a workload", runScore},
	{"demo", "score a built-in scenario from the seed documents (social, orders, chat, workspace)", runDemo},
	{"place", "show where values land on a real engine (redis, cassandra, mongodb, vitess, ...)", runPlace},
	{"explain", "show which shards one SQL statement touches under a key, and why", runExplain},
	{"watch", "replay a query log as a time series per design, with events when the decision stops holding", runWatch},
	{"serve", "run the interactive playground in the browser (127.0.0.1 by default)", runServe},
}

// run executes one command line and returns the exit status: 0 on
// success, 1 for an input or runtime error, 2 for a usage error.
//
// A panic in the command's goroutine (a bug; the readers turn a panic of
// a third-party parser into an input error themselves) is reported as an
// internal error with status 1, so that 2 always means a usage error.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			name := "shardkey"
			if len(args) > 0 {
				name += " " + args[0]
			}
			fmt.Fprintf(stderr, "%s: internal error (a bug: please report it with the command line): %v\n", name, p)
			code = 1
		}
	}()
	quietVitess()
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: &onceWarnings{w: stderr}}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version") {
		fmt.Fprintf(stdout, "shardkey %s\n", buildinfo.Version())
		return 0
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(e, args[1:])
			if err == nil {
				return 0
			}
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			fmt.Fprintf(stderr, "shardkey %s: %v\n", c.name, err)
			if errors.Is(err, shardkey.ErrUsage) {
				return 2
			}
			return 1
		}
	}
	fmt.Fprintf(stderr, "shardkey: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "shardkey tells you which shard key to choose, from your own workload.")
	fmt.Fprintln(w, "\nUsage: shardkey COMMAND [flags] [args]\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.short)
	}
	fmt.Fprintln(w, "\nRun 'shardkey COMMAND -h' for a command's flags, 'shardkey --version' for the version.")
	fmt.Fprintln(w, "Start with: shardkey advise")
	fmt.Fprintln(w, "Exit status: 0 success, 1 bad input (FILE:LINE: FIELD: what is wrong), 2 usage error.")
}

// parseInterspersed parses flags that may come before, between or after
// positional arguments, and returns the positional ones. "--" ends flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &shardkey.UsageError{Msg: err.Error()}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// fs.Parse stops at the first non-flag, or after "--".
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func usageErr(format string, args ...any) error {
	return &shardkey.UsageError{Msg: fmt.Sprintf(format, args...)}
}

// onceWarnings passes everything to w except a "warning: " line already
// written: a warning some reader prints as soon as it is known (livedb's
// Notices: a superuser connection, before a long read) is also among the
// workload's warnings, which every command prints with its report (and
// puts in every format's document); on standard error it appears once.
// Each warning is written by one Write call of one or more whole lines.
//
// It also keeps the warnings in the order written (their text, without
// "warning: " and the final newline), for the table output's closing
// block (writeWarnings).
type onceWarnings struct {
	w     io.Writer
	seen  map[string]bool
	order []string
}

func (o *onceWarnings) Write(p []byte) (int, error) {
	s := string(p)
	if !strings.HasPrefix(s, "warning: ") || !strings.HasSuffix(s, "\n") {
		return o.w.Write(p)
	}
	if o.seen[s] {
		return len(p), nil
	}
	if o.seen == nil {
		o.seen = map[string]bool{}
	}
	o.seen[s] = true
	o.order = append(o.order, strings.TrimSuffix(strings.TrimPrefix(s, "warning: "), "\n"))
	return o.w.Write(p)
}

// warnings returns the warnings written to e's standard error so far, in
// order, each once (see onceWarnings); nil when e.stderr does not keep
// them.
func (e *env) warnings() []string {
	if o, ok := e.stderr.(*onceWarnings); ok {
		return o.order
	}
	return nil
}

// quietVitess discards what Vitess's packages log (vitess.io/vitess/go/vt/log:
// a structured record on standard error, glog-style lines when glog is
// chosen), such as sqlparser's "ignoring error parsing DDL": its lines are
// not the command's, and what matters of them reaches the user as the
// command's own errors and warnings.
func quietVitess() { quietVitessOnce.Do(quietVitessNow) }

var quietVitessOnce sync.Once

func quietVitessNow() {
	vtlog.SwapLogger(slog.New(slog.DiscardHandler))
	nop := func(string, ...slog.Attr) {}
	vtlog.Debug, vtlog.Info, vtlog.Warn, vtlog.Error = nop, nop, nop, nop
}

// writeWarnings ends a table output with the warnings written to
// standard error, the same text, under "warnings:": standard output
// redirected to a file keeps them, as the JSON, Markdown and HTML
// documents do. Nothing when there are none.
func writeWarnings(w io.Writer, warnings []string) {
	if len(warnings) == 0 {
		return
	}
	fmt.Fprintln(w, "\nwarnings:")
	for _, wn := range warnings {
		fmt.Fprintln(w, "  - "+strings.ReplaceAll(wn, "\n", "\n    "))
	}
}

// Fd is the descriptor of the writer under o when it is a file (so that
// progress bars still find the terminal), else an invalid one.
func (o *onceWarnings) Fd() uintptr {
	if f, ok := o.w.(*os.File); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}
