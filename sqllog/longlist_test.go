package sqllog

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
)

// TestCutLists: which lists are cut and which values are kept, worked by
// hand: of K values cut to L, value j*(K-1)/(L-1) for j = 0..L-1.
func TestCutLists(t *testing.T) {
	check := func(d Dialect, limit int, sql, want string, wantCut, wantLongest int) {
		t.Helper()
		got, cut, longest := cutLists(sql, d, limit)
		if got != want || cut != wantCut || longest != wantLongest {
			t.Errorf("cutLists(%q, %d) = %q, %d, %d; want %q, %d, %d", sql, limit, got, cut, longest, want, wantCut, wantLongest)
		}
	}
	// 10 values to 4: indices 0, 3, 6, 9 (j*9/3).
	check(Postgres, 4, "SELECT * FROM t WHERE id IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10) AND x = 1",
		"SELECT * FROM t WHERE id IN (1, 4, 7, 10) AND x = 1", 1, 10)
	// 7 values to 3: indices 0, 3, 6; NOT IN, no space before the list,
	// signs, strings holding commas, quotes and parentheses.
	check(Postgres, 3, "DELETE FROM t WHERE id NOT IN(-1,'a,b','it''s',+4,'x)',6.5e3,NULL)",
		"DELETE FROM t WHERE id NOT IN(-1, +4, NULL)", 1, 7)
	// Rows of literals: 5 rows to 3: indices 0, 2, 4.
	check(MySQL, 3, "SELECT * FROM t WHERE (a, b) IN ((1, 'x'), (2, 'y'), (3, \"z\"), (4, 'w\\'s'), (5, 'v'))",
		"SELECT * FROM t WHERE (a, b) IN ((1, 'x'), (3, \"z\"), (5, 'v'))", 1, 5)
	// Two lists, each cut; PostgreSQL's E'' strings with \'.
	check(Postgres, 2, "SELECT 1 FROM t WHERE a IN (1,2,3) AND b in (E'a\\'', 'b', E'c')",
		"SELECT 1 FROM t WHERE a IN (1, 3) AND b in (E'a\\'', E'c')", 2, 3)
	// Not lists of literals, not after IN, or not long: unchanged.
	for _, sql := range []string{
		"SELECT * FROM t WHERE id IN (1, 2, 3, 4, 5) ", // at the limit
		"SELECT * FROM t WHERE id IN (1, 2, x, 4, 5, 6)",
		"SELECT * FROM t WHERE id IN (1, 2, 3 + 1, 4, 5, 6)",
		"SELECT * FROM t WHERE id IN (SELECT id FROM u WHERE k IN (1))",
		"SELECT coalesce(1, 2, 3, 4, 5, 6), min(1, 2, 3, 4, 5, 6) FROM t",
		"INSERT INTO t VALUES (1, 2, 3, 4, 5, 6), (7, 8, 9, 10, 11, 12)",
		"SELECT 'id IN (1, 2, 3, 4, 5, 6)' FROM t",
		"SELECT 1 FROM t /* id IN (1, 2, 3, 4, 5, 6) */",
		"SELECT 1 FROM t -- id IN (1, 2, 3, 4, 5, 6)\n",
		"SELECT $$ id IN (1, 2, 3, 4, 5, 6) $$ FROM t",
		`SELECT 1 FROM "in" (1, 2, 3, 4, 5, 6)`,
		"SELECT * FROM t WHERE id IN (1, 2, 3, 4, 5, 6", // unterminated
		"SELECT * FROM t WHERE id IN (0x1, 2, 3, 4, 5, 6)",
	} {
		check(Postgres, 5, sql, sql, 0, 0)
	}
	check(MySQL, 5, "SELECT 1 FROM t # id IN (1, 2, 3, 4, 5, 6)\n", "SELECT 1 FROM t # id IN (1, 2, 3, 4, 5, 6)\n", 0, 0)
	check(MySQL, 5, "SELECT 'it\\'s id IN (1, 2, 3, 4, 5, 6)' FROM t", "SELECT 'it\\'s id IN (1, 2, 3, 4, 5, 6)' FROM t", 0, 0)
}

// inListLog writes a log of the dialect holding a few point reads and
// one statement SELECT name FROM users WHERE id IN (...) with vals, and
// returns its path.
func inListLog(t *testing.T, d Dialect, vals []int64, extra ...string) string {
	t.Helper()
	var list strings.Builder
	for i, v := range vals {
		if i > 0 {
			list.WriteString(", ")
		}
		list.WriteString(strconv.FormatInt(v, 10))
	}
	stmts := []string{}
	for i := range 20 {
		stmts = append(stmts, fmt.Sprintf("SELECT name FROM users WHERE id = %d", i+1))
	}
	stmts = append(stmts, "SELECT name FROM users WHERE id IN ("+list.String()+")")
	stmts = append(stmts, extra...)
	var b strings.Builder
	name := "pg.log"
	if d == MySQL {
		name = "mysql.log"
		b.WriteString("/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1 (Debian 12). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n")
		b.WriteString("261130 23:05:19\t    12 Connect\troot@127.0.0.1 on db using TCP/IP\n")
		for i, s := range stmts {
			fmt.Fprintf(&b, "261130 23:05:%02d\t    12 Query\t%s\n", 20+i, s)
		}
	} else {
		for i, s := range stmts {
			fmt.Fprintf(&b, "2026-11-30 23:05:%02d.000 UTC [100] LOG:  statement: %s\n", i, s)
		}
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// randomInts returns n seeded random values in [1, 10^9].
func randomInts(n int, seed uint64) []int64 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]int64, n)
	for i := range out {
		out[i] = 1 + r.Int64N(1e9)
	}
	return out
}

