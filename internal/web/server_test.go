package web

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func TestDefaultAddrIsLoopback(t *testing.T) {
	host, _, err := net.SplitHostPort(DefaultAddr)
	if err != nil {
		t.Fatal(err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		t.Errorf("DefaultAddr %q does not bind loopback", DefaultAddr)
	}
}

// TestPage: the page names every scenario and engine, and neither it nor
// its assets load anything from another host.
func TestPage(t *testing.T) {
	h := Handler(Options{})
	rec := get(t, h, "/")
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	page := rec.Body.String()
	for _, want := range []string{`<option value="social">`, `<option value="workspace">`, `<option value="vitess">`, `src="/static/app.js"`, `href="/static/style.css"`, `max="1024"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("CSP %q", csp)
	}
	remote := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//|url\(\s*["']?(https?:)?//|@import|fetch\(\s*["'](https?:)?//`)
	for _, p := range []string{"/", "/static/app.js", "/static/style.css"} {
		rec := get(t, h, p)
		if rec.Code != 200 {
			t.Errorf("GET %s: %d", p, rec.Code)
			continue
		}
		if m := remote.FindString(rec.Body.String()); m != "" {
			t.Errorf("%s loads from another host: %q", p, m)
		}
	}
	if ct := get(t, h, "/static/app.js").Header().Get("Content-Type"); !strings.Contains(ct, "javascript") {
		t.Errorf("app.js Content-Type %q", ct)
	}
}

// TestPathTraversal: nothing outside the embedded assets is served, by
// any spelling of "..", and no directory is listed.
func TestPathTraversal(t *testing.T) {
	srv := httptest.NewServer(Handler(Options{}))
	defer srv.Close()
	for _, p := range []string{
		"/static/../api.go",
		"/static/..%2fapi.go",
		"/static/%2e%2e/server.go",
		"/static/%2e%2e%2fserver.go",
		"/static/..%5capi.go",
		"/../go.mod",
		"/%2e%2e/%2e%2e/go.mod",
		"/static/",
		"/static",
		"/static/.",
		"/static/index.html/",
		"/static/./../server.go",
		"/server.go",
		"/api.go",
		"/etc/passwd",
		"/static//etc/passwd",
		"/static/%2fetc%2fpasswd",
		"/api/nosuch",
	} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		// A raw request, so no client cleans the path first.
		io.WriteString(conn, "GET "+p+" HTTP/1.1\r\nHost: "+srv.Listener.Addr().String()+"\r\nConnection: close\r\n\r\n")
		body, _ := io.ReadAll(conn)
		conn.Close()
		resp := string(body)
		status := strings.SplitN(resp, "\r\n", 2)[0]
		switch {
		case strings.Contains(resp, "package web"), strings.Contains(resp, "module github.com"), strings.Contains(resp, "root:"):
			t.Errorf("GET %s served a file outside the assets:\n%.300s", p, resp)
		case strings.Contains(status, " 200 "):
			t.Errorf("GET %s: %s", p, status)
		case strings.Contains(status, " 301 ") || strings.Contains(status, " 307 "):
			// The mux cleans the path and redirects; follow it.
			loc := regexp.MustCompile(`(?m)^Location: (.*)\r$`).FindStringSubmatch(resp)
			if loc == nil {
				t.Errorf("GET %s: redirect without Location", p)
				continue
			}
			r, err := http.Get(srv.URL + loc[1])
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(r.Body)
			r.Body.Close()
			if r.StatusCode != 404 || strings.Contains(string(b), "package web") {
				t.Errorf("GET %s -> %s: %d", p, loc[1], r.StatusCode)
			}
		case !strings.Contains(status, " 404 ") && !strings.Contains(status, " 400 "):
			t.Errorf("GET %s: %s, want 404", p, status)
		}
	}
	// The real assets are there.
	for _, p := range []string{"/static/app.js", "/static/style.css"} {
		r, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != 200 {
			t.Errorf("GET %s: %d", p, r.StatusCode)
		}
	}
}

func TestMethods(t *testing.T) {
	h := Handler(Options{})
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"DELETE", "/api/report", 405},
		{"PUT", "/api/spec", 405},
		{"GET", "/api/spec", 405},
		{"POST", "/", 405},
		{"GET", "/api/nosuch", 404},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
		if rec.Code != c.status {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, rec.Code, c.status)
		}
	}
}
