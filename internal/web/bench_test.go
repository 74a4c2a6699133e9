package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shardkey/shardkey/scenario"
)

// spec1M is the social scenario of seed 001 with a 1,000,000-row posts
// sample.
func spec1M(tb testing.TB) string {
	src, err := scenario.BuiltinSource("social")
	if err != nil {
		tb.Fatal(err)
	}
	s := strings.Replace(string(src), "rows: 20000 ", "rows: 1000000", 1)
	if s == string(src) {
		tb.Fatal("social.yaml: rows line not found")
	}
	return s
}

func post(tb testing.TB, h http.Handler, target, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("POST", target, strings.NewReader(body))
	req.Header.Set("Content-Type", "text/yaml")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		tb.Fatalf("POST %s: %d %s", target, rec.Code, rec.Body)
	}
	return rec
}

// BenchmarkRescore1M measures what moving a placement control costs on a
// 1M-row scenario: the workload is built once (cached), then each
// iteration scores a new shard count, key or hot-key fix, end to end
// through the handler (JSON included).
func BenchmarkRescore1M(b *testing.B) {
	for _, k := range []string{"hash(user_id)", "hash(post_id)", "range(created_at)", "hash(user_id)&salt=4", "hash(user_id)&iso=1"} {
		b.Run(strings.NewReplacer("(", "_", ")", "", "&", "_", "=", "").Replace(k), func(b *testing.B) {
			h := Handler(Options{})
			body := spec1M(b)
			post(b, h, "/api/report?celeb=30&k="+k, body) // build and cache
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				post(b, h, fmt.Sprintf("/api/report?celeb=30&k=%s&n=%d", k, 8+i%64), body)
			}
		})
	}
}

// BenchmarkCapacity1M moves the capacity only: nothing is re-scored.
func BenchmarkCapacity1M(b *testing.B) {
	h := Handler(Options{})
	body := spec1M(b)
	post(b, h, "/api/report?celeb=30&k=hash(user_id)", body)
	for i := 0; b.Loop(); i++ {
		post(b, h, fmt.Sprintf("/api/report?celeb=30&k=hash(user_id)&cap=%d", 500+i%1000), body)
	}
}

// BenchmarkBuild1M measures a full rebuild of the 1M-row workload (a
// control that changes the data, such as the celebrity share, with the
// result not in the cache).
func BenchmarkBuild1M(b *testing.B) {
	h := Handler(Options{CacheSize: 1})
	body := spec1M(b)
	for i := 0; b.Loop(); i++ {
		post(b, h, fmt.Sprintf("/api/report?k=hash(user_id)&celeb=%d", i%90), body)
	}
}
