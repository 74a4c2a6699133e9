package loggen_test

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/loggen"
	"github.com/shardkey/shardkey/sqllog"
)

// TestFormats: each format is read by sqllog as a log of that format, with
// TPC-C's nine tables, no statement left unparsed, and the same bytes for
// the same options.
func TestFormats(t *testing.T) {
	for _, f := range []string{"stderr", "csvlog", "jsonlog", "mysql-general", "mysql-slow"} {
		var a, b bytes.Buffer
		o := loggen.Options{Format: f, Bytes: 300 << 10, Seed: 9}
		n, err := loggen.Write(&a, o)
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(a.Len()) || n < o.Bytes {
			t.Errorf("%s: wrote %d bytes, said %d, asked %d", f, a.Len(), n, o.Bytes)
		}
		loggen.Write(&b, o)
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two runs with one seed differ", f)
		}
		w := &shardkey.Workload{}
		if err := sqllog.Read(context.Background(), w, &a, f, sqllog.Options{}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var tables []string
		for _, tb := range w.Tables {
			tables = append(tables, tb.Name)
		}
		sort.Strings(tables)
		if got := strings.Join(tables, " "); got != "customer district history item new_order order_line orders stock warehouse" {
			t.Errorf("%s: tables %s", f, got)
		}
		for _, e := range w.Warnings {
			if strings.Contains(e.Error(), "could not be parsed") || strings.Contains(e.Error(), "skipped") {
				t.Errorf("%s: %v", f, e)
			}
		}
		if len(w.Txns) == 0 {
			t.Errorf("%s: no transactions", f)
		}
	}
}
