package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe to read while a command writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestWatch_Prometheus: a real Prometheus server (Debian's prometheus
// package), started here on a loopback port with a scrape config written
// here, scrapes watch --listen; queries through its HTTP API return the
// per-shard work and the top-key share of the last window, equal to the
// last JSON window's. With $CI set a missing prometheus fails the test.
func TestWatch_Prometheus(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		msg := "prometheus not installed (apt-get install prometheus)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI is set, so the Prometheus test may not be skipped")
		}
		t.Skip(msg)
	}
	// The log up to 23:07:55: its last window, [23:07:50, 23:07:55], has
	// the celebrity at about a fifth of requests.
	lines := readCelebrityLog(t)
	cut := time.Date(2026, 12, 1, 23, 7, 55, 0, time.UTC)
	var b strings.Builder
	for _, l := range lines {
		if l.ts.Before(cut) {
			b.WriteString(l.raw + "\n")
		}
	}
	dir := t.TempDir()
	logFile := filepath.Join(dir, "pg.log")
	if err := os.WriteFile(logFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--log", logFile, "--window", "10s", "--shards", "4", "-k", "hash(aid)"}
	ws := runWatchJSON(t, args...)
	last := ws[len(ws)-1].Designs[0]
	if last.TopKeys[0].Key != "4242" {
		t.Fatalf("fixture: the last window's top key is %s; want 4242", last.TopKeys[0].Key)
	}

	// watch --listen, serving until cancelled.
	wport := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"watch", "--format", "json", "--listen", fmt.Sprintf("127.0.0.1:%d", wport)}, args...), strings.NewReader(""), io.Discard, &stderr)
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("watch --listen: exit %d: %s", code, stderr.String())
		}
	}()

	// Prometheus on another loopback port, scraping every second.
	pport := freePort(t)
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
scrape_configs:
  - job_name: shardkey
    static_configs:
      - targets: ['127.0.0.1:%d']
`, wport)), 0o644); err != nil {
		t.Fatal(err)
	}
	var plog lockedBuffer
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", pport))
	cmd.Stdout, cmd.Stderr = &plog, &plog
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()

	query := func(q string) map[string]float64 {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/api/v1/query?query=%s", pport, url.QueryEscape(q)))
		if err != nil {
			return nil
		}
		defer resp.Body.Close()
		var r struct {
			Status string
			Data   struct {
				Result []struct {
					Metric map[string]string
					Value  [2]any
				}
			}
		}
		if json.NewDecoder(resp.Body).Decode(&r) != nil || r.Status != "success" {
			return nil
		}
		out := map[string]float64{}
		for _, s := range r.Data.Result {
			v, _ := strconv.ParseFloat(s.Value[1].(string), 64)
			out[s.Metric["design"]+"/"+s.Metric["shard"]+s.Metric["key"]] = v
		}
		return out
	}
	var work, share map[string]float64
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		work = query("shardkey_shard_work_per_second")
		share = query(`shardkey_top_key_share{key="4242"}`)
		if len(work) == 4 && len(share) == 1 {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if len(work) != 4 || len(share) != 1 {
		t.Fatalf("Prometheus returned %v and %v; want 4 shards and 4242's share\nwatch: %s\nprometheus: %s", work, share, stderr.String(), plog.String())
	}
	for i, want := range last.ShardWork {
		if got := work[fmt.Sprintf("hash(aid)/%d", i)]; !close9(got, want) {
			t.Errorf("shard %d: Prometheus has %v units/s; want %v", i, got, want)
		}
	}
	if got, want := share["hash(aid)/4242"], last.TopKeys[0].Share; !close9(got, want) {
		t.Errorf("4242's share: Prometheus has %v; want %v", got, want)
	}
}

// TestWatch_MetricsHost: the metrics server answers loopback Host
// headers and refuses others (DNS rebinding).
func TestWatch_MetricsHost(t *testing.T) {
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"watch", "--format", "json", "--listen", fmt.Sprintf("127.0.0.1:%d", port), "--log", celebrityLog, "--window", "10s", "-k", "hash(aid)"}, strings.NewReader(""), io.Discard, io.Discard)
	}()
	defer func() { cancel(); <-done }()
	get := func(host string) int {
		req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d/metrics", port), nil)
		req.Host = host
		for range 100 {
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
				return resp.StatusCode
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatal("metrics server did not start")
		return 0
	}
	if c := get(fmt.Sprintf("127.0.0.1:%d", port)); c != 200 {
		t.Errorf("Host 127.0.0.1: status %d; want 200", c)
	}
	if c := get("localhost"); c != 200 {
		t.Errorf("Host localhost: status %d; want 200", c)
	}
	if c := get("evil.example:80"); c != 403 {
		t.Errorf("Host evil.example: status %d; want 403", c)
	}
}

// TestWatch_AlertingRules: the alerting rules docs/watch.md gives to copy
// pass promtool check rules (Debian's prometheus package ships promtool).
func TestWatch_AlertingRules(t *testing.T) {
	bin, err := exec.LookPath("promtool")
	if err != nil {
		msg := "promtool not installed (apt-get install prometheus)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI is set, so the test may not be skipped")
		}
		t.Skip(msg)
	}
	doc, err := os.ReadFile("../../docs/watch.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "## Alerting rules")
	if !ok {
		t.Fatal("docs/watch.md: no Alerting rules section")
	}
	_, after, ok = strings.Cut(after, "```yaml\n")
	rules, _, ok2 := strings.Cut(after, "```")
	if !ok || !ok2 || !strings.Contains(rules, "groups:") {
		t.Fatal("docs/watch.md: no rules block after Alerting rules")
	}
	file := filepath.Join(t.TempDir(), "rules.yml")
	if err := os.WriteFile(file, []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "check", "rules", file).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SUCCESS: 5 rules found") {
		t.Errorf("promtool check rules: %v\n%s", err, out)
	}
}
