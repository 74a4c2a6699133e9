// Package web is the interactive playground of `shardkey serve`: a page in
// the manner of an interactive article (pick a scenario, a key, the shard
// count, add a celebrity, salt or isolate it, and watch per-shard work
// against capacity) and the JSON API behind it.
//
// The page and its script and style are embedded (embed.FS) and load
// nothing from the network, so the playground works offline. The API
// returns the same document `shardkey score --format json` prints (Report),
// scored by the same library calls (scenario.Build, sim.Score):
//
//	GET  /api/scenarios            the built-in scenarios: keys, columns, shards, capacity
//	POST /api/spec?file=NAME       validate a scenario spec (the body, YAML); its description
//	GET  /api/report?s=social&k=.. score a built-in scenario (parameters below)
//	POST /api/report?k=..          score the spec in the body
//
// Report parameters, which are also the page's URL state: s (scenario),
// k (key or design), vs (a second key to compare), n (shards, 1..1024),
// cap (per-shard capacity, units of work/s), celeb (celebrity share in
// percent, 0..90), salt (salt buckets for the hot key, 0 for none),
// iso (1: isolate the hot key), e (engine), seed.
//
// Errors are JSON {"error", "file", "line", "field"} with status 400 (bad
// input, a spec past a cost limit; line and field when the spec says
// where), 413 (body over Options.MaxBody), 404, 403 (a request from
// another web page), 415 (a POST body not declared text/yaml or JSON),
// 421 (a Host header that is not the address served: DNS rebinding), 503
// (Options.MaxScoring requests already at work). Nothing is written to
// disk, and keys that read files (directory(col, FILE)) are refused. A
// request whose client goes away stops at the next stage (build, each
// key's compile and run). guard.go describes the checks against other
// web pages.
package web

import (
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
)

// DefaultAddr is the address `shardkey serve` listens on: loopback only,
// so the playground is not reachable from the network unless asked.
const DefaultAddr = "127.0.0.1:8080"

// Defaults for Options fields left zero (the spec cost limits are in
// cost.go).
const (
	DefaultMaxBody    = 1 << 20 // bytes of a request body
	DefaultCacheSize  = 8       // built workloads kept (scored keys: 32 times as many)
	DefaultMaxScoring = 2       // requests building or scoring at once
	DefaultQueueWait  = 10 * time.Second
	// MaxShards is the most shards the playground scores and draws: one
	// bar per shard must stay legible, and it keeps each request's cost
	// small; the command line goes to shardkey.MaxShards.
	MaxShards = 1024
)

// Options configure Handler. The zero value is ready to use.
type Options struct {
	// MaxBody bounds a request body in bytes (a loaded spec); larger
	// bodies get 413. 0 means DefaultMaxBody.
	MaxBody int64
	// MaxRows, MaxCells, MaxDistinct, MaxInstances and MaxStatements
	// bound what a loaded spec may make the server build (rows; rows x
	// columns; distinct values of uniform and zipf columns; operation
	// instances; transaction statements; each in all, estimated from the
	// spec before building: see checkCost), so one request cannot take
	// the server's memory. A spec past one gets 400 naming the field.
	// 0 means the Default of the same name.
	MaxRows, MaxCells, MaxDistinct, MaxInstances, MaxStatements int
	// MaxScoring bounds the requests that build or score at once; a
	// request waits up to QueueWait for its turn, then gets 503. 0 means
	// DefaultMaxScoring and DefaultQueueWait.
	MaxScoring int
	QueueWait  time.Duration
	// Hosts lists host names, besides the listening IP (and "localhost"
	// when it is loopback), that requests may name in their Host header
	// (a name the machine is reached by). Any other Host gets 421: a web
	// page that points its own name at the server (DNS rebinding) cannot
	// use it.
	Hosts []string
	// CacheSize is how many built workloads are kept, keyed by spec,
	// data settings and seed, so moving a control that does not change
	// the data (key, shards, capacity, engine, salt) only re-scores.
	// 0 means DefaultCacheSize.
	CacheSize int
	// Workers is the goroutines scoring one key; <= 0 means GOMAXPROCS.
	Workers int
}

//go:embed static
var staticFS embed.FS

var indexTmpl = template.Must(template.ParseFS(staticFS, "static/index.html"))

// server holds the handler's state; it is safe for concurrent use.
type server struct {
	opts       Options
	workloads  *cache[*built]
	candidates *cache[*sim.Candidate]
	static     http.Handler
	slots      *slots // requests building or scoring
	handler    http.Handler
}

// Handler returns the playground: the page at /, its assets under
// /static/, and the API under /api/. It is safe for concurrent use.
func Handler(o Options) http.Handler { return newServer(o).handler }

// newServer returns the server of Handler, its options defaulted.
func newServer(o Options) *server {
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	for _, f := range []struct {
		v   *int
		def int
	}{{&o.MaxRows, DefaultMaxRows}, {&o.MaxCells, DefaultMaxCells}, {&o.MaxDistinct, DefaultMaxDistinct},
		{&o.MaxInstances, DefaultMaxInstances}, {&o.MaxStatements, DefaultMaxStatements}, {&o.MaxScoring, DefaultMaxScoring}} {
		if *f.v <= 0 {
			*f.v = f.def
		}
	}
	if o.QueueWait <= 0 {
		o.QueueWait = DefaultQueueWait
	}
	if o.CacheSize <= 0 {
		o.CacheSize = DefaultCacheSize
	}
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	workloads := newCache[*built](o.CacheSize)
	workloads.weigh = func(b *built) int64 { return weight(b.w) }
	workloads.maxWeight = 2 * int64(o.MaxCells)
	s := &server{opts: o, workloads: workloads,
		candidates: newCache[*sim.Candidate](32 * o.CacheSize), static: http.StripPrefix("/static/", http.FileServerFS(sub)),
		slots: newSlots(o.MaxScoring, o.QueueWait)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("GET /static/{file}", s.asset)
	mux.HandleFunc("GET /api/scenarios", s.scenarios)
	mux.HandleFunc("POST /api/spec", s.spec)
	mux.HandleFunc("GET /api/report", s.report)
	mux.HandleFunc("POST /api/report", s.report)
	s.handler = s.checkHost(securityHeaders(mux))
	return s
}

// securityHeaders forbids the page from loading anything but its own
// assets (no CDN, no network) and from being framed.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

// asset serves one embedded file of static/. Only the files themselves:
// the mux has already cleaned the path and {file} matches one segment,
// so nothing outside the embedded tree (and no directory listing) is
// reachable.
func (s *server) asset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	if name == "" || name == "index.html" || strings.HasPrefix(name, ".") {
		http.NotFound(w, r)
		return
	}
	if f, err := staticFS.Open("static/" + name); err != nil {
		http.NotFound(w, r)
		return
	} else {
		st, err := f.Stat()
		f.Close()
		if err != nil || st.IsDir() {
			http.NotFound(w, r)
			return
		}
	}
	w.Header().Set("Cache-Control", "no-cache")
	s.static.ServeHTTP(w, r)
}

// pageData is what index.html is rendered with: the controls' choices,
// so the page is complete before its script runs.
type pageData struct {
	Scenarios []string
	Engines   []string
	MaxShards int
}

func (s *server) index(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	d := pageData{Scenarios: scenario.Builtins(), Engines: partition.Names(), MaxShards: MaxShards}
	if err := indexTmpl.Execute(w, d); err != nil {
		// Headers are gone; the client sees a truncated page.
		return
	}
}
