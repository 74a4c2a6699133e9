package sqllog

import "unsafe"

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
	cur []byte // the chunk being filled: len used, cap its size
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
	if cap(a.cur)-len(a.cur) < len(b) {
		a.cur = make([]byte, 0, arenaChunk)
		if testHookArenaChunk != nil {
			testHookArenaChunk(a.cur)
		}
	}
	at := len(a.cur)
	a.cur = append(a.cur, b...)
	return unsafe.String(&a.cur[at], len(b))
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

// testHookArenaChunk, when set (by tests), sees every chunk made.
var testHookArenaChunk func(chunk []byte)
