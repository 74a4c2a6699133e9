// Package progress draws a progress bar for long reads on a terminal:
// bytes read, rate and, when the total is known, the estimated time left.
// It wraps github.com/schollz/progressbar/v3 and stays silent for the
// first second, so a fast read prints nothing. Callers decide whether
// their stderr is a terminal (Terminal); a nil writer draws nothing.
package progress

import (
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Terminal returns w when it is a terminal (an *os.File whose descriptor
// is a tty, or a writer over one that says so with Fd), else nil:
// progress is for people watching, not for files and pipes.
func Terminal(w io.Writer) io.Writer {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return w
}

// Bar counts bytes toward a total. The zero Bar and a nil *Bar draw
// nothing. Add may be called from one goroutine at a time.
type Bar struct {
	bar *progressbar.ProgressBar
}

// Bytes returns a bar of total bytes (-1 when unknown: bytes and rate
// only) described by desc, writing to w (nil: no bar).
func Bytes(w io.Writer, total int64, desc string) *Bar {
	if w == nil {
		return &Bar{}
	}
	dw := &delayedWriter{w: w, after: time.Now().Add(time.Second)}
	return &Bar{bar: progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(dw),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowTotalBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

// Add advances the bar by n bytes.
func (b *Bar) Add(n int) {
	if b != nil && b.bar != nil && n > 0 {
		_ = b.bar.Add(n)
	}
}

// Finish clears the bar (when it was drawn).
func (b *Bar) Finish() {
	if b != nil && b.bar != nil {
		_ = b.bar.Finish()
	}
}

// Reader returns r advancing b by the bytes read through it.
func (b *Bar) Reader(r io.Reader) io.Reader {
	if b == nil || b.bar == nil {
		return r
	}
	return &reader{r: r, b: b}
}

type reader struct {
	r io.Reader
	b *Bar
}

func (r *reader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.b.Add(n)
	return n, err
}

// delayedWriter drops writes until a moment has passed.
type delayedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	after   time.Time
	started bool
}

func (d *delayedWriter) Write(b []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.started {
		if time.Now().Before(d.after) {
			return len(b), nil
		}
		d.started = true
	}
	return d.w.Write(b)
}
