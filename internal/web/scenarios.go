package web

import (
	"net/http"
	"strings"

	"github.com/shardkey/shardkey/scenario"
)

// Scenarios: the built-in specs' information for the page, and loading a
// user's own spec.

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
