package input_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/input"
)

type pqRow struct {
	ID      int64     `parquet:"id"`
	Small   int32     `parquet:"small"`
	Name    string    `parquet:"name"`
	Score   float64   `parquet:"score"`
	Ratio   float32   `parquet:"ratio"`
	Created time.Time `parquet:"created,timestamp(microsecond)"`
	Token   [16]byte  `parquet:"token,uuid"`
	Raw     []byte    `parquet:"raw"`
	Region  *string   `parquet:"region,optional"`
	Weight  float64   `parquet:"weight"`
}

// writeParquet writes rows to a file in dir with rowsPerGroup rows per row
// group, so reads cross row-group boundaries.
func writeParquet[T any](t testing.TB, dir, name string, rows []T, rowsPerGroup int64) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, parquet.MaxRowsPerRowGroup(rowsPerGroup))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadRows_Parquet(t *testing.T) {
	eu := "eu"
	base := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	var rows []pqRow
	for i := 0; i < 25; i++ {
		r := pqRow{
			ID: int64(1000 + i), Small: int32(-i), Name: "user" + string(rune('a'+i)),
			Score: float64(i) / 2, Ratio: 0.25, Created: base.Add(time.Duration(i) * time.Second),
			Raw: []byte{byte(i), 0xff}, Weight: float64(i % 3),
		}
		r.Token[0], r.Token[15] = byte(i), 0xab
		if i%2 == 0 {
			r.Region = &eu
		}
		rows = append(rows, r)
	}
	path := writeParquet(t, t.TempDir(), "users.parquet", rows, 10)
	tab, err := input.ReadRows(path, "users", input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows != 25 || len(tab.Weights) != 25 {
		t.Fatalf("rows = %d, weights = %d; want 25, 25", tab.Rows, len(tab.Weights))
	}
	if err := tab.Validate(); err != nil {
		t.Fatal(err)
	}
	wantTypes := map[string]shardkey.Type{
		"id": shardkey.Int64, "small": shardkey.Int32, "name": shardkey.Text, "score": shardkey.Float64,
		"ratio": shardkey.Float32, "created": shardkey.Timestamp, "token": shardkey.UUID,
		"raw": shardkey.Bytes, "region": shardkey.Text,
	}
	if got := len(tab.Columns); got != len(wantTypes) {
		t.Fatalf("%d columns (%v); want %d (weight is not a column)", got, tab.ColumnNames(), len(wantTypes))
	}
	for name, want := range wantTypes {
		c := tab.Column(name)
		if c == nil {
			t.Fatalf("no column %s", name)
		}
		if c.Type != want {
			t.Errorf("column %s: type %s; want %s", name, c.Type, want)
		}
	}
	check := func(col string, row int, want string) {
		t.Helper()
		if got := tab.Column(col).Value(row).String(); got != want {
			t.Errorf("%s[%d] = %q; want %q", col, row, got, want)
		}
	}
	check("id", 17, "1017")
	check("small", 12, "-12")
	check("name", 2, "userc")
	check("score", 21, "10.5")
	check("created", 11, "2024-05-01T12:00:11Z")
	check("token", 3, "03000000-0000-0000-0000-0000000000ab")
	check("raw", 20, "14ff")
	check("region", 14, "eu")
	if !tab.Column("region").Value(13).IsNull() {
		t.Errorf("region[13] = %v; want NULL", tab.Column("region").Value(13))
	}
	if tab.Weights[5] != 2 {
		t.Errorf("weight[5] = %v; want 2", tab.Weights[5])
	}

	// A type override converts the stored values.
	tab, err = input.ReadRows(path, "users", input.Options{Types: map[string]shardkey.Type{"id": shardkey.Text, "small": shardkey.Int64}})
	if err != nil {
		t.Fatal(err)
	}
	if c := tab.Column("id"); c.Type != shardkey.Text || c.Value(3).Str != "1003" {
		t.Errorf("id as text: %s %v", c.Type, c.Value(3))
	}
	if c := tab.Column("small"); c.Type != shardkey.Int64 || c.Value(3).Int != -3 {
		t.Errorf("small as int64: %s %v", c.Type, c.Value(3))
	}
}

func TestReadRows_ParquetErrors(t *testing.T) {
	dir := t.TempDir()
	type textRow struct {
		Key string `parquet:"key"`
	}
	var rows []textRow
	for i := 0; i < 30; i++ {
		rows = append(rows, textRow{Key: "12"})
	}
	rows[23].Key = "x23"
	path := writeParquet(t, dir, "keys.parquet", rows, 8)
	_, err := input.ReadRows(path, "keys", input.Options{Types: map[string]shardkey.Type{"key": shardkey.Int64}})
	var ie *shardkey.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v; want an *InputError", err)
	}
	for _, want := range []string{path, "row 24", "column key", `"x23"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}

	type nested struct {
		ID   int64    `parquet:"id"`
		Tags []string `parquet:"tags,list"`
	}
	path = writeParquet(t, dir, "nested.parquet", []nested{{ID: 1, Tags: []string{"a"}}}, 8)
	if _, err := input.ReadRows(path, "nested", input.Options{}); err == nil || !strings.Contains(err.Error(), "column tags") {
		t.Errorf("nested column: err = %v; want an error naming column tags", err)
	}

	type negWeight struct {
		ID     int64   `parquet:"id"`
		Weight float64 `parquet:"weight"`
	}
	path = writeParquet(t, dir, "w.parquet", []negWeight{{1, 1}, {2, -1}}, 8)
	if _, err := input.ReadRows(path, "w", input.Options{}); err == nil || !strings.Contains(err.Error(), "row 2: column weight") {
		t.Errorf("negative weight: err = %v; want it at row 2, column weight", err)
	}

	bad := filepath.Join(dir, "bad.parquet")
	if err := os.WriteFile(bad, []byte("id\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := input.ReadRows(bad, "bad", input.Options{}); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("not Parquet: err = %v; want an error naming the file", err)
	}
}
