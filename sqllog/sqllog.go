// Package sqllog reads database query logs (PostgreSQL stderr, csvlog and
// jsonlog; pg_stat_statements exports; MySQL/MariaDB general and slow logs)
// into a shardkey.Workload, parsing SQL with the engines' real parsers.
package sqllog

import (
	"context"
	"errors"

	"github.com/shardkey/shardkey"
)

// Options control log reading.
type Options struct {
	// Format is the log format, or "" to detect it.
	Format string
	// Types fixes column types by name or table.column.
	Types map[string]shardkey.Type
}

// ReadFile adds the statements of one log file to w: tables and columns it
// names, operations with rates, transactions by session.
func ReadFile(ctx context.Context, w *shardkey.Workload, file string, o Options) error {
	return errors.New("query logs are not supported yet")
}
