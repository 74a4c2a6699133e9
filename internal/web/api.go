package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/report"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
)

// Report is the document of `shardkey score --format json`
// (report.Score): the API returns exactly what the command prints for the
// same inputs.
type Report = report.Score

// CelebrityHeader names, in a report response, the columns the celebrity
// share was set on ("posts.user_id"), comma separated; absent when the
// request set none. It is a header so the body stays the score document.
const CelebrityHeader = "Shardkey-Celebrity"

// apiError is an error response: {"error", "file", "line", "field"}.
type apiError struct {
	Status int    `json:"-"`
	Msg    string `json:"error"`             // the whole message, as the command prints it
	Detail string `json:"message,omitempty"` // the message without file, line and field
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Field  string `json:"field,omitempty"`
}

func (e *apiError) Error() string { return e.Msg }

// badParam is a 400 for query parameter name.
func badParam(name, format string, args ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Field: name, Msg: name + ": " + fmt.Sprintf(format, args...)}
}

// writeError writes err as JSON: an *apiError as it is, a body over the
// limit as 413, an input error (spec file, line, field) as 400 with its
// position, anything else as 400 with its message.
func writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	var mb *http.MaxBytesError
	var ie *shardkey.InputError
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &mb):
		ae = &apiError{Status: http.StatusRequestEntityTooLarge, Msg: fmt.Sprintf("request body over %d bytes", mb.Limit)}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		// The client went away; nobody reads this.
		ae = &apiError{Status: http.StatusServiceUnavailable, Msg: "request cancelled: " + err.Error()}
	case errors.As(err, &ie):
		ae = &apiError{Status: http.StatusBadRequest, Msg: err.Error(), Detail: ie.Err.Error(), File: ie.File, Line: ie.Line, Field: ie.Field}
	default:
		ae = &apiError{Status: http.StatusBadRequest, Msg: err.Error()}
	}
	writeJSON(w, ae.Status, ae)
}

// writeJSON writes v indented as score --format json does.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// report serves GET /api/report (a built-in scenario) and POST
// /api/report (the spec in the body).
func (s *server) report(w http.ResponseWriter, r *http.Request) {
	if err := sameOrigin(r); err != nil {
		writeError(w, err)
		return
	}
	p, err := parseParams(r.URL.Query())
	if err != nil {
		writeError(w, err)
		return
	}
	if r.Method == http.MethodGet && r.URL.Query().Get("s") == "file" {
		writeError(w, badParam("s", "a loaded spec is scored with POST, the spec as the body"))
		return
	}
	spec, id, err := s.readSpec(w, r, p.scenario)
	if err != nil {
		writeError(w, err)
		return
	}
	if err := s.slots.acquire(r.Context()); err != nil {
		writeError(w, err)
		return
	}
	defer s.slots.release()
	rep, celeb, err := s.score(r.Context(), spec, id, p)
	if err != nil {
		writeError(w, err)
		return
	}
	if len(celeb) > 0 {
		w.Header().Set(CelebrityHeader, strings.Join(celeb, ","))
	}
	writeJSON(w, http.StatusOK, rep)
}

