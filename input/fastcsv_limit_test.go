package input

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLargeCSVStreamed: a CSV file above the in-memory limit is read
// record by record into the same table the parallel in-memory reader
// gives.
func TestLargeCSVStreamed(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("user_id,name,weight\n")
	for i := range 500 {
		fmt.Fprintf(&sb, "%d,u%d,%d\n", i%37, i, 1+i%3)
	}
	file := filepath.Join(t.TempDir(), "rows.csv")
	if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	fast, err := ReadRows(file, "t", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func(old int64) { fastCSVMax = old }(fastCSVMax)
	fastCSVMax = 100 // the file is larger: streamed
	slow, err := ReadRows(file, "t", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fast.Rows != 500 || slow.Rows != 500 || len(fast.Columns) != len(slow.Columns) {
		t.Fatalf("rows %d and %d, columns %d and %d; want 500 rows each, the same columns", fast.Rows, slow.Rows, len(fast.Columns), len(slow.Columns))
	}
	for ci, c := range fast.Columns {
		s := slow.Columns[ci]
		if c.Name != s.Name || c.Type != s.Type {
			t.Fatalf("column %d: %s %v vs %s %v", ci, c.Name, c.Type, s.Name, s.Type)
		}
		for r := range fast.Rows {
			if c.Value(r) != s.Value(r) {
				t.Fatalf("row %d column %s: %v (in memory) vs %v (streamed)", r, c.Name, c.Value(r), s.Value(r))
			}
		}
	}
	for r := range fast.Rows {
		if fast.Weight(r) != slow.Weight(r) {
			t.Fatalf("row %d weight %v vs %v", r, fast.Weight(r), slow.Weight(r))
		}
	}
}
