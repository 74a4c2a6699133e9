package input_test

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/shardkey/shardkey/input"
)

// corruptParquet rewrites the footer of the Parquet file at path with
// edit applied to its metadata (a file a buggy writer or a bad disk
// could leave).
func corruptParquet(t testing.TB, path string, edit func(*format.FileMetaData)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A file ends with the footer, its 4-byte little-endian length, "PAR1".
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	start := len(data) - 8 - n
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), data[start:len(data)-8], &md); err != nil {
		t.Fatal(err)
	}
	edit(&md)
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	out := append(append([]byte{}, data[:start]...), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	out = append(out, "PAR1"...)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestParquetPanic: a corrupted file whose leaf column claims to be a MAP
// makes parquet-go panic ("cannot call Kind on parquet MAP type"); the
// read is an input error naming the file and the column, not a crash.
func TestParquetPanic(t *testing.T) {
	type row struct {
		ID   int64  `parquet:"id"`
		Name string `parquet:"name"`
	}
	path := writeParquet(t, t.TempDir(), "bad.parquet", []row{{1, "a"}, {2, "b"}}, 10)
	corruptParquet(t, path, func(md *format.FileMetaData) {
		for i := range md.Schema {
			if md.Schema[i].Name == "id" {
				md.Schema[i].ConvertedType = thrift.New(deprecated.Map)
				md.Schema[i].LogicalType = format.LogicalType{}
			}
		}
	})
	_, err := input.ReadRows(path, "t", input.Options{})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"bad.parquet", "id"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	t.Log(err)
}
