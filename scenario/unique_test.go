package scenario

import (
	"maps"
	"slices"
	"testing"
)

// TestUniqueColumns: a table's own sequential and uuid columns give each
// row a value of its own (start + row index; 122 random bits), so the
// workload names them unique in their table (Table.Unique); a uniform
// column repeats values, and a child's inherited parent key repeats its
// parent's value per child row (w_id in district): neither is.
func TestUniqueColumns(t *testing.T) {
	src := `name: u
tables:
  - name: warehouse
    rows: 4
    columns:
      - {name: w_id, gen: sequential}
      - {name: w_code, gen: uuid}
      - {name: w_tax, gen: uniform, distinct: 3}
  - name: district
    parent: warehouse
    per_parent: 3
    columns:
      - {name: d_id, gen: uniform, distinct: 3}
      - {name: d_seq, gen: serial, start: 10}
`
	s, err := Parse([]byte(src), "u.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]string{{"w_code", "w_id"}, {"d_seq"}} {
		got := slices.Sorted(maps.Keys(w.Tables[i].Unique))
		if !slices.Equal(got, want) {
			t.Errorf("%s: unique columns %v; want %v", w.Tables[i].Name, got, want)
		}
	}
	// The values bear it out: 12 district rows, 12 distinct d_seq.
	d := w.Tables[1]
	seen := map[int64]bool{}
	for _, v := range d.Column("d_seq").Ints {
		seen[v] = true
	}
	if d.Rows != 12 || len(seen) != 12 {
		t.Errorf("district: %d rows, %d distinct d_seq; want 12 and 12", d.Rows, len(seen))
	}
}
