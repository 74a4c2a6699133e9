package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzAPI sends arbitrary query strings and bodies to the API: never a
// panic or a 500, every answer is JSON, and an error answer carries a
// message. The limits are small so that each input builds in well under a
// millisecond.
func FuzzAPI(f *testing.F) {
	h := Handler(Options{MaxRows: 5000, MaxCells: 20000, MaxDistinct: 5000, MaxInstances: 5000, MaxStatements: 5000, MaxBody: 4096})
	spec := strings.Replace(badSpec, "author", "user_id", 1)
	spec = strings.Replace(spec, "rows: 1000", "rows: 100", 1)
	for _, c := range []struct {
		path, body string
		post       bool
	}{
		{"/api/report?s=social&k=hash(post_id)&n=4", "", false},
		{"/api/report?s=orders&k=hash(customer_id)&celeb=30&salt=4", "", false},
		{"/api/report?k=hash(user_id)&vs=hash(post_id)&iso=1", spec, true},
		{"/api/spec?file=x.yaml", spec, true},
		{"/api/spec", "tables: [{name: t, rows: 1000000, columns: [{name: a, gen: zipf, distinct: 50000000}]}]", true},
		{"/api/report?s=chat&k=directory(x,%2Fetc%2Fpasswd)", "", false},
	} {
		f.Add(c.path, c.body, c.post)
	}
	f.Fuzz(func(t *testing.T, path, body string, post bool) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \r\n\t#") {
			return // not a request target
		}
		method := "GET"
		if post {
			method = "POST"
		}
		req := httptest.NewRequest(method, "/", strings.NewReader(body))
		if err := func() (err error) {
			defer func() {
				if recover() != nil {
					err = http.ErrNotSupported // httptest refuses the target
				}
			}()
			req = httptest.NewRequest(method, path, strings.NewReader(body))
			return nil
		}(); err != nil {
			return
		}
		req.Header.Set("Content-Type", "text/yaml")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable {
			t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
		if !strings.HasPrefix(req.URL.Path, "/api/") || rec.Code == http.StatusNotFound || rec.Code == http.StatusMethodNotAllowed {
			return
		}
		var v any
		if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
			t.Fatalf("%s %s: %d, not JSON: %q", method, path, rec.Code, rec.Body)
		}
		if rec.Code != 200 {
			if m, ok := v.(map[string]any); !ok || m["error"] == "" {
				t.Fatalf("%s %s: %d without an error message: %s", method, path, rec.Code, rec.Body)
			}
		}
	})
}
