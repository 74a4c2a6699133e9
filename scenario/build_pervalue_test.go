package scenario

import "testing"

// TestPerValueFromFixedPerParent: a column unique in its parent
// (sequential) inherited with a fixed per_parent n holds n rows per value
// in the child, n x m in a grandchild with per_parent m; a range
// per_parent (5-15) fixes no count.
func TestPerValueFromFixedPerParent(t *testing.T) {
	s, err := Parse([]byte(`name: t
shards: 8
tables:
  - name: warehouse
    rows: 8
    columns:
      - {name: w_id, gen: sequential}
  - name: district
    parent: warehouse
    per_parent: 10
    columns:
      - {name: d_id, gen: uniform, distinct: 10}
  - name: customer
    parent: district
    per_parent: 30
    columns:
      - {name: c_id, gen: uniform, distinct: 3000}
  - name: order_line
    parent: warehouse
    per_parent: 5-15
    columns:
      - {name: ol_i_id, gen: uniform, distinct: 100}
operations:
  - {name: r, table: district, rate: 1, where: {w_id: "?"}}
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]int{"district": {"w_id": 10}, "customer": {"w_id": 300}, "order_line": nil, "warehouse": nil}
	for name, pv := range want {
		tb := w.Tables[w.TableIndex(name)]
		if len(pv) == 0 && len(tb.PerValue) == 0 {
			continue
		}
		for col, n := range pv {
			if tb.PerValue[col] != n {
				t.Errorf("%s.%s: PerValue %d; want %d (%v)", name, col, tb.PerValue[col], n, tb.PerValue)
			}
		}
		if len(pv) == 0 || len(tb.PerValue) != len(pv) {
			t.Errorf("%s: PerValue %v; want %v", name, tb.PerValue, pv)
		}
	}
	// And the rows bear it out: district has 10 rows of each w_id.
	d := w.Tables[w.TableIndex("district")]
	count := map[string]int{}
	for i := 0; i < d.Rows; i++ {
		count[d.Column("w_id").Value(i).String()]++
	}
	for v, n := range count {
		if n != 10 {
			t.Errorf("district w_id %s: %d rows; want 10", v, n)
		}
	}
}
