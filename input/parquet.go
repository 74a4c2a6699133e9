package input

import "github.com/shardkey/shardkey"

// readParquetRows reads a Parquet file. Parquet support arrives with the
// real-inputs work (issue 4); until then it is a clear error, never a
// silent empty table.
func readParquetRows(file, name string, o Options) (*shardkey.Table, error) {
	_ = name
	_ = o
	return nil, shardkey.Errorf(file, 0, "", "Parquet row files are not supported yet: convert to CSV or JSONL")
}
