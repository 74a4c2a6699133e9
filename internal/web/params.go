package web

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode"

	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
)

// Request parameters: the query string of a report, and the spec it names.

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
