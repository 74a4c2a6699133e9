package sqllog

import (
	"context"
	"errors"
	"io"
	"os"
	"time"
)

// Follower reads a growing log file the way tail -F follows one: at the
// end of the file it waits for more; when the name comes to refer to
// another file (rotation by rename, as PostgreSQL's logging collector,
// logrotate's create mode and MySQL's FLUSH LOGS after a rename do) it
// reads what the old file still had and goes on from the start of the new
// one; when the file shrinks (logrotate's copytruncate) it starts again
// at its beginning. Read returns io.EOF once the context is done and
// everything written up to then has been read. A file that does not exist
// yet is waited for. It is not safe for concurrent use.
type Follower struct {
	ctx  context.Context
	path string
	f    *os.File
	off  int64
	// Poll is how often the end of the file is checked for more data
	// and the name for a new file (default 250ms).
	Poll time.Duration
	// draining: the context is done; read to the end of what exists.
	draining bool
}

// Follow returns a Follower of the file at path, starting at its
// beginning.
func Follow(ctx context.Context, path string) *Follower {
	return &Follower{ctx: ctx, path: path, Poll: 250 * time.Millisecond}
}

// Read reads what the log has, waiting at its end (see Follower).
func (fl *Follower) Read(p []byte) (int, error) {
	for {
		if fl.f == nil {
			f, err := os.Open(fl.path)
			switch {
			case err == nil:
				fl.f, fl.off = f, 0
			case !errors.Is(err, os.ErrNotExist):
				return 0, err
			case fl.draining:
				return 0, io.EOF
			default:
				if err := fl.wait(); err != nil {
					return 0, err
				}
				continue
			}
		}
		n, err := fl.f.Read(p)
		fl.off += int64(n)
		if n > 0 {
			return n, nil
		}
		if err != nil && err != io.EOF {
			return 0, err
		}
		// At the end of the open file: has the name moved on, or the
		// file shrunk?
		if st, err := os.Stat(fl.path); err == nil {
			cur, _ := fl.f.Stat()
			switch {
			case cur == nil || !os.SameFile(st, cur):
				fl.f.Close() // the old file has been read to its end
				fl.f = nil
				continue
			case st.Size() < fl.off:
				if _, err := fl.f.Seek(0, io.SeekStart); err != nil {
					return 0, err
				}
				fl.off = 0
				continue
			}
		}
		if fl.draining {
			return 0, io.EOF
		}
		if err := fl.wait(); err != nil {
			return 0, err
		}
	}
}

// wait sleeps one poll interval; when the context is done it switches to
// draining instead.
func (fl *Follower) wait() error {
	t := time.NewTimer(fl.Poll)
	defer t.Stop()
	select {
	case <-t.C:
	case <-fl.ctx.Done():
		fl.draining = true
	}
	return nil
}

// Close closes the open file.
func (fl *Follower) Close() error {
	if fl.f != nil {
		return fl.f.Close()
	}
	return nil
}
