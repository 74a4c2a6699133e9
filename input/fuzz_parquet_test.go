package input_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/shardkey/shardkey/input"
)

// FuzzParquet reads arbitrary bytes as a Parquet row file: never a panic
// (parquet-go panics on some malformed files; the reader turns that into
// an error), every error names the file, and a table read validates.
// Seeds: a small valid file and the corrupted one of TestParquetPanic (a
// leaf typed MAP), kept small so each input runs in well under a
// millisecond.
func FuzzParquet(f *testing.F) {
	type row struct {
		ID     int64     `parquet:"id"`
		Name   string    `parquet:"name"`
		At     time.Time `parquet:"at,timestamp(microsecond)"`
		Region *string   `parquet:"region,optional"`
	}
	eu := "eu"
	dir := f.TempDir()
	good := writeParquet(f, dir, "good.parquet", []row{{1, "a", time.Unix(0, 0).UTC(), &eu}, {2, "b", time.Unix(60, 0).UTC(), nil}}, 1)
	data, err := os.ReadFile(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	bad := writeParquet(f, dir, "bad.parquet", []row{{1, "a", time.Unix(0, 0).UTC(), nil}}, 1)
	corruptParquet(f, bad, func(md *format.FileMetaData) {
		for i := range md.Schema {
			if md.Schema[i].Name == "id" {
				md.Schema[i].ConvertedType = thrift.New(deprecated.Map)
				md.Schema[i].LogicalType = format.LogicalType{}
			}
		}
	})
	if data, err = os.ReadFile(bad); err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(t.TempDir(), "f.parquet")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tb, err := input.ReadRows(file, "t", input.Options{})
		if err != nil {
			if !strings.Contains(err.Error(), "f.parquet") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := tb.Validate(); err != nil {
			t.Fatalf("an invalid table: %v", err)
		}
	})
}
