package sqllog

import (
	"testing"

	"github.com/shardkey/shardkey"
)

// TestWriteParts: a statement that writes one table and reads others is
// one request at its write (its Parts the reads, which ride); one that
// writes two tables keeps a request per table.
func TestWriteParts(t *testing.T) {
	for _, tc := range []struct {
		name, sql string
		parts     int // the write instance's parts
		riders    int // read instances riding
	}{
		{"delete-using", "DELETE FROM orders o USING accounts a WHERE o.account_id = a.id AND a.id = 5", 1, 1},
		{"update-subquery", "UPDATE orders SET total = 0 WHERE account_id IN (SELECT id FROM accounts WHERE email = 'x')", 1, 1},
		{"insert-select-join", "INSERT INTO archive (id, account_id) SELECT o.id, o.account_id FROM orders o JOIN accounts a ON a.id = o.account_id WHERE a.id = 5", 2, 2},
		{"two-writes", "WITH d AS (DELETE FROM orders WHERE id = 1 RETURNING id, account_id) INSERT INTO archive (id, account_id) SELECT id, account_id FROM d", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := readText(t, "2024-03-01 10:00:00.000 UTC [1] app@db LOG:  statement: "+tc.sql+"\n", Options{})
			parts, riders, writes := 0, 0, 0
			for _, op := range w.Ops {
				for _, in := range op.Instances {
					if op.Kind.IsWrite() {
						writes++
						parts += len(in.Parts)
					}
					if in.Rider {
						if op.Kind != shardkey.Read {
							t.Errorf("%s rides", op.Name)
						}
						riders++
					}
				}
			}
			if writes == 0 || parts != tc.parts || riders != tc.riders {
				t.Errorf("%d write instances with %d parts, %d riders; want %d parts, %d riders\n%s", writes, parts, riders, tc.parts, tc.riders, summary(w))
			}
		})
	}
}
