// Package livedb reads a live PostgreSQL or MySQL database, read-only,
// into a shardkey.Workload: catalog, planner statistics, a row sample and
// statement statistics.
package livedb

import (
	"context"
	"errors"
	"io"

	"github.com/shardkey/shardkey"
)

// Options control sampling.
type Options struct {
	// SampleRows bounds the rows sampled per table.
	SampleRows int
	// Progress receives a progress bar for slow steps; nil for none.
	Progress io.Writer
}

// Read adds the database at dsn (postgres://... or mysql://...) to w.
func Read(ctx context.Context, w *shardkey.Workload, dsn string, o Options) error {
	return errors.New("live databases are not supported yet")
}
