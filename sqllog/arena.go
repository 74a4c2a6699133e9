package sqllog

import (
	"strings"
	"unsafe"
)

// textArena copies the statement text a reader hands on (an entry's SQL
// and parameters) into large chunks: one allocation per arenaChunk bytes
// of statements instead of one per statement (a 1 GB TPC-C log holds
// about 5 million), which took about a tenth of the reading's CPU in
// allocation and collection (docs/performance.md, "Sixteenth session").
//
// A chunk is never reused or written again where a string was made, so a
// string from the arena stays valid as long as anything holds it. What
// outlives its batch is copied where it is kept (strings.Clone: a
// prepared statement's body, the parse cache's keys and raw templates,
// an unparsed statement's excerpt; reservoirs detach their values,
// limits.detach), so that no chunk is held alive by a few bytes of it.
type textArena struct {
	// b is the chunk being filled: a strings.Builder, whose buffer is
	// not zeroed when made (a chunk is all written before it is read)
	// and whose String shares it; b never grows past the chunk it was
	// given (a new Builder takes over), so nothing written moves.
	b strings.Builder
}

const (
	// arenaChunk is the size of a chunk: a batch's worth of text
	// (batchBytes), so that a batch's statements share one or two.
	arenaChunk = 256 << 10
	// arenaMax is the longest text copied into a chunk; a longer one
	// (a statement with a long IN list) is a string of its own.
	arenaMax = 4 << 10
)

// string returns a string holding b's bytes (b may be reused after).
func (a *textArena) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > arenaMax {
		return string(b)
	}
	if a.b.Cap()-a.b.Len() < len(b) {
		a.b = strings.Builder{}
		a.b.Grow(arenaChunk)
	}
	at := a.b.Len()
	a.b.Write(b)
	s := a.b.String()[at:]
	if at == 0 && testHookArenaChunk != nil {
		testHookArenaChunk(unsafe.StringData(s), a.b.Cap())
	}
	return s
}

// textOf is a.string for a pgText: a string is returned as it is.
func textOf[T pgText](a *textArena, b T) string {
	switch v := any(b).(type) {
	case string:
		return v
	case []byte:
		return a.string(v)
	}
	return string(b)
}

// testHookArenaChunk, when set (by tests), sees every chunk made: its
// first byte and its size, once its first string is written.
var testHookArenaChunk func(start *byte, size int)
