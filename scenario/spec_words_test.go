package scenario

import (
	"strings"
	"testing"
)

// TestSpecErrorWords: decoding errors speak of tables and fields, not of
// Go types.
func TestSpecErrorWords(t *testing.T) {
	for in, want := range map[string]string{
		"name: x\ntables: 5\n":           "s.yaml:2: cannot read !!int `5` into a list of tables",
		"name: x\nfoo: 1\n":              "s.yaml:2: field foo not found at the top level",
		"name: x\ntables:\n  - nme: t\n": "s.yaml:3: field nme not found (want one of name",
	} {
		_, err := Parse([]byte(in), "s.yaml")
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "scenario.") {
			t.Errorf("%q: %v; want %q", in, err, want)
		}
	}
}