// readHeap reads path and returns the largest live heap seen: after a
// collection at each aggregated batch and once all are (testHookAdd,
// testHookDrained, as liveHeap), and the largest live heap the runtime
// measured at any collection while reading (/gc/heap/live:bytes, sampled
// every millisecond), which sees the parse of a statement in flight.
func readHeap(t *testing.T, path string) (hooks, peak uint64, w *shardkey.Workload) {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	hook := func() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		hooks = max(hooks, ms.HeapAlloc)
	}
	testHookAdd = hook
	if testHookDrained == nil {
		testHookDrained = hook
	}
	defer func() { testHookAdd, testHookDrained = nil, nil }()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tk := time.NewTicker(time.Millisecond)
		defer tk.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-stop:
				return
			case <-tk.C:
			}
		}
	})
	w = &shardkey.Workload{}
	err := ReadFile(context.Background(), w, path, Options{})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return hooks, peak, w
}

// TestLongInList_HeapBounded: one statement with an IN list of about a
// million values (a 10 MB line) takes no more live heap than one of
// 100,000 (a 1 MB line), give or take 64 MB: the list is cut before the
// real parser builds a syntax tree of every value (about 500 bytes each,
// so 500 MB for the long one without the cut). Both logs hold the same
// other statements.
func TestLongInList_HeapBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 11 MB logs")
	}
	const slack = 64 << 20
	for _, d := range []Dialect{Postgres, MySQL} {
		small := inListLog(t, d, randomInts(100_000, 1))
		big := inListLog(t, d, randomInts(1_000_000, 2))
		fi, err := os.Stat(big)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() < 10e6 {
			t.Fatalf("%s: %d bytes, want a 10 MB line", big, fi.Size())
		}
		hs, ps, ws := readHeap(t, small)
		hb, pb, wb := readHeap(t, big)
		t.Logf("%v: live heap at batch ends %.1f MB (1 MB line), %.1f MB (10 MB line); largest live heap at a collection %.1f MB, %.1f MB",
			d, float64(hs)/(1<<20), float64(hb)/(1<<20), float64(ps)/(1<<20), float64(pb)/(1<<20))
		if hb > hs+slack {
			t.Errorf("%v: live heap at batch ends grew from %d to %d bytes for a 10 MB IN list line (a 1 MB one before): more than 64 MB", d, hs, hb)
		}
		if pb > ps+slack {
			t.Errorf("%v: largest live heap while reading grew from %d to %d bytes for a 10 MB IN list line (a 1 MB one before): more than 64 MB", d, ps, pb)
		}
		// Both lists were cut, and said so at their line (21 in the
		// PostgreSQL log, 25 in the MySQL log: four lines of header).
		line := 21
		if d == MySQL {
			line = 25
		}
		for _, c := range []struct {
			w    *shardkey.Workload
			n    string
			file string
		}{{ws, "100,000", small}, {wb, "1,000,000", big}} {
			want := fmt.Sprintf("%s:%d: an IN list of %s values was cut to 4,096", c.file, line, c.n)
			found := false
			for _, e := range c.w.Warnings {
				found = found || strings.HasPrefix(e.Error(), want)
			}
			if !found {
				t.Errorf("%v: no warning %q in %v", d, want, c.w.Warnings)
			}
		}
	}
}

// TestLongInList_Routing: a statement with an IN list of 10,000 integer
// values, routed under hash(id) on 64 shards, touches all 64 shards, as
// the whole list does: the 4,096 values kept miss a given shard with
// probability (63/64)^4096 ~ 1e-28, and some shard with at most 64 times
// that (the whole list: (63/64)^10000 ~ 1e-68). A list of 3 values is
// not cut: its shards are those of its 3 values, placed here one by one
// with the engine.
func TestLongInList_Routing(t *testing.T) {
	three := []int64{1, 2, 3}
	eng := partition.Generic{}
	layout, err := eng.Layout(64)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[int]bool{}
	for _, v := range three {
		p, err := eng.Point([]shardkey.Value{shardkey.IntValue(v)})
		if err != nil {
			t.Fatal(err)
		}
		distinct[layout.Shard(p)] = true
	}
	for _, d := range []Dialect{Postgres, MySQL} {
		for _, c := range []struct {
			vals []int64
			want int
		}{{randomInts(10_000, 3), 64}, {three, len(distinct)}} {
			w := &shardkey.Workload{}
			if err := ReadFile(context.Background(), w, inListLog(t, d, c.vals), Options{}); err != nil {
				t.Fatal(err)
			}
			cand, err := sim.Score(w, "hash(id)", sim.Options{Shards: 64})
			if err != nil {
				t.Fatal(err)
			}
			var got []float64
			for _, op := range cand.Operations {
				if strings.Contains(op.Name, " in (") {
					got = append(got, op.FanoutMean)
				}
			}
			if len(got) != 1 || got[0] != float64(c.want) {
				t.Errorf("%v: an IN list of %d values: fan-out %v; want %d", d, len(c.vals), got, c.want)
			}
		}
	}
}

