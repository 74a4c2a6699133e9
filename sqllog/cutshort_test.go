package sqllog

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shardkey/shardkey"
)

// TestLastLineCutShort: a PostgreSQL stderr, MySQL general or slow log
// copied while the server wrote it ends inside its last statement (the
// fresh-clone review: "... FROM item" cut to "... FROM i" read as a table
// i, which then appeared in the recommended design). A server ends every
// line with a newline, so a last line without one leaves its statement
// out, with a warning naming the statement's first line; cut at a line's
// end, the log is whole and its last statement read. Cut anywhere in the
// last statement (its second line for a statement over two), the log
// reads without error and has no table i.
func TestLastLineCutShort(t *testing.T) {
	cases := []struct {
		format, file, head, last string
		line                     int // the last statement's first line
	}{
		{"stderr", "x.log",
			"2024-03-01 10:00:00.000 UTC [100] app@db LOG:  statement: SELECT * FROM a WHERE id = 1\n",
			"2024-03-01 10:00:01.000 UTC [101] app@db LOG:  statement: SELECT * FROM item\n\tWHERE i_id = 2\n", 2},
		{"mysql-general", "x.log",
			"240301 10:00:00\t    11 Query\tSELECT * FROM a WHERE id = 1\n",
			"\t\t    12 Query\tSELECT * FROM item\nWHERE i_id = 2\n", 2},
		{"mysql-slow", "x.log",
			"# Time: 240301 10:00:00\n# User@Host: app[app] @ localhost []  Id:    11\n# Query_time: 0.1  Lock_time: 0.0 Rows_sent: 1  Rows_examined: 1\nSET timestamp=1709287200;\nSELECT * FROM a WHERE id = 1;\n",
			"# User@Host: app[app] @ localhost []  Id:    12\n# Query_time: 0.1  Lock_time: 0.0 Rows_sent: 1  Rows_examined: 1\nSELECT * FROM item\nWHERE i_id = 2;\n", 8},
	}
	for _, c := range cases {
		stmt := strings.Index(c.last, "SELECT")
		for k := stmt + len("SELECT * FROM i"); k <= len(c.last); k++ {
			cut := c.last[:k]
			whole := strings.HasSuffix(cut, "\n") // a whole log: its last line ended
			w := &shardkey.Workload{}
			if err := Read(context.Background(), w, strings.NewReader(c.head+cut), c.file, Options{Format: c.format}); err != nil {
				t.Errorf("%s cut at %d: %v", c.format, k, err)
				continue
			}
			var tables []string
			for _, tb := range w.Tables {
				tables = append(tables, tb.Name)
			}
			want := "a"
			if whole {
				want = "a item"
			}
			if got := strings.Join(tables, " "); got != want {
				t.Errorf("%s cut at %d (%q): tables %q, want %q", c.format, k, cut, got, want)
			}
			warned := 0
			for _, wn := range w.Warnings {
				if strings.HasPrefix(wn.Error(), c.file+":"+strconv.Itoa(c.line)+": the log ends inside this statement") {
					warned++
				}
			}
			if whole == (warned == 1) || warned > 1 {
				t.Errorf("%s cut at %d (%q): warnings %q", c.format, k, cut, w.Warnings)
			}
		}
	}
}

