package sqllog

import (
	"strings"
	"testing"
)

// hasPrefixT and indexT must answer as strings.HasPrefix and
// strings.Index do, for bytes and for strings.
func TestPGTextHelpers(t *testing.T) {
	texts := []string{"", "d", "duration: 0.1 ms  statement: SELECT 1", "execute S_1: SELECT $1", "execute fetch from x",
		" ms ", "a ms  b ms  c", "::", "x: y: z", "statement: ", "statemen", "prepare: PREPARE p AS SELECT 1"}
	seps := []string{" ms  ", ": ", "statement: ", "execute ", "prepare: ", "d", "z"}
	for _, s := range texts {
		for _, sep := range seps {
			if got, want := hasPrefixT(s, sep), strings.HasPrefix(s, sep); got != want {
				t.Errorf("hasPrefixT(%q, %q) = %v, want %v", s, sep, got, want)
			}
			if got, want := hasPrefixT([]byte(s), sep), strings.HasPrefix(s, sep); got != want {
				t.Errorf("hasPrefixT([]byte(%q), %q) = %v, want %v", s, sep, got, want)
			}
			if got, want := indexT(s, sep), strings.Index(s, sep); got != want {
				t.Errorf("indexT(%q, %q) = %d, want %d", s, sep, got, want)
			}
			if got, want := indexT([]byte(s), sep), strings.Index(s, sep); got != want {
				t.Errorf("indexT([]byte(%q), %q) = %d, want %d", s, sep, got, want)
			}
		}
	}
}
