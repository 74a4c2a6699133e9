package scenario

import (
	"reflect"
	"strings"
	"testing"
)

func TestBuiltinsBuild(t *testing.T) {
	names := Builtins()
	if strings.Join(names, ",") != "chat,orders,social,workspace" {
		t.Fatalf("builtins = %v", names)
	}
	for _, n := range names {
		s, err := Builtin(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		variants := []string{""}
		for _, v := range s.Variants {
			variants = append(variants, v.Name)
		}
		for _, v := range variants {
			w, err := Build(s, v)
			if err != nil {
				t.Fatalf("%s/%s: %v", n, v, err)
			}
			if len(w.Candidates) == 0 || len(w.Ops) == 0 {
				t.Errorf("%s/%s: no candidates or operations", n, v)
			}
		}
	}
}

// TestSocialDistribution: the social spec's user reads enumerate the 243
// users with equal probability; the celebrity variant gives one user 30%.
func TestSocialDistribution(t *testing.T) {
	s, _ := Builtin("social")
	w, err := Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	reads := w.Ops[1]
	if len(reads.Instances) != 243 {
		t.Fatalf("%d read instances; want 243", len(reads.Instances))
	}
	w, _ = Build(s, "celebrity")
	reads = w.Ops[1]
	if len(reads.Instances) != 244 || reads.Instances[0].Weight != 0.3 {
		t.Fatalf("celebrity: %d instances, first weight %v; want 244 and 0.3", len(reads.Instances), reads.Instances[0].Weight)
	}
}

func TestDeterministic(t *testing.T) {
	s, _ := Builtin("orders")
	a, err := Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Build(s, "")
	if !reflect.DeepEqual(a.Tables[1].Columns, b.Tables[1].Columns) || !reflect.DeepEqual(a.Txns[:50], b.Txns[:50]) {
		t.Error("same spec and seed gave different workloads")
	}
	s.Seed = 2
	c, _ := Build(s, "")
	if reflect.DeepEqual(a.Tables[0].Columns[1], c.Tables[0].Columns[1]) {
		t.Error("another seed gave the same customers")
	}
}

// TestBadSpecs: errors name the file, the line and the field.
// TestVariantWholeNumbers: a variant that sets an integer (shards, rows,
// distinct) to 2.5 is an error at its line, not 2.
func TestVariantWholeNumbers(t *testing.T) {
	base := "name: x\ntables:\n  - name: t\n    rows: 10\n    columns:\n      - {name: id, gen: uniform, distinct: 5}\n"
	for set, want := range map[string]string{
		"{shards: 2.5}":          "x.yaml:8: variants.v.set.shards: 2.5: want a whole number",
		"{t.rows: 3.5}":          "x.yaml:8: variants.v.set.t.rows: 3.5: want a whole number",
		"{t.id.distinct: 4.5}":   "x.yaml:8: variants.v.set.t.id.distinct: 4.5: want a whole number",
		"{shards: 3, t.rows: 7}": "",
	} {
		s, err := Parse([]byte(base+"variants:\n  - {name: v, set: "+set+"}\n"), "x.yaml")
		if err == nil {
			_, err = Build(s, "v")
		}
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("set %s: error %v; want %q", set, err, want)
		}
	}
}