// TestSlowThreadIDNotNumber: a slow log's thread ids tell its sessions
// apart, and so its transactions. Ids that are not numbers (no server
// writes them; an edited or converted log) were read as no id at all,
// every statement in one session: two interleaved transactions on
// threads A1 and B2 became one, across each other's rows (the fresh-clone
// review: 100% cross-shard under hash(w), 0% with numeric ids). Read as
// written, with a warning naming the line, they are the numeric log's
// two transactions.
func TestSlowThreadIDNotNumber(t *testing.T) {
	entry := func(id, sql string) string {
		return "# Time: 240301 10:00:00\n# User@Host: app[app] @ localhost []  Id: " + id + "\n# Query_time: 0.1  Lock_time: 0.0 Rows_sent: 1  Rows_examined: 1\nSET timestamp=1709287200;\n" + sql + ";\n"
	}
	log := func(a, b string) string {
		return entry(a, "BEGIN") + entry(b, "BEGIN") +
			entry(a, "UPDATE t SET x = 1 WHERE w = 1") + entry(b, "UPDATE t SET x = 1 WHERE w = 2") +
			entry(a, "UPDATE t SET x = 2 WHERE w = 1") + entry(b, "UPDATE t SET x = 2 WHERE w = 2") +
			entry(a, "COMMIT") + entry(b, "COMMIT")
	}
	txns := func(w *shardkey.Workload) string {
		var s []string
		for _, tx := range w.Txns {
			s = append(s, strconv.Itoa(len(tx.Stmts)))
		}
		return strings.Join(s, " ")
	}
	num := &shardkey.Workload{}
	if err := Read(context.Background(), num, strings.NewReader(log("11", "12")), "n.log", Options{Format: "mysql-slow"}); err != nil {
		t.Fatal(err)
	}
	odd := &shardkey.Workload{}
	if err := Read(context.Background(), odd, strings.NewReader(log("A1", "B2")), "a.log", Options{Format: "mysql-slow"}); err != nil {
		t.Fatal(err)
	}
	if got, want := txns(odd), txns(num); got != want || want != "2 2" {
		t.Errorf("transactions' statements: %q with ids A1, B2; %q with 11, 12; want two of 2 each", got, want)
	}
	warned := 0
	for _, wn := range odd.Warnings {
		if strings.HasPrefix(wn.Error(), `a.log:2: Thread_id: "A1" is not a number`) {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("warnings %q; want one naming a.log:2 and A1", odd.Warnings)
	}
}

// TestOpenAtLogEnd: transactions a log ends inside (BEGIN with no COMMIT
// yet: a log copied while the server wrote it) are counted as committed
// with the statements the log holds, and said so once they are 1% of the
// transactions or more; a window of watch that ends mid-log says
// nothing, since its open transactions go on in the next window.
func TestOpenAtLogEnd(t *testing.T) {
	log := func(committed, open int) string {
		var b strings.Builder
		line := func(sec, pid int, sql string) {
			fmt.Fprintf(&b, "2024-03-01 10:00:%02d.000 UTC [%d] app@db LOG:  statement: %s\n", sec, pid, sql)
		}
		for i := range committed {
			line(i%50, 1000+i, "BEGIN")
			line(i%50, 1000+i, fmt.Sprintf("UPDATE a SET x = 1 WHERE id = %d", i))
			line(i%50, 1000+i, "COMMIT")
		}
		for i := range open {
			line(55, 5000+i, "BEGIN")
			line(55, 5000+i, fmt.Sprintf("UPDATE a SET x = 1 WHERE id = %d", i))
		}
		return b.String()
	}
	cases := []struct {
		committed, open int
		want            string // the warning's start, or "" for none
	}{
		{100, 2, "2 of the 102 transactions counted were still open when the log ended"},
		{99, 1, "1 of the 100 transactions counted was still open when the log ended"},
		{200, 1, ""}, // 1 of 201: under 1%
		{100, 0, ""},
	}
	for _, c := range cases {
		w := &shardkey.Workload{}
		if err := Read(context.Background(), w, strings.NewReader(log(c.committed, c.open)), "x.log", Options{Format: "stderr"}); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, wn := range w.Warnings {
			if strings.Contains(wn.Error(), "open when the log ended") {
				got = append(got, wn.Error())
			}
		}
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%d committed, %d open: warned %q", c.committed, c.open, got)
		case c.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], "x.log: "+c.want)):
			t.Errorf("%d committed, %d open: warnings %q, want one starting %q", c.committed, c.open, got, c.want)
		}
		var n float64
		for _, tx := range w.Txns {
			n += tx.Weight
		}
		// Every transaction counted, the open ones too, over the log's
		// span (its first to last timestamp plus the millisecond).
		span := 55.001
		if c.open == 0 {
			span = float64(min(c.committed, 50)-1) + 0.001
		}
		if want := float64(c.committed+c.open) / span; math.Abs(n-want) > 1e-6*want {
			t.Errorf("%d committed, %d open: %.6f transactions/s, want %.6f", c.committed, c.open, n, want)
		}
	}

	// Windows of one minute: a transaction runs across the first
	// window's end (open there, committed in the second), and one is left
	// open when the log ends.
	text := "2024-03-01 10:00:59.000 UTC [7] app@db LOG:  statement: BEGIN\n" +
		"2024-03-01 10:00:59.500 UTC [7] app@db LOG:  statement: UPDATE a SET x = 1 WHERE id = 1\n" +
		"2024-03-01 10:01:01.000 UTC [7] app@db LOG:  statement: COMMIT\n" +
		"2024-03-01 10:01:30.000 UTC [8] app@db LOG:  statement: BEGIN\n" +
		"2024-03-01 10:01:31.000 UTC [8] app@db LOG:  statement: UPDATE a SET x = 1 WHERE id = 2\n"
	var warned []bool
	err := ReadWindows(context.Background(), strings.NewReader(text), "w.log", Options{Format: "stderr"}, time.Minute,
		func() *shardkey.Workload { return &shardkey.Workload{} },
		func(win *Window) error {
			open := false
			for _, wn := range win.Workload.Warnings {
				open = open || strings.Contains(wn.Error(), "open when the log ended")
			}
			warned = append(warned, open)
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(warned) != "[false true]" {
		t.Errorf("windows warned of transactions open at the log's end: %v, want [false true] (the first window ends mid-log)", warned)
	}
}
