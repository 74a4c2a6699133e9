package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardkey/shardkey/input"
)

// FuzzColumnType parses an arbitrary --column-type flag and reads a small
// row file with the types it gives: never a panic; a bad flag is a usage
// error naming the flag; a value that does not convert is an input error
// naming the file; a table read validates and has each typed column's type.
func FuzzColumnType(f *testing.F) {
	for _, c := range [][2]string{
		{"id=int64", "id,region\n1,eu\n2,us\n"},
		{"region=uuid", "id,region\n1,eu\n"},
		{"t.id=timestamp", "id,at\n2024-01-01,1\n"},
		{"at=timestamp", "id,at\n1,2024-01-01T00:00:00Z\n2,\n"},
		{"id=", "id\n1\n"},
		{"=int16", "id\n70000\n"},
		{"id=int16", "id\n70000\n"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, flag, content string) {
		types, err := columnTypes([]string{flag})
		if err != nil {
			if !strings.Contains(err.Error(), "--column-type") {
				t.Fatalf("%q: %v", flag, err)
			}
			return
		}
		file := filepath.Join(t.TempDir(), "t.csv")
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		tb, err := input.ReadRows(file, "t", input.Options{Types: types})
		if err != nil {
			if !strings.Contains(err.Error(), "t.csv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := tb.Validate(); err != nil {
			t.Fatalf("an invalid table: %v", err)
		}
		for name, typ := range types {
			col := strings.TrimPrefix(name, "t.")
			if ci := tb.ColumnIndex(col); ci >= 0 && tb.Columns[ci].Type != typ {
				t.Fatalf("--column-type %s: column %s read as %s", flag, col, tb.Columns[ci].Type)
			}
		}
	})
}
