package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWatch_Follow: watch --follow on a log that grows, then is rotated
// (renamed, and a new file created under its name, as PostgreSQL's
// logging collector and logrotate do), prints the same windows as a
// replay of the whole log once it is stopped.
func TestWatch_Follow(t *testing.T) {
	lines := readCelebrityLog(t)
	var parts [3]strings.Builder
	for i, l := range lines {
		parts[min(3*i/len(lines), 2)].WriteString(l.raw + "\n")
	}
	var all strings.Builder
	for i := range parts {
		all.WriteString(parts[i].String())
	}
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.log")
	if err := os.WriteFile(whole, []byte(all.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--window", "10s", "--shards", "4", "-k", "hash(aid)", "--format", "json"}
	code, want, errs := runCmd(t, "", append([]string{"watch", "--log", whole}, args...)...)
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errs)
	}
	nwant := strings.Count(want, "\n")

	live := filepath.Join(dir, "postgresql.log")
	if err := os.WriteFile(live, []byte(parts[0].String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"watch", "--follow", "--log", live}, args...), strings.NewReader(""), &out, &stderr)
	}()
	waitFor := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if strings.Count(out.String(), "\n") >= n {
				return
			}
		}
		t.Fatalf("watch --follow printed %d windows; want at least %d\n%s", strings.Count(out.String(), "\n"), n, stderr.String())
	}
	waitFor(1)
	f, err := os.OpenFile(live, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(parts[1].String()) // the log grows
	f.Close()
	waitFor(3)
	if err := os.Rename(live, live+".1"); err != nil { // rotation
		t.Fatal(err)
	}
	if err := os.WriteFile(live, []byte(parts[2].String()), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(nwant - 1) // the last window stays open until the log moves on, or watch stops
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("watch --follow: exit %d: %s", code, stderr.String())
	}
	// Warnings name the file read: the followed one, not the replayed copy.
	want = strings.ReplaceAll(want, whole, live)
	if got := out.String(); got != want {
		t.Errorf("watch --follow printed\n%s\nwant (the replay of the whole log)\n%s", got, want)
	}
}
