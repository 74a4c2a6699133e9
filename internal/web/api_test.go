package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
)

func get(t *testing.T, h http.Handler, target string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
	return rec
}

func decodeReport(t *testing.T, rec *httptest.ResponseRecorder) *Report {
	t.Helper()
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var r Report
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func decodeError(t *testing.T, rec *httptest.ResponseRecorder, status int) *apiError {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status %d, want %d: %s", rec.Code, status, rec.Body)
	}
	var e apiError
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
		t.Fatalf("error body %q: %v", rec.Body, err)
	}
	return &e
}

func approx(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// Seed 001's numbers, derived by hand: 1,000 writes, 4,000 reads of one
// user's posts and 200 "latest posts" a second on 8 shards.
//
//	hash(post_id): a new post lands on one shard (1,000 spread over 8 =
//	125 each); a user's posts are on every shard, so each read asks all 8
//	(32,000); "latest" asks all 8 (1,600). Each shard: 125 + 4,000 + 200
//	= 4,325; in all 34,600 units of work for 5,200 requests.
//	hash(user_id): 1,000 + 4,000 + 8 x 200 = 6,600, mean 825.
//	range(created_at): everything on the newest shard: 5,200, 8x the mean.
func TestReportSeed001(t *testing.T) {
	h := Handler(Options{})
	check := func(key string, requests, work, max, ratio float64) {
		t.Helper()
		r := decodeReport(t, get(t, h, "/api/report?s=social&k="+url.QueryEscape(key)))
		if len(r.Candidates) != 1 {
			t.Fatalf("%s: %d candidates", key, len(r.Candidates))
		}
		c := r.Candidates[0]
		if c.Key != key || r.Shards != 8 || r.Capacity != 1000 || r.Engine != "generic" || r.Workload != "social" {
			t.Errorf("%s: key %q shards %d capacity %v engine %s workload %s", key, c.Key, r.Shards, r.Capacity, r.Engine, r.Workload)
		}
		if !approx(c.RequestsPerS, requests) || !approx(c.WorkPerS, work) || !approx(c.MaxShardWork, max) || !approx(c.WorkRatio, ratio) {
			t.Errorf("%s: requests %v work %v max %v ratio %v; want %v %v %v %v", key, c.RequestsPerS, c.WorkPerS, c.MaxShardWork, c.WorkRatio, requests, work, max, ratio)
		}
	}
	check("hash(post_id)", 5200, 34600, 4325, 1)
	check("range(created_at)", 5200, 5200, 5200, 8)
	r := decodeReport(t, get(t, h, "/api/report?s=social&k=hash(post_id)"))
	for i, x := range r.Candidates[0].ShardWork {
		if !approx(x, 4325) {
			t.Errorf("hash(post_id): shard %d does %v, want 4325", i, x)
		}
	}
	if got := len(r.Candidates[0].OverCapacity); got != 8 {
		t.Errorf("hash(post_id): %d shards over capacity, want 8", got)
	}
	u := decodeReport(t, get(t, h, "/api/report?s=social&k=hash(user_id)")).Candidates[0]
	if !approx(u.WorkPerS, 6600) || !approx(u.MeanShardWork, 825) {
		t.Errorf("hash(user_id): work %v mean %v, want 6600 825", u.WorkPerS, u.MeanShardWork)
	}
	// The default key is the scenario's first candidate.
	if c := decodeReport(t, get(t, h, "/api/report?s=social")).Candidates[0]; c.Key != "hash(user_id)" {
		t.Errorf("default key %q, want hash(user_id)", c.Key)
	}
}

// TestReportMatchesScore checks the API against the library called
// directly: the same workload, key, shards, capacity and engine give the
// same document.
func TestReportMatchesScore(t *testing.T) {
	h := Handler(Options{})
	type tc struct {
		query    string
		scenario string
		set      map[string]string
		keys     []string
		shards   int
		capacity float64
		engine   string
	}
	for _, c := range []tc{
		{"s=social&k=hash(user_id)", "social", nil, []string{"hash(user_id)"}, 8, 1000, "generic"},
		{"s=social&k=hash(user_id)&celeb=30", "social", map[string]string{"posts.user_id.celebrity": "0.3"}, []string{"hash(user_id)"}, 8, 1000, "generic"},
		{"s=social&k=hash(user_id)&celeb=30&salt=4&n=16&cap=1500", "social", map[string]string{"posts.user_id.celebrity": "0.3"}, []string{"salt(hash(user_id), 4, top=1)"}, 16, 1500, "generic"},
		{"s=social&k=hash(user_id)&celeb=30&iso=1&vs=hash(post_id)", "social", map[string]string{"posts.user_id.celebrity": "0.3"}, []string{"isolate(hash(user_id), top=1)", "hash(post_id)"}, 8, 1000, "generic"},
		{"s=orders&k=hash(customer_id)&e=vitess&n=16", "orders", nil, []string{"hash(customer_id)"}, 16, 3000, "vitess"},
		{"s=chat&k=hash(conversation_id)&celeb=10&e=redis", "chat", map[string]string{"messages.conversation_id.celebrity": "0.1", "inbox.conversation_id.celebrity": "0.1"}, []string{"hash(conversation_id)"}, 32, 500, "redis"},
		{"s=workspace&n=4&cap=0", "workspace", nil, []string{"hash(workspace_id)"}, 4, 0, "generic"},
	} {
		got := decodeReport(t, get(t, h, "/api/report?"+c.query))
		spec, err := scenario.Builtin(c.scenario)
		if err != nil {
			t.Fatal(err)
		}
		if c.set != nil {
			if spec, err = spec.With(c.set); err != nil {
				t.Fatal(err)
			}
		}
		w, err := scenario.Build(spec, "")
		if err != nil {
			t.Fatal(err)
		}
		w.Shards, w.Capacity = c.shards, c.capacity
		eng, err := partition.Lookup(c.engine)
		if err != nil {
			t.Fatal(err)
		}
		want := &Report{Version: "devel", Workload: w.Name, Description: w.Description, Shards: c.shards, Engine: eng.Name(), Capacity: c.capacity}
		for _, k := range c.keys {
			cand, err := sim.Score(w, k, sim.Options{Shards: c.shards, Engine: eng})
			if err != nil {
				t.Fatal(err)
			}
			want.Candidates = append(want.Candidates, cand)
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if !bytes.Equal(gj, wj) {
			t.Errorf("%s: API and sim.Score differ:\n got %.600s\nwant %.600s", c.query, gj, wj)
		}
	}
}

// TestCapacityOnly: changing the capacity re-scores nothing, and the
// shards over it are those sim.Score finds.
func TestCapacityOnly(t *testing.T) {
	h := Handler(Options{})
	for _, capacity := range []string{"1000", "700", "0", "5000", "825"} {
		a := decodeReport(t, get(t, h, "/api/report?s=social&k=hash(user_id)&cap="+capacity)).Candidates[0]
		spec, _ := scenario.Builtin("social")
		w, _ := scenario.Build(spec, "")
		fmt.Sscan(capacity, &w.Capacity)
		b, err := sim.Score(w, "hash(user_id)", sim.Options{Shards: 8})
		if err != nil {
			t.Fatal(err)
		}
		if b.Capacity == 0 {
			// No capacity: over_capacity is null (judged against
			// nothing), not an empty list.
			b.OverCapacity = nil
		}
		if a.Capacity != b.Capacity || !reflect.DeepEqual(a.OverCapacity, b.OverCapacity) {
			t.Errorf("cap=%s: capacity %v over %v; sim.Score %v over %v", capacity, a.Capacity, a.OverCapacity, b.Capacity, b.OverCapacity)
		}
	}
}

// TestCelebrityPreset: the celebrity control gives the numbers of the
// social scenario's own celebrity variant (30% of posts and reads).
func TestCelebrityPreset(t *testing.T) {
	h := Handler(Options{})
	rec := get(t, h, "/api/report?s=social&k=hash(user_id)&celeb=30")
	if got := rec.Header().Get(CelebrityHeader); got != "posts.user_id" {
		t.Errorf("%s = %q, want posts.user_id", CelebrityHeader, got)
	}
	got := decodeReport(t, rec).Candidates[0]
	spec, _ := scenario.Builtin("social")
	w, err := scenario.Build(spec, "celebrity")
	if err != nil {
		t.Fatal(err)
	}
	want, err := sim.Score(w, "hash(user_id)", sim.Options{Shards: 8})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.ShardWork, want.ShardWork) || got.TopValues[0] != want.TopValues[0] {
		t.Errorf("celeb=30: shard work %v top %v; variant celebrity %v top %v", got.ShardWork, got.TopValues[0], want.ShardWork, want.TopValues[0])
	}
	if math.Abs(got.TopValues[0].Share-0.3) > 0.01 {
		t.Errorf("celebrity's share %v, want 0.3", got.TopValues[0].Share)
	}
}

// TestEvictedWorkloadKeyStats moves the celebrity past the cache size,
// collecting garbage between requests: each report's hottest value has the
// share asked for, never a freed workload's (sim memoises by weak table
// pointer). The spec has a row count of its own, so no other test's
// tables can answer for it.
func TestEvictedWorkloadKeyStats(t *testing.T) {
	h := Handler(Options{CacheSize: 1})
	src, err := scenario.BuiltinSource("social")
	if err != nil {
		t.Fatal(err)
	}
	spec := strings.Replace(string(src), "rows: 20000 ", "rows: 20011", 1)
	for c := 10; c < 40; c++ {
		r := decodeReport(t, postSpec(h, fmt.Sprintf("/api/report?k=hash(user_id)&celeb=%d", c), spec))
		if got, want := r.Candidates[0].TopValues[0].Share, float64(c)/100; math.Abs(got-want) > 0.02 {
			t.Errorf("celeb=%d: top share %.3f, want about %.2f", c, got, want)
		}
		runtime.GC()
	}
}

func TestCelebrityTargets(t *testing.T) {
	check := func(name, key string, want ...string) {
		t.Helper()
		spec, err := scenario.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		d, err := shardkey.ParseDesign(key)
		if err != nil {
			t.Fatal(err)
		}
		if got := celebrityTargets(spec, d); !reflect.DeepEqual(got, want) {
			t.Errorf("%s %s: %q, want %q", name, key, got, want)
		}
	}
	check("social", "hash(user_id)", "posts.user_id")
	check("social", "hash(post_id)", "posts.user_id") // no finite key column: the looked-up one
	check("social", "range(created_at)", "posts.user_id")
	check("orders", "hash(customer_id)", "orders.customer_id") // order_line inherits it
	check("orders", "hash(customer_id, order_month)", "orders.customer_id")
	check("chat", "hash(conversation_id)", "messages.conversation_id", "inbox.conversation_id")
	check("chat", "messages:hash(sender_id); inbox:hash(user_id)", "messages.sender_id", "inbox.user_id")
	check("workspace", "hash(workspace_id)", "pages.workspace_id", "members.workspace_id")
}

func TestWrapKey(t *testing.T) {
	check := func(key string, salt int, iso bool, want string) {
		t.Helper()
		d, err := shardkey.ParseDesign(key)
		if err != nil {
			t.Fatal(err)
		}
		if got := wrapKey(d, salt, iso); got != want {
			t.Errorf("wrapKey(%q, %d, %v) = %q, want %q", key, salt, iso, got, want)
		}
		if _, err := shardkey.ParseDesign(want); err != nil {
			t.Errorf("%q does not parse: %v", want, err)
		}
	}
	check("hash(user_id)", 4, false, "salt(hash(user_id), 4, top=1)")
	check("hash(user_id)", 0, true, "isolate(hash(user_id), top=1)")
	check("hash(user_id)", 2, true, "salt(isolate(hash(user_id), top=1), 2, top=1)")
	check("user_id", 4, false, "salt(hash(user_id), 4, top=1)")
	check("messages:hash(sender_id); inbox:hash(user_id)", 4, false, "messages:salt(hash(sender_id), 4, top=1); inbox:salt(hash(user_id), 4, top=1)")
	check("t:replicate; hash(a)", 0, true, "t:replicate; isolate(hash(a), top=1)")
	check("users:hash(id), lookup(email); hash(a), lookup(b, nonunique)", 0, true, "users:isolate(hash(id), top=1), lookup(email); isolate(hash(a), top=1), lookup(b, nonunique)")
}

// TestBadParams: every control is range-checked and named in the error.
func TestBadParams(t *testing.T) {
	h := Handler(Options{})
	for _, c := range []struct{ query, field string }{
		{"n=0", "n"},
		{"n=1025", "n"},
		{"n=eight", "n"},
		{"cap=-1", "cap"},
		{"cap=NaN", "cap"},
		{"celeb=95", "celeb"},
		{"celeb=-5", "celeb"},
		{"salt=1", "salt"},
		{"iso=yes", "iso"},
		{"e=nosuch", "e"},
		{"e=" + url.QueryEscape("ketama(servers=@/etc/passwd)"), "e"},
		{"seed=x", "seed"},
		{"s=nosuch", "s"},
		{"s=file", "s"},
		{"k=hash(", "k"},
		{"k=hash(nosuch)", "k"},
		{"vs=hash(nosuch)", "vs"},
		{"k=hash(user_id)&salt=16", "k"}, // 16 buckets on 8 shards
		{"k=" + url.QueryEscape("directory(user_id, /etc/passwd)"), "k"},
		{"k=" + url.QueryEscape("salt(directory(user_id, ../../go.mod), 2)"), "k"},
	} {
		q := c.query
		if !strings.HasPrefix(q, "s=") {
			q = "s=social&" + q
		}
		e := decodeError(t, get(t, h, "/api/report?"+q), http.StatusBadRequest)
		if e.Field != c.field || !strings.HasPrefix(e.Msg, c.field+": ") {
			t.Errorf("%s: field %q, error %q; want field %q", c.query, e.Field, e.Msg, c.field)
		}
	}
	if e := decodeError(t, get(t, h, "/api/report?s=social&e="+url.QueryEscape("ring(servers=@/etc/passwd)")), 400); strings.Contains(e.Msg, "root") || !strings.Contains(e.Msg, "not read over HTTP") {
		t.Errorf("servers=@FILE over HTTP: %q", e.Msg)
	}
	if e := decodeError(t, get(t, h, "/api/report?s=social&k="+url.QueryEscape("directory(user_id, /etc/passwd)")), 400); !strings.Contains(e.Msg, "reads no files") {
		t.Errorf("directory key: %q", e.Msg)
	}
}

func postSpec(h http.Handler, target, body string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", target, strings.NewReader(body))
	req.Header.Set("Content-Type", "text/yaml")
	h.ServeHTTP(rec, req)
	return rec
}

// TestBadSpec: a spec's problems come back as 400 with file, line and
// field, for the page to show.
func TestBadSpec(t *testing.T) {
	h := Handler(Options{})
	for _, c := range []struct {
		name, spec string
		line       int
		field, msg string
	}{
		{"unknown column", badSpec, 9, "operations.read a user's posts.where.author", `table posts has no column "author"`},
		{"unknown field", "name: x\nshardz: 4\ntables:\n  - name: t\n", 2, "", "field shardz not found"},
		{"yaml syntax", "name: x\ntables: [\n", 2, "", "did not find expected node content"},
		{"bad generator", "tables:\n  - name: t\n    columns:\n      - {name: a, gen: zipf, distinct: 0}\n", 4, "t.a", "distinct 0"},
		{"too many rows", "tables:\n  - name: t\n    rows: 6000000\n    columns: [{name: a, gen: sequential}]\n", 2, "t.rows", "at most 2,000,000 rows"},
		{"children over the limit", "tables:\n  - name: p\n    rows: 100000\n    columns: [{name: a, gen: sequential}]\n  - name: c\n    parent: p\n    per_parent: 1-100\n", 5, "c.per_parent", "at most"},
		{"empty", "", 1, "", "empty scenario file"},
	} {
		for _, target := range []string{"/api/spec?file=my.yaml", "/api/report?file=my.yaml"} {
			e := decodeError(t, postSpec(h, target, c.spec), http.StatusBadRequest)
			if e.File != "my.yaml" || e.Line != c.line || e.Field != c.field || !strings.Contains(e.Msg, c.msg) {
				t.Errorf("%s %s: file %q line %d field %q msg %q; want my.yaml %d %q %q", c.name, target, e.File, e.Line, e.Field, e.Msg, c.line, c.field, c.msg)
			}
		}
	}
	// The file name is the base name only, printable.
	e := decodeError(t, postSpec(h, "/api/spec?file="+url.QueryEscape("../../etc/x\x01.yaml"), badSpec), 400)
	if e.File != "x.yaml" {
		t.Errorf("file name %q, want x.yaml", e.File)
	}
}

// TestLoadedSpec: a good spec is described, then scored by POST.
func TestLoadedSpec(t *testing.T) {
	h := Handler(Options{})
	good := strings.Replace(badSpec, "author", "user_id", 1)
	rec := postSpec(h, "/api/spec?file=mine.yaml", good)
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	var si ScenarioInfo
	if err := json.Unmarshal(rec.Body.Bytes(), &si); err != nil {
		t.Fatal(err)
	}
	if si.Name != "mine" || si.Shards != 4 || si.Capacity != 2000 || !reflect.DeepEqual(si.Candidates, []string{"hash(user_id)", "hash(post_id)"}) {
		t.Errorf("info %+v", si)
	}
	r := decodeReport(t, postSpec(h, "/api/report?file=mine.yaml&k=hash(user_id)&celeb=50", good))
	c := r.Candidates[0]
	// 4,000 reads of one user and 1,000 inserts, each on one shard.
	if !approx(c.RequestsPerS, 5000) || !approx(c.WorkPerS, 5000) || r.Shards != 4 {
		t.Errorf("requests %v work %v shards %d", c.RequestsPerS, c.WorkPerS, r.Shards)
	}
	if math.Abs(c.TopValues[0].Share-0.5) > 0.05 {
		t.Errorf("celebrity share %v, want 0.5", c.TopValues[0].Share)
	}
}

// TestBodyLimit: bodies over Options.MaxBody get 413, with or without a
// Content-Length.
func TestBodyLimit(t *testing.T) {
	h := Handler(Options{MaxBody: 1000})
	big := strings.Repeat("# padding\n", 200) + badSpec
	for _, target := range []string{"/api/spec", "/api/report"} {
		decodeError(t, postSpec(h, target, big), http.StatusRequestEntityTooLarge)
		req := httptest.NewRequest("POST", target, io.MultiReader(strings.NewReader(big)))
		req.ContentLength = -1 // chunked: the limit is found while reading
		req.Header.Set("Content-Type", "text/yaml")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		decodeError(t, rec, http.StatusRequestEntityTooLarge)
	}
	// Just under the limit is fine.
	good := strings.Replace(badSpec, "author", "user_id", 1)
	if rec := postSpec(Handler(Options{MaxBody: int64(len(good))}), "/api/spec", good); rec.Code != 200 {
		t.Errorf("a body at the limit: %d %s", rec.Code, rec.Body)
	}
}

func TestScenarios(t *testing.T) {
	rec := get(t, Handler(Options{}), "/api/scenarios")
	var list []ScenarioInfo
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range list {
		names = append(names, s.Name)
	}
	if want := []string{"chat", "orders", "social", "workspace"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("scenarios %q, want %q", names, want)
	}
	social := list[2]
	if want := []string{"hash(user_id)", "hash(post_id)", "range(created_at)", "salt(hash(user_id), 4, top=1)", "isolate(hash(user_id), top=1)"}; !reflect.DeepEqual(social.Candidates, want) {
		t.Errorf("social candidates %q, want %q", social.Candidates, want)
	}
}
