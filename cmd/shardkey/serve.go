package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/shardkey/shardkey/internal/web"
)

// runServe runs the playground until the command's context is cancelled
// (SIGINT), then shuts the server down, letting requests in flight finish
// for up to shutdownGrace.
func runServe(e *env, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	addr := fs.String("addr", web.DefaultAddr, "listen `address` host:port (port 0 picks a free one)")
	maxBody := fs.Int64("max-body", web.DefaultMaxBody, "largest request body (a loaded spec) in `bytes`")
	allowHosts := fs.String("allow-host", "", "comma-separated host `names` the playground may be reached by, besides its IP (and localhost on loopback); other Host headers get 421")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: shardkey serve [--addr 127.0.0.1:PORT]

Runs the interactive playground: pick a scenario and a key, change the
shard count, add a celebrity, salt or isolate it, and watch per-shard work
against capacity. Works offline; listens on loopback unless told
otherwise. Answers only requests whose Host is the address it listens on
(or --allow-host) and that come from its own page or from no browser
(curl, scripts: POST bodies as Content-Type: text/yaml). Scores at most
2 requests at once; loaded specs are bounded (rows, cells, distinct
values, instances, transaction statements: see docs/own-database.md, "Input bounds").
Stop it with Ctrl-C.

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
	if *maxBody < 1 {
		return usageErr("--max-body %d: must be at least 1", *maxBody)
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return usageErr("--addr %q: %v", *addr, err)
	}
	var hosts []string
	for _, h := range strings.Split(*allowHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// A soft limit: the collector works harder near it instead of
		// letting the heap double past what is live. With the spec limits
		// and MaxScoring, the server stays under 1 GB.
		debug.SetMemoryLimit(serveMemoryLimit)
	}
	srv := &http.Server{
		Handler:           web.Handler(web.Options{MaxBody: *maxBody, Hosts: hosts}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
	}
	fmt.Fprintf(e.stdout, "shardkey playground on http://%s/ (Ctrl-C to stop)\n", ln.Addr())
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(e.stderr, "shardkey serve: warning: listening on %s, reachable from other machines\n", ln.Addr())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-e.ctx.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintln(e.stdout, "shardkey playground stopped")
	return nil
}

const shutdownGrace = 5 * time.Second

// serveMemoryLimit is the Go runtime's soft memory limit for serve
// (runtime/debug.SetMemoryLimit), unless GOMEMLIMIT sets another.
const serveMemoryLimit = 768 << 20
