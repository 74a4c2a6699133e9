package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
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

// params are a report request's settings, validated.
type params struct {
	scenario  string // built-in name; "" when the spec is the body
	key, vs   string
	shards    int     // 0: the spec's
	capacity  float64 // < 0: the spec's
	celebrity float64 // share 0..0.9; < 0: the spec's
	salt      int     // salt buckets for the hot key; 0: none
	isolate   bool
	engine    partition.Engine
	seed      int64
	seedSet   bool
}

// parseParams reads and range-checks the query parameters (see the
// package comment).
func parseParams(q url.Values) (*params, error) {
	p := &params{scenario: q.Get("s"), key: strings.TrimSpace(q.Get("k")), vs: strings.TrimSpace(q.Get("vs")), capacity: -1, celebrity: -1}
	if p.scenario == "file" {
		p.scenario = ""
	}
	if v := q.Get("n"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxShards {
			return nil, badParam("n", "%q: shards must be a whole number in 1..%d", v, MaxShards)
		}
		p.shards = n
	}
	if v := q.Get("cap"); v != "" {
		c, err := strconv.ParseFloat(v, 64)
		if err != nil || c < 0 || math.IsInf(c, 0) || math.IsNaN(c) || c > 1e15 {
			return nil, badParam("cap", "%q: capacity must be a number of units of work/s, 0 or more", v)
		}
		p.capacity = c
	}
	if v := q.Get("celeb"); v != "" {
		c, err := strconv.ParseFloat(v, 64)
		if err != nil || c < 0 || c > 90 || math.IsNaN(c) {
			return nil, badParam("celeb", "%q: the celebrity's share must be a percentage in 0..90", v)
		}
		p.celebrity = c / 100
	}
	if v := q.Get("salt"); v != "" && v != "0" {
		k, err := strconv.Atoi(v)
		if err != nil || k < 2 || k > MaxShards {
			return nil, badParam("salt", "%q: salt buckets must be 0 (none) or 2..%d", v, MaxShards)
		}
		p.salt = k
	}
	switch v := q.Get("iso"); v {
	case "", "0", "false":
	case "1", "true":
		p.isolate = true
	default:
		return nil, badParam("iso", "%q: want 0 or 1", v)
	}
	name := q.Get("e")
	if name == "" {
		name = "generic"
	}
	if strings.Contains(name, "@") {
		// servers=@FILE reads a local file: not for a page's request.
		return nil, badParam("e", "%q: a server pool from a file (servers=@FILE) is not read over HTTP; list the servers", name)
	}
	eng, err := partition.Lookup(name)
	if err != nil {
		return nil, badParam("e", "%v", err)
	}
	p.engine = eng
	if v := q.Get("seed"); v != "" {
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, badParam("seed", "%q: want an integer", v)
		}
		p.seed, p.seedSet = s, true
	}
	return p, nil
}

// readSpec returns the spec a request names: the built-in scenario s, or
// the YAML body of a POST. id identifies the spec's text for the cache.
func (s *server) readSpec(w http.ResponseWriter, r *http.Request, builtin string) (spec *scenario.Spec, id string, err error) {
	if r.Method == http.MethodGet {
		if builtin == "" {
			builtin = "social"
		}
		spec, err := scenario.Builtin(builtin)
		if err != nil {
			return nil, "", badParam("s", "%v", err)
		}
		return spec, "builtin:" + builtin, nil
	}
	if r.ContentLength > s.opts.MaxBody {
		return nil, "", &http.MaxBytesError{Limit: s.opts.MaxBody}
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBody))
	if err != nil {
		return nil, "", err
	}
	spec, err = scenario.Parse(data, fileName(r.URL.Query().Get("file")))
	if err != nil {
		return nil, "", err
	}
	lim := limits{rows: s.opts.MaxRows, cells: s.opts.MaxCells, distinct: s.opts.MaxDistinct, instances: s.opts.MaxInstances, statements: s.opts.MaxStatements}
	if err := checkCost(spec, lim); err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(data)
	return spec, "sha256:" + hex.EncodeToString(sum[:]) + ":" + spec.File(), nil
}

