package shardkey_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestParseTupleBounds: composite split points, bounds=[(v1, v2), ...],
// read as tuples (RangeExpr.Tuple), written back as read (a value holding
// a comma quoted), and split into their values by TupleParts.
func TestParseTupleBounds(t *testing.T) {
	for _, c := range []struct{ in, str string }{
		{`range(a, b, bounds=[(1, x), ( 1 , 'y,z' ), (2, "")])`, `range(a, b, bounds=[(1, x), (1, "y,z"), (2, "")])`},
		{`range({a: 1, b: "hashed"}, bounds=[(1, -5), (2, 7)])`, `range({a: 1, b: "hashed"}, bounds=[(1, -5), (2, 7)])`},
		{`range(a, b, c, bounds=[(1, 2), (3, 4)])`, `range(a, b, c, bounds=[(1, 2), (3, 4)])`},
	} {
		e, err := shardkey.ParseExpr(c.in)
		if err != nil {
			t.Errorf("ParseExpr(%s): %v", c.in, err)
			continue
		}
		re, ok := e.(*shardkey.RangeExpr)
		if !ok || !re.Tuple || e.String() != c.str {
			t.Errorf("ParseExpr(%s) = %#v (%s); want tuple bounds, %s", c.in, e, e, c.str)
			continue
		}
		again, err := shardkey.ParseExpr(e.String())
		if err != nil || again.String() != c.str {
			t.Errorf("ParseExpr(%s) again = %v, %v", e, again, err)
		}
	}
	e, _ := shardkey.ParseExpr(`range(a, b, bounds=[(1, x), (1, 'y,z'), (2, "")])`)
	re := e.(*shardkey.RangeExpr)
	for i, want := range [][]string{{"1", "x"}, {"1", "y,z"}, {"2", ""}} {
		if got := shardkey.TupleParts(re.Bounds[i]); !slices.Equal(got, want) {
			t.Errorf("TupleParts(%q) = %q; want %q", re.Bounds[i], got, want)
		}
	}
	if got := shardkey.TupleParts("7"); got != nil {
		t.Errorf("TupleParts(7) = %q; want nil (not a tuple)", got)
	}
	for _, c := range []struct{ in, want string }{
		{`range(a, bounds=[(1, 2)])`, "a tuple of 2 values for a key of 1 column: a split point has at most one value per column"},
		{`range(a, b, bounds=[200, (100, 5)])`, "at 26: bounds=[...]: a tuple after single values"},
		{`range(a, b, bounds=[(1, 2), 3])`, "expected a tuple (v1, v2, ...)"},
		{`range(a, b, bounds=[(1, 2), (3)])`, "a tuple of 1 value after tuples of 2"},
		{`range(a, b, bounds=[(1, 2)`, `expected ']'`},
		{`range(a, b, bounds=[(1, )])`, "expected a value"},
		{`range(a, b, bounds=[(1, 'x)])`, "unterminated string"},
		{`range(a, b, bounds=[(10 0), (20 0)])`, `"10 0" in a tuple: separate its values with commas`},
	} {
		if _, err := shardkey.ParseExpr(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseExpr(%s): error %v; want %q", c.in, err, c.want)
		}
	}
}