// manyListsLog writes a PostgreSQL log of n statements, one a second in
// ten sessions, each reading users by an IN list of k random values.
func manyListsLog(t *testing.T, n, k int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lists.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(4, 4))
	var b []byte
	for i := range n {
		b = fmt.Appendf(b[:0], "2026-11-30 %02d:%02d:%02d.000 UTC [%d] LOG:  statement: SELECT name FROM users WHERE id IN (", i/3600, i/60%60, i%60, 100+i%10)
		for j := range k {
			if j > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendInt(b, 1+r.Int64N(1e7), 10)
		}
		b = append(b, ")\n"...)
		if _, err := f.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLongInList_ManyBounded: a log of 1,500 statements with IN lists of
// 5,000 values each (40 MB): each list is cut to 4,096 values, the
// operation keeps 262,144 / 4,096 = 64 sampled instances (not all 1,500,
// which would hold 6 million values) while its rate counts all 1,500 over
// the log's span (1,499 s from the first statement to the last, plus the
// millisecond of the timestamps' resolution), and the batches in flight
// (15 with two workers) hold 256 kB of text each, not 512 statements'
// (20 MB and 2 million bound values): the live heap stays under 100 MB
// (measured: 69-72 MB; 560 MB with batches of 512 statements whatever
// their length, 167 MB with batches of 1 MB of text).
func TestLongInList_ManyBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 40 MB log")
	}
	hooks, peak, w := readHeap(t, manyListsLog(t, 1500, 5000))
	t.Logf("live heap at batch ends %.1f MB, at any collection %.1f MB", float64(hooks)/(1<<20), float64(peak)/(1<<20))
	if hooks > 100<<20 {
		t.Errorf("live heap at batch ends %d bytes; want less than 100 MB", hooks)
	}
	if peak > 100<<20 {
		t.Errorf("live heap at a collection %d bytes; want less than 100 MB", peak)
	}
	var op *shardkey.Operation
	for i := range w.Ops {
		if strings.Contains(w.Ops[i].Name, " in (") {
			op = w.Ops[i]
		}
	}
	if op == nil {
		t.Fatalf("no IN list operation in %v", w.Ops)
	}
	if wantRate := 1500 / 1499.001; len(op.Instances) != 64 || math.Abs(op.Rate-wantRate) > 1e-9 {
		t.Errorf("%s: %d instances, rate %v; want 64 instances, rate %v", op.Name, len(op.Instances), op.Rate, wantRate)
	}
	want := "operation " + op.Name + " keeps 64 sampled instances of its 1500, not 1500"
	found := false
	for _, e := range w.Warnings {
		found = found || strings.Contains(e.Error(), want)
	}
	if !found {
		t.Errorf("no warning %q in %v", want, w.Warnings)
	}
}

// FuzzCutLists: cutting never panics, leaves a statement without a long
// list as it is (the same string), shortens one with a long list, and
// leaves nothing to cut in what it returns.
func FuzzCutLists(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM t WHERE id IN (1, 2, 3, 4, 5, 6, 7)",
		"SELECT * FROM t WHERE (a, b) IN ((1, 'x'), (2, 'y'), (3, 'z'))",
		"SELECT 'in (1,2,3)' FROM t WHERE x in (E'\\'', 'a''b', -1, +2.5e3, NULL)",
		"SELECT $a$ in (1,2,3) $a$ /* in (1, 2, 3) */ -- in (1,2,3)\n FROM t WHERE x IN (1,2,3",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, d := range []Dialect{Postgres, MySQL} {
			got, cut, longest := cutLists(sql, d, 2)
			if cut == 0 && got != sql {
				t.Fatalf("cutLists(%q) = %q without a cut", sql, got)
			}
			if cut > 0 && (longest <= 2 || len(got) >= len(sql)) {
				t.Fatalf("cutLists(%q) = %q, %d, %d", sql, got, cut, longest)
			}
			if _, n, _ := cutLists(got, d, 2); n > 0 {
				t.Fatalf("cutLists(%q) = %q, which is cut again", sql, got)
			}
		}
	})
}
