package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// chromium returns the browser to drive: $CHROMIUM, else the first of
// Debian's chromium and the usual names found on $PATH.
func chromium() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// artifacts returns the directory screenshots go to: $SHARDKEY_ARTIFACTS
// (created if needed), else a temporary directory. Never testdata.
func artifacts(t *testing.T) string {
	dir := os.Getenv("SHARDKEY_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestBrowser drives the page in headless Chromium: seed 001's numbers,
// the celebrity against the API, the shard count from the keyboard, a bad
// spec's error, screenshots at desktop and phone widths. With $CI set a
// missing browser fails the test, so CI cannot skip it silently.
func TestBrowser(t *testing.T) {
	exe := chromium()
	if exe == "" {
		msg := "chromium not found (install it: apt-get install -y chromium; or set CHROMIUM to the browser's path)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI is set, so the browser test may not be skipped")
		}
		t.Skip(msg)
	}
	srv := httptest.NewServer(Handler(Options{}))
	defer srv.Close()
	out := artifacts(t)

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	var mu sync.Mutex
	var jsErrors []string
	console := chromedp.Console(ctx)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			// The bad spec's 400 is expected: the page shows it.
			expected := strings.Contains(m.Text, "status of 400")
			if (m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleError) && !expected {
				mu.Lock()
				jsErrors = append(jsErrors, string(m.Type)+": "+m.Text)
				mu.Unlock()
			}
		}
	}()
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(expr string, v any) {
		t.Helper()
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](expr))
		if err != nil {
			t.Fatalf("evaluate %s: %v", expr, err)
		}
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("evaluate %s: %v", expr, err)
		}
	}
	// settle waits until the page has finished re-scoring.
	settle := func() chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void]("window.shardkey && window.shardkey.idle()", chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second))
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return strings.TrimSpace(s)
	}
	location := func() string {
		t.Helper()
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	// pick sets a control's value as a user would and fires its events.
	pick := func(id, value string) {
		t.Helper()
		js := fmt.Sprintf(`(() => { const e = document.getElementById(%q); e.value = %q;
			e.dispatchEvent(new Event("input", {bubbles: true})); e.dispatchEvent(new Event("change", {bubbles: true})); return e.value; })()`, id, value)
		var got string
		eval(js, &got)
		run("settle after #"+id, settle())
		if got != value {
			t.Fatalf("#%s = %q after setting %q", id, got, value)
		}
	}
	// apiFor fetches the API with the page's current URL state.
	apiFor := func() *Report {
		t.Helper()
		u, err := url.Parse(location())
		if err != nil {
			t.Fatal(err)
		}
		res, err := http.Get(srv.URL + "/api/report?" + u.RawQuery)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var r Report
		if err := json.NewDecoder(res.Body).Decode(&r); err != nil || res.StatusCode != 200 {
			t.Fatalf("GET /api/report?%s: %d %v", u.RawQuery, res.StatusCode, err)
		}
		return &r
	}
	shot := func(name string, width, height int64) {
		t.Helper()
		run("viewport", chromedp.EmulateViewport(width, height), settle(), chromedp.Sleep(150*time.Millisecond))
		buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		p := filepath.Join(out, name)
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot %s", p)
	}

	// Load the page; pick social and hash(post_id): seed 001's 34,600
	// units of work for 5,200 requests.
	run("load", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.ID("reading")), settle())
	pick("scenario", "social")
	pick("key", "hash(post_id)")
	if got := text("#stat-requests"); got != "5,200/s" {
		t.Errorf("requests = %q, want 5,200/s", got)
	}
	if got := text("#stat-work"); got != "34,600/s" {
		t.Errorf("work = %q, want 34,600/s", got)
	}
	if got := text("#stat-busiest"); got != "4,325 units/s" {
		t.Errorf("busiest = %q, want 4,325 units/s", got)
	}
	reading := text("#reading")
	for _, want := range []string{"34,600 units of work for 5,200 requests", "ask all 8 shards", "Every shard is over its capacity of 1,000 a second"} {
		if !strings.Contains(reading, want) {
			t.Errorf("reading lacks %q:\n%s", want, reading)
		}
	}

	// Add the celebrity: the page shows the API's busiest shard and ratio.
	checkAPI := func(what string) {
		t.Helper()
		r := apiFor()
		c := r.Candidates[0]
		if got, want := text("#stat-busiest"), num(c.MaxShardWork)+" units/s"; got != want {
			t.Errorf("%s: busiest = %q, API %q", what, got, want)
		}
		if got, want := text("#stat-ratio"), fmt.Sprintf("%.2f×", c.WorkRatio); got != want {
			t.Errorf("%s: ratio = %q, API %q", what, got, want)
		}
		if got, want := text("#stat-over"), fmt.Sprintf("%d of %d shards", len(c.OverCapacity), c.Shards); got != want {
			t.Errorf("%s: over capacity = %q, API %q", what, got, want)
		}
		var bars int
		eval(`document.querySelectorAll("#bars rect.bar").length`, &bars)
		if bars != c.Shards {
			t.Errorf("%s: %d bars, want %d", what, bars, c.Shards)
		}
	}
	pick("celeb", "30")
	if got := text("#celebout"); got != "30%" {
		t.Errorf("celebrity output = %q, want 30%%", got)
	}
	checkAPI("hash(post_id) with a celebrity")
	pick("key", "hash(user_id)")
	checkAPI("hash(user_id) with a celebrity")
	if r := apiFor().Candidates[0]; r.WorkRatio < 2 {
		t.Errorf("hash(user_id) with a 30%% celebrity: ratio %.2f, want a hot shard (> 2)", r.WorkRatio)
	}
	if reading := text("#reading"); !strings.Contains(reading, "celebrity") {
		t.Errorf("reading does not mention the celebrity:\n%s", reading)
	}

	// Change the shard count with the keyboard.
	before := 0
	eval(`window.shardkey.renders()`, &before)
	run("keyboard", chromedp.Focus(chromedp.ID("shards")), chromedp.KeyEvent(kb.ArrowUp), chromedp.KeyEvent(kb.ArrowUp),
		chromedp.Poll[chromedp.Void](fmt.Sprintf("window.shardkey.renders() > %d && window.shardkey.idle()", before), chromedp.WithPollingTimeout(20*time.Second)))
	loc := location()
	if !strings.Contains(loc, "n=10") {
		t.Errorf("after two ArrowUp from 8 shards the URL is %s, want n=10", loc)
	}
	checkAPI("10 shards from the keyboard")

	// Compare two keys side by side, and take the desktop screenshot.
	pick("vs", "hash(post_id)")
	var compareHidden bool
	eval(`document.getElementById("compare").hidden`, &compareHidden)
	if compareHidden {
		t.Error("comparison hidden after choosing a key to compare")
	}
	shot("playground-1280.png", 1280, 900)

	// The URL reproduces the view: open it afresh.
	loc = location()
	run("reload", chromedp.Navigate(loc), chromedp.WaitVisible(chromedp.ID("reading")), settle())
	checkAPI("reloaded from the URL")
	var vals []string
	eval(`["scenario","key","shards","celeb","vs"].map(id => document.getElementById(id).value)`, &vals)
	if want := []string{"social", "hash(user_id)", "10", "30", "hash(post_id)"}; fmt.Sprint(vals) != fmt.Sprint(want) {
		t.Errorf("controls after reload = %q, want %q", vals, want)
	}

	// A preset from the keyboard: Tab to it and press Enter.
	run("preset", chromedp.Focus(chromedp.CSS(`#presets button[data-id="post"]`)), chromedp.KeyEvent(kb.Enter), chromedp.Sleep(50*time.Millisecond), settle())
	if got := text("#stat-work"); got != "34,600/s" {
		t.Errorf("preset hash(post_id): work = %q, want 34,600/s", got)
	}
	if note := text("#presetnote"); !strings.Contains(note, "34,600 units of work for 5,200 requests") {
		t.Errorf("preset note = %q", note)
	}
	shot("playground-390.png", 390, 844)

	// Load a bad spec: the error names the line and the field.
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte(badSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	run("upload", chromedp.EmulateViewport(1280, 900), chromedp.SetUploadFiles(chromedp.ID("specfile"), []string{bad}),
		chromedp.WaitVisible(chromedp.ID("error")))
	errText := text("#error")
	for _, want := range []string{"bad.yaml, line 9", "field operations.read a user's posts.where.author", `table posts has no column "author"`} {
		if !strings.Contains(errText, want) {
			t.Errorf("error box lacks %q: %q", want, errText)
		}
	}
	shot("bad-spec-1280.png", 1280, 900)

	// Load a good spec: it is scored.
	good := filepath.Join(t.TempDir(), "mine.yaml")
	if err := os.WriteFile(good, []byte(strings.Replace(badSpec, "author", "user_id", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	run("upload good", chromedp.SetUploadFiles(chromedp.ID("specfile"), []string{good}),
		chromedp.Poll[chromedp.Void](`document.getElementById("error").hidden && document.getElementById("scenario").value === "file"`, chromedp.WithPollingTimeout(20*time.Second)), settle())
	if got := text("#stat-requests"); got != "5,000/s" {
		t.Errorf("loaded spec: requests = %q, want 5,000/s", got)
	}

	// Nothing was loaded from anywhere but this server.
	var foreign []string
	eval(`performance.getEntriesByType("resource").map(e => e.name).filter(n => !n.startsWith(location.origin))`, &foreign)
	if len(foreign) > 0 {
		t.Errorf("page loaded resources from elsewhere: %q", foreign)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, e := range jsErrors {
		t.Errorf("script error: %s", e)
	}
}

// badSpec refers to a column its table lacks on line 9.
const badSpec = `name: mine
shards: 4
capacity: 2000
tables:
  - name: posts
    rows: 1000
    columns: [{name: post_id, gen: sequential}, {name: user_id, gen: uniform, distinct: 50}]
operations:
  - {name: read a user's posts, table: posts, rate: 4000, where: {author: "?"}}
  - {name: write a post, table: posts, kind: insert, rate: 1000}
candidates: [hash(user_id), hash(post_id)]
`

// num formats as the page does (and the command line's num).
func num(x float64) string {
	if x >= 99.5 || x <= -99.5 {
		s := fmt.Sprintf("%.0f", x)
		var b strings.Builder
		for i, c := range s {
			if i > 0 && (len(s)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(c)
		}
		return b.String()
	}
	if x == float64(int64(x)) {
		return fmt.Sprint(int64(x))
	}
	if x >= 9.995 {
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}
