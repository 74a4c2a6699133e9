package scenario

import (
	"strings"
	"testing"
)

// TestSpecErrorWords: decoding errors speak of tables and fields, not of
// Go types.
func TestSpecErrorWords(t *testing.T) {
	for in, want := range map[string]string{
		"name: x\ntables: 5\n":           "s.yaml:2: cannot read !!int `5` into a list of tables",
		"name: x\nfoo: 1\n":              "s.yaml:2: field foo not found at the top level",
		"name: x\ntables:\n  - nme: t\n": "s.yaml:3: field nme not found (want one of name",
	} {
		_, err := Parse([]byte(in), "s.yaml")
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "scenario.") {
			t.Errorf("%q: %v; want %q", in, err, want)
		}
	}
}

// TestVary: a step's varying column gets a value of its own in each
// repetition, the other columns keep the transaction's value, and the step
// after the repeated one sees the shared value again.
func TestVary(t *testing.T) {
	spec := `name: vary
tables:
  - name: t
    rows: 1000
    columns:
      - {name: w, gen: uniform, distinct: 10}
      - {name: i, gen: uniform, distinct: 100000}
transactions:
  - name: tx
    rate: 1
    steps:
      - {table: t, kind: read, where: {w: "?", i: "?"}}
      - {table: t, kind: update, where: {w: "?", i: "?"}, repeat: 5, vary: [i]}
      - {table: t, kind: delete, where: {w: "?", i: "?"}}
`
	s, err := Parse([]byte(spec), "v.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	distinctRuns := 0
	for _, tx := range w.Txns {
		if len(tx.Stmts) != 7 {
			t.Fatalf("%d statements; want 7", len(tx.Stmts))
		}
		val := func(k, col int) string { return tx.Stmts[k].Conds[col].Val.String() }
		shared := map[string]bool{}
		for k := 1; k <= 5; k++ {
			if val(k, 0) != val(0, 0) {
				t.Fatalf("repetition %d: w %s; want the shared %s", k, val(k, 0), val(0, 0))
			}
			shared[val(k, 1)] = true
		}
		if len(shared) == 5 {
			distinctRuns++
		}
		if val(6, 1) != val(0, 1) || val(6, 0) != val(0, 0) {
			t.Fatalf("the step after the repeated one: (%s, %s); want the shared (%s, %s)", val(6, 0), val(6, 1), val(0, 0), val(0, 1))
		}
	}
	// Five draws from 100,000 values are all distinct with probability
	// about 0.9999.
	if distinctRuns*100 < len(w.Txns)*99 {
		t.Errorf("%d of %d transactions varied i in every repetition", distinctRuns, len(w.Txns))
	}
	s2, err := Parse([]byte(strings.Replace(spec, "vary: [i]", "vary: [nope]", 1)), "v.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(s2, ""); err == nil || !strings.Contains(err.Error(), `.vary: table t has no column "nope"`) {
		t.Errorf("vary of an unknown column: %v", err)
	}
	for from, want := range map[string]string{
		`where: {w: "?", i: "?"}, repeat: 5, vary: [i]}`:                   "", // valid, as above
		`where: {w: "?"}, repeat: 5, vary: [i]}`:                           "i: the step draws no value of it",
		`where: {w: "?", i: "?"}, repeat: 5, vary: [i], remote: {i: 0.5}}`: "i is both varied and remote",
		`where: {w: "?", i: "?"}, repeat: 5, vary: i}`:                     "cannot read !!str `i` into a list",
		`where: {w: "?", i: "?"}, vary: [i]}`:                              "vary applies to a repeated step",
		`where: {w: "?", i: "?"}, repeat: 5, vary: [i, i]}`:                "i named twice",
	} {
		src := strings.Replace(spec, `where: {w: "?", i: "?"}, repeat: 5, vary: [i]}`, from, 1)
		s3, err := Parse([]byte(src), "v.yaml")
		if err == nil {
			_, err = Build(s3, "")
		}
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v; want %q", from, err, want)
		}
	}
}

