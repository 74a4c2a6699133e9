package sqllog

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sim"
)

// appendLog returns a PostgreSQL stderr log of n inserts into metrics, one
// a second from 2026-12-01 00:00:00, the k-th (0-based) inserting
// id = vals[k]+1, ts = 2026-12-01 00:00:00 + vals[k] seconds and name =
// 'k' followed by vals[k] in 4 digits (text whose byte order is its
// number's order). Every other insert runs in an explicit transaction,
// so the log's transactions hold copies of the inserts as well.
func appendLog(vals []int) string {
	var b strings.Builder
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for k, v := range vals {
		stamp := t0.Add(time.Duration(k) * time.Second).Format("2006-01-02 15:04:05.000 UTC")
		ins := fmt.Sprintf("INSERT INTO metrics (id, ts, name) VALUES (%d, '%s', 'k%04d');", v+1, t0.Add(time.Duration(v)*time.Second).Format("2006-01-02 15:04:05"), v)
		if k%2 == 1 {
			fmt.Fprintf(&b, "%s [7] app@db LOG:  statement: BEGIN;\n", stamp)
			fmt.Fprintf(&b, "%s [7] app@db LOG:  statement: %s\n", stamp, ins)
			fmt.Fprintf(&b, "%s [7] app@db LOG:  statement: COMMIT;\n", stamp)
			continue
		}
		fmt.Fprintf(&b, "%s [8] app@db LOG:  statement: %s\n", stamp, ins)
	}
	return b.String()
}

// rho is Spearman's rank correlation of a permutation of 0..n-1 (its
// values are their own ranks, no ties) with position: 1 - 6 sum d^2 /
// (n (n^2 - 1)).
func rho(vals []int) float64 {
	n := float64(len(vals))
	d2 := 0.0
	for k, v := range vals {
		d2 += float64((v - k) * (v - k))
	}
	return 1 - 6*d2/(n*(n*n-1))
}

// TestInsertOrderMonotonicity: an append-only log whose id, ts and text
// name only grow has each key monotonic with r = 1 exactly (Spearman's
// rho of a strictly increasing sequence), the 200 inserts ranked once
// each: not once from the operations' sample and again from the
// transactions' copies (which gave r = 0.50), and in log order also
// when a small reservoir replaced most of its instances (Seq). A
// shuffled log has rho of its permutation (1 - 6 sum d^2 / (n (n^2-1)),
// near 0); two logs read into one workload continue each other's order.
func TestInsertOrderMonotonicity(t *testing.T) {
	const n = 200
	inc := make([]int, n)
	for i := range inc {
		inc[i] = i
	}
	check := func(name string, w *shardkey.Workload, want float64, inserted int) {
		t.Helper()
		for _, col := range []string{"id", "ts", "name"} {
			ks := trafficStats(t, w, "metrics", col)
			if ks.MonotonicityUnknown || math.Abs(ks.Monotonicity-want) > 1e-9 || ks.Monotonic != (math.Abs(want) >= 0.7) {
				t.Errorf("%s: metrics.%s monotonicity %v (unknown %v, monotonic %v), want %v", name, col, ks.Monotonicity, ks.MonotonicityUnknown, ks.Monotonic, want)
			}
			if ks.Inserted != inserted {
				t.Errorf("%s: metrics.%s ranks %d inserted values, want %d", name, col, ks.Inserted, inserted)
			}
		}
	}
	check("append-only", readText(t, appendLog(inc), Options{}), 1, n)
	// A reservoir of 16: the kept instances sit in the slots they
	// replaced, not in log order; their Seq still orders them.
	check("append-only, reservoir of 16", readText(t, appendLog(inc), Options{Sample: 16}), 1, 16)

	shuffled := make([]int, n)
	copy(shuffled, inc)
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(n, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	want := rho(shuffled)
	if math.Abs(want) > 0.2 {
		t.Fatalf("the shuffle has rho %v: not a shuffle", want)
	}
	check("shuffled", readText(t, appendLog(shuffled), Options{}), want, n)

	// Two logs, the second's inserts after the first's.
	w := &shardkey.Workload{}
	for i, part := range [][]int{inc[:n/2], inc[n/2:]} {
		if err := Read(context.Background(), w, strings.NewReader(appendLog(part)), fmt.Sprintf("part%d.log", i), Options{}); err != nil {
			t.Fatal(err)
		}
	}
	check("two logs", w, 1, n)
}

// TestInsertOrderMonotonicityMySQL: the same for a MySQL general log of
// autocommit inserts of a growing id: r = 1 over the 50 inserts.
func TestInsertOrderMonotonicityMySQL(t *testing.T) {
	var b strings.Builder
	b.WriteString("/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:\nTcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock\nTime                 Id Command    Argument\n")
	for i := range 50 {
		fmt.Fprintf(&b, "2026-12-01T00:00:%02d.000000Z\t   12 Query\tINSERT INTO events (id, kind) VALUES (%d, 'x')\n", i, i+1)
	}
	w := readText(t, b.String(), Options{Format: "mysql-general"})
	ks := trafficStats(t, w, "events", "id")
	if ks.Monotonicity != 1 || !ks.Monotonic || ks.Inserted != 50 {
		t.Errorf("events.id: monotonicity %v (monotonic %v) over %d inserts, want 1 over 50", ks.Monotonicity, ks.Monotonic, ks.Inserted)
	}
}

// TestScoreWarnsFittedRangeHidesHotTail: scoring range(ts) on the
// append-only log (ts monotonic over 200 inserts, r = 1) warns that the
// boundaries fitted to the log's values hide the hot tail: every new
// insert lands past the last one. Boundaries the user gives, a hash key
// and the shuffled log (not monotonic) get no such warning.
func TestScoreWarnsFittedRangeHidesHotTail(t *testing.T) {
	const n = 200
	inc := make([]int, n)
	for i := range inc {
		inc[i] = i
	}
	shuffled := make([]int, n)
	for k := range shuffled {
		shuffled[k] = k * 97 % n // 97 is prime to 200: a permutation
	}
	const tail = "every new insert lands past the last boundary"
	for _, tc := range []struct {
		vals   []int
		design string
		warn   bool
	}{
		{inc, "range(ts)", true},
		{inc, "range(id)", true},
		{inc, "range(name)", true},
		{inc, "range(ts, bounds=[2026-12-02])", false},
		{inc, "hash(ts)", false},
		{shuffled, "range(ts)", false},
	} {
		w := readText(t, appendLog(tc.vals), Options{})
		c, err := sim.Score(w, tc.design, sim.Options{Shards: 8})
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, wn := range c.Warnings {
			got = got || strings.Contains(wn, tail)
		}
		if got != tc.warn {
			t.Errorf("%s (shuffled %v): hot-tail warning %v, want %v: %q", tc.design, &tc.vals[0] != &inc[0], got, tc.warn, c.Warnings)
		}
	}
}