// score builds (or takes from the cache) the workload of spec under p and
// scores p's key and, when given, its comparison key. celeb lists the
// columns the celebrity share was set on.
func (s *server) score(ctx context.Context, spec *scenario.Spec, id string, p *params) (rep *Report, celeb []string, err error) {
	key := p.key
	if key == "" {
		if len(spec.Candidates) == 0 {
			// A problem in the spec comes first.
			if _, _, err := s.workload(ctx, spec, id, nil); err != nil {
				return nil, nil, err
			}
			return nil, nil, badParam("k", "choose a key: the spec lists no candidates")
		}
		key = spec.Candidates[0]
	}
	d, err := parseKey("k", key)
	if err != nil {
		return nil, nil, err
	}
	keys := []string{key}
	if p.salt > 0 || p.isolate {
		keys[0] = wrapKey(d, p.salt, p.isolate)
	}
	if p.vs != "" {
		if _, err := parseKey("vs", p.vs); err != nil {
			return nil, nil, err
		}
		keys = append(keys, p.vs)
	}
	settings := map[string]string{}
	if p.celebrity >= 0 {
		celeb = celebrityTargets(spec, d)
		if len(celeb) == 0 {
			return nil, nil, badParam("celeb", "no uniform or zipf column to give a celebrity (a celebrity is one value of such a column)")
		}
		for _, c := range celeb {
			settings[c+".celebrity"] = strconv.FormatFloat(p.celebrity, 'g', -1, 64)
		}
	}
	if p.seedSet {
		spec.Seed = p.seed
	}
	b, wkey, err := s.workload(ctx, spec, id, settings)
	if err != nil {
		return nil, nil, err
	}
	wc := *b.w // shared: copy before changing
	if p.shards > 0 {
		wc.Shards = p.shards
	}
	if wc.Shards > MaxShards {
		return nil, nil, shardkey.Errorf(spec.File(), 0, "shards", "%d: the playground shows at most %d shards", wc.Shards, MaxShards)
	}
	if p.capacity >= 0 {
		wc.Capacity = p.capacity
	}
	opts := sim.Options{Shards: wc.Shards, Engine: p.engine, Workers: s.opts.Workers}
	var cands []*sim.Candidate
	for i, k := range keys {
		// Capacity only decides which shards are over it, so a key is
		// scored once per workload, engine and shard count.
		ckey := fmt.Sprintf("%s\x00%s\x00%s\x00%d", wkey, k, opts.Engine.Name(), opts.Shards)
		c, err := getCtx(ctx, s.candidates, ckey, func() (*sim.Candidate, error) { return scoreKey(ctx, &wc, k, opts) })
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if err != nil {
			field := "k"
			if i == 1 {
				field = "vs"
			}
			return nil, nil, badParam(field, "%v", err)
		}
		cands = append(cands, c)
	}
	return report.NewScore(&wc, p.engine.Name(), cands), celeb, nil
}

// scoreKey is sim.Score with the request's context checked between its
// stages (parse, compile, run, report): the scoring of a client that has
// gone away stops at the next stage.
func scoreKey(ctx context.Context, w *shardkey.Workload, design string, o sim.Options) (*sim.Candidate, error) {
	d, err := shardkey.ParseDesign(design)
	if err != nil {
		return nil, err
	}
	sc, err := sim.Compile(w, d, o)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	part, err := sim.Run(w, sc, o.Workers)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return sc.Report(part), nil
}

// getCtx is c.get for a request with context ctx: when the build it
// waited for was another request's and stopped because that client went
// away, it builds afresh for this one.
func getCtx[V any](ctx context.Context, c *cache[V], key string, build func() (V, error)) (V, error) {
	for {
		v, err := c.get(key, build)
		if err == nil || ctx.Err() != nil || !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			return v, err
		}
	}
}

// workload returns the built workload of spec with settings applied,
// from the cache when it was built before, and its cache key.
func (s *server) workload(ctx context.Context, spec *scenario.Spec, id string, settings map[string]string) (*built, string, error) {
	names := make([]string, 0, len(settings))
	for k := range settings {
		names = append(names, k)
	}
	sort.Strings(names)
	var ck strings.Builder
	fmt.Fprintf(&ck, "%s\x00seed=%d", id, spec.Seed)
	for _, k := range names {
		fmt.Fprintf(&ck, "\x00%s=%s", k, settings[k])
	}
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	b, err := getCtx(ctx, s.workloads, ck.String(), func() (*built, error) {
		sp := spec
		if len(settings) > 0 {
			var err error
			if sp, err = spec.With(settings); err != nil {
				return nil, err
			}
		}
		w, err := scenario.Build(sp, "")
		if err != nil {
			return nil, err
		}
		return newBuilt(w), nil
	})
	return b, ck.String(), err
}

// TableInfo lists a table's own columns and their generators.
type TableInfo struct {
	Name    string       `json:"name"`
	Parent  string       `json:"parent,omitempty"`
	Columns []ColumnInfo `json:"columns"`
}

// ColumnInfo is one column; Finite says a celebrity can be added to it.
type ColumnInfo struct {
	Name   string `json:"name"`
	Gen    string `json:"gen"`
	Finite bool   `json:"finite"`
}
