package advisor

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestCarryRowsUnknown: a carried table whose row count nothing gives
// (no row sample, no catalog: a log) has rows and bytes null in JSON,
// not 0; with 1,000 rows of an 8-byte column, 8,000 bytes. Paths keep
// "->" as written.
func TestCarryRowsUnknown(t *testing.T) {
	c := Carry{Table: "order_line", Column: "w_id", Path: []string{"order_line.o_id -> orders.o_id"}, BytesPerRow: 8}
	enc := func(c Carry) []byte { // as report.JSON writes: no HTML escaping
		var buf bytes.Buffer
		e := json.NewEncoder(&buf)
		e.SetEscapeHTML(false)
		if err := e.Encode(c); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	b := enc(c)
	for _, want := range []string{`"rows":null`, `"bytes":null`, `"bytes_per_row":8`, `-> orders`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s: want %s", b, want)
		}
	}
	c.Rows, c.Bytes = 1000, 8000
	b = enc(c)
	if !strings.Contains(string(b), `"rows":1000`) || !strings.Contains(string(b), `"bytes":8000`) {
		t.Errorf("%s: want rows 1000, bytes 8000", b)
	}
}
