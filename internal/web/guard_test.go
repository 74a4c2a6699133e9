package web

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// rawGet sends one request with the given Host header over a fresh
// connection (so no client rewrites it) and returns the status line.
func rawGet(t *testing.T, addr, path, host string, extra ...string) (status, body string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n"
	for _, h := range extra {
		req += h + "\r\n"
	}
	io.WriteString(conn, req+"Connection: close\r\n\r\n")
	b, _ := io.ReadAll(conn)
	status, body, _ = strings.Cut(string(b), "\r\n")
	return status, body
}

// TestHostCheck: a Host header other than the listening address (DNS
// rebinding: the attacker's name pointed at 127.0.0.1) gets 421 on every
// path; the address itself, localhost on the same port and a name given
// in Options.Hosts are served.
func TestHostCheck(t *testing.T) {
	srv := httptest.NewServer(Handler(Options{Hosts: []string{"box.internal"}}))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	for _, c := range []struct {
		host string
		ok   bool
	}{
		{addr, true},
		{"localhost:" + port, true},
		{"LOCALHOST:" + port, true},
		{"box.internal:" + port, true},
		{"attacker.example:" + port, false},
		{"attacker.example", false},
		{"127.0.0.1", false},         // port 80
		{"127.0.0.2:" + port, false}, // another loopback IP
		{"localhost.attacker.example:" + port, false},
		{"[::1]:" + port, false},               // listening on 127.0.0.1, not ::1
		{"127.0.0.1:" + port + "@evil", false}, // not a host:port
		{"", false},
	} {
		for _, p := range []string{"/", "/api/scenarios", "/api/report?s=social&k=hash(post_id)", "/static/app.js"} {
			status, body := rawGet(t, addr, p, c.host)
			switch {
			case c.ok && !strings.Contains(status, " 200 "):
				t.Errorf("Host %q GET %s: %s, want 200", c.host, p, status)
			case !c.ok && !strings.Contains(status, " 421 ") && !strings.Contains(status, " 400 "):
				t.Errorf("Host %q GET %s: %s, want 421", c.host, p, status)
			case !c.ok && strings.Contains(body, "work_per_s"):
				t.Errorf("Host %q GET %s answered with a report", c.host, p)
			}
		}
	}
}

// TestSameOrigin: a browser request from another page (Sec-Fetch-Site
// cross-site or same-site, a foreign Origin, Origin null) gets 403 on
// every computing call; the page's own requests and non-browser clients
// are served; a POST body must be declared YAML or JSON (a cross-site
// text/plain or form POST gets 415 even without Origin).
func TestSameOrigin(t *testing.T) {
	h := Handler(Options{})
	good := strings.Replace(badSpec, "author", "user_id", 1)
	do := func(method, target, body string, hdr map[string]string) *httptest.ResponseRecorder {
		var r io.Reader
		if body != "" {
			r = strings.NewReader(body)
		}
		req := httptest.NewRequest(method, target, r)
		req.Host = "127.0.0.1:8080"
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	yaml := map[string]string{"Content-Type": "text/yaml"}
	with := func(m map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for a, b := range m {
			out[a] = b
		}
		return out
	}
	calls := []struct{ method, target, body string }{
		{"GET", "/api/report?s=social&k=hash(post_id)", ""},
		{"POST", "/api/report?k=hash(user_id)", good},
		{"POST", "/api/spec?file=mine.yaml", good},
	}
	for _, c := range calls {
		base := map[string]string{}
		if c.method == "POST" {
			base = yaml
		}
		for _, bad := range []map[string]string{
			with(base, "Sec-Fetch-Site", "cross-site"),
			with(base, "Sec-Fetch-Site", "same-site"),
			with(base, "Origin", "http://attacker.example"),
			with(base, "Origin", "http://127.0.0.1:8081"),
			with(base, "Origin", "null"),
		} {
			if rec := do(c.method, c.target, c.body, bad); rec.Code != http.StatusForbidden {
				t.Errorf("%s %s %v: %d, want 403", c.method, c.target, bad, rec.Code)
			}
		}
		for _, ok := range []map[string]string{
			base, // curl
			with(base, "Sec-Fetch-Site", "same-origin"),
			with(with(base, "Sec-Fetch-Site", "same-origin"), "Origin", "http://127.0.0.1:8080"),
			with(base, "Origin", "http://127.0.0.1:8080"),
		} {
			if rec := do(c.method, c.target, c.body, ok); rec.Code != http.StatusOK {
				t.Errorf("%s %s %v: %d, want 200: %s", c.method, c.target, ok, rec.Code, rec.Body)
			}
		}
		if c.method == "POST" {
			for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""} {
				hdr := map[string]string{}
				if ct != "" {
					hdr["Content-Type"] = ct
				}
				if rec := do(c.method, c.target, c.body, hdr); rec.Code != http.StatusUnsupportedMediaType {
					t.Errorf("%s %s Content-Type %q: %d, want 415", c.method, c.target, ct, rec.Code)
				}
			}
		}
	}
	// The cheap, read-only list of scenarios is not guarded.
	if rec := do("GET", "/api/scenarios", "", map[string]string{"Sec-Fetch-Site": "cross-site"}); rec.Code != 200 {
		t.Errorf("GET /api/scenarios: %d", rec.Code)
	}
	// No CORS: nothing tells a browser another origin may read answers.
	rec := do("GET", "/api/report?s=social&k=hash(post_id)", "", map[string]string{"Origin": "http://127.0.0.1:8080"})
	for k := range rec.Header() {
		if strings.HasPrefix(strings.ToLower(k), "access-control-") {
			t.Errorf("response has %s", k)
		}
	}
}

