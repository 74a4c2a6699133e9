package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// celebrityLog is a PostgreSQL log (log_statement = 'all') of two real
// pgbench runs against one throwaway server, captured by
// scripts/watch/celebrity-log.sh: pgbench's built-in TPC-B-like script at
// 30 transactions/s for 50 s, and, starting 23 s in, a second pgbench
// client running a custom script that reads and updates one account,
// aid = 4242, at 20 transactions/s for 25 s. The celebrity thus appears
// mid-way.
const celebrityLog = "../../watch/testdata/pgbench-celebrity.log.gz"

// logLine is one statement line of the celebrity log.
type logLine struct {
	raw string
	ts  time.Time
	sql string
}

var stmtLine = regexp.MustCompile(`^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) UTC \[\d+\] \S+ LOG:  statement: (.*)$`)

func readCelebrityLog(t *testing.T) []logLine {
	t.Helper()
	f, err := os.Open(celebrityLog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []logLine
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := stmtLine.FindStringSubmatch(sc.Text())
		if m == nil {
			// Server messages (a configuration reload) are no statements;
			// the statements are one per line.
			if !strings.Contains(sc.Text(), " LOG:  ") || strings.Contains(sc.Text(), "statement:") {
				t.Fatalf("unexpected line %q", sc.Text())
			}
			continue
		}
		ts, err := time.Parse("2006-01-02 15:04:05.000", m[1])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, logLine{raw: sc.Text(), ts: ts, sql: m[2]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// tablesIn counts the tables a statement of this log reads or writes
// (pgbench's statements name one; its start-up catalog query joins four).
var tableRef = regexp.MustCompile(`(?i)\b(?:from|join|update|into)\s+(?:pg_catalog\.)?(\w+)`)

// A statement that reads only PostgreSQL's system catalogs (pg_class,
// pg_namespace, ...: pgbench's start-up queries) is a client's own query,
// not the application's, and counts none.
func tablesIn(sql string) int {
	n, system := 0, 0
	for _, m := range tableRef.FindAllStringSubmatch(sql, -1) {
		name := strings.ToLower(m[1])
		if name == "lateral" {
			continue
		}
		n++
		if strings.HasPrefix(strings.TrimPrefix(name, "pg_catalog."), "pg_") {
			system++
		}
	}
	if n > 0 && system == n {
		return 0
	}
	return n
}

// namesCelebrity reports whether a statement binds aid = 4242: pgbench's
// account reads and updates, or a history insert with aid 4242 (VALUES
// (tid, bid, aid, delta, mtime)).
var celebUpd = regexp.MustCompile(`\baid = 4242;`)
var celebIns = regexp.MustCompile(`^INSERT INTO pgbench_history \(tid, bid, aid, delta, mtime\) VALUES \(\d+, \d+, 4242, `)

func namesCelebrity(sql string) bool { return celebUpd.MatchString(sql) || celebIns.MatchString(sql) }

type watchWindow struct {
	Start, End time.Time
	Seconds    float64
	Statements int
	Designs    []struct {
		Key                   string
		RequestsPerS          float64   `json:"requests_per_s"`
		WorkPerS              float64   `json:"work_per_s"`
		ShardWork             []float64 `json:"shard_work"`
		WorkRatio             float64   `json:"work_ratio"`
		CrossShardTxnFraction float64   `json:"cross_shard_txn_fraction"`
		Transactions          int64
		Shapes                []struct {
			Name            string
			RequestsPerS    float64 `json:"requests_per_s"`
			ScatterFraction float64 `json:"scatter_fraction"`
		}
		TopKeys []struct {
			Key          string
			RequestsPerS float64 `json:"requests_per_s"`
			Share        float64
			ShareMin     float64 `json:"share_min"`
		} `json:"top_keys"`
	}
	Events []struct {
		Type, Design, Key, Shape string
		Value, Threshold         float64
	}
}

func runWatchJSON(t *testing.T, args ...string) []watchWindow {
	t.Helper()
	code, out, errs := runCmd(t, "", append([]string{"watch", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("watch %v: exit %d: %s", args, code, errs)
	}
	var ws []watchWindow
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var w watchWindow
		if err := json.Unmarshal([]byte(l), &w); err != nil {
			t.Fatalf("watch output line %q: %v", l, err)
		}
		ws = append(ws, w)
	}
	return ws
}

func close9(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TestWatch_Celebrity: on the celebrity log, watch --window 10s raises
// hot_key for aid 4242 in the first window where its share of requests
// (counted here from the log's lines) passes 5%, and in no window before;
// each window's figures equal score's on that window's slice of the log.
func TestWatch_Celebrity(t *testing.T) {
	lines := readCelebrityLog(t)
	const d = 10 * time.Second
	// Slice the log as the windows do: a window is [k*10s, (k+1)*10s)
	// in seconds since the Unix epoch, and a line belongs to the window
	// that is open when it is read.
	type slice struct {
		start       time.Time
		lines       []logLine
		instances   int
		celebrities int
	}
	var slices []*slice
	for _, l := range lines {
		if len(slices) == 0 || !l.ts.Before(slices[len(slices)-1].start.Add(d)) {
			slices = append(slices, &slice{start: time.Unix(l.ts.Unix()/10*10, 0).UTC()})
		}
		s := slices[len(slices)-1]
		s.lines = append(s.lines, l)
		s.instances += tablesIn(l.sql)
		if namesCelebrity(l.sql) {
			s.celebrities++
		}
	}
	firstHot := -1
	for i, s := range slices {
		if float64(s.celebrities)/float64(s.instances) > 0.05 {
			firstHot = i
			break
		}
	}
	if firstHot < 1 {
		t.Fatalf("fixture: the celebrity should pass 5%% after the first window (first at %d)", firstHot)
	}

	ws := runWatchJSON(t, "--log", celebrityLog, "--window", "10s", "--shards", "4", "-k", "hash(aid)")
	if len(ws) != len(slices) {
		t.Fatalf("watch: %d windows; want %d", len(ws), len(slices))
	}
	for i, w := range ws {
		s := slices[i]
		if !w.Start.Equal(s.start) || !w.End.Equal(s.start.Add(d)) {
			t.Errorf("window %d: [%v, %v); want [%v, %v)", i, w.Start, w.End, s.start, s.start.Add(d))
		}
		if w.Statements != len(s.lines) {
			t.Errorf("window %d: %d statements; want %d", i, w.Statements, len(s.lines))
		}
		// Rates are per second of the window (the first from the log's
		// first statement, the last to its last one, plus the
		// millisecond its %m timestamp stands for).
		from, to := s.start, s.start.Add(d)
		if i == 0 {
			from = s.lines[0].ts
		}
		if i == len(ws)-1 {
			to = s.lines[len(s.lines)-1].ts.Add(time.Millisecond)
		}
		if secs := to.Sub(from).Seconds(); !close9(w.Seconds, secs) {
			t.Errorf("window %d: %v seconds; want %v", i, w.Seconds, secs)
		}
		dw := w.Designs[0]
		if got := dw.RequestsPerS * w.Seconds; math.Abs(got-float64(s.instances)) > 1e-6 {
			t.Errorf("window %d: %v requests; want %d (one per table a statement touches)", i, got, s.instances)
		}
		var celeb float64
		for _, k := range dw.TopKeys {
			if k.Key == "4242" {
				celeb = k.Share
				if k.Share != k.ShareMin {
					t.Errorf("window %d: 4242's share in [%v, %v]; want exact", i, k.ShareMin, k.Share)
				}
			}
		}
		if want := float64(s.celebrities) / float64(s.instances); !close9(celeb, want) {
			t.Errorf("window %d: share of 4242 %v; want %v (%d of %d)", i, celeb, want, s.celebrities, s.instances)
		}
		var hot []string
		for _, e := range w.Events {
			if e.Type == "hot_key" {
				hot = append(hot, e.Key)
			}
		}
		want := []string(nil)
		if i == firstHot {
			want = []string{"4242"}
		}
		if strings.Join(hot, ",") != strings.Join(want, ",") {
			t.Errorf("window %d (celebrity share %.4f): hot_key events %v; want %v", i, celeb, hot, want)
		}

		// score on the window's slice: same figures, its rates per the
		// slice's span (last - first timestamp + the millisecond of the
		// timestamps) instead of the window's.
		var b strings.Builder
		for _, l := range s.lines {
			b.WriteString(l.raw + "\n")
		}
		file := filepath.Join(t.TempDir(), "slice.log")
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runJSON(t, "score", "--log", file, "--shards", "4", "-k", "hash(aid)")
		c := r.Candidates[0]
		span := s.lines[len(s.lines)-1].ts.Sub(s.lines[0].ts).Seconds() + 0.001
		scale := span / w.Seconds // watch rate = score rate * scale
		if !close9(dw.WorkRatio, c.WorkRatio) || !close9(dw.CrossShardTxnFraction, c.CrossShardTxnFraction) || dw.Transactions != c.Transactions {
			t.Errorf("window %d: work_ratio %v, cross-shard %v, %d txns; score on the slice: %v, %v, %d", i,
				dw.WorkRatio, dw.CrossShardTxnFraction, dw.Transactions, c.WorkRatio, c.CrossShardTxnFraction, c.Transactions)
		}
		if !close9(dw.WorkPerS, c.WorkPerS*scale) || !close9(dw.RequestsPerS, c.RequestsPerS*scale) {
			t.Errorf("window %d: work %v, requests %v /s; score on the slice x %v: %v, %v", i, dw.WorkPerS, dw.RequestsPerS, scale, c.WorkPerS*scale, c.RequestsPerS*scale)
		}
		for k := range c.ShardWork {
			if !close9(dw.ShardWork[k], c.ShardWork[k]*scale) {
				t.Errorf("window %d: shard %d work %v; score on the slice x %v: %v", i, k, dw.ShardWork[k], scale, c.ShardWork[k]*scale)
			}
		}
		if len(dw.Shapes) != len(c.Operations) {
			t.Fatalf("window %d: %d shapes; score: %d operations", i, len(dw.Shapes), len(c.Operations))
		}
		for k, sh := range dw.Shapes {
			op := c.Operations[k]
			if sh.Name != op.Name || !close9(sh.ScatterFraction, op.ScatterFraction) || !close9(sh.RequestsPerS, op.RequestsPerS*scale) {
				t.Errorf("window %d: shape %q %v/s scatter %v; score: %q %v/s scatter %v", i, sh.Name, sh.RequestsPerS, sh.ScatterFraction, op.Name, op.RequestsPerS*scale, op.ScatterFraction)
			}
		}
	}
}

// TestWatch_Errors: bad flags are usage errors (exit 2); a log without
// timestamps is an input error (exit 1); a design that places no table of
// the first window is refused as a usage error (exit 2), as score refuses it.
func TestWatch_Errors(t *testing.T) {
	pgss := "../../sqllog/testdata/pg-stat-statements.csv"
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"watch", "-k", "hash(aid)"}, 2, "no input: give --log FILE"},
		{[]string{"watch", "--log", celebrityLog, "--from", "postgres://x/y", "-k", "hash(aid)"}, 2, "not both"},
		{[]string{"watch", "--log", celebrityLog}, 2, "no design"},
		{[]string{"watch", "--log", celebrityLog, "-k", "hash(aid)", "--window", "0s"}, 2, "--window 0s"},
		{[]string{"watch", "--log", celebrityLog, "-k", "hash(aid)", "--window", "1ns"}, 2, "--window 1ns: must be at least 1ms"},
		{[]string{"watch", "--log", celebrityLog, "-k", "hash(aid)", "--key-low", "0.1", "--key-high", "0.05"}, 2, "want 0 <= low <= high <= 1"},
		{[]string{"watch", "--log", celebrityLog, "-k", "hash(aid"}, 2, "-k:"},
		{[]string{"watch", "--log", pgss, "-k", "hash(aid)"}, 1, "carry no timestamps"},
		// Refused at the first window, as score refuses it (exit 2).
		{[]string{"watch", "--log", celebrityLog, "-k", "hash(nosuch)"}, 2, "-k: design hash(nosuch) places no table of the first window with statements"},
	} {
		code, _, errs := runCmd(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("shardkey %s: exit %d, %q; want exit %d and %q", strings.Join(c.args, " "), code, errs, c.code, c.want)
		}
	}
}

// TestWatch_TableAndHTML: the table prints a block per window with its
// events; the HTML page is self-contained (no script, no external
// resource), has four charts per design and marks the hot_key event.
func TestWatch_TableAndHTML(t *testing.T) {
	code, out, errs := runCmd(t, "", "watch", "--log", celebrityLog, "--window", "10s", "--shards", "4", "-k", "hash(aid)")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if n := strings.Count(out, " UTC  ("); n != 6 {
		t.Errorf("table: %d window blocks; want 6\n%s", n, out)
	}
	if !strings.Contains(out, "! hot_key hash(aid): key 4242 takes") {
		t.Errorf("table: no hot_key line for 4242\n%s", out)
	}
	code, out, errs = runCmd(t, "", "watch", "--log", celebrityLog, "--window", "10s", "--shards", "4", "-k", "hash(aid)", "--format", "html")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, bad := range []string{"<script", "src=\"http", "href=\"http", "@import"} {
		if strings.Contains(out, bad) {
			t.Errorf("html: contains %q; want a self-contained page", bad)
		}
	}
	if n := strings.Count(out, "<svg "); n != 4 {
		t.Errorf("html: %d charts; want 4", n)
	}
	if !strings.Contains(out, `<g class="ev"><title>key 4242 takes`) || !strings.Contains(out, "<td>hot_key</td>") {
		t.Errorf("html: the hot_key event is not marked")
	}
}

// TestWatch_Nodes: with --slots 8 --nodes 2 (contiguous: slots 0-3 on
// node 0, 4-7 on node 1) each window's node work is the sum of its
// slots' work.
func TestWatch_Nodes(t *testing.T) {
	code, out, errs := runCmd(t, "", "watch", "--format", "json", "--log", celebrityLog, "--window", "10s", "--slots", "8", "--nodes", "2", "-k", "hash(aid)")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var w struct {
			Designs []struct {
				ShardWork []float64 `json:"shard_work"`
				NodeWork  []float64 `json:"node_work"`
			}
		}
		if err := json.Unmarshal([]byte(l), &w); err != nil {
			t.Fatal(err)
		}
		d := w.Designs[0]
		if len(d.ShardWork) != 8 || len(d.NodeWork) != 2 {
			t.Fatalf("%d slots, %d nodes; want 8 and 2", len(d.ShardWork), len(d.NodeWork))
		}
		for k := range 2 {
			want := d.ShardWork[4*k] + d.ShardWork[4*k+1] + d.ShardWork[4*k+2] + d.ShardWork[4*k+3]
			if !close9(d.NodeWork[k], want) {
				t.Errorf("node %d: %v; want %v", k, d.NodeWork[k], want)
			}
		}
	}
	if code, _, errs := runCmd(t, "", "watch", "--log", celebrityLog, "--slots", "8", "--nodes", "9", "-k", "hash(aid)"); code != 2 || !strings.Contains(errs, "--nodes 9") {
		t.Errorf("--nodes 9 of 8 slots: exit %d %q; want a usage error", code, errs)
	}
}

// TestWatch_LaterTable: a design naming a table that only the second
// window reads is not refused at the first: the log reads orders for a
// minute (20 statements, 10:00:00-10:00:19), then users and orders (40
// statements, 10:01:00-10:01:19.5); both windows are scored under the
// design, the second at 40 / 19.5 requests/s (the last window ends at its
// last statement). A key for users naming a column users does not have
// is refused (exit 2) in the window that first reads users.
func TestWatch_LaterTable(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:\nTcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock\nTime                 Id Command    Argument\n")
	for i := range 20 {
		fmt.Fprintf(&sb, "2024-05-01T10:00:%02d.000000Z\t   10 Query\tSELECT * FROM orders WHERE customer_id = %d\n", i, i%7)
	}
	for i := range 20 {
		fmt.Fprintf(&sb, "2024-05-01T10:01:%02d.000000Z\t   10 Query\tSELECT * FROM users WHERE id = %d\n", i, i%5)
		fmt.Fprintf(&sb, "2024-05-01T10:01:%02d.500000Z\t   10 Query\tSELECT * FROM orders WHERE customer_id = %d\n", i, i%7)
	}
	log := writeFile(t, "general.log", sb.String())
	const design = "orders:hash(customer_id); users:hash(id)"
	code, out, errs := runCmd(t, "", "watch", "--log", log, "--shards", "4", "--format", "json", "-k", design)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got []float64
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var w struct {
			Designs []struct {
				Key          string  `json:"key"`
				RequestsPerS float64 `json:"requests_per_s"`
			} `json:"designs"`
		}
		if err := json.Unmarshal([]byte(line), &w); err != nil {
			t.Fatal(err)
		}
		for _, d := range w.Designs {
			if d.Key == design {
				got = append(got, d.RequestsPerS)
			}
		}
	}
	// The last window ends at its last statement plus the microsecond
	// of MySQL's timestamps: 19.500001 s.
	if len(got) != 2 || math.Abs(got[0]-20.0/60) > 1e-9 || math.Abs(got[1]-40/19.500001) > 1e-9 {
		t.Errorf("requests/s per window %v; want [%v %v]", got, 20.0/60, 40/19.500001)
	}
	// users first appears in the second window, after the first was
	// printed: the design is dropped with a warning and the run goes on
	// with the others.
	code, out, errs = runCmd(t, "", "watch", "--log", log, "--shards", "4", "-k", "orders:hash(customer_id); users:hash(nosuch)", "-k", "hash(customer_id)")
	if want := "does not fit table users, in the window that first reads it (2024-05-01T10:01:00Z to 2024-05-01T10:02:00Z)"; code != 0 || !strings.Contains(errs, want) || !strings.Contains(errs, "dropped from this window on") {
		t.Errorf("users:hash(nosuch): exit %d, %q; want exit 0 and %q", code, errs, want)
	}
	if n := strings.Count(out, "hash(customer_id)  "); n != 2 {
		t.Errorf("users:hash(nosuch): hash(customer_id) in %d windows, want 2:\n%s", n, out)
	}
	// A table no window reads (misspelt): warned about, naming the
	// tables read.
	code, out, errs = runCmd(t, "", "watch", "--log", log, "--shards", "4", "-k", "orders:hash(customer_id); usrs:hash(id)")
	if want := "keys table usrs, which no window of the log read (tables read: orders, users)"; code != 0 || !strings.Contains(errs, want) {
		t.Errorf("usrs:hash(id): exit %d, %q; want exit 0 and %q", code, errs, want)
	}
	// The table output ends with that closing warning too, the same
	// text as on stderr; the first window's own warning is in its block.
	closing := "design orders:hash(customer_id); usrs:hash(id) keys table usrs, which no window of the log read (tables read: orders, users): a misspelt name? The design was scored without it"
	if !strings.Contains(errs, "warning: "+closing+"\n") || !strings.HasSuffix(out, "\nwarnings:\n  - "+closing+"\n") {
		t.Errorf("usrs:hash(id): stdout does not end with the closing warning stderr has:\n%s\nstderr:\n%s", out, errs)
	}
	if !strings.Contains(out, "  warning: design orders:hash(customer_id); usrs:hash(id) keys table usrs, which no window has read so far") {
		t.Errorf("usrs:hash(id): the first window's warning is not in its block:\n%s", out)
	}
	// JSON ends with one more line after the two windows, the run's
	// summary with that warning; HTML lists it on the page.
	code, out, errs = runCmd(t, "", "watch", "--log", log, "--shards", "4", "-k", "orders:hash(customer_id); usrs:hash(id)", "--format", "json")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var sum struct {
		Summary  bool
		Start    *string
		Warnings []string
	}
	if code != 0 || len(lines) != 3 || json.Unmarshal([]byte(lines[2]), &sum) != nil || !sum.Summary || sum.Start != nil ||
		len(sum.Warnings) != 1 || sum.Warnings[0] != closing || !strings.Contains(errs, "warning: "+closing+"\n") {
		t.Errorf("usrs:hash(id) --format json: exit %d; want two windows then {\"summary\": true, \"warnings\": [%q]}:\n%s\nstderr:\n%s", code, closing, out, errs)
	}
	code, out, errs = runCmd(t, "", "watch", "--log", log, "--shards", "4", "-k", "orders:hash(customer_id); usrs:hash(id)", "--format", "html")
	if code != 0 || !strings.Contains(out, `<li class="warn">`+closing+`</li>`) || !strings.Contains(errs, "warning: "+closing+"\n") {
		t.Errorf("usrs:hash(id) --format html: exit %d; the page does not list %q:\n%s\nstderr:\n%s", code, closing, out, errs)
	}
}
