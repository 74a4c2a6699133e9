package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shardkey/shardkey/internal/web"
	"github.com/shardkey/shardkey/scenario"
)

// TestServeAPIIsScoreJSON: the playground's API answers with the very
// document `shardkey score --format json` prints for the same inputs.
func TestServeAPIIsScoreJSON(t *testing.T) {
	dir := t.TempDir()
	h := web.Handler(web.Options{})
	for _, c := range []struct {
		name  string
		args  []string
		query string
	}{
		{"social", []string{"-k", "hash(user_id)", "-k", "hash(post_id)"}, "s=social&k=hash(user_id)&vs=hash(post_id)"},
		{"social", []string{"-k", "range(created_at)", "--shards", "16", "--capacity", "700", "--engine", "redis"}, "s=social&k=range(created_at)&n=16&cap=700&e=redis"},
		{"social", []string{"-k", "salt(hash(user_id), 4, top=1)"}, "s=social&k=hash(user_id)&salt=4"},
		{"orders", []string{"-k", "isolate(hash(customer_id), top=1)", "--engine", "cassandra"}, "s=orders&k=hash(customer_id)&iso=1&e=cassandra"},
		{"chat", []string{"-k", "messages:hash(sender_id); inbox:hash(user_id)", "--shards", "12"}, "s=chat&k=" + url.QueryEscape("messages:hash(sender_id); inbox:hash(user_id)") + "&n=12"},
	} {
		src, err := scenario.BuiltinSource(c.name)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, c.name+".yaml")
		if err := os.WriteFile(file, src, 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		args := append([]string{"score", "--workload", file, "--format", "json"}, c.args...)
		if code := run(context.Background(), args, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr.String())
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/report?"+c.query, nil))
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", c.query, rec.Code, rec.Body)
		}
		if !bytes.Equal(rec.Body.Bytes(), stdout.Bytes()) {
			t.Errorf("GET /api/report?%s differs from shardkey %s:\n api %.400s\n cli %.400s", c.query, strings.Join(args, " "), rec.Body, stdout.String())
		}
	}
}

// syncBuffer is a bytes.Buffer safe to write from the command while the
// test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var servingRE = regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/`)

// TestServeShutdown: serve answers until its context is cancelled (what
// SIGINT does in main), then stops cleanly with status 0.
func TestServeShutdown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, nil, &stdout, &stderr) }()
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == ""; {
		if m := servingRE.FindStringSubmatch(stdout.String()); m != nil {
			addr = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %q %q", stdout.String(), stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	res, err := http.Get("http://" + addr + "/api/report?s=social&k=hash(post_id)")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Contains(body, []byte(`"work_per_s": 34600`)) {
		t.Errorf("report: %d %.200s", res.StatusCode, body)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited %d: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after its context was cancelled")
	}
	if !strings.Contains(stdout.String(), "stopped") {
		t.Errorf("stdout %q", stdout.String())
	}
	if _, err := http.Get("http://" + addr + "/"); err == nil {
		t.Error("still serving after shutdown")
	}
}

// TestServeDefaultAddr: without --addr the playground binds loopback.
func TestServeDefaultAddr(t *testing.T) {
	var stdout, stderr bytes.Buffer
	run(context.Background(), []string{"serve", "-h"}, nil, &stdout, &stderr)
	if !strings.Contains(stderr.String(), `(default "127.0.0.1:`) {
		t.Errorf("serve -h does not show a loopback default:\n%s", stderr.String())
	}
	if code := run(context.Background(), []string{"serve", "--addr", "nonsense"}, nil, &stdout, &stderr); code != 2 {
		t.Errorf("--addr nonsense: exit %d, want 2", code)
	}
}

// TestServeSIGINT runs the real binary and interrupts it, as Ctrl-C does.
func TestServeSIGINT(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT on windows")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "shardkey")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() || !servingRE.MatchString(sc.Text()) {
		t.Fatalf("first line %q", sc.Text())
	}
	addr := servingRE.FindStringSubmatch(sc.Text())[1]
	if res, err := http.Get("http://" + addr + "/"); err != nil || res.StatusCode != 200 {
		t.Fatalf("GET /: %v", err)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		for sc.Scan() {
		}
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after SIGINT: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop on SIGINT")
	}
}
