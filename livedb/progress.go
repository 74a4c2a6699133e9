package livedb

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress is a progress bar that stays silent for the first second, so
// that a fast read prints nothing.
type progress struct {
	bar *progressbar.ProgressBar
}

// newProgress returns a bar of n steps writing to w (nil: no bar).
func newProgress(w io.Writer, start time.Time, n int, desc string) *progress {
	if w == nil || n == 0 {
		return &progress{}
	}
	dw := &delayedWriter{w: w, after: start.Add(time.Second)}
	return &progress{bar: progressbar.NewOptions(n,
		progressbar.OptionSetWriter(dw),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

func (p *progress) step() {
	if p.bar != nil {
		_ = p.bar.Add(1)
	}
}

func (p *progress) done() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// delayedWriter drops writes until a moment has passed.
type delayedWriter struct {
	w       io.Writer
	after   time.Time
	started bool
}

func (d *delayedWriter) Write(b []byte) (int, error) {
	if !d.started {
		if time.Now().Before(d.after) {
			return len(b), nil
		}
		d.started = true
	}
	return d.w.Write(b)
}