// TestSpecCost: the specs that took gigabytes are refused before
// anything is built, each with the field past its limit and the
// estimate, derived by hand:
//
//   - 30 zipf columns of 50,000,000 distinct values: the first column
//     alone is 50,000,000 > 1,000,000 distinct values;
//   - param_samples 4,194,304 with 200 operations: the first operation
//     alone makes 4,194,304 > 500,000 instances;
//   - 20 steps repeated 1,000 times, 4,096 (default) param_samples:
//     4,096 x 20 x 1,000 = 81,920,000 > 500,000 statements;
//   - 1,000,000 rows of 9 columns: 9,000,000 > 8,000,000 cells.
func TestSpecCost(t *testing.T) {
	var zipf strings.Builder
	zipf.WriteString("tables:\n  - name: t\n    rows: 1000\n    columns:\n")
	for i := range 30 {
		fmt.Fprintf(&zipf, "      - {name: c%d, gen: zipf, distinct: 50000000, s: 1}\n", i)
	}
	var ops strings.Builder
	ops.WriteString("param_samples: 4194304\ntables:\n  - name: t\n    rows: 1000\n    columns: [{name: id, gen: sequential}, {name: at, gen: time}]\noperations:\n")
	for i := range 200 {
		fmt.Fprintf(&ops, "  - {name: op%d, table: t, rate: 1, where: {id: \"?\", at: \"?\"}}\n", i)
	}
	var txn strings.Builder
	txn.WriteString("tables:\n  - name: t\n    rows: 1000\n    columns: [{name: id, gen: sequential}, {name: u, gen: uniform, distinct: 10}]\ntransactions:\n  - name: long\n    rate: 1\n    steps:\n")
	for range 20 {
		txn.WriteString("      - {table: t, kind: read, where: {u: \"?\"}, repeat: 1000}\n")
	}
	var wide strings.Builder
	wide.WriteString("tables:\n  - name: t\n    rows: 1000000\n    columns:\n")
	for i := range 9 {
		fmt.Fprintf(&wide, "      - {name: c%d, gen: sequential}\n", i)
	}
	h := Handler(Options{})
	for _, c := range []struct {
		name, spec string
		line       int
		field      string
		msg        []string
	}{
		{"zipf", zipf.String(), 5, "t.c0.distinct", []string{"at most 1,000,000 distinct values", "asks for 50,000,000 or more"}},
		{"param_samples", ops.String(), 0, "param_samples", []string{"at most 500,000 operation instances", "asks for 4,194,304 or more", "param_samples 4,194,304 per operation"}},
		{"repeat", txn.String(), 6, "transactions.long.steps", []string{"at most 500,000 transaction statements", "asks for 81,920,000 or more", "param_samples 4,096 x up to 20,000 statements"}},
		{"cells", wide.String(), 2, "t.columns", []string{"at most 8,000,000 cells", "asks for 9,000,000 or more"}},
	} {
		for _, target := range []string{"/api/spec?file=big.yaml", "/api/report?file=big.yaml"} {
			start := time.Now()
			e := decodeError(t, postSpec(h, target, c.spec), http.StatusBadRequest)
			if e.File != "big.yaml" || e.Line != c.line || e.Field != c.field {
				t.Errorf("%s %s: file %q line %d field %q, want big.yaml %d %q: %s", c.name, target, e.File, e.Line, e.Field, c.line, c.field, e.Msg)
			}
			for _, m := range c.msg {
				if !strings.Contains(e.Msg, m) {
					t.Errorf("%s %s: %q lacks %q", c.name, target, e.Msg, m)
				}
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("%s: refused after %v: something was built", c.name, d)
			}
		}
	}
	// The built-in scenarios are within every limit.
	s := newServer(Options{})
	if rec := get(t, s.handler, "/api/scenarios"); rec.Code != 200 {
		t.Fatal(rec.Code)
	}
}

