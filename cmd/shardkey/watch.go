package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/livedb"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
	"github.com/shardkey/shardkey/sqllog"
	"github.com/shardkey/shardkey/watch"
	"github.com/shardkey/shardkey/workload"
)

// watchCmd holds watch's flags.
type watchCmd struct {
	logFile   string
	logFormat string
	keys      listFlag
	shards    int
	engine    string
	format    string
	window    time.Duration
	seed      int64
	th        watch.Thresholds
	track     int
	top       int
	listen    string
	follow    bool
	slots     int
	nodes     int
	slotMap   string
	from      string
	sample    int
}

func runWatch(e *env, args []string) error {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	c := watchCmd{th: watch.DefaultThresholds}
	fs.Var((*onceFlag)(&c.logFile), "log", "query log `file` (PostgreSQL stderr, csvlog or jsonlog; MySQL/MariaDB general or slow log; .gz or .zst; a directory or glob of rotated files, read in time order; - for standard input)")
	fs.StringVar(&c.logFormat, "log-format", "", "log `format` (default: detected)")
	fs.Var(&c.keys, "k", "`design` to watch, e.g. 'hash(user_id)'; repeatable")
	fs.Var(&c.keys, "key", "same as -k")
	fs.IntVar(&c.shards, "shards", 8, "number of `shards`")
	fs.StringVar(&c.engine, "engine", "generic", "placement `engine` of hash keys: "+strings.Join(partition.Names(), ", "))
	fs.StringVar(&c.format, "format", "table", "output `format`: table (a block per window as it closes), json (one object per window, JSON lines) or html (one page with charts, at the end)")
	fs.DurationVar(&c.window, "window", time.Minute, "window `length`, from the log's own timestamps (e.g. 10s, 1m, 5m)")
	fs.Int64Var(&c.seed, "seed", 0, "`seed` of the per-window samples")
	fs.Float64Var(&c.th.KeyLow, "key-low", c.th.KeyLow, "a key re-arms below this `share` of requests (0..1)")
	fs.Float64Var(&c.th.KeyHigh, "key-high", c.th.KeyHigh, "hot_key when a key rises above this `share` of requests (0..1)")
	fs.Float64Var(&c.th.WorkRatio, "max-mean", c.th.WorkRatio, "work_ratio event when max/mean of per-shard work rises above this `ratio`")
	fs.Float64Var(&c.th.ScatterFraction, "scatter-fraction", c.th.ScatterFraction, "new_scatter_shape when a new shape scatters at least this `share` of its requests")
	fs.Float64Var(&c.th.ScatterRise, "scatter-rise", c.th.ScatterRise, "scatter_rise when a shape's scatter share of all requests rises by more than this `share`")
	fs.IntVar(&c.track, "track-keys", 1000, "`keys` tracked per design and window by the heavy-hitter sketch")
	fs.IntVar(&c.top, "top-keys", 10, "`keys` reported per design and window")
	fs.IntVar(&c.slots, "slots", 0, "logical `shards` (slots) keys hash to; with --nodes, windows give per-node work too, and under redis fan-out counts nodes")
	fs.IntVar(&c.nodes, "nodes", 0, "`nodes` the slots are placed on (with --slots)")
	fs.StringVar(&c.slotMap, "slot-map", "contiguous", "slot placement: contiguous, round-robin, or a map `file` (lines SLOT NODE or FIRST-LAST NODE)")
	fs.StringVar(&c.from, "from", "", "poll a live database's statement statistics (pg_stat_statements; MySQL performance_schema) every --window, read-only: `DSN` postgres://... or mysql://...")
	fs.IntVar(&c.sample, "sample-rows", 100000, "rows sampled per table with --from (the statements' parameters are drawn from them)")
	fs.BoolVar(&c.follow, "follow", false, "follow the --log file as it grows, through rotation (as tail -F), until Ctrl-C")
	fs.StringVar(&c.listen, "listen", "", "serve Prometheus metrics of the last closed window at http://`ADDR`/metrics (e.g. 127.0.0.1:9464); after a replay, serves until Ctrl-C")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: shardkey watch --log FILE -k DESIGN [-k DESIGN ...] [flags]
       shardkey watch --from DSN -k DESIGN [-k DESIGN ...] [flags]

Replays a query log as a time series: in each window (--window, from the
log's own timestamps) and for each design, per-shard work, max/mean,
scatter share per statement shape, cross-shard transactions and top keys
by traffic, and events when the decision stops holding (a hot key, a
max/mean above its threshold, a new shape that scatters, a rising scatter
share). Each window's figures are those of 'shardkey score' on that
window's slice of the log. --from polls a live database's statement
statistics instead. See docs/watch.md.

Examples:
  shardkey watch --log postgresql.log --window 10s --shards 4 -k 'hash(aid)'
  shardkey watch --log /var/log/postgresql/postgresql.log --follow --window 1m \
      --listen 127.0.0.1:9464 --format json -k 'hash(customer_id)' -k 'hash(order_id)'

Flags:
`)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr("unexpected argument %q", pos[0])
	}
	switch {
	case c.logFile != "" && c.from != "":
		return usageErr("give --log FILE or --from DSN, not both")
	case c.from != "" && c.follow:
		return usageErr("--follow follows a log file; --from polls the database anyway")
	case c.logFile == "" && c.from == "":
		return usageErr("no input: give --log FILE (or --from DSN to poll statement statistics)")
	case len(c.keys) == 0:
		return usageErr("no design to watch: name one with -k 'hash(col)'")
	case c.follow && (c.logFile == "-" || strings.HasSuffix(c.logFile, ".gz")):
		return usageErr("--follow needs a plain log file that the server writes (not %s)", c.logFile)
	case c.window < sqllog.MinWindow:
		return usageErr("--window %v: must be at least %v", c.window, sqllog.MinWindow)
	case c.shards < 1 || c.shards > 1<<16:
		return usageErr("--shards %d: must be in 1..65536", c.shards)
	case c.track < 1:
		return usageErr("--track-keys %d: must be >= 1", c.track)
	case c.top < 0:
		return usageErr("--top-keys %d: must be >= 0", c.top)
	}
	if c.logFile != "" && c.logFile != "-" && !c.follow {
		// A missing or unreadable log is a usage error naming --log (exit
		// 2), as advise's; a directory or glob is a rotated set, read in
		// time order. --follow waits for a file that does not exist yet.
		if err := workload.CheckLog("--log", c.logFile); err != nil {
			return err
		}
	}
	if st, err := os.Stat(c.logFile); c.follow && err == nil && st.IsDir() {
		return usageErr("--follow needs a plain log file that the server writes (not the directory %s)", c.logFile)
	}
	switch c.format {
	case "table", "json", "html":
	default:
		return usageErr("--format %q: want table, json or html", c.format)
	}
	eng, err := partition.Lookup(c.engine)
	if err != nil {
		return usageErr("--engine: %v", err)
	}
	var nodes *sim.Nodes
	if c.slots != 0 || c.nodes != 0 {
		shardsSet := false
		fs.Visit(func(f *flag.Flag) { shardsSet = shardsSet || f.Name == "shards" })
		switch {
		case shardsSet && c.shards != c.slots:
			return usageErr("--shards %d and --slots %d: with --slots the design's shards are its slots; give one", c.shards, c.slots)
		case eng.Name() == "redis" && c.slots != partition.RedisSlots:
			return checkRedisSlots(c.slots)
		case c.slots < 1 || c.slots > 1<<16:
			return usageErr("--slots %d: must be in 1..65536 (with --nodes)", c.slots)
		case c.nodes < 1 || c.nodes > c.slots:
			return usageErr("--nodes %d: must be in 1..--slots (%d)", c.nodes, c.slots)
		}
		c.shards = c.slots
		if c.slotMap == "contiguous" || c.slotMap == "round-robin" {
			nodes, err = sim.NewNodes(c.slots, c.nodes, c.slotMap)
		} else if err = workload.CheckFile("--slot-map", c.slotMap, c.slotMap); err == nil {
			if nodes, err = sim.ReadNodes(c.slotMap, c.slots); err == nil && nodes.Count != c.nodes {
				err = fmt.Errorf("%s: the map places slots on %d nodes; --nodes says %d", c.slotMap, nodes.Count, c.nodes)
			}
		}
		if err != nil {
			return err
		}
	}
	th := c.th
	wt, err := watch.New(watch.Options{Designs: c.keys, Sim: sim.Options{Shards: c.shards, Engine: eng}, Thresholds: &th, TrackKeys: c.track, TopKeys: c.top, Nodes: nodes})
	if err != nil {
		return err
	}
	var metrics *watch.Metrics
	var stopServer func() error
	if c.listen != "" {
		metrics = watch.NewMetrics()
		if stopServer, err = serveMetrics(e, c.listen, metrics); err != nil {
			return err
		}
		defer func() {
			if stopServer != nil {
				stopServer()
			}
		}()
	}
	out := newWindowWriter(e.stdout, c.format, c.logFile)
	if c.from != "" {
		if err := pollWatch(e, &c, wt, metrics, out); err != nil {
			return err
		}
		if stopServer == nil {
			return nil
		}
		err := stopServer()
		stopServer = nil
		return err
	}
	name := c.logFile
	if name == "-" {
		name = "standard input"
	}
	if c.format == "html" {
		out = newWindowWriter(e.stdout, c.format, name)
	}
	newW := func() *shardkey.Workload { return &shardkey.Workload{Seed: c.seed} }
	// The log is read as advise reads it (sqllog.ReadWindowsFile: a file,
	// .gz or .zst, a directory or glob of rotated files in time order, -
	// for standard input), or followed as it grows.
	read := func(o sqllog.Options, fn func(*sqllog.Window) error) error {
		return sqllog.ReadWindowsFile(e.ctx, c.logFile, o, c.window, newW, fn)
	}
	if c.follow {
		fl := sqllog.Follow(e.ctx, c.logFile)
		defer fl.Close()
		// Ctrl-C ends the following; what was read is still scored and
		// the last window printed.
		read = func(o sqllog.Options, fn func(*sqllog.Window) error) error {
			return sqllog.ReadWindows(context.WithoutCancel(e.ctx), fl, name, o, c.window, newW, fn)
		}
	}
	err = read(sqllog.Options{Format: c.logFormat, Stdin: e.stdin}, func(win *sqllog.Window) error {
		if err := win.Workload.Validate(); err != nil {
			return err
		}
		rep, err := wt.Add(watch.Span{Start: win.Start, End: win.End, Seconds: win.Seconds, Statements: win.Statements, Partial: win.Partial, Covered: win.Covered}, win.Workload)
		if err != nil {
			return err
		}
		for _, w := range rep.Warnings {
			fmt.Fprintf(e.stderr, "warning: %s: %s\n", rep.Start.Format(time.RFC3339), w)
		}
		if metrics != nil {
			metrics.Update(rep)
		}
		return out.Window(rep)
	})
	if err != nil {
		return err
	}
	if err := closeWatcher(e, wt, out); err != nil {
		return err
	}
	if stopServer != nil && !c.follow {
		fmt.Fprintln(e.stderr, "shardkey watch: log replayed; serving the last window's metrics until Ctrl-C")
		<-e.ctx.Done()
		err := stopServer()
		stopServer = nil
		return err
	}
	return nil
}

// serveMetrics starts serving m on addr and returns the function that
// stops the server. A host that is not a loopback address is allowed but
// warned about; the handler checks the Host header either way.
func serveMetrics(e *env, addr string, m *watch.Metrics) (func() error, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, usageErr("--listen %q: %v (want HOST:PORT, e.g. 127.0.0.1:9464)", addr, err)
	}
	if host == "" {
		return nil, usageErr("--listen %q: name the host (127.0.0.1 for this machine only)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--listen: %w", err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(e.stderr, "shardkey watch: warning: metrics on %s are reachable from other machines\n", ln.Addr())
	}
	srv := &http.Server{Handler: m.Handler(host), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Fprintf(e.stderr, "shardkey watch: metrics on http://%s/metrics\n", ln.Addr())
	return func() error {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			return err
		}
		if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}, nil
}

// pollWatch polls the database's statement statistics every --window
// until the command's context ends, and scores each interval as a window.
// closeWatcher closes wt and then out, printing wt's closing warnings
// (tables no window read, designs dropped) on standard error and handing
// them to out, which puts them in its document: the table's closing
// "warnings:" block, JSON's summary line, the HTML page's warnings (the
// windows' own warnings are already in their windows). wt's error (a
// design no window placed) comes after out is written.
func closeWatcher(e *env, wt *watch.Watcher, out windowWriter) error {
	warns, err := wt.Close()
	for _, w := range warns {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	if cerr := out.Close(warns); cerr != nil {
		return cerr
	}
	return err
}

func pollWatch(e *env, c *watchCmd, wt *watch.Watcher, metrics *watch.Metrics, out windowWriter) error {
	if err := livedb.CheckDSN(c.from); err != nil {
		return usageErr("--from: %v", err)
	}
	base := &shardkey.Workload{Seed: c.seed}
	// The row sample only supplies parameter values here: watch reports
	// no key statistics, so none are computed inside the database.
	o := livedb.Options{SampleRows: c.sample, Progress: e.stderr, NoStatements: true, Seed: c.seed, Stats: livedb.StatsSample}
	if err := livedb.Read(e.ctx, base, c.from, o); err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	// The database's tables are all the windows may read: each design
	// is checked against them all up front, not against the first
	// window's statements.
	if err := wt.Check(base); err != nil {
		return err
	}
	p, err := livedb.NewPoller(e.ctx, base, c.from, o)
	if err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	fmt.Fprintf(e.stderr, "shardkey watch: polling %s every %v (Ctrl-C to stop)\n", livedb.Redact(c.from), c.window)
	t := time.NewTicker(c.window)
	defer t.Stop()
	for {
		select {
		case <-e.ctx.Done():
			return closeWatcher(e, wt, out)
		case <-t.C:
		}
		w, start, end, err := p.Poll(e.ctx)
		if err != nil {
			if e.ctx.Err() != nil {
				return closeWatcher(e, wt, out)
			}
			return fmt.Errorf("--from: %w", err)
		}
		if err := w.Validate(); err != nil {
			return err
		}
		secs := end.Sub(start).Seconds()
		calls := 0.0
		for _, op := range w.Ops {
			calls += op.Rate * secs
		}
		rep, err := wt.Add(watch.Span{Start: start, End: end, Seconds: secs, Statements: int(math.Round(calls)), NoValues: true}, w)
		if err != nil {
			return err
		}
		for _, wn := range rep.Warnings {
			fmt.Fprintf(e.stderr, "warning: %s: %s\n", rep.Start.Format(time.RFC3339), wn)
		}
		if metrics != nil {
			metrics.Update(rep)
		}
		if err := out.Window(rep); err != nil {
			return err
		}
	}
}

// onceFlag is a string flag that may be given once: watch reads one log,
// and a second --log silently replaced the first.
type onceFlag string

func (f *onceFlag) String() string { return string(*f) }
func (f *onceFlag) Set(v string) error {
	if *f != "" {
		return fmt.Errorf("given twice (%s, then %s): watch reads one log file", string(*f), v)
	}
	*f = onceFlag(v)
	return nil
}
