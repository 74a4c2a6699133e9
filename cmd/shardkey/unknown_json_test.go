package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// adviseDoc runs advise --format json with args and decodes the
// document generically, so that null and 0 are told apart.
func adviseDoc(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errs := runCmd(t, "", append([]string{"advise", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("advise %v: exit %d: %s", args, code, errs)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("advise %v: %v", args, err)
	}
	return doc
}

// wantNull reports the members of obj named in keys that are not null
// (present and null: an unknown figure, never 0).
func wantNull(t *testing.T, where string, obj any, keys ...string) {
	t.Helper()
	m, ok := obj.(map[string]any)
	if !ok {
		t.Errorf("%s: not an object: %v", where, obj)
		return
	}
	for _, k := range keys {
		v, present := m[k]
		if !present || v != nil {
			t.Errorf("%s.%s = %v (present %v); want null: nothing in the input measures it", where, k, v, present)
		}
	}
}

// TestAdviseUnknownIsNull: a figure the input cannot support is null in
// advise's JSON, never 0.
//
//   - A pg_stat_statements export has no bound values (the extension
//     normalises constants to $1, $2, ...) and no rows: no key value is
//     known, so each key's cardinality, top values, entropy and
//     monotonicity are unknown, and so is the balls-into-bins ratio
//     (expected_max_load_ratio) that depends on the cardinality.
//   - No --capacity: the capacity and every over-capacity figure (the
//     score's list, the fixes' before/after counts, the sweep's counts)
//     are unknown, nothing having been judged against a capacity.
//   - pgbench's log has values but no rows: the root entity's largest
//     group's rows are unknown, and its monotonicity where the document
//     itself says monotonicity_unknown.
//   - With --capacity 100 the capacity figures are numbers again.
func TestAdviseUnknownIsNull(t *testing.T) {
	doc := adviseDoc(t, "--log", filepath.Join("..", "..", "sqllog", "testdata", "pg-stat-statements.csv"))
	wantNull(t, "advise", doc, "capacity")
	cands, _ := doc["candidates"].([]any)
	if len(cands) == 0 {
		t.Fatalf("no candidates: %v", doc)
	}
	fixes := 0
	for _, c := range cands {
		c := c.(map[string]any)
		key := c["key"].(string)
		wantNull(t, key+": criteria", c["criteria"], "expected_max_load_ratio")
		score := c["score"].(map[string]any)
		wantNull(t, key+": score", score, "cardinality", "top_values", "entropy", "monotonicity", "monotonic", "expected_max_load_ratio", "capacity", "over_capacity")
		for _, tk := range score["tables"].([]any) {
			wantNull(t, key+": score.tables", tk, "cardinality", "top_values", "entropy", "monotonicity", "expected_max_load_ratio")
		}
		fs, _ := c["fixes"].([]any)
		for _, f := range fs {
			f := f.(map[string]any)
			for _, side := range []string{"before", "after"} {
				if n, ok := f[side]; ok {
					fixes++
					wantNull(t, key+": fixes."+side, n, "over_capacity")
				}
			}
		}
	}
	if fixes == 0 {
		t.Error("no fix with before/after numbers: the check of their over_capacity ran on nothing")
	}
	sweep, _ := doc["sweep"].([]any)
	if len(sweep) == 0 {
		t.Error("no sweep")
	}
	for _, r := range sweep {
		wantNull(t, "sweep", r, "over_capacity", "expected_max_load_ratio")
	}

	pgbench := filepath.Join("testdata", "pgbench", "pgbench-tpcb-s4.log")
	doc = adviseDoc(t, "--log", pgbench)
	c := doc["candidates"].([]any)[0].(map[string]any)
	root, ok := c["root"].(map[string]any)
	if !ok {
		t.Fatalf("pgbench: no root entity: %v", c)
	}
	if root["basis"] != "traffic" || root["monotonicity_unknown"] != true {
		t.Fatalf("pgbench: root %v; want basis traffic, monotonicity_unknown", root)
	}
	wantNull(t, "pgbench: root", root, "largest_group_rows", "monotonicity", "monotonic")

	doc = adviseDoc(t, "--log", pgbench, "--capacity", "100")
	if doc["capacity"] != 100.0 {
		t.Errorf("--capacity 100: capacity %v", doc["capacity"])
	}
	c = doc["candidates"].([]any)[0].(map[string]any)
	if _, ok := c["score"].(map[string]any)["over_capacity"].([]any); !ok {
		t.Errorf("--capacity 100: score.over_capacity %v; want a list", c["score"].(map[string]any)["over_capacity"])
	}
	for _, r := range doc["sweep"].([]any) {
		if _, ok := r.(map[string]any)["over_capacity"].(float64); !ok {
			t.Errorf("--capacity 100: sweep row %v; want a count over capacity", r)
		}
	}
}