// fileName is the name a loaded spec is called in messages: the base name
// the page sends, printable and short, "spec.yaml" when none.
func fileName(s string) string {
	s = path.Base(strings.ReplaceAll(s, `\`, "/"))
	s = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return -1
	}, s)
	if len(s) > 100 {
		s = s[:100]
	}
	if s == "" || s == "." || s == "/" {
		return "spec.yaml"
	}
	return s
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

// parseKey parses a key or design given in parameter param and refuses
// keys that read files (directory), which the playground does not do.
func parseKey(param, key string) (*shardkey.Design, error) {
	if len(key) > 2000 {
		return nil, badParam(param, "key longer than 2000 characters")
	}
	d, err := shardkey.ParseDesign(key)
	if err != nil {
		return nil, badParam(param, "%v", err)
	}
	exprs := []shardkey.Expr{d.Default}
	for _, t := range d.Order {
		exprs = append(exprs, d.Tables[t])
	}
	for _, e := range exprs {
		for e != nil {
			switch m := e.(type) {
			case *shardkey.DirectoryExpr:
				return nil, badParam(param, "%s reads a file; the playground reads no files (use shardkey score)", m)
			case *shardkey.SaltExpr:
				e = m.Inner
			case *shardkey.IsolateExpr:
				e = m.Inner
			default:
				e = nil
			}
		}
	}
	return d, nil
}

// wrapKey applies the hot-key controls to every table's key of d:
// isolate(EXPR, top=1) gives the hottest value a shard of its own, and
// salt(EXPR, K, top=1) splits it over K buckets.
func wrapKey(d *shardkey.Design, salt int, isolate bool) string {
	wrap := func(e shardkey.Expr) string {
		if _, ok := e.(*shardkey.ReplicateExpr); ok {
			return "replicate"
		}
		s := e.String()
		if isolate {
			s = "isolate(" + s + ", top=1)"
		}
		if salt > 0 {
			s = fmt.Sprintf("salt(%s, %d, top=1)", s, salt)
		}
		return s
	}
	var parts []string
	for _, t := range d.Order {
		parts = append(parts, t+":"+wrap(d.Tables[t]))
	}
	if d.Default != nil {
		parts = append(parts, wrap(d.Default))
	}
	return strings.Join(parts, "; ")
}

// finiteGen reports whether a generator draws from a finite distribution,
// the columns a celebrity share applies to.
func finiteGen(gen string) bool {
	g := strings.ToLower(gen)
	return g == "uniform" || g == "zipf"
}

// specColumns resolves a spec's columns, inherited ones included: for a
// table and column name, the table whose generator makes the column and
// its spec.
type specColumns map[string]*scenario.TableSpec

func newSpecColumns(spec *scenario.Spec) specColumns {
	m := specColumns{}
	for _, t := range spec.Tables {
		m[t.Name] = t
	}
	return m
}

func (m specColumns) owner(table, col string) (string, *scenario.ColumnSpec) {
	for depth := 0; depth <= len(m); depth++ {
		t := m[table]
		if t == nil {
			return "", nil
		}
		for _, c := range t.Columns {
			if c.Name == col {
				return t.Name, c
			}
		}
		table = t.Parent
	}
	return "", nil
}

// celebrityTargets returns the columns (TABLE.COLUMN) a celebrity share is
// set on for design d: the uniform or zipf columns its keys hash (the
// generating table's, for an inherited column), so the celebrity is a hot
// value of the key. A key with none (hash(post_id)) gets the celebrity on
// the first uniform or zipf column an operation looks up by parameter, as
// the seed's celebrity user is part of the workload whatever the key.
func celebrityTargets(spec *scenario.Spec, d *shardkey.Design) []string {
	cols := newSpecColumns(spec)
	var out []string
	seen := map[string]bool{}
	add := func(table, col string) {
		owner, cs := cols.owner(table, col)
		if cs == nil || !finiteGen(cs.Gen) {
			return
		}
		k := owner + "." + col
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, t := range spec.Tables {
		e := d.For(t.Name, func(c string) bool { _, cs := cols.owner(t.Name, c); return cs != nil })
		if e == nil {
			continue
		}
		for _, c := range e.Columns() {
			add(t.Name, c)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, o := range spec.Operations {
		var where map[string]any
		if o.Where.Decode(&where) != nil {
			continue
		}
		names := make([]string, 0, len(where))
		for k, v := range where {
			if v == "?" {
				names = append(names, k)
			}
		}
		sort.Strings(names)
		for _, c := range names {
			add(o.Table, c)
			if len(out) > 0 {
				return out
			}
		}
	}
	for _, t := range spec.Tables {
		for _, c := range t.Columns {
			add(t.Name, c.Name)
			if len(out) > 0 {
				return out
			}
		}
	}
	return nil
}

// ScenarioInfo describes a scenario for the page's controls.
type ScenarioInfo struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	File        string      `json:"file"`
	Shards      int         `json:"shards"`
	Capacity    float64     `json:"capacity"`
	Seed        int64       `json:"seed"`
	Candidates  []string    `json:"candidates"` // the spec's, then its variants', without repeats
	Tables      []TableInfo `json:"tables"`
	Operations  []string    `json:"operations"`
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

func newScenarioInfo(spec *scenario.Spec) *ScenarioInfo {
	shards := spec.Shards
	if shards == 0 {
		shards = scenario.DefaultShards
	}
	si := &ScenarioInfo{Name: spec.Name, Description: strings.TrimSpace(spec.Description), File: spec.File(), Shards: shards,
		Capacity: spec.Capacity, Seed: spec.Seed, Candidates: []string{}, Tables: []TableInfo{}, Operations: []string{}}
	seen := map[string]bool{}
	add := func(ks []string) {
		for _, k := range ks {
			if !seen[k] {
				seen[k] = true
				si.Candidates = append(si.Candidates, k)
			}
		}
	}
	add(spec.Candidates)
	for _, v := range spec.Variants {
		add(v.Candidates)
	}
	for _, t := range spec.Tables {
		ti := TableInfo{Name: t.Name, Parent: t.Parent, Columns: []ColumnInfo{}}
		for _, c := range t.Columns {
			ti.Columns = append(ti.Columns, ColumnInfo{Name: c.Name, Gen: c.Gen, Finite: finiteGen(c.Gen)})
		}
		si.Tables = append(si.Tables, ti)
	}
	for _, o := range spec.Operations {
		si.Operations = append(si.Operations, o.Name)
	}
	return si
}

// scenarios serves GET /api/scenarios: every built-in scenario's info.
func (s *server) scenarios(w http.ResponseWriter, r *http.Request) {
	out := []*ScenarioInfo{}
	for _, name := range scenario.Builtins() {
		spec, err := scenario.Builtin(name)
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, &apiError{Msg: err.Error()})
			return
		}
		out = append(out, newScenarioInfo(spec))
	}
	writeJSON(w, http.StatusOK, out)
}

// spec serves POST /api/spec: it parses and builds the spec in the body
// (the build checks every table, column, filter and key, and warms the
// cache for the reports that follow) and returns its info, or a 400 with
// the file, line and field of the first problem.
func (s *server) spec(w http.ResponseWriter, r *http.Request) {
	if err := sameOrigin(r); err != nil {
		writeError(w, err)
		return
	}
	spec, id, err := s.readSpec(w, r, "")
	if err != nil {
		writeError(w, err)
		return
	}
	if err := s.slots.acquire(r.Context()); err != nil {
		writeError(w, err)
		return
	}
	defer s.slots.release()
	if _, _, err := s.workload(r.Context(), spec, id, nil); err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, newScenarioInfo(spec))
}
