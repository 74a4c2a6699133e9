// Package gctune defers the Go garbage collector while a command's heap is
// small, for commands whose heap is mostly a sample read once and kept
// (score on row files): with the default target (GOGC=100) such a run
// collects several times while its columns are built, each collection
// marking everything read so far, and with two cores every pointer store
// meanwhile goes through the write barrier. Deferring collection until the
// heap reaches a fixed size costs at most that size in extra memory, and
// once the live heap is a large part of it the default target is back.
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// restored is set once Defer's settings have been undone; prevPercent
// and prevLimit are the settings Defer found, which restoring puts back.
var (
	restored    atomic.Bool
	active      atomic.Bool
	prevPercent atomic.Int64
	prevLimit   atomic.Int64
)

// Defer turns the collector's percentage target off and sets a soft
// memory limit of limit bytes (runtime/debug.SetMemoryLimit), so that no
// collection runs until the Go runtime holds limit bytes. After a
// collection whose live heap exceeds limit/4 (the default target would
// then let the heap grow past half the limit anyway), the settings Defer
// found (GOGC=100 and no limit, unless the program set others) are
// restored for the rest of the run; Restore puts them back at once, for a
// command that returns to a longer-lived caller (tests). Defer does
// nothing when the GOGC or GOMEMLIMIT environment variable is set (the
// user's choice wins) or when limit is not positive. It reports whether
// it changed the settings.
func Defer(limit int64) bool {
	if limit <= 0 || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	if active.Swap(true) {
		return true // already deferred
	}
	restored.Store(false)
	prevPercent.Store(int64(debug.SetGCPercent(-1)))
	prevLimit.Store(debug.SetMemoryLimit(limit))
	arm(limit)
	return true
}

// Restore puts back the settings Defer changed, if they are still
// changed.
func Restore() {
	if !active.Load() || restored.Swap(true) {
		return
	}
	debug.SetGCPercent(int(prevPercent.Load()))
	debug.SetMemoryLimit(prevLimit.Load())
	active.Store(false)
}

// Restored reports whether the default settings are back (a collection
// found more than a quarter of the limit live).
func Restored() bool { return restored.Load() }

// sentinel is an object nothing refers to: its finalizer runs after the
// next collection, checks the live heap, and arms a new sentinel. It holds
// a pointer so that it is not a tiny allocation (a tiny object shares its
// block with others and its finalizer may never run).
type sentinel struct{ _ *int }

func arm(limit int64) {
	s := &sentinel{}
	runtime.SetFinalizer(s, func(*sentinel) {
		if restored.Load() {
			return
		}
		if live := liveHeap(); live > uint64(limit/4) {
			Restore()
			return
		}
		arm(limit)
	})
}

// math64 is "no limit", the runtime's default (math.MaxInt64).
const math64 = 1<<63 - 1

// liveHeap returns the heap bytes the last collection marked live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
