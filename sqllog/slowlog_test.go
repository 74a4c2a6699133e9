package sqllog

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"reflect"
	"strconv"
	"testing"
)

// TestEpochMicros: "SET timestamp=" seconds read as
// int64(strconv.ParseFloat(v, 64) * 1e6), the reference, on both sides of
// the integer path's bound (2^53 microseconds) and off it.
func TestEpochMicros(t *testing.T) {
	for _, v := range []string{
		"0", "1", "1709251200", "0001709251", "9007199254", "9007199255", "9999999999", "99999999999",
		"1709251200.5", "1709251200.123456", "-1", "+1", "1e9", "", "x", "17092512x0", "inf",
	} {
		got, ok := epochMicros([]byte(v))
		f, err := strconv.ParseFloat(v, 64)
		want, wantOK := int64(f*1e6), err == nil
		if ok != wantOK || ok && got != want {
			t.Errorf("%q: %d, %v; ParseFloat: %d, %v", v, got, ok, want, wantOK)
		}
	}
	if got, _ := epochMicros([]byte("9007199254")); float64(got) > math.Pow(2, 53) {
		t.Errorf("9007199254 s = %d µs, past 2^53", got)
	}
}

// readSlowEntries reads data as a slow log, recording its entries.
func readSlowEntries(t *testing.T, data string) []entry {
	t.Helper()
	p := &pipeline{ctx: context.Background(), work: make(chan *job, 8), order: make(chan *job, 8), done: make(chan error, 1), dialect: MySQL, free: make(chan *batchMem, 10), freeE: make(chan []entry, 10)}
	go func() {
		for range p.work {
		}
	}()
	go func() {
		for j := range p.order {
			p.release(j)
		}
		p.done <- nil
	}()
	var out []entry
	rs := &readState{p: p, file: "s.log"}
	rs.cut = func(e *entry) error {
		out = append(out, *e)
		return nil
	}
	err := readMySQLSlow(bufio.NewReader(bytes.NewReader([]byte(data))), rs)
	if err == nil {
		err = rs.flush()
	}
	p.close()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSlowLogEntries: the statements of a slow log with their lines,
// times and sessions, read by hand: a statement over lines (with a blank
// line inside), "# Time:" repeated, changed and back, SET timestamp with
// and without a fraction, MySQL's "Id:" on the User@Host line, use, and
// a banner between entries.
func TestSlowLogEntries(t *testing.T) {
	const log = `/usr/sbin/mariadbd, Version: 10.11.19-MariaDB. started with:
Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock
Time		    Id Command	Argument
# Time: 240301 00:00:01
# User@Host: root[root] @  [127.0.0.1]
# Thread_id: 7  Schema: db  QC_hit: No
# Query_time: 0.000064  Lock_time: 0.000010  Rows_sent: 1  Rows_examined: 1
use db;
SELECT 1;
# Time: 240301 00:00:01
# User@Host: root[root] @  [127.0.0.1]
# Thread_id: 8  Schema: db  QC_hit: No
SELECT a
FROM t

WHERE b = 2;
# Time: 240301 00:00:02
# User@Host: u[u] @ localhost []  Id:    9
SET timestamp=1709251200;
SELECT 3;
# Time: 240301 00:00:01
# Thread_id: 7
SELECT 4;
/usr/sbin/mariadbd, Version: 10.11.19-MariaDB. started with:
# Time: 240301 00:00:01
# Thread_id: 7
SET timestamp=1709251200.25;
  SELECT 5;  
`
	// 2024-03-01 00:00:00 UTC is 1709251200 s after the epoch.
	const day = 1709251200 * int64(1e6)
	// Resolutions: whole seconds ("# Time:" of MariaDB, SET timestamp
	// without a fraction), 10 ms for SET timestamp's two decimals.
	want := []entry{
		{file: "s.log", line: 9, ts: day + 1e6, hasTS: true, res: 1e6, session: "7", sql: "SELECT 1;"},
		{file: "s.log", line: 13, ts: day + 1e6, hasTS: true, res: 1e6, session: "8", sql: "SELECT a\nFROM t\n\nWHERE b = 2;"},
		{file: "s.log", line: 20, ts: day, hasTS: true, res: 1e6, session: "9", sql: "SELECT 3;"},
		{file: "s.log", line: 23, ts: day + 1e6, hasTS: true, res: 1e6, session: "7", sql: "SELECT 4;"},
		{file: "s.log", line: 28, ts: day + 250000, hasTS: true, res: 1e4, session: "7", sql: "SELECT 5;"},
	}
	if got := readSlowEntries(t, log); !reflect.DeepEqual(got, want) {
		t.Errorf("entries:\n%+v\nwant\n%+v", got, want)
	}
}