// TestVaryInherited: an insert's column copied from its parent row cannot
// vary (the row would leave its parent).
func TestVaryInherited(t *testing.T) {
	spec := `name: p
tables:
  - name: o
    rows: 100
    columns:
      - {name: c, gen: uniform, distinct: 10}
      - {name: id, gen: sequential}
  - name: l
    parent: o
    per_parent: 2
    columns:
      - {name: item, gen: uniform, distinct: 50}
transactions:
  - name: tx
    rate: 1
    steps:
      - {table: o, kind: insert}
      - {table: l, kind: insert, repeat: 3, vary: [c]}
`
	s, err := Parse([]byte(spec), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(s, ""); err == nil || !strings.Contains(err.Error(), "c is copied from the parent row") {
		t.Errorf("vary of a parent's column: %v", err)
	}
	s, _ = Parse([]byte(strings.Replace(spec, "vary: [c]", "vary: [item]", 1)), "p.yaml")
	if _, err := Build(s, ""); err != nil {
		t.Errorf("vary of the line's own column: %v", err)
	}
}

// TestSpecNumberErrors: a value a number field cannot hold is named by
// its field and its line, not by the decoder's Go type: shards is a Go
// int (64 bits here), so 10^23 is beyond 2^63 = 9223372036854775808;
// capacity is a number of units of work per second; rows is on line 7
// whether it is negative or has a fraction.
func TestSpecNumberErrors(t *testing.T) {
	spec := func(shards, capacity, rows string) string {
		return "name: t\nshards: " + shards + "\ncapacity: " + capacity + "\nseed: 1\ntables:\n  - name: a\n    rows: " + rows +
			"\n    columns:\n      - {name: id, gen: sequential}\noperations:\n  - {name: r, table: a, kind: read, rate: 1, where: {id: 1}}\n"
	}
	for _, c := range []struct{ text, want string }{
		{spec("99999999999999999999999", "100", "10"), "t.yaml:2: shards: 99999999999999999999999: want a whole number below 9223372036854775808"},
		{spec("9223372036854775808", "100", "10"), "t.yaml:2: shards: 9223372036854775808: want a whole number below 9223372036854775808"},
		{spec("many", "100", "10"), `t.yaml:2: shards: "many": want a whole number`},
		{spec("8", "lots", "10"), `t.yaml:3: capacity: "lots": want a number (units of work per second)`},
		{spec("8", "100", "-5"), "t.yaml:7: a.rows: -5: must be in 1..50000000"},
		{spec("8", "100", "17520.5"), "t.yaml:7: tables.a.rows: 17520.5: want a whole number"},
	} {
		s, err := Parse([]byte(c.text), "t.yaml")
		if err == nil {
			_, err = Build(s, "")
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v\nwant %s", err, c.want)
		}
	}
}

// TestSpecZeroShards: shards: 0 written in a spec is an error naming the
// file, the line and the field (as --shards 0 is a usage error), not the
// default 8; shards left out still takes the default. nodes: 0 likewise,
// and a variant that sets shards to 0 is named by its own line.
func TestSpecZeroShards(t *testing.T) {
	const tail = "tables:\n  - name: a\n    rows: 10\n    columns:\n      - {name: id, gen: sequential}\n" +
		"operations:\n  - {name: r, table: a, kind: read, rate: 1, where: {id: 1}}\n"
	for _, c := range []struct{ text, variant, want string }{
		{"name: t\nshards: 0\n" + tail, "", "t.yaml:2: shards: 0: must be in 1..65536"},
		{"name: t\ncapacity: 5\nshards: 0\n" + tail, "", "t.yaml:3: shards: 0: must be in 1..65536"},
		{"name: t\nshards: 4\nnodes: 0\n" + tail, "", "t.yaml:3: nodes: 0: must be in 1..shards (4), the nodes the shards are placed on"},
		{"name: t\n" + tail + "variants:\n  - name: v\n    set: {shards: 0}\n", "v", "t.yaml:11: variants.v.set.shards: 0: must be in 1..65536"},
	} {
		s, err := Parse([]byte(c.text), "t.yaml")
		if err == nil {
			_, err = Build(s, c.variant)
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v\nwant %s", c.text, err, c.want)
		}
	}
	// Left out: the default.
	s, err := Parse([]byte("name: t\n"+tail), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := Build(s, "")
	if err != nil || w.Shards != DefaultShards || DefaultShards != 8 {
		t.Errorf("shards left out: got %v, %v; want 8 shards", w, err)
	}
}