func TestBadSpecs(t *testing.T) {
	base := "name: x\ntables:\n  - name: t\n    rows: 10\n    columns:\n      - {name: id, gen: sequential}\n"
	for _, c := range []struct{ spec, want string }{
		{"", "x.yaml:1: empty scenario file"},
		{"name: [\n", "x.yaml:1:"},
		{"nmae: x\n", "x.yaml:1: field nmae not found"},
		{"name: x\ntables:\n  - name: t\n    rowz: 5\n", "x.yaml:4: field rowz not found"},
		{"name: x\ntables:\n  - name: t\n    columns:\n      - {name: a, gen: uniform, distinc: 5}\n", "x.yaml:5: field distinc not found"},
		{"name: x\n", "x.yaml: tables: a scenario needs at least one table"},
		// A NUL (or another control character YAML 1.2 section 5.1
		// excludes) is named by line and column: the decoder said only
		// "control characters are not allowed". Line 3, after "tables:"
		// (7 characters): column 8; the 5-character "é" line counts
		// characters, not bytes; tab and CR are allowed.
		{"name: x\nshards: 4\ntables:\x00\n", "x.yaml:3: a control character, U+0000, at column 8: YAML allows none in a file"},
		{"name: x\ndescription: \"é\x07\"\n", "x.yaml:2: a control character, U+0007, at column 16: YAML allows none"},
		{"name: x\r\ndescription:\t\"a\"\r\n", "x.yaml: tables: a scenario needs at least one table"},
		{base + "shards: -1\n", "x.yaml:7: shards: -1"},
		// Top-level fields' errors carry their line; a fraction where a
		// whole number goes is an error (the YAML decoder truncated 2.5
		// to 2), in the spec's fields, the variants' and the keys'.
		{base + "shards: 2.5\n", "x.yaml:7: shards: 2.5: want a whole number"},
		{base + "shards: 4\nnodes: 1.5\n", "x.yaml:8: nodes: 1.5: want a whole number"},
		{base + "shards: 4\nnodes: 9\n", "x.yaml:8: nodes: 9: must be in 1..shards (4)"},
		{base + "capacity: -3\n", "x.yaml:7: capacity: -3: must be a non-negative number"},
		{base + "param_samples: 0.5\n", "x.yaml:7: param_samples: 0.5: want a whole number"},
		{"name: x\ntables:\n  - name: t\n    rows: 10.5\n    columns:\n      - {name: id, gen: sequential}\n", "x.yaml:4: tables.t.rows: 10.5: want a whole number"},
		{"name: x\ntables:\n  - name: t\n    columns:\n      - {name: a, gen: uniform, distinct: 7.25}\n", "x.yaml:5: tables.t.columns.a.distinct: 7.25: want a whole number"},
		{"name: x\ntables:\n  - name: t\n    rows: 1e3\n    columns:\n      - {name: id, gen: sequential}\n", ""},
		{base + "candidates:\n  - hash(id)\n  - salt(hash(id), 2.5, top=1)\n", "x.yaml:9: candidates: key \"salt(hash(id), 2.5, top=1)\": at 16: 2.5: expected a whole number"},
		{base + "candidates: [\"isolate(hash(id), top=1.5)\"]\n", "x.yaml:7: candidates: key \"isolate(hash(id), top=1.5)\": at 23: 1.5: expected a whole number"},
		{base + "operations:\n  - {name: r, table: t, where: {nope: \"?\"}}\n", "x.yaml:8: operations.r.where.nope: table t has no column \"nope\""},
		{base + "operations:\n  - {name: r, table: u}\n", "x.yaml:8: operations.r.table: no table \"u\""},
		{base + "operations:\n  - {name: r, table: t, rate: -5}\n", "x.yaml:8: operations.r.rate"},
		{base + "operations:\n  - {name: r, table: t, kind: upsert}\n", "operations.r.kind: unknown operation kind"},
		{base + "candidates: [\"hash(id\"]\n", "candidates: key \"hash(id\""},
		{"name: x\ntables:\n  - name: t\n    columns:\n      - {name: a, gen: zipf, distinct: 0}\n", "x.yaml:5: t.a: distinct 0"},
		{"name: x\ntables:\n  - name: t\n    columns:\n      - {name: a, gen: gaussian}\n", "x.yaml:5: t.a: unknown gen \"gaussian\""},
		{"name: x\ntables:\n  - name: t\n    columns:\n      - {name: a, gen: uniform, distinct: 5, celebrity: 1.5}\n", "t.a: celebrity 1.5"},
		{"name: x\ntables:\n  - name: t\n    parent: t\n    columns: []\n", "parent cycle"},
		{base + "variants:\n  - {name: v, set: {t.id.celebrity: 0.1}}\n", ""},
	} {
		s, err := Parse([]byte(c.spec), "x.yaml")
		if err == nil {
			_, err = Build(s, "")
		}
		if c.want == "" {
			if err != nil {
				t.Errorf("spec %q: %v", c.spec, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("spec %q: error %v; want it to contain %q", c.spec, err, c.want)
		}
	}
}

func FuzzSpec(f *testing.F) {
	for _, n := range Builtins() {
		src, _ := BuiltinSource(n)
		f.Add(string(src))
	}
	f.Add("name: x\ntables:\n  - {name: t, rows: 5, columns: [{name: a, gen: uniform, distinct: 3}]}\noperations:\n  - {name: r, table: t, where: {a: \"?\"}}\n")
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse([]byte(src), "f.yaml")
		if err != nil {
			return
		}
		// Bound the work a fuzzed spec can ask for.
		for _, tb := range s.Tables {
			if tb == nil {
				break
			}
			if tb.Rows > 2000 || tb.PerParent != "" {
				return
			}
			for _, c := range tb.Columns {
				if c != nil && c.Distinct > 2000 {
					return
				}
			}
		}
		if s.ParamSamples > 100 || s.ParamSamples == 0 {
			s.ParamSamples = 100
		}
		w, err := Build(s, "")
		if err != nil {
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("Build returned an invalid workload: %v", err)
		}
	})
}
