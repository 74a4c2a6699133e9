package web

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserOtherOrigin: a web page served from another origin, open in
// Chromium, gets no answer from the playground, by any of the ways a page
// can send a request (fetch with CORS, fetch no-cors, a text/plain POST,
// a form posted into a frame), nor by DNS rebinding (its own host name
// resolved to the playground's address: Host is refused with 421). The
// playground logs every API request it receives; none is answered 200.
func TestBrowserOtherOrigin(t *testing.T) {
	exe := chromium()
	if exe == "" {
		msg := "chromium not found (install it: apt-get install -y chromium; or set CHROMIUM to the browser's path)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI is set, so the browser test may not be skipped")
		}
		t.Skip(msg)
	}
	type hit struct {
		method, path, site, origin string
		status                     int
	}
	var mu sync.Mutex
	var hits []hit
	play := Handler(Options{})
	pg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusWriter{ResponseWriter: w, status: 200}
		play.ServeHTTP(rec, r)
		if strings.HasPrefix(r.URL.Path, "/api/") {
			mu.Lock()
			hits = append(hits, hit{r.Method, r.URL.Path, r.Header.Get("Sec-Fetch-Site"), r.Header.Get("Origin"), rec.status})
			mu.Unlock()
		}
	}))
	defer pg.Close()
	_, pport, _ := net.SplitHostPort(pg.Listener.Addr().String())
	target := "http://127.0.0.1:" + pport
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(strings.ReplaceAll(attackerPage, "TARGET", target)))
	}))
	defer attacker.Close()
	_, aport, _ := net.SplitHostPort(attacker.Listener.Addr().String())

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
		// The attacker's host name resolves to the loopback address, as
		// a rebinding DNS server would make it.
		chromedp.Flag("host-resolver-rules", "MAP attacker.test 127.0.0.1"),
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, time.Minute)
	defer cancel()

	// The attacker's page tries every way; each result says what the
	// page could read.
	if _, err := chromedp.Run(ctx, chromedp.Navigate("http://attacker.test:"+aport+"/")); err != nil {
		t.Fatal(err)
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](`window.attack()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	var results map[string]string
	if err := json.Unmarshal(raw, &results); err != nil {
		t.Fatal(err)
	}
	for how, got := range results {
		if strings.Contains(got, "work_per_s") || strings.Contains(got, "candidates") {
			t.Errorf("%s: the other origin read an answer: %.200s", how, got)
		}
		t.Logf("%s: %.120s", how, got)
	}

	// DNS rebinding: the attacker's name now points at the playground's
	// address; the page and its fetches on that origin get 421.
	rebound := "http://attacker.test:" + pport
	if _, err := chromedp.Run(ctx, chromedp.Navigate(rebound+"/")); err != nil {
		t.Fatal(err)
	}
	body, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch("/api/report?s=social&k=hash(post_id)").then(r => r.status + " " + r.headers.get("content-type")).catch(e => "error " + e)`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(body, "421 ") {
		t.Errorf("rebound fetch: %q, want 421", body)
	}
	page, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, "not the address the playground listens on") || strings.Contains(page, "shard") && strings.Contains(page, "<select") {
		t.Errorf("rebound page: %.300q", page)
	}

	mu.Lock()
	defer mu.Unlock()
	refused := 0
	for _, h := range hits {
		if h.status == 200 {
			t.Errorf("%s %s (Sec-Fetch-Site %q, Origin %q) answered 200", h.method, h.path, h.site, h.origin)
		} else {
			refused++
		}
	}
	// The requests did reach the server (the browser sent them), and were
	// refused there: CORS alone would have let the work run.
	if refused < 4 {
		t.Errorf("the playground refused %d requests, want at least 4 (fetch, no-cors GET, text/plain POST, form, rebound): %+v", refused, hits)
	}
}

// statusWriter records the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// attackerPage is a page on another origin that tries to use the
// playground at TARGET.
const attackerPage = `<!doctype html><title>elsewhere</title>
<iframe name="sink"></iframe>
<script>
const spec = "tables:\n  - name: t\n    rows: 100\n    columns: [{name: a, gen: uniform, distinct: 10}]\ncandidates: [hash(a)]\n";
async function attempt(f) {
  try { const r = await f(); return r.type + " " + r.status + " " + await r.text(); }
  catch (e) { return "error " + e; }
}
window.attack = async function () {
  const out = {};
  out.cors = await attempt(() => fetch("TARGET/api/report?s=social&k=hash(post_id)"));
  out.nocors = await attempt(() => fetch("TARGET/api/report?s=social&k=hash(user_id)", {mode: "no-cors"}));
  out.textplain = await attempt(() => fetch("TARGET/api/report?k=hash(a)", {method: "POST", mode: "no-cors", body: spec, headers: {"Content-Type": "text/plain"}}));
  out.yaml = await attempt(() => fetch("TARGET/api/spec", {method: "POST", body: spec, headers: {"Content-Type": "text/yaml"}}));
  const f = document.createElement("form");
  f.method = "POST"; f.action = "TARGET/api/spec?file=x.yaml"; f.enctype = "text/plain"; f.target = "sink";
  const i = document.createElement("input"); i.name = "tables"; i.value = spec; f.appendChild(i);
  document.body.appendChild(f);
  await new Promise(res => { document.querySelector("iframe").onload = res; f.submit(); setTimeout(res, 3000); });
  try { out.form = document.querySelector("iframe").contentDocument.body.innerText; }
  catch (e) { out.form = "error " + e; }
  return out;
};
</script>`