// TestSlots: beyond MaxScoring requests at work, a request waits
// QueueWait and then gets 503; a client that went away before its turn
// builds nothing.
func TestSlots(t *testing.T) {
	s := newServer(Options{MaxScoring: 1, QueueWait: 50 * time.Millisecond})
	if err := s.slots.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec := get(t, s.handler, "/api/report?s=social&k=hash(post_id)")
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("with the slot taken: %d, want 503", rec.Code)
	}
	s.slots.release()
	if rec := get(t, s.handler, "/api/report?s=social&k=hash(post_id)"); rec.Code != 200 {
		t.Errorf("with the slot free: %d %s", rec.Code, rec.Body)
	}
	if s.workloads.len() != 1 || s.candidates.len() != 1 {
		t.Fatalf("cache %d workloads %d keys, want 1 and 1", s.workloads.len(), s.candidates.len())
	}

	// A client that went away: nothing is built or scored.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, req := range []*http.Request{
		httptest.NewRequestWithContext(ctx, "GET", "/api/report?s=orders&k=hash(customer_id)", nil),
		httptest.NewRequestWithContext(ctx, "GET", "/api/report?s=social&k=hash(user_id)", nil),
	} {
		s.handler.ServeHTTP(httptest.NewRecorder(), req)
	}
	if s.workloads.len() != 1 || s.candidates.len() != 1 {
		t.Errorf("after cancelled requests the cache has %d workloads %d keys, want 1 and 1 (nothing new built)", s.workloads.len(), s.candidates.len())
	}
}

// TestCacheWeight: the cache drops least recently used entries while
// their total weight is over maxWeight, and keeps the newest whatever its
// weight.
func TestCacheWeight(t *testing.T) {
	c := newCache[int64](10)
	c.weigh = func(v int64) int64 { return v }
	c.maxWeight = 10
	for _, k := range []string{"a", "b"} {
		c.get(k, func() (int64, error) { return 5, nil })
	}
	if c.len() != 2 || c.weight != 10 {
		t.Fatalf("%d entries weighing %d, want 2 and 10", c.len(), c.weight)
	}
	c.get("a", func() (int64, error) { t.Fatal("a rebuilt"); return 0, nil }) // a is now the most recent
	c.get("c", func() (int64, error) { return 4, nil })                       // 14 > 10: b goes
	if _, ok := c.m["b"]; ok || c.len() != 2 || c.weight != 9 {
		t.Errorf("after c: b kept %v, %d entries weighing %d; want b dropped, 2 weighing 9", ok, c.len(), c.weight)
	}
	c.get("d", func() (int64, error) { return 50, nil }) // heavier than all: kept alone
	if _, ok := c.m["d"]; !ok || c.len() != 1 || c.weight != 50 {
		t.Errorf("after d: %d entries weighing %d, want d alone (50)", c.len(), c.weight)
	}
}
